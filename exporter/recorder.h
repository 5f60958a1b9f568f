// Runs a graph once on example inputs and records every tensor value's dtype and shape: the
// shapes converters base their decisions on.
#pragma once

#include <ATen/core/ivalue.h>
#include <torch/csrc/jit/ir/ir.h>

#include <unordered_map>
#include <vector>

#include "builder/types.h"

namespace torch2onnx {

struct ShapeRecord {
  std::unordered_map<const torch::jit::Value*, TensorInfo> infos;
  std::vector<c10::IValue> outputs;  // the graph's outputs on the example inputs

  const TensorInfo* find(const torch::jit::Value* v) const {
    auto it = infos.find(v);
    return it == infos.end() ? nullptr : &it->second;
  }
};

// Throws Error with LibTorch's reason when the model rejects the inputs.
ShapeRecord record_shapes(const std::shared_ptr<torch::jit::Graph>& graph,
                          const std::vector<c10::IValue>& inputs);

}  // namespace torch2onnx
