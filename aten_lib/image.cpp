// Image ops: aten::upsample_{nearest,linear,bilinear,trilinear,bicubic}*, __interpolate,
// grid_sampler, pixel_(un)shuffle, channel_shuffle, im2col, col2im.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace torch2onnx {

namespace {

// Resize of the last `nd` dims to the given scales (mapping output to input with them) or,
// without scales, to `sizes` (mapping with in/out), as LibTorch does.
namespace {

// Nearest resampling as LibTorch computes it: output index o of a dim reads input
// min(floor(o * s), in - 1), in float32, with s = float(1 / scale_factor) when a scale factor is
// given (`size` null), else float(in) / float(out). ONNX Resize (asymmetric, floor) divides by its
// scale instead (o / (out / in)), which differs at exact boundaries: 14 -> 8 reads 7 at o = 4 in
// LibTorch (4 * 1.75) and 6 in ONNX Runtime (4 / 0.5714286 = 6.9999995).

// A dim's input and output sizes when both are known at export time.
struct KnownSizes {
  int64_t in = 0, out = 0;
};
std::optional<KnownSizes> known_sizes(const GraphBuilder &b, const Val &x, int64_t axis,
                                      double scale_factor, const Arg *size) {
  const Dim &in = (*b.info(x).shape)[static_cast<size_t>(axis)];
  if (!in.is_static() || (size && size->is_tensor()))
    return std::nullopt;
  int64_t out =
      size ? size->to_int() : static_cast<int64_t>(static_cast<double>(in.value) * scale_factor);
  return KnownSizes{in.value, out};
}

// LibTorch's source index of each output position of a dim of known sizes; `exact`
// (nearest-exact) reads at the pixel centre: floor((o + 0.5) * s).
std::vector<int64_t> torch_nearest(const KnownSizes &k, double scale_factor, bool by_size,
                                   bool exact) {
  const float s = by_size ? static_cast<float>(k.in) / static_cast<float>(k.out)
                          : static_cast<float>(1.0 / scale_factor);
  std::vector<int64_t> idx;
  for (int64_t o = 0; o < k.out; ++o) {
    float at = static_cast<float>(o) + (exact ? 0.5f : 0.0f);
    idx.push_back(std::min(static_cast<int64_t>(std::floor(at * s)), k.in - 1));
  }
  return idx;
}

// Whether Resize reads the same inputs as LibTorch on this dim: compared for known sizes; with
// a runtime size only for a power-of-two scale factor (1 / 2^k and 2^k are exact, so
// o * 2^-k == o / 2^k). Adds nothing to the graph.
bool resize_matches(const GraphBuilder &b, const Val &x, int64_t axis, double scale_factor,
                    const Arg *size) {
  if (std::optional<KnownSizes> k = known_sizes(b, x, axis, scale_factor, size)) {
    const float ort = size ? static_cast<float>(k->out) / static_cast<float>(k->in)
                           : static_cast<float>(scale_factor);
    std::vector<int64_t> torch = torch_nearest(*k, scale_factor, size != nullptr, false);
    for (int64_t o = 0; o < k->out; ++o)
      if (std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) / ort)), k->in - 1) !=
          torch[static_cast<size_t>(o)])
        return false;
    return true;
  }
  return !size && scale_factor > 0 &&
         std::exp2(std::round(std::log2(scale_factor))) == scale_factor;
}

// LibTorch's source indices of a dim, int64 [out]: a constant for known sizes, else computed in
// float32 at run time.
Val nearest_index(GraphBuilder &b, const Val &x, int64_t axis, double scale_factor, const Arg *size,
                  bool exact) {
  if (std::optional<KnownSizes> k = known_sizes(b, x, axis, scale_factor, size))
    return b.const_i64(torch_nearest(*k, scale_factor, size != nullptr, exact));
  Val n_in = dim_scalar(b, x, axis);
  Val n_out =
      size ? (size->is_tensor() ? reshape(b, cast_to(b, size->t(), DType::Int64), {})
                                : b.const_i64_scalar(size->to_int()))
           : b.op1("Cast",
                   {b.op1("Floor", {b.op1("Mul", {cast_to(b, n_in, DType::Double),
                                                  b.const_scalar(DType::Double, scale_factor)})})},
                   {{"to", static_cast<int64_t>(DType::Int64)}});
  Val s = size ? b.op1("Div", {cast_to(b, n_in, DType::Float), cast_to(b, n_out, DType::Float)})
               : b.const_scalar(DType::Float, static_cast<float>(1.0 / scale_factor));
  Val at = cast_to(b, iota(b, n_out), DType::Float);
  if (exact)
    at = b.op1("Add", {at, b.const_scalar(DType::Float, 0.5)});
  Val pos = b.op1("Floor", {b.op1("Mul", {at, s})});
  return b.op1("Min", {cast_to(b, pos, DType::Int64), b.op1("Sub", {n_in, b.const_i64_scalar(1)})});
}

// Nearest: one Resize when it reads the same inputs as LibTorch on every dim, else a Gather per
// dim of LibTorch's indices (always for nearest-exact: Resize's half_pixel divides by its scale,
// LibTorch multiplies).
std::optional<Val> nearest_gathers(ConvertCtx &c, const Val &x, int64_t nd,
                                   const std::vector<double> &scales, const Arg &sizes,
                                   bool exact) {
  GraphBuilder &b = c.b;
  if (scales.empty())
    T2O_CHECK(sizes.is_list() && !sizes.items.empty(), "{}: needs output_size or scale factors",
              c.op());
  auto size_of = [&](int64_t d) -> const Arg * {
    return scales.empty() ? &sizes.items[sizes.items.size() == 1 ? 0 : static_cast<size_t>(d)]
                          : nullptr;
  };
  auto factor = [&](int64_t d) { return scales.empty() ? 0.0 : scales[static_cast<size_t>(d)]; };
  bool all_match = !exact;
  for (int64_t d = 0; d < nd && all_match; ++d)
    all_match = resize_matches(b, x, 2 + d, factor(d), size_of(d));
  if (all_match)
    return std::nullopt;
  Val y = x; // every dim by its own indices (each reads the sizes of x)
  for (int64_t d = 0; d < nd; ++d)
    y = b.op1("Gather", {y, nearest_index(b, x, 2 + d, factor(d), size_of(d), exact)},
              {{"axis", 2 + d}});
  return y;
}

} // namespace

Val resize(ConvertCtx &c, const Val &x, int64_t nd, const std::vector<double> &scales,
           const Arg &sizes, const std::vector<Attr> &attrs) {
  GraphBuilder &b = c.b;
  int64_t r = b.info(x).rank();
  T2O_CHECK(r == nd + 2, "{}: expected a {}-D input, got {}", c.op(), nd + 2, b.info(x).str());
  if (!attrs.empty() && std::get<std::string>(attrs[0].value) == "nearest") {
    bool exact = std::get<std::string>(attrs[1].value) == "half_pixel"; // nearest-exact
    if (std::optional<Val> y = nearest_gathers(c, x, nd, scales, sizes, exact))
      return *y;
  }
  if (!scales.empty()) {
    T2O_CHECK(static_cast<int64_t>(scales.size()) == nd, "{}: expected {} scale factors, got {}",
              c.op(), nd, scales.size());
    std::vector<float> all{1.0f, 1.0f};
    for (double s : scales)
      all.push_back(static_cast<float>(s));
    Val sc = b.constant(TensorData::f32(all, {r}), "scales");
    return b.op1("Resize", {x, Val{}, sc}, attrs);
  }
  T2O_CHECK(!sizes.is_none(), "{}: needs output_size or scale factors", c.op());
  Val nc = b.op1("Slice", {shape_of(b, x), b.const_i64({0}), b.const_i64({2})});
  Val spatial = int_list_tensor(b, sizes);
  if (sizes.is_list() && static_cast<int64_t>(sizes.items.size()) == 1 && nd > 1)
    spatial = b.op1("Expand", {spatial, b.const_i64({nd})});
  Val full = b.op1("Concat", {nc, spatial}, {{"axis", int64_t{0}}});
  return b.op1("Resize", {x, Val{}, Val{}, full}, attrs);
}

std::vector<Attr> mode_attrs(const std::string &mode, bool align_corners) {
  if (mode == "nearest")
    return {{"mode", "nearest"},
            {"coordinate_transformation_mode", "asymmetric"},
            {"nearest_mode", "floor"}};
  if (mode == "nearest-exact") // always Gathers (nearest_gathers)
    return {{"mode", "nearest"},
            {"coordinate_transformation_mode", "half_pixel"},
            {"nearest_mode", "round_prefer_ceil"}};
  if (mode == "cubic")
    return {{"mode", "cubic"},
            {"cubic_coeff_a", -0.75},
            {"coordinate_transformation_mode", align_corners ? "align_corners" : "half_pixel"}};
  return {
      {"mode", "linear"},
      {"coordinate_transformation_mode", align_corners ? "align_corners" : "pytorch_half_pixel"}};
}

// The per-dim scale arguments of the upsample_* schemas of `nd` spatial dims (not .vec).
std::vector<const char *> scale_names(int64_t nd) {
  if (nd == 1)
    return {"scales"};
  if (nd == 2)
    return {"scales_h", "scales_w"};
  return {"scales_d", "scales_h", "scales_w"};
}

// The input of an upsample schema: .vec names it input, the others self.
const char *upsample_input(const ConvertCtx &c) {
  return c.overload() == "vec" ? "input" : "self";
}

// Scale factors only the run knows (F.interpolate(x, scale_factor=s) with s a model input), as
// Resize's scales [1, 1, s...]; nullopt when they are constants. Torch maps coordinates with the
// scales given, as Resize does with scales; nearest (whose exact indices need constants) is
// refused.
std::optional<Val> runtime_scales(ConvertCtx &c, const char *name, int64_t nd,
                                  const std::string &mode) {
  if (!c.has(name))
    return std::nullopt;
  const Arg &a = c.arg(name);
  std::vector<Arg> items = a.is_list() ? a.items : std::vector<Arg>{a};
  if (std::none_of(items.begin(), items.end(), [](const Arg &i) { return i.is_tensor(); }))
    return std::nullopt;
  if (mode.rfind("nearest", 0) == 0)
    throw Error(fmt::format("{}: mode '{}' with a scale factor known only at run time is not "
                            "supported",
                            c.op(), mode),
                "give the output size (size=(int(h * s), int(w * s))) instead, or use "
                "mode='bilinear' or 'bicubic'");
  T2O_CHECK(items.size() == 1 || static_cast<int64_t>(items.size()) == nd,
            "{}: expected {} scale factors, got {}", c.op(), nd, items.size());
  std::vector<Val> parts = {c.b.constant(TensorData::f32({1.0f, 1.0f}, {2}), "scales")};
  for (int64_t d = 0; d < nd; ++d)
    parts.push_back(
        reshape(c.b, as_tensor(c.b, items[items.size() == 1 ? 0 : d], DType::Float), {1}));
  return c.b.op1("Concat", parts, {{"axis", int64_t{0}}});
}

// The one emitter of aten::upsample_{nearest,linear,bilinear,trilinear,bicubic}{1,2,3}d:
// upsample_*.vec(Tensor input, int[]? output_size, [bool align_corners,] float[]? scale_factors)
// upsample_*(Tensor self, int[] output_size, [bool align_corners,] float? scales_*...)
// Only the linear and cubic modes have align_corners. Torch maps output to input coordinates
// with the given scales when there are any, else with in/out, so Resize gets scales in the first
// case and sizes in the second.
void emit_upsample(ConvertCtx &c, int64_t nd, const std::string &mode) {
  bool align = mode.rfind("nearest", 0) != 0 && c.arg<bool>("align_corners");
  std::vector<double> scales;
  if (c.overload() == "vec") {
    if (auto sc = runtime_scales(c, "scale_factors", nd, mode)) {
      c.set_out(
          0, c.b.op1("Resize", {c.tensor(upsample_input(c)), Val{}, *sc}, mode_attrs(mode, align)));
      return;
    }
    if (c.has("scale_factors"))
      scales = c.arg<std::vector<double>>("scale_factors");
    if (scales.size() == 1 && nd > 1)
      scales.assign(nd, scales[0]);
  } else {
    bool all = true;
    for (const char *name : scale_names(nd))
      all = all && c.has(name);
    if (all)
      for (const char *name : scale_names(nd))
        scales.push_back(c.arg<double>(name));
  }
  c.set_out(0, resize(c, c.tensor(upsample_input(c)), nd, scales, c.arg("output_size"),
                      mode_attrs(mode, align)));
}

} // namespace

void aten_upsample_nearest1d(ConvertCtx &c) {
  emit_upsample(c, 1, "nearest");
}
void aten_upsample_nearest2d(ConvertCtx &c) {
  emit_upsample(c, 2, "nearest");
}
void aten_upsample_nearest3d(ConvertCtx &c) {
  emit_upsample(c, 3, "nearest");
}
void aten__upsample_nearest_exact1d(ConvertCtx &c) {
  emit_upsample(c, 1, "nearest-exact");
}
void aten__upsample_nearest_exact2d(ConvertCtx &c) {
  emit_upsample(c, 2, "nearest-exact");
}
void aten__upsample_nearest_exact3d(ConvertCtx &c) {
  emit_upsample(c, 3, "nearest-exact");
}
void aten_upsample_linear1d(ConvertCtx &c) {
  emit_upsample(c, 1, "linear");
}
void aten_upsample_bilinear2d(ConvertCtx &c) {
  emit_upsample(c, 2, "linear");
}
void aten_upsample_trilinear3d(ConvertCtx &c) {
  emit_upsample(c, 3, "linear");
}
void aten_upsample_bicubic2d(ConvertCtx &c) {
  emit_upsample(c, 2, "cubic");
}

// __interpolate(Tensor input, int[]? size=None, float[]? scale_factor=None, str mode='nearest',
//               bool? align_corners=None, bool? recompute_scale_factor=None,
//               bool antialias=False): TorchScript's F.interpolate. size and scale_factor may
// be a number or a list.
void aten___interpolate(ConvertCtx &c) {
  int64_t r = c.info("input").rank();
  T2O_CHECK(r >= 3 && r <= 5, "{}: expected a 3-D to 5-D input, got {}", c.op(),
            c.info("input").str());
  int64_t nd = r - 2;
  std::string mode = c.arg<std::string>("mode", "nearest");
  bool align = c.arg<bool>("align_corners", false);
  bool recompute = c.arg<bool>("recompute_scale_factor", false);
  T2O_CHECK(mode == "nearest" || mode == "nearest-exact" || mode == "linear" ||
                mode == "bilinear" || mode == "trilinear" || mode == "bicubic",
            "{}: mode '{}' is not supported", c.op(), mode);
  std::string kind = mode == "bicubic"                          ? "cubic"
                     : mode.find("linear") != std::string::npos ? "linear"
                                                                : mode;
  // LibTorch's own __interpolate refuses antialias=True too (scripted F.interpolate calls
  // _upsample_*_aa instead).
  T2O_CHECK(!c.arg<bool>("antialias", false), "{}: antialias=True is not supported", c.op());
  std::vector<double> scales;
  Arg sizes = c.arg("size");
  if (!c.has("size")) {
    T2O_CHECK(c.has("scale_factor"), "{}: needs size or scale_factor", c.op());
    if (auto sc = runtime_scales(c, "scale_factor", nd, mode); sc && !recompute) {
      c.set_out(0, c.b.op1("Resize", {c.tensor("input"), Val{}, *sc}, mode_attrs(kind, align)));
      return;
    }
    scales = c.arg<std::vector<double>>("scale_factor");
    if (scales.size() == 1)
      scales.assign(nd, scales[0]);
    if (recompute) { // the output size, with in/out as the mapping
      T2O_CHECK(c.out_info(0).is_static(), "{}: recompute_scale_factor needs static shapes",
                c.op());
      auto out = c.out_info(0).sizes();
      std::vector<Arg> items;
      for (int64_t k = 0; k < nd; ++k)
        items.push_back(Arg::of_int(out[2 + k]));
      sizes = Arg::of_list(std::move(items));
      scales.clear();
    }
  } else if (!sizes.is_list()) {
    sizes = Arg::of_list(std::vector<Arg>(nd, sizes));
  }
  c.set_out(0, resize(c, c.tensor("input"), nd, scales, sizes, mode_attrs(kind, align)));
}

// grid_sampler(Tensor input, Tensor grid, int interpolation_mode, int padding_mode,
//              bool align_corners): GridSample (opset 16).
void grid_sample(ConvertCtx &c, int64_t max_rank) {
  const int64_t rank = c.info("input").rank();
  T2O_CHECK(rank == 4 || (rank == 5 && max_rank == 5),
            "{}: {}-D inputs are not supported at opset {}, got {}{}", c.op(), rank, c.b.opset(),
            c.info("input").str(), rank == 5 ? " (volumetric GridSample needs opset 20)" : "");
  static const char *modes[] = {"bilinear", "nearest", "bicubic"};
  static const char *pads[] = {"zeros", "border", "reflection"};
  int64_t m = c.arg<int64_t>("interpolation_mode"), p = c.arg<int64_t>("padding_mode");
  T2O_CHECK(m >= 0 && m < 3 && p >= 0 && p < 3, "{}: unknown mode {} / padding mode {}", c.op(), m,
            p);
  Val x = c.tensor("input");
  Val grid = cast_to(c.b, c.tensor("grid"), c.b.dtype(x));
  c.set_out(0, c.b.op1("GridSample", {x, grid},
                       {{"mode", modes[m]},
                        {"padding_mode", pads[p]},
                        {"align_corners", c.arg<bool>("align_corners")}}));
}

void aten_grid_sampler(ConvertCtx &c) {
  grid_sample(c, 4);
}

// GridSample-20 samples N-D inputs too (volumetric grid_sample); the builder writes the mode
// names opset 20 uses (linear, cubic).
void aten_grid_sampler_20(ConvertCtx &c) {
  grid_sample(c, 5);
}

// affine_grid_generator(Tensor theta, SymInt[] size, bool align_corners) for 2-D grids: a
// constant grid of (x, y, 1) rows times theta^T. H and W must be static; N follows theta.
void aten_affine_grid_generator(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  const Arg &size = c.arg("size");
  T2O_CHECK(size.is_list() && size.items.size() == 4,
            "{}: only 2-D grids (size [N, C, H, W]) are supported below opset "
            "20, got {} values; use --opset 20 (AffineGrid)",
            c.op(), size.items.size());
  T2O_CHECK(!size.items[2].is_tensor() && !size.items[3].is_tensor(),
            "{}: the grid's height and width must be known at export time below opset 20 (they "
            "are sizes known only at run time here); use --opset 20 (AffineGrid) or static "
            "height and width in --input",
            c.op());
  const bool align = c.arg<bool>("align_corners");
  const int64_t h = size.items[2].to_int(), w = size.items[3].to_int();
  auto coord = [&](int64_t i, int64_t n) {
    if (n == 1)
      return 0.0;
    return align ? -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(n - 1)
                 : (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(n) - 1.0;
  };
  std::vector<float> base;
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x)
      for (double v : {coord(x, w), coord(y, h), 1.0})
        base.push_back(static_cast<float>(v));
  DType t = b.dtype(c.tensor("theta"));
  Val grid = cast_to(b, b.constant(TensorData::f32(base, {h * w, 3}), "affine_base"), t);
  Val theta_t = transpose(b, c.tensor("theta"), {0, 2, 1}); // [N, 3, 2]
  Val out = b.op1("MatMul", {grid, theta_t});               // [N, H W, 2]
  c.set_out(0, reshape(b, out, {-1, h, w, 2}));             // N: theta's
}

// AffineGrid (opset 20): 2-D and 3-D grids, size as a tensor.
void aten_affine_grid_generator_20(ConvertCtx &c) {
  c.set_out(0, c.b.op1("AffineGrid", {c.tensor("theta"), int_list_tensor(c.b, c.arg("size"))},
                       {{"align_corners", c.arg<bool>("align_corners")}}));
}

namespace {
bool last_three_static(const TensorInfo &info) {
  const std::vector<Dim> &d = *info.shape;
  return d[d.size() - 3].is_static() && d[d.size() - 2].is_static() && d[d.size() - 1].is_static();
}

// pixel_shuffle (`up`) / pixel_unshuffle by f of a rank-r tensor whose C, H or W is known only
// at run time: the same Reshape / Transpose / Reshape as the static forms, the sizes computed
// from the input's shape.
Val shuffle_runtime(GraphBuilder &b, const Val &x, int64_t r, int64_t f, bool up) {
  Val lead = dims_of(b, x, 0, r - 3), ch = dims_of(b, x, r - 3, r - 2),
      h = dims_of(b, x, r - 2, r - 1), w = dims_of(b, x, r - 1, r);
  Val ff = b.const_i64({f * f}), fv = b.const_i64({f}), minus1 = b.const_i64({-1});
  if (up) {
    Val c_out = b.op1("Div", {ch, ff});
    Val y = b.op1("Reshape", {x, concat0(b, {minus1, c_out, fv, fv, h, w})});
    y = transpose(b, y, {0, 1, 4, 2, 5, 3});
    return b.op1("Reshape",
                 {y, concat0(b, {lead, c_out, b.op1("Mul", {h, fv}), b.op1("Mul", {w, fv})})});
  }
  Val hf = b.op1("Div", {h, fv}), wf = b.op1("Div", {w, fv});
  Val y = b.op1("Reshape", {x, concat0(b, {minus1, ch, hf, fv, wf, fv})});
  y = transpose(b, y, {0, 1, 3, 5, 2, 4});
  return b.op1("Reshape", {y, concat0(b, {lead, b.op1("Mul", {ch, ff}), hf, wf})});
}
} // namespace

// pixel_shuffle(self, r): [*, C r^2, H, W] -> [*, C, H r, W r]; DepthToSpace (CRD) on 4-D.
void aten_pixel_shuffle(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  int64_t f = c.arg<int64_t>("upscale_factor");
  int64_t r = c.info("self").rank();
  if (r == 4) {
    c.set_out(0, b.op1("DepthToSpace", {c.tensor("self")}, {{"blocksize", f}, {"mode", "CRD"}}));
    return;
  }
  T2O_CHECK(r >= 3, "{}: expected at least 3 dims, got {}", c.op(), c.info("self").str());
  if (!last_three_static(c.info("self"))) {
    c.set_out(0, shuffle_runtime(b, c.tensor("self"), r, f, true));
    return;
  }
  int64_t ch = static_dim(c, "self", r - 3), h = static_dim(c, "self", r - 2),
          w = static_dim(c, "self", r - 1);
  Val x = reshape(b, c.tensor("self"), {-1, ch / (f * f), f, f, h, w});
  x = b.op1("Transpose", {x}, {{"perm", std::vector<int64_t>{0, 1, 4, 2, 5, 3}}});
  Val lead =
      b.op1("Slice", {shape_of(b, c.tensor("self")), b.const_i64({0}), b.const_i64({r - 3})});
  Val shape =
      b.op1("Concat", {lead, b.const_i64({ch / (f * f), h * f, w * f})}, {{"axis", int64_t{0}}});
  c.set_out(0, b.op1("Reshape", {x, shape}));
}

// pixel_unshuffle(self, r): [*, C, H, W] -> [*, C r^2, H / r, W / r], channel-major (unlike
// SpaceToDepth, which puts the block offset first).
void aten_pixel_unshuffle(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  int64_t f = c.arg<int64_t>("downscale_factor");
  int64_t r = c.info("self").rank();
  T2O_CHECK(r >= 3, "{}: expected at least 3 dims, got {}", c.op(), c.info("self").str());
  if (!last_three_static(c.info("self"))) {
    c.set_out(0, shuffle_runtime(b, c.tensor("self"), r, f, false));
    return;
  }
  int64_t ch = static_dim(c, "self", r - 3), h = static_dim(c, "self", r - 2),
          w = static_dim(c, "self", r - 1);
  Val x = reshape(b, c.tensor("self"), {-1, ch, h / f, f, w / f, f});
  x = b.op1("Transpose", {x}, {{"perm", std::vector<int64_t>{0, 1, 3, 5, 2, 4}}});
  Val lead =
      b.op1("Slice", {shape_of(b, c.tensor("self")), b.const_i64({0}), b.const_i64({r - 3})});
  Val shape =
      b.op1("Concat", {lead, b.const_i64({ch * f * f, h / f, w / f})}, {{"axis", int64_t{0}}});
  c.set_out(0, b.op1("Reshape", {x, shape}));
}

// channel_shuffle(self, groups): [N, g, C/g, *] -> [N, C/g, g, *].
void aten_channel_shuffle(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  int64_t g = c.arg<int64_t>("groups");
  int64_t ch = static_dim(c, "self", 1);
  Val x = reshape(b, c.tensor("self"), {0, g, ch / g, -1});
  x = b.op1("Transpose", {x}, {{"perm", std::vector<int64_t>{0, 2, 1, 3}}});
  c.set_out(0, b.op1("Reshape", {x, shape_of(b, c.tensor("self"))}));
}

namespace {
struct Patches {
  std::vector<int64_t> k, dil, pad, stride;
  int64_t hp = 0, wp = 0, oh = 0, ow = 0; // padded input and number of patches per dim
};

// The kernel_size, dilation, padding and stride arguments of im2col / col2im.
Patches patches(const ConvertCtx &c, int64_t h, int64_t w) {
  Patches p;
  p.k = per_spatial_dim(c.arg("kernel_size"), 2, 1, "kernel_size");
  p.dil = per_spatial_dim(c.arg("dilation"), 2, 1, "dilation");
  p.pad = per_spatial_dim(c.arg("padding"), 2, 0, "padding");
  p.stride = per_spatial_dim(c.arg("stride"), 2, 1, "stride");
  p.hp = h + 2 * p.pad[0];
  p.wp = w + 2 * p.pad[1];
  p.oh = (p.hp - p.dil[0] * (p.k[0] - 1) - 1) / p.stride[0] + 1;
  p.ow = (p.wp - p.dil[1] * (p.k[1] - 1) - 1) / p.stride[1] + 1;
  return p;
}

// For kernel offset (i, j) and patch (y, x): the position in the padded image, row-major.
template <typename F> void each_tap(const Patches &p, F f) {
  for (int64_t i = 0; i < p.k[0]; ++i)
    for (int64_t j = 0; j < p.k[1]; ++j)
      for (int64_t y = 0; y < p.oh; ++y)
        for (int64_t x = 0; x < p.ow; ++x) {
          int64_t row = y * p.stride[0] + i * p.dil[0], col = x * p.stride[1] + j * p.dil[1];
          f(i * p.k[1] + j, y * p.ow + x, row, col);
        }
}
} // namespace

namespace {
// im2col of a padded [N, C, Hp, Wp] image whose H or W is known only at run time: one strided
// Slice per kernel offset (i, j), all bounds constant — the offset's first row is i*dil and it
// stops dil*(k-1-i) rows before the end, which leaves exactly the patch count
// (Hp - dil*(k-1) - 1) / stride + 1 rows on any size — stacked to [N, C, kh kw, oh, ow], then
// [N, C kh kw, oh ow].
Val im2col_slices(GraphBuilder &b, const Val &x, const Patches &p) {
  auto end = [](int64_t before_end) {
    return before_end > 0 ? -before_end : std::numeric_limits<int64_t>::max();
  };
  std::vector<Val> taps;
  for (int64_t i = 0; i < p.k[0]; ++i)
    for (int64_t j = 0; j < p.k[1]; ++j) {
      Val t =
          b.op1("Slice",
                {x, b.const_i64({i * p.dil[0], j * p.dil[1]}),
                 b.const_i64({end(p.dil[0] * (p.k[0] - 1 - i)), end(p.dil[1] * (p.k[1] - 1 - j))}),
                 b.const_i64({2, 3}), b.const_i64({p.stride[0], p.stride[1]})});
      taps.push_back(unsqueeze(b, t, {2}));
    }
  Val y = taps.size() == 1 ? taps[0] : b.op1("Concat", taps, {{"axis", int64_t{2}}});
  Val rows = reshape(b, y, {0, 0, 0, -1}); // [N, C, kh kw, L]
  Val shape =
      b.op1("Concat", {b.const_i64({0, -1}), dims_of(b, rows, 3, 4)}, {{"axis", int64_t{0}}});
  return b.op1("Reshape", {rows, shape});
}
} // namespace

// im2col(self, kernel_size, dilation, padding, stride): [N, C, H, W] -> [N, C kh kw, L], one
// Gather of the padded image (strided Slices when H or W is symbolic).
void aten_im2col(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  int64_t r = c.info("self").rank();
  T2O_CHECK(r == 3 || r == 4, "{}: expected a 3-D or 4-D input, got {}", c.op(),
            c.info("self").str());
  Val x = r == 3 ? unsqueeze(b, c.tensor("self"), {0}) : c.tensor("self");
  const std::vector<Dim> &dims = *c.info("self").shape;
  if (!dims[r - 2].is_static() || !dims[r - 1].is_static()) {
    Patches p = patches(c, 0, 0);
    if (p.pad[0] || p.pad[1])
      x = b.op1("Pad", {x, b.const_i64({0, 0, p.pad[0], p.pad[1], 0, 0, p.pad[0], p.pad[1]})});
    Val y = im2col_slices(b, x, p);
    c.set_out(0, r == 3 ? squeeze(b, y, {0}) : y);
    return;
  }
  Patches p = patches(c, static_dim(c, "self", r - 2), static_dim(c, "self", r - 1));
  if (p.pad[0] || p.pad[1])
    x = b.op1("Pad", {x, b.const_i64({0, 0, p.pad[0], p.pad[1], 0, 0, p.pad[0], p.pad[1]})});
  x = reshape(b, x, {0, 0, p.hp * p.wp});
  int64_t kk = p.k[0] * p.k[1], l = p.oh * p.ow;
  std::vector<int64_t> idx(kk * l);
  each_tap(p, [&](int64_t t, int64_t patch, int64_t row, int64_t col) {
    idx[t * l + patch] = row * p.wp + col;
  });
  Val g = b.op1("Gather", {x, b.constant(TensorData::i64(idx, {kk, l}))}, {{"axis", int64_t{2}}});
  Val y = reshape(b, g, {0, -1, l});
  c.set_out(0, r == 3 ? squeeze(b, y, {0}) : y);
}

namespace {
// [N, C, h, w] -> [N, C, h sh, w sw]: each value followed by sh - 1 zero rows and sw - 1 zero
// columns (a tap's patches placed every stride-th pixel).
Val spread(GraphBuilder &b, Val v, int64_t sh, int64_t sw) {
  if (sw > 1) {
    v = b.op1("Pad", {unsqueeze(b, v, {4}), b.const_i64({0, 0, 0, 0, 0, 0, 0, 0, 0, sw - 1})});
    v = reshape(b, v, {0, 0, 0, -1});
  }
  if (sh > 1) {
    Val w = dims_of(b, v, 3, 4);
    v = b.op1("Pad", {unsqueeze(b, v, {3}), b.const_i64({0, 0, 0, 0, 0, 0, 0, 0, sh - 1, 0})});
    v = b.op1("Reshape", {v, concat0(b, {b.const_i64({0, 0, -1}), w})});
  }
  return v;
}

// col2im of [N, C kh kw, L] to an image size known only at run time (`size`, i64[2]), below
// opset 18: each kernel offset's [N, C, oh, ow] patch values spread to every stride-th pixel,
// shifted by the offset and padded to one common size (all pads constant: offset (i, j) needs
// i*dil rows before and dil*(k-1-i) after), summed, and the padding cut off.
Val col2im_taps(GraphBuilder &b, const Val &x, const Val &size, const Patches &p) {
  int64_t kk = p.k[0] * p.k[1];
  Val reach = b.const_i64({p.dil[0] * (p.k[0] - 1) + 1, p.dil[1] * (p.k[1] - 1) + 1});
  Val padded = b.op1("Add", {size, b.const_i64({2 * p.pad[0], 2 * p.pad[1]})});
  Val ohw =
      b.op1("Add",
            {b.op1("Div", {b.op1("Sub", {padded, reach}), b.const_i64({p.stride[0], p.stride[1]})}),
             b.const_i64({1, 1})});
  Val v = b.op1("Reshape", {x, concat0(b, {b.const_i64({0, -1, kk}), ohw})}); // [N,C,kk,oh,ow]
  std::optional<Val> sum;
  for (int64_t i = 0; i < p.k[0]; ++i)
    for (int64_t j = 0; j < p.k[1]; ++j) {
      Val tap = b.op1("Gather", {v, b.const_i64_scalar(i * p.k[1] + j)}, {{"axis", int64_t{2}}});
      tap = spread(b, tap, p.stride[0], p.stride[1]);
      tap = b.op1("Pad",
                  {tap, b.const_i64({0, 0, i * p.dil[0], j * p.dil[1], 0, 0,
                                     p.dil[0] * (p.k[0] - 1 - i), p.dil[1] * (p.k[1] - 1 - j)})});
      sum = sum ? b.op1("Add", {*sum, tap}) : tap;
    }
  Val from = b.const_i64({p.pad[0], p.pad[1]});
  return b.op1("Slice", {*sum, from, b.op1("Add", {size, from}), b.const_i64({2, 3})});
}
} // namespace

// col2im(self, output_size, kernel_size, dilation, padding, stride): the sum of overlapping
// patches, as a MatMul with a constant 0/1 matrix (the Col2Im op arrives only in opset 18); an
// output size known only at run time takes col2im_taps.
void aten_col2im(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  int64_t r = c.info("self").rank();
  T2O_CHECK(r == 2 || r == 3, "{}: expected a 2-D or 3-D input, got {}", c.op(),
            c.info("self").str());
  if (has_runtime_items(c.arg("output_size"))) {
    Val x = r == 2 ? unsqueeze(b, c.tensor("self"), {0}) : c.tensor("self");
    Val y = col2im_taps(b, x, int_list_tensor(b, c.arg("output_size")), patches(c, 0, 0));
    c.set_out(0, r == 2 ? squeeze(b, y, {0}) : y);
    return;
  }
  std::vector<int64_t> out = c.ints("output_size");
  T2O_CHECK(out.size() == 2, "{}: output_size needs 2 values", c.op());
  Patches p = patches(c, out[0], out[1]);
  int64_t kk = p.k[0] * p.k[1], l = p.oh * p.ow, hw = out[0] * out[1];
  DType dt = c.b.dtype(c.tensor("self"));
  DType k = dt == DType::Double ? dt : DType::Float;
  std::vector<double> m(kk * l * hw, 0.0);
  each_tap(p, [&](int64_t t, int64_t patch, int64_t row, int64_t col) {
    int64_t y = row - p.pad[0], x = col - p.pad[1];
    if (y >= 0 && y < out[0] && x >= 0 && x < out[1])
      m[(t * l + patch) * hw + y * out[1] + x] = 1;
  });
  TensorData md = k == DType::Double
                      ? TensorData::f64(m, {kk * l, hw})
                      : TensorData::f32(std::vector<float>(m.begin(), m.end()), {kk * l, hw});
  Val x = r == 2 ? unsqueeze(b, c.tensor("self"), {0}) : c.tensor("self");
  x = reshape(b, cast_to(b, x, k), {0, -1, kk * l}); // [N, C, K L]
  Val y = b.op1("MatMul", {x, b.constant(md, "col2im")});
  y = reshape(b, y, {0, -1, out[0], out[1]});
  if (r == 2)
    y = squeeze(b, y, {0});
  c.set_out(0, cast_to(b, y, dt));
}

// Col2Im (opset 18) on a batched [N, C kh kw, L] input.
void aten_col2im_18(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  int64_t r = c.info("self").rank();
  T2O_CHECK(r == 2 || r == 3, "{}: expected a 2-D or 3-D input, got {}", c.op(),
            c.info("self").str());
  Val out = has_runtime_items(c.arg("output_size"))
                ? int_list_tensor(b, c.arg("output_size"))
                : b.const_i64(per_spatial_dim(c.arg("output_size"), 2, 0, "output_size"));
  std::vector<int64_t> pad = per_spatial_dim(c.arg("padding"), 2, 0, "padding");
  Val x = r == 2 ? unsqueeze(b, c.tensor("self"), {0}) : c.tensor("self");
  Val y =
      b.op1("Col2Im", {x, out, b.const_i64(per_spatial_dim(c.arg("kernel_size"), 2, 1, "kernel"))},
            {{"dilations", per_spatial_dim(c.arg("dilation"), 2, 1, "dilation")},
             {"pads", std::vector<int64_t>{pad[0], pad[1], pad[0], pad[1]}},
             {"strides", per_spatial_dim(c.arg("stride"), 2, 1, "stride")}});
  c.set_out(0, r == 2 ? squeeze(b, y, {0}) : y);
}

void register_image_ops(Registry &r) {
  // These all lower through resize() above, so they list the same ONNX ops.
  const std::vector<std::string> resize_ops{"Resize", "Concat", "Shape", "Slice"};
  // Nearest: or a Gather per dim of LibTorch's source indices (nearest_dim).
  const std::vector<std::string> nearest_ops{"Resize", "Concat", "Shape",   "Slice", "Gather",
                                             "Cast",   "Floor",  "Mul",     "Min",   "Range",
                                             "Sub",    "Div",    "Reshape", "Add"};
  r.add("aten::upsample_nearest1d", 11, aten_upsample_nearest1d, nearest_ops);
  r.add("aten::upsample_nearest2d", 11, aten_upsample_nearest2d, nearest_ops);
  r.add("aten::upsample_nearest3d", 11, aten_upsample_nearest3d, nearest_ops);
  r.add("aten::_upsample_nearest_exact1d", 11, aten__upsample_nearest_exact1d, nearest_ops);
  r.add("aten::_upsample_nearest_exact2d", 11, aten__upsample_nearest_exact2d, nearest_ops);
  r.add("aten::_upsample_nearest_exact3d", 11, aten__upsample_nearest_exact3d, nearest_ops);
  r.add("aten::upsample_linear1d", 11, aten_upsample_linear1d, resize_ops);
  r.add("aten::upsample_bilinear2d", 11, aten_upsample_bilinear2d, resize_ops);
  r.add("aten::upsample_trilinear3d", 11, aten_upsample_trilinear3d, resize_ops);
  r.add("aten::upsample_bicubic2d", 11, aten_upsample_bicubic2d, resize_ops);
  r.add("aten::__interpolate", 11, aten___interpolate, nearest_ops);
  register_grid_sampler_decomposed(r); // below opset 16 (grid_sample_decomposed.cpp)
  r.add("aten::grid_sampler", 16, aten_grid_sampler, {"GridSample"});
  r.add("aten::grid_sampler_2d", 16, aten_grid_sampler, {"GridSample"});
  r.add("aten::grid_sampler", 20, aten_grid_sampler_20, {"GridSample"});
  r.add("aten::grid_sampler_3d", 20, aten_grid_sampler_20, {"GridSample"});
  r.add("aten::pixel_shuffle", 11, aten_pixel_shuffle,
        {"DepthToSpace", "Reshape", "Transpose", "Concat", "Shape", "Slice", "Div", "Mul"});
  r.add("aten::pixel_unshuffle", 11, aten_pixel_unshuffle,
        {"Reshape", "Transpose", "Concat", "Shape", "Slice", "Div", "Mul"});
  r.add("aten::channel_shuffle", 11, aten_channel_shuffle, {"Reshape", "Transpose", "Shape"});
  r.add("aten::native_channel_shuffle", 11, aten_channel_shuffle,
        {"Reshape", "Transpose", "Shape"});
  r.add("aten::im2col", 11, aten_im2col,
        {"Pad", "Gather", "Reshape", "Squeeze", "Unsqueeze", "Slice", "Concat", "Shape"});
  r.add("aten::col2im", 11, aten_col2im,
        {"MatMul", "Reshape", "Cast", "Add", "Div", "Sub", "Concat", "Gather", "Pad", "Slice",
         "Shape", "Unsqueeze", "Squeeze"});
  r.add("aten::col2im", 18, aten_col2im_18,
        {"Col2Im", "Squeeze", "Unsqueeze", "Concat", "Cast", "Reshape"});
  r.add("aten::affine_grid_generator", 11, aten_affine_grid_generator,
        {"MatMul", "Transpose", "Reshape"});
  r.add("aten::affine_grid_generator", 20, aten_affine_grid_generator_20, {"AffineGrid"});
}

} // namespace torch2onnx
