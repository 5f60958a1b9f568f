// Order statistics of aten_lib/order.cpp, against LibTorch in ONNX Runtime.
#include "harness.h"
#include "ir_text.h"

#include <catch2/catch.hpp>
#include <limits>

using namespace t2o_test;

namespace {
const float kNan = std::numeric_limits<float>::quiet_NaN();
} // namespace

TEST_CASE("aten::median", "[order]") {
  SECTION("dim, values and indices (distinct values)") {
    auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor, %i : Tensor = aten::median(%x, %1, %false)
  %b : Tensor, %j : Tensor = aten::median(%x, %0, %true))IR",
                                "%a, %i, %b, %j"),
                             {randn({4, 6}, 1)});
    CHECK(r.count("TopK") == 2);
  }
  SECTION("all, ties, int, NaN") {
    auto x = at::tensor({2.f, 1.f, 2.f, 1.f, 3.f, 1.f, -4.f});
    check_ir_opsets(ir1("aten::median(%x)"), {x});
    check_ir_opsets(ir1("aten::median(%x)"), {randn({3, 5}, 2)});
    check_ir_opsets(ir1("aten::median(%x)"), {ints({7}, -9, 9)});
    auto n = randn({2, 5}, 3);
    n.index_put_({0, 1}, kNan);
    check_ir_opsets(ir("%x : Tensor", "  %y : Tensor, %i : Tensor = aten::median(%x, %1, %false)"),
                    {n});
  }
}

TEST_CASE("aten::nanmedian", "[order]") {
  auto x = randn({3, 6}, 4);
  x.index_put_({0, 1}, kNan);
  x.index_put_({0, 4}, kNan);
  x.index_put_({2, 0}, kNan);
  check_ir_opsets(
      ir("%x : Tensor", "  %y : Tensor, %i : Tensor = aten::nanmedian(%x, %1, %false)", "%y, %i"),
      {x});
  check_ir_opsets(ir1("aten::nanmedian(%x)"), {x});
  SECTION("an all-NaN row gives NaN") {
    auto a = randn({2, 4}, 5);
    a.index_put_({1}, kNan);
    check_ir_opsets(
        ir("%x : Tensor", "  %y : Tensor, %i : Tensor = aten::nanmedian(%x, %1, %true)"), {a});
  }
}

TEST_CASE("aten::kthvalue", "[order]") {
  auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor, %i : Tensor = aten::kthvalue(%x, %2, %m1, %false)
  %b : Tensor, %j : Tensor = aten::kthvalue(%x, %1, %0, %true))IR",
                              "%a, %i, %b, %j"),
                           {randn({3, 5}, 6)});
  CHECK(r.count("TopK") == 2);
  check_ir_opsets(
      ir("%x : Tensor", "  %y : Tensor, %i : Tensor = aten::kthvalue(%x, %3, %0, %false)"),
      {ints({6, 2}, -20, 20)});
}

TEST_CASE("aten::mode", "[order]") {
  auto x = at::tensor({2.f, 1.f, 2.f, 1.f, 3.f, 4.f, 4.f, -1.f, -1.f, 4.f}).reshape({2, 5});
  auto r = check_ir_opsets(
      ir("%x : Tensor", "  %y : Tensor, %i : Tensor = aten::mode(%x, %1, %false)", "%y, %i"), {x});
  CHECK(r.count("ReduceMin") == 1);
  check_ir_opsets(
      ir("%x : Tensor", "  %y : Tensor, %i : Tensor = aten::mode(%x, %0, %true)", "%y, %i"),
      {ints({7, 3}, -2, 3)});
}

TEST_CASE("aten::quantile", "[order]") {
  auto x = randn({3, 7}, 7);
  auto q = at::tensor({0.f, 0.25f, 0.5f, 0.9f, 1.f});
  for (const char *how : {"linear", "lower", "higher", "nearest", "midpoint"}) {
    INFO(how);
    std::string consts = std::string("  %how : str = prim::Constant[value=\"") + how + "\"]()\n";
    check_ir_opsets(ir("%x : Tensor, %q : Tensor", consts + R"IR(
  %a : Tensor = aten::quantile(%x, %q, %1, %false, %how)
  %b : Tensor = aten::quantile(%x, %half, %0, %true, %how)
  %c : Tensor = aten::quantile(%x, %q, %none, %false, %how)
  %y : Tensor = aten::quantile(%x, %q, %none, %true, %how))IR",
                       "%a, %b, %c, %y"),
                    {x, q});
  }
  SECTION("0-d q, NaN in a row") {
    auto n = x.clone();
    n.index_put_({1, 2}, kNan);
    check_ir_opsets(ir("%x : Tensor, %q : Tensor", R"IR(
  %how : str = prim::Constant[value="linear"]()
  %y : Tensor = aten::quantile(%x, %q, %m1, %false, %how))IR"),
                    {n, at::tensor(0.3f)});
  }
}

TEST_CASE("aten::nanquantile", "[order]") {
  auto x = randn({3, 6}, 8);
  x.index_put_({0, 1}, kNan);
  x.index_put_({0, 5}, kNan);
  x.index_put_({2}, kNan);
  check_ir_opsets(ir("%x : Tensor, %q : Tensor", R"IR(
  %how : str = prim::Constant[value="linear"]()
  %a : Tensor = aten::nanquantile(%x, %q, %1, %false, %how)
  %y : Tensor = aten::nanquantile(%x, %half, %none, %false, %how))IR",
                     "%a, %y"),
                  {x, at::tensor({0.1f, 0.5f, 0.75f})});
}

TEST_CASE("aten::searchsorted", "[order]") {
  auto seq = at::tensor({-2.f, -0.5f, 0.f, 0.f, 1.f, 3.f});
  auto v = at::tensor({-3.f, -0.5f, 0.f, 0.2f, 3.f, 7.f}).reshape({2, 3});
  SECTION("left, right, side") {
    auto r = check_ir_opsets(ir("%x : Tensor, %v : Tensor", R"IR(
  %right : str = prim::Constant[value="right"]()
  %a : Tensor = aten::searchsorted(%x, %v, %false, %false, %none, %none)
  %b : Tensor = aten::searchsorted(%x, %v, %true, %true, %none, %none)
  %y : Tensor = aten::searchsorted(%x, %v, %false, %false, %right, %none))IR",
                                "%a, %b, %y"),
                             {seq, v});
    CHECK(r.count("ReduceSum") == 3);
  }
  SECTION("batched, sorter, scalar") {
    auto s2 = at::stack({seq, seq * 2});
    check_ir_opsets(ir("%x : Tensor, %v : Tensor",
                       "  %y : Tensor = aten::searchsorted(%x, %v, %false, %false, %none, %none)"),
                    {s2, v});
    auto perm = at::tensor({3, 0, 5, 1, 2, 4}, at::kLong);
    check_ir_opsets(ir("%x : Tensor, %v : Tensor, %s : Tensor",
                       "  %y : Tensor = aten::searchsorted(%x, %v, %false, %false, %none, %s)"),
                    {seq.index({at::argsort(perm)}), v, perm});
    check_ir_opsets(
        ir("%x : Tensor",
           "  %y : Tensor = aten::searchsorted(%x, %half, %false, %true, %none, %none)"),
        {seq});
    check_ir_opsets(ir("%x : Tensor, %v : Tensor",
                       "  %y : Tensor = aten::searchsorted(%x, %v, %false, %false, %none, %none)"),
                    {std::get<0>(ints({5}, -9, 9).sort()), ints({4}, -9, 9)});
  }
}

TEST_CASE("aten::unique_dim_consecutive", "[order]") {
  auto x = at::tensor({1, 1, 2, 2, 2, 3, 1, 1, 4, 4, 4, 9}, at::kLong).reshape({6, 2});
  check_ir_opsets(ir("%x : Tensor",
                     "  %y : Tensor, %i : Tensor, %c : Tensor = "
                     "aten::unique_dim_consecutive(%x, %0, %true, %true)",
                     "%y, %i, %c"),
                  {x});
}

TEST_CASE("aten::histogram", "[order]") {
  auto x = randn({4, 5}, 9);
  SECTION("bin count, range, weight, density") {
    auto r = check_ir_opsets(ir("%x : Tensor, %w : Tensor", R"IR(
  %lo : float = prim::Constant[value=-1.]()
  %range : float[] = prim::ListConstruct(%lo, %s15)
  %h0 : Tensor, %e0 : Tensor = aten::histogram(%x, %5, %none, %none, %false)
  %h1 : Tensor, %e1 : Tensor = aten::histogram(%x, %7, %range, %w, %false)
  %h2 : Tensor, %e2 : Tensor = aten::histogram(%x, %3, %none, %none, %true))IR",
                                "%h0, %e0, %h1, %e1, %h2, %e2"),
                             {x, randn({4, 5}, 10).abs()});
    CHECK(r.count("ReduceMin") == 2);
  }
  SECTION("edges tensor, all equal values") {
    check_ir_opsets(ir("%x : Tensor, %b : Tensor",
                       "  %h : Tensor, %e : Tensor = aten::histogram(%x, %b, %none, %true)",
                       "%h, %e"),
                    {x, at::tensor({-2.f, -0.5f, 0.f, 0.3f, 2.5f})});
    check_ir_opsets(ir("%x : Tensor",
                       "  %h : Tensor, %e : Tensor = aten::histogram(%x, %2, %none, %none, %false)",
                       "%h, %e"),
                    {at::ones({3})});
  }
}

TEST_CASE("aten::histogramdd", "[order]") {
  auto x = randn({20, 2}, 11);
  check_ir_opsets(ir("%x : Tensor", R"IR(
  %bins : int[] = prim::ListConstruct(%2, %3)
  %h : Tensor, %e : Tensor[] = aten::histogramdd(%x, %bins, %none, %none, %false)
  %e0 : Tensor, %e1 : Tensor = prim::ListUnpack(%e)
  %g : Tensor, %f : Tensor[] = aten::histogramdd(%x, %3, %none, %none, %true)
  %f0 : Tensor, %f1 : Tensor = prim::ListUnpack(%f))IR",
                     "%h, %e0, %e1, %g, %f0, %f1"),
                  {x});
}
