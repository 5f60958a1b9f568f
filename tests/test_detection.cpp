// torchvision's detection ops (torchvision::nms, torchvision::roi_align), exported from IR text
// with torchvision's operator library loaded and compared in ONNX Runtime against LibTorch running
// torchvision's own kernels. The whole detection models are checked end to end by the
// e2e:detection:* tests (tests/CMakeLists.txt).
#include "exporter/frontend/torchscript/loader.h"
#include "harness.h"
#include "ir_text.h"

#include <catch2/catch.hpp>

using namespace t2o_test;

namespace {

// torchvision's _C library registers the ops with the dispatcher when it is loaded.
void load_torchvision() {
  static const bool loaded = [] {
    torch2onnx::load_op_library(T2O_TORCHVISION_LIB);
    return true;
  }();
  (void)loaded;
}

// n boxes [x1, y1, x2, y2] in a size x size image, clustered so that many overlap: each box is a
// jittered copy of one of `clusters` base boxes. Widths and heights are positive.
at::Tensor overlapping_boxes(int64_t n, int64_t clusters, double size, uint64_t seed) {
  auto base_xy = (randn({clusters, 2}, seed).abs() * (size / 4)).clamp_max(size * 0.7);
  auto base_wh = randn({clusters, 2}, seed + 1).abs() * (size / 8) + 2.0;
  auto pick = at::arange(n, at::kLong).remainder(clusters);
  auto xy = base_xy.index_select(0, pick) + randn({n, 2}, seed + 2) * 1.5;
  auto wh = (base_wh.index_select(0, pick) + randn({n, 2}, seed + 3)).clamp_min(0.5);
  return at::cat({xy, xy + wh}, 1);
}

std::string nms_ir(double iou) {
  return "graph(%boxes : Tensor, %scores : Tensor):\n"
         "  %iou : float = prim::Constant[value=" +
         std::to_string(iou) +
         "]()\n"
         "  %y : Tensor = torchvision::nms(%boxes, %scores, %iou)\n"
         "  return (%y)";
}

std::string roi_align_ir(double scale, int64_t ph, int64_t pw, int64_t sampling, bool aligned) {
  return "graph(%x : Tensor, %rois : Tensor):\n"
         "  %scale : float = prim::Constant[value=" +
         std::to_string(scale) +
         "]()\n"
         "  %ph : int = prim::Constant[value=" +
         std::to_string(ph) +
         "]()\n"
         "  %pw : int = prim::Constant[value=" +
         std::to_string(pw) +
         "]()\n"
         "  %sr : int = prim::Constant[value=" +
         std::to_string(sampling) +
         "]()\n"
         "  %al : bool = prim::Constant[value=" +
         std::string(aligned ? "1" : "0") +
         "]()\n"
         "  %y : Tensor = torchvision::roi_align(%x, %rois, %scale, %ph, %pw, %sr, %al)\n"
         "  return (%y)";
}

// rois [k, 5] (batch index, x1, y1, x2, y2) in image coordinates of a size x size image, for a
// batch of `batch` feature maps: ordinary boxes, boxes under one feature pixel, boxes partly
// and wholly outside the image.
at::Tensor rois_for(int64_t batch, double size) {
  auto boxes = overlapping_boxes(12, 6, size, 7);
  auto extra = at::tensor({0.3, 0.4, 0.9, 1.1,                          // under one pixel
                           -3.0, -2.0, size * 0.5, size * 0.25,         // starts outside
                           size * 0.75, size * 0.5, size + 6, size + 3, // ends outside
                           size + 2, size + 2, size + 9, size + 12},    // wholly outside
                          at::kFloat)
                   .reshape({4, 4});
  auto all = at::cat({boxes, extra}, 0);
  auto idx = at::arange(all.size(0), at::kLong).remainder(batch).to(at::kFloat).unsqueeze(1);
  return at::cat({idx, all}, 1);
}

} // namespace

TEST_CASE("torchvision::nms", "[detection]") {
  load_torchvision();
  auto boxes = overlapping_boxes(60, 8, 100.0, 1);
  auto scores = randn({60}, 5).sigmoid();
  for (double iou : {0.5, 0.3, 0.7}) {
    SECTION("iou_threshold " + std::to_string(iou)) {
      auto r = check_ir_opsets(nms_ir(iou), {boxes, scores});
      CHECK(r.count("NonMaxSuppression") == 1);
      // The boxes overlap: suppression happens, and more than one box survives.
      int64_t kept = r.torch_outputs[0].size(0);
      CHECK(kept > 1);
      CHECK(kept < 60);
      // Same indices in the same order (decreasing score), not just the same set.
      CHECK(at::equal(r.ort_outputs[0].to(at::kLong), r.torch_outputs[0]));
    }
  }
  SECTION("batched_nms coordinate offsets: boxes of different classes never suppress each other") {
    // torchvision.ops.batched_nms moves each class's boxes apart by (class * (max coord + 1)).
    const char *ir = "graph(%boxes : Tensor, %scores : Tensor, %cls : Tensor):\n"
                     "  %iou : float = prim::Constant[value=0.5]()\n"
                     "  %one : int = prim::Constant[value=1]()\n"
                     "  %none : NoneType = prim::Constant()\n"
                     "  %m : Tensor = aten::max(%boxes)\n"
                     "  %m1 : Tensor = aten::add(%m, %one, %one)\n"
                     "  %off : Tensor = aten::mul(%cls, %m1)\n"
                     "  %o2 : Tensor = aten::unsqueeze(%off, %one)\n"
                     "  %b2 : Tensor = aten::add(%boxes, %o2, %one)\n"
                     "  %y : Tensor = torchvision::nms(%b2, %scores, %iou)\n"
                     "  return (%y)";
    auto cls = at::arange(60, at::kFloat).remainder(3);
    auto r = check_ir(ir, {boxes, scores, cls});
    CHECK(at::equal(r.ort_outputs[0].to(at::kLong), r.torch_outputs[0]));
  }
  SECTION("identical boxes: only the best-scored one is kept") {
    auto same = at::tensor({1.0f, 2.0f, 11.0f, 12.0f}).repeat({5, 1});
    auto s = at::tensor({0.1f, 0.9f, 0.3f, 0.5f, 0.2f});
    auto r = check_ir(nms_ir(0.5), {same, s});
    REQUIRE(r.torch_outputs[0].numel() == 1);
    CHECK(r.ort_outputs[0].to(at::kLong).item<int64_t>() == 1);
  }
}

TEST_CASE("torchvision::roi_align", "[detection]") {
  load_torchvision();
  auto x = randn({2, 3, 16, 20}, 11);
  SECTION("aligned=False, fixed sampling ratio, opsets 13 and 17") {
    auto r = check_ir_opsets(roi_align_ir(0.25, 5, 4, 2, false), {x, rois_for(2, 64.0)});
    CHECK(r.count("RoiAlign") == 1);
  }
  SECTION("aligned=False, adaptive sampling (sampling_ratio 0 and -1)") {
    check_ir_opsets(roi_align_ir(0.25, 7, 7, 0, false), {x, rois_for(2, 64.0)});
    check_ir_opsets(roi_align_ir(0.5, 3, 3, -1, false), {x, rois_for(2, 32.0)});
  }
  SECTION("aligned=True (Mask R-CNN's MultiScaleRoIAlign), opset 16 and 17") {
    for (int opset : {16, 17}) {
      check_ir(roi_align_ir(0.25, 7, 7, 2, true), {x, rois_for(2, 64.0)}, opset);
      check_ir(roi_align_ir(0.125, 14, 14, 0, true), {x, rois_for(2, 128.0)}, opset);
      check_ir(roi_align_ir(1.0, 2, 3, -1, true), {x, rois_for(2, 16.0)}, opset);
    }
  }
  SECTION("output values are not trivially zero") {
    auto r = check_ir(roi_align_ir(0.25, 7, 7, 2, true), {x, rois_for(2, 64.0)});
    CHECK(r.torch_outputs[0].abs().max().item<float>() > 0.1f);
    CHECK(r.torch_outputs[0].size(0) == 16);
  }
  SECTION("aligned=True before opset 16 is an error that names the opset") {
    auto err = export_ir_error(roi_align_ir(0.25, 7, 7, 2, true), {x, rois_for(2, 64.0)}, 15);
    CHECK(err.find("aligned=True") != std::string::npos);
    CHECK(err.find("opset 16") != std::string::npos);
  }
}

// The walker on patterns of traced detection graphs, which compute sizes as tensors.
TEST_CASE("detection graph patterns: shape arithmetic on tensors folds", "[detection]") {
  // GeneralizedRCNNTransform._onnx_batch_images: the padded size is torch.stack of image sizes,
  // max, ceil to a multiple of 32; the padding amounts must fold to ints for aten::pad.
  const std::string text = ir("%x : Tensor", R"IR(
  %f32 : int = prim::Constant[value=6]()
  %i64 : int = prim::Constant[value=4]()
  %s32 : float = prim::Constant[value=32.]()
  %mode : str = prim::Constant[value="constant"]()
  %h : int = aten::size(%x, %2)
  %ht : Tensor = prim::NumToTensor(%h)
  %hl : Tensor[] = prim::ListConstruct(%ht)
  %hs : Tensor = aten::stack(%hl, %0)
  %hf : Tensor = aten::to(%hs, %f32, %false, %false, %none)
  %hm : Tensor = aten::max(%hf)
  %hd : Tensor = aten::div(%hm, %s32)
  %hc : Tensor = aten::ceil(%hd)
  %hp : Tensor = aten::mul(%hc, %s32)
  %hi : Tensor = aten::to(%hp, %i64, %false, %false, %none)
  %d : Tensor = aten::sub(%hi, %ht, %1)
  %di : int = aten::Int(%d)
  %pads : int[] = prim::ListConstruct(%0, %di, %0, %di)
  %y : Tensor = aten::pad(%x, %pads, %mode, %none))IR");
  auto r = check_ir(text, {randn({1, 3, 40, 40}, 3)});
  CHECK(r.torch_outputs[0].size(2) == 64);
  CHECK(r.count("Pad") == 1);
}

TEST_CASE("detection graph patterns: in-place update of a folded constant", "[detection]") {
  // RegionProposalNetwork._get_top_n_idx: `offset += num_anchors` between uses of offset; each
  // use must see the value it had at that point.
  const std::string text = ir("%x : Tensor", R"IR(
  %n : int = aten::size(%x, %1)
  %nt : Tensor = prim::NumToTensor(%n)
  %off : Tensor = aten::add(%nt, %0, %1)
  %a : Tensor = aten::add(%x, %off, %1)
  %off2 : Tensor = aten::add_(%off, %nt, %1)
  %b : Tensor = aten::add(%x, %off2, %1)
  %off3 : Tensor = aten::add_(%off2, %nt, %1)
  %c : Tensor = aten::add(%x, %off3, %1)
  %l : Tensor[] = prim::ListConstruct(%a, %b, %c)
  %y : Tensor = aten::cat(%l, %0))IR");
  auto x = randn({2, 5}, 4);
  auto r = check_ir(text, {x});
  // a = x + 5, b = x + 10, c = x + 15: the offsets differ.
  CHECK(at::allclose(r.torch_outputs[0].slice(0, 4, 6) - r.torch_outputs[0].slice(0, 0, 2),
                     at::full({2, 5}, 10.0f)));
}

TEST_CASE("detection graph patterns: sizes that follow a data-dependent count stay dynamic",
          "[detection]") {
  // torchvision keeps `keep[:detections_per_img]` of torch.where(scores > thresh)[0] and views the
  // kept indices as (-1, 1, 1, 1) (MultiScaleRoIAlign): the count seen at the example (3 after
  // the cap; 0 boxes above 2.0) must not become a constant in the ONNX file. The unseen input
  // has the same shape but other counts (2 and 2).
  const std::string text = ir("%x : Tensor", R"IR(
  %t0 : float = prim::Constant[value=0.]()
  %t2 : float = prim::Constant[value=2.]()
  %m : Tensor = aten::gt(%x, %t0)
  %w : Tensor[] = aten::where(%m)
  %idx : Tensor = aten::__getitem__(%w, %0)
  %top : Tensor = aten::slice(%idx, %0, %0, %3, %1)
  %v : Tensor = aten::index_select(%x, %0, %top)
  %s : int[] = prim::ListConstruct(%m1, %1)
  %a : Tensor = aten::view(%v, %s)
  %g2 : Tensor = aten::gt(%x, %t2)
  %w2 : Tensor[] = aten::where(%g2)
  %idx2 : Tensor = aten::__getitem__(%w2, %0)
  %v2 : Tensor = aten::index_select(%x, %0, %idx2)
  %b : Tensor = aten::view(%v2, %s)
  %n : int = aten::size(%v2, %0)
  %nt : Tensor = prim::NumToTensor(%n))IR",
                              "%a, %b, %nt");
  auto example = at::tensor({0.5f, 1.5f, -1.0f, 0.25f, 1.0f, -0.5f});
  auto unseen = at::tensor({-0.5f, 3.5f, -1.0f, -0.25f, 2.5f, -0.5f});
  auto r = check_ir_unseen(text, {example}, {unseen});
  CHECK(r.torch_outputs[0].size(0) == 3);
  CHECK(r.torch_outputs[1].size(0) == 0);
  CHECK(r.count("NonZero") == 2);
}

TEST_CASE("detection graph patterns: rows selected by a boolean mask stay dynamic", "[detection]") {
  // x[x > 0].view(-1, 1): aten::index with a boolean mask returns as many rows as the mask has
  // true values (3 at the example, 2 and 0 in the unseen inputs).
  const std::string text = ir("%x : Tensor", R"IR(
  %t0 : float = prim::Constant[value=0.]()
  %m : Tensor = aten::gt(%x, %t0)
  %l : Tensor?[] = prim::ListConstruct(%m)
  %v : Tensor = aten::index(%x, %l)
  %s : int[] = prim::ListConstruct(%m1, %1)
  %a : Tensor = aten::view(%v, %s))IR",
                              "%a");
  auto example = at::tensor({0.5f, 1.5f, -1.0f, 0.25f, -0.5f});
  auto r = check_ir_unseen(text, {example}, {at::tensor({-0.5f, 3.5f, -1.0f, -0.25f, 2.5f})});
  CHECK(r.torch_outputs[0].size(0) == 3);
  check_ir_unseen(text, {example}, {at::full({5}, -1.0f)});
}

TEST_CASE("detection graph patterns: flatten of a dynamic count, also when it is 0",
          "[detection]") {
  // RetinaNet flattens per-level box deltas [n, 1, 4] to [n, 4]; a level may keep no box.
  const std::string text = ir("%x : Tensor", R"IR(
  %t0 : float = prim::Constant[value=0.]()
  %a : Tensor = aten::select(%x, %2, %0)
  %c : Tensor = aten::select(%a, %1, %0)
  %m : Tensor = aten::gt(%c, %t0)
  %l : Tensor?[] = prim::ListConstruct(%m)
  %v : Tensor = aten::index(%x, %l)
  %f : Tensor = aten::flatten(%v, %1, %m1))IR",
                              "%f");
  auto example = randn({6, 1, 4}, 5).abs();
  example.select(0, 1).fill_(-1.0f); // 5 of 6 rows kept at the example
  auto r = check_ir_unseen(text, {example}, {at::full({6, 1, 4}, -1.0f)});
  CHECK(r.torch_outputs[0].size(0) == 5);
  CHECK(r.torch_outputs[0].size(1) == 4);
}
