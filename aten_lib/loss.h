// What the loss families (loss.cpp, loss_more.cpp) share: the compute dtype, ATen's `reduction`
// enum (0 none, 1 mean, 2 sum) and the reduction itself.
#pragma once

#include "aten_lib/converter.h"

namespace torch2onnx {

// Losses compute in float or double: the ONNX Runtime loss kernels have no half types.
DType loss_type(const ConvertCtx &c);

// The "reduction" argument every loss has, checked. Example: reduction_arg(c) == 1 for "mean".
int64_t reduction_arg(const ConvertCtx &c);

// Mean or sum over every element (0-d result), or the elementwise loss itself for reduction 0.
// Example: set_result(c, reduce_all(c.b, k, loss, reduction_arg(c)));
Val reduce_all(GraphBuilder &b, DType k, const Val &x, int64_t reduction);

} // namespace torch2onnx
