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
  // Number: an int, float or bool argument given as a 0-d tensor input (start_pos:i64[]): the
  // graph takes the tensor and reads the number from it (aten::Int / Float / Bool); `type` is the
  // argument's number type.
  enum class Kind { Tensor, Sequence, Constant, Number };
  Kind kind = Kind::Tensor;
  // Sequence: a list or tuple (its type, Optional taken off) of tensors or of further lists and
  // tuples of tensors (a KV cache's Tuple[Tuple[Tensor, Tensor], ...]), one binding each.
  // A Dict[str, Tensor] is a sequence too, its elements the values of `keys`.
  c10::TypePtr type;
  std::vector<ArgBinding> elements;
  std::vector<std::string> keys;
  c10::IValue constant; // Constant: the value (None, a number, a default)

  // The graph inputs this argument becomes: 1 for a tensor or number input, the tensors in a
  // sequence, 0 for a constant.
  size_t tensor_count() const;
};

// Rewrites the graph's inputs (forward's arguments, without self), one binding each, in order:
// a tensor stays an input (an Optional[Tensor] becomes a Tensor), a sequence becomes one tensor
// input per tensor it holds (depth first), gathered by nested ListConstruct / TupleConstruct, a
// constant is inlined. Then simplifies: `x is None` on a tensor, If on a constant, dead code.
void bind_graph_inputs(const std::shared_ptr<torch::jit::Graph> &graph,
                       const std::vector<ArgBinding> &bindings);

} // namespace torch2onnx
