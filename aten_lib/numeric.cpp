// Elementwise number functions from C's <math.h> and NumPy that ONNX has no operator for:
// copysign, hypot, fmax/fmin (NaN-ignoring), gcd/lcm, ldexp, float_power, frexp, isreal. Each is
// decomposed into ONNX ops; the comments say where the result can differ from LibTorch's.
#include "aten_lib/complex.h"
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"
#include "aten_lib/promotion.h"

#include <cmath>

namespace torch2onnx {

namespace {

Val bool_op(GraphBuilder &b, std::string_view op, const std::vector<Val> &in) {
  return op_t(b, DType::Bool, op, in);
}

// a and b broadcast against each other (Add of the other's zeros), for loop-carried values.
std::pair<Val, Val> broadcast_pair(GraphBuilder &b, DType k, const Val &a, const Val &x) {
  Val za = op_t(b, k, "Sub", {a, a}), zx = op_t(b, k, "Sub", {x, x});
  return {op_t(b, k, "Add", {a, zx}), op_t(b, k, "Add", {x, za})};
}

// The body of gcd's Loop: (a, b) -> (b, a mod b) where b != 0; continues while any b != 0.
Subgraph gcd_body(GraphBuilder &b, DType k) {
  b.begin_subgraph("gcd_step");
  // ONNX Runtime needs the shapes of the iteration count and the condition: scalars.
  b.add_subgraph_input("i", ValueType{DType::Int64, false, std::vector<Dim>{}});
  b.add_subgraph_input("cond", ValueType{DType::Bool, false, std::vector<Dim>{}});
  Val x = b.add_subgraph_input("a", ValueType{k});
  Val y = b.add_subgraph_input("b", ValueType{k});
  b.set_info(x, TensorInfo{k, std::nullopt});
  b.set_info(y, TensorInfo{k, std::nullopt});
  Val zero = scalar(b, k, 0);
  Val y0 = bool_op(b, "Equal", {y, zero});
  Val r = op_t(b, k, "Mod", {x, op_t(b, k, "Where", {y0, scalar(b, k, 1), y})});
  Val x2 = op_t(b, k, "Where", {y0, x, y});
  Val y2 = op_t(b, k, "Where", {y0, zero, r});
  Val nonzero = cast_to(b, bool_op(b, "Not", {bool_op(b, "Equal", {y2, zero})}), DType::Int64);
  Val any = op_t(b, DType::Int64, "ReduceMax", {nonzero}, {{"keepdims", 0}});
  Val more = bool_op(b, "Greater", {any, b.const_i64_scalar(0)});
  return b.end_subgraph({more, x2, y2}, {ValueType{DType::Bool}, ValueType{k}, ValueType{k}});
}

// gcd(|a|, |b|) by Euclid's algorithm in an ONNX Loop: at most 100 steps, more than the 92 the
// worst case of int64 (consecutive Fibonacci numbers) needs.
Val gcd_of(ConvertCtx &c, DType k) {
  GraphBuilder &b = c.b;
  Val a = op_t(b, k, "Abs", {operand(c, "self", k)});
  Val x = op_t(b, k, "Abs", {operand(c, "other", k)});
  auto [ab, xb] = broadcast_pair(b, k, a, x);
  Subgraph body = gcd_body(b, k);
  Val trips = b.const_i64_scalar(100);
  Val go = b.constant(TensorData::boolean({true}, {}));
  Val g = b.op_with_subgraphs("Loop", {trips, go, ab, xb}, {{"body", body}}, 2)[0];
  b.set_info(g, TensorInfo{k, b.info(ab).shape});
  return g;
}

// Whether x's sign bit is set: x < 0, or x is -0 (1 / -0 is -inf).
Val sign_bit(GraphBuilder &b, DType k, const Val &x) {
  Val zero = scalar(b, k, 0);
  Val neg_zero = bool_op(b, "And",
                         {bool_op(b, "Equal", {x, zero}),
                          bool_op(b, "Less", {op_t(b, k, "Div", {scalar(b, k, 1), x}), zero})});
  return bool_op(b, "Or", {bool_op(b, "Less", {x, zero}), neg_zero});
}

// fmax / fmin: the larger / smaller operand, the other one where one is NaN.
void nan_ignoring_extreme(ConvertCtx &c, bool larger) {
  DType t = out_dtype(c);
  DType k = kernel_type(t);
  Val a = operand(c, "self", k), x = operand(c, "other", k);
  Val pick_a = bool_op(c.b, larger ? "Greater" : "Less", {a, x});
  if (is_floating(k))
    pick_a = bool_op(c.b, "Or", {pick_a, bool_op(c.b, "IsNaN", {x})});
  set_result(c, op_t(c.b, k, "Where", {pick_a, a, x}));
}

} // namespace

// copysign(self, other): |self| with other's sign bit (-0 counts as negative). A NaN `other`
// counts as positive (ONNX cannot read a NaN's sign bit; LibTorch uses it).
void aten_copysign(ConvertCtx &c) {
  DType k = float_compute(out_dtype(c));
  Val mag = op_t(c.b, k, "Abs", {operand(c, "self", k)});
  Val neg = sign_bit(c.b, k, operand(c, "other", k));
  set_result(c, op_t(c.b, k, "Where", {neg, op_t(c.b, k, "Neg", {mag}), mag}));
}

// hypot(self, other) = sqrt(self^2 + other^2).
void aten_hypot(ConvertCtx &c) {
  DType k = float_compute(out_dtype(c));
  Val a = operand(c, "self", k), x = operand(c, "other", k);
  Val s = op_t(c.b, k, "Add", {op_t(c.b, k, "Mul", {a, a}), op_t(c.b, k, "Mul", {x, x})});
  set_result(c, op_t(c.b, k, "Sqrt", {s}));
}

void aten_fmax(ConvertCtx &c) {
  nan_ignoring_extreme(c, true);
}
void aten_fmin(ConvertCtx &c) {
  nan_ignoring_extreme(c, false);
}

// gcd(self, other) of integers, never negative; gcd(0, 0) = 0.
void aten_gcd(ConvertCtx &c) {
  DType k = kernel_type(out_dtype(c));
  set_result(c, gcd_of(c, k));
}

// lcm(self, other) = |self / gcd * other|; 0 when either is 0.
void aten_lcm(ConvertCtx &c) {
  DType k = kernel_type(out_dtype(c));
  Val g = gcd_of(c, k);
  Val zero = scalar(c.b, k, 0);
  Val safe = op_t(c.b, k, "Where", {bool_op(c.b, "Equal", {g, zero}), scalar(c.b, k, 1), g});
  Val q = op_t(c.b, k, "Div", {operand(c, "self", k), safe});
  set_result(c, op_t(c.b, k, "Abs", {op_t(c.b, k, "Mul", {q, operand(c, "other", k)})}));
}

// ldexp(self, other) = self * 2^other.
void aten_ldexp(ConvertCtx &c) {
  DType k = float_compute(out_dtype(c));
  Val p = op_t(c.b, k, "Pow", {scalar(c.b, k, 2), operand(c, "other", k)});
  set_result(c, op_t(c.b, k, "Mul", {operand(c, "self", k), p}));
}

// float_power(self, exponent): pow in double precision (the result is float64).
void aten_float_power(ConvertCtx &c) {
  DType k = DType::Double;
  set_result(c, op_t(c.b, k, "Pow", {operand(c, "self", k), operand(c, "exponent", k)}));
}

namespace {

struct Frexp {
  Val mantissa, exponent; // doubles: x = mantissa * 2^exponent, |mantissa| in [0.5, 1)
};

// frexp of the double x (nonzero and finite; other values give garbage the callers replace): the
// exponent from log2 |x|, then corrected by one step where log2's rounding lands on the wrong side
// of a power of two.
Frexp frexp_of(GraphBuilder &b, const Val &x) {
  DType k = DType::Double;
  Val ax = op_t(b, k, "Abs", {x});
  Val l2 = op_t(b, k, "Div", {op_t(b, k, "Log", {ax}), scalar(b, k, std::log(2.0))});
  Val e = op_t(b, k, "Add", {op_t(b, k, "Floor", {l2}), scalar(b, k, 1)});
  Val m = op_t(b, k, "Div", {x, op_t(b, k, "Pow", {scalar(b, k, 2), e})});
  Val am = op_t(b, k, "Abs", {m});
  Val big = bool_op(b, "GreaterOrEqual", {am, scalar(b, k, 1)});
  Val small = bool_op(b, "Less", {am, scalar(b, k, 0.5)});
  Val step = op_t(b, k, "Sub", {cast_to(b, big, k), cast_to(b, small, k)}); // +1, 0 or -1
  return {op_t(b, k, "Div", {m, op_t(b, k, "Pow", {scalar(b, k, 2), step})}),
          op_t(b, k, "Add", {e, step})};
}

// Where x is 0, inf or NaN.
Val zero_or_not_finite(GraphBuilder &b, const Val &x) {
  Val inf_nan = bool_op(b, "Or", {bool_op(b, "IsInf", {x}), bool_op(b, "IsNaN", {x})});
  return bool_op(b, "Or", {bool_op(b, "Equal", {x, scalar(b, DType::Double, 0)}), inf_nan});
}

} // namespace

// frexp(self) -> (mantissa, exponent): self = mantissa * 2^exponent with |mantissa| in [0.5, 1);
// (0, 0) for 0, and (self, 0) for inf and NaN. Computed in double.
void aten_frexp(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  DType k = DType::Double;
  Val x = operand(c, "self", k);
  Frexp f = frexp_of(b, x);
  Val special = zero_or_not_finite(b, x);
  set_result(c, op_t(b, k, "Where", {special, x, f.mantissa}), 0);
  set_result(c, op_t(b, k, "Where", {special, scalar(b, k, 0), f.exponent}), 1);
}

namespace {

// The significand bits and the smallest positive value (a subnormal) of a float dtype.
std::pair<int, double> float_format(DType t) {
  switch (t) {
  case DType::Double:
    return {53, std::ldexp(1.0, -1074)};
  case DType::Float16:
    return {11, std::ldexp(1.0, -24)};
  case DType::BFloat16:
    return {8, std::ldexp(1.0, -133)};
  default:
    return {24, std::ldexp(1.0, -149)};
  }
}

} // namespace

// nextafter(self, other): the next value of self's dtype after self towards other. Computed in
// double from frexp: the spacing of values in [2^(e-1), 2^e) is 2^(e - p) (p significand bits),
// half that below an exact power of two when stepping towards zero, and never under the smallest
// subnormal. self == other gives other; a NaN operand gives NaN. An infinite self stepping back
// towards the finite values gives NaN (LibTorch: the largest finite value).
void aten_nextafter(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  DType k = DType::Double;
  auto [bits, tiny] = float_format(out_dtype(c));
  Val x = operand(c, "self", k), y = operand(c, "other", k);
  Frexp f = frexp_of(b, x);
  Val dir = op_t(b, k, "Sign", {op_t(b, k, "Sub", {y, x})});
  Val away =
      bool_op(b, "Greater", {op_t(b, k, "Mul", {dir, op_t(b, k, "Sign", {x})}), scalar(b, k, 0)});
  Val ulp =
      op_t(b, k, "Pow", {scalar(b, k, 2), op_t(b, k, "Sub", {f.exponent, scalar(b, k, bits)})});
  Val at_power = bool_op(b, "Equal", {op_t(b, k, "Abs", {f.mantissa}), scalar(b, k, 0.5)});
  Val half = op_t(b, k, "Mul", {ulp, scalar(b, k, 0.5)});
  Val down = op_t(b, k, "Where", {at_power, half, ulp});
  Val step = op_t(b, k, "Max", {op_t(b, k, "Where", {away, ulp, down}), scalar(b, k, tiny)});
  Val moved = op_t(b, k, "Add", {x, op_t(b, k, "Mul", {dir, step})});
  // From 0: the smallest subnormal towards other. Equal operands (also +-inf): other.
  Val from_zero = op_t(b, k, "Mul", {dir, scalar(b, k, tiny)});
  Val zero = bool_op(b, "Equal", {x, scalar(b, k, 0)});
  Val r = op_t(b, k, "Where", {zero, from_zero, moved});
  r = op_t(b, k, "Where", {bool_op(b, "Equal", {x, y}), y, r});
  Val nan = bool_op(b, "Or", {bool_op(b, "IsNaN", {x}), bool_op(b, "IsNaN", {y})});
  set_result(c, op_t(b, k, "Where", {nan, op_t(b, k, "Add", {x, y}), r}));
}

// isreal(self): true everywhere for a real tensor.
void aten_isreal(ConvertCtx &c) {
  Val shape = c.b.op1("Shape", {c.tensor("self")});
  c.set_out(0, op_t(c.b, DType::Bool, "ConstantOfShape", {shape},
                    {{"value", TensorData::boolean({true}, {1})}}));
}

// isreal(self) of a complex tensor: its imaginary part is 0.
void complex_isreal(ConvertCtx &c) {
  if (!is_complex(c, "self"))
    return aten_isreal(c);
  DType k = c.info("self").dtype; // the carried form's: f32 for complex64
  Val im = complex_part(c.b, c.tensor("self"), k, 1);
  c.set_out(0, bool_op(c.b, "Equal", {im, scalar(c.b, k, 0)}));
}

void register_numeric_ops(Registry &r) {
  const std::vector<std::string> sign_ops{"Abs", "Neg", "Where", "Less", "Equal",
                                          "Div", "And", "Or",    "Cast"};
  r.add_with_inplace("aten::copysign", 11, aten_copysign, sign_ops);
  r.add_with_inplace("aten::hypot", 11, aten_hypot, {"Mul", "Add", "Sqrt", "Cast"});
  r.add("aten::fmax", 11, aten_fmax, {"Greater", "IsNaN", "Or", "Where", "Cast"});
  r.add("aten::fmin", 11, aten_fmin, {"Less", "IsNaN", "Or", "Where", "Cast"});
  const std::vector<std::string> gcd_ops{"Abs", "Sub", "Add",  "Loop",      "Equal",  "Where",
                                         "Mod", "Not", "Cast", "ReduceMax", "Greater"};
  r.add_with_inplace("aten::gcd", 11, aten_gcd, gcd_ops);
  std::vector<std::string> lcm_ops = gcd_ops;
  lcm_ops.insert(lcm_ops.end(), {"Div", "Mul"});
  r.add_with_inplace("aten::lcm", 11, aten_lcm, lcm_ops);
  r.add_with_inplace("aten::ldexp", 11, aten_ldexp, {"Pow", "Mul", "Cast"});
  r.add_with_inplace("aten::float_power", 11, aten_float_power, {"Pow", "Cast"});
  r.add("aten::frexp", 11, aten_frexp,
        {"Abs", "Log", "Div", "Floor", "Add", "Pow", "GreaterOrEqual", "Greater", "Less", "Sub",
         "Cast", "Equal", "IsInf", "IsNaN", "Or", "Where"});
  r.add_with_inplace("aten::nextafter", 11, aten_nextafter,
                     {"Abs", "Log", "Div", "Floor", "Add", "Pow", "GreaterOrEqual", "Less", "Sub",
                      "Cast", "Sign", "Mul", "Greater", "Equal", "Where", "Max", "IsNaN", "Or"});
  r.add("aten::isreal", 11, aten_isreal, {"Shape", "ConstantOfShape"});
  r.add_complex("aten::isreal", 11, complex_isreal, {"Gather", "Equal"});
}

} // namespace torch2onnx
