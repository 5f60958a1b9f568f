// Arithmetic, comparisons and conversions on plain numbers (int, float, bool) computed at run
// time (the "number" family; scalar.cpp turns tensors into numbers): loop counters, sizes of
// dynamic dims, conditions. The walker folds them when every input is a constant; otherwise each
// number is a 0-d tensor (int -> i64, float -> f64, bool -> bool) and these converters emit the
// ONNX arithmetic. They are registered as "<op>.num" (the walker looks that key up for nodes whose
// inputs and output are all numbers, e.g. aten::add.int), so they never shadow the tensor
// converters of the same op.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

#include <cmath>

namespace torch2onnx {

namespace {

// The overloads on numbers name their operands a and b (aten::add.int(int a, int b), aten::neg.int,
// aten::Bool.float, ...); __not__ names it self, __range_length lo, hi, step.
DType arg_dtype(const ConvertCtx &c, std::string_view name) {
  const Arg &a = c.arg(name);
  switch (a.kind) {
  case Arg::Kind::Int:
    return DType::Int64;
  case Arg::Kind::Float:
    return DType::Double;
  case Arg::Kind::Bool:
    return DType::Bool;
  case Arg::Kind::Tensor:
    return c.b.has_info(a.t()) ? c.b.dtype(a.t()) : DType::Double;
  default:
    throw Error(fmt::format("{}: expected a number, got {}", c.op(), a.describe()));
  }
}

// Argument `name` as a 0-d tensor of dtype t.
Val num(ConvertCtx &c, std::string_view name, DType t) {
  const Arg &a = c.arg(name);
  if (!a.is_tensor()) {
    if (t == DType::Int64)
      return c.b.const_i64_scalar(a.to_int());
    return c.b.const_scalar(t, a.to_double());
  }
  Val v = cast_to(c.b, a.t(), t);
  if (!c.b.has_info(v) || c.b.rank(v) != 0)
    v = reshape(c.b, v, {});
  return v;
}

// Python's promotion for two numbers: float if either is, else int (bool arithmetic is int).
DType common(const ConvertCtx &c) {
  for (const std::string &name : c.arg_names())
    if (is_floating(arg_dtype(c, name)))
      return DType::Double;
  return DType::Int64;
}

DType result(const ConvertCtx &c, DType fallback) {
  DType d = c.out_info(0).dtype;
  return d == DType::Undefined ? fallback : d;
}

void set_num(ConvertCtx &c, Val v, DType t) {
  v = cast_to(c.b, v, t);
  c.b.set_info(v, TensorInfo{t, std::vector<Dim>{}});
  c.set_out(0, v);
}

void binary(ConvertCtx &c, const char *op) {
  DType t = common(c);
  Val v = op_t(c.b, t, op, {num(c, "a", t), num(c, "b", t)});
  set_num(c, v, result(c, t));
}

void compare(ConvertCtx &c, const char *op, bool negate = false) {
  DType t = common(c);
  if (arg_dtype(c, "a") == DType::Bool && arg_dtype(c, "b") == DType::Bool &&
      std::string(op) == "Equal")
    t = DType::Bool;
  Val v = op_t(c.b, DType::Bool, op, {num(c, "a", t), num(c, "b", t)});
  if (negate)
    v = op_t(c.b, DType::Bool, "Not", {v});
  set_num(c, v, DType::Bool);
}

// and/or/xor of two bools, or &, |, ^ of two ints (bitwise: ONNX's Bitwise ops, from opset 18).
void logical(ConvertCtx &c, const char *op) {
  if (arg_dtype(c, "a") == DType::Bool && arg_dtype(c, "b") == DType::Bool) {
    set_num(c, op_t(c.b, DType::Bool, op, {num(c, "a", DType::Bool), num(c, "b", DType::Bool)}),
            DType::Bool);
    return;
  }
  if (c.b.opset() < 18)
    throw Error(fmt::format("{} of run-time ints (bitwise) needs ONNX's Bitwise{} (opset 18; the "
                            "target is {})",
                            c.op(), op, c.b.opset()),
                "export with --opset 18 or newer");
  std::string bitwise = std::string("Bitwise") + op;
  Val v = op_t(c.b, DType::Int64, bitwise, {num(c, "a", DType::Int64), num(c, "b", DType::Int64)});
  set_num(c, v, DType::Int64);
}

} // namespace

void num_add(ConvertCtx &c) {
  binary(c, "Add");
}
void num_sub(ConvertCtx &c) {
  binary(c, "Sub");
}
void num_mul(ConvertCtx &c) {
  binary(c, "Mul");
}
void num_min(ConvertCtx &c) {
  binary(c, "Min");
}
void num_max(ConvertCtx &c) {
  binary(c, "Max");
}

// The items of list argument `name` (numbers known at export time or computed at run time) as
// one 1-D tensor of dtype t.
Val list_items(ConvertCtx &c, std::string_view name, DType t) {
  const Arg &list = c.arg(name);
  T2O_CHECK(list.kind == Arg::Kind::List,
            "a list of numbers built at run time (its length unknown until then) is not "
            "supported here");
  T2O_CHECK(!list.items.empty(), "the list is empty");
  std::vector<Val> items;
  for (const Arg &a : list.items)
    items.push_back(reshape(c.b, as_tensor(c.b, a, t), {1}));
  return items.size() == 1 ? items[0] : concat0(c.b, items);
}

// The dtype numbers of the list overload compute in: int for int and bool lists.
DType list_dtype(const ConvertCtx &c) {
  const std::string &o = c.overload();
  return o.find("float") != std::string::npos ? DType::Double : DType::Int64;
}

// One reduction (ReduceMin, ReduceMax, ReduceSum) over the items of list argument "self", in
// the list overload's dtype.
Val reduce_items(ConvertCtx &c, const char *reduce) {
  DType t = list_dtype(c);
  return op_t(c.b, t, reduce, {list_items(c, "self", t)}, {{"keepdims", int64_t{0}}});
}

// min(xs) / max(xs) of a list of numbers (prim::min.self_int, prim::max.self_float, ...). The
// two-list forms (the lexicographically smaller list) give a list, not a number, and do not come
// here.
void prim_min_list(ConvertCtx &c) {
  set_num(c, reduce_items(c, "ReduceMin"),
          c.overload() == "self_bool" ? DType::Bool : list_dtype(c));
}
void prim_max_list(ConvertCtx &c) {
  set_num(c, reduce_items(c, "ReduceMax"),
          c.overload() == "self_bool" ? DType::Bool : list_dtype(c));
}

// sum(xs) of a list of numbers (bools count as ints).
void aten_sum_list(ConvertCtx &c) {
  set_num(c, reduce_items(c, "ReduceSum"), list_dtype(c));
}

// Where the list's items equal `el` (a bool per item).
Val matches(ConvertCtx &c, std::string_view list, std::string_view el) {
  DType t = list_dtype(c);
  return op_t(c.b, DType::Bool, "Equal", {list_items(c, list, t), num(c, el, t)});
}

// xs.count(v)
void aten_count_list(ConvertCtx &c) {
  Val hits = cast_to(c.b, matches(c, "self", "el"), DType::Int64);
  set_num(c, op_t(c.b, DType::Int64, "ReduceSum", {hits}, {{"keepdims", int64_t{0}}}),
          DType::Int64);
}

// xs.index(v): the first position holding v (Python raises when there is none; here it is 0).
void aten_index_list(ConvertCtx &c) {
  Val hits = cast_to(c.b, matches(c, "self", "el"), DType::Int64);
  set_num(c,
          op_t(c.b, DType::Int64, "ArgMax", {hits},
               {{"axis", int64_t{0}}, {"keepdims", int64_t{0}}}), // the first of equal maxima
          DType::Int64);
}

// v in xs
void aten_contains_list(ConvertCtx &c) {
  Val hits = cast_to(c.b, matches(c, "l", "item"), DType::Int64);
  Val any = op_t(c.b, DType::Int64, "ReduceMax", {hits}, {{"keepdims", int64_t{0}}});
  set_num(c, op_t(c.b, DType::Bool, "Greater", {any, c.b.const_i64_scalar(0)}), DType::Bool);
}

// a / b is always a float in Python.
void num_div(ConvertCtx &c) {
  set_num(c,
          op_t(c.b, DType::Double, "Div", {num(c, "a", DType::Double), num(c, "b", DType::Double)}),
          DType::Double);
}

// Python's // rounds toward minus infinity (ONNX Div on ints truncates toward zero).
void num_floordiv(ConvertCtx &c) {
  DType t = common(c);
  Val q = op_t(c.b, DType::Double, "Div", {num(c, "a", DType::Double), num(c, "b", DType::Double)});
  set_num(c, op_t(c.b, DType::Double, "Floor", {q}), result(c, t));
}

// Python's % takes the divisor's sign: a - floor(a / b) * b.
void num_remainder(ConvertCtx &c) {
  DType t = common(c);
  if (t == DType::Int64) {
    set_num(c, op_t(c.b, t, "Mod", {num(c, "a", t), num(c, "b", t)}), result(c, t));
    return;
  }
  Val a = num(c, "a", t), b = num(c, "b", t);
  Val fl = op_t(c.b, t, "Floor", {op_t(c.b, t, "Div", {a, b})});
  set_num(c, op_t(c.b, t, "Sub", {a, op_t(c.b, t, "Mul", {fl, b})}), result(c, t));
}

void num_pow(ConvertCtx &c) {
  DType t = common(c);
  Val v = op_t(c.b, DType::Double, "Pow", {num(c, "a", DType::Double), num(c, "b", DType::Double)});
  set_num(c, v, result(c, t));
}

void num_neg(ConvertCtx &c) {
  DType t = common(c);
  set_num(c, op_t(c.b, t, "Neg", {num(c, "a", t)}), result(c, t));
}

void num_abs(ConvertCtx &c) {
  DType t = common(c);
  set_num(c, op_t(c.b, t, "Abs", {num(c, "a", t)}), result(c, t));
}

void num_lt(ConvertCtx &c) {
  compare(c, "Less");
}
void num_le(ConvertCtx &c) {
  compare(c, "LessOrEqual");
}
void num_gt(ConvertCtx &c) {
  compare(c, "Greater");
}
void num_ge(ConvertCtx &c) {
  compare(c, "GreaterOrEqual");
}
void num_eq(ConvertCtx &c) {
  compare(c, "Equal");
}
void num_ne(ConvertCtx &c) {
  compare(c, "Equal", true);
}
void num_and(ConvertCtx &c) {
  logical(c, "And");
}
void num_or(ConvertCtx &c) {
  logical(c, "Or");
}
void num_xor(ConvertCtx &c) {
  logical(c, "Xor");
}
void num_not(ConvertCtx &c) {
  set_num(c, op_t(c.b, DType::Bool, "Not", {num(c, "self", DType::Bool)}), DType::Bool);
}

// __range_length(int lo, int hi, int step): len(range(lo, hi, step)), what a scripted
// `for i in range(lo, hi, step)` loops over: max(0, ceil((hi - lo) / step)) for either sign of
// step, computed as floor((hi - lo + step - sign(step)) / step) clamped at 0.
void num_range_length(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  Val lo = num(c, "lo", DType::Int64), hi = num(c, "hi", DType::Int64);
  Val step = num(c, "step", DType::Int64);
  Val span = b.op1("Sub", {b.op1("Add", {b.op1("Sub", {hi, lo}), step}), b.op1("Sign", {step})});
  Val q = b.op1("Floor",
                {b.op1("Div", {cast_to(b, span, DType::Double), cast_to(b, step, DType::Double)})});
  Val n = b.op1("Max", {cast_to(b, q, DType::Int64), b.const_i64_scalar(0)});
  set_num(c, n, DType::Int64);
}

// __derive_index(int index, int start, int step): the loop variable of range(start, _, step) at
// iteration `index`: start + index * step.
void num_derive_index(ConvertCtx &c) {
  Val i = num(c, "index", DType::Int64), start = num(c, "start", DType::Int64);
  Val step = num(c, "step", DType::Int64);
  set_num(c, c.b.op1("Add", {start, c.b.op1("Mul", {i, step})}), DType::Int64);
}

// a >> b and a << b of run-time ints: floor(a / 2^b) and a * 2^b, Python's arithmetic shifts
// (computed in double: exact below 2^53).
void num_shift(ConvertCtx &c, bool right) {
  GraphBuilder &b = c.b;
  Val p = op_t(b, DType::Double, "Pow",
               {b.const_scalar(DType::Double, 2.0), num(c, "b", DType::Double)});
  Val a = num(c, "a", DType::Double);
  Val v = right ? op_t(b, DType::Double, "Floor", {op_t(b, DType::Double, "Div", {a, p})})
                : op_t(b, DType::Double, "Mul", {a, p});
  set_num(c, v, DType::Int64);
}
void num_rshift(ConvertCtx &c) {
  num_shift(c, true);
}
void num_lshift(ConvertCtx &c) {
  num_shift(c, false);
}

// math.atan2, math.fmod, math.copysign, math.lgamma and math.gcd of numbers computed at run time:
// the tensor converter of the op on 0-d tensors (a -> self, b -> other) of dtype `compute`
// (float32 for the float functions, as the trigonometric family above).
void num_via_tensor(ConvertCtx &c, const char *op, DType compute, DType result_t) {
  std::vector<NamedArg> args = {{"self", num(c, "a", compute)}};
  if (c.takes("b"))
    args.emplace_back("other", num(c, "b", compute));
  Val y = c.call(op, args, {TensorInfo{compute, std::vector<Dim>{}}})[0].t();
  set_num(c, y, result_t);
}
void num_atan2(ConvertCtx &c) {
  num_via_tensor(c, "aten::atan2", DType::Float, DType::Double);
}
void num_fmod(ConvertCtx &c) {
  num_via_tensor(c, "aten::fmod", DType::Double, DType::Double);
}
void num_copysign(ConvertCtx &c) {
  num_via_tensor(c, "aten::copysign", DType::Float, DType::Double);
}
void num_lgamma(ConvertCtx &c) {
  num_via_tensor(c, "aten::lgamma", DType::Float, DType::Double);
}
void num_gcd(ConvertCtx &c) {
  num_via_tensor(c, "aten::gcd", DType::Int64, DType::Int64);
}

// bool(x), int(x), float(x) of a number: Cast (float -> int truncates toward zero, like Python).
void num_to_bool(ConvertCtx &c) {
  set_num(c, num(c, "a", arg_dtype(c, "a")), DType::Bool);
}
void num_to_int(ConvertCtx &c) {
  set_num(c, num(c, "a", arg_dtype(c, "a")), DType::Int64);
}
void num_to_float(ConvertCtx &c) {
  set_num(c, num(c, "a", arg_dtype(c, "a")), DType::Double);
}

// math.fabs(a), math.degrees(a), math.radians(a): always floats, also for an int a.
void aten_fabs(ConvertCtx &c) {
  set_num(c, op_t(c.b, DType::Double, "Abs", {num(c, "a", DType::Double)}), DType::Double);
}
void aten_degrees(ConvertCtx &c) {
  Val v = op_t(c.b, DType::Double, "Mul",
               {num(c, "a", DType::Double), c.b.const_scalar(DType::Double, 180.0 / M_PI)});
  set_num(c, v, DType::Double);
}
void aten_radians(ConvertCtx &c) {
  Val v = op_t(c.b, DType::Double, "Mul",
               {num(c, "a", DType::Double), c.b.const_scalar(DType::Double, M_PI / 180.0)});
  set_num(c, v, DType::Double);
}

// math.modf(a) -> (fractional part, integer part), both with a's sign: the integer part is a
// rounded toward zero.
void aten_modf(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  Val a = num(c, "a", DType::Double);
  Val neg = op_t(b, DType::Bool, "Less", {a, b.const_scalar(DType::Double, 0)});
  Val whole =
      op_t(b, DType::Double, "Where",
           {neg, op_t(b, DType::Double, "Ceil", {a}), op_t(b, DType::Double, "Floor", {a})});
  Val frac = op_t(b, DType::Double, "Sub", {a, whole});
  for (Val *v : {&frac, &whole})
    b.set_info(*v, TensorInfo{DType::Double, std::vector<Dim>{}});
  c.set_out(0, frac);
  c.set_out(1, whole);
}

// math.<fn>(x) of one number computed at run time (math.sqrt, math.ceil, math.isnan, ...; a
// constant one folds), registered as "<op>.num". `compute` is the dtype the ONNX op runs in:
// float for the trigonometric family (ONNX Runtime has no double kernels for them; a float keeps
// 1e-7 of the value, inside the tolerance), double otherwise.
struct MathFn {
  const char *op;   // "aten::sqrt"
  const char *onnx; // the ONNX op; composite ones below
  DType compute;
  DType result; // Double, Int64 (ceil, floor) or Bool (isnan, ...)
};

const std::vector<MathFn> &math_fns() {
  const DType F = DType::Float, D = DType::Double, I = DType::Int64, B = DType::Bool;
  static const std::vector<MathFn> fns = {
      {"aten::sqrt", "Sqrt", D, D},   {"aten::exp", "Exp", D, D},
      {"aten::log", "Log", D, D},     {"aten::log10", "Log10", D, D},
      {"aten::log1p", "Log1p", D, D}, {"aten::expm1", "Expm1", D, D},
      {"aten::tanh", "Tanh", D, D},   {"aten::fabs", "Abs", D, D},
      {"aten::ceil", "Ceil", D, I},   {"aten::floor", "Floor", D, I},
      {"aten::round", "Round", D, D}, {"aten::isnan", "IsNaN", D, B},
      {"aten::isinf", "IsInf", D, B}, {"aten::isfinite", "IsFinite", D, B},
      {"aten::sin", "Sin", F, D},     {"aten::cos", "Cos", F, D},
      {"aten::tan", "Tan", F, D},     {"aten::asin", "Asin", F, D},
      {"aten::acos", "Acos", F, D},   {"aten::atan", "Atan", F, D},
      {"aten::sinh", "Sinh", F, D},   {"aten::cosh", "Cosh", F, D},
      {"aten::asinh", "Asinh", F, D}, {"aten::acosh", "Acosh", F, D},
      {"aten::atanh", "Atanh", F, D}, {"aten::erf", "Erf", F, D},
      {"aten::erfc", "Erfc", F, D},
  };
  return fns;
}

// The ONNX ops a math function writes (besides the Casts around it).
std::vector<std::string> math_onnx_ops(const MathFn &f) {
  std::string o = f.onnx;
  if (o == "Log10" || o == "Log")
    return {"Log", "Div", "Cast"};
  if (o == "Log1p")
    return {"Add", "Log", "Cast"};
  if (o == "Expm1")
    return {"Exp", "Sub", "Cast"};
  if (o == "IsFinite")
    return {"IsNaN", "IsInf", "Or", "Not", "Cast"};
  if (o == "Erfc")
    return {"Erf", "Sub", "Cast"};
  return {o, "Cast"};
}

void math_number(ConvertCtx &c, const MathFn &f) {
  GraphBuilder &b = c.b;
  Val x = num(c, "a", f.compute);
  auto k = [&](double v) { return b.const_scalar(f.compute, v); };
  auto op = [&](const char *type, std::vector<Val> in) { return op_t(b, f.compute, type, in); };
  std::string o = f.onnx;
  Val y;
  if (o == "Log" && c.takes("b")) // math.log(a, base)
    y = op("Div", {op("Log", {x}), op("Log", {num(c, "b", f.compute)})});
  else if (o == "Log10")
    y = op("Div", {op("Log", {x}), k(std::log(10.0))});
  else if (o == "Log1p")
    y = op("Log", {op("Add", {x, k(1)})});
  else if (o == "Expm1")
    y = op("Sub", {op("Exp", {x}), k(1)});
  else if (o == "Erfc")
    y = op("Sub", {k(1), op("Erf", {x})});
  else if (o == "IsFinite")
    y = op_t(b, DType::Bool, "Not",
             {op_t(b, DType::Bool, "Or",
                   {op_t(b, DType::Bool, "IsNaN", {x}), op_t(b, DType::Bool, "IsInf", {x})})});
  else
    y = op_t(b, f.result == DType::Bool ? DType::Bool : f.compute, f.onnx, {x});
  set_num(c, y, f.result);
}

void register_number_ops(Registry &r) {
  for (const MathFn &f : math_fns())
    r.add(
        std::string(f.op) + ".num", 11, [&f](ConvertCtx &c) { math_number(c, f); },
        math_onnx_ops(f));
  r.add("aten::add.num", 11, num_add, {"Add"});
  r.add("aten::sub.num", 11, num_sub, {"Sub"});
  r.add("aten::mul.num", 11, num_mul, {"Mul"});
  r.add("aten::div.num", 11, num_div, {"Div"});
  r.add("aten::floordiv.num", 11, num_floordiv, {"Div", "Floor"});
  r.add("aten::remainder.num", 11, num_remainder, {"Mod", "Div", "Floor", "Mul", "Sub"});
  r.add("aten::pow.num", 11, num_pow, {"Pow"});
  r.add("aten::neg.num", 11, num_neg, {"Neg"});
  r.add("prim::abs.num", 11, num_abs, {"Abs"});
  r.add("prim::min.num", 11, num_min, {"Min", "Less", "Where"});
  r.add("prim::max.num", 11, num_max, {"Max", "Greater", "Where"});
  // Python's functions and methods on a list of numbers, its items known or computed at run time
  // (the walker's key "<op>.list"): min(xs), max(xs), sum(xs), xs.count(v), xs.index(v), v in xs.
  const std::vector<std::string> items{"Reshape", "Concat", "Cast"};
  auto with = [&](std::vector<std::string> more) {
    more.insert(more.end(), items.begin(), items.end());
    return more;
  };
  r.add("prim::min.list", 11, prim_min_list, with({"ReduceMin"}));
  r.add("prim::max.list", 11, prim_max_list, with({"ReduceMax"}));
  r.add("aten::sum.list", 11, aten_sum_list, with({"ReduceSum"}));
  r.add("aten::count.list", 11, aten_count_list, with({"Equal", "ReduceSum"}));
  r.add("aten::index.list", 11, aten_index_list, with({"Equal", "ArgMax"}));
  r.add("aten::__contains__.list", 11, aten_contains_list, with({"Equal", "ReduceMax", "Greater"}));
  r.add("aten::lt.num", 11, num_lt, {"Less"});
  r.add("aten::le.num", 11, num_le, {"LessOrEqual"});
  r.add("aten::gt.num", 11, num_gt, {"Greater"});
  r.add("aten::ge.num", 11, num_ge, {"GreaterOrEqual"});
  r.add("aten::eq.num", 11, num_eq, {"Equal"});
  r.add("aten::ne.num", 11, num_ne, {"Equal", "Not"});
  r.add("aten::__and__.num", 11, num_and, {"And", "BitwiseAnd"});
  r.add("aten::__or__.num", 11, num_or, {"Or", "BitwiseOr"});
  r.add("aten::__xor__.num", 11, num_xor, {"Xor", "BitwiseXor"});
  r.add("aten::__rshift__.num", 11, num_rshift, {"Pow", "Div", "Floor", "Cast"});
  r.add("aten::__lshift__.num", 11, num_lshift, {"Pow", "Mul", "Cast"});
  r.add("aten::atan2.num", 11, num_atan2,
        {"Atan", "Div", "Where", "Add", "Cast", "Equal", "Less", "Mul", "Sign", "And", "Or"});
  r.add("aten::fmod.num", 11, num_fmod, {"Mod", "Cast"});
  r.add("aten::copysign.num", 11, num_copysign,
        {"Abs", "Neg", "Where", "Less", "Equal", "Div", "And", "Or", "Cast"});
  r.add(
      "aten::lgamma.num", 11, num_lgamma,
      {"Cast", "Sub", "Add", "Div", "Mul", "Log", "Less", "Where", "Round", "Sin", "Abs", "IsInf"});
  r.add("aten::gcd.num", 11, num_gcd,
        {"Abs", "Sub", "Add", "Loop", "Equal", "Where", "Mod", "Not", "Cast", "ReduceMax",
         "Greater"});
  r.add("aten::__not__.num", 11, num_not, {"Not"});
  // Ops that only ever take numbers: the walker looks them up as "<op>.num"; the plain name is
  // registered too so `torch2onnx ops` and docs/operators.md list them under their own names.
  r.add("aten::__not__", 11, num_not, {"Not"});
  r.add("aten::__range_length", 11, num_range_length,
        {"Sub", "Div", "Floor", "Max", "Add", "Cast", "Sign"});
  r.add("aten::__range_length.num", 11, num_range_length, {"Sub", "Div", "Floor", "Max"});
  r.add("aten::__derive_index", 11, num_derive_index, {"Mul", "Add", "Cast"});
  r.add("aten::__derive_index.num", 11, num_derive_index, {"Mul", "Add"});
  r.add("aten::Bool.num", 11, num_to_bool, {"Cast"});
  r.add("aten::Int.num", 11, num_to_int, {"Cast"});
  r.add("aten::Float.num", 11, num_to_float, {"Cast"});
  r.add("aten::ScalarImplicit.num", 11, num_to_float, {"Cast"});
  // Only number overloads exist: registered under the op's own name.
  r.add("aten::fabs", 11, aten_fabs, {"Abs", "Cast"});
  r.add("aten::degrees", 11, aten_degrees, {"Mul", "Cast"});
  r.add("aten::radians", 11, aten_radians, {"Mul", "Cast"});
  r.add("aten::modf", 11, aten_modf, {"Less", "Ceil", "Floor", "Where", "Sub", "Cast"});
}

} // namespace torch2onnx
