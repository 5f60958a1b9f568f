// put, index_reduce and fill_diagonal_ (aten_lib/placement.cpp), each against LibTorch in ONNX
// Runtime at its lowest opset and at 21.
#include "harness.h"
#include "ir_text.h"

#include <catch2/catch.hpp>

using namespace t2o_test;

TEST_CASE("aten::put", "[placement]") {
  auto x = randn({3, 4}, 1), src = randn({2, 2}, 2);
  auto idx = at::tensor({0, 5, -1, 7}, at::kLong).reshape({2, 2});
  check_ir_opsets(
      ir("%x : Tensor, %i : Tensor, %s : Tensor", "  %y : Tensor = aten::put(%x, %i, %s, %false)"),
      {x, idx, src});
  SECTION("accumulate, with a repeated position") {
    auto rep = at::tensor({0, 5, 5, -12}, at::kLong);
    check_ir_opsets(
        ir("%x : Tensor, %i : Tensor, %s : Tensor", "  %y : Tensor = aten::put(%x, %i, %s, %true)"),
        {x, rep, randn({4}, 3)});
  }
  SECTION("in place") {
    check_ir_opsets(ir("%x : Tensor, %i : Tensor, %s : Tensor",
                       "  %c : Tensor = aten::clone(%x, %none)\n"
                       "  %y : Tensor = aten::put_(%c, %i, %s, %false)"),
                    {x, idx, src});
  }
}

TEST_CASE("aten::index_reduce", "[placement]") {
  auto x = randn({5, 3}, 4), src = randn({4, 3}, 5);
  auto idx = at::tensor({0, 4, 2, 0}, at::kLong); // row 0 twice, rows 1 and 3 untouched
  for (const char *reduce : {"prod", "mean", "amax", "amin"}) {
    for (const char *incl : {"%true", "%false"}) {
      DYNAMIC_SECTION(reduce << " include_self " << incl) {
        check_ir_opsets(ir("%x : Tensor, %i : Tensor, %s : Tensor",
                           std::string("  %r : str = prim::Constant[value=\"") + reduce +
                               "\"]()\n  %y : Tensor = aten::index_reduce(%x, %0, %i, %s, %r, " +
                               incl + ")"),
                        {x, idx, src});
      }
    }
  }
  SECTION("along dim 1, in place") {
    auto x2 = randn({3, 5}, 6), src2 = randn({3, 4}, 7);
    check_ir_opsets(ir("%x : Tensor, %i : Tensor, %s : Tensor",
                       "  %r : str = prim::Constant[value=\"amax\"]()\n"
                       "  %c : Tensor = aten::clone(%x, %none)\n"
                       "  %y : Tensor = aten::index_reduce_(%c, %m1, %i, %s, %r, %true)"),
                    {x2, idx, src2});
  }
}

TEST_CASE("aten::fill_diagonal_", "[placement]") {
  const std::vector<std::vector<int64_t>> shapes{{4, 4}, {3, 5}, {7, 3}, {3, 3, 3}};
  for (const auto &shape : shapes) {
    for (const char *wrap : {"%false", "%true"}) {
      DYNAMIC_SECTION(at::IntArrayRef(shape) << " wrap " << wrap) {
        check_ir_opsets(ir("%x : Tensor", "  %c : Tensor = aten::clone(%x, %none)\n"
                                          "  %y : Tensor = aten::fill_diagonal_(%c, %s15, " +
                                              std::string(wrap) + ")"),
                        {randn(shape, 8)});
      }
    }
  }
  check_ir_opsets(ir("%x : Tensor", "  %c : Tensor = aten::clone(%x, %none)\n"
                                    "  %y : Tensor = aten::fill_diagonal_(%c, %m2, %false)"),
                  {ints({3, 4})});
}

TEST_CASE("aten::fill_diagonal_ of a matrix known only at run time", "[placement]") {
  // sim.fill_diagonal_(-inf) on a [batch, batch] score matrix; tall [R, C] with and without wrap.
  for (const char *wrap : {"%false", "%true"}) {
    DYNAMIC_SECTION("wrap " << wrap) {
      const std::string g = ir("%x : Tensor", "  %c : Tensor = aten::clone(%x, %none)\n"
                                              "  %y : Tensor = aten::fill_diagonal_(%c, %s15, " +
                                                  std::string(wrap) + ")");
      check_ir_dynamic(g, {randn({4, 4}, 1)}, {randn({6, 6}, 2)});
      check_ir_dynamic(g, {randn({7, 3}, 1)}, {randn({11, 4}, 2)});
    }
  }
}
