// aten::grid_sampler below opset 16, where ONNX has no GridSample: the same sampling built from
// GatherElements. Modes bilinear and nearest, padding zeros and border, both align_corners
// settings (bicubic and reflection padding need opset 16). RAFT at opset 14 needs this.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

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

void register_grid_sampler_decomposed(Registry &r) {
  r.add("aten::grid_sampler", 11, aten_grid_sampler_decomposed,
        {"GatherElements", "Floor", "Round", "Clip", "Mul", "Add", "And", "Cast", "Concat", "Div",
         "Expand", "Gather", "GreaterOrEqual", "LessOrEqual", "Reshape", "Shape", "Slice", "Sub",
         "Unsqueeze"});
  r.add("aten::grid_sampler_2d", 11, aten_grid_sampler_decomposed,
        {"GatherElements", "Floor", "Round", "Clip", "Mul", "Add"});
}

} // namespace torch2onnx
