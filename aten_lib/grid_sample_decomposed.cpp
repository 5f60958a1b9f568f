// aten::grid_sampler below opset 16, where ONNX has no GridSample (and grid_sampler_3d below 20,
// where GridSample takes no volumes): the same sampling built from
// GatherElements. Modes bilinear and nearest, padding zeros and border, both align_corners
// settings (bicubic and reflection padding need opset 16). RAFT at opset 14 needs this.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

#include <array>

namespace torch2onnx {

namespace {

struct Sampler {
  GraphBuilder &b;
  DType dt;
  Val xf;        // input as [N, C, H*W]
  Val out_shape; // [N, C, Ho, Wo]
  Val expand_c;  // [1, C, 1]
  int64_t h, w;
  bool zeros; // zeros padding: corners outside the image read 0

  Val s(double v) const { return b.const_scalar(dt, v); }

  // Reads the input at integer-valued (float) coordinates ix, iy [N, Ho, Wo], times `weight`.
  Val read(const Val &ix, const Val &iy, const Val &weight) const {
    Val wgt = weight;
    if (zeros) {
      Val inside =
          b.op1("And", {b.op1("And", {b.op1("GreaterOrEqual", {ix, s(0)}),
                                      b.op1("LessOrEqual", {ix, s(static_cast<double>(w - 1))})}),
                        b.op1("And", {b.op1("GreaterOrEqual", {iy, s(0)}),
                                      b.op1("LessOrEqual", {iy, s(static_cast<double>(h - 1))})})});
      wgt = b.op1("Mul", {wgt, cast_to(b, inside, dt)});
    }
    Val cx = b.op1("Clip", {ix, s(0), s(static_cast<double>(w - 1))});
    Val cy = b.op1("Clip", {iy, s(0), s(static_cast<double>(h - 1))});
    Val flat = b.op1("Add", {b.op1("Mul", {cy, s(static_cast<double>(w))}), cx});
    Val idx = cast_to(b, reshape(b, flat, {0, 1, -1}), DType::Int64); // [N, 1, Ho*Wo]
    idx = b.op1("Expand", {idx, expand_c});                           // [N, C, Ho*Wo]
    Val v = b.op1("GatherElements", {xf, idx}, {{"axis", int64_t{2}}});
    v = b.op1("Reshape", {v, out_shape});
    return b.op1("Mul", {v, unsqueeze(b, wgt, {1})});
  }
};

} // namespace

// grid_sampler(Tensor input, Tensor grid, int interpolation_mode, int padding_mode,
//              bool align_corners)
void aten_grid_sampler_decomposed(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  const TensorInfo &info = c.info("input");
  T2O_CHECK(info.rank() == 4, "{}: only 4-D inputs are supported, got {}", c.op(), info.str());
  T2O_CHECK((*info.shape)[2].is_static() && (*info.shape)[3].is_static(),
            "{} at opset {} needs static height and width (got {}); GridSample (opset 16) does "
            "not",
            c.op(), b.opset(), info.str());
  int64_t mode = c.arg<int64_t>("interpolation_mode"), pad = c.arg<int64_t>("padding_mode");
  bool align = c.arg<bool>("align_corners");
  T2O_CHECK(mode >= 0 && mode <= 1 && pad >= 0 && pad <= 1,
            "{} with {} at opset {} has no exact decomposition; use --opset 16 (GridSample)",
            c.op(),
            mode == 2  ? "bicubic interpolation"
            : pad == 2 ? "reflection padding"
                       : "this mode",
            b.opset());
  Val x = c.tensor("input");
  DType dt = b.dtype(x);
  Val grid = cast_to(b, c.tensor("grid"), dt);
  Val sx = b.op1("Shape", {x}), sg = b.op1("Shape", {grid});
  Sampler sm{b,
             dt,
             reshape(b, x, {0, 0, -1}),
             b.op1("Concat",
                   {b.op1("Slice", {sx, b.const_i64({0}), b.const_i64({2})}),
                    b.op1("Slice", {sg, b.const_i64({1}), b.const_i64({3})})},
                   {{"axis", int64_t{0}}}),
             b.op1("Concat",
                   {b.const_i64({1}), b.op1("Slice", {sx, b.const_i64({1}), b.const_i64({2})}),
                    b.const_i64({1})},
                   {{"axis", int64_t{0}}}),
             (*info.shape)[2].value,
             (*info.shape)[3].value,
             pad == 0};
  // Pixel coordinates from [-1, 1]: corners are pixel centres with align_corners, else edges.
  auto coord = [&](int64_t k, int64_t size) {
    Val g = b.op1("Gather", {grid, b.const_i64_scalar(k)}, {{"axis", int64_t{3}}}); // [N, Ho, Wo]
    Val v = align ? b.op1("Mul", {b.op1("Add", {g, sm.s(1)}), sm.s((size - 1) / 2.0)})
                  : b.op1("Div", {b.op1("Sub", {b.op1("Mul", {b.op1("Add", {g, sm.s(1)}),
                                                              sm.s(static_cast<double>(size))}),
                                                sm.s(1)}),
                                  sm.s(2)});
    if (pad == 1)
      v = b.op1("Clip", {v, sm.s(0), sm.s(static_cast<double>(size - 1))});
    return v;
  };
  Val ix = coord(0, sm.w), iy = coord(1, sm.h);
  if (mode == 1) { // nearest: round half to even, as LibTorch's nearbyint
    Val ones = b.op1("Add", {b.op1("Sub", {ix, ix}), sm.s(1)});
    c.set_out(0, sm.read(b.op1("Round", {ix}), b.op1("Round", {iy}), ones));
    return;
  }
  Val x0 = b.op1("Floor", {ix}), y0 = b.op1("Floor", {iy});
  Val x1 = b.op1("Add", {x0, sm.s(1)}), y1 = b.op1("Add", {y0, sm.s(1)});
  Val wx1 = b.op1("Sub", {ix, x0}), wy1 = b.op1("Sub", {iy, y0});
  Val wx0 = b.op1("Sub", {sm.s(1), wx1}), wy0 = b.op1("Sub", {sm.s(1), wy1});
  Val out = sm.read(x0, y0, b.op1("Mul", {wx0, wy0}));
  out = b.op1("Add", {out, sm.read(x1, y0, b.op1("Mul", {wx1, wy0}))});
  out = b.op1("Add", {out, sm.read(x0, y1, b.op1("Mul", {wx0, wy1}))});
  out = b.op1("Add", {out, sm.read(x1, y1, b.op1("Mul", {wx1, wy1}))});
  c.set_out(0, out);
}

namespace {

// The volumetric sampler: reads the input [N, C, D, H, W] (as [N, C, D*H*W]) at integer-valued
// (float) coordinates (x, y, z) [N, Do, Ho, Wo], times `weight`.
struct VolumeSampler {
  GraphBuilder &b;
  DType dt;
  Val xf, out_shape, expand_c;
  std::array<int64_t, 3> size; // W, H, D
  bool zeros;

  Val s(double v) const { return b.const_scalar(dt, v); }

  Val read(const std::array<Val, 3> &at, const Val &weight) const {
    Val wgt = weight, flat;
    for (int d = 2; d >= 0; --d) { // z, then y, then x: flat = (z H + y) W + x
      double hi = static_cast<double>(size[d] - 1);
      if (zeros) {
        Val inside = b.op1(
            "And", {b.op1("GreaterOrEqual", {at[d], s(0)}), b.op1("LessOrEqual", {at[d], s(hi)})});
        wgt = b.op1("Mul", {wgt, cast_to(b, inside, dt)});
      }
      Val cd = b.op1("Clip", {at[d], s(0), s(hi)});
      flat = flat.valid()
                 ? b.op1("Add", {b.op1("Mul", {flat, s(static_cast<double>(size[d]))}), cd})
                 : cd;
    }
    Val idx = cast_to(b, reshape(b, flat, {0, 1, -1}), DType::Int64); // [N, 1, Do*Ho*Wo]
    idx = b.op1("Expand", {idx, expand_c});
    Val v = b.op1("GatherElements", {xf, idx}, {{"axis", int64_t{2}}});
    v = b.op1("Reshape", {v, out_shape});
    return b.op1("Mul", {v, unsqueeze(b, wgt, {1})});
  }
};

} // namespace

// grid_sampler_3d(Tensor input, Tensor grid, int interpolation_mode, int padding_mode,
//                 bool align_corners) below opset 20 (GridSample samples volumes from 20):
// trilinear or nearest, zeros or border padding, as the 2-D decomposition above.
void aten_grid_sampler_3d_decomposed(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  const TensorInfo &info = c.info("input");
  T2O_CHECK(info.rank() == 5 && info.is_static(),
            "{} at opset {} needs a static 5-D input (got {}); GridSample (opset 20) does not",
            c.op(), b.opset(), info.str());
  int64_t mode = c.arg<int64_t>("interpolation_mode"), pad = c.arg<int64_t>("padding_mode");
  bool align = c.arg<bool>("align_corners");
  T2O_CHECK(mode >= 0 && mode <= 1 && pad >= 0 && pad <= 1,
            "{} with mode {} / padding mode {} at opset {} has no exact decomposition; use "
            "--opset 20 (GridSample)",
            c.op(), mode, pad, b.opset());
  Val x = c.tensor("input");
  DType dt = b.dtype(x);
  Val grid = cast_to(b, c.tensor("grid"), dt);
  Val sx = b.op1("Shape", {x}), sg = b.op1("Shape", {grid});
  auto sizes = info.sizes();
  VolumeSampler sm{b,
                   dt,
                   reshape(b, x, {0, 0, -1}),
                   b.op1("Concat",
                         {b.op1("Slice", {sx, b.const_i64({0}), b.const_i64({2})}),
                          b.op1("Slice", {sg, b.const_i64({1}), b.const_i64({4})})},
                         {{"axis", int64_t{0}}}),
                   b.const_i64({1, sizes[1], 1}),
                   {sizes[4], sizes[3], sizes[2]},
                   pad == 0};
  std::array<Val, 3> at, lo, frac;
  for (int d = 0; d < 3; ++d) { // from [-1, 1] as the 2-D sampler
    double n = static_cast<double>(sm.size[d]);
    Val g = b.op1("Gather", {grid, b.const_i64_scalar(d)}, {{"axis", int64_t{4}}});
    Val v = b.op1("Add", {g, sm.s(1)});
    v = align ? b.op1("Mul", {v, sm.s((n - 1) / 2)})
              : b.op1("Div", {b.op1("Sub", {b.op1("Mul", {v, sm.s(n)}), sm.s(1)}), sm.s(2)});
    at[d] = pad == 1 ? b.op1("Clip", {v, sm.s(0), sm.s(n - 1)}) : v;
    lo[d] = b.op1("Floor", {at[d]});
    frac[d] = b.op1("Sub", {at[d], lo[d]});
  }
  if (mode == 1) { // nearest: round half to even, as LibTorch's nearbyint
    Val ones = b.op1("Add", {b.op1("Sub", {at[0], at[0]}), sm.s(1)});
    c.set_out(
        0,
        sm.read({b.op1("Round", {at[0]}), b.op1("Round", {at[1]}), b.op1("Round", {at[2]})}, ones));
    return;
  }
  Val out;
  for (int corner = 0; corner < 8; ++corner) { // trilinear: the 8 corners around each point
    std::array<Val, 3> p;
    Val w;
    for (int d = 0; d < 3; ++d) {
      bool up = (corner >> d) & 1;
      p[d] = up ? b.op1("Add", {lo[d], sm.s(1)}) : lo[d];
      Val wd = up ? frac[d] : b.op1("Sub", {sm.s(1), frac[d]});
      w = w.valid() ? b.op1("Mul", {w, wd}) : wd;
    }
    Val v = sm.read(p, w);
    out = out.valid() ? b.op1("Add", {out, v}) : v;
  }
  c.set_out(0, out);
}

void register_grid_sampler_decomposed(Registry &r) {
  r.add("aten::grid_sampler", 11, aten_grid_sampler_decomposed,
        {"GatherElements", "Floor", "Round", "Clip", "Mul", "Add", "And", "Cast", "Concat", "Div",
         "Expand", "Gather", "GreaterOrEqual", "LessOrEqual", "Reshape", "Shape", "Slice", "Sub",
         "Unsqueeze"});
  r.add("aten::grid_sampler_2d", 11, aten_grid_sampler_decomposed,
        {"GatherElements", "Floor", "Round", "Clip", "Mul", "Add"});
  r.add("aten::grid_sampler_3d", 11, aten_grid_sampler_3d_decomposed,
        {"GatherElements",
         "Floor",
         "Round",
         "Clip",
         "Mul",
         "Add",
         "And",
         "Cast",
         "Concat",
         "Div",
         "Expand",
         "Gather",
         "GreaterOrEqual",
         "LessOrEqual",
         "Greater",
         "Less",
         "Equal",
         "Or",
         "Not",
         "Reshape",
         "Shape",
         "Slice",
         "Sub",
         "Unsqueeze"});
}

} // namespace torch2onnx
