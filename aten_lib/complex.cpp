// Complex tensors, carried as real [..., 2] tensors holding (real, imaginary) since ONNX has no
// complex type (docs/complex.md). Here: the ops that make and take apart complex values
// (view_as_complex, complex, polar, real, ...), arithmetic on them (add, mul, abs, pow, ...) and
// shape ops, which are the real converters run on the carried form with dims moved past the
// pair. Every one registers through Registry::add_complex; any other op given a complex value
// fails (aten_lib/dispatch.cpp) rather than read the pair as data. FFTs live in signal.cpp.
#include "aten_lib/complex.h"

#include "aten_lib/helpers.h"

#include <cmath>

namespace torch2onnx {

// ---- building blocks (complex.h) ------------------------------------------------------------

bool is_complex(const ConvertCtx &c, std::string_view name) {
  return c.has(name) && c.arg(name).is_tensor() && c.info(name).complex;
}

DType complex_part_dtype(const ConvertCtx &c, size_t i) {
  DType t = i < c.num_outputs() ? c.out_info(i).dtype : DType::Undefined;
  return t == DType::Double ? DType::Double : DType::Float;
}

int64_t carried_dim(int64_t d) {
  return d < 0 ? d - 1 : d;
}

Val complex_part(GraphBuilder &b, const Val &z, DType k, int64_t part) {
  return op_t(b, k, "Gather", {cast_to(b, z, k), b.const_i64_scalar(part)},
              {{"axis", int64_t{-1}}});
}

Val make_complex(GraphBuilder &b, DType k, const Val &re, const Val &im) {
  return op_t(b, k, "Concat",
              {unsqueeze(b, cast_to(b, re, k), {-1}), unsqueeze(b, cast_to(b, im, k), {-1})},
              {{"axis", int64_t{-1}}});
}

Val lift_to_complex(GraphBuilder &b, DType k, const Val &x, int64_t rank, int64_t part) {
  std::vector<int64_t> pads(static_cast<size_t>(2 * (rank + 1)), 0);
  pads[rank] = part;             // before the new last dim
  pads[2 * rank + 1] = 1 - part; // after it
  return op_t(b, k, "Pad", {unsqueeze(b, cast_to(b, x, k), {-1}), b.const_i64(pads)});
}

void set_complex_out(ConvertCtx &c, const Val &z, size_t i) {
  DType k = complex_part_dtype(c, i);
  Val v = cast_to(c.b, z, k);
  TensorInfo info = c.out_info(i);
  if (!info.complex) { // nothing recorded: the dtype and the flag, no shape
    info = TensorInfo{};
    info.dtype = k;
    info.complex = true;
  }
  c.b.set_info(v, info);
  c.set_out(i, v);
}

void on_carried_form(ConvertCtx &c, std::vector<NamedArg> args) {
  c.forward_real(c.op(), std::move(args));
  for (size_t i = 0; i < c.num_outputs(); ++i) {
    const Arg &out = c.outputs()[i];
    if (out.is_tensor() && c.out_info(i).complex)
      c.b.set_info(out.tensor, c.out_info(i));
  }
}

namespace {

// ---- making and taking apart ----------------------------------------------------------------

// view_as_real(z) -> real [..., 2]: the carried form itself, under a new name (its info differs).
void aten_view_as_real(ConvertCtx &c) {
  T2O_CHECK(is_complex(c, "self"), "view_as_real needs a complex tensor, got {}",
            c.info("self").str());
  Val y = c.b.op1("Identity", {c.tensor("self")});
  TensorInfo info = c.info("self");
  info.complex = false;
  c.b.set_info(y, info);
  set_result(c, y);
}

// view_as_complex(x) with x real [..., 2]: x is already the carried form.
void aten_view_as_complex(ConvertCtx &c) {
  const TensorInfo &info = c.info("self");
  T2O_CHECK(!info.complex && info.has_rank() && info.rank() >= 1 &&
                info.shape->back().is_static() && info.shape->back().value == 2,
            "view_as_complex needs a real tensor whose last dim is 2, got {}", info.str());
  set_complex_out(c, c.b.op1("Identity", {c.tensor("self")}));
}

// complex(real, imag): both real, broadcast against each other.
void aten_complex(ConvertCtx &c) {
  DType k = complex_part_dtype(c);
  Val re = lift_to_complex(c.b, k, c.tensor("real"), rank_of(c, "real"), 0);
  Val im = lift_to_complex(c.b, k, c.tensor("imag"), rank_of(c, "imag"), 1);
  set_complex_out(c, op_t(c.b, k, "Add", {re, im})); // adds zeros: exact, keeps inf and nan
}

// polar(abs, angle) = abs * (cos(angle) + i sin(angle)).
void aten_polar(ConvertCtx &c) {
  DType k = complex_part_dtype(c);
  Val r = cast_to(c.b, c.tensor("abs"), k), a = cast_to(c.b, c.tensor("angle"), k);
  Val re = op_t(c.b, k, "Mul", {r, op_t(c.b, k, "Cos", {a})});
  Val im = op_t(c.b, k, "Mul", {r, op_t(c.b, k, "Sin", {a})});
  set_complex_out(c, make_complex(c.b, k, re, im));
}

// real(z) / imag(z): one part. real() of a real tensor is the tensor itself.
void aten_real(ConvertCtx &c) {
  if (!is_complex(c, "self"))
    return c.set_out(0, c.tensor("self"));
  set_result(c, complex_part(c.b, c.tensor("self"), c.info("self").dtype, 0));
}

void aten_imag(ConvertCtx &c) {
  T2O_CHECK(is_complex(c, "self"), "imag needs a complex tensor, got {}", c.info("self").str());
  set_result(c, complex_part(c.b, c.tensor("self"), c.info("self").dtype, 1));
}

// [1, -1]: multiplies a carried value into its conjugate.
Val conj_sign(GraphBuilder &b, DType k) {
  return b.constant(k == DType::Double ? TensorData::f64({1.0, -1.0}, {2})
                                       : TensorData::f32({1.0f, -1.0f}, {2}),
                    "conj_sign");
}

// conj, _conj, conj_physical: the imaginary part negated (torch's lazy conjugate bit is applied
// here at once, so resolve_conj has nothing left to do). The identity on real tensors.
void aten_conj(ConvertCtx &c) {
  if (!is_complex(c, "self"))
    return c.set_out(0, c.tensor("self"));
  DType k = c.info("self").dtype;
  set_complex_out(c, op_t(c.b, k, "Mul", {c.tensor("self"), conj_sign(c.b, k)}));
}

// resolve_conj, resolve_neg: nothing is lazy in the carried form.
void aten_resolve(ConvertCtx &c) {
  c.set_out(0, c.tensor("self"));
}

// ---- arithmetic -----------------------------------------------------------------------------

// Operand `name` of a binary op as a carried complex value (real operands get a zero imaginary
// part).
Val as_carried(const ConvertCtx &c, std::string_view name, DType k) {
  const Arg &a = c.arg(name);
  if (a.is_tensor())
    return c.info(name).complex ? cast_to(c.b, a.t(), k)
                                : lift_to_complex(c.b, k, a.t(), rank_of(c, name), 0);
  T2O_CHECK(a.is_number(), "{}: operand {} is {}, not a tensor or a number", c.op(), name,
            a.describe());
  return k == DType::Double
             ? c.b.constant(TensorData::f64({a.to_double(), 0.0}, {2}))
             : c.b.constant(TensorData::f32({static_cast<float>(a.to_double()), 0.0f}, {2}));
}

// A real operand `name` as a factor of a carried value: [..., 1] so it scales both parts.
Val real_factor(const ConvertCtx &c, std::string_view name, DType k) {
  const Arg &a = c.arg(name);
  if (!a.is_tensor())
    return scalar(c.b, k, a.to_double());
  return unsqueeze(c.b, cast_to(c.b, a.t(), k), {-1});
}

// add / sub (self, other, alpha): the carried forms broadcast like the complex tensors.
void add_or_sub(ConvertCtx &c, const char *onnx_op) {
  DType k = complex_part_dtype(c);
  Val x = as_carried(c, "self", k), y = as_carried(c, "other", k);
  double alpha = c.arg<double>("alpha", 1.0);
  if (alpha != 1.0)
    y = op_t(c.b, k, "Mul", {y, scalar(c.b, k, alpha)});
  set_complex_out(c, op_t(c.b, k, onnx_op, {x, y}));
}

void complex_add(ConvertCtx &c) {
  add_or_sub(c, "Add");
}
void complex_sub(ConvertCtx &c) {
  add_or_sub(c, "Sub");
}

// (a + bi)(c + di) = (ac - bd) + (ad + bc)i.
Val complex_product(GraphBuilder &b, DType k, const Val &x, const Val &y) {
  Val a = complex_part(b, x, k, 0), bi = complex_part(b, x, k, 1);
  Val cr = complex_part(b, y, k, 0), d = complex_part(b, y, k, 1);
  auto mul = [&](const Val &p, const Val &q) { return op_t(b, k, "Mul", {p, q}); };
  Val re = op_t(b, k, "Sub", {mul(a, cr), mul(bi, d)});
  Val im = op_t(b, k, "Add", {mul(a, d), mul(bi, cr)});
  return make_complex(b, k, re, im);
}

void complex_mul(ConvertCtx &c) {
  DType k = complex_part_dtype(c);
  T2O_CHECK(is_complex(c, "self") || is_complex(c, "other"),
            "{}: no complex operand among {} and {}", c.op(), c.arg("self").describe(),
            c.arg("other").describe());
  if (is_complex(c, "self") && is_complex(c, "other"))
    return set_complex_out(c, complex_product(c.b, k, c.tensor("self"), c.tensor("other")));
  // The complex one; the other scales both parts.
  bool self_complex = is_complex(c, "self");
  const char *z = self_complex ? "self" : "other", *real = self_complex ? "other" : "self";
  set_complex_out(c, op_t(c.b, k, "Mul", {cast_to(c.b, c.tensor(z), k), real_factor(c, real, k)}));
}

// x / y: by a real y, both parts; by a complex y, x * conj(y) / |y|^2.
void complex_div(ConvertCtx &c) {
  T2O_CHECK(!c.takes("rounding_mode") || !c.has("rounding_mode"),
            "{} with rounding_mode is not defined for complex tensors", c.op());
  DType k = complex_part_dtype(c);
  if (!is_complex(c, "other"))
    return set_complex_out(
        c, op_t(c.b, k, "Div", {as_carried(c, "self", k), real_factor(c, "other", k)}));
  Val y = cast_to(c.b, c.tensor("other"), k);
  Val num = complex_product(c.b, k, as_carried(c, "self", k),
                            op_t(c.b, k, "Mul", {y, conj_sign(c.b, k)}));
  Val den =
      op_t(c.b, k, "ReduceSumSquare", {y}, {{"axes", std::vector<int64_t>{-1}}, {"keepdims", 1}});
  set_complex_out(c, op_t(c.b, k, "Div", {num, den}));
}

// exp(a + bi) = e^a (cos b + i sin b).
void complex_exp(ConvertCtx &c) {
  DType k = complex_part_dtype(c);
  Val z = cast_to(c.b, c.tensor("self"), k);
  Val mag = op_t(c.b, k, "Exp", {complex_part(c.b, z, k, 0)});
  Val b = complex_part(c.b, z, k, 1);
  Val re = op_t(c.b, k, "Mul", {mag, op_t(c.b, k, "Cos", {b})});
  Val im = op_t(c.b, k, "Mul", {mag, op_t(c.b, k, "Sin", {b})});
  set_complex_out(c, make_complex(c.b, k, re, im));
}

// |z| = sqrt(re^2 + im^2), a real tensor.
Val complex_abs(GraphBuilder &b, DType k, const Val &z) {
  Val sq = op_t(b, k, "ReduceSumSquare", {cast_to(b, z, k)},
                {{"axes", std::vector<int64_t>{-1}}, {"keepdims", 0}});
  return op_t(b, k, "Sqrt", {sq});
}

void complex_abs_op(ConvertCtx &c) {
  DType k = c.info("self").dtype;
  set_result(c, complex_abs(c.b, k, c.tensor("self")));
}

// atan2(im, re) through the real aten::atan2 converter (its quadrant and axis cases).
Val complex_angle(ConvertCtx &c, DType k, const Val &z) {
  TensorInfo info;
  info.dtype = k;
  Val im = complex_part(c.b, z, k, 1);
  Val re = complex_part(c.b, z, k, 0);
  return c.call("aten::atan2", {{"self", im}, {"other", re}}, {info})[0].t();
}

void complex_angle_op(ConvertCtx &c) {
  set_result(c, complex_angle(c, c.info("self").dtype, c.tensor("self")));
}

// z ** p. p == 2 multiplies (exact like torch's); a real p uses the polar form |z|^p at p*angle;
// a complex p is exp(p * log z) with log z = ln|z| + i angle(z).
void complex_pow(ConvertCtx &c) {
  T2O_CHECK(is_complex(c, "self"), "{}: a real base with a complex exponent is not supported",
            c.op());
  DType k = complex_part_dtype(c);
  Val z = cast_to(c.b, c.tensor("self"), k);
  const Arg &p = c.arg("exponent");
  if (p.is_number() && p.to_double() == 2.0)
    return set_complex_out(c, complex_product(c.b, k, z, z));
  if (p.is_number() && p.to_double() == 1.0)
    return set_complex_out(c, c.b.op1("Identity", {z}));
  Val r = complex_abs(c.b, k, z), theta = complex_angle(c, k, z);
  Val mag, phase;
  if (!is_complex(c, "exponent")) {
    Val e = p.is_tensor() ? cast_to(c.b, p.t(), k) : scalar(c.b, k, p.to_double());
    mag = op_t(c.b, k, "Pow", {r, e});
    phase = op_t(c.b, k, "Mul", {theta, e});
  } else {
    Val er = complex_part(c.b, p.t(), k, 0), ei = complex_part(c.b, p.t(), k, 1);
    Val ln_r = op_t(c.b, k, "Log", {r});
    auto mul = [&](const Val &a, const Val &b) { return op_t(c.b, k, "Mul", {a, b}); };
    mag = op_t(c.b, k, "Exp", {op_t(c.b, k, "Sub", {mul(er, ln_r), mul(ei, theta)})});
    phase = op_t(c.b, k, "Add", {mul(er, theta), mul(ei, ln_r)});
  }
  Val re = op_t(c.b, k, "Mul", {mag, op_t(c.b, k, "Cos", {phase})});
  Val im = op_t(c.b, k, "Mul", {mag, op_t(c.b, k, "Sin", {phase})});
  set_complex_out(c, make_complex(c.b, k, re, im));
}

// aten::to / type_as: to another complex dtype casts the parts; to a real dtype keeps the real
// part (what torch does, with a warning).
void complex_to(ConvertCtx &c) {
  if (c.out_info(0).complex && !is_complex(c, "self")) // a real tensor made complex
    return set_complex_out(
        c, lift_to_complex(c.b, complex_part_dtype(c), c.tensor("self"), rank_of(c, "self"), 0));
  if (c.out_info(0).complex)
    return set_complex_out(c, c.b.op1("Identity", {c.tensor("self")}));
  set_result(c, complex_part(c.b, c.tensor("self"), c.info("self").dtype, 0));
}

// size(z[, dim]) when the sizes are not static (static ones fold in the walker): the complex
// tensor's own sizes, without the pair.
void complex_size(ConvertCtx &c) {
  bool dim = c.takes("dim") && c.has("dim");
  std::vector<NamedArg> args = {{"self", c.arg("self")}};
  if (dim)
    args.emplace_back("dim", Arg::of_int(carried_dim(c.arg<int64_t>("dim"))));
  std::vector<TensorInfo> infos = {c.out_info(0)};
  Arg sizes = c.call_real("aten::size", std::move(args), infos, c.overload())[0];
  if (dim)
    return c.set_out(0, sizes);
  T2O_CHECK(sizes.is_list() && !sizes.items.empty(), "internal error: size() gave {}",
            sizes.describe());
  sizes.items.pop_back();
  c.set_out(0, sizes);
}

// ---- shape ops on the carried form ----------------------------------------------------------

using Adjust = void (*)(const ConvertCtx &c, std::vector<NamedArg> &args);

// The real converter of the op on the carried form, after `adjust` moved its dim arguments.
template <Adjust adjust> void on_carried(ConvertCtx &c) {
  std::vector<NamedArg> args = c.named_args();
  adjust(c, args);
  on_carried_form(c, std::move(args));
}

void keep_args(const ConvertCtx &, std::vector<NamedArg> &) {}

// The argument `name` among `args`, or nullptr.
Arg *find_arg(std::vector<NamedArg> &args, std::string_view name) {
  for (auto &a : args)
    if (a.name == name)
      return &a.value;
  return nullptr;
}

// Every argument that names dims (a dim or list of dims; None stays), as dims of the carried
// form: dim (squeeze, slice, select, narrow, unsqueeze, index_select, cat, stack), dims (flip,
// roll), dim0/dim1 (transpose), start_dim/end_dim (flatten), source/destination (movedim).
void carried_dims(const ConvertCtx &, std::vector<NamedArg> &args) {
  for (auto &a : args) {
    static const char *const kDimArgs[] = {"dim",       "dims",    "dim0",   "dim1",
                                           "start_dim", "end_dim", "source", "destination"};
    bool is_dim = false;
    for (const char *d : kDimArgs)
      is_dim = is_dim || a.name == d;
    if (!is_dim || a.value.is_none())
      continue;
    if (a.value.is_list()) {
      for (auto &d : a.value.items)
        d = Arg::of_int(carried_dim(d.to_int()));
      continue;
    }
    a.value = Arg::of_int(carried_dim(a.value.to_int()));
  }
}

// roll(x, shifts, dims): without dims torch rolls the flattened tensor, pairs and all.
void roll_dims(const ConvertCtx &c, std::vector<NamedArg> &args) {
  T2O_CHECK(c.has("dims") && !c.ints("dims").empty(),
            "{} of a complex tensor needs dims (rolling the flattened tensor would split the "
            "(real, imaginary) pairs)",
            c.op());
  carried_dims(c, args);
}

// permute(x, dims): the pair stays last.
void permute_dims(const ConvertCtx &c, std::vector<NamedArg> &args) {
  int64_t r = rank_of(c, "self") - 1;
  std::vector<Arg> items;
  for (auto d : c.ints("dims"))
    items.push_back(Arg::of_int(norm_axis(d, r)));
  items.push_back(Arg::of_int(r));
  *find_arg(args, "dims") = Arg::of_list(std::move(items));
}

// view / _unsafe_view / expand (x, size) and reshape (x, shape): the pair is one more dim of
// size 2.
void append_pair(const ConvertCtx &c, std::vector<NamedArg> &args) {
  Arg &size = *find_arg(args, c.takes("shape") ? "shape" : "size");
  if (!size.is_list())
    size = Arg::of_list({size});
  size.items.push_back(Arg::of_int(2));
}

// cat / stack (tensors, dim): every item must be complex, or the pair would meet plain data.
void list_dim(const ConvertCtx &c, std::vector<NamedArg> &args) {
  for (const auto &t : c.list("tensors"))
    T2O_CHECK(t.is_tensor() && c.b.has_info(t.t()) && c.b.info(t.t()).complex,
              "{} of complex and real tensors is not supported: make them all complex first "
              "(torch.complex(x, torch.zeros_like(x)))",
              c.op());
  carried_dims(c, args);
}

// pad(self, pad, mode, value) / constant_pad_nd(self, pad, value) / reflection_pad*(self,
// padding) / replication_pad*(self, padding): pad lists start at the last dim, which on the
// carried form is the pair; it gets (0, 0). HDemucs pads its complex spectrogram with
// F.pad(z, [0, 0, 0, 1]) before istft.
void pad_dims(const ConvertCtx &c, std::vector<NamedArg> &args) {
  bool constant = c.op() == "aten::constant_pad_nd" ||
                  (c.op() == "aten::pad" && c.arg<std::string>("mode", "constant") == "constant");
  T2O_CHECK(!constant || !c.has("value") || c.arg<double>("value") == 0.0,
            "{} of a complex tensor with the fill value {} is not supported (only 0): pad "
            "torch.view_as_real(x) instead",
            c.op(), constant ? c.arg("value").describe() : "");
  Arg &list = *find_arg(args, c.takes("padding") ? "padding" : "pad");
  std::vector<Arg> pad = {Arg::of_int(0), Arg::of_int(0)};
  for (const auto &p : list.list())
    pad.push_back(p);
  list = Arg::of_list(std::move(pad));
}

} // namespace

void register_complex_ops(Registry &r) {
  r.add_complex("aten::view_as_real", 11, aten_view_as_real, {"Identity"});
  r.add_complex("aten::view_as_real_copy", 11, aten_view_as_real, {"Identity"});
  r.add_complex("aten::view_as_complex", 11, aten_view_as_complex, {"Identity", "Cast"});
  r.add_complex("aten::view_as_complex_copy", 11, aten_view_as_complex, {"Identity", "Cast"});
  r.add_complex("aten::complex", 11, aten_complex, {"Pad", "Add", "Unsqueeze"});
  r.add_complex("aten::polar", 11, aten_polar, {"Cos", "Sin", "Mul", "Concat", "Unsqueeze"});
  r.add_complex("aten::real", 11, aten_real, {"Gather"});
  r.add_complex("aten::imag", 11, aten_imag, {"Gather"});
  for (const char *op : {"aten::conj", "aten::_conj", "aten::conj_physical", "aten::conj_physical_",
                         "aten::_conj_copy"})
    r.add_complex(op, 11, aten_conj, {"Mul"});
  for (const char *op : {"aten::resolve_conj", "aten::resolve_neg"})
    r.add_complex(op, 11, aten_resolve, {});
  for (const char *op : {"aten::add", "aten::add_"})
    r.add_complex(op, 11, complex_add, {"Pad", "Add"});
  for (const char *op : {"aten::sub", "aten::sub_"})
    r.add_complex(op, 11, complex_sub, {"Pad", "Sub"});
  for (const char *op : {"aten::mul", "aten::mul_"})
    r.add_complex(op, 11, complex_mul, {"Gather", "Mul", "Sub", "Add", "Concat"});
  for (const char *op : {"aten::div", "aten::div_"})
    r.add_complex(op, 11, complex_div, {"Gather", "Mul", "ReduceSumSquare", "Div", "Concat"});
  r.add_complex("aten::abs", 11, complex_abs_op, {"ReduceSumSquare", "Sqrt"});
  r.add_complex("aten::exp", 11, complex_exp, {"Exp", "Cos", "Sin", "Mul", "Concat"});
  r.add_complex("aten::angle", 11, complex_angle_op, {"Gather", "Atan", "Where", "And", "Or"});
  r.add_complex("aten::pow", 11, complex_pow,
                {"Pow", "Cos", "Sin", "Exp", "Log", "Concat", "And", "Or"});
  r.add_complex("aten::size", 11, complex_size, {});
  for (const char *op : {"aten::to", "aten::type_as"})
    r.add_complex(op, 11, complex_to, {"Identity", "Gather"});
  // Shape ops: the real converter on the carried form.
  for (const char *op : {"aten::contiguous", "aten::clone", "aten::alias"})
    r.add_complex(op, 11, on_carried<keep_args>, {});
  // squeeze(x) without dims never drops the pair (size 2); with dims, they move.
  for (const char *op :
       {"aten::squeeze", "aten::squeeze_", "aten::slice", "aten::select", "aten::narrow",
        "aten::unsqueeze", "aten::unsqueeze_", "aten::index_select", "aten::flip"})
    r.add_complex(op, 11, on_carried<carried_dims>, {});
  r.add_complex("aten::roll", 11, on_carried<roll_dims>, {});
  for (const char *op : {"aten::transpose", "aten::transpose_", "aten::flatten", "aten::movedim"})
    r.add_complex(op, 11, on_carried<carried_dims>, {});
  r.add_complex("aten::permute", 11, on_carried<permute_dims>, {});
  for (const char *op : {"aten::view", "aten::reshape", "aten::_unsafe_view", "aten::expand"})
    r.add_complex(op, 11, on_carried<append_pair>, {});
  for (const char *op : {"aten::cat", "aten::stack"})
    r.add_complex(op, 11, on_carried<list_dim>, {});
  for (const char *op :
       {"aten::pad", "aten::constant_pad_nd", "aten::reflection_pad1d", "aten::reflection_pad2d",
        "aten::replication_pad1d", "aten::replication_pad2d"})
    r.add_complex(op, 11, on_carried<pad_dims>, {});
}

} // namespace torch2onnx
