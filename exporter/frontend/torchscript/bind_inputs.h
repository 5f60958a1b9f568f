// Fixing forward's arguments in the graph: what the ONNX model takes as inputs (tensors, the
// tensors of a list or tuple argument) and what becomes a constant (None, numbers, defaults), so
// that `if mask is None` and other branches on constant arguments are resolved at export.
#pragma once

#include <ATen/core/ivalue.h>
#include <memory>
#include <torch/csrc/jit/ir/ir.h>
#include <vector>

namespace torch2onnx {

// How one forward argument reaches the graph.
struct ArgBinding {
  enum class Kind { Tensor, Sequence, Constant };
  Kind kind = Kind::Tensor;
  size_t count = 0;     // Sequence: its number of tensors, each one graph input
  c10::IValue constant; // Constant: the value (None, a number, a default)
};

// Rewrites the graph's inputs (forward's arguments, without self), one binding each, in order:
// a tensor stays an input (an Optional[Tensor] becomes a Tensor), a sequence becomes `count`
// tensor inputs gathered by a ListConstruct / TupleConstruct, a constant is inlined. Then
// simplifies: `x is None` on a tensor, If on a constant, dead code.
void bind_graph_inputs(const std::shared_ptr<torch::jit::Graph> &graph,
                       const std::vector<ArgBinding> &bindings);

} // namespace torch2onnx
