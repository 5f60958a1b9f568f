// Reductions and scans of aten_lib/statistics.cpp, against LibTorch in ONNX Runtime.
#include "harness.h"
#include "ir_text.h"

#include <catch2/catch.hpp>
#include <limits>

using namespace t2o_test;

namespace {
const float kNan = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();
} // namespace

TEST_CASE("aten::cumprod", "[statistics]") {
  SECTION("float, zeros and negatives") {
    auto x = randn({3, 6}, 1) + 0.5;
    x.index_put_({0, 2}, 0.f);
    x.index_put_({1, 0}, -kInf);
    auto r =
        check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::cumprod(%x, %1, %none)"), {x});
    CHECK(r.count("ReduceProd") == 1);
    check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::cumprod(%x, %m2, %none)"),
                    {randn({4, 3, 2}, 2)});
  }
  SECTION("int32 gives int64, dtype, in place") {
    check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::cumprod(%x, %0, %none)"),
                    {ints({5, 2}, -4, 5, at::kInt)});
    check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::cumprod(%x, %0, %double)"),
                    {ints({5, 2}, -4, 5)});
    check_ir_opsets(ir("%x0 : Tensor", R"IR(
  %x : Tensor = aten::mul(%x0, %1)
  %y : Tensor = aten::cumprod_(%x, %m1, %none))IR"),
                    {randn({2, 5}, 3)});
  }
}

TEST_CASE("aten::cummax", "[statistics]") {
  auto x = at::tensor({1.f, 3.f, 3.f, -2.f, 5.f, 5.f, 0.f, -7.f}).reshape({2, 4});
  SECTION("ties take the last index") {
    auto r = check_ir_opsets(
        ir("%x : Tensor", "  %y : Tensor, %i : Tensor = aten::cummax(%x, %1)", "%y, %i"), {x});
    CHECK(r.count("ReduceMax") == 2);
    check_ir_opsets(
        ir("%x : Tensor", "  %y : Tensor, %i : Tensor = aten::cummax(%x, %0)", "%y, %i"),
        {randn({5, 3}, 4)});
    check_ir_opsets(
        ir("%x : Tensor", "  %y : Tensor, %i : Tensor = aten::cummax(%x, %m1)", "%y, %i"),
        {ints({3, 6}, -3, 3)});
  }
  SECTION("cummin") {
    check_ir_opsets(
        ir("%x : Tensor", "  %y : Tensor, %i : Tensor = aten::cummin(%x, %1)", "%y, %i"), {x});
    check_ir_opsets(
        ir("%x : Tensor", "  %y : Tensor, %i : Tensor = aten::cummin(%x, %0)", "%y, %i"),
        {ints({6, 2}, -3, 3, at::kInt)});
  }
}

// A scan over a dim whose size is known only at run time (a sequence of any length): the prefix
// mask is computed in the graph.
TEST_CASE("cumprod and cummax over a symbolic dim", "[statistics]") {
  check_ir_dynamic(ir("%x : Tensor", "  %y : Tensor = aten::cumprod(%x, %1, %none)"),
                   {randn({2, 5, 3}, 1)}, {randn({3, 8, 3}, 2)});
  check_ir_dynamic(
      ir("%x : Tensor", "  %y : Tensor, %i : Tensor = aten::cummax(%x, %m2)", "%y, %i"),
      {ints({2, 6, 3}, -3, 3)}, {ints({2, 9, 3}, -3, 3)});
  check_ir_dynamic(ir("%x : Tensor", "  %y : Tensor, %i : Tensor = aten::cummin(%x, %1)", "%y, %i"),
                   {randn({4, 5}, 3)}, {randn({4, 2}, 4)}, 11);
}

TEST_CASE("aten::count_nonzero", "[statistics]") {
  auto x = randn({3, 4, 2}, 5);
  x.index_put_({0}, 0.f);
  x.index_put_({1, 2, 1}, 0.f);
  check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::count_nonzero(%x, %none)
  %b : Tensor = aten::count_nonzero(%x, %1)
  %y : Tensor = aten::count_nonzero(%x, %d02))IR",
                     "%a, %b, %y"),
                  {x});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::count_nonzero(%x, %m1)"),
                  {ints({3, 4}, -2, 2)});
}

TEST_CASE("aten::diff", "[statistics]") {
  SECTION("n, dim") {
    auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::diff(%x, %1, %m1, %none, %none)
  %y : Tensor = aten::diff(%x, %2, %0, %none, %none))IR",
                                "%a, %y"),
                             {randn({4, 5}, 6)});
    CHECK(r.count("Sub") == 3);
  }
  SECTION("prepend, append") {
    check_ir_opsets(ir("%x : Tensor, %p : Tensor, %q : Tensor",
                       "  %y : Tensor = aten::diff(%x, %1, %1, %p, %q)"),
                    {randn({2, 5}, 7), randn({2, 1}, 8), randn({2, 3}, 9)});
  }
  SECTION("int and bool") {
    check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::diff(%x, %1, %0, %none, %none)"),
                    {ints({6}, -9, 9)});
    check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::diff(%x, %1, %0, %none, %none)"),
                    {ints({6}, 0, 2).to(at::kBool)});
  }
}

TEST_CASE("aten::nansum", "[statistics]") {
  auto x = randn({3, 4}, 10);
  x.index_put_({0, 1}, kNan);
  x.index_put_({2, 3}, kNan);
  check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::nansum(%x, %none, %false, %none)
  %b : Tensor = aten::nansum(%x, %d1, %true, %none)
  %y : Tensor = aten::nansum(%x, %d02, %false, %double))IR",
                     "%a, %b, %y"),
                  {x});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::nansum(%x, %d1, %false, %none)"),
                  {ints({3, 4}, -5, 5, at::kInt)});
}

TEST_CASE("aten::nanmean", "[statistics]") {
  auto x = randn({3, 4}, 11);
  x.index_put_({0, 1}, kNan);
  x.index_put_({1}, kNan); // an all-NaN row: NaN
  check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::nanmean(%x, %none, %false, %none)
  %b : Tensor = aten::nanmean(%x, %d1, %true, %none)
  %dz : int[] = prim::ListConstruct(%0)
  %y : Tensor = aten::nanmean(%x, %dz, %false, %none))IR",
                     "%a, %b, %y"),
                  {x});
}

TEST_CASE("aten::trace", "[statistics]") {
  check_ir_opsets(ir1("aten::trace(%x)"), {randn({4, 4}, 12)});
  check_ir_opsets(ir1("aten::trace(%x)"), {randn({3, 5}, 13)});
  check_ir_opsets(ir1("aten::trace(%x)"), {ints({5, 2}, -9, 9, at::kInt)});
}

TEST_CASE("aten::dist", "[statistics]") {
  auto a = randn({3, 4}, 14), b = randn({4}, 15);
  for (const char *p : {"2.", "1.", "3.", "0.", "0.5"}) {
    INFO("p = " << p);
    check_ir_opsets(ir2("aten::dist(%x, %z, %p)",
                        std::string("  %p : float = prim::Constant[value=") + p + "]()\n"),
                    {a, b});
  }
}

TEST_CASE("aten::renorm", "[statistics]") {
  auto x = randn({3, 4, 2}, 16) * 2;
  SECTION("p 2, dim 0") {
    check_ir_opsets(ir1("aten::renorm(%x, %p, %d, %m)",
                        "  %p : int = prim::Constant[value=2]()\n"
                        "  %d : int = prim::Constant[value=0]()\n"
                        "  %m : float = prim::Constant[value=2.5]()\n"),
                    {x});
  }
  SECTION("p 1, dim -1, in place") {
    check_ir_opsets(ir("%x0 : Tensor", R"IR(
  %x : Tensor = aten::mul(%x0, %1)
  %y : Tensor = aten::renorm_(%x, %s15, %m1, %5))IR"),
                    {x});
  }
}

TEST_CASE("aten::norm_except_dim", "[statistics]") {
  auto v = randn({4, 3, 2}, 17);
  check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::norm_except_dim(%x, %2, %0)
  %b : Tensor = aten::norm_except_dim(%x, %2, %1)
  %c : Tensor = aten::norm_except_dim(%x, %1, %2)
  %y : Tensor = aten::norm_except_dim(%x, %2, %m1))IR",
                     "%a, %b, %c, %y"),
                  {v});
}

TEST_CASE("aten::trapezoid", "[statistics]") {
  auto y = randn({3, 5}, 18);
  auto x = at::tensor({-1.f, 0.5f, 0.75f, 2.f, 4.5f});
  SECTION("x, 1-D and full") {
    check_ir_opsets(ir("%x : Tensor, %z : Tensor", "  %y : Tensor = aten::trapezoid(%x, %z, %m1)"),
                    {y, x});
    check_ir_opsets(ir("%x : Tensor, %z : Tensor", "  %y : Tensor = aten::trapezoid(%x, %z, %0)"),
                    {y, randn({3, 5}, 19).cumsum(0)});
  }
  SECTION("dx, trapz") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::trapezoid(%x, %s15, %0)
  %b : Tensor = aten::trapz(%x, %half, %m1)
  %y : Tensor = aten::trapz(%x, %x, %1))IR",
                       "%a, %b, %y"),
                    {y});
  }
  SECTION("cumulative") {
    check_ir_opsets(
        ir("%x : Tensor, %z : Tensor", "  %y : Tensor = aten::cumulative_trapezoid(%x, %z, %1)"),
        {y, x});
    check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::cumulative_trapezoid(%x, %2, %0)"),
                    {y});
  }
}

TEST_CASE("aten::cov", "[statistics]") {
  auto x = randn({3, 6}, 20);
  auto fw = at::tensor({1, 2, 1, 3, 1, 1}, at::kLong);
  auto aw = at::tensor({0.5f, 1.f, 2.f, 0.25f, 1.5f, 1.f});
  SECTION("plain, correction") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::cov(%x, %1, %none, %none)
  %y : Tensor = aten::cov(%x, %0, %none, %none))IR",
                       "%a, %y"),
                    {x});
    check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::cov(%x, %1, %none, %none)"),
                    {randn({7}, 21)});
  }
  SECTION("weights") {
    check_ir_opsets(ir("%x : Tensor, %f : Tensor, %w : Tensor", R"IR(
  %a : Tensor = aten::cov(%x, %1, %f, %none)
  %b : Tensor = aten::cov(%x, %1, %none, %w)
  %y : Tensor = aten::cov(%x, %2, %f, %w))IR",
                       "%a, %b, %y"),
                    {x, fw, aw});
  }
}

TEST_CASE("aten::corrcoef", "[statistics]") {
  check_ir_opsets(ir1("aten::corrcoef(%x)"), {randn({4, 8}, 22)});
  check_ir_opsets(ir1("aten::corrcoef(%x)"), {randn({8}, 23)});
}
