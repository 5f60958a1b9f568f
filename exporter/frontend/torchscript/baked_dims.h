// Baked dims: sizes a traced model recorded as constants although they follow a symbolic input
// dim (the trace saw a Python int: `x.view(1, -1)` traced at batch=1, `torch.zeros(int(x.size(0)),
// 16)`, `x.reshape(int(x.shape[0]) * 3, -1)`). Found by comparing the recording at the example
// sizes with the one at the alternate sizes, and confirmed by running the model again at the
// alternate sizes with the suspect constant scaled like its symbol: a constant is reported only
// when that makes the model run further (or, for a reshape that silently folds the symbol into
// another dim, run with the symbol kept in place).
#pragma once

#include "exporter/analysis/graph_inputs.h"
#include "exporter/frontend/torchscript/recorder.h"

#include <memory>
#include <string>
#include <torch/csrc/jit/ir/ir.h>
#include <vector>

namespace torch2onnx {

// One baked size. Example: `x.view(1, -1)` traced at batch=1 is node aten::view, arg 1, item 0,
// value 1, symbol "batch", factor 1.
struct BakedDim {
  const torch::jit::Node *node = nullptr;
  size_t arg = 0;      // the node input holding the size: an int list, or one int
  int item = -1;       // the list item; -1 when the input is one int
  int64_t value = 0;   // the recorded constant
  std::string symbol;  // the symbolic input dim it stands for
  int64_t factor = 1;  // value == factor * the symbol's example size
  bool silent = false; // the model runs with it at the alternate sizes, folding the symbol away
  // The node's input `arg` is a constant tensor (e.g. torch.zeros(4, 16) from a Python int, folded
  // to a constant when the model was prepared) whose dims `tensor_dims` are `value`.
  bool tensor = false;
  std::vector<int> tensor_dims;
};

struct BakedDimReport {
  std::vector<BakedDim> baked;
  // LibTorch's error at the alternate sizes as traced (empty when it ran) and where.
  std::string failure;
  const torch::jit::Node *failed_at = nullptr;
  // The error that remains with every baked dim scaled (empty when the model then runs).
  std::string remaining;
  const torch::jit::Node *remaining_at = nullptr;
  // The record of the run with the baked dims scaled (empty when there are none).
  ShapeRecord scaled;
};

// `alternate` is the record at the alternate sizes; `failure` LibTorch's error there (empty when
// the run finished; the record then holds only what ran before the failing node).
BakedDimReport find_baked_dims(const std::shared_ptr<torch::jit::Graph> &graph,
                               const GraphInputs &inputs, const ShapeRecord &example,
                               const ShapeRecord &alternate, const std::string &failure);

// Throws Error listing every baked dim (node, scope and source line, inputs, which dim, the
// constant, the fix) or, when there is none but the alternate run failed, naming the node that
// failed. Returns when the model follows its symbolic dims.
void check_baked_dims(const std::shared_ptr<torch::jit::Graph> &graph, const GraphInputs &inputs,
                      const ShapeRecord &example, const ShapeRecord &alternate,
                      const std::string &failure);

} // namespace torch2onnx
