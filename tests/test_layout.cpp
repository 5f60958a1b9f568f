// NumPy-style rearrangements (aten_lib/layout.cpp), each against LibTorch in ONNX Runtime at its
// lowest opset and at 21.
#include "harness.h"
#include "ir_text.h"

#include <catch2/catch.hpp>

using namespace t2o_test;

namespace {

// graph(%x) returning the list `call` makes, unpacked into `n` outputs.
std::string split_ir(const std::string &call, int n, const std::string &consts = "") {
  std::string outs, names;
  for (int i = 0; i < n; ++i) {
    outs += (i ? ", %o" : "%o") + std::to_string(i);
    names += (i ? ", %o" : "%o") + std::to_string(i) + " : Tensor";
  }
  return ir("%x : Tensor",
            consts + "  %parts : Tensor[] = " + call + "\n  " + names +
                " = prim::ListUnpack(%parts)",
            outs);
}

} // namespace

TEST_CASE("aten::hsplit", "[layout]") {
  auto x = randn({4, 6, 6}, 1);
  check_ir_opsets(split_ir("aten::hsplit(%x, %3)", 3), {x});
  check_ir_opsets(
      split_ir("aten::hsplit(%x, %ix)", 3, "  %ix : int[] = prim::ListConstruct(%1, %5)\n"), {x});
  check_ir_opsets(split_ir("aten::hsplit(%x, %2)", 2), {randn({6}, 2)});
}

TEST_CASE("aten::vsplit", "[layout]") {
  auto x = randn({4, 6, 6}, 3);
  check_ir_opsets(split_ir("aten::vsplit(%x, %2)", 2), {x});
  check_ir_opsets(
      split_ir("aten::vsplit(%x, %ix)", 3, "  %ix : int[] = prim::ListConstruct(%1, %m1)\n"), {x});
}

TEST_CASE("aten::dsplit", "[layout]") {
  auto x = randn({2, 3, 6}, 4);
  check_ir_opsets(split_ir("aten::dsplit(%x, %3)", 3), {x});
  check_ir_opsets(split_ir("aten::dsplit(%x, %ix)", 2, "  %ix : int[] = prim::ListConstruct(%5)\n"),
                  {x});
}

TEST_CASE("aten::dstack", "[layout]") {
  const std::string g = R"IR(
graph(%a : Tensor, %b : Tensor):
  %l : Tensor[] = prim::ListConstruct(%a, %b)
  %y : Tensor = aten::dstack(%l)
  return (%y))IR";
  check_ir_opsets(g, {randn({4}, 1), randn({4}, 2)});
  check_ir_opsets(g, {randn({3, 4}, 1), randn({3, 4, 2}, 2)});
  check_ir_opsets(g, {randn({}, 1), randn({}, 2)});
}

TEST_CASE("aten::row_stack", "[layout]") {
  const std::string g = R"IR(
graph(%a : Tensor, %b : Tensor):
  %l : Tensor[] = prim::ListConstruct(%a, %b)
  %y : Tensor = aten::row_stack(%l)
  %z : Tensor = aten::column_stack(%l)
  return (%y, %z))IR";
  check_ir_opsets(g, {randn({4}, 1), randn({4}, 2)});
  check_ir_opsets(ir("%a : Tensor, %b : Tensor", "  %l : Tensor[] = prim::ListConstruct(%a, %b)\n"
                                                 "  %y : Tensor = aten::column_stack(%l)"),
                  {randn({4, 2}, 1), randn({4}, 2)});
  check_ir_opsets(ir("%a : Tensor, %b : Tensor", "  %l : Tensor[] = prim::ListConstruct(%a, %b)\n"
                                                 "  %y : Tensor = aten::row_stack(%l)"),
                  {randn({2, 4}, 1), randn({4}, 2)});
}

TEST_CASE("aten::rot90", "[layout]") {
  auto x = randn({2, 3, 4}, 5);
  for (const char *k : {"%0", "%1", "%2", "%3", "%5", "%m1", "%m2"}) {
    DYNAMIC_SECTION("k " << k) {
      check_ir_opsets(ir("%x : Tensor", "  %dims : int[] = prim::ListConstruct(%2, %0)\n"
                                        "  %y : Tensor = aten::rot90(%x, " +
                                            std::string(k) + ", %dims)"),
                      {x});
    }
  }
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::rot90(%x, %1, %d02)"), {x});
}

TEST_CASE("aten::diag", "[layout]") {
  auto v = randn({4}, 6), m = randn({3, 5}, 7);
  for (const char *k : {"%0", "%2", "%m2"}) {
    DYNAMIC_SECTION("diagonal " << k) {
      check_ir_opsets(ir("%x : Tensor", std::string("  %y : Tensor = aten::diag(%x, ") + k + ")"),
                      {v});
      check_ir_opsets(ir("%x : Tensor", std::string("  %y : Tensor = aten::diag(%x, ") + k + ")"),
                      {m});
    }
  }
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::diag(%x, %0)"), {ints({4})});
}

TEST_CASE("aten::diag_embed", "[layout]") {
  auto x = randn({2, 3}, 8);
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::diag_embed(%x, %0, %m2, %m1)"), {x});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::diag_embed(%x, %1, %0, %2)"), {x});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::diag_embed(%x, %m2, %2, %0)"), {x});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::diag_embed(%x, %0, %1, %m1)"),
                  {randn({2, 3, 4}, 9)});
}

TEST_CASE("aten::diagflat", "[layout]") {
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::diagflat(%x, %0)"), {randn({2, 2}, 10)});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::diagflat(%x, %m1)"), {randn({3}, 11)});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::diagflat(%x, %2)"), {randn({2, 2}, 12)});
}

TEST_CASE("aten::block_diag", "[layout]") {
  const std::string g = R"IR(
graph(%a : Tensor, %b : Tensor, %c : Tensor):
  %l : Tensor[] = prim::ListConstruct(%a, %b, %c)
  %y : Tensor = aten::block_diag(%l)
  return (%y))IR";
  check_ir_opsets(g, {randn({2, 3}, 1), randn({3}, 2), randn({}, 3)});
  check_ir_opsets(g, {randn({1, 1}, 1), randn({2, 2}, 2), ints({2, 1})});
}

TEST_CASE("aten::take_along_dim", "[layout]") {
  auto x = randn({3, 4}, 13);
  auto idx = std::get<1>(at::sort(x, 1));
  check_ir_opsets(
      ir("%x : Tensor, %i : Tensor", "  %y : Tensor = aten::take_along_dim(%x, %i, %1)"), {x, idx});
  check_ir_opsets(
      ir("%x : Tensor, %i : Tensor", "  %y : Tensor = aten::take_along_dim(%x, %i, %none)"),
      {x, ints({5}, 0, 12)});
  SECTION("broadcast in the other dims") {
    check_ir_opsets(
        ir("%x : Tensor, %i : Tensor", "  %y : Tensor = aten::take_along_dim(%x, %i, %0)"),
        {randn({3, 1}, 14), ints({2, 4}, 0, 3)});
  }
}

TEST_CASE("aten::cartesian_prod", "[layout]") {
  const std::string g = R"IR(
graph(%a : Tensor, %b : Tensor, %c : Tensor):
  %l : Tensor[] = prim::ListConstruct(%a, %b, %c)
  %y : Tensor = aten::cartesian_prod(%l)
  return (%y))IR";
  check_ir_opsets(g, {randn({2}, 1), randn({3}, 2), randn({2}, 3)});
  check_ir_opsets(ir("%a : Tensor", "  %l : Tensor[] = prim::ListConstruct(%a)\n"
                                    "  %y : Tensor = aten::cartesian_prod(%l)"),
                  {ints({4})});
}

TEST_CASE("aten::combinations", "[layout]") {
  auto x = randn({5}, 15);
  for (const char *args : {"%2, %false", "%3, %false", "%2, %true", "%3, %true", "%1, %false"}) {
    DYNAMIC_SECTION(args) {
      check_ir_opsets(
          ir("%x : Tensor", std::string("  %y : Tensor = aten::combinations(%x, ") + args + ")"),
          {x});
    }
  }
}

TEST_CASE("aten::argwhere", "[layout]") {
  auto x = randn({3, 4}, 16).gt(0.3).to(at::kFloat);
  check_ir_opsets(ir1("aten::argwhere(%x)"), {x});
}

TEST_CASE("aten::isin", "[layout]") {
  auto e = ints({3, 4}, -5, 5), t = at::tensor({-3, 0, 2, 2, 9}, at::kLong);
  check_ir_opsets(
      ir("%x : Tensor, %t : Tensor", "  %y : Tensor = aten::isin(%x, %t, %false, %false)"), {e, t});
  check_ir_opsets(
      ir("%x : Tensor, %t : Tensor", "  %y : Tensor = aten::isin(%x, %t, %false, %true)"),
      {e.to(at::kFloat), t.to(at::kFloat)});
  SECTION("a Scalar test element, a Scalar element") {
    check_ir_opsets(
        ir("%x : Tensor, %t : Tensor", "  %y : Tensor = aten::isin(%x, %2, %false, %false)"),
        {e, t});
    check_ir_opsets(
        ir("%x : Tensor, %t : Tensor", "  %y : Tensor = aten::isin(%2, %t, %false, %false)"),
        {e, t});
  }
}

TEST_CASE("aten::sum_to_size", "[layout]") {
  auto x = randn({2, 3, 4}, 17);
  check_ir_opsets(ir("%x : Tensor", "  %s : int[] = prim::ListConstruct(%3, %1)\n"
                                    "  %y : Tensor = aten::sum_to_size(%x, %s)"),
                  {x});
  check_ir_opsets(ir("%x : Tensor", "  %s : int[] = prim::ListConstruct(%1, %3, %1)\n"
                                    "  %y : Tensor = aten::sum_to_size(%x, %s)"),
                  {x});
  check_ir_opsets(ir("%x : Tensor", "  %s : int[] = prim::ListConstruct(%3, %m1)\n"
                                    "  %four : int = prim::Constant[value=4]()\n"
                                    "  %t : int[] = prim::ListConstruct(%3, %four)\n"
                                    "  %y : Tensor = aten::sum_to_size(%x, %t)"),
                  {x});
}

TEST_CASE("aten::fft_fftshift", "[layout]") {
  auto x = randn({4, 5}, 18);
  check_ir_opsets(ir1("aten::fft_fftshift(%x, %none)", "  %none : NoneType = prim::Constant()\n"),
                  {x});
  check_ir_opsets(ir1("aten::fft_ifftshift(%x, %none)", "  %none : NoneType = prim::Constant()\n"),
                  {x});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::fft_fftshift(%x, %d1)"), {x});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::fft_ifftshift(%x, %d1)"), {x});
}

TEST_CASE("aten::pad_sequence", "[layout]") {
  const std::string g = R"IR(
graph(%a : Tensor, %b : Tensor, %c : Tensor):
  %l : Tensor[] = prim::ListConstruct(%a, %b, %c)
  %bf : bool = prim::Constant[value=BF]()
  %v : float = prim::Constant[value=-1.5]()
  %y : Tensor = aten::pad_sequence(%l, %bf, %v)
  return (%y))IR";
  for (const char *bf : {"0", "1"}) {
    DYNAMIC_SECTION("batch_first " << bf) {
      std::string gi = g;
      gi.replace(gi.find("BF"), 2, bf);
      check_ir_opsets(gi, {randn({3, 2}, 1), randn({5, 2}, 2), randn({1, 2}, 3)});
      check_ir_opsets(gi, {randn({4}, 1), randn({2}, 2), randn({4}, 3)});
    }
  }
}
