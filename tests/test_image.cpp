#include "harness.h"
#include "ir_text.h"

#include <catch2/catch.hpp>

using namespace t2o_test;

TEST_CASE("aten::upsample_nearest1d", "[image]") {
  auto x = randn({1, 2, 5});
  SECTION("output size") {
    auto r = check_ir_opsets(ir("%x : Tensor", "  %o : int[] = prim::ListConstruct(%7)\n"
                                               "  %y : Tensor = aten::upsample_nearest1d(%x, %o, "
                                               "%none)"),
                             {x});
    CHECK(r.count("Resize") == 1);
  }
  SECTION("vec with scales") {
    check_ir_opsets(ir("%x : Tensor", "  %f : float[] = prim::ListConstruct(%s2)\n"
                                      "  %y : Tensor = aten::upsample_nearest1d(%x, %none, %f)"),
                    {x});
  }
}

TEST_CASE("aten::upsample_nearest3d", "[image]") {
  auto x = randn({1, 2, 2, 3, 4});
  check_ir_opsets(ir("%x : Tensor",
                     "  %o : int[] = prim::ListConstruct(%3, %5, %7)\n"
                     "  %y : Tensor = aten::upsample_nearest3d(%x, %o, %none, %none, "
                     "%none)"),
                  {x});
  check_ir_opsets(ir("%x : Tensor", "  %f : float[] = prim::ListConstruct(%s2, %s2, %s2)\n"
                                    "  %y : Tensor = aten::upsample_nearest3d(%x, %none, %f)"),
                  {x});
}

TEST_CASE("aten::upsample_linear1d", "[image]") {
  auto x = randn({2, 3, 5});
  for (const char *align : {"%false", "%true"}) {
    check_ir_opsets(
        ir("%x : Tensor", std::string("  %o : int[] = prim::ListConstruct(%7)\n"
                                      "  %y : Tensor = aten::upsample_linear1d(%x, %o, ") +
                              align + ", %none)"),
        {x});
  }
  check_ir_opsets(ir("%x : Tensor",
                     "  %f : float[] = prim::ListConstruct(%s2)\n"
                     "  %y : Tensor = aten::upsample_linear1d(%x, %none, %false, %f)"),
                  {x});
}

TEST_CASE("aten::upsample_trilinear3d", "[image]") {
  auto x = randn({1, 2, 2, 3, 4});
  for (const char *align : {"%false", "%true"}) {
    check_ir_opsets(ir("%x : Tensor", std::string("  %o : int[] = prim::ListConstruct(%3, %5, %7)\n"
                                                  "  %y : Tensor = aten::upsample_trilinear3d(%x, "
                                                  "%o, ") +
                                          align + ", %none, %none, %none)"),
                    {x});
  }
}

TEST_CASE("aten::upsample_bicubic2d", "[image]") {
  auto x = randn({1, 2, 4, 5});
  for (const char *align : {"%false", "%true"}) {
    check_ir_opsets(ir("%x : Tensor", std::string("  %o : int[] = prim::ListConstruct(%7, %7)\n"
                                                  "  %y : Tensor = aten::upsample_bicubic2d(%x, "
                                                  "%o, ") +
                                          align + ", %none, %none)"),
                    {x});
  }
  check_ir_opsets(ir("%x : Tensor",
                     "  %f : float[] = prim::ListConstruct(%s2, %s2)\n"
                     "  %y : Tensor = aten::upsample_bicubic2d(%x, %none, %false, %f)"),
                  {x});
}

TEST_CASE("aten::__interpolate", "[image]") {
  auto x = randn({1, 2, 4, 6});
  SECTION("size, bilinear") {
    check_ir_opsets(ir("%x : Tensor", "  %m : str = prim::Constant[value=\"bilinear\"]()\n"
                                      "  %o : int[] = prim::ListConstruct(%5, %7)\n"
                                      "  %y : Tensor = aten::__interpolate(%x, %o, %none, %m, "
                                      "%false, %none, %false)"),
                    {x});
  }
  SECTION("scale, nearest") {
    check_ir_opsets(ir("%x : Tensor", "  %m : str = prim::Constant[value=\"nearest\"]()\n"
                                      "  %y : Tensor = aten::__interpolate(%x, %none, %s2, %m, "
                                      "%none, %none, %false)"),
                    {x});
  }
  SECTION("scale recomputed, bicubic") {
    check_ir_opsets(ir("%x : Tensor", "  %m : str = prim::Constant[value=\"bicubic\"]()\n"
                                      "  %y : Tensor = aten::__interpolate(%x, %none, %s15, %m, "
                                      "%false, %true, %false)"),
                    {x});
  }
}

TEST_CASE("aten::grid_sampler", "[image]") {
  auto x = randn({1, 2, 4, 5});
  auto grid = at::rand({1, 3, 6, 2}) * 2.2 - 1.1;
  for (int mode = 0; mode < 2; ++mode)
    for (int pad = 0; pad < 3; ++pad)
      for (const char *align : {"%false", "%true"}) {
        std::string body = "  %mode : int = prim::Constant[value=" + std::to_string(mode) +
                           "]()\n  %pad : int = prim::Constant[value=" + std::to_string(pad) +
                           "]()\n  %y : Tensor = aten::grid_sampler(%x, %g, %mode, %pad, " + align +
                           ")";
        auto r = check_ir(ir("%x : Tensor, %g : Tensor", body), {x, grid}, 16);
        CHECK(r.count("GridSample") == 1);
        check_ir(ir("%x : Tensor, %g : Tensor", body), {x, grid}, 17);
      }
}

TEST_CASE("aten::grid_sampler below opset 16 (decomposed into GatherElements)", "[image]") {
  auto x = randn({2, 3, 4, 5});
  auto grid = at::rand({2, 3, 6, 2}) * 2.4 - 1.2; // some points fall outside the image
  for (int mode = 0; mode < 2; ++mode)
    for (int pad = 0; pad < 2; ++pad)
      for (const char *align : {"%false", "%true"}) {
        std::string body = "  %mode : int = prim::Constant[value=" + std::to_string(mode) +
                           "]()\n  %pad : int = prim::Constant[value=" + std::to_string(pad) +
                           "]()\n  %y : Tensor = aten::grid_sampler(%x, %g, %mode, %pad, " + align +
                           ")";
        for (int opset : {13, 14, 15}) {
          auto r = check_ir(ir("%x : Tensor, %g : Tensor", body), {x, grid}, opset);
          CHECK(r.count("GridSample") == 0);
          CHECK(r.count("GatherElements") >= 1);
        }
      }
  // Reflection padding has no exact decomposition here: the error names the opset to use.
  CHECK(export_ir_error(ir("%x : Tensor, %g : Tensor",
                           "  %y : Tensor = aten::grid_sampler(%x, %g, %0, %2, %false)"),
                        {x, grid}, 13)
            .find("--opset 16") != std::string::npos);
}

TEST_CASE("aten::grid_sampler_2d", "[image]") {
  auto x = randn({2, 3, 5, 5});
  auto grid = at::rand({2, 4, 4, 2}) * 2 - 1;
  check_ir(ir("%x : Tensor, %g : Tensor",
              "  %y : Tensor = aten::grid_sampler_2d(%x, %g, %0, %1, %true)"),
           {x, grid}, 17);
}

TEST_CASE("aten::pixel_shuffle", "[image]") {
  auto r = check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::pixel_shuffle(%x, %2)"),
                           {randn({2, 8, 3, 4})});
  CHECK(r.count("DepthToSpace") == 1);
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::pixel_shuffle(%x, %3)"),
                  {randn({2, 2, 9, 2, 3})});
  // Channels, height and width known only at run time (rank 5: not DepthToSpace).
  check_ir_dynamic(ir("%x : Tensor", "  %y : Tensor = aten::pixel_shuffle(%x, %2)"),
                   {randn({3, 2, 8, 3, 4})}, {randn({3, 2, 12, 5, 2}, 2)}, 11);
}

TEST_CASE("aten::pixel_unshuffle", "[image]") {
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::pixel_unshuffle(%x, %2)"),
                  {randn({2, 3, 4, 6})});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::pixel_unshuffle(%x, %3)"),
                  {randn({2, 6, 3})});
  // Height and width known only at run time (a model taking any even image size).
  for (int opset : {11, 17})
    check_ir_dynamic(ir("%x : Tensor", "  %y : Tensor = aten::pixel_unshuffle(%x, %2)"),
                     {randn({2, 3, 4, 6})}, {randn({1, 3, 8, 10}, 2)}, opset);
  check_ir_dynamic(ir("%x : Tensor", "  %y : Tensor = aten::pixel_unshuffle(%x, %3)"),
                   {randn({2, 6, 3})}, {randn({4, 3, 9}, 2)});
}

TEST_CASE("aten::channel_shuffle", "[image]") {
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::channel_shuffle(%x, %3)"),
                  {randn({2, 6, 3, 2})});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::native_channel_shuffle(%x, %2)"),
                  {randn({1, 4, 5})});
}

TEST_CASE("aten::im2col", "[image]") {
  auto x = randn({2, 3, 6, 5});
  check_ir_opsets(ir("%x : Tensor", "  %k : int[] = prim::ListConstruct(%3, %2)\n"
                                    "  %d : int[] = prim::ListConstruct(%1, %1)\n"
                                    "  %p : int[] = prim::ListConstruct(%1, %0)\n"
                                    "  %s : int[] = prim::ListConstruct(%2, %1)\n"
                                    "  %y : Tensor = aten::im2col(%x, %k, %d, %p, %s)"),
                  {x});
  check_ir_opsets(ir("%x : Tensor", "  %k : int[] = prim::ListConstruct(%2, %2)\n"
                                    "  %d : int[] = prim::ListConstruct(%2, %1)\n"
                                    "  %p : int[] = prim::ListConstruct(%0, %1)\n"
                                    "  %s : int[] = prim::ListConstruct(%1, %2)\n"
                                    "  %y : Tensor = aten::im2col(%x, %k, %d, %p, %s)"),
                  {randn({3, 6, 5})});
  // H and W known only at run time (F.unfold in a model taking any image size): strided Slices.
  for (int opset : {11, 13, 17})
    check_ir_dynamic(ir("%x : Tensor", "  %k : int[] = prim::ListConstruct(%3, %2)\n"
                                       "  %d : int[] = prim::ListConstruct(%2, %1)\n"
                                       "  %p : int[] = prim::ListConstruct(%1, %0)\n"
                                       "  %s : int[] = prim::ListConstruct(%2, %3)\n"
                                       "  %y : Tensor = aten::im2col(%x, %k, %d, %p, %s)"),
                     {randn({2, 3, 9, 8})}, {randn({1, 3, 12, 13}, 2)}, opset);
  check_ir_dynamic(ir("%x : Tensor", "  %k : int[] = prim::ListConstruct(%1, %1)\n"
                                     "  %z : int[] = prim::ListConstruct(%0, %0)\n"
                                     "  %y : Tensor = aten::im2col(%x, %k, %k, %z, %k)"),
                   {randn({3, 6, 5})}, {randn({3, 4, 7}, 2)});
}

TEST_CASE("aten::col2im to a runtime image size", "[image]") {
  // F.fold(F.unfold(x), x.shape[-2:]) in a model taking any image size: im2col by strided
  // Slices, col2im by spreading each kernel offset's values (Col2Im with a runtime size at 18).
  auto g = ir("%x : Tensor", "  %k : int[] = prim::ListConstruct(%3, %2)\n"
                             "  %d : int[] = prim::ListConstruct(%2, %1)\n"
                             "  %p : int[] = prim::ListConstruct(%1, %0)\n"
                             "  %s : int[] = prim::ListConstruct(%2, %3)\n"
                             "  %h : int = aten::size(%x, %2)\n"
                             "  %w : int = aten::size(%x, %3)\n"
                             "  %o : int[] = prim::ListConstruct(%h, %w)\n"
                             "  %c : Tensor = aten::im2col(%x, %k, %d, %p, %s)\n"
                             "  %y : Tensor = aten::col2im(%c, %o, %k, %d, %p, %s)");
  for (int opset : {11, 17, 18})
    check_ir_dynamic(g, {randn({2, 3, 9, 8})}, {randn({1, 3, 12, 13}, 2)}, opset);
  auto plain = ir("%x : Tensor", "  %k : int[] = prim::ListConstruct(%2, %2)\n"
                                 "  %one : int[] = prim::ListConstruct(%1, %1)\n"
                                 "  %z : int[] = prim::ListConstruct(%0, %0)\n"
                                 "  %h : int = aten::size(%x, %2)\n"
                                 "  %w : int = aten::size(%x, %3)\n"
                                 "  %o : int[] = prim::ListConstruct(%h, %w)\n"
                                 "  %c : Tensor = aten::im2col(%x, %k, %one, %z, %k)\n"
                                 "  %y : Tensor = aten::col2im(%c, %o, %k, %one, %z, %k)");
  check_ir_dynamic(plain, {randn({2, 4, 8, 6})}, {randn({3, 4, 4, 10}, 2)}, 13);
}

TEST_CASE("aten::col2im", "[image]") {
  // [N, C*kh*kw, L] for a 6x5 image, kernel 3x2, padding (1, 0), stride (2, 1): L = 3 * 4.
  check_ir_opsets(ir("%x : Tensor", "  %o : int[] = prim::ListConstruct(%6, %5)\n"
                                    "  %k : int[] = prim::ListConstruct(%3, %2)\n"
                                    "  %d : int[] = prim::ListConstruct(%1, %1)\n"
                                    "  %p : int[] = prim::ListConstruct(%1, %0)\n"
                                    "  %s : int[] = prim::ListConstruct(%2, %1)\n"
                                    "  %y : Tensor = aten::col2im(%x, %o, %k, %d, %p, %s)"),
                  {randn({2, 18, 12})});
  // Col2Im from opset 18 (check_ir_opsets' opset-21 run); the MatMul form below.
  auto body = "  %o : int[] = prim::ListConstruct(%6, %5)\n"
              "  %k : int[] = prim::ListConstruct(%3, %2)\n"
              "  %d : int[] = prim::ListConstruct(%1, %1)\n"
              "  %p : int[] = prim::ListConstruct(%1, %0)\n"
              "  %s : int[] = prim::ListConstruct(%2, %1)\n"
              "  %y : Tensor = aten::col2im(%x, %o, %k, %d, %p, %s)";
  CHECK(check_ir(ir("%x : Tensor", body), {randn({2, 18, 12})}, 18).count("Col2Im") == 1);
  CHECK(check_ir(ir("%x : Tensor", body), {randn({18, 12})}, 21).count("Col2Im") == 1);
  CHECK(check_ir(ir("%x : Tensor", body), {randn({2, 18, 12})}, 17).count("Col2Im") == 0);
}

// F.affine_grid: a constant base grid times theta below opset 20, AffineGrid from 20.
TEST_CASE("aten::affine_grid_generator", "[image]") {
  for (const char *align : {"%false", "%true"}) {
    std::string body = std::string("  %n : int = prim::Constant[value=2]()\n"
                                   "  %h : int = prim::Constant[value=4]()\n"
                                   "  %sz : int[] = prim::ListConstruct(%n, %3, %h, %5)\n"
                                   "  %y : Tensor = aten::affine_grid_generator(%x, %sz, ") +
                       align + ")";
    auto r = check_ir_opsets(ir("%x : Tensor", body), {randn({2, 2, 3})});
    CHECK(r.count("AffineGrid") == 1);
    CHECK(check_ir(ir("%x : Tensor", body), {randn({2, 2, 3})}, 19).count("MatMul") == 1);
  }
  // F.affine_grid(theta, x.size()) with a batch known only at run time (a spatial transformer).
  std::string dyn = "  %n : int = aten::size(%x, %0)\n"
                    "  %h : int = prim::Constant[value=4]()\n"
                    "  %sz : int[] = prim::ListConstruct(%n, %3, %h, %5)\n"
                    "  %y : Tensor = aten::affine_grid_generator(%x, %sz, %false)";
  for (int opset : {11, 17})
    check_ir_dynamic(ir("%x : Tensor", dyn), {randn({2, 2, 3})}, {randn({5, 2, 3}, 2)}, opset);
}

// GridSample-20 samples 5-D inputs (volumetric grid_sample) and calls bilinear "linear".
TEST_CASE("aten::grid_sampler at opset 20", "[image]") {
  std::string body = "  %y : Tensor = aten::grid_sampler(%x, %g, %0, %0, %false)";
  auto r = check_ir(ir("%x : Tensor, %g : Tensor", body),
                    {randn({1, 2, 3, 4, 5}), at::rand({1, 2, 3, 4, 3}) * 2 - 1}, 20);
  CHECK(r.count("GridSample") == 1);
  check_ir(ir("%x : Tensor, %g : Tensor", body), {randn({1, 2, 4, 5}), at::rand({1, 3, 6, 2})}, 21);
}

namespace {

// _upsample_<kind>2d_aa(x, [oh, ow], align, scales_h, scales_w) on an 11x13 image: downsampling
// (where antialiasing widens the filter), upsampling, and mixed.
void check_aa(const std::string &kind) {
  auto x = randn({2, 3, 11, 13});
  for (auto [oh, ow] : std::vector<std::pair<int, int>>{{4, 5}, {3, 13}, {17, 6}, {22, 26}})
    for (const char *align : {"%false", "%true"}) {
      DYNAMIC_SECTION(kind << " to " << oh << "x" << ow << " align " << align) {
        std::string body = "  %oh : int = prim::Constant[value=" + std::to_string(oh) + "]()\n" +
                           "  %ow : int = prim::Constant[value=" + std::to_string(ow) + "]()\n" +
                           "  %o : int[] = prim::ListConstruct(%oh, %ow)\n" +
                           "  %y : Tensor = aten::_upsample_" + kind + "2d_aa(%x, %o, " + align +
                           ", %none, %none)";
        auto r = check_ir_opsets(ir("%x : Tensor", body), {x});
        CHECK(r.count("MatMul") == 2);
      }
    }
  SECTION(kind + " by scale factors (vec overload)") {
    std::string body = "  %f : float = prim::Constant[value=0.37]()\n"
                       "  %fs : float[] = prim::ListConstruct(%f, %s15)\n"
                       "  %y : Tensor = aten::_upsample_" +
                       kind + "2d_aa(%x, %none, %false, %fs)";
    check_ir_opsets(ir("%x : Tensor", body), {x});
  }
}

} // namespace

TEST_CASE("aten::_upsample_bilinear2d_aa", "[image]") {
  check_aa("bilinear");
}

TEST_CASE("aten::_upsample_bicubic2d_aa", "[image]") {
  check_aa("bicubic");
}

// timm's resample_abs_pos_embed at a dynamic image size: a static position grid resized, with
// antialiasing, to the image's patch grid (known at run time), down at the example and up at the
// alternate; and a dynamic image scaled by factors. The weights are computed in the graph.
TEST_CASE("anti-aliased resampling to sizes known only at run time", "[image]") {
  for (std::string kind : {"bilinear", "bicubic"})
    for (const char *align : {"%false", "%true"}) {
      INFO(kind << " align " << align);
      std::string grid = R"IR(
graph(%x : Tensor, %p : Tensor):
  %none : NoneType = prim::Constant()
  %false : bool = prim::Constant[value=0]()
  %true : bool = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %three : int = prim::Constant[value=3]()
  %eight : int = prim::Constant[value=8]()
  %h : int = aten::size(%x, %two)
  %w : int = aten::size(%x, %three)
  %gh : int = aten::floordiv(%h, %eight)
  %gw : int = aten::floordiv(%w, %eight)
  %o : int[] = prim::ListConstruct(%gh, %gw)
  %y : Tensor = aten::_upsample_)IR" +
                         kind + "2d_aa(%p, %o, " + align + ", %none, %none)\n  return (%y)";
      auto p = randn({1, 4, 7, 7}, 3);
      for (int opset : {11, 17})
        check_ir_dynamic(grid, {randn({1, 3, 40, 24}, 1), p}, {randn({1, 3, 96, 64}, 2), p}, opset);
    }
  for (std::string kind : {"bilinear", "bicubic"}) {
    std::string scaled = R"IR(
graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %false : bool = prim::Constant[value=0]()
  %f : float = prim::Constant[value=0.37]()
  %g : float = prim::Constant[value=1.5]()
  %fs : float[] = prim::ListConstruct(%f, %g)
  %y : Tensor = aten::_upsample_)IR" +
                         kind + "2d_aa(%x, %none, %false, %fs)\n  return (%y)";
    check_ir_dynamic(scaled, {randn({2, 3, 11, 13}, 4)}, {randn({2, 3, 19, 8}, 5)});
  }
}

// Volumetric grid sampling: GridSample-20 on 5-D inputs; below opset 20 the GatherElements
// decomposition (trilinear / nearest, zeros / border padding).
TEST_CASE("aten::grid_sampler_3d", "[image]") {
  auto x = randn({2, 3, 4, 5, 6}, 51), g = at::rand({2, 3, 4, 2, 3}) * 2.2 - 1.1;
  auto body = [](int mode, int pad, bool align) {
    return "  %y : Tensor = aten::grid_sampler_3d(%x, %g, %" + std::to_string(mode) + ", %" +
           std::to_string(pad) + ", %" + (align ? "true" : "false") + ")";
  };
  for (int mode : {0, 1})
    for (int pad : {0, 1, 2})
      for (bool align : {false, true})
        DYNAMIC_SECTION("mode " << mode << " padding " << pad << " align " << align) {
          auto text = ir("%x : Tensor, %g : Tensor", body(mode, pad, align));
          CHECK(check_ir(text, {x, g}, 20).count("GridSample") == 1);
          if (pad < 2) {
            auto r = check_ir_opsets(text, {x, g}); // opsets 11 and 21
            CHECK(check_ir(text, {x, g}, 17).count("GridSample") == 0);
          } else {
            CHECK(contains(export_ir_error(text, {x, g}, 19), "use --opset 20"));
          }
        }
}

// Nearest reads input floor(o * s) with s = in / out (or 1 / scale_factor) in float32, as LibTorch;
// ONNX Resize divides by out / in instead and reads another pixel at exact boundaries (14 -> 8:
// o = 4 reads 7 in LibTorch, 6 in Resize). Inputs are arange values, so a pixel off shows.
TEST_CASE("nearest resampling reads LibTorch's pixels at fractional scales", "[image]") {
  auto x = at::arange(14 * 18, at::kFloat).reshape({1, 1, 14, 18});
  const std::string by_size = R"IR(
graph(%x : Tensor):
  %h : int = prim::Constant[value=8]()
  %w : int = prim::Constant[value=10]()
  %o : int[] = prim::ListConstruct(%h, %w)
  %none : NoneType = prim::Constant()
  %y : Tensor = aten::upsample_nearest2d(%x, %o, %none, %none)
  return (%y))IR";
  auto r = check_ir_opsets(by_size, {x});
  CHECK(r.count("Resize") == 0);
  const std::string by_scale = R"IR(
graph(%x : Tensor):
  %s : float = prim::Constant[value=0.6]()
  %t : float = prim::Constant[value=1.5]()
  %f : float[] = prim::ListConstruct(%s, %t)
  %none : NoneType = prim::Constant()
  %y : Tensor = aten::upsample_nearest2d(%x, %none, %f)
  return (%y))IR";
  check_ir_opsets(by_scale, {x});
  // Symbolic sizes: the indices are computed at run time (a power-of-two factor keeps Resize).
  auto x2 = at::arange(9 * 23, at::kFloat).reshape({1, 1, 9, 23});
  check_ir_dynamic(by_scale, {x}, {x2});
  const std::string twice = R"IR(
graph(%x : Tensor):
  %s : float = prim::Constant[value=2.]()
  %f : float[] = prim::ListConstruct(%s, %s)
  %none : NoneType = prim::Constant()
  %y : Tensor = aten::upsample_nearest2d(%x, %none, %f)
  return (%y))IR";
  auto r2 = check_ir_dynamic(twice, {x}, {x2});
  CHECK(r2.count("Resize") == 1);
}

// nearest-exact (F.interpolate(mode='nearest-exact')) reads floor((o + 0.5) * s), the pixel
// centre, in float32: a Gather per dim of those indices, for known and symbolic sizes.
TEST_CASE("aten::_upsample_nearest_exact1d/2d/3d", "[image]") {
  auto x = at::arange(14 * 18, at::kFloat).reshape({1, 1, 14, 18});
  auto x2 = at::arange(2 * 9 * 23, at::kFloat).reshape({2, 1, 9, 23});
  for (const char *factors : {"%s, %t", "%t, %t"}) {
    const std::string by_scale = std::string(R"IR(
graph(%x : Tensor):
  %s : float = prim::Constant[value=0.6]()
  %t : float = prim::Constant[value=1.7]()
  %f : float[] = prim::ListConstruct()IR") +
                                 factors + R"IR()
  %none : NoneType = prim::Constant()
  %y : Tensor = aten::_upsample_nearest_exact2d(%x, %none, %f)
  return (%y))IR";
    check_ir_opsets(by_scale, {x});
    check_ir_dynamic(by_scale, {x}, {x2});
  }
  check_ir_opsets(R"IR(
graph(%x : Tensor):
  %h : int = prim::Constant[value=11]()
  %o : int[] = prim::ListConstruct(%h)
  %none : NoneType = prim::Constant()
  %y : Tensor = aten::_upsample_nearest_exact1d(%x, %o, %none)
  return (%y))IR",
                  {at::arange(2 * 3 * 7, at::kFloat).reshape({2, 3, 7})});
  check_ir(R"IR(
graph(%x : Tensor):
  %t : float = prim::Constant[value=1.5]()
  %f : float[] = prim::ListConstruct(%t, %t, %t)
  %none : NoneType = prim::Constant()
  %y : Tensor = aten::_upsample_nearest_exact3d(%x, %none, %f)
  return (%y))IR",
           {at::arange(3 * 4 * 5, at::kFloat).reshape({1, 1, 3, 4, 5})});
}

TEST_CASE("interpolation by a scale factor known only at run time", "[image]") {
  // Arbitrary-scale super-resolution: F.interpolate(x, scale_factor=s) with s a model input.
  // The output size follows s (recorded at other values of s), so one file serves 2.0 and 3.0.
  for (const char *mode : {"bilinear", "bicubic"}) {
    INFO(mode);
    std::string grid = std::string(R"IR(
graph(%x : Tensor, %s : Tensor):
  %none : NoneType = prim::Constant()
  %false : bool = prim::Constant[value=0]()
  %m : str = prim::Constant[value=")IR") +
                       mode + R"IR("]()
  %f : float = aten::Float(%s)
  %fs : float[] = prim::ListConstruct(%f, %f)
  %y : Tensor = aten::__interpolate(%x, %none, %fs, %m, %false, %none, %false)
  return (%y)
)IR";
    for (int opset : {11, 17})
      check_ir_dynamic(grid, {randn({1, 2, 5, 6}, 1), at::scalar_tensor(2.0)},
                       {randn({1, 2, 7, 4}, 2), at::scalar_tensor(3.0)}, opset);
  }
  std::string err = export_ir_error(R"IR(
graph(%x : Tensor, %s : Tensor):
  %none : NoneType = prim::Constant()
  %f : float = aten::Float(%s)
  %fs : float[] = prim::ListConstruct(%f, %f)
  %y : Tensor = aten::upsample_nearest2d(%x, %none, %fs)
  return (%y)
)IR",
                                    {randn({1, 2, 5, 6}, 1), at::scalar_tensor(2.0)});
  INFO(err);
  CHECK(contains(err, "scale factor known only at run time"));
}
