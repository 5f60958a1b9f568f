// torch's type promotion (torch.result_type / promote_types) and the dtypes converters compute
// in so that ONNX Runtime has kernels. One place for these rules: elementwise, math and the
// other families ask here instead of repeating them.
#pragma once

#include "aten_lib/converter.h"

#include <initializer_list>
#include <string_view>

namespace torch2onnx {

// Integer dtypes (not bool). Example: is_int(DType::UInt8) == true.
bool is_int(DType t);
// Example: is_unsigned(DType::UInt8) == true, is_unsigned(DType::Int8) == false.
bool is_unsigned(DType t);

// torch.promote_types for the dtypes ONNX can carry. Example: promote(Int32, Float) == Float.
DType promote(DType a, DType b);

// torch.result_type over the given arguments (tensors, Python numbers); a Python scalar does not
// promote a tensor of the same category. Tensors without recorded info (runtime scalars made by
// other converters) do not take part. Example: result_type(c, {"self", "other"}) for aten::eq.
DType result_type(const ConvertCtx &c, std::initializer_list<std::string_view> names);

// The output dtype: recorded by LibTorch, else (non-tensor results) result_type of the arguments.
// Example: out_type(c, {"self", "other"}).
DType out_type(const ConvertCtx &c, std::initializer_list<std::string_view> names);

// The dtype to compute `t` in so that ONNX Runtime has kernels: narrow ints widen to int32 (the
// result wraps the same way after the cast back), bfloat16 computes in float.
// Example: kernel_type(DType::Int8) == DType::Int32.
DType kernel_type(DType t);

// The float dtype for math that only has float kernels: half types and non-floats compute in
// float, double stays double. Example: float_compute(DType::Int64) == DType::Float.
DType float_compute(DType t);

} // namespace torch2onnx
