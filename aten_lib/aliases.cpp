// Ops that are another op under a different name or with extra outputs: the "unsafe_" and
// "sym_" spellings, the NumPy-style names (subtract, multiply, divide, less, greater, arccos,
// swapaxes, fliplr, ...), the torch.special names (special_expit, ...), aten::alias, and the
// native_* forms that also return saved statistics. Each reuses the converter of the op it equals
// (with the arguments renamed or fixed where the schemas differ: swapaxes, fliplr, msort, ...).
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

// aten::swapaxes(self, axis0, axis1): aten::transpose under NumPy's argument names.
void aten_swapaxes(ConvertCtx &c) {
  c.set_out(0, c.call("aten::transpose",
                      {{"self", c.arg("self")}, {"dim0", c.arg("axis0")}, {"dim1", c.arg("axis1")}},
                      {c.out_info(0)}, "int")[0]);
}

// aten::linalg_diagonal(A, offset, dim1=-2, dim2=-1): aten::diagonal of the last two dims by
// default.
void aten_linalg_diagonal(ConvertCtx &c) {
  std::vector<NamedArg> args{{"self", c.arg("A")},
                             {"offset", Arg::of_int(c.arg<int64_t>("offset", 0))},
                             {"dim1", Arg::of_int(c.arg<int64_t>("dim1", -2))},
                             {"dim2", Arg::of_int(c.arg<int64_t>("dim2", -1))}};
  c.set_out(0, c.call("aten::diagonal", std::move(args), {c.out_info(0)})[0]);
}

// aten::ravel(self): the tensor flattened to one dim.
void aten_ravel(ConvertCtx &c) {
  c.set_out(0,
            c.call("aten::flatten", {{"self", c.arg("self")}}, {c.out_info(0)}, "using_ints")[0]);
}

namespace {

// flip along one dim (fliplr: 1, flipud: 0), which the input must have.
void flip_dim(ConvertCtx &c, int64_t dim) {
  int64_t r = rank_of(c, "self");
  T2O_CHECK(r > dim, "{} needs a tensor of at least {} dims, got {}", c.op(), dim + 1, r);
  std::vector<NamedArg> args{{"self", c.arg("self")}, {"dims", Arg::of_list({Arg::of_int(dim)})}};
  c.set_out(0, c.call("aten::flip", std::move(args), {c.out_info(0)})[0]);
}

} // namespace

// aten::fliplr(self): flip along dim 1.
void aten_fliplr(ConvertCtx &c) {
  flip_dim(c, 1);
}

// aten::flipud(self): flip along dim 0.
void aten_flipud(ConvertCtx &c) {
  flip_dim(c, 0);
}

// aten::msort(self): the values of sort(self, dim=0).
void aten_msort(ConvertCtx &c) {
  TensorInfo idx = c.out_info(0);
  idx.dtype = DType::Int64;
  std::vector<NamedArg> args{{"self", c.arg("self")}, {"dim", Arg::of_int(0)}};
  c.set_out(0, c.call("aten::sort", std::move(args), {c.out_info(0), idx})[0]);
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
  r.add_with_inplace("aten::not_equal", 11, same_as("aten::ne"), {"Equal", "Not", "Cast"});
  r.add_with_inplace("aten::less", 11, same_as("aten::lt"), {"Less", "Cast"});
  r.add_with_inplace("aten::less_equal", 11, same_as("aten::le"),
                     {"LessOrEqual", "Cast", "Equal", "Less", "Or"});
  r.add_with_inplace("aten::greater", 11, same_as("aten::gt"), {"Greater", "Cast"});
  r.add_with_inplace("aten::greater_equal", 11, same_as("aten::ge"),
                     {"GreaterOrEqual", "Cast", "Equal", "Greater", "Or"});
  r.add_with_inplace("aten::absolute", 11, same_as("aten::abs"), {"Abs", "Cast"});
  r.add_with_inplace("aten::negative", 11, same_as("aten::neg"), {"Neg"});
  r.add("aten::positive", 11, aten_alias, {});
  r.add_with_inplace("aten::sgn", 11, same_as("aten::sign"), {"Sign"});
  r.add_with_inplace("aten::fix", 11, same_as("aten::trunc"), {"Ceil", "Floor", "Where", "Less"});
  r.add_with_inplace("aten::arccos", 11, same_as("aten::acos"), {"Acos"});
  r.add_with_inplace("aten::arccosh", 11, same_as("aten::acosh"), {"Acosh"});
  r.add_with_inplace("aten::arcsin", 11, same_as("aten::asin"), {"Asin"});
  r.add_with_inplace("aten::arcsinh", 11, same_as("aten::asinh"), {"Asinh"});
  r.add_with_inplace("aten::arctan", 11, same_as("aten::atan"), {"Atan"});
  r.add_with_inplace("aten::arctanh", 11, same_as("aten::atanh"), {"Atanh"});
  // torch.special names.
  r.add("aten::special_expit", 11, same_as("aten::sigmoid"), {"Sigmoid"});
  r.add("aten::special_exp2", 11, same_as("aten::exp2"), {"Pow"});
  r.add("aten::special_log1p", 11, same_as("aten::log1p"), {"Add", "Log"});
  r.add("aten::special_logit", 11, same_as("aten::logit"), {"Clip", "Sub", "Div", "Log"});
  r.add("aten::special_logsumexp", 11, same_as("aten::logsumexp"), {"ReduceLogSumExp"});
  r.add("aten::special_round", 11, same_as("aten::round"), {"Round", "Mul", "Div"});
  // Transposes, flips and flattening under other names.
  r.add_with_inplace("aten::swapaxes", 11, aten_swapaxes, {"Transpose"});
  r.add_with_inplace("aten::swapdims", 11, same_as("aten::transpose"), {"Transpose"});
  r.add("aten::adjoint", 11, same_as("aten::mH"), {"Transpose"});
  r.add("aten::matrix_H", 11, same_as("aten::mH"), {"Transpose"});
  r.add("aten::linalg_diagonal", 11, aten_linalg_diagonal, {"Transpose", "Reshape", "Gather"});
  r.add("aten::ravel", 11, aten_ravel, {"Reshape", "Shape", "Slice", "ReduceProd", "Concat"});
  r.add("aten::fliplr", 11, aten_fliplr, {"Slice"});
  r.add("aten::flipud", 11, aten_flipud, {"Slice"});
  r.add("aten::msort", 11, aten_msort, {"TopK", "Cast", "Gather", "Shape"});
  r.add("aten::row_stack", 11, same_as("aten::vstack"), {"Unsqueeze", "Concat"});
  r.add("aten::argwhere", 11, same_as("aten::nonzero"), {"NonZero", "Transpose"});
}

} // namespace torch2onnx
