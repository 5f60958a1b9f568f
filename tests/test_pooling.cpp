#include "harness.h"
#include "ir_text.h"

#include <catch2/catch.hpp>

using namespace t2o_test;

namespace {

// The IR parser cannot read an empty list constant; build it with ListConstruct.
std::string int_list(const std::string &name, const std::string &v) {
  if (v == "[]")
    return "  %" + name + " : int[] = prim::ListConstruct()\n";
  return "  %" + name + " : int[] = prim::Constant[value=" + v + "]()\n";
}

std::string max_pool_ir(const std::string &op, const std::string &k, const std::string &s,
                        const std::string &p, const std::string &d, bool ceil,
                        bool indices = false) {
  return R"IR(
graph(%x : Tensor):
  %ceil : bool = prim::Constant[value=)IR" +
         std::string(ceil ? "1" : "0") + R"IR(]()
  %k : int[] = prim::Constant[value=)IR" +
         k + R"IR(]()
)IR" + int_list("s", s) +
         R"IR(  %p : int[] = prim::Constant[value=)IR" + p + R"IR(]()
  %d : int[] = prim::Constant[value=)IR" +
         d + "]()\n" +
         (indices ? "  %y : Tensor, %i : Tensor = " + op + "(%x, %k, %s, %p, %d, %ceil)\n" +
                        "  return (%y, %i)"
                  : "  %y : Tensor = " + op + "(%x, %k, %s, %p, %d, %ceil)\n  return (%y)");
}

std::string avg_pool_ir(const std::string &op, const std::string &k, const std::string &s,
                        const std::string &p, bool ceil, bool include_pad,
                        const std::string &divisor) {
  bool has_divisor = op != "aten::avg_pool1d";
  return R"IR(
graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %ceil : bool = prim::Constant[value=)IR" +
         std::string(ceil ? "1" : "0") + R"IR(]()
  %cip : bool = prim::Constant[value=)IR" +
         std::string(include_pad ? "1" : "0") + R"IR(]()
  %div : int = prim::Constant[value=)IR" +
         (divisor.empty() ? "1" : divisor) + R"IR(]()
  %k : int[] = prim::Constant[value=)IR" +
         k + R"IR(]()
)IR" + int_list("s", s) +
         R"IR(  %p : int[] = prim::Constant[value=)IR" + p + R"IR(]()
  %y : Tensor = )IR" +
         op + "(%x, %k, %s, %p, %ceil, %cip" +
         (has_divisor ? (divisor.empty() ? ", %none" : ", %div") : "") + R"IR()
  return (%y))IR";
}

std::string adaptive_ir(const std::string &op, const std::string &size, bool two_outputs) {
  return R"IR(
graph(%x : Tensor):
  %o : int[] = prim::Constant[value=)IR" +
         size + "]()\n" +
         (two_outputs ? "  %y : Tensor, %i : Tensor = " + op + "(%x, %o)\n  return (%y, %i)"
                      : "  %y : Tensor = " + op + "(%x, %o)\n  return (%y)");
}

} // namespace

TEST_CASE("aten::max_pool2d", "[pooling]") {
  SECTION("kernel 3 stride 2 padding 1") {
    auto r = check_ir_opsets(
        max_pool_ir("aten::max_pool2d", "[3, 3]", "[2, 2]", "[1, 1]", "[1, 1]", false),
        {randn({2, 3, 9, 8}, 1)});
    CHECK(r.count("MaxPool") == 1);
  }
  SECTION("empty stride means kernel, one-element lists broadcast") {
    check_ir_opsets(max_pool_ir("aten::max_pool2d", "[2]", "[]", "[0]", "[1]", false),
                    {randn({1, 2, 6, 7}, 1)});
  }
  SECTION("dilation and asymmetric kernel") {
    check_ir_opsets(max_pool_ir("aten::max_pool2d", "[2, 3]", "[1, 2]", "[1, 0]", "[2, 1]", false),
                    {randn({1, 2, 8, 9}, 1)});
  }
  SECTION("ceil_mode, including a dropped last window") {
    check_ir_opsets(max_pool_ir("aten::max_pool2d", "[3, 3]", "[2, 2]", "[0, 0]", "[1, 1]", true),
                    {randn({1, 2, 8, 10}, 1)});
    // in 6, kernel 2, stride 2, pad 1: the ONNX formula gives 5 windows, torch 4.
    check_ir_opsets(max_pool_ir("aten::max_pool2d", "[2, 2]", "[2, 2]", "[1, 1]", "[1, 1]", true),
                    {randn({1, 2, 6, 6}, 1)});
    // The same with sizes known at run time: the dropped window is sliced off there.
    check_ir_dynamic(max_pool_ir("aten::max_pool2d", "[3, 3]", "[3, 3]", "[1, 1]", "[1, 1]", true),
                     {randn({1, 2, 10, 10}, 1)}, {randn({2, 2, 11, 13}, 2)});
  }
  SECTION("unbatched input") {
    check_ir_opsets(max_pool_ir("aten::max_pool2d", "[2, 2]", "[2, 2]", "[0, 0]", "[1, 1]", false),
                    {randn({3, 6, 6}, 1)});
  }
}

TEST_CASE("aten::max_pool1d", "[pooling]") {
  auto r = check_ir_opsets(max_pool_ir("aten::max_pool1d", "[3]", "[2]", "[1]", "[1]", false),
                           {randn({2, 3, 11}, 1)});
  CHECK(r.count("MaxPool") == 1);
}

TEST_CASE("aten::max_pool3d", "[pooling]") {
  auto r = check_ir_opsets(
      max_pool_ir("aten::max_pool3d", "[2, 2, 2]", "[2, 1, 2]", "[0, 1, 1]", "[1, 1, 1]", true),
      {randn({1, 2, 5, 4, 7}, 1)});
  CHECK(r.count("MaxPool") == 1);
}

TEST_CASE("aten::max_pool2d_with_indices", "[pooling]") {
  SECTION("static shape") {
    check_ir_opsets(max_pool_ir("aten::max_pool2d_with_indices", "[3, 3]", "[2, 2]", "[1, 1]",
                                "[1, 1]", false, true),
                    {randn({2, 3, 7, 8}, 1)});
  }
  SECTION("ceil_mode and unbatched") {
    check_ir_opsets(max_pool_ir("aten::max_pool2d_with_indices", "[2, 2]", "[2, 2]", "[1, 1]",
                                "[1, 1]", true, true),
                    {randn({3, 6, 6}, 1)});
  }
}

TEST_CASE("aten::max_pool1d_with_indices", "[pooling]") {
  check_ir_opsets(
      max_pool_ir("aten::max_pool1d_with_indices", "[2]", "[2]", "[0]", "[1]", false, true),
      {randn({2, 3, 9}, 1)});
}

TEST_CASE("aten::max_pool3d_with_indices", "[pooling]") {
  SECTION("kernel 2") {
    auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %k : int[] = prim::Constant[value=[2, 2, 2]]()
  %s : int[] = prim::Constant[value=[2, 2, 2]]()
  %pd : int[] = prim::Constant[value=[0, 0, 0]]()
  %dl : int[] = prim::Constant[value=[1, 1, 1]]()
  %y : Tensor, %i : Tensor = aten::max_pool3d_with_indices(%x, %k, %s, %pd, %dl, %false))IR",
                                "%y, %i"),
                             {randn({1, 2, 4, 6, 6})});
    CHECK(r.count("MaxPool") == 1);
  }
  SECTION("padding, stride, ceil_mode, unbatched") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %k : int[] = prim::Constant[value=[3, 2, 3]]()
  %s : int[] = prim::Constant[value=[2, 1, 2]]()
  %pd : int[] = prim::Constant[value=[1, 0, 1]]()
  %dl : int[] = prim::Constant[value=[1, 1, 1]]()
  %y : Tensor, %i : Tensor = aten::max_pool3d_with_indices(%x, %k, %s, %pd, %dl, %true))IR",
                       "%y, %i"),
                    {randn({2, 5, 4, 6})});
  }
}

TEST_CASE("aten::avg_pool2d", "[pooling]") {
  SECTION("padding counted and not counted") {
    for (bool cip : {true, false}) {
      auto r = check_ir_opsets(
          avg_pool_ir("aten::avg_pool2d", "[3, 3]", "[2, 2]", "[1, 1]", false, cip, ""),
          {randn({2, 3, 9, 8}, 1)});
      CHECK(r.count("AveragePool") == 1);
    }
  }
  SECTION("ceil_mode") {
    for (bool cip : {true, false}) {
      check_ir_opsets(avg_pool_ir("aten::avg_pool2d", "[3, 2]", "[2, 2]", "[1, 0]", true, cip, ""),
                      {randn({1, 2, 8, 9}, 1)});
      check_ir_opsets(avg_pool_ir("aten::avg_pool2d", "[2, 2]", "[2, 2]", "[1, 1]", true, cip, ""),
                      {randn({1, 2, 6, 6}, 1)});
    }
    // No padding, a last window hanging over an odd size: torch divides by the 2 elements inside
    // (ONNX Runtime's count_include_pad counted the overhang: half the value).
    check_ir_opsets(avg_pool_ir("aten::avg_pool2d", "[2, 2]", "[2, 2]", "[0, 0]", true, true, ""),
                    {randn({1, 1, 3, 3}, 1)});
  }
  SECTION("ceil_mode with sizes known at run time") {
    for (const std::string pad : {"[0, 0]", "[1, 1]"}) {
      std::string g = avg_pool_ir("aten::avg_pool2d", "[3, 3]", "[2, 2]", pad, true, true, "");
      check_ir_dynamic(g, {randn({1, 2, 10, 10}, 1)}, {randn({2, 2, 9, 12}, 2)});
      check_ir_dynamic(g, {randn({1, 2, 10, 10}, 1)}, {randn({2, 2, 9, 12}, 2)}, 11);
    }
  }
  SECTION("empty stride, divisor_override") {
    check_ir_opsets(avg_pool_ir("aten::avg_pool2d", "[2, 2]", "[]", "[0, 0]", false, true, ""),
                    {randn({1, 2, 6, 6}, 1)});
    check_ir_opsets(
        avg_pool_ir("aten::avg_pool2d", "[3, 3]", "[2, 2]", "[1, 1]", false, false, "5"),
        {randn({1, 2, 7, 7}, 1)});
  }
  SECTION("unbatched input") {
    check_ir_opsets(avg_pool_ir("aten::avg_pool2d", "[2, 2]", "[1, 1]", "[0, 0]", false, true, ""),
                    {randn({3, 5, 5}, 1)});
  }
}

TEST_CASE("aten::avg_pool1d", "[pooling]") {
  auto r = check_ir_opsets(avg_pool_ir("aten::avg_pool1d", "[3]", "[2]", "[1]", true, false, ""),
                           {randn({2, 3, 10}, 1)});
  CHECK(r.count("AveragePool") == 1);
}

TEST_CASE("aten::avg_pool3d", "[pooling]") {
  auto r = check_ir_opsets(
      avg_pool_ir("aten::avg_pool3d", "[2, 2, 2]", "[2, 2, 2]", "[1, 0, 1]", false, true, ""),
      {randn({1, 2, 4, 6, 5}, 1)});
  CHECK(r.count("AveragePool") == 1);
}

TEST_CASE("aten::adaptive_avg_pool2d", "[pooling]") {
  SECTION("output 1 is a global pool") {
    auto r = check_ir_opsets(adaptive_ir("aten::adaptive_avg_pool2d", "[1, 1]", false),
                             {randn({2, 3, 7, 5}, 1)});
    CHECK(r.count("GlobalAveragePool") == 1);
  }
  SECTION("divisible sizes use AveragePool") {
    auto r = check_ir_opsets(adaptive_ir("aten::adaptive_avg_pool2d", "[4, 3]", false),
                             {randn({1, 2, 8, 9}, 1)});
    CHECK(r.count("AveragePool") == 1);
    CHECK(r.count("Slice") == 0);
  }
  SECTION("uneven windows") {
    check_ir_opsets(adaptive_ir("aten::adaptive_avg_pool2d", "[3, 4]", false),
                    {randn({1, 2, 7, 10}, 1)});
    check_ir_opsets(adaptive_ir("aten::adaptive_avg_pool2d", "[7, 2]", false),
                    {randn({2, 3, 5, 8}, 1)});
  }
  SECTION("unbatched input") {
    check_ir_opsets(adaptive_ir("aten::adaptive_avg_pool2d", "[2, 3]", false),
                    {randn({3, 5, 7}, 1)});
  }
  // nn.AdaptiveAvgPool2d((1, None)) (a CRNN collapsing the height of a text line) traces its
  // None as the input's own width; with a symbolic width that is a runtime size of the same input.
  SECTION("an output size that is the input's own runtime size keeps that dim") {
    const std::string g = R"IR(
graph(%x : Tensor):
  %three : int = prim::Constant[value=3]()
  %one : int = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %w : int = aten::size(%x, %three)
  %t : Tensor = prim::NumToTensor(%w)
  %wi : int = aten::Int(%t)
  %size : int[] = prim::ListConstruct(%one, %wi)
  %p : Tensor = aten::adaptive_avg_pool2d(%x, %size)
  %size2 : int[] = prim::ListConstruct(%two, %wi)
  %q : Tensor = aten::adaptive_avg_pool2d(%x, %size2)
  return (%p, %q))IR";
    for (int opset : {11, 17})
      check_ir_dynamic(g, {randn({2, 4, 8, 20}, 1)}, {randn({3, 4, 8, 13}, 2)}, opset);
  }
}

// PSPNet's pyramid pooling (1, 2, 3, 6) on an image of any size: windows computed at run time.
// The sizes are chosen so that the example divides evenly and the alternate does not (or is
// smaller than the output), so no bound of the example may be kept as a constant.
TEST_CASE("adaptive pooling over sizes known only at run time", "[pooling]") {
  SECTION("avg 2d, uneven and smaller than the output") {
    for (std::string size : {"[2, 3]", "[6, 6]", "[1, 4]"})
      for (int opset : {11, 17})
        check_ir_dynamic(adaptive_ir("aten::adaptive_avg_pool2d", size, false),
                         {randn({1, 3, 12, 12}, 1)}, {randn({2, 3, 5, 13}, 2)}, opset);
  }
  SECTION("avg 1d and 3d; one symbolic dim among static ones") {
    check_ir_dynamic(adaptive_ir("aten::adaptive_avg_pool1d", "[4]", false), {randn({2, 3, 16}, 1)},
                     {randn({2, 3, 11}, 2)});
    check_ir_dynamic(adaptive_ir("aten::adaptive_avg_pool3d", "[2, 3, 2]", false),
                     {randn({1, 2, 4, 6, 5}, 1)}, {randn({1, 2, 7, 6, 5}, 2)});
  }
  SECTION("max 2d: values and indices") {
    for (std::string size : {"[2, 3]", "[3, 3]"})
      for (int opset : {11, 17})
        check_ir_dynamic(adaptive_ir("aten::adaptive_max_pool2d", size, true),
                         {randn({1, 3, 9, 9}, 1)}, {randn({2, 3, 7, 10}, 2)}, opset);
  }
  SECTION("max 1d and 3d, unbatched") {
    check_ir_dynamic(adaptive_ir("aten::adaptive_max_pool1d", "[3]", true), {randn({3, 9}, 1)},
                     {randn({3, 14}, 2)});
    check_ir_dynamic(adaptive_ir("aten::adaptive_max_pool3d", "[2, 2, 3]", true),
                     {randn({1, 2, 4, 4, 6}, 1)}, {randn({1, 2, 3, 5, 7}, 2)});
  }
}

TEST_CASE("aten::adaptive_avg_pool1d", "[pooling]") {
  check_ir_opsets(adaptive_ir("aten::adaptive_avg_pool1d", "[4]", false), {randn({2, 3, 10}, 1)});
  check_ir_opsets(adaptive_ir("aten::adaptive_avg_pool1d", "[1]", false), {randn({2, 3, 10}, 1)});
}

TEST_CASE("aten::adaptive_avg_pool3d", "[pooling]") {
  check_ir_opsets(adaptive_ir("aten::adaptive_avg_pool3d", "[2, 3, 2]", false),
                  {randn({1, 2, 4, 5, 6}, 1)});
}

TEST_CASE("aten::adaptive_max_pool2d", "[pooling]") {
  SECTION("global") {
    check_ir_opsets(adaptive_ir("aten::adaptive_max_pool2d", "[1, 1]", true),
                    {randn({2, 3, 5, 6}, 1)});
  }
  SECTION("divisible") {
    auto r = check_ir_opsets(adaptive_ir("aten::adaptive_max_pool2d", "[2, 3]", true),
                             {randn({2, 3, 6, 6}, 1)});
    CHECK(r.count("Gather") == 0);
  }
  SECTION("uneven windows") {
    check_ir_opsets(adaptive_ir("aten::adaptive_max_pool2d", "[3, 4]", true),
                    {randn({2, 3, 7, 10}, 1)});
    check_ir_opsets(adaptive_ir("aten::adaptive_max_pool2d", "[7, 3]", true),
                    {randn({1, 2, 5, 6}, 1)});
  }
  SECTION("unbatched input") {
    check_ir_opsets(adaptive_ir("aten::adaptive_max_pool2d", "[2, 2]", true),
                    {randn({3, 5, 5}, 1)});
  }
}

TEST_CASE("aten::adaptive_max_pool1d", "[pooling]") {
  check_ir_opsets(adaptive_ir("aten::adaptive_max_pool1d", "[3]", true), {randn({2, 3, 8}, 1)});
}

TEST_CASE("aten::adaptive_max_pool3d", "[pooling]") {
  check_ir_opsets(adaptive_ir("aten::adaptive_max_pool3d", "[2, 2, 3]", true),
                  {randn({1, 2, 3, 4, 5}, 1)});
}

TEST_CASE("aten::upsample_nearest2d", "[pooling]") {
  SECTION("output size") {
    auto r = check_ir_opsets(R"IR(
graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %size : int[] = prim::Constant[value=[7, 12]]()
  %y : Tensor = aten::upsample_nearest2d(%x, %size, %none)
  return (%y))IR",
                             {randn({1, 2, 3, 5}, 1)});
    CHECK(r.count("Resize") == 1);
  }
  SECTION("explicit overload with scales_h and scales_w") {
    check_ir_opsets(R"IR(
graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %two : float = prim::Constant[value=2.]()
  %size : int[] = prim::Constant[value=[6, 10]]()
  %y : Tensor = aten::upsample_nearest2d(%x, %size, %two, %two)
  %z : Tensor = aten::upsample_nearest2d(%x, %size, %none, %none)
  return (%y, %z))IR",
                    {randn({1, 2, 3, 5}, 1)});
  }
  SECTION("scale factors") {
    check_ir_opsets(R"IR(
graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %two : float = prim::Constant[value=2.]()
  %three : float = prim::Constant[value=3.]()
  %sf : float[] = prim::ListConstruct(%two, %three)
  %y : Tensor = aten::upsample_nearest2d(%x, %none, %sf)
  return (%y))IR",
                    {randn({1, 2, 3, 5}, 1)});
  }
}

TEST_CASE("aten::upsample_bilinear2d", "[pooling]") {
  for (std::string align : {"0", "1"}) {
    SECTION("output size, align_corners=" + align) {
      check_ir_opsets(R"IR(
graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %align : bool = prim::Constant[value=)IR" +
                          align + R"IR(]()
  %size : int[] = prim::Constant[value=[6, 9]]()
  %y : Tensor = aten::upsample_bilinear2d(%x, %size, %align, %none)
  return (%y))IR",
                      {randn({2, 3, 4, 5}, 1)});
    }
    SECTION("scale factor, align_corners=" + align) {
      check_ir_opsets(R"IR(
graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %align : bool = prim::Constant[value=)IR" +
                          align + R"IR(]()
  %two : float = prim::Constant[value=2.]()
  %sf : float[] = prim::ListConstruct(%two, %two)
  %y : Tensor = aten::upsample_bilinear2d(%x, %none, %align, %sf)
  return (%y))IR",
                      {randn({1, 2, 4, 3}, 1)});
    }
  }
}

TEST_CASE("aten::max_unpool2d", "[pooling]") {
  auto [y, idx] = at::max_pool2d_with_indices(randn({2, 3, 6, 8}, 41), {2, 2});
  auto text = ir("%x : Tensor, %i : Tensor", "  %8 : int = prim::Constant[value=8]()\n"
                                             "  %o : int[] = prim::ListConstruct(%6, %8)\n"
                                             "  %y : Tensor = aten::max_unpool2d(%x, %i, %o)");
  check_ir_opsets(text, {y, idx});
  check_ir_opsets(text, {y[0], idx[0]}); // unbatched
  SECTION("a larger output than the pooled input came from") {
    auto [y2, i2] = at::max_pool2d_with_indices(randn({1, 2, 5, 7}, 42), {2, 2});
    check_ir_opsets(text, {y2, i2});
  }
}

TEST_CASE("aten::max_unpool3d", "[pooling]") {
  auto [y, idx] = at::max_pool3d_with_indices(randn({2, 2, 4, 6, 6}, 43), {2, 3, 2}, {2, 3, 2});
  auto text =
      ir("%x : Tensor, %i : Tensor", "  %4 : int = prim::Constant[value=4]()\n"
                                     "  %o : int[] = prim::ListConstruct(%4, %6, %6)\n"
                                     "  %st : int[] = prim::ListConstruct(%2, %3, %2)\n"
                                     "  %pd : int[] = prim::ListConstruct(%0, %0, %0)\n"
                                     "  %y : Tensor = aten::max_unpool3d(%x, %i, %o, %st, %pd)");
  check_ir_opsets(text, {y, idx});
}
