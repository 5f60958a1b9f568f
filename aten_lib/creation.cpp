// Tensor creation: aten::eye, linspace, arange, zeros/ones/full(_like), new_zeros/ones/full,
// empty*, tensor/scalar_tensor, fill/copy/zero_,
// broadcast_to/_tensors, atleast_Nd, random ops (rand*, randn*, randint*, normal, bernoulli,
// multinomial) and window functions. The walker folds calls whose arguments are all constants;
// these converters handle runtime arguments.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

#include <cmath>
#include <functional>

namespace torch2onnx {

namespace {

// A 0-d int64 from an Int constant or a runtime number.
Val int_scalar(GraphBuilder &b, const Arg &a) {
  if (!a.is_tensor())
    return b.const_i64_scalar(a.to_int());
  return reshape(b, cast_to(b, a.t(), DType::Int64), {});
}

// A 0-d tensor of dtype t from a number or a runtime number.
Val num_scalar(GraphBuilder &b, const Arg &a, DType t) {
  if (!a.is_tensor())
    return b.const_scalar(t, a.to_double());
  return reshape(b, cast_to(b, a.t(), t), {});
}

Val zeros(GraphBuilder &b, const Val &shape, DType t) {
  TensorData v = TensorData::scalar(t, 0);
  v.dims = {1};
  return b.op1("ConstantOfShape", {shape}, {{"value", v}});
}

// The dtype random generators can produce directly.
DType random_type(DType t) {
  return t == DType::Double || t == DType::Float16 ? t : DType::Float;
}

} // namespace

// eye(n[, m], dtype, ...)
void aten_eye(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  bool has_m = c.overload() == "m";
  Val n = int_scalar(b, c.arg("n"));
  Val m = has_m ? int_scalar(b, c.arg("m")) : n;
  Val eq = b.op1("Equal", {unsqueeze(b, iota(b, n), {1}), unsqueeze(b, iota(b, m), {0})});
  c.set_out(0, cast_to(b, eq, out_dtype(c)));
}

// linspace(start, end, steps, ...): LibTorch fills the first half from start and the second
// half back from end; doing the same keeps the endpoints exact.
void aten_linspace(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  DType dt = out_dtype(c);
  DType k = is_floating(dt) && dt != DType::Float16 && dt != DType::BFloat16 ? dt : DType::Double;
  if (!is_floating(dt))
    k = DType::Double;
  Val start = num_scalar(b, c.arg("start"), k), end = num_scalar(b, c.arg("end"), k);
  Val steps = int_scalar(b, c.arg("steps"));
  Val i = iota(b, steps);
  Val denom = b.op1("Max", {b.op1("Sub", {steps, b.const_i64_scalar(1)}), b.const_i64_scalar(1)});
  Val step = b.op1("Div", {b.op1("Sub", {end, start}), cast_to(b, denom, k)});
  Val half = b.op1("Max", {b.op1("Div", {steps, b.const_i64_scalar(2)}), b.const_i64_scalar(1)});
  Val fi = cast_to(b, i, k);
  Val lo = b.op1("Add", {start, b.op1("Mul", {step, fi})});
  Val back = cast_to(b, b.op1("Sub", {b.op1("Sub", {steps, i}), b.const_i64_scalar(1)}), k);
  Val hi = b.op1("Sub", {end, b.op1("Mul", {step, back})});
  Val y = b.op1("Where", {b.op1("Less", {i, half}), lo, hi});
  c.set_out(0, cast_to(b, y, dt));
}

// empty / new_empty / empty_strided / new_empty_strided / empty_like: the values are
// undefined, so zeros are as good as any.
void aten_empty(ConvertCtx &c) {
  Val shape =
      c.op() == "aten::empty_like" ? shape_of(c.b, c.tensor("self")) : out_shape(c, c.arg("size"));
  c.set_out(0, zeros(c.b, shape, out_dtype(c)));
}

// tensor(data, dtype, device, requires_grad) / as_tensor.list: data holds runtime numbers.
void aten_tensor(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  DType dt = out_dtype(c);
  // tensor.float(float t, ...) and the like name it t; tensor(t[] data, ...), as_tensor data.
  const Arg &data = c.arg(c.takes("data") ? "data" : "t");
  if (data.is_tensor()) { // as_tensor(Tensor data, dtype, device)
    c.set_out(0, cast_to(b, data.t(), dt));
    return;
  }
  if (!data.is_list()) {
    c.set_out(0, num_scalar(b, data, dt));
    return;
  }
  std::vector<Val> flat;
  std::vector<int64_t> shape;
  std::function<void(const Arg &, size_t)> walk = [&](const Arg &a, size_t depth) {
    if (a.is_list()) {
      if (shape.size() <= depth)
        shape.push_back(static_cast<int64_t>(a.items.size()));
      for (const auto &it : a.items)
        walk(it, depth + 1);
      return;
    }
    flat.push_back(reshape(b, num_scalar(b, a, dt), {1}));
  };
  walk(data, 0);
  T2O_CHECK(!flat.empty(), "{} of an empty list reaches a converter only with constant data",
            c.op());
  Val y = flat.size() == 1 ? flat[0] : b.op1("Concat", flat, {{"axis", int64_t{0}}});
  c.set_out(0, shape.size() == 1 ? y : reshape(b, y, shape));
}

void aten_scalar_tensor(ConvertCtx &c) {
  c.set_out(0, num_scalar(c.b, c.arg("s"), out_dtype(c)));
}

// fill(self, value) / fill_: value is a number or a 0-d tensor.
void aten_fill(ConvertCtx &c) {
  DType dt = out_dtype(c);
  Val v = c.arg("value").is_tensor() ? reshape(c.b, cast_to(c.b, c.tensor("value"), dt), {})
                                     : c.b.const_scalar(dt, c.arg<double>("value"));
  c.set_out(0, c.b.op1("Expand", {v, shape_of(c.b, c.tensor("self"))}));
}

// copy(self, src) / copy_ (copy_.Tensor names it other): src broadcast to self's shape and dtype.
void aten_copy(ConvertCtx &c) {
  DType dt = c.b.dtype(c.tensor("self"));
  Val src = c.tensor(c.takes("src") ? "src" : "other");
  c.set_out(0, c.b.op1("Expand", {cast_to(c.b, src, dt), shape_of(c.b, c.tensor("self"))}));
}

void aten_zero(ConvertCtx &c) {
  c.set_out(0, zeros(c.b, shape_of(c.b, c.tensor("self")), c.b.dtype(c.tensor("self"))));
}

void aten_identity_copy(ConvertCtx &c) {
  c.set_out(0, c.tensor("self"));
}

void aten_to_copy(ConvertCtx &c) {
  c.set_out(0, cast_to(c.b, c.tensor("self"), out_dtype(c)));
}

void aten_reshape_from_tensor(ConvertCtx &c) {
  c.set_out(0,
            c.b.op1("Reshape", {c.tensor("self"), cast_to(c.b, c.tensor("shape"), DType::Int64)}));
}

void aten_shape_as_tensor(ConvertCtx &c) {
  c.set_out(0, shape_of(c.b, c.tensor("self")));
}

// _dim_arange(like, dim) = arange(like.size(dim))
void aten_dim_arange(ConvertCtx &c) {
  int64_t d = norm_axis(c.arg<int64_t>("dim"), c.info("like").rank());
  Val n = c.b.op1("Gather", {shape_of(c.b, c.tensor("like")), c.b.const_i64_scalar(d)},
                  {{"axis", int64_t{0}}});
  c.set_out(0, cast_to(c.b, iota(c.b, n), out_dtype(c)));
}

// broadcast_to(self, size): -1 keeps a dim; Expand keeps it for a 1 too.
void aten_broadcast_to(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  Val shape;
  if (c.out_info(0).is_static()) {
    shape = b.const_i64(c.out_info(0).sizes());
  } else {
    shape = int_list_tensor(b, c.arg("size"));
    Val keep = b.op1("Less", {shape, b.const_i64_scalar(0)});
    shape = b.op1("Where", {keep, b.const_i64_scalar(1), shape});
  }
  c.set_out(0, b.op1("Expand", {c.tensor("self"), shape}));
}

// broadcast_tensors(tensors): Expand both ways gives the common shape step by step.
void aten_broadcast_tensors(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  const auto &items = c.list("tensors");
  Val shape = shape_of(b, items[0].t());
  for (size_t i = 1; i < items.size(); ++i)
    shape = shape_of(b, b.op1("Expand", {items[i].t(), shape}));
  std::vector<Arg> outs;
  for (const auto &it : items) {
    Val v = b.op1("Expand", {it.t(), shape});
    TensorInfo info;
    info.dtype = b.dtype(it.t());
    b.set_info(v, info);
    outs.push_back(Arg::of_tensor(v));
  }
  c.set_out(0, Arg::of_list(std::move(outs)));
}

namespace {
Val at_least(GraphBuilder &b, const Val &x, int n) {
  int64_t r = b.rank(x);
  T2O_CHECK(r >= 0, "atleast_{}d needs the rank of its input", n);
  if (r >= n)
    return x;
  if (r == 0)
    return reshape(b, x, std::vector<int64_t>(n, 1));
  if (n == 2)
    return unsqueeze(b, x, {0}); // [N] -> [1, N]
  if (r == 1)
    return unsqueeze(b, x, {0, 2}); // [N] -> [1, N, 1]
  return unsqueeze(b, x, {2});      // [M, N] -> [M, N, 1]
}

// atleast_Nd(self) / atleast_Nd.Sequence(tensors).
void emit_at_least(ConvertCtx &c, int n) {
  if (!c.takes("tensors")) {
    c.set_out(0, at_least(c.b, c.tensor("self"), n));
    return;
  }
  std::vector<Arg> outs;
  for (const auto &it : c.list("tensors")) {
    Val v = at_least(c.b, it.t(), n);
    TensorInfo info;
    info.dtype = c.b.dtype(it.t());
    c.b.set_info(v, info);
    outs.push_back(Arg::of_tensor(v));
  }
  c.set_out(0, Arg::of_list(std::move(outs)));
}
} // namespace

void aten_atleast_1d(ConvertCtx &c) {
  emit_at_least(c, 1);
}
void aten_atleast_2d(ConvertCtx &c) {
  emit_at_least(c, 2);
}
void aten_atleast_3d(ConvertCtx &c) {
  emit_at_least(c, 3);
}

namespace {
// Uniform [0, 1) or standard normal values shaped like `like` (or of the output's static
// shape when there is no template).
Val random(ConvertCtx &c, bool normal, const Val *like, const Arg *size, DType t) {
  GraphBuilder &b = c.b;
  std::vector<Attr> attrs{{"dtype", static_cast<int64_t>(t)}};
  if (normal) {
    attrs.emplace_back("mean", 0.0);
    attrs.emplace_back("scale", 1.0);
  } else {
    attrs.emplace_back("low", 0.0);
    attrs.emplace_back("high", 1.0);
  }
  if (!like && c.out_info(0).is_static()) {
    attrs.emplace_back("shape", c.out_info(0).sizes());
    return b.op1(normal ? "RandomNormal" : "RandomUniform", {}, attrs);
  }
  Val tmpl = like ? *like : zeros(b, out_shape(c, *size), t);
  return b.op1(normal ? "RandomNormalLike" : "RandomUniformLike", {tmpl}, attrs);
}
} // namespace

// rand(size, [generator,] dtype, ...) / randn
void aten_rand(ConvertCtx &c) {
  DType dt = out_dtype(c);
  Arg size = c.arg("size");
  bool normal = c.op() == "aten::randn";
  c.set_out(0, cast_to(c.b, random(c, normal, nullptr, &size, random_type(dt)), dt));
}

void aten_rand_like(ConvertCtx &c) {
  DType dt = out_dtype(c);
  Val x = c.tensor("self");
  bool normal = c.op() == "aten::randn_like";
  c.set_out(0, cast_to(c.b, random(c, normal, &x, nullptr, random_type(dt)), dt));
}

namespace {
// floor(low + (high - low) * U), kept below high against rounding.
Val random_int(ConvertCtx &c, const Val &u, const Arg &low, const Arg &high) {
  GraphBuilder &b = c.b;
  Val lo = num_scalar(b, low, DType::Double), hi = num_scalar(b, high, DType::Double);
  Val v = b.op1(
      "Floor",
      {b.op1("Add", {lo, b.op1("Mul", {cast_to(b, u, DType::Double), b.op1("Sub", {hi, lo})})})});
  v = b.op1("Min", {v, b.op1("Sub", {hi, b.const_scalar(DType::Double, 1)})});
  return cast_to(b, v, out_dtype(c));
}
} // namespace

// randint(high, size, ...) / randint.low(low, high, size, ...) (+ .generator variants)
void aten_randint(ConvertCtx &c) {
  bool low = c.overload().rfind("low", 0) == 0;
  Arg size = c.arg("size");
  Val u = random(c, false, nullptr, &size, DType::Float);
  c.set_out(0, random_int(c, u, low ? c.arg("low") : Arg::of_int(0), c.arg("high")));
}

// randint_like(self, high, ...) / randint_like.low_dtype(self, low, high, ...)
void aten_randint_like(ConvertCtx &c) {
  bool low = c.overload() == "low_dtype";
  Val x = c.tensor("self");
  Val u = random(c, false, &x, nullptr, DType::Float);
  c.set_out(0, random_int(c, u, low ? c.arg("low") : Arg::of_int(0), c.arg("high")));
}

// normal.Tensor_float / float_Tensor / Tensor_Tensor / float_float(mean, std, size),
// normal_functional(self, mean, std).
void aten_normal(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  DType dt = out_dtype(c);
  DType k = random_type(dt);
  bool functional = c.op() == "aten::normal_functional";
  const Arg &mean = c.arg("mean");
  const Arg &stdv = c.arg("std");
  Val z;
  if (functional) {
    Val x = c.tensor("self");
    z = random(c, true, &x, nullptr, k);
  } else if (c.overload() == "float_float") {
    Arg size = c.arg("size");
    z = random(c, true, nullptr, &size, k);
  } else {
    Val m = as_tensor(b, mean, k), s = as_tensor(b, stdv, k);
    Val like = b.op1(
        "Add", {b.op1("Mul", {m, b.const_scalar(k, 0)}), b.op1("Mul", {s, b.const_scalar(k, 0)})});
    z = random(c, true, &like, nullptr, k);
  }
  Val y = b.op1("Add", {b.op1("Mul", {z, as_tensor(b, stdv, k)}), as_tensor(b, mean, k)});
  c.set_out(0, cast_to(b, y, dt));
}

// bernoulli(self) (p = self) / bernoulli.p(self, p) / bernoulli_(self, p: float or tensor).
void aten_bernoulli(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  DType dt = out_dtype(c);
  Val x = c.tensor("self");
  Val u = random(c, false, &x, nullptr, DType::Float);
  Val p;
  if (c.op() == "aten::bernoulli" && c.overload().empty())
    p = cast_to(b, x, DType::Float);
  else
    p = c.has("p") ? as_tensor(b, c.arg("p"), DType::Float) : b.const_scalar(DType::Float, 0.5);
  Val y = b.op1("Less", {u, p});
  // bernoulli_(self, p) keeps self's shape even when p would broadcast wider.
  c.set_out(0, cast_to(b, y, dt));
}

// _standard_gamma(Tensor self, Generator?) and _sample_dirichlet(Tensor self, Generator?) are
// refused on purpose: ONNX has uniform, normal, Bernoulli and multinomial draws but no Gamma
// sampler, and the rejection loop PyTorch runs per element (Marsaglia-Tsang) has no faithful
// fixed-size graph; a Dirichlet draw is normalized Gamma draws. Registered so the user gets this
// reason rather than "no converter".
void refuse_gamma_sampling(ConvertCtx &c) {
  throw Error(fmt::format("{} draws Gamma-distributed random numbers, which ONNX cannot: it has "
                          "no Gamma sampler (only uniform, normal, Bernoulli and multinomial)",
                          c.op()),
              "sample outside the exported model (e.g. pass the samples in as an input), or "
              "export the deterministic part only (torch.distributions' mean instead of "
              "sample())");
}
void aten__standard_gamma(ConvertCtx &c) {
  refuse_gamma_sampling(c);
}
void aten__sample_dirichlet(ConvertCtx &c) {
  refuse_gamma_sampling(c);
}

// multinomial(self, num_samples, replacement): with replacement, ONNX Multinomial on log(p);
// without, the Gumbel top-k trick, an exact draw without replacement.
void aten_multinomial(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  int64_t r = c.info("self").rank();
  Val p = cast_to(b, c.tensor("self"), DType::Float);
  if (r == 1)
    p = unsqueeze(b, p, {0});
  int64_t n = c.arg<int64_t>("num_samples");
  bool replacement = c.arg<bool>("replacement", false);
  Val logp = b.op1("Log", {p});
  Val idx;
  if (replacement) {
    idx = b.op1("Multinomial", {logp}, {{"sample_size", n}, {"dtype", int64_t{7}}});
  } else {
    Val u = b.op1("RandomUniformLike", {p}, {{"low", 1e-20}, {"high", 1.0}});
    Val gumbel = b.op1("Neg", {b.op1("Log", {b.op1("Neg", {b.op1("Log", {u})})})});
    auto outs = b.op("TopK", {b.op1("Add", {logp, gumbel}), b.const_i64({n})},
                     {{"axis", int64_t{-1}}, {"largest", int64_t{1}}, {"sorted", int64_t{1}}}, 2);
    idx = outs[1];
  }
  if (r == 1)
    idx = squeeze(b, idx, {0});
  c.set_out(0, cast_to(b, idx, DType::Int64));
}

namespace {
// a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), N = length (periodic) or length - 1.
void emit_window(ConvertCtx &c, double a0, double a1, double a2) {
  GraphBuilder &b = c.b;
  DType dt = out_dtype(c);
  DType k = DType::Float; // ONNX Runtime's Cos is float-only
  Val len = int_scalar(b, c.arg("window_length"));
  bool periodic = !c.takes("periodic") || c.arg<bool>("periodic");
  Val denom = periodic ? len : b.op1("Sub", {len, b.const_i64_scalar(1)});
  denom = cast_to(b, b.op1("Max", {denom, b.const_i64_scalar(1)}), k);
  Val phase = b.op1(
      "Div", {b.op1("Mul", {cast_to(b, iota(b, len), k), b.const_scalar(k, 2 * M_PI)}), denom});
  Val y = b.op1(
      "Sub", {b.const_scalar(k, a0), b.op1("Mul", {b.const_scalar(k, a1), b.op1("Cos", {phase})})});
  if (a2 != 0)
    y = b.op1("Add",
              {y, b.op1("Mul", {b.const_scalar(k, a2),
                                b.op1("Cos", {b.op1("Mul", {phase, b.const_scalar(k, 2)})})})});
  // A window of length 1 is [1].
  Val one = b.op1("Equal", {len, b.const_i64_scalar(1)});
  y = b.op1("Where", {one, b.const_scalar(k, 1), y});
  c.set_out(0, cast_to(b, y, dt));
}
} // namespace

void aten_hann_window(ConvertCtx &c) {
  emit_window(c, 0.5, 0.5, 0);
}
void aten_blackman_window(ConvertCtx &c) {
  emit_window(c, 0.42, 0.5, 0.08);
}
// hamming_window(length, periodic, alpha=0.54, beta=0.46): the overloads without alpha or beta
// (hamming_window, .periodic, .periodic_alpha) use these defaults.
void aten_hamming_window(ConvertCtx &c) {
  double alpha = c.takes("alpha") ? c.arg<double>("alpha") : 0.54;
  double beta = c.takes("beta") ? c.arg<double>("beta") : 0.46;
  emit_window(c, alpha, beta, 0);
}

namespace {
// ConstantOfShape with the output's dtype; `shape` is a 1-D int64 tensor.
Val filled(ConvertCtx &c, const Val &shape, const Arg &value) {
  DType dt = out_dtype(c);
  if (value.is_tensor())
    return c.b.op1("Expand", {cast_to(c.b, value.t(), dt), shape});
  TensorData v = TensorData::scalar(dt, value.to_double());
  v.dims = {1};
  return c.b.op1("ConstantOfShape", {shape}, {{"value", v}});
}

Val like_shape(ConvertCtx &c) {
  if (c.out_info(0).is_static())
    return c.b.const_i64(c.out_info(0).sizes());
  return c.b.op1("Shape", {c.tensor("self")});
}
} // namespace

void aten_zeros_like(ConvertCtx &c) {
  c.set_out(0, filled(c, like_shape(c), Arg::of_int(0)));
}
void aten_ones_like(ConvertCtx &c) {
  c.set_out(0, filled(c, like_shape(c), Arg::of_int(1)));
}
void aten_full_like(ConvertCtx &c) {
  c.set_out(0, filled(c, like_shape(c), c.arg("fill_value")));
}

// new_zeros(self, size) / zeros(size): the walker folds constant sizes, so the size list here
// holds runtime values.
void aten_new_zeros(ConvertCtx &c) {
  c.set_out(0, filled(c, out_shape(c, c.arg("size")), Arg::of_int(0)));
}
void aten_new_ones(ConvertCtx &c) {
  c.set_out(0, filled(c, out_shape(c, c.arg("size")), Arg::of_int(1)));
}
void aten_new_full(ConvertCtx &c) {
  c.set_out(0, filled(c, out_shape(c, c.arg("size")), c.arg("fill_value")));
}

// arange(end, ...), arange.start(start, end, ...), arange.start_step(start, end, step, ...) with
// runtime bounds.
void aten_arange(ConvertCtx &c) {
  DType dt = out_dtype(c);
  auto bound = [&](const char *name, double def) {
    if (!c.takes(name))
      return c.b.const_scalar(dt, def);
    const Arg &a = c.arg(name);
    return a.is_tensor() ? reshape(c.b, cast_to(c.b, a.t(), dt), {})
                         : c.b.const_scalar(dt, a.to_double());
  };
  Val start = bound("start", 0);
  Val end = bound("end", 0);
  Val step = bound("step", 1);
  c.set_out(0, c.b.op1("Range", {start, end, step}));
}

void register_creation_ops(Registry &r) {
  r.add("aten::zeros_like", 11, aten_zeros_like, {"ConstantOfShape"});
  r.add("aten::ones_like", 11, aten_ones_like, {"ConstantOfShape"});
  r.add("aten::full_like", 11, aten_full_like, {"ConstantOfShape"});
  r.add("aten::new_zeros", 11, aten_new_zeros, {"ConstantOfShape"});
  r.add("aten::new_ones", 11, aten_new_ones, {"ConstantOfShape"});
  r.add("aten::new_full", 11, aten_new_full, {"ConstantOfShape"});
  r.add("aten::zeros", 11, aten_new_zeros, {"ConstantOfShape", "Concat", "Reshape", "Cast"});
  r.add("aten::ones", 11, aten_new_ones, {"ConstantOfShape", "Concat", "Reshape", "Cast"});
  r.add("aten::full", 11, aten_new_full,
        {"ConstantOfShape", "Cast", "Expand", "Concat", "Reshape"});
  r.add("aten::arange", 11, aten_arange, {"Range", "Reshape"});
  r.add("aten::eye", 11, aten_eye, {"Range", "Equal", "Cast", "Reshape", "Unsqueeze"});
  r.add(
      "aten::linspace", 11, aten_linspace,
      {"Range", "Where", "Add", "Cast", "Div", "Greater", "Less", "Max", "Mul", "Reshape", "Sub"});
  for (const char *op : {"aten::empty", "aten::empty_like", "aten::new_empty",
                         "aten::new_empty_strided", "aten::empty_strided"})
    r.add(op, 11, aten_empty, {"ConstantOfShape", "Shape"});
  r.add("aten::tensor", 11, aten_tensor, {"Concat", "Cast", "Reshape"});
  r.add("aten::as_tensor", 11, aten_tensor, {"Concat", "Cast"});
  r.add("aten::scalar_tensor", 11, aten_scalar_tensor, {"Cast", "Reshape"});
  r.add_with_inplace(
      "aten::fill", 11, aten_fill,
      {"Concat", "Slice", "Expand", "Cast",    "Reshape",        "Shape", "Add", "And",
       "Div",    "Equal", "Gather", "Greater", "GreaterOrEqual", "Less",  "Max", "Min",
       "Mod",    "Or",    "Range",  "Sub",     "Where"});
  r.add_with_inplace("aten::copy", 11, aten_copy,
                     {"Concat",  "Slice", "Expand",    "Cast",   "Shape",   "Add",
                      "And",     "Div",   "Equal",     "Gather", "Greater", "GreaterOrEqual",
                      "Less",    "Max",   "Min",       "Mod",    "Or",      "Range",
                      "Reshape", "Sub",   "Unsqueeze", "Where"});
  r.add_with_inplace(
      "aten::zero", 11, aten_zero,
      {"Concat", "Slice",  "ConstantOfShape", "Shape",          "Add",  "And",  "Div",
       "Equal",  "Gather", "Greater",         "GreaterOrEqual", "Less", "Max",  "Min",
       "Mod",    "Or",     "Range",           "Reshape",        "Sub",  "Where"});
  r.add("aten::lift", 11, aten_identity_copy, {});
  r.add("aten::lift_fresh", 11, aten_identity_copy, {});
  r.add("aten::lift_fresh_copy", 11, aten_identity_copy, {});
  r.add("aten::_to_copy", 11, aten_to_copy, {"Cast"});
  r.add("aten::_reshape_from_tensor", 11, aten_reshape_from_tensor, {"Reshape"});
  r.add("aten::_shape_as_tensor", 11, aten_shape_as_tensor, {"Shape"});
  r.add("aten::_dim_arange", 11, aten_dim_arange, {"Shape", "Range", "Cast", "Gather"});
  r.add("aten::broadcast_to", 11, aten_broadcast_to, {"Expand"});
  r.add("aten::broadcast_tensors", 11, aten_broadcast_tensors, {"Expand", "Shape"});
  r.add("aten::atleast_1d", 11, aten_atleast_1d, {"Reshape"});
  r.add("aten::atleast_2d", 11, aten_atleast_2d, {"Reshape", "Unsqueeze"});
  r.add("aten::atleast_3d", 11, aten_atleast_3d, {"Reshape", "Unsqueeze"});
  r.add("aten::rand", 11, aten_rand, {"RandomUniform", "RandomUniformLike", "Cast"});
  r.add("aten::randn", 11, aten_rand, {"RandomNormal", "RandomNormalLike", "Cast"});
  r.add("aten::rand_like", 11, aten_rand_like, {"RandomUniformLike", "Cast"});
  r.add("aten::randn_like", 11, aten_rand_like, {"RandomNormalLike", "Cast"});
  r.add("aten::randint", 11, aten_randint,
        {"RandomUniform", "Floor", "Add", "Cast", "Min", "Mul", "Sub"});
  r.add("aten::randint_like", 11, aten_randint_like,
        {"RandomUniformLike", "Floor", "Add", "Cast", "Min", "Mul", "Sub"});
  r.add("aten::normal", 11, aten_normal,
        {"RandomNormal", "RandomNormalLike", "Add", "Cast", "Mul"});
  r.add("aten::normal_functional", 11, aten_normal, {"RandomNormalLike", "Add", "Cast", "Mul"});
  r.add_with_inplace("aten::bernoulli", 11, aten_bernoulli, {"RandomUniformLike", "Less", "Cast"});
  r.add("aten::multinomial", 11, aten_multinomial,
        {"Multinomial", "TopK", "Add", "Cast", "Log", "Neg", "RandomUniformLike", "Squeeze",
         "Unsqueeze"});
  // Refusals with a reason (see refuse_gamma_sampling).
  r.add("aten::_standard_gamma", 11, aten__standard_gamma, {});
  r.add("aten::_sample_dirichlet", 11, aten__sample_dirichlet, {});
  r.add(
      "aten::hann_window", 11, aten_hann_window,
      {"Range", "Cos", "Cast", "Div", "Equal", "Greater", "Max", "Mul", "Reshape", "Sub", "Where"});
  r.add(
      "aten::hamming_window", 11, aten_hamming_window,
      {"Range", "Cos", "Cast", "Div", "Equal", "Greater", "Max", "Mul", "Reshape", "Sub", "Where"});
  r.add("aten::blackman_window", 11, aten_blackman_window,
        {"Range", "Cos", "Add", "Cast", "Div", "Equal", "Greater", "Max", "Mul", "Reshape", "Sub",
         "Where"});
}

} // namespace torch2onnx
