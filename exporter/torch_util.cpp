#include "exporter/torch_util.h"

#include <ATen/ATen.h>

#include <torch/csrc/jit/ir/scope.h>

#include "builder/error.h"

namespace torch2onnx {

DType to_dtype(c10::ScalarType t) {
  switch (t) {
    case c10::ScalarType::Float: return DType::Float;
    case c10::ScalarType::Double: return DType::Double;
    case c10::ScalarType::Half: return DType::Float16;
    case c10::ScalarType::BFloat16: return DType::BFloat16;
    case c10::ScalarType::Long: return DType::Int64;
    case c10::ScalarType::Int: return DType::Int32;
    case c10::ScalarType::Short: return DType::Int16;
    case c10::ScalarType::Char: return DType::Int8;
    case c10::ScalarType::Byte: return DType::UInt8;
    case c10::ScalarType::Bool: return DType::Bool;
    case c10::ScalarType::ComplexFloat: return DType::Complex64;
    case c10::ScalarType::ComplexDouble: return DType::Complex128;
    default: break;
  }
  throw Error(fmt::format("tensor type {} has no ONNX equivalent", c10::toString(t)));
}

c10::ScalarType to_scalar_type(DType t) {
  switch (t) {
    case DType::Float: return c10::ScalarType::Float;
    case DType::Double: return c10::ScalarType::Double;
    case DType::Float16: return c10::ScalarType::Half;
    case DType::BFloat16: return c10::ScalarType::BFloat16;
    case DType::Int64: return c10::ScalarType::Long;
    case DType::Int32: return c10::ScalarType::Int;
    case DType::Int16: return c10::ScalarType::Short;
    case DType::Int8: return c10::ScalarType::Char;
    case DType::UInt8: return c10::ScalarType::Byte;
    case DType::Bool: return c10::ScalarType::Bool;
    default: break;
  }
  throw Error(fmt::format("dtype {} has no LibTorch equivalent", dtype_name(t)));
}

TensorInfo info_of(const at::Tensor& t) {
  TensorInfo info;
  info.dtype = to_dtype(t.scalar_type());
  info.shape.emplace();
  for (auto s : t.sizes()) info.shape->push_back(Dim::known(s));
  return info;
}

TensorData to_tensor_data(const at::Tensor& t) {
  at::Tensor c = t.detach().to(at::kCPU).contiguous();
  TensorData d;
  d.dtype = to_dtype(c.scalar_type());
  d.dims.assign(c.sizes().begin(), c.sizes().end());
  d.raw.assign(static_cast<const char*>(c.data_ptr()), c.numel() * c.element_size());
  return d;
}

at::Tensor from_tensor_data(const TensorData& d) {
  auto opts = at::TensorOptions().dtype(to_scalar_type(d.dtype));
  at::Tensor t = at::empty(d.dims, opts);
  if (!d.raw.empty()) std::memcpy(t.data_ptr(), d.raw.data(), d.raw.size());
  return t;
}

NodeWhere where_of(const torch::jit::Node* n) {
  NodeWhere w;
  if (auto cs = n->callstack()) {
    std::vector<std::string> parts;
    for (const auto& entry : (*cs)->vec()) {
      const auto& mi = std::get<2>(entry);
      if (mi && !mi->instance_name().empty()) parts.push_back(mi->instance_name());
    }
    // The outermost entry is the root module ("self"): drop it.
    if (!parts.empty() && parts.front() == "self") parts.erase(parts.begin());
    w.scope = fmt::format("{}", fmt::join(parts, "."));
  }
  const auto& range = n->sourceRange();
  if (auto orig = range.findSourceRangeThatGenerated()) {
    if (auto loc = orig->file_line_col())
      w.source = fmt::format("{}:{}", std::get<0>(*loc), std::get<1>(*loc));
  } else if (auto loc = range.file_line_col()) {
    w.source = fmt::format("{}:{}", std::get<0>(*loc), std::get<1>(*loc));
  }
  return w;
}

}  // namespace torch2onnx
