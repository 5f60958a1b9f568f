// Ops that are another op under a different name or with extra outputs: the "unsafe_" and
// "sym_" spellings, the NumPy-style names (subtract, multiply, divide, less, greater, ...),
// aten::alias, and the native_* forms that also return saved statistics. Each reuses the
// converter of the op it equals.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

namespace torch2onnx {

// Defined in their family files.
void aten_sub(ConvertCtx &c);
void aten_mul(ConvertCtx &c);
void aten_div(ConvertCtx &c);
void aten_ne(ConvertCtx &c);
void aten_lt(ConvertCtx &c);
void aten_le(ConvertCtx &c);
void aten_gt(ConvertCtx &c);
void aten_ge(ConvertCtx &c);
void aten_split(ConvertCtx &c);
void aten_chunk(ConvertCtx &c);
void aten_size(ConvertCtx &c);
void aten_item(ConvertCtx &c);
void aten_batch_norm(ConvertCtx &c);

namespace {

// Runs `fn` on the first `n` inputs of `c` with a context that has only `outputs` outputs, then
// copies its results into `c`.
void run_as(ConvertCtx &c, void (*fn)(ConvertCtx &), const std::vector<Arg> &inputs,
            size_t outputs) {
  std::vector<TensorInfo> infos;
  for (size_t i = 0; i < outputs; ++i)
    infos.push_back(c.out_info(i));
  ConvertCtx inner(c.b, c.op(), inputs, infos);
  fn(inner);
  for (size_t i = 0; i < outputs; ++i)
    c.set_out(i, inner.outputs()[i]);
}

// An empty tensor [0] of the dtype LibTorch gave output i (for saved statistics that inference
// does not compute).
Val empty_like_output(ConvertCtx &c, size_t i) {
  DType t = c.out_info(i).dtype == DType::Undefined ? DType::Float : c.out_info(i).dtype;
  TensorData d;
  d.dtype = t;
  d.dims = {0};
  Val v = c.b.constant(d, "empty");
  return v;
}

} // namespace

// aten::native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
//   eps) -> (out, save_mean, save_invstd). In inference the saved statistics are empty.
void aten_native_batch_norm(ConvertCtx &c) {
  T2O_CHECK(!c.in(5).to_bool(), "native_batch_norm in training mode is not supported; export the "
                                "model in eval mode");
  std::vector<Arg> args = {
      c.in(0), c.in(1), c.in(2), c.in(3), c.in(4), c.in(5), c.in(6), c.in(7), Arg::of_bool(false)};
  run_as(c, aten_batch_norm, args, 1);
  c.set_out(1, empty_like_output(c, 1));
  c.set_out(2, empty_like_output(c, 2));
}

// aten::native_dropout(input, p, train?) -> (out, mask): the identity in inference, mask all true.
void aten_native_dropout(ConvertCtx &c) {
  T2O_CHECK(c.in(2).is_none() || !c.in(2).to_bool() || c.in(1).to_double() == 0.0,
            "native_dropout with train=True is random; export the model in eval mode");
  c.set_out(0, c.b.op1("Identity", {c.tensor(0)}));
  Val shape = c.b.op1("Shape", {c.tensor(0)});
  TensorData one = TensorData::boolean({true}, {1});
  c.set_out(1, c.b.op1("ConstantOfShape", {shape}, {{"value", one}}));
}

void aten_unsafe_split(ConvertCtx &c) {
  aten_split(c);
}
void aten_unsafe_chunk(ConvertCtx &c) {
  aten_chunk(c);
}
void aten_sym_size(ConvertCtx &c) {
  aten_size(c);
}
void aten__local_scalar_dense(ConvertCtx &c) {
  aten_item(c);
}

// aten::alias(self): the same tensor.
void aten_alias(ConvertCtx &c) {
  c.set_out(0, c.tensor(0));
}

// aten::is_nonzero(self) -> bool: a one-element tensor's truth value.
void aten_is_nonzero(ConvertCtx &c) {
  Val flat = reshape(c.b, c.tensor(0), {});
  Val b = c.b.op1("Not", {c.b.op1("Equal", {flat, c.b.const_scalar(c.info(0).dtype, 0)})});
  TensorInfo info;
  info.dtype = DType::Bool;
  info.shape = std::vector<Dim>{};
  c.b.set_info(b, info);
  c.set_out(0, b);
}

void register_aliases_ops(Registry &r) {
  r.add("aten::native_batch_norm", 11, aten_native_batch_norm, {"BatchNormalization"});
  r.add("aten::native_dropout", 11, aten_native_dropout, {"Identity", "ConstantOfShape"});
  r.add("aten::unsafe_split", 11, aten_unsafe_split, {"Split"});
  r.add("aten::unsafe_split_with_sizes", 11, aten_unsafe_split, {"Split"});
  r.add("aten::unsafe_chunk", 11, aten_unsafe_chunk, {"Split"});
  r.add("aten::sym_size", 11, aten_sym_size, {"Shape", "Gather"});
  r.add("aten::_local_scalar_dense", 11, aten__local_scalar_dense, {"Cast"});
  r.add("aten::is_nonzero", 11, aten_is_nonzero, {"Equal", "Not"});
  r.add("aten::alias", 11, aten_alias, {});
  // NumPy-style names of elementwise ops.
  r.add_with_inplace("aten::subtract", 11, aten_sub, {"Sub", "Mul"});
  r.add_with_inplace("aten::multiply", 11, aten_mul, {"Mul"});
  r.add_with_inplace("aten::divide", 11, aten_div, {"Div", "Floor", "Mod"});
  r.add("aten::not_equal", 11, aten_ne, {"Equal", "Not"});
  r.add("aten::less", 11, aten_lt, {"Less"});
  r.add("aten::less_equal", 11, aten_le, {"LessOrEqual"});
  r.add("aten::greater", 11, aten_gt, {"Greater"});
  r.add("aten::greater_equal", 11, aten_ge, {"GreaterOrEqual"});
}

} // namespace torch2onnx
