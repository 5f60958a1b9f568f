// The anti-aliased resampling of F.interpolate(antialias=True):
// aten::_upsample_{bilinear,bicubic}2d_aa.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

#include <algorithm>
#include <cmath>

namespace torch2onnx {

namespace {

// The input of an upsample schema: .vec names it input, the others self.
const char *upsample_input(const ConvertCtx &c) {
  return c.overload() == "vec" ? "input" : "self";
}

// PyTorch resamples each spatial axis separately: output o gathers the inputs within `support`
// of its centre scale * (o + 0.5), weighted by the filter (triangle for bilinear, Keys cubic
// with a = -0.5 for bicubic) stretched by the scale when downsampling, weights normalized to sum
// to 1. For static sizes that is a fixed [out, in] matrix per axis, applied by MatMul; for sizes
// known only at run time the same matrix is computed in the graph (aa_matrix_graph).

double aa_filter(double x, bool cubic) {
  x = std::abs(x);
  if (!cubic)
    return std::max(0.0, 1.0 - x);
  constexpr double a = -0.5;
  if (x < 1.0)
    return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2.0)
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0.0;
}

// The [out, in] interpolation matrix of one axis. `scale` is the user's scale factor when given
// (the mapping then uses 1 / scale rather than in / out), else 0.
std::vector<double> aa_matrix(int64_t in, int64_t out, bool align_corners, double scale_factor,
                              bool cubic) {
  double scale = align_corners      ? (out > 1 ? static_cast<double>(in - 1) / (out - 1) : 0.0)
                 : scale_factor > 0 ? 1.0 / scale_factor
                                    : static_cast<double>(in) / out;
  double half = cubic ? 2.0 : 1.0; // half the filter's width at scale 1
  double support = scale >= 1.0 ? half * scale : half;
  double inv = scale >= 1.0 ? 1.0 / scale : 1.0;
  std::vector<double> m(static_cast<size_t>(out * in), 0.0);
  for (int64_t o = 0; o < out; ++o) {
    double center = scale * (o + 0.5);
    // Truncation toward zero, then clamping, as PyTorch's index range.
    int64_t lo = std::max<int64_t>(static_cast<int64_t>(center - support + 0.5), 0);
    int64_t hi = std::min<int64_t>(static_cast<int64_t>(center + support + 0.5), in);
    double total = 0;
    for (int64_t j = lo; j < hi; ++j)
      total += m[o * in + j] = aa_filter((j - center + 0.5) * inv, cubic);
    if (total != 0)
      for (int64_t j = lo; j < hi; ++j)
        m[o * in + j] /= total;
  }
  return m;
}

Val aa_constant(GraphBuilder &b, std::vector<double> m, std::vector<int64_t> dims, DType t) {
  if (t == DType::Double)
    return b.constant(TensorData::f64(std::move(m), std::move(dims)), "aa_weights");
  Val f = b.constant(TensorData::f32(std::vector<float>(m.begin(), m.end()), std::move(dims)),
                     "aa_weights");
  return cast_to(b, f, t);
}

// x [N, C, H, W] resampled to out_hw; scale factors (0 = none) as the user gave them.
Val aa_resample(ConvertCtx &c, const Val &x, const std::vector<int64_t> &out_hw,
                const std::vector<double> &factors, bool align_corners, bool cubic) {
  const TensorInfo &info = c.b.info(x);
  T2O_CHECK(info.rank() == 4, "{}: expected a 4-D input, got {}", c.op(), info.str());
  int64_t h = static_size(info, 2, c.op()), w = static_size(info, 3, c.op());
  DType t = c.b.dtype(x);
  T2O_CHECK(is_floating(t), "{}: expected a floating-point input, got {}", c.op(), info.str());
  std::vector<double> mw = aa_matrix(w, out_hw[1], align_corners, factors[1], cubic);
  std::vector<double> wt(mw.size()); // transposed: [W, out_w]
  for (int64_t o = 0; o < out_hw[1]; ++o)
    for (int64_t j = 0; j < w; ++j)
      wt[j * out_hw[1] + o] = mw[o * w + j];
  Val y = c.b.op1("MatMul", {x, aa_constant(c.b, std::move(wt), {w, out_hw[1]}, t)});
  Val mh = aa_constant(c.b, aa_matrix(h, out_hw[0], align_corners, factors[0], cubic),
                       {out_hw[0], h}, t);
  return c.b.op1("MatMul", {mh, y});
}

// Keys' cubic (a = -0.5) of |x| (x >= 0), or the triangle, in the graph.
Val aa_filter_graph(GraphBuilder &b, const Val &x, bool cubic) {
  DType d = DType::Double;
  auto k = [&](double v) { return scalar(b, d, v); };
  if (!cubic)
    return b.op1("Max", {b.op1("Sub", {k(1), x}), k(0)});
  // ((a + 2) x - (a + 3)) x x + 1 and ((a x - 5 a) x + 8 a) x - 4 a, in aa_filter's order.
  Val near = b.op1("Mul", {b.op1("Sub", {b.op1("Mul", {k(1.5), x}), k(2.5)}), x});
  near = b.op1("Add", {b.op1("Mul", {near, x}), k(1)});
  Val far = b.op1("Mul", {b.op1("Add", {b.op1("Mul", {k(-0.5), x}), k(2.5)}), x});
  far = b.op1("Add", {b.op1("Mul", {b.op1("Sub", {far, k(4)}), x}), k(2)});
  Val outer = b.op1("Where", {b.op1("Less", {x, k(2)}), far, k(0)});
  return b.op1("Where", {b.op1("Less", {x, k(1)}), near, outer});
}

// aa_matrix computed in the graph, in double, for sizes known only at run time (0-d int64
// in_size and out_size): the same operations, so the same weights as the constant one.
Val aa_matrix_graph(GraphBuilder &b, const Val &in_size, const Val &out_size, bool align_corners,
                    double scale_factor, bool cubic) {
  DType d = DType::Double;
  auto k = [&](double v) { return scalar(b, d, v); };
  Val in_f = cast_to(b, in_size, d), out_f = cast_to(b, out_size, d);
  Val scale;
  if (align_corners) { // (in - 1) / (out - 1), 0 for one output
    Val denom = b.op1("Sub", {out_f, k(1)});
    Val ratio = b.op1("Div", {b.op1("Sub", {in_f, k(1)}), b.op1("Max", {denom, k(1)})});
    scale = b.op1("Where", {b.op1("Greater", {denom, k(0)}), ratio, k(0)});
  } else {
    scale = scale_factor > 0 ? k(1.0 / scale_factor) : b.op1("Div", {in_f, out_f});
  }
  double half = cubic ? 2.0 : 1.0;
  Val down = b.op1("Not", {b.op1("Less", {scale, k(1)})});
  Val support = b.op1("Where", {down, b.op1("Mul", {scale, k(half)}), k(half)});
  Val inv = b.op1("Where", {down, b.op1("Div", {k(1), scale}), k(1)});
  Val o = unsqueeze(b, cast_to(b, iota(b, out_size), d), {1}); // [out, 1]
  Val j = unsqueeze(b, cast_to(b, iota(b, in_size), d), {0});  // [1, in]
  Val center = b.op1("Mul", {scale, b.op1("Add", {o, k(0.5)})});
  // PyTorch truncates the window's bounds toward zero and clamps them to [0, in]: a floor does
  // the same for every j in [0, in).
  Val lo = b.op1("Floor", {b.op1("Add", {b.op1("Sub", {center, support}), k(0.5)})});
  Val hi = b.op1("Floor", {b.op1("Add", {b.op1("Add", {center, support}), k(0.5)})});
  Val inside = b.op1("And", {b.op1("Not", {b.op1("Less", {j, lo})}), b.op1("Less", {j, hi})});
  Val x = b.op1("Abs", {b.op1("Mul", {b.op1("Add", {b.op1("Sub", {j, center}), k(0.5)}), inv})});
  Val w = b.op1("Where", {inside, aa_filter_graph(b, x, cubic), k(0)});
  Val total = b.op1("ReduceSum", {w, b.const_i64({1})}, {{"keepdims", int64_t{1}}});
  total = b.op1("Where", {b.op1("Equal", {total, k(0)}), k(1), total});
  return b.op1("Div", {w, total});
}

// aa_resample for sizes known only at run time: out_h, out_w 0-d int64.
Val aa_resample_graph(ConvertCtx &c, const Val &x, const Val &out_h, const Val &out_w,
                      const std::vector<double> &factors, bool align_corners, bool cubic) {
  GraphBuilder &b = c.b;
  DType t = b.dtype(x);
  T2O_CHECK(is_floating(t), "{}: expected a floating-point input, got {}", c.op(), b.info(x).str());
  Val mw = aa_matrix_graph(b, dim_scalar(b, x, 3), out_w, align_corners, factors[1], cubic);
  Val y = b.op1("MatMul", {x, cast_to(b, transpose(b, mw, {1, 0}), t)});
  Val mh = aa_matrix_graph(b, dim_scalar(b, x, 2), out_h, align_corners, factors[0], cubic);
  return b.op1("MatMul", {cast_to(b, mh, t), y});
}

// The output sizes as 0-d int64 tensors: explicit sizes, or floor(in * factor).
std::pair<Val, Val> aa_out_size_graph(ConvertCtx &c, const Val &x, const Arg &sizes,
                                      const std::vector<double> &factors) {
  GraphBuilder &b = c.b;
  if (!sizes.is_none()) {
    Val s = int_list_tensor(b, sizes);
    auto at = [&](int64_t i) {
      return b.op1("Gather", {s, b.const_i64_scalar(i)}, {{"axis", int64_t{0}}});
    };
    return {at(0), at(1)};
  }
  T2O_CHECK(factors[0] > 0 && factors[1] > 0, "{}: needs output_size or scale factors", c.op());
  auto scaled = [&](int64_t d, double f) {
    Val in = cast_to(b, dim_scalar(b, x, d), DType::Double);
    Val v = b.op1("Floor", {b.op1("Mul", {in, scalar(b, DType::Double, f)})});
    return cast_to(b, v, DType::Int64);
  };
  return {scaled(2, factors[0]), scaled(3, factors[1])};
}

// The output sizes of the 2-D upsample schemas for input x: explicit sizes, or
// floor(in * factor).
std::vector<int64_t> aa_out_size(ConvertCtx &c, const Val &x, const Arg &sizes,
                                 const std::vector<double> &factors) {
  if (!sizes.is_none())
    return sizes.to_ints();
  T2O_CHECK(factors[0] > 0 && factors[1] > 0, "{}: needs output_size or scale factors", c.op());
  const TensorInfo &info = c.b.info(x);
  return {static_cast<int64_t>(static_size(info, 2, c.op()) * factors[0]),
          static_cast<int64_t>(static_size(info, 3, c.op()) * factors[1])};
}

// _upsample_{bilinear,bicubic}2d_aa(Tensor self, SymInt[2] output_size, bool align_corners,
//                                   float? scales_h=None, float? scales_w=None)
// and the .vec overload (Tensor input, SymInt[]? output_size, bool align_corners,
//                        float[]? scale_factors).
void emit_upsample_aa(ConvertCtx &c, bool cubic) {
  std::vector<double> factors = {0, 0};
  if (c.overload() == "vec") {
    if (c.has("scale_factors")) {
      factors = c.arg<std::vector<double>>("scale_factors");
      if (factors.size() == 1)
        factors.push_back(factors[0]);
    }
  } else {
    factors = {c.arg<double>("scales_h", 0), c.arg<double>("scales_w", 0)};
  }
  const Val &x = c.tensor(upsample_input(c));
  const Arg &sizes = c.arg("output_size");
  const TensorInfo &info = c.b.info(x);
  bool align = c.arg<bool>("align_corners");
  T2O_CHECK(info.rank() == 4, "{}: expected a 4-D input, got {}", c.op(), info.str());
  bool known = (*info.shape)[2].is_static() && (*info.shape)[3].is_static() &&
               (sizes.is_none() || !has_runtime_items(sizes));
  if (!known) { // timm's position grid resized to a runtime image's patch grid
    auto [out_h, out_w] = aa_out_size_graph(c, x, sizes, factors);
    c.set_out(0, aa_resample_graph(c, x, out_h, out_w, factors, align, cubic));
    return;
  }
  std::vector<int64_t> out = aa_out_size(c, x, sizes, factors);
  c.set_out(0, aa_resample(c, x, out, factors, align, cubic));
}

} // namespace

void aten__upsample_bilinear2d_aa(ConvertCtx &c) {
  emit_upsample_aa(c, false);
}
void aten__upsample_bicubic2d_aa(ConvertCtx &c) {
  emit_upsample_aa(c, true);
}

void register_antialias_ops(Registry &r) {
  // Sizes known only at run time: the weights computed in the graph (aa_matrix_graph).
  const std::vector<std::string> aa = {
      "MatMul",    "Abs",     "Add",     "And",  "Cast",      "Concat",    "Div",  "Equal",
      "Floor",     "Gather",  "Greater", "Less", "Max",       "Mul",       "Not",  "Range",
      "ReduceSum", "Reshape", "Shape",   "Sub",  "Transpose", "Unsqueeze", "Where"};
  r.add("aten::_upsample_bilinear2d_aa", 11, aten__upsample_bilinear2d_aa, aa);
  r.add("aten::_upsample_bicubic2d_aa", 11, aten__upsample_bicubic2d_aa, aa);
}

} // namespace torch2onnx
