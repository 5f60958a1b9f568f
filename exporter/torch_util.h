// Conversions between LibTorch types and torch2onnx's plain types. Only exporter/ sees LibTorch.
#pragma once

#include <ATen/core/ivalue.h>
#include <c10/core/ScalarType.h>
#include <torch/csrc/jit/ir/ir.h>

#include "builder/types.h"

namespace torch2onnx {

DType to_dtype(c10::ScalarType t);        // throws for types ONNX lacks
c10::ScalarType to_scalar_type(DType t);  // throws for types LibTorch lacks
TensorInfo info_of(const at::Tensor& t);
// The tensor's bytes, contiguous and little-endian. Example: to_tensor_data(weight).
TensorData to_tensor_data(const at::Tensor& t);
at::Tensor from_tensor_data(const TensorData& d);

// Where a node comes from, for names and messages.
struct NodeWhere {
  std::string scope;   // module path, e.g. "layer1.0.conv1"; empty at top level
  std::string source;  // "file.py:12" when the model kept debug info
};
NodeWhere where_of(const torch::jit::Node* n);

}  // namespace torch2onnx
