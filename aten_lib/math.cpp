// Elementwise math without a single ONNX counterpart: atan2, xlogy, logaddexp, sinc, signbit,
// nan_to_num, bit operations, ... Each is decomposed exactly (up to float rounding) into ONNX 13
// ops; inf/nan/zero edge cases follow LibTorch's CPU kernels.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"
#include "aten_lib/promotion.h"

#include <cmath>
#include <limits>
#include <string>

namespace torch2onnx {

namespace {

Val is_nan(GraphBuilder &b, const Val &x) {
  return op_t(b, DType::Bool, "IsNaN", {x});
}
Val equal(GraphBuilder &b, const Val &x, const Val &y) {
  return op_t(b, DType::Bool, "Equal", {x, y});
}
Val less(GraphBuilder &b, const Val &x, const Val &y) {
  return op_t(b, DType::Bool, "Less", {x, y});
}
Val where(GraphBuilder &b, DType t, const Val &cond, const Val &x, const Val &y) {
  return op_t(b, t, "Where", {cond, x, y});
}

// A bool tensor of x's shape, all false.
Val all_false(GraphBuilder &b, const Val &x) {
  Val t = cast_to(b, x, DType::Bool);
  return op_t(b, DType::Bool, "Xor", {t, t});
}

} // namespace

namespace {

// True where v's sign bit is set: v < 0, or v is -0 (1 / -0 = -inf).
Val sign_bit(GraphBuilder &b, DType k, const Val &v) {
  Val zero = scalar(b, k, 0);
  Val neg_zero = op_t(b, DType::Bool, "And",
                      {equal(b, v, zero), less(b, op_t(b, k, "Div", {scalar(b, k, 1), v}), zero)});
  return op_t(b, DType::Bool, "Or", {less(b, v, zero), neg_zero});
}

} // namespace

// atan2(y, x) = atan(y / x) moved to the right quadrant by the sign bits (C's atan2: y = -0 with
// x < 0 gives -pi); x == +-0 gives +-pi/2, or for y == +-0: y itself (x = +0) or +-pi (x = -0).
void aten_atan2(ConvertCtx &c) {
  DType k = float_compute(out_dtype(c));
  GraphBuilder &b = c.b;
  Val y = operand(c, "self", k), x = operand(c, "other", k);
  Val zero = scalar(b, k, 0);
  Val base = op_t(b, k, "Atan", {op_t(b, k, "Div", {y, x})});
  Val shift = where(b, k, sign_bit(b, k, y), scalar(b, k, -M_PI), scalar(b, k, M_PI));
  Val x_neg = sign_bit(b, k, x);
  Val r = where(b, k, x_neg, op_t(b, k, "Add", {base, shift}), base);
  Val off_origin = op_t(b, k, "Mul", {op_t(b, k, "Sign", {y}), scalar(b, k, M_PI_2)});
  Val on_axis = where(b, k, equal(b, y, zero), where(b, k, x_neg, shift, y), off_origin);
  set_result(c, where(b, k, equal(b, x, zero), on_axis, r));
}

// xlogy(x, y) = x * log(y), 0 where x == 0 unless y is nan.
void aten_xlogy(ConvertCtx &c) {
  DType k = float_compute(out_dtype(c));
  Val x = operand(c, "self", k), y = operand(c, "other", k);
  Val prod = op_t(c.b, k, "Mul", {x, op_t(c.b, k, "Log", {y})});
  Val zero_x =
      op_t(c.b, DType::Bool, "And",
           {equal(c.b, x, scalar(c.b, k, 0)), op_t(c.b, DType::Bool, "Not", {is_nan(c.b, y)})});
  set_result(c, where(c.b, k, zero_x, scalar(c.b, k, 0), prod));
}

namespace {

// max(a, b) + log(1 + base^-|a - b|) / log(base); equal inputs (also +-inf) give a + log_base 2.
void log_add_exp(ConvertCtx &c, double ln_base) {
  DType k = float_compute(out_dtype(c));
  Val a = operand(c, "self", k), b = operand(c, "other", k);
  Val m = op_t(c.b, k, "Max", {a, b});
  Val d = op_t(c.b, k, "Abs", {op_t(c.b, k, "Sub", {a, b})});
  Val e = op_t(c.b, k, "Exp", {op_t(c.b, k, "Mul", {d, scalar(c.b, k, -ln_base)})});
  Val l = op_t(c.b, k, "Log", {op_t(c.b, k, "Add", {e, scalar(c.b, k, 1)})});
  if (ln_base != 1.0)
    l = op_t(c.b, k, "Div", {l, scalar(c.b, k, ln_base)});
  Val same = op_t(c.b, k, "Add", {a, scalar(c.b, k, std::log(2.0) / ln_base)});
  set_result(c, where(c.b, k, equal(c.b, a, b), same, op_t(c.b, k, "Add", {m, l})));
}

} // namespace

void aten_logaddexp(ConvertCtx &c) {
  log_add_exp(c, 1.0);
}
void aten_logaddexp2(ConvertCtx &c) {
  log_add_exp(c, std::log(2.0));
}

// out[i] = logsumexp(x[0..i]) along dim, as a masked logsumexp over an [n, n] triangle: each
// prefix gets its own max, so no term underflows the way a single global shift would.
void aten_logcumsumexp(ConvertCtx &c) {
  DType k = float_compute(out_dtype(c));
  Val x = cast_to(c.b, c.tensor("self"), k);
  const TensorInfo &info = c.info("self");
  int64_t rank = info.rank();
  T2O_CHECK(rank >= 0, "logcumsumexp needs the input rank");
  if (rank == 0) {
    set_result(c, x);
    return;
  }
  int64_t dim = norm_axis(c.arg<int64_t>("dim"), rank);
  Val m = prefix_mask(c.b, x, dim, rank);
  Val rows = unsqueeze(c.b, x, {dim}); // [..., 1 (i), n (j), ...]
  Val neg_inf = scalar(c.b, k, -std::numeric_limits<double>::infinity());
  Val masked = where(c.b, k, m, neg_inf, rows);
  int64_t j = dim + 1;
  Val mx =
      op_t(c.b, k, "ReduceMax", {masked}, {{"axes", std::vector<int64_t>{j}}, {"keepdims", 1}});
  // An all -inf (or +inf) prefix would give inf - inf; shifting by 0 there yields -inf (inf).
  Val inf_mx = op_t(c.b, DType::Bool, "IsInf", {mx});
  mx = where(c.b, k, inf_mx, scalar(c.b, k, 0), mx);
  Val e = op_t(c.b, k, "Exp", {op_t(c.b, k, "Sub", {masked, mx})});
  Val s = op_t(c.b, k, "ReduceSum", {e, c.b.const_i64({j})}, {{"keepdims", 1}});
  Val y = op_t(c.b, k, "Add", {op_t(c.b, k, "Log", {s}), mx});
  set_result(c, squeeze(c.b, y, {j}));
}

// heaviside(x, v) = x == 0 ? v : (x > 0 ? 1 : 0)
void aten_heaviside(ConvertCtx &c) {
  DType t = out_dtype(c);
  DType k = t == DType::Bool ? DType::Bool : float_compute(t);
  if (is_int(t))
    k = t == DType::Int64 ? t : DType::Int32;
  Val x = operand(c, "self", k == DType::Bool ? DType::Int32 : k);
  Val v = operand(c, "values", k);
  Val zero = scalar(c.b, c.b.dtype(x), 0);
  Val pos = cast_to(c.b, op_t(c.b, DType::Bool, "Greater", {x, zero}), k);
  set_result(c, where(c.b, k, equal(c.b, x, zero), v, pos));
}

// sinc(x) = sin(pi x) / (pi x), 1 at 0.
void aten_sinc(ConvertCtx &c) {
  DType k = float_compute(out_dtype(c));
  Val x = operand(c, "self", k);
  Val px = op_t(c.b, k, "Mul", {x, scalar(c.b, k, M_PI)});
  Val r = op_t(c.b, k, "Div", {op_t(c.b, k, "Sin", {px}), px});
  set_result(c, where(c.b, k, equal(c.b, x, scalar(c.b, k, 0)), scalar(c.b, k, 1), r));
}

// True for negative numbers and -0.0 (seen through 1 / -0.0 == -inf).
void aten_signbit(ConvertCtx &c) {
  DType t = c.info("self").dtype;
  Val x = c.tensor("self");
  if (t == DType::Bool || is_unsigned(t)) {
    c.set_out(0, all_false(c.b, x));
    return;
  }
  DType k = is_floating(t) ? float_compute(t) : (t == DType::Int64 ? t : DType::Int32);
  x = cast_to(c.b, x, k);
  Val zero = scalar(c.b, k, 0);
  Val neg = less(c.b, x, zero);
  if (is_floating(k)) {
    Val neg_zero =
        op_t(c.b, DType::Bool, "And",
             {equal(c.b, x, zero), less(c.b, op_t(c.b, k, "Div", {scalar(c.b, k, 1), x}), zero)});
    neg = op_t(c.b, DType::Bool, "Or", {neg, neg_zero});
  }
  c.set_out(0, neg);
}

namespace {

void is_inf_signed(ConvertCtx &c, bool positive) {
  DType t = c.info("self").dtype;
  if (!is_floating(t)) {
    c.set_out(0, all_false(c.b, c.tensor("self")));
    return;
  }
  Val x = cast_to(c.b, c.tensor("self"), float_compute(t));
  c.set_out(0,
            op_t(c.b, DType::Bool, "IsInf", {x},
                 {{"detect_positive", positive ? 1 : 0}, {"detect_negative", positive ? 0 : 1}}));
}

double finfo_max(DType t) {
  switch (t) {
  case DType::Double:
    return std::numeric_limits<double>::max();
  case DType::Float16:
    return 65504.0;
  case DType::BFloat16:
    return 3.3895313892515355e38;
  default:
    return std::numeric_limits<float>::max();
  }
}

} // namespace

void aten_isposinf(ConvertCtx &c) {
  is_inf_signed(c, true);
}
void aten_isneginf(ConvertCtx &c) {
  is_inf_signed(c, false);
}

// nan -> nan (0), +inf -> posinf (dtype max), -inf -> neginf (dtype lowest); ints pass through.
void aten_nan_to_num(ConvertCtx &c) {
  DType t = out_dtype(c);
  if (!is_floating(t)) {
    c.set_out(0, c.tensor("self"));
    return;
  }
  DType k = float_compute(t);
  Val x = cast_to(c.b, c.tensor("self"), k);
  double big = finfo_max(t);
  auto value = [&](const char *name, double dflt) {
    return scalar(c.b, k, c.arg<double>(name, dflt));
  };
  Val y = where(c.b, k, is_nan(c.b, x), value("nan", 0.0), x);
  y = where(c.b, k, op_t(c.b, DType::Bool, "IsInf", {x}, {{"detect_negative", 0}}),
            value("posinf", big), y);
  y = where(c.b, k, op_t(c.b, DType::Bool, "IsInf", {x}, {{"detect_positive", 0}}),
            value("neginf", -big), y);
  set_result(c, y);
}

// angle of a real number: pi for negatives, 0 otherwise, nan stays nan.
void aten_angle(ConvertCtx &c) {
  DType t = c.info("self").dtype;
  T2O_CHECK(t != DType::Complex64 && t != DType::Complex128,
            "angle of complex tensors is not supported (ONNX has no complex dtype)");
  DType k = float_compute(out_dtype(c));
  Val x = cast_to(c.b, c.tensor("self"), k);
  Val zero = scalar(c.b, k, 0);
  Val r = where(c.b, k, less(c.b, x, zero), scalar(c.b, k, M_PI), zero);
  set_result(c, where(c.b, k, is_nan(c.b, x), x, r));
}

// grad where min < x < max, else 0.
void aten_hardtanh_backward(ConvertCtx &c) {
  DType k = float_compute(out_dtype(c));
  Val g = cast_to(c.b, c.tensor("grad_output"), k), x = cast_to(c.b, c.tensor("self"), k);
  Val inside =
      op_t(c.b, DType::Bool, "And",
           {op_t(c.b, DType::Bool, "Greater", {x, scalar(c.b, k, c.arg<double>("min_val", -1))}),
            less(c.b, x, scalar(c.b, k, c.arg<double>("max_val", 1)))});
  set_result(c, where(c.b, k, inside, g, scalar(c.b, k, 0)));
}

// Python's // on runtime numbers: floor(a / b) for floats, floor division for ints.
void aten_floordiv(ConvertCtx &c) {
  auto kind_of = [&](const char *name) {
    const Arg &a = c.arg(name);
    if (a.is_tensor())
      return is_floating(c.b.dtype(a.t())) ? DType::Double : DType::Int64;
    return a.kind == Arg::Kind::Float ? DType::Double : DType::Int64;
  };
  DType k =
      kind_of("a") == DType::Double || kind_of("b") == DType::Double ? DType::Double : DType::Int64;
  Val a = operand(c, "a", k), b = operand(c, "b", k);
  Val q;
  if (k == DType::Double) {
    q = op_t(c.b, k, "Floor", {op_t(c.b, k, "Div", {a, b})});
  } else {
    // Truncating Div, minus one when the remainder is nonzero and the signs differ.
    Val t = op_t(c.b, k, "Div", {a, b});
    Val rem = op_t(c.b, k, "Sub", {a, op_t(c.b, k, "Mul", {t, b})});
    Val zero = scalar(c.b, k, 0);
    Val fix = op_t(c.b, DType::Bool, "And",
                   {op_t(c.b, DType::Bool, "Not", {equal(c.b, rem, zero)}),
                    op_t(c.b, DType::Bool, "Xor", {less(c.b, rem, zero), less(c.b, b, zero)})});
    q = op_t(c.b, k, "Sub", {t, cast_to(c.b, fix, k)});
  }
  c.b.set_info(q, TensorInfo{k, std::vector<Dim>{}});
  c.set_out(0, q);
}

namespace {

// bitwise and/or/xor: And/Or/Xor on bools; on integers BitwiseAnd/Or/Xor, which arrive in
// opset 18 (`integers`: the target has them).
void bitwise(ConvertCtx &c, const char *onnx_op, bool integers) {
  DType t = out_dtype(c);
  if (t != DType::Bool && !integers)
    throw Error(fmt::format("{} on {} tensors needs ONNX Bitwise{} (opset 18+); opsets 11-17 "
                            "support bool only",
                            c.op(), dtype_name(t), onnx_op),
                "export with --opset 18 or later");
  std::string op = t == DType::Bool ? onnx_op : fmt::format("Bitwise{}", onnx_op);
  c.set_out(0, op_t(c.b, t, op, {operand(c, "self", t), operand(c, "other", t)}));
}

DType unsigned_of(DType t) {
  switch (t) {
  case DType::Int8:
  case DType::UInt8:
    return DType::UInt8;
  case DType::Int16:
  case DType::UInt16:
    return DType::UInt16;
  case DType::Int32:
  case DType::UInt32:
    return DType::UInt32;
  default:
    return DType::UInt64;
  }
}

int bits_of(DType t) {
  return static_cast<int>(dtype_size(t) * 8);
}

// x << s or x >> s as torch computes it: shifts on the unsigned bit pattern; shifting by the
// width or more gives 0, except that a signed right shift is arithmetic (saturates at -1). (Older
// LibTorch builds shift by s mod width there, as the x86 instructions do.)
void shift(ConvertCtx &c, bool left) {
  DType t = out_dtype(c);
  T2O_CHECK(is_int(t), "{} supports integer tensors, got {}", c.op(), dtype_name(t));
  // ONNX Runtime has BitShift kernels for uint8/32/64 only; 16-bit values shift in 32 bits and
  // the cast back keeps the low half.
  DType u = unsigned_of(t) == DType::UInt16 ? DType::UInt32 : unsigned_of(t);
  int bits = bits_of(t);
  // int8/int16 have few ONNX Runtime kernels (Sub, Where): everything but the shift runs in int32.
  DType w = t == DType::Int8 || t == DType::Int16 ? DType::Int32 : t;
  Val x = operand(c, "self", w);
  Val s = operand(c, "other", DType::Int64);
  Val too_far = op_t(c.b, DType::Bool, "Not", {less(c.b, s, c.b.const_scalar(DType::Int64, bits))});
  auto ushift = [&](const Val &v, const Val &amount) {
    Val r = op_t(c.b, u, "BitShift", {cast_to(c.b, v, u), cast_to(c.b, amount, u)},
                 {{"direction", left ? "LEFT" : "RIGHT"}});
    return cast_to(c.b, cast_to(c.b, r, t), w);
  };
  Val zero = scalar(c.b, w, 0);
  if (left || is_unsigned(t)) {
    set_result(c, where(c.b, w, too_far, zero, ushift(x, s)));
    return;
  }
  // Arithmetic right shift: for x < 0, ~((~x) >> s) with ~x = -1 - x, shifting at most bits-1.
  Val s_c = op_t(c.b, DType::Int64, "Min", {s, c.b.const_scalar(DType::Int64, bits - 1)});
  Val minus_one = scalar(c.b, w, -1);
  Val pos = ushift(x, s_c);
  Val neg = op_t(c.b, w, "Sub", {minus_one, ushift(op_t(c.b, w, "Sub", {minus_one, x}), s_c)});
  set_result(c, where(c.b, w, less(c.b, x, zero), neg, pos));
}

} // namespace

void aten_bitwise_and(ConvertCtx &c) {
  bitwise(c, "And", false);
}
void aten_bitwise_or(ConvertCtx &c) {
  bitwise(c, "Or", false);
}
void aten_bitwise_xor(ConvertCtx &c) {
  bitwise(c, "Xor", false);
}
void aten_bitwise_and_18(ConvertCtx &c) {
  bitwise(c, "And", true);
}
void aten_bitwise_or_18(ConvertCtx &c) {
  bitwise(c, "Or", true);
}
void aten_bitwise_xor_18(ConvertCtx &c) {
  bitwise(c, "Xor", true);
}
void aten_bitwise_left_shift(ConvertCtx &c) {
  shift(c, true);
}
void aten_bitwise_right_shift(ConvertCtx &c) {
  shift(c, false);
}

// Conjugation and negation views are the identity on real tensors.
void aten_conj(ConvertCtx &c) {
  DType t = c.info("self").dtype;
  T2O_CHECK(t != DType::Complex64 && t != DType::Complex128,
            "{} on complex tensors is not supported (ONNX has no complex dtype)", c.op());
  c.set_out(0, c.tensor("self"));
}

// Evaluation mode: leaky relu with the mean slope. Training mode: one slope per element drawn
// uniformly from [lower, upper] (RandomUniformLike), applied to the negative inputs.
void aten_rrelu(ConvertCtx &c) {
  double lower = c.arg<double>("lower", 0.125), upper = c.arg<double>("upper", 1.0 / 3.0);
  bool training = c.arg<bool>("training", false);
  DType k = float_compute(out_dtype(c));
  Val x = cast_to(c.b, c.tensor("self"), k);
  if (!training) {
    set_result(c, op_t(c.b, k, "LeakyRelu", {x}, {{"alpha", (lower + upper) / 2}}));
    return;
  }
  Val slope = op_t(c.b, k, "RandomUniformLike", {x}, {{"low", lower}, {"high", upper}});
  Val neg = less(c.b, x, scalar(c.b, k, 0));
  set_result(c, where(c.b, k, neg, op_t(c.b, k, "Mul", {x, slope}), x));
}

void register_math_ops(Registry &r) {
  // An alias registers the same converter, so it lists the same ONNX ops.
  const std::vector<std::string> atan2_ops{"Atan", "Div", "Where", "Add", "Cast", "Equal",
                                           "Less", "Mul", "Sign",  "And", "Or"};
  r.add_with_inplace("aten::atan2", 11, aten_atan2, atan2_ops);
  r.add_with_inplace("aten::arctan2", 11, aten_atan2, atan2_ops);
  const std::vector<std::string> xlogy_ops{"Log", "Mul", "Where", "And", "Equal", "IsNaN", "Not"};
  r.add_with_inplace("aten::xlogy", 11, aten_xlogy, xlogy_ops);
  r.add("aten::special_xlogy", 11, aten_xlogy, xlogy_ops);
  r.add("aten::logaddexp", 11, aten_logaddexp,
        {"Max", "Exp", "Log", "Abs", "Add", "Equal", "Mul", "Sub", "Where"});
  r.add("aten::logaddexp2", 11, aten_logaddexp2,
        {"Max", "Exp", "Log", "Abs", "Add", "Div", "Equal", "Mul", "Sub", "Where"});
  r.add("aten::logcumsumexp", 11, aten_logcumsumexp,
        {"Where", "ReduceMax", "ReduceSum", "Log", "Add", "Cast", "Exp", "IsInf", "Squeeze", "Sub",
         "Unsqueeze", "Shape", "Gather", "Range", "Greater", "Reshape"});
  r.add_with_inplace("aten::heaviside", 11, aten_heaviside, {"Greater", "Where", "Cast", "Equal"});
  r.add_with_inplace("aten::sinc", 11, aten_sinc, {"Sin", "Div", "Where", "Cast", "Equal", "Mul"});
  r.add("aten::special_sinc", 11, aten_sinc, {"Sin", "Div", "Where", "Equal", "Mul"});
  r.add("aten::signbit", 11, aten_signbit, {"Less", "Or", "And", "Cast", "Div", "Equal", "Xor"});
  r.add("aten::isposinf", 11, aten_isposinf, {"IsInf", "Cast", "Xor"});
  r.add("aten::isneginf", 11, aten_isneginf, {"IsInf"});
  r.add_with_inplace("aten::nan_to_num", 11, aten_nan_to_num, {"IsNaN", "IsInf", "Where"});
  r.add("aten::angle", 11, aten_angle,
        {"Less", "Where", "Add", "Cast", "Div", "Equal", "IsNaN", "Mul", "Sign"});
  r.add("aten::hardtanh_backward", 11, aten_hardtanh_backward, {"Greater", "Less", "Where", "And"});
  r.add("aten::floordiv", 11, aten_floordiv, {"Div", "Floor", "Cast"});
  r.add_with_inplace("aten::bitwise_and", 11, aten_bitwise_and, {"And"});
  r.add("aten::__and__", 11, aten_bitwise_and, {"And"});
  r.add_with_inplace("aten::bitwise_or", 11, aten_bitwise_or, {"Or"});
  r.add("aten::__or__", 11, aten_bitwise_or, {"Or"});
  r.add_with_inplace("aten::bitwise_xor", 11, aten_bitwise_xor, {"Xor"});
  r.add("aten::__xor__", 11, aten_bitwise_xor, {"Xor"});
  r.add_with_inplace("aten::bitwise_and", 18, aten_bitwise_and_18, {"And", "BitwiseAnd"});
  r.add("aten::__and__", 18, aten_bitwise_and_18, {"And", "BitwiseAnd"});
  r.add_with_inplace("aten::bitwise_or", 18, aten_bitwise_or_18, {"Or", "BitwiseOr"});
  r.add("aten::__or__", 18, aten_bitwise_or_18, {"Or", "BitwiseOr"});
  r.add_with_inplace("aten::bitwise_xor", 18, aten_bitwise_xor_18, {"Xor", "BitwiseXor"});
  r.add("aten::__xor__", 18, aten_bitwise_xor_18, {"Xor", "BitwiseXor"});
  r.add_with_inplace("aten::bitwise_left_shift", 11, aten_bitwise_left_shift,
                     {"BitShift", "Where", "Cast", "Less", "Not"});
  r.add("aten::__lshift__", 11, aten_bitwise_left_shift,
        {"BitShift", "Where", "Cast", "Less", "Not"});
  r.add_with_inplace("aten::bitwise_right_shift", 11, aten_bitwise_right_shift,
                     {"BitShift", "Where", "Cast", "Less", "Min", "Not", "Sub"});
  r.add("aten::__rshift__", 11, aten_bitwise_right_shift,
        {"BitShift", "Where", "Cast", "Less", "Min", "Not", "Sub"});
  for (const char *op : {"aten::conj", "aten::resolve_conj", "aten::resolve_neg"})
    r.add(op, 11, aten_conj, {});
  r.add_with_inplace("aten::conj_physical", 11, aten_conj, {});
  r.add_with_inplace("aten::rrelu", 11, aten_rrelu,
                     {"LeakyRelu", "RandomUniformLike", "Less", "Mul", "Where"});
}

} // namespace torch2onnx
