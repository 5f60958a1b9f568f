// torchvision's operator library (loaded with --load-library .../torchvision/_C.so):
// torchvision::nms and torchvision::roi_align, the two custom ops traced detection models use.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

#include <cstdint>

namespace torch2onnx {

namespace {

// A float-typed tensor argument: a runtime tensor cast to float, or a constant number.
Val float_arg(GraphBuilder &b, const Arg &a) {
  return as_tensor(b, a, DType::Float);
}

} // namespace

// torchvision::nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor
//
// torchvision keeps the indices of the boxes no better-scored kept box overlaps by more than
// iou_threshold (IoU > threshold suppresses), sorted by decreasing score. ONNX NonMaxSuppression
// with one batch and one class selects the same boxes in the same order (by decreasing score)
// and returns them as [num_selected, 3] triples (batch, class, box): column 2 is the keep list.
// Corners are given as they are: IoU does not care whether a box is [x1, y1, x2, y2] or
// [y1, x1, y2, x2], and ONNX accepts either diagonal (center_point_box = 0).
void torchvision_nms(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  T2O_CHECK(c.info("dets").rank() == 2, "torchvision::nms expects boxes of shape [N, 4], got {}",
            c.info("dets").str());
  T2O_CHECK(c.info("scores").rank() == 1, "torchvision::nms expects scores of shape [N], got {}",
            c.info("scores").str());
  Val boxes = unsqueeze(b, cast_to(b, c.tensor("dets"), DType::Float), {0});       // [1, N, 4]
  Val scores = unsqueeze(b, cast_to(b, c.tensor("scores"), DType::Float), {0, 1}); // [1, 1, N]
  // Every box may be kept: the most NonMaxSuppression may select per class is N itself.
  Val max_out = op_t(b, DType::Int64, "Shape", {c.tensor("scores")});
  Val iou = float_arg(b, c.arg("iou_threshold"));
  Val selected = op_t(b, DType::Int64, "NonMaxSuppression", {boxes, scores, max_out, iou},
                      {{"center_point_box", int64_t{0}}});
  Val keep =
      op_t(b, DType::Int64, "Gather", {selected, b.const_i64_scalar(2)}, {{"axis", int64_t{1}}});
  c.set_out(0, keep);
}

// torchvision::roi_align(Tensor input, Tensor rois, float spatial_scale, int pooled_height,
//                        int pooled_width, int sampling_ratio, bool aligned) -> Tensor
//
// rois is [K, 5] (batch index, x1, y1, x2, y2); ONNX RoiAlign takes the boxes [K, 4] and the
// batch indices (int64) apart. aligned=True shifts the sampling grid by half a pixel and keeps
// boxes smaller than one pixel as they are: that is coordinate_transformation_mode "half_pixel",
// which ONNX has from opset 16; aligned=False (clamp the box size to at least one pixel, no shift)
// is "output_half_pixel", the only behavior of RoiAlign-10. sampling_ratio <= 0 means "adaptive"
// (ceil(box size / output size) samples per bin) in both; ONNX spells it 0.
namespace {

// RoiAlign's attributes without coordinate_transformation_mode (the RoiAlign-10 form).
std::vector<Attr> roi_align_attrs(const ConvertCtx &c) {
  double spatial_scale = c.arg<double>("spatial_scale");
  int64_t out_h = c.arg<int64_t>("pooled_height");
  int64_t out_w = c.arg<int64_t>("pooled_width");
  int64_t sampling_ratio = c.arg<int64_t>("sampling_ratio");
  T2O_CHECK(out_h > 0 && out_w > 0,
            "torchvision::roi_align: output size must be positive, got {}x{}", out_h, out_w);
  return {{"mode", "avg"},
          {"output_height", out_h},
          {"output_width", out_w},
          {"sampling_ratio", sampling_ratio > 0 ? sampling_ratio : int64_t{0}},
          {"spatial_scale", static_cast<float>(spatial_scale)}};
}

// Checks the inputs, splits rois into boxes and batch indices, and emits RoiAlign.
void emit_roi_align(ConvertCtx &c, std::vector<Attr> attrs) {
  GraphBuilder &b = c.b;
  const TensorInfo &xi = c.info("input");
  T2O_CHECK(xi.rank() == 4, "torchvision::roi_align expects a 4-D input [N, C, H, W], got {}",
            xi.str());
  T2O_CHECK(c.info("rois").rank() == 2,
            "torchvision::roi_align expects rois of shape [K, 5], got {}", c.info("rois").str());
  T2O_CHECK(xi.dtype == DType::Float || xi.dtype == DType::Double,
            "torchvision::roi_align: ONNX Runtime's RoiAlign takes float32 or float64 inputs, "
            "got {}",
            xi.str());
  Val rois = cast_to(b, c.tensor("rois"), xi.dtype);
  Val batch =
      op_t(b, xi.dtype, "Slice", {rois, b.const_i64({0}), b.const_i64({1}), b.const_i64({1})});
  Val batch_idx = cast_to(b, squeeze(b, batch, {1}), DType::Int64);
  Val boxes = b.op1("Slice", {rois, b.const_i64({1}), b.const_i64({5}), b.const_i64({1})});
  c.set_out(0, op_t(b, xi.dtype, "RoiAlign", {c.tensor("input"), boxes, batch_idx}, attrs));
}

} // namespace

// Opsets 11-15: RoiAlign-10 only samples the aligned=False way.
void torchvision_roi_align(ConvertCtx &c) {
  T2O_CHECK(!c.arg<bool>("aligned"),
            "torchvision::roi_align with aligned=True needs ONNX RoiAlign's half_pixel mode, "
            "which exists from opset 16 (target opset {})",
            c.b.opset());
  emit_roi_align(c, roi_align_attrs(c));
}

void torchvision_roi_align_16(ConvertCtx &c) {
  std::vector<Attr> attrs = roi_align_attrs(c);
  bool aligned = c.arg<bool>("aligned");
  attrs.push_back({"coordinate_transformation_mode", aligned ? "half_pixel" : "output_half_pixel"});
  emit_roi_align(c, attrs);
}

void register_torchvision_ops(Registry &r) {
  r.add("torchvision::nms", 11, torchvision_nms,
        {"NonMaxSuppression", "Gather", "Shape", "Unsqueeze"});
  r.add("torchvision::roi_align", 11, torchvision_roi_align,
        {"RoiAlign", "Slice", "Cast", "Squeeze"});
  r.add("torchvision::roi_align", 16, torchvision_roi_align_16,
        {"RoiAlign", "Slice", "Cast", "Squeeze"});
}

} // namespace torch2onnx
