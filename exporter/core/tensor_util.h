// Conversions between LibTorch's tensor types and torch2onnx's plain types, and LibTorch's error
// messages made readable: what every front end shares (none of it is TorchScript's graph).
#pragma once

#include "builder/types.h"

#include <ATen/core/ivalue.h>
#include <c10/core/ScalarType.h>
#include <map>
#include <string>
#include <vector>

namespace torch2onnx {

DType to_dtype(c10::ScalarType t);       // throws for types ONNX lacks
c10::ScalarType to_scalar_type(DType t); // throws for types LibTorch lacks
// A quantized tensor's info is f32 with its quantization (TensorInfo::quant).
TensorInfo info_of(const at::Tensor &t);
// The per-tensor parameters of a quantized tensor; nullopt for other tensors and per-channel ones.
std::optional<QuantParams> quant_params_of(const at::Tensor &t);
// The tensor's bytes, contiguous and little-endian. Example: to_tensor_data(weight).
TensorData to_tensor_data(const at::Tensor &t);
at::Tensor from_tensor_data(const TensorData &d);

// Flattens tuples/lists of tensors (in order) into a list of tensors; scalars become 0-d tensors.
std::vector<at::Tensor> flatten_tensors(const c10::IValue &v);

// LibTorch's messages start with a newline or "[enforce fail at file.cc:123] . " and end with a
// backtrace: the first meaningful line, e.g. "PytorchStreamReader failed reading zip archive".
std::string first_error_line(const std::string &what);

// LibTorch's "The following operation failed in the TorchScript interpreter ..." message (two
// tracebacks, ~30 lines) reduced to its reason and the model's source line, e.g.
// "expected scalar type Long but found Float (at /src/model.py(26): forward)".
std::string summarize_torch_error(const std::string &what);

// Under a memory limit (ulimit -v), before LibTorch computes anything: OpenBLAS, LibTorch's matrix
// library here, takes a 128 MB buffer for each thread the first time it works, and when that
// allocation fails it retries for ever (an export hung at ulimit -v 2000000); oneDNN crashes when
// it cannot map memory for the code it generates. So under a limit matrix products run on one
// thread (one buffer, taken now, where running out of memory is still a clean error) and
// convolutions use LibTorch's own kernels. Does nothing without a limit. Throws Error (out of
// memory) when even that one buffer does not fit.
void prepare_for_memory_limit();

} // namespace torch2onnx
