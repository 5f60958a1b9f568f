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

bool is_complex(const ConvertCtx &c, size_t i) {
  return c.has(i) && c.in(i).is_tensor() && c.info(i).complex;
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

void call_real_converter(ConvertCtx &c, const std::string &op, std::vector<Arg> args) {
  const RegistryEntry *entry = Registry::global().find(op, c.b.opset());
  T2O_CHECK(entry && entry->fn, "internal error: {} has no converter at opset {}", op, c.b.opset());
  std::vector<TensorInfo> infos;
  for (size_t i = 0; i < c.num_outputs(); ++i)
    infos.push_back(c.out_info(i));
  ConvertCtx inner(c.b, op, std::move(args), infos);
  inner.set_overload(c.overload());
  entry->fn(inner);
  for (size_t i = 0; i < c.num_outputs(); ++i) {
    const Arg &out = inner.outputs()[i];
    if (out.is_tensor() && infos[i].complex)
      c.b.set_info(out.tensor, infos[i]);
    c.set_out(i, out);
  }
}

namespace {

// ---- making and taking apart ----------------------------------------------------------------

// view_as_real(z) -> real [..., 2]: the carried form itself, under a new name (its info differs).
void aten_view_as_real(ConvertCtx &c) {
  T2O_CHECK(is_complex(c, 0), "view_as_real needs a complex tensor, got {}", c.info(0).str());
  Val y = c.b.op1("Identity", {c.tensor(0)});
  TensorInfo info = c.info(0);
  info.complex = false;
  c.b.set_info(y, info);
  set_result(c, y);
}

// view_as_complex(x) with x real [..., 2]: x is already the carried form.
void aten_view_as_complex(ConvertCtx &c) {
  const TensorInfo &info = c.info(0);
  T2O_CHECK(!info.complex && info.has_rank() && info.rank() >= 1 &&
                info.shape->back().is_static() && info.shape->back().value == 2,
            "view_as_complex needs a real tensor whose last dim is 2, got {}", info.str());
  set_complex_out(c, c.b.op1("Identity", {c.tensor(0)}));
}

// complex(real, imag): both real, broadcast against each other.
void aten_complex(ConvertCtx &c) {
  DType k = complex_part_dtype(c);
  Val re = lift_to_complex(c.b, k, c.tensor(0), rank_of(c, 0), 0);
  Val im = lift_to_complex(c.b, k, c.tensor(1), rank_of(c, 1), 1);
  set_complex_out(c, op_t(c.b, k, "Add", {re, im})); // adds zeros: exact, keeps inf and nan
}

// polar(abs, angle) = abs * (cos(angle) + i sin(angle)).
void aten_polar(ConvertCtx &c) {
  DType k = complex_part_dtype(c);
  Val r = cast_to(c.b, c.tensor(0), k), a = cast_to(c.b, c.tensor(1), k);
  Val re = op_t(c.b, k, "Mul", {r, op_t(c.b, k, "Cos", {a})});
  Val im = op_t(c.b, k, "Mul", {r, op_t(c.b, k, "Sin", {a})});
  set_complex_out(c, make_complex(c.b, k, re, im));
}

// real(z) / imag(z): one part. real() of a real tensor is the tensor itself.
void aten_real(ConvertCtx &c) {
  if (!is_complex(c, 0))
    return c.set_out(0, c.tensor(0));
  set_result(c, complex_part(c.b, c.tensor(0), c.info(0).dtype, 0));
}

void aten_imag(ConvertCtx &c) {
  T2O_CHECK(is_complex(c, 0), "imag needs a complex tensor, got {}", c.info(0).str());
  set_result(c, complex_part(c.b, c.tensor(0), c.info(0).dtype, 1));
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
  if (!is_complex(c, 0))
    return c.set_out(0, c.tensor(0));
  DType k = c.info(0).dtype;
  set_complex_out(c, op_t(c.b, k, "Mul", {c.tensor(0), conj_sign(c.b, k)}));
}

// resolve_conj, resolve_neg: nothing is lazy in the carried form.
void aten_resolve(ConvertCtx &c) {
  c.set_out(0, c.tensor(0));
}

// ---- arithmetic -----------------------------------------------------------------------------

// Operand i of a binary op as a carried complex value (real operands get a zero imaginary part).
Val as_carried(const ConvertCtx &c, size_t i, DType k) {
  const Arg &a = c.in(i);
  if (a.is_tensor())
    return c.info(i).complex ? cast_to(c.b, a.t(), k)
                             : lift_to_complex(c.b, k, a.t(), rank_of(c, i), 0);
  T2O_CHECK(a.is_number(), "{}: operand {} is {}, not a tensor or a number", c.op(), i,
            a.describe());
  return k == DType::Double
             ? c.b.constant(TensorData::f64({a.to_double(), 0.0}, {2}))
             : c.b.constant(TensorData::f32({static_cast<float>(a.to_double()), 0.0f}, {2}));
}

// A real operand i as a factor of a carried value: [..., 1] so it scales both parts.
Val real_factor(const ConvertCtx &c, size_t i, DType k) {
  const Arg &a = c.in(i);
  if (!a.is_tensor())
    return scalar(c.b, k, a.to_double());
  return unsqueeze(c.b, cast_to(c.b, a.t(), k), {-1});
}

// add / sub (self, other, alpha): the carried forms broadcast like the complex tensors.
void add_or_sub(ConvertCtx &c, const char *onnx_op) {
  DType k = complex_part_dtype(c);
  Val x = as_carried(c, 0, k), y = as_carried(c, 1, k);
  double alpha = c.double_or(2, 1.0);
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
  T2O_CHECK(is_complex(c, 0) || is_complex(c, 1), "{}: no complex operand among {} and {}", c.op(),
            c.in(0).describe(), c.in(1).describe());
  if (is_complex(c, 0) && is_complex(c, 1))
    return set_complex_out(c, complex_product(c.b, k, c.tensor(0), c.tensor(1)));
  size_t z = is_complex(c, 0) ? 0 : 1; // the complex one; the other scales both parts
  set_complex_out(c, op_t(c.b, k, "Mul", {cast_to(c.b, c.tensor(z), k), real_factor(c, 1 - z, k)}));
}

// x / y: by a real y, both parts; by a complex y, x * conj(y) / |y|^2.
void complex_div(ConvertCtx &c) {
  T2O_CHECK(!c.has(2), "{} with rounding_mode is not defined for complex tensors", c.op());
  DType k = complex_part_dtype(c);
  if (!is_complex(c, 1))
    return set_complex_out(c, op_t(c.b, k, "Div", {as_carried(c, 0, k), real_factor(c, 1, k)}));
  Val y = cast_to(c.b, c.tensor(1), k);
  Val num =
      complex_product(c.b, k, as_carried(c, 0, k), op_t(c.b, k, "Mul", {y, conj_sign(c.b, k)}));
  Val den =
      op_t(c.b, k, "ReduceSumSquare", {y}, {{"axes", std::vector<int64_t>{-1}}, {"keepdims", 1}});
  set_complex_out(c, op_t(c.b, k, "Div", {num, den}));
}

// exp(a + bi) = e^a (cos b + i sin b).
void complex_exp(ConvertCtx &c) {
  DType k = complex_part_dtype(c);
  Val z = cast_to(c.b, c.tensor(0), k);
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
  DType k = c.info(0).dtype;
  set_result(c, complex_abs(c.b, k, c.tensor(0)));
}

// atan2(im, re) through the real aten::atan2 converter (its quadrant and axis cases).
Val complex_angle(ConvertCtx &c, DType k, const Val &z) {
  TensorInfo info;
  info.dtype = k;
  ConvertCtx inner(
      c.b, "aten::atan2",
      {Arg::of_tensor(complex_part(c.b, z, k, 1)), Arg::of_tensor(complex_part(c.b, z, k, 0))},
      {info});
  Registry::global().find("aten::atan2", c.b.opset())->fn(inner);
  return inner.outputs()[0].t();
}

void complex_angle_op(ConvertCtx &c) {
  set_result(c, complex_angle(c, c.info(0).dtype, c.tensor(0)));
}

// z ** p. p == 2 multiplies (exact like torch's); a real p uses the polar form |z|^p at p*angle;
// a complex p is exp(p * log z) with log z = ln|z| + i angle(z).
void complex_pow(ConvertCtx &c) {
  T2O_CHECK(is_complex(c, 0), "{}: a real base with a complex exponent is not supported", c.op());
  DType k = complex_part_dtype(c);
  Val z = cast_to(c.b, c.tensor(0), k);
  const Arg &p = c.in(1);
  if (p.is_number() && p.to_double() == 2.0)
    return set_complex_out(c, complex_product(c.b, k, z, z));
  if (p.is_number() && p.to_double() == 1.0)
    return set_complex_out(c, c.b.op1("Identity", {z}));
  Val r = complex_abs(c.b, k, z), theta = complex_angle(c, k, z);
  Val mag, phase;
  if (!is_complex(c, 1)) {
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
  if (c.out_info(0).complex && !is_complex(c, 0)) // a real tensor made complex
    return set_complex_out(
        c, lift_to_complex(c.b, complex_part_dtype(c), c.tensor(0), rank_of(c, 0), 0));
  if (c.out_info(0).complex)
    return set_complex_out(c, c.b.op1("Identity", {c.tensor(0)}));
  set_result(c, complex_part(c.b, c.tensor(0), c.info(0).dtype, 0));
}

// size(z[, dim]) when the sizes are not static (static ones fold in the walker): the complex
// tensor's own sizes, without the pair.
void complex_size(ConvertCtx &c) {
  std::vector<Arg> args = {c.in(0)};
  if (c.has(1))
    args.push_back(Arg::of_int(carried_dim(c.in(1).to_int())));
  call_real_converter(c, "aten::size", std::move(args));
  if (c.has(1))
    return;
  Arg sizes = c.outputs()[0];
  T2O_CHECK(sizes.is_list() && !sizes.items.empty(), "internal error: size() gave {}",
            sizes.describe());
  sizes.items.pop_back();
  c.set_out(0, sizes);
}

// ---- shape ops on the carried form ----------------------------------------------------------

using Adjust = void (*)(const ConvertCtx &c, std::vector<Arg> &args);

// The real converter of `op` on the carried form, after `adjust` moved its dim arguments.
template <Adjust adjust> void on_carried(ConvertCtx &c) {
  std::vector<Arg> args;
  for (size_t i = 0; i < c.num_inputs(); ++i)
    args.push_back(c.in(i));
  adjust(c, args);
  call_real_converter(c, c.op(), std::move(args));
}

void keep_args(const ConvertCtx &, std::vector<Arg> &) {}

// Argument i, a dim (or list of dims; None stays), as dims of the carried form.
void dims_at(std::vector<Arg> &args, size_t i) {
  if (i >= args.size() || args[i].is_none())
    return;
  if (args[i].is_list()) {
    for (auto &d : args[i].items)
      d = Arg::of_int(carried_dim(d.to_int()));
    return;
  }
  args[i] = Arg::of_int(carried_dim(args[i].to_int()));
}

void dim1(const ConvertCtx &, std::vector<Arg> &args) {
  dims_at(args, 1);
}
// roll(x, shifts, dims): without dims torch rolls the flattened tensor, pairs and all.
void roll_dims(const ConvertCtx &c, std::vector<Arg> &args) {
  T2O_CHECK(args.size() > 2 && !args[2].is_none() && !args[2].to_ints().empty(),
            "{} of a complex tensor needs dims (rolling the flattened tensor would split the "
            "(real, imaginary) pairs)",
            c.op());
  dims_at(args, 2);
}
void dims12(const ConvertCtx &, std::vector<Arg> &args) {
  dims_at(args, 1);
  dims_at(args, 2);
}

// permute(x, dims): the pair stays last.
void permute_dims(const ConvertCtx &c, std::vector<Arg> &args) {
  std::vector<int64_t> dims = args[1].to_ints();
  int64_t r = rank_of(c, 0) - 1;
  std::vector<Arg> items;
  for (auto d : dims)
    items.push_back(Arg::of_int(norm_axis(d, r)));
  items.push_back(Arg::of_int(r));
  args[1] = Arg::of_list(std::move(items));
}

// view / reshape / expand (x, size): the pair is one more dim of size 2.
void append_pair(const ConvertCtx &, std::vector<Arg> &args) {
  Arg size = args[1];
  if (!size.is_list())
    size = Arg::of_list({size});
  size.items.push_back(Arg::of_int(2));
  args[1] = size;
}

// cat / stack (tensors, dim): every item must be complex, or the pair would meet plain data.
void list_dim(const ConvertCtx &c, std::vector<Arg> &args) {
  for (const auto &t : args[0].list())
    T2O_CHECK(t.is_tensor() && c.b.has_info(t.t()) && c.b.info(t.t()).complex,
              "{} of complex and real tensors is not supported: make them all complex first "
              "(torch.complex(x, torch.zeros_like(x)))",
              c.op());
  dims_at(args, 1);
}

// pad(x, pad, ...) / constant_pad_nd / reflection_pad / replication_pad: pad lists start at the
// last dim, which on the carried form is the pair; it gets (0, 0). HDemucs pads its complex
// spectrogram with F.pad(z, [0, 0, 0, 1]) before istft.
void pad_dims(const ConvertCtx &c, std::vector<Arg> &args) {
  size_t value_at = c.op() == "aten::pad" ? 3 : 2;
  bool constant = c.op() == "aten::constant_pad_nd" ||
                  (c.op() == "aten::pad" && (!c.has(2) || c.in(2).str() == "constant"));
  T2O_CHECK(!constant || !c.has(value_at) || c.in(value_at).to_double() == 0.0,
            "{} of a complex tensor with the fill value {} is not supported (only 0): pad "
            "torch.view_as_real(x) instead",
            c.op(), c.in(value_at).describe());
  std::vector<Arg> pad = {Arg::of_int(0), Arg::of_int(0)};
  for (const auto &p : args[1].list())
    pad.push_back(p);
  args[1] = Arg::of_list(std::move(pad));
}

} // namespace

void register_complex_ops(Registry &r) {
  r.add_complex("aten::view_as_real", 11, aten_view_as_real, {"Identity"});
  r.add_complex("aten::view_as_real_copy", 11, aten_view_as_real, {"Identity"});
  r.add_complex("aten::view_as_complex", 11, aten_view_as_complex, {"Identity"});
  r.add_complex("aten::view_as_complex_copy", 11, aten_view_as_complex, {"Identity"});
  r.add_complex("aten::complex", 11, aten_complex, {"Pad", "Add"});
  r.add_complex("aten::polar", 11, aten_polar, {"Cos", "Sin", "Mul", "Concat"});
  r.add_complex("aten::real", 11, aten_real, {"Gather"});
  r.add_complex("aten::imag", 11, aten_imag, {"Gather"});
  for (const char *op : {"aten::conj", "aten::_conj", "aten::conj_physical", "aten::_conj_copy"})
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
  r.add_complex("aten::angle", 11, complex_angle_op, {"Gather", "Atan", "Where"});
  r.add_complex("aten::pow", 11, complex_pow, {"Pow", "Cos", "Sin", "Exp", "Log", "Concat"});
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
    r.add_complex(op, 11, on_carried<dim1>, {});
  r.add_complex("aten::roll", 11, on_carried<roll_dims>, {});
  for (const char *op : {"aten::transpose", "aten::transpose_", "aten::flatten", "aten::movedim"})
    r.add_complex(op, 11, on_carried<dims12>, {});
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
