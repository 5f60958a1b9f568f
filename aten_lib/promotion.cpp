#include "aten_lib/promotion.h"

#include <algorithm>

namespace torch2onnx {

namespace {

// Signed width order used by promote().
int int_rank(DType t) {
  switch (t) {
  case DType::Int8:
    return 1;
  case DType::UInt8:
  case DType::Int16:
    return 2;
  case DType::Int32:
    return 3;
  default:
    return 4;
  }
}

// torch's combine_categories: a lower-priority operand only wins by a higher category.
DType combine(DType higher, DType lower) {
  if (is_floating(higher))
    return higher;
  if (higher == DType::Bool || is_floating(lower))
    return promote(higher, lower);
  return higher != DType::Undefined ? higher : lower;
}

} // namespace

bool is_int(DType t) {
  return t == DType::UInt8 || t == DType::Int8 || t == DType::Int16 || t == DType::Int32 ||
         t == DType::Int64 || t == DType::UInt16 || t == DType::UInt32 || t == DType::UInt64;
}

bool is_unsigned(DType t) {
  return t == DType::UInt8 || t == DType::UInt16 || t == DType::UInt32 || t == DType::UInt64;
}

DType promote(DType a, DType b) {
  if (a == DType::Undefined)
    return b;
  if (b == DType::Undefined || a == b)
    return a;
  if (a == DType::Bool)
    return b;
  if (b == DType::Bool)
    return a;
  bool fa = is_floating(a), fb = is_floating(b);
  if (fa && fb) {
    if (a == DType::Double || b == DType::Double)
      return DType::Double;
    return DType::Float; // f16 with bf16, or either with f32
  }
  if (fa)
    return a;
  if (fb)
    return b;
  // Both integral: uint8 with a signed type needs at least int16.
  int r = std::max(int_rank(a), int_rank(b));
  if ((a == DType::UInt8 || b == DType::UInt8) && r == 2)
    return DType::Int16;
  return r == 1 ? DType::Int8 : r == 2 ? DType::Int16 : r == 3 ? DType::Int32 : DType::Int64;
}

DType result_type(const ConvertCtx &c, std::initializer_list<std::string_view> names) {
  DType dim = DType::Undefined, zero = DType::Undefined, wrapped = DType::Undefined;
  for (std::string_view name : names) {
    const Arg &a = c.arg(name);
    if (a.is_tensor()) {
      if (!c.b.has_info(a.t()))
        continue;
      const TensorInfo &info = c.b.info(a.t());
      if (info.rank() == 0)
        zero = promote(zero, info.dtype);
      else
        dim = promote(dim, info.dtype);
    } else if (a.kind == Arg::Kind::Float) {
      wrapped = promote(wrapped, DType::Float);
    } else if (a.kind == Arg::Kind::Int) {
      wrapped = promote(wrapped, DType::Int64);
    } else if (a.kind == Arg::Kind::Bool) {
      wrapped = promote(wrapped, DType::Bool);
    }
  }
  DType t = combine(dim, combine(zero, wrapped));
  return t == DType::Undefined ? DType::Float : t;
}

DType out_type(const ConvertCtx &c, std::initializer_list<std::string_view> names) {
  DType t = c.out_info(0).dtype;
  return t != DType::Undefined ? t : result_type(c, names);
}

DType kernel_type(DType t) {
  if (t == DType::Int8 || t == DType::UInt8 || t == DType::Int16)
    return DType::Int32;
  if (t == DType::BFloat16)
    return DType::Float;
  return t;
}

DType float_compute(DType t) {
  if (t == DType::Float16 || t == DType::BFloat16 || !is_floating(t))
    return DType::Float;
  return t;
}

} // namespace torch2onnx
