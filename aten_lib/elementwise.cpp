// Elementwise arithmetic, math, comparison and logical ops: aten::add, div, pow, clamp, eq, ...
//
// Type promotion follows LibTorch (aten_lib/promotion.h): the recorded output dtype decides the
// computation dtype, and comparisons compute in the promoted type of their operands.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"
#include "aten_lib/promotion.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace torch2onnx {

namespace {

void set_out_as(ConvertCtx &c, const Val &v, DType t) {
  c.set_out(0, cast_to(c.b, v, t));
}

// Python-style remainder (sign of the divisor) of a and b, both of dtype k.
Val py_mod(GraphBuilder &b, const Val &x, const Val &y, DType k) {
  if (!is_floating(k))
    return op_t(b, k, "Mod", {x, y}, {{"fmod", int64_t{0}}});
  // ONNX Mod needs fmod=1 on floats; fix the sign the way ATen does: add b when signs differ.
  Val m = op_t(b, k, "Mod", {x, y}, {{"fmod", int64_t{1}}});
  Val zero = scalar(b, k, 0);
  Val nonzero = op_t(b, DType::Bool, "Not", {op_t(b, DType::Bool, "Equal", {m, zero})});
  Val differ =
      op_t(b, DType::Bool, "Xor",
           {op_t(b, DType::Bool, "Less", {y, zero}), op_t(b, DType::Bool, "Less", {m, zero})});
  Val fix = op_t(b, DType::Bool, "And", {nonzero, differ});
  return op_t(b, k, "Where", {fix, op_t(b, k, "Add", {m, y}), m});
}

// Rounds toward zero: ONNX 13..17 has no Trunc op.
Val trunc_float(GraphBuilder &b, const Val &x, DType k) {
  Val neg = op_t(b, DType::Bool, "Less", {x, scalar(b, k, 0)});
  return op_t(b, k, "Where", {neg, op_t(b, k, "Ceil", {x}), op_t(b, k, "Floor", {x})});
}

// Floor division of floats as ATen computes it: (a - fmod(a, b)) / b, one less when the remainder
// and b differ in sign, then rounded to the nearest whole number (floor(a / b) rounds the quotient
// first: 2.1 // 0.7 gave 3, not 2). b == 0 gives a / b; a zero quotient keeps a / b's sign.
Val floor_divide_float(GraphBuilder &b, const Val &x, const Val &y, DType k) {
  auto bool_op = [&](const char *op, std::vector<Val> in) { return op_t(b, DType::Bool, op, in); };
  Val zero = scalar(b, k, 0), one = scalar(b, k, 1);
  Val m = op_t(b, k, "Mod", {x, y}, {{"fmod", int64_t{1}}});
  Val d = op_t(b, k, "Div", {op_t(b, k, "Sub", {x, m}), y});
  Val fix =
      bool_op("And", {bool_op("Not", {bool_op("Equal", {m, zero})}),
                      bool_op("Xor", {bool_op("Less", {y, zero}), bool_op("Less", {m, zero})})});
  d = op_t(b, k, "Where", {fix, op_t(b, k, "Sub", {d, one}), d});
  Val f = op_t(b, k, "Floor", {d});
  Val up = bool_op("Greater", {op_t(b, k, "Sub", {d, f}), scalar(b, k, 0.5)});
  f = op_t(b, k, "Where", {up, op_t(b, k, "Add", {f, one}), f});
  Val q = op_t(b, k, "Div", {x, y});
  f = op_t(b, k, "Where", {bool_op("Equal", {d, zero}), op_t(b, k, "Mul", {q, zero}), f});
  return op_t(b, k, "Where", {bool_op("Equal", {y, zero}), q, f});
}

// a / b with torch's rounding modes in dtype k (integer Div truncates in ONNX).
Val divide(GraphBuilder &b, const Val &x, const Val &y, DType k, const std::string &mode) {
  if (mode.empty())
    return op_t(b, k, "Div", {x, y});
  if (mode == "trunc") {
    Val q = op_t(b, k, "Div", {x, y});
    return is_floating(k) ? trunc_float(b, q, k) : q;
  }
  T2O_CHECK(mode == "floor", "div rounding_mode '{}' is not supported (None, 'trunc', 'floor')",
            mode);
  if (is_floating(k))
    return floor_divide_float(b, x, y, k);
  // Exact for integers: subtracting the Python remainder leaves a multiple of b.
  return op_t(b, k, "Div", {op_t(b, k, "Sub", {x, py_mod(b, x, y, k)}), y});
}

// ---- arithmetic ---------------------------------------------------------------------------------

// self (op) alpha * other; `reverse` swaps the operands (rsub).
void add_sub(ConvertCtx &c, const char *op, bool reverse) {
  DType t = out_type(c, {"self", "other"});
  double alpha = c.arg<double>("alpha", 1.0);
  if (t == DType::Bool) { // torch adds bools as logical or
    T2O_CHECK(std::string(op) == "Add", "{} is not defined for bool tensors", c.op());
    c.set_out(0, op_t(c.b, t, "Or", {operand(c, "self", t), operand(c, "other", t)}));
    return;
  }
  DType k = kernel_type(t);
  Val x = operand(c, "self", k), y = operand(c, "other", k);
  if (reverse)
    std::swap(x, y);
  if (alpha != 1.0)
    y = op_t(c.b, k, "Mul", {y, scalar(c.b, k, alpha)});
  set_out_as(c, op_t(c.b, k, op, {x, y}), t);
}

} // namespace

void aten_add(ConvertCtx &c) {
  add_sub(c, "Add", false);
}
void aten_sub(ConvertCtx &c) {
  add_sub(c, "Sub", false);
}
void aten_rsub(ConvertCtx &c) {
  add_sub(c, "Sub", true);
}

void aten_mul(ConvertCtx &c) {
  DType t = out_type(c, {"self", "other"});
  if (t == DType::Bool) {
    c.set_out(0, op_t(c.b, t, "And", {operand(c, "self", t), operand(c, "other", t)}));
    return;
  }
  DType k = kernel_type(t);
  set_out_as(c, op_t(c.b, k, "Mul", {operand(c, "self", k), operand(c, "other", k)}), t);
}

void aten_div(ConvertCtx &c) {
  DType t = out_type(c, {"self", "other"});
  // div.Tensor_mode / div.Scalar_mode (and div_) take rounding_mode; true_divide does not.
  std::string mode;
  if (c.takes("rounding_mode") && c.has("rounding_mode"))
    mode = c.arg<std::string>("rounding_mode");
  // True division of integers gives float; LibTorch recorded that as the output dtype.
  if (mode.empty() && !is_floating(t))
    t = DType::Float;
  DType k = kernel_type(t);
  set_out_as(c, divide(c.b, operand(c, "self", k), operand(c, "other", k), k, mode), t);
}

void aten_floor_divide(ConvertCtx &c) {
  DType t = out_type(c, {"self", "other"});
  DType k = kernel_type(t);
  set_out_as(c, divide(c.b, operand(c, "self", k), operand(c, "other", k), k, "floor"), t);
}

void aten_remainder(ConvertCtx &c) {
  DType t = out_type(c, {"self", "other"});
  DType k = kernel_type(t);
  set_out_as(c, py_mod(c.b, operand(c, "self", k), operand(c, "other", k), k), t);
}

void aten_fmod(ConvertCtx &c) {
  DType t = out_type(c, {"self", "other"});
  DType k = kernel_type(t);
  Val y =
      op_t(c.b, k, "Mod", {operand(c, "self", k), operand(c, "other", k)}, {{"fmod", int64_t{1}}});
  set_out_as(c, y, t);
}

void aten_pow(ConvertCtx &c) {
  DType t = out_type(c, {"self", "exponent"});
  DType k = kernel_type(t);
  set_out_as(c, op_t(c.b, k, "Pow", {operand(c, "self", k), operand(c, "exponent", k)}), t);
}

void aten_minimum(ConvertCtx &c) {
  DType t = out_type(c, {"self", "other"});
  DType k = kernel_type(t);
  set_out_as(c, op_t(c.b, k, "Min", {operand(c, "self", k), operand(c, "other", k)}), t);
}

void aten_maximum(ConvertCtx &c) {
  DType t = out_type(c, {"self", "other"});
  DType k = kernel_type(t);
  set_out_as(c, op_t(c.b, k, "Max", {operand(c, "self", k), operand(c, "other", k)}), t);
}

// ---- unary math ---------------------------------------------------------------------------

namespace {

// One ONNX op applied in the output dtype (integer inputs of exp/sin/... become float first).
void unary(ConvertCtx &c, const char *op) {
  DType t = out_type(c, {"self"});
  DType k = kernel_type(t);
  set_out_as(c, op_t(c.b, k, op, {operand(c, "self", k)}), t);
}

} // namespace

void aten_neg(ConvertCtx &c) {
  unary(c, "Neg");
}
void aten_abs(ConvertCtx &c) {
  unary(c, "Abs");
}
void aten_exp(ConvertCtx &c) {
  unary(c, "Exp");
}
void aten_log(ConvertCtx &c) {
  unary(c, "Log");
}
void aten_sqrt(ConvertCtx &c) {
  unary(c, "Sqrt");
}
void aten_reciprocal(ConvertCtx &c) {
  unary(c, "Reciprocal");
}
void aten_sign(ConvertCtx &c) {
  unary(c, "Sign");
}
void aten_erf(ConvertCtx &c) {
  unary(c, "Erf");
}
void aten_sin(ConvertCtx &c) {
  unary(c, "Sin");
}
void aten_cos(ConvertCtx &c) {
  unary(c, "Cos");
}
void aten_tan(ConvertCtx &c) {
  unary(c, "Tan");
}
void aten_asin(ConvertCtx &c) {
  unary(c, "Asin");
}
void aten_acos(ConvertCtx &c) {
  unary(c, "Acos");
}
void aten_atan(ConvertCtx &c) {
  unary(c, "Atan");
}
void aten_sinh(ConvertCtx &c) {
  unary(c, "Sinh");
}
void aten_cosh(ConvertCtx &c) {
  unary(c, "Cosh");
}

// 1 / sqrt(x) as Div(1, Sqrt(x)) (the same IEEE division as Reciprocal): the form ONNX Runtime's
// SimplifiedLayerNormFusion matches in RMSNorm (T5, LLaMA, Mistral: x * rsqrt(mean(x^2) + eps)).
// With Reciprocal it did not fuse, and t5_encoder / mistral ran 3% slower than the peer's files.
void aten_rsqrt(ConvertCtx &c) {
  DType t = out_type(c, {"self"});
  DType k = kernel_type(t);
  Val s = op_t(c.b, k, "Sqrt", {operand(c, "self", k)});
  set_out_as(c, op_t(c.b, k, "Div", {scalar(c.b, k, 1.0), s}), t);
}

void aten_log2(ConvertCtx &c) {
  DType t = out_type(c, {"self"});
  DType k = kernel_type(t);
  Val l = op_t(c.b, k, "Log", {operand(c, "self", k)});
  set_out_as(c, op_t(c.b, k, "Div", {l, scalar(c.b, k, std::log(2.0))}), t);
}

void aten_log1p(ConvertCtx &c) {
  DType t = out_type(c, {"self"});
  DType k = kernel_type(t);
  Val x1 = op_t(c.b, k, "Add", {operand(c, "self", k), scalar(c.b, k, 1.0)});
  set_out_as(c, op_t(c.b, k, "Log", {x1}), t);
}

void aten_expm1(ConvertCtx &c) {
  DType t = out_type(c, {"self"});
  DType k = kernel_type(t);
  Val e = op_t(c.b, k, "Exp", {operand(c, "self", k)});
  set_out_as(c, op_t(c.b, k, "Sub", {e, scalar(c.b, k, 1.0)}), t);
}

void aten_square(ConvertCtx &c) {
  DType t = out_type(c, {"self"});
  DType k = kernel_type(t);
  Val x = operand(c, "self", k);
  set_out_as(c, op_t(c.b, k, "Mul", {x, x}), t);
}

namespace {

// f(x) in the output dtype, for ops built from a few ONNX nodes.
template <typename F> void unary_with(ConvertCtx &c, F f) {
  DType t = out_type(c, {"self"});
  DType k = kernel_type(t);
  set_out_as(c, f(operand(c, "self", k), k), t);
}

} // namespace

void aten_asinh(ConvertCtx &c) {
  unary(c, "Asinh");
}
void aten_acosh(ConvertCtx &c) {
  unary(c, "Acosh");
}
void aten_atanh(ConvertCtx &c) {
  unary(c, "Atanh");
}

void aten_log10(ConvertCtx &c) {
  unary_with(c, [&](const Val &x, DType k) {
    return op_t(c.b, k, "Div", {op_t(c.b, k, "Log", {x}), scalar(c.b, k, std::log(10.0))});
  });
}

void aten_exp2(ConvertCtx &c) {
  unary_with(c, [&](const Val &x, DType k) { return op_t(c.b, k, "Pow", {scalar(c.b, k, 2), x}); });
}

void aten_erfc(ConvertCtx &c) {
  unary_with(c, [&](const Val &x, DType k) {
    return op_t(c.b, k, "Sub", {scalar(c.b, k, 1), op_t(c.b, k, "Erf", {x})});
  });
}

// special_erfcx(x) = exp(x^2) * erfc(x). Below 2 that product is accurate (erfc(x) >= 0.0047, so
// 1 - erf(x) loses little); from 2 on erfc underflows relative to exp(x^2), so Laplace's
// continued fraction erfcx(x) = 1/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))) takes
// over (20 levels: relative error below 1e-8 at x = 2, better beyond).
void aten_special_erfcx(ConvertCtx &c) {
  unary_with(c, [&](const Val &x, DType k) {
    GraphBuilder &b = c.b;
    Val near = op_t(b, k, "Mul",
                    {op_t(b, k, "Exp", {op_t(b, k, "Mul", {x, x})}),
                     op_t(b, k, "Sub", {scalar(b, k, 1), op_t(b, k, "Erf", {x})})});
    Val xf = op_t(b, k, "Max", {x, scalar(b, k, 2)});
    Val t = xf;
    for (int level = 20; level >= 1; --level)
      t = op_t(b, k, "Add", {xf, op_t(b, k, "Div", {scalar(b, k, level / 2.0), t})});
    Val far = op_t(b, k, "Div", {scalar(b, k, 1 / std::sqrt(M_PI)), t});
    Val is_far = op_t(b, DType::Bool, "GreaterOrEqual", {x, scalar(b, k, 2)});
    return op_t(b, k, "Where", {is_far, far, near});
  });
}

void aten_deg2rad(ConvertCtx &c) {
  unary_with(c, [&](const Val &x, DType k) {
    return op_t(c.b, k, "Mul", {x, scalar(c.b, k, M_PI / 180.0)});
  });
}

void aten_rad2deg(ConvertCtx &c) {
  unary_with(c, [&](const Val &x, DType k) {
    return op_t(c.b, k, "Mul", {x, scalar(c.b, k, 180.0 / M_PI)});
  });
}

void aten_frac(ConvertCtx &c) {
  unary_with(c, [&](const Val &x, DType k) {
    return op_t(c.b, k, "Sub", {x, trunc_float(c.b, x, k)});
  });
}

// self + value * t1 (op) t2, for addcmul / addcdiv.
namespace {
void addc(ConvertCtx &c, const char *op) {
  DType t = out_type(c, {"self", "tensor1", "tensor2"});
  DType k = kernel_type(t);
  Val prod = op_t(c.b, k, op, {operand(c, "tensor1", k), operand(c, "tensor2", k)});
  double value = c.arg<double>("value", 1.0);
  if (value != 1.0)
    prod = op_t(c.b, k, "Mul", {prod, scalar(c.b, k, value)});
  set_out_as(c, op_t(c.b, k, "Add", {operand(c, "self", k), prod}), t);
}
} // namespace

void aten_addcmul(ConvertCtx &c) {
  addc(c, "Mul");
}
void aten_addcdiv(ConvertCtx &c) {
  addc(c, "Div");
}

// lerp(self, end, weight) = self + weight * (end - self)
void aten_lerp(ConvertCtx &c) {
  DType t = out_type(c, {"self", "end"});
  DType k = kernel_type(t);
  Val x = operand(c, "self", k);
  Val diff = op_t(c.b, k, "Sub", {operand(c, "end", k), x});
  Val step = op_t(c.b, k, "Mul", {diff, operand(c, "weight", k)});
  set_out_as(c, op_t(c.b, k, "Add", {x, step}), t);
}

namespace {

// Floor/Ceil/Round/trunc leave integers unchanged (LibTorch returns a copy).
void rounding(ConvertCtx &c, const char *op) {
  DType t = out_type(c, {"self"});
  if (!is_floating(t)) {
    c.set_out(0, cast_to(c.b, c.tensor("self"), t));
    return;
  }
  DType k = kernel_type(t);
  Val x = operand(c, "self", k);
  set_out_as(c, std::string(op) == "Trunc" ? trunc_float(c.b, x, k) : op_t(c.b, k, op, {x}), t);
}

} // namespace

void aten_floor(ConvertCtx &c) {
  rounding(c, "Floor");
}
void aten_ceil(ConvertCtx &c) {
  rounding(c, "Ceil");
}
void aten_trunc(ConvertCtx &c) {
  rounding(c, "Trunc");
}

void aten_round(ConvertCtx &c) {
  int64_t decimals = c.takes("decimals") ? c.arg<int64_t>("decimals") : 0;
  DType t = out_type(c, {"self"});
  if (decimals == 0 || !is_floating(t)) {
    rounding(c, "Round");
    return;
  }
  // Same scaling as ATen: Round (half to even) at the scaled position, then scale back.
  DType k = kernel_type(t);
  double p = std::pow(10.0, static_cast<double>(std::llabs(decimals)));
  const char *in_op = decimals > 0 ? "Mul" : "Div";
  const char *back_op = decimals > 0 ? "Div" : "Mul";
  Val s = op_t(c.b, k, in_op, {operand(c, "self", k), scalar(c.b, k, p)});
  Val r = op_t(c.b, k, "Round", {s});
  set_out_as(c, op_t(c.b, k, back_op, {r, scalar(c.b, k, p)}), t);
}

// ---- clamp --------------------------------------------------------------------------------------

namespace {

// clamp(self, min, max) / clamp_min(self, min) / clamp_max(self, max): the bounds the schema has
// (either may be None).
void clamp_impl(ConvertCtx &c) {
  const char *lo = "min", *hi = "max";
  bool has_lo = c.takes(lo) && c.has(lo), has_hi = c.takes(hi) && c.has(hi);
  DType t = out_type(c, {"self"});
  DType k = kernel_type(t);
  Val x = operand(c, "self", k);
  T2O_CHECK(has_lo || has_hi, "{} needs at least one of min and max (both are None)", c.op());
  bool tensor_bounds = (has_lo && c.arg(lo).is_tensor()) || (has_hi && c.arg(hi).is_tensor());
  if (!tensor_bounds) {
    Val mn = has_lo ? scalar(c.b, k, c.arg<double>(lo)) : Val{};
    Val mx = has_hi ? scalar(c.b, k, c.arg<double>(hi)) : Val{};
    // One bound: Max or Min (Clip's missing bound is the type's largest finite value, which
    // would turn inf into 3.4e38); clamp(min=0) is a Relu, which runtimes fuse into a Conv.
    if (has_lo && !has_hi && is_floating(k) && c.arg<double>(lo) == 0)
      set_out_as(c, op_t(c.b, k, "Relu", {x}), t);
    else if (has_lo != has_hi)
      set_out_as(c, op_t(c.b, k, has_lo ? "Max" : "Min", {x, has_lo ? mn : mx}), t);
    else
      set_out_as(c, op_t(c.b, k, "Clip", {x, mn, mx}), t);
    return;
  }
  // Tensor bounds broadcast, which Clip's scalar min/max cannot; Max then Min matches torch's
  // min(max(x, lo), hi) (hi wins when lo > hi).
  if (has_lo)
    x = op_t(c.b, k, "Max", {x, operand(c, lo, k)});
  if (has_hi)
    x = op_t(c.b, k, "Min", {x, operand(c, hi, k)});
  set_out_as(c, x, t);
}

} // namespace

void aten_clamp(ConvertCtx &c) {
  clamp_impl(c);
}

// ---- selection ----------------------------------------------------------------------------------

namespace {

DType where_type(DType t) {
  return t == DType::Bool ? t : kernel_type(t);
}

// Where(cond, x, y); for bools (ONNX Runtime has no bool Where) cond & x | !cond & y.
Val select_values(GraphBuilder &b, DType k, const Val &cond, const Val &x, const Val &y) {
  if (k != DType::Bool)
    return op_t(b, k, "Where", {cond, x, y});
  Val pick_x = op_t(b, DType::Bool, "And", {cond, x});
  Val pick_y = op_t(b, DType::Bool, "And", {op_t(b, DType::Bool, "Not", {cond}), y});
  return op_t(b, DType::Bool, "Or", {pick_x, pick_y});
}

} // namespace

namespace {

// aten::where(Tensor condition) -> Tensor[]: torch.nonzero(condition, as_tuple=True), one int64
// index tensor per dim (e.g. `torch.where(scores > thresh)[0]` in detection post-processing).
void where_condition(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  const TensorInfo &info = c.info("condition");
  T2O_CHECK(info.has_rank(), "aten::where(condition) needs the condition's rank");
  Val cond = cast_to(b, c.tensor("condition"), DType::Bool);
  int64_t rank = info.rank();
  if (rank == 0)
    cond = unsqueeze(b, cond, {0});                  // torch treats a 0-d condition as 1-d
  Val nz = op_t(b, DType::Int64, "NonZero", {cond}); // [rank, count]
  std::vector<Arg> dims;
  for (int64_t d = 0; d < std::max<int64_t>(rank, 1); ++d) {
    Val row = op_t(b, DType::Int64, "Gather", {nz, b.const_i64_scalar(d)}, {{"axis", int64_t{0}}});
    b.set_info(row, TensorInfo{DType::Int64, std::vector<Dim>{Dim{}}}); // [count]
    dims.push_back(Arg::of_tensor(row));
  }
  c.set_out(0, Arg::of_list(std::move(dims)));
}

} // namespace

// where(condition) / where.self(condition, self, other) (also .ScalarSelf, .ScalarOther, .Scalar).
void aten_where(ConvertCtx &c) {
  if (!c.takes("self"))
    return where_condition(c);
  DType t = out_type(c, {"self", "other"});
  DType k = where_type(t);
  Val cond = operand(c, "condition", DType::Bool);
  set_out_as(c, select_values(c.b, k, cond, operand(c, "self", k), operand(c, "other", k)), t);
}

void aten_masked_fill(ConvertCtx &c) {
  DType t = out_type(c, {"self"});
  DType k = where_type(t);
  Val mask = operand(c, "mask", DType::Bool);
  set_out_as(c, select_values(c.b, k, mask, operand(c, "value", k), operand(c, "self", k)), t);
}

// ---- comparisons and logic ----------------------------------------------------------------------

namespace {

// Compares in the promoted dtype; `negate` turns Equal into "not equal".
void compare(ConvertCtx &c, const char *op, bool negate = false) {
  DType p = result_type(c, {"self", "other"});
  DType k = p == DType::Bool && std::string(op) == "Equal" ? p : kernel_type(p);
  if (k == DType::Bool && std::string(op) != "Equal")
    k = DType::Int32;
  Val y = op_t(c.b, DType::Bool, op, {operand(c, "self", k), operand(c, "other", k)});
  if (negate)
    y = op_t(c.b, DType::Bool, "Not", {y});
  DType t = c.out_info(0).dtype; // in-place variants keep self's dtype
  set_out_as(c, y, t == DType::Undefined ? DType::Bool : t);
}

void logical(ConvertCtx &c, const char *op) {
  Val y = op_t(c.b, DType::Bool, op,
               {operand(c, "self", DType::Bool), operand(c, "other", DType::Bool)});
  DType t = c.out_info(0).dtype;
  set_out_as(c, y, t == DType::Undefined ? DType::Bool : t);
}

} // namespace

void aten_eq(ConvertCtx &c) {
  compare(c, "Equal");
}
void aten_ne(ConvertCtx &c) {
  compare(c, "Equal", true);
}
void aten_lt(ConvertCtx &c) {
  compare(c, "Less");
}
void aten_le(ConvertCtx &c) {
  compare(c, "LessOrEqual");
}
void aten_gt(ConvertCtx &c) {
  compare(c, "Greater");
}
void aten_ge(ConvertCtx &c) {
  compare(c, "GreaterOrEqual");
}

void aten_logical_and(ConvertCtx &c) {
  logical(c, "And");
}
void aten_logical_or(ConvertCtx &c) {
  logical(c, "Or");
}
void aten_logical_xor(ConvertCtx &c) {
  logical(c, "Xor");
}

void aten_logical_not(ConvertCtx &c) {
  Val y = op_t(c.b, DType::Bool, "Not", {operand(c, "self", DType::Bool)});
  DType t = c.out_info(0).dtype;
  set_out_as(c, y, t == DType::Undefined ? DType::Bool : t);
}

void aten_bitwise_not(ConvertCtx &c) {
  DType t = out_type(c, {"self"});
  if (t == DType::Bool) {
    c.set_out(0, op_t(c.b, t, "Not", {operand(c, "self", t)}));
    return;
  }
  T2O_CHECK(is_int(t), "bitwise_not needs a bool or integer tensor, got {}", dtype_name(t));
  // BitwiseNot arrives in opset 18; in two's complement ~x == -1 - x (255 - x for uint8).
  DType k = kernel_type(t);
  double all_ones = t == DType::UInt8 ? 255.0 : -1.0;
  T2O_CHECK(t != DType::UInt16 && t != DType::UInt32 && t != DType::UInt64,
            "bitwise_not on {} is not supported", dtype_name(t));
  set_out_as(c, op_t(c.b, k, "Sub", {scalar(c.b, k, all_ones), operand(c, "self", k)}), t);
}

void aten_isnan(ConvertCtx &c) {
  DType in = c.b.has_info(c.tensor("self")) ? c.b.dtype(c.tensor("self")) : DType::Float;
  if (is_floating(in)) {
    c.set_out(0, op_t(c.b, DType::Bool, "IsNaN", {operand(c, "self", kernel_type(in))}));
    return;
  }
  // Integers are never NaN: all false, in the input's shape.
  Val shape = c.b.op1("Shape", {c.tensor("self")});
  c.set_out(0, op_t(c.b, DType::Bool, "ConstantOfShape", {shape},
                    {{"value", TensorData::boolean({false}, {1})}}));
}

namespace {

// IsInf / IsNaN tests on floats; integers are never inf or NaN.
void float_test(ConvertCtx &c, bool finite) {
  DType in = c.b.has_info(c.tensor("self")) ? c.b.dtype(c.tensor("self")) : DType::Float;
  if (!is_floating(in)) {
    Val shape = c.b.op1("Shape", {c.tensor("self")});
    c.set_out(0, op_t(c.b, DType::Bool, "ConstantOfShape", {shape},
                      {{"value", TensorData::boolean({finite}, {1})}}));
    return;
  }
  Val x = operand(c, "self", kernel_type(in));
  Val inf = op_t(c.b, DType::Bool, "IsInf", {x});
  if (!finite) {
    c.set_out(0, inf);
    return;
  }
  Val bad = op_t(c.b, DType::Bool, "Or", {inf, op_t(c.b, DType::Bool, "IsNaN", {x})});
  c.set_out(0, op_t(c.b, DType::Bool, "Not", {bad}));
}

} // namespace

void aten_isinf(ConvertCtx &c) {
  float_test(c, false);
}
void aten_isfinite(ConvertCtx &c) {
  float_test(c, true);
}

namespace {

// Arithmetic with two operands and its relatives.
void register_arithmetic(Registry &r) {
  r.add_with_inplace("aten::add", 11, aten_add,
                     {"Concat",         "Slice",          "Add",   "Mul", "Cast",  "Or",
                      "SequenceInsert", "Unsqueeze",      "And",   "Div", "Equal", "Gather",
                      "Greater",        "GreaterOrEqual", "Less",  "Max", "Min",   "Mod",
                      "Range",          "Reshape",        "Shape", "Sub", "Where"});
  r.add_with_inplace("aten::sub", 11, aten_sub, {"Sub", "Mul", "Unsqueeze"});
  r.add("aten::rsub", 11, aten_rsub, {"Sub", "Mul"});
  r.add_with_inplace("aten::mul", 11, aten_mul, {"Mul", "And", "Cast", "Unsqueeze"});
  r.add_with_inplace("aten::div", 11, aten_div,
                     {"Div", "Floor", "Mod", "Add", "Cast", "Ceil", "Less", "Sub", "Unsqueeze",
                      "Where", "And", "Not", "Equal", "Xor", "Greater", "Mul"});
  r.add_with_inplace("aten::true_divide", 11, aten_div, {"Div", "Cast"});
  r.add_with_inplace("aten::floor_divide", 11, aten_floor_divide,
                     {"Div", "Floor", "Mod", "Sub", "Add", "And", "Not", "Equal", "Xor", "Less",
                      "Greater", "Mul", "Where", "Cast"});
  r.add_with_inplace("aten::remainder", 11, aten_remainder,
                     {"Mod", "Where", "Add", "And", "Equal", "Less", "Not", "Xor"});
  r.add_with_inplace("aten::fmod", 11, aten_fmod, {"Mod"});
  r.add_with_inplace("aten::pow", 11, aten_pow,
                     {"Pow", "Add", "Atan", "Cast", "Div", "Equal", "Gather", "Less", "Mul",
                      "ReduceSumSquare", "Sign", "Sqrt", "Sub", "Unsqueeze", "Where"});
  r.add("aten::minimum", 11, aten_minimum, {"Min", "Cast", "Less", "Greater", "Where", "And"});
  r.add("aten::maximum", 11, aten_maximum, {"Max", "Cast", "Less", "Greater", "Where", "Or"});
}

// Functions of one tensor, then clamps.
void register_unary(Registry &r) {
  r.add_with_inplace("aten::neg", 11, aten_neg, {"Neg"});
  r.add_with_inplace("aten::abs", 11, aten_abs, {"Abs", "Cast"});
  r.add_with_inplace("aten::exp", 11, aten_exp, {"Exp", "Cast", "Gather", "Unsqueeze"});
  r.add_with_inplace("aten::expm1", 11, aten_expm1, {"Exp", "Sub"});
  r.add_with_inplace("aten::log", 11, aten_log, {"Log"});
  r.add_with_inplace("aten::log2", 11, aten_log2, {"Log", "Div"});
  r.add_with_inplace("aten::log1p", 11, aten_log1p, {"Add", "Log"});
  r.add_with_inplace("aten::sqrt", 11, aten_sqrt, {"Sqrt", "Cast"});
  r.add_with_inplace("aten::rsqrt", 11, aten_rsqrt, {"Sqrt", "Div"});
  r.add_with_inplace("aten::reciprocal", 11, aten_reciprocal, {"Reciprocal"});
  r.add_with_inplace("aten::square", 11, aten_square, {"Mul"});
  r.add_with_inplace("aten::sign", 11, aten_sign, {"Sign"});
  r.add_with_inplace("aten::erf", 11, aten_erf, {"Erf"});
  r.add_with_inplace("aten::sin", 11, aten_sin, {"Sin"});
  r.add_with_inplace("aten::cos", 11, aten_cos, {"Cos"});
  r.add_with_inplace("aten::tan", 11, aten_tan, {"Tan"});
  r.add_with_inplace("aten::asin", 11, aten_asin, {"Asin"});
  r.add_with_inplace("aten::acos", 11, aten_acos, {"Acos"});
  r.add_with_inplace("aten::atan", 11, aten_atan, {"Atan"});
  r.add_with_inplace("aten::sinh", 11, aten_sinh, {"Sinh"});
  r.add_with_inplace("aten::cosh", 11, aten_cosh, {"Cosh"});
  r.add_with_inplace("aten::floor", 11, aten_floor, {"Floor"});
  r.add_with_inplace("aten::ceil", 11, aten_ceil, {"Ceil"});
  r.add_with_inplace("aten::trunc", 11, aten_trunc, {"Ceil", "Floor", "Where", "Less"});
  r.add_with_inplace("aten::round", 11, aten_round, {"Round", "Mul", "Div"});
  r.add_with_inplace("aten::clamp", 11, aten_clamp,
                     {"Clip", "Max", "Min", "Relu", "Greater", "Identity", "Less", "Where"});
  r.add_with_inplace("aten::clip", 11, aten_clamp, {"Clip", "Max", "Min", "Relu"});
  r.add_with_inplace("aten::clamp_min", 11, aten_clamp, {"Max", "Relu"});
  r.add_with_inplace("aten::clamp_max", 11, aten_clamp, {"Min"});
}

// Selection, comparisons and logic, special functions.
void register_selection_and_logic(Registry &r) {
  r.add("aten::where", 11, aten_where,
        {"Where", "Cast", "NonZero", "Gather", "Unsqueeze", "And", "Or", "Not"});
  r.add_with_inplace("aten::masked_fill", 11, aten_masked_fill, {"Where", "And", "Or", "Not"});
  // And/Not: the walker's comparison of two lists of runtime sizes (handle_list_compare).
  r.add_with_inplace("aten::eq", 11, aten_eq, {"Equal", "Cast", "And"});
  r.add_with_inplace("aten::ne", 11, aten_ne, {"Equal", "Not", "Cast", "And"});
  r.add_with_inplace("aten::lt", 11, aten_lt, {"Less", "Cast"});
  r.add_with_inplace("aten::le", 11, aten_le, {"LessOrEqual", "Cast", "Equal", "Less", "Or"});
  r.add_with_inplace("aten::gt", 11, aten_gt, {"Greater", "Cast"});
  r.add_with_inplace("aten::ge", 11, aten_ge, {"GreaterOrEqual", "Cast", "Equal", "Greater", "Or"});
  r.add_with_inplace("aten::logical_and", 11, aten_logical_and, {"And", "Cast"});
  r.add_with_inplace("aten::logical_or", 11, aten_logical_or, {"Or", "Cast"});
  r.add_with_inplace("aten::logical_xor", 11, aten_logical_xor, {"Xor", "Cast"});
  r.add_with_inplace("aten::logical_not", 11, aten_logical_not, {"Not", "Cast"});
  r.add_with_inplace("aten::bitwise_not", 11, aten_bitwise_not, {"Not", "Sub", "Cast"});
  r.add("aten::isnan", 11, aten_isnan, {"IsNaN", "ConstantOfShape", "Shape"});
  r.add_with_inplace("aten::asinh", 11, aten_asinh, {"Asinh"});
  r.add_with_inplace("aten::acosh", 11, aten_acosh, {"Acosh"});
  r.add_with_inplace("aten::atanh", 11, aten_atanh, {"Atanh"});
  r.add_with_inplace("aten::log10", 11, aten_log10, {"Log", "Div"});
  r.add_with_inplace("aten::exp2", 11, aten_exp2, {"Pow"});
  r.add_with_inplace("aten::erfc", 11, aten_erfc, {"Erf", "Sub"});
  r.add("aten::special_erf", 11, aten_erf, {"Erf"});
  r.add("aten::special_erfc", 11, aten_erfc, {"Erf", "Sub"});
  r.add("aten::special_erfcx", 11, aten_special_erfcx,
        {"Erf", "Exp", "Div", "Where", "Add", "Equal", "Greater", "GreaterOrEqual", "Max", "Mul",
         "Or", "Sub"});
  r.add("aten::special_expm1", 11, aten_expm1, {"Exp", "Sub"});
  r.add_with_inplace("aten::deg2rad", 11, aten_deg2rad, {"Mul"});
  r.add_with_inplace("aten::rad2deg", 11, aten_rad2deg, {"Mul"});
  r.add_with_inplace("aten::frac", 11, aten_frac, {"Sub", "Floor", "Ceil", "Where", "Less"});
  r.add_with_inplace("aten::addcmul", 11, aten_addcmul, {"Mul", "Add"});
  r.add_with_inplace("aten::addcdiv", 11, aten_addcdiv, {"Div", "Mul", "Add"});
  r.add_with_inplace("aten::lerp", 11, aten_lerp, {"Sub", "Mul", "Add"});
  r.add("aten::isinf", 11, aten_isinf, {"IsInf"});
  r.add("aten::isfinite", 11, aten_isfinite,
        {"IsInf", "IsNaN", "Or", "Not", "ConstantOfShape", "Shape"});
}

} // namespace

void register_elementwise_ops(Registry &r) {
  register_arithmetic(r);
  register_unary(r);
  register_selection_and_logic(r);
}

} // namespace torch2onnx
