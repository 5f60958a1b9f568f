#include "harness.h"
#include "ir_text.h"

#include <catch2/catch.hpp>

using namespace t2o_test;

namespace {

// A conv graph with list constants for stride, padding, dilation and the given groups.
std::string conv_ir(const std::string &op, const std::string &stride, const std::string &pad,
                    const std::string &dil, int groups, bool bias) {
  return R"IR(
graph(%x : Tensor, %w : Tensor, %b : Tensor):
  %none : NoneType = prim::Constant()
  %g : int = prim::Constant[value=)IR" +
         std::to_string(groups) + R"IR(]()
  %s : int[] = prim::Constant[value=)IR" +
         stride + R"IR(]()
  %p : int[] = prim::Constant[value=)IR" +
         pad + R"IR(]()
  %d : int[] = prim::Constant[value=)IR" +
         dil + R"IR(]()
  %y : Tensor = )IR" +
         op + "(%x, %w, " + (bias ? "%b" : "%none") +
         R"IR(, %s, %p, %d, %g)
  return (%y))IR";
}

} // namespace

TEST_CASE("aten::conv2d", "[conv]") {
  SECTION("plain with bias") {
    auto r = check_ir_opsets(conv_ir("aten::conv2d", "[1, 1]", "[1, 1]", "[1, 1]", 1, true),
                             {randn({2, 3, 8, 8}, 1), randn({4, 3, 3, 3}, 2), randn({4}, 3)});
    CHECK(r.count("Conv") == 1);
  }
  SECTION("stride, asymmetric padding, dilation, no bias") {
    auto r = check_ir_opsets(conv_ir("aten::conv2d", "[2, 1]", "[0, 2]", "[1, 2]", 1, false),
                             {randn({1, 3, 9, 7}, 1), randn({5, 3, 3, 2}, 2), randn({5}, 3)});
    CHECK(r.count("Conv") == 1);
  }
  SECTION("grouped and depthwise") {
    check_ir_opsets(conv_ir("aten::conv2d", "[1, 1]", "[1, 1]", "[1, 1]", 2, true),
                    {randn({1, 4, 6, 6}, 1), randn({6, 2, 3, 3}, 2), randn({6}, 3)});
    check_ir_opsets(conv_ir("aten::conv2d", "[2, 2]", "[1, 1]", "[1, 1]", 4, true),
                    {randn({1, 4, 6, 6}, 1), randn({4, 1, 3, 3}, 2), randn({4}, 3)});
  }
  SECTION("one-element lists broadcast") {
    check_ir_opsets(conv_ir("aten::conv2d", "[2]", "[1]", "[1]", 1, true),
                    {randn({1, 3, 7, 7}, 1), randn({2, 3, 3, 3}, 2), randn({2}, 3)});
  }
  SECTION("unbatched input") {
    check_ir_opsets(conv_ir("aten::conv2d", "[1, 1]", "[0, 0]", "[1, 1]", 1, true),
                    {randn({3, 5, 5}, 1), randn({2, 3, 3, 3}, 2), randn({2}, 3)});
  }
  SECTION("padding strings") {
    for (std::string mode : {"same", "valid"}) {
      auto r = check_ir_opsets(R"IR(
graph(%x : Tensor, %w : Tensor, %b : Tensor):
  %one : int = prim::Constant[value=1]()
  %mode : str = prim::Constant[value=")IR" +
                                   mode + R"IR("]()
  %s : int[] = prim::Constant[value=[1, 1]]()
  %d : int[] = prim::Constant[value=[2, 1]]()
  %y : Tensor = aten::conv2d(%x, %w, %b, %s, %mode, %d, %one)
  return (%y))IR",
                               {randn({1, 2, 7, 6}, 1), randn({3, 2, 3, 4}, 2), randn({3}, 3)});
      CHECK(r.count("Conv") == 1);
    }
  }
}

TEST_CASE("aten::conv1d", "[conv]") {
  auto r = check_ir_opsets(conv_ir("aten::conv1d", "[2]", "[1]", "[1]", 1, true),
                           {randn({2, 3, 11}, 1), randn({4, 3, 3}, 2), randn({4}, 3)});
  CHECK(r.count("Conv") == 1);
}

TEST_CASE("aten::conv3d", "[conv]") {
  auto r = check_ir_opsets(conv_ir("aten::conv3d", "[1, 2, 1]", "[1, 0, 1]", "[1, 1, 1]", 1, true),
                           {randn({1, 2, 5, 6, 5}, 1), randn({3, 2, 3, 3, 3}, 2), randn({3}, 3)});
  CHECK(r.count("Conv") == 1);
}

namespace {

std::string conv_t_ir(const std::string &op, const std::string &stride, const std::string &pad,
                      const std::string &out_pad, int groups, const std::string &dil) {
  return R"IR(
graph(%x : Tensor, %w : Tensor, %b : Tensor):
  %g : int = prim::Constant[value=)IR" +
         std::to_string(groups) + R"IR(]()
  %s : int[] = prim::Constant[value=)IR" +
         stride + R"IR(]()
  %p : int[] = prim::Constant[value=)IR" +
         pad + R"IR(]()
  %op : int[] = prim::Constant[value=)IR" +
         out_pad + R"IR(]()
  %d : int[] = prim::Constant[value=)IR" +
         dil + R"IR(]()
  %y : Tensor = )IR" +
         op + R"IR((%x, %w, %b, %s, %p, %op, %g, %d)
  return (%y))IR";
}

} // namespace

TEST_CASE("aten::conv_transpose2d", "[conv]") {
  SECTION("stride 2 with output padding") {
    auto r = check_ir_opsets(
        conv_t_ir("aten::conv_transpose2d", "[2, 2]", "[1, 1]", "[1, 1]", 1, "[1, 1]"),
        {randn({1, 4, 5, 5}, 1), randn({4, 3, 3, 3}, 2), randn({3}, 3)});
    CHECK(r.count("ConvTranspose") == 1);
  }
  SECTION("groups and dilation") {
    check_ir_opsets(conv_t_ir("aten::conv_transpose2d", "[2, 1]", "[0, 1]", "[1, 0]", 2, "[1, 2]"),
                    {randn({2, 4, 4, 5}, 1), randn({4, 3, 3, 3}, 2), randn({6}, 3)});
  }
}

TEST_CASE("aten::conv_transpose1d", "[conv]") {
  auto r = check_ir_opsets(conv_t_ir("aten::conv_transpose1d", "[3]", "[1]", "[2]", 1, "[1]"),
                           {randn({1, 2, 6}, 1), randn({2, 3, 4}, 2), randn({3}, 3)});
  CHECK(r.count("ConvTranspose") == 1);
}

TEST_CASE("aten::conv_transpose3d", "[conv]") {
  auto r = check_ir_opsets(
      conv_t_ir("aten::conv_transpose3d", "[2, 1, 2]", "[1, 0, 0]", "[0, 0, 1]", 1, "[1, 1, 1]"),
      {randn({1, 2, 3, 4, 3}, 1), randn({2, 2, 3, 2, 2}, 2), randn({2}, 3)});
  CHECK(r.count("ConvTranspose") == 1);
}

TEST_CASE("aten::_convolution", "[conv]") {
  auto ir = [](bool transposed) {
    return std::string(R"IR(
graph(%x : Tensor, %w : Tensor, %b : Tensor):
  %one : int = prim::Constant[value=1]()
  %t : bool = prim::Constant[value=)IR") +
           (transposed ? "1" : "0") + R"IR(]()
  %false : bool = prim::Constant[value=0]()
  %true : bool = prim::Constant[value=1]()
  %s : int[] = prim::Constant[value=[2, 2]]()
  %p : int[] = prim::Constant[value=[1, 1]]()
  %d : int[] = prim::Constant[value=[1, 1]]()
  %op : int[] = prim::Constant[value=[1, 1]]()
  %y : Tensor = aten::_convolution(%x, %w, %b, %s, %p, %d, %t, %op, %one, %false, %false, %true, %true)
  return (%y))IR";
  };
  SECTION("normal") {
    auto r =
        check_ir_opsets(ir(false), {randn({1, 3, 8, 8}, 1), randn({4, 3, 3, 3}, 2), randn({4}, 3)});
    CHECK(r.count("Conv") == 1);
  }
  SECTION("transposed") {
    auto r =
        check_ir_opsets(ir(true), {randn({1, 3, 4, 4}, 1), randn({3, 4, 3, 3}, 2), randn({4}, 3)});
    CHECK(r.count("ConvTranspose") == 1);
  }
}

TEST_CASE("aten::convolution", "[conv]") {
  auto r = check_ir_opsets(R"IR(
graph(%x : Tensor, %w : Tensor):
  %one : int = prim::Constant[value=1]()
  %none : NoneType = prim::Constant()
  %false : bool = prim::Constant[value=0]()
  %s : int[] = prim::Constant[value=[1]]()
  %p : int[] = prim::Constant[value=[0]]()
  %op : int[] = prim::Constant[value=[0]]()
  %y : Tensor = aten::convolution(%x, %w, %none, %s, %p, %s, %false, %op, %one)
  return (%y))IR",
                           {randn({2, 3, 9}, 1), randn({5, 3, 2}, 2)});
  CHECK(r.count("Conv") == 1);
}

// fairseq's time-major convolution: input [T, B, C_in], weight [K, C_in, C_out].
TEST_CASE("aten::conv_tbc", "[conv]") {
  for (int pad : {0, 2}) {
    auto r = check_ir_opsets(ir("%x : Tensor, %w : Tensor, %b : Tensor",
                                "  %pad : int = prim::Constant[value=" + std::to_string(pad) +
                                    "]()\n  %y : Tensor = aten::conv_tbc(%x, %w, %b, %pad)"),
                             {randn({9, 2, 3}, 1), randn({3, 3, 5}, 2), randn({5}, 3)});
    CHECK(r.count("Conv") == 1);
  }
}

// torchaudio's compute_deltas: conv1d(x, kernel.repeat(C, 1, 1), groups=x.shape[1]) over
// x [1, B * C, T]: the groups are known only at run time. Depthwise with m = 1 and m = 2 outputs
// per channel, padding, stride and dilation; and a 2-D one with a bias.
TEST_CASE("convolution with groups known only at run time", "[conv]") {
  const std::string g1 = R"IR(
graph(%x : Tensor, %w : Tensor, %b : Tensor):
  %one : int = prim::Constant[value=1]()
  %g : int = aten::size(%x, %one)
  %s : int[] = prim::Constant[value=[2]]()
  %p : int[] = prim::Constant[value=[3]]()
  %d : int[] = prim::Constant[value=[2]]()
  %y : Tensor = aten::conv1d(%x, %w, %b, %s, %p, %d, %g)
  return (%y))IR";
  for (int opset : {11, 17}) {
    check_ir_dynamic(g1, {randn({2, 3, 17}, 1), randn({3, 1, 4}, 2), randn({3}, 3)},
                     {randn({2, 5, 12}, 4), randn({5, 1, 4}, 5), randn({5}, 6)}, opset);
    check_ir_dynamic(g1, {randn({1, 3, 17}, 1), randn({6, 1, 4}, 2), randn({6}, 3)},
                     {randn({1, 4, 9}, 4), randn({8, 1, 4}, 5), randn({8}, 6)}, opset);
  }
  const std::string g2 = R"IR(
graph(%x : Tensor, %w : Tensor, %b : Tensor):
  %one : int = prim::Constant[value=1]()
  %g : int = aten::size(%x, %one)
  %s : int[] = prim::Constant[value=[1, 2]]()
  %p : int[] = prim::Constant[value=[1, 0]]()
  %d : int[] = prim::Constant[value=[1, 1]]()
  %y : Tensor = aten::conv2d(%x, %w, %b, %s, %p, %d, %g)
  return (%y))IR";
  check_ir_dynamic(g2, {randn({2, 3, 6, 7}, 1), randn({3, 1, 3, 2}, 2), randn({3}, 3)},
                   {randn({2, 4, 5, 9}, 4), randn({4, 1, 3, 2}, 5), randn({4}, 6)});
}
