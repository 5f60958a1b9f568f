// Ops that are another op under a different name or with extra outputs: the "unsafe_" and
// "sym_" spellings, the NumPy-style names (subtract, multiply, divide, less, greater, ...),
// aten::alias, and the native_* forms that also return saved statistics. Each reuses the
// converter of the op it equals.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

namespace torch2onnx {

namespace {

// The converter of an op that is `op` under another name: this node converted by op's converter
// (looked up in the registry at call time, so a plugin's newer entry serves the alias too).
ConverterFn same_as(const char *op) {
  return [op](ConvertCtx &c) { c.forward_to(op); };
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
  T2O_CHECK(!c.arg<bool>("training"), "native_batch_norm in training mode is not supported; "
                                      "export the model in eval mode");
  std::vector<NamedArg> args;
  for (const char *name :
       {"input", "weight", "bias", "running_mean", "running_var", "training", "eps"})
    args.emplace_back(name, c.arg(name));
  c.set_out(0, c.call("aten::batch_norm", std::move(args), {c.out_info(0)})[0]);
  c.set_out(1, empty_like_output(c, 1));
  c.set_out(2, empty_like_output(c, 2));
}

// aten::native_dropout(input, p, train?) -> (out, mask): the identity in inference, mask all true.
void aten_native_dropout(ConvertCtx &c) {
  T2O_CHECK(!c.arg<bool>("train", false) || c.arg<double>("p") == 0.0,
            "native_dropout with train=True is random; export the model in eval mode");
  c.set_out(0, c.b.op1("Identity", {c.tensor("input")}));
  Val shape = c.b.op1("Shape", {c.tensor("input")});
  TensorData one = TensorData::boolean({true}, {1});
  c.set_out(1, c.b.op1("ConstantOfShape", {shape}, {{"value", one}}));
}

// aten::alias(self): the same tensor.
void aten_alias(ConvertCtx &c) {
  c.set_out(0, c.tensor("self"));
}

// aten::is_nonzero(self) -> bool: a one-element tensor's truth value.
void aten_is_nonzero(ConvertCtx &c) {
  Val flat = reshape(c.b, c.tensor("self"), {});
  Val b = c.b.op1("Not", {c.b.op1("Equal", {flat, c.b.const_scalar(c.info("self").dtype, 0)})});
  TensorInfo info;
  info.dtype = DType::Bool;
  info.shape = std::vector<Dim>{};
  c.b.set_info(b, info);
  c.set_out(0, b);
}

void register_aliases_ops(Registry &r) {
  r.add("aten::native_batch_norm", 11, aten_native_batch_norm, {"BatchNormalization"});
  r.add("aten::native_dropout", 11, aten_native_dropout, {"Identity", "ConstantOfShape", "Shape"});
  r.add("aten::unsafe_split", 11, same_as("aten::split"), {"Split"});
  r.add("aten::unsafe_split_with_sizes", 11, same_as("aten::split_with_sizes"), {"Split"});
  r.add("aten::unsafe_chunk", 11, same_as("aten::chunk"), {"Split"});
  r.add("aten::sym_size", 11, same_as("aten::size"), {"Shape", "Gather"});
  r.add("aten::_local_scalar_dense", 11, same_as("aten::item"), {"Cast"});
  r.add("aten::is_nonzero", 11, aten_is_nonzero, {"Equal", "Not", "Reshape"});
  r.add("aten::alias", 11, aten_alias, {});
  // NumPy-style names of elementwise ops.
  r.add_with_inplace("aten::subtract", 11, same_as("aten::sub"), {"Sub", "Mul"});
  r.add_with_inplace("aten::multiply", 11, same_as("aten::mul"), {"Mul"});
  r.add_with_inplace("aten::divide", 11, same_as("aten::div"), {"Div", "Floor", "Mod", "Sub"});
  r.add("aten::not_equal", 11, same_as("aten::ne"), {"Equal", "Not", "Cast"});
  r.add("aten::less", 11, same_as("aten::lt"), {"Less", "Cast"});
  r.add("aten::less_equal", 11, same_as("aten::le"),
        {"LessOrEqual", "Cast", "Equal", "Less", "Or"});
  r.add("aten::greater", 11, same_as("aten::gt"), {"Greater", "Cast"});
  r.add("aten::greater_equal", 11, same_as("aten::ge"),
        {"GreaterOrEqual", "Cast", "Equal", "Greater", "Or"});
}

} // namespace torch2onnx
