// Tensor-to-number conversions (aten::Int, Float, Bool, ScalarImplicit, item). With static
// shapes the walker folds these; they reach a converter only when the value is computed at run
// time, where the "number" stays a 0-d tensor.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

#include <functional>
#include <numeric>

namespace torch2onnx {

namespace {

// The tensor argument: Int / Float / Bool / ScalarImplicit (Tensor a), item (Tensor self).
const char *number_input(const ConvertCtx &c) {
  return c.takes("a") ? "a" : "self";
}

// Python ints are int64 and floats are double in TorchScript.
Val to_number(ConvertCtx &c, DType t) {
  Val x = c.tensor(number_input(c));
  if (c.b.has_info(x) && c.b.rank(x) != 0)
    x = reshape(c.b, x, {});
  return cast_to(c.b, x, t);
}

} // namespace

void aten_Int(ConvertCtx &c) {
  c.set_out(0, to_number(c, DType::Int64));
}
void aten_Float(ConvertCtx &c) {
  c.set_out(0, to_number(c, DType::Double));
}
void aten_Bool(ConvertCtx &c) {
  c.set_out(0, to_number(c, DType::Bool));
}

// ScalarImplicit / item give a Python number: double for floating tensors, int64 for integers.
void aten_item(ConvertCtx &c) {
  DType t = c.b.dtype(c.tensor(number_input(c)));
  c.set_out(0, to_number(c, is_floating(t) ? DType::Double : t == DType::Bool ? t : DType::Int64));
}

// Metadata ops reach a converter only when some dim is dynamic (the walker folds static ones).
// Static dims still come out as Int constants so later shape arithmetic folds where it can.
namespace {
Arg dim_size(GraphBuilder &b, const Val &x, const TensorInfo &info, int64_t axis) {
  const Dim &d = (*info.shape)[axis];
  if (d.is_static())
    return Arg::of_int(d.value);
  Val v = b.op1("Gather", {b.op1("Shape", {x}), b.const_i64_scalar(axis)}, {{"axis", int64_t{0}}});
  b.set_info(v, TensorInfo{DType::Int64, std::vector<Dim>{}});
  note_size_of(b, v, x, axis);
  return Arg::of_tensor(v);
}

const TensorInfo &ranked_info(const ConvertCtx &c) {
  const TensorInfo &info = c.info("self");
  T2O_CHECK(info.has_rank(), "{} needs the rank of its input, which is unknown", c.op());
  return info;
}
} // namespace

// size(self) -> int[] / size.int(self, dim) -> int
void aten_size(ConvertCtx &c) {
  const TensorInfo &info = ranked_info(c);
  if (c.takes("dim") && c.has("dim")) {
    int64_t axis = norm_axis(c.arg<int64_t>("dim"), info.rank());
    c.set_out(0, dim_size(c.b, c.tensor("self"), info, axis));
    return;
  }
  std::vector<Arg> dims;
  for (int64_t i = 0; i < info.rank(); ++i)
    dims.push_back(dim_size(c.b, c.tensor("self"), info, i));
  c.set_out(0, Arg::of_list(std::move(dims)));
}

void aten_dim(ConvertCtx &c) {
  c.set_out(0, Arg::of_int(ranked_info(c).rank()));
}

void aten_numel(ConvertCtx &c) {
  const TensorInfo &info = c.info("self");
  if (info.is_static()) {
    auto sizes = info.sizes();
    c.set_out(0, Arg::of_int(std::accumulate(sizes.begin(), sizes.end(), int64_t{1},
                                             std::multiplies<int64_t>())));
    return;
  }
  Val v = c.b.op1("Size", {c.tensor("self")});
  c.b.set_info(v, TensorInfo{DType::Int64, std::vector<Dim>{}});
  c.set_out(0, v);
}

// The walker folds is_floating_point whenever the rank is known; the dtype alone decides it.
void aten_is_floating_point(ConvertCtx &c) {
  c.set_out(0, Arg::of_bool(is_floating(c.b.dtype(c.tensor("self")))));
}

// is_pinned(Tensor self, Device? device=None): an ONNX value lives in no page-locked host memory.
void aten_is_pinned(ConvertCtx &c) {
  c.set_out(0, Arg::of_bool(false));
}

// sym_storage_offset(Tensor self): every ONNX value is its own storage, starting at 0.
void aten_sym_storage_offset(ConvertCtx &c) {
  c.set_out(0, Arg::of_int(0));
}

void register_scalar_ops(Registry &r) {
  r.add("aten::size", 11, aten_size, {"Shape", "Gather"});
  r.add("aten::dim", 11, aten_dim, {});
  r.add("aten::numel", 11, aten_numel, {"Size"});
  r.add("aten::Int", 11, aten_Int, {"Cast", "Reshape"});
  r.add("aten::IntImplicit", 11, aten_Int, {"Cast", "Reshape"});
  r.add("aten::Float", 11, aten_Float, {"Cast", "Reshape"});
  r.add("aten::FloatImplicit", 11, aten_Float, {"Cast", "Reshape"});
  r.add("aten::Bool", 11, aten_Bool, {"Cast", "Reshape"});
  r.add("aten::ScalarImplicit", 11, aten_item, {"Cast", "Reshape"});
  r.add("aten::item", 11, aten_item, {"Cast", "Reshape"});
  r.add("aten::is_floating_point", 11, aten_is_floating_point, {});
  r.add("aten::is_pinned", 11, aten_is_pinned, {});
  r.add("aten::sym_storage_offset", 11, aten_sym_storage_offset, {});
  r.add("aten::storage_offset", 11, aten_sym_storage_offset, {});
}

} // namespace torch2onnx
