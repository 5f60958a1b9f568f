#include "harness.h"

#include <catch2/catch.hpp>

using namespace t2o_test;

TEST_CASE("aten::linear", "[linalg]") {
  SECTION("2-D input with bias: Gemm") {
    auto r = check_ir_opsets(R"IR(
graph(%x : Tensor, %w : Tensor, %b : Tensor):
  %y : Tensor = aten::linear(%x, %w, %b)
  return (%y))IR",
                             {randn({2, 4}), randn({3, 4}, 2), randn({3}, 3)});
    CHECK(r.count("Gemm") == 1);
  }
  SECTION("3-D input, no bias: MatMul") {
    auto r = check_ir_opsets(R"IR(
graph(%x : Tensor, %w : Tensor):
  %none : NoneType = prim::Constant()
  %y : Tensor = aten::linear(%x, %w, %none)
  return (%y))IR",
                             {randn({2, 5, 4}), randn({3, 4}, 2)});
    CHECK(r.count("MatMul") == 1);
  }
  SECTION("1-D input") {
    check_ir_opsets(R"IR(
graph(%x : Tensor, %w : Tensor, %b : Tensor):
  %y : Tensor = aten::linear(%x, %w, %b)
  return (%y))IR",
                    {randn({4}), randn({3, 4}, 2), randn({3}, 3)});
  }
  SECTION("3-D input with bias") {
    check_ir_opsets(R"IR(
graph(%x : Tensor, %w : Tensor, %b : Tensor):
  %y : Tensor = aten::linear(%x, %w, %b)
  return (%y))IR",
                    {randn({2, 5, 4}), randn({3, 4}, 2), randn({3}, 3)});
  }
}

TEST_CASE("aten::addmm", "[linalg]") {
  SECTION("beta alpha") {
    auto r = check_ir_opsets(R"IR(
graph(%c : Tensor, %a : Tensor, %b : Tensor):
  %beta : float = prim::Constant[value=0.5]()
  %alpha : int = prim::Constant[value=2]()
  %y : Tensor = aten::addmm(%c, %a, %b, %beta, %alpha)
  return (%y))IR",
                             {randn({3}), randn({2, 4}, 2), randn({4, 3}, 3)});
    CHECK(r.count("Gemm") == 1);
  }
  SECTION("baddbmm") {
    check_ir_opsets(R"IR(
graph(%c : Tensor, %a : Tensor, %b : Tensor):
  %beta : float = prim::Constant[value=0.5]()
  %alpha : float = prim::Constant[value=1.5]()
  %y : Tensor = aten::baddbmm(%c, %a, %b, %beta, %alpha)
  return (%y))IR",
                    {randn({2, 1, 3}), randn({2, 2, 4}, 2), randn({2, 4, 3}, 3)});
  }
}

TEST_CASE("aten::matmul", "[linalg]") {
  SECTION("batched broadcast") {
    auto r = check_ir_opsets(R"IR(
graph(%a : Tensor, %b : Tensor):
  %y : Tensor = aten::matmul(%a, %b)
  return (%y))IR",
                             {randn({2, 3, 4}), randn({4, 5}, 2)});
    CHECK(r.count("MatMul") == 1);
  }
  SECTION("mm bmm mv dot") {
    check_ir_opsets(
        R"IR(
graph(%a : Tensor, %b : Tensor, %p : Tensor, %q : Tensor, %v : Tensor):
  %y0 : Tensor = aten::mm(%a, %b)
  %y1 : Tensor = aten::bmm(%p, %q)
  %y2 : Tensor = aten::mv(%a, %v)
  %y3 : Tensor = aten::dot(%v, %v)
  return (%y0, %y1, %y2, %y3))IR",
        {randn({2, 4}), randn({4, 3}, 2), randn({2, 2, 4}, 3), randn({2, 4, 3}, 4), randn({4}, 5)});
  }
  SECTION("1-D times 2-D") {
    check_ir_opsets(R"IR(
graph(%a : Tensor, %b : Tensor):
  %y : Tensor = aten::matmul(%a, %b)
  return (%y))IR",
                    {randn({4}), randn({2, 4, 5}, 2)});
  }
  SECTION("integer mm and addmm") {
    check_ir_opsets(R"IR(
graph(%c : Tensor, %a : Tensor, %b : Tensor):
  %one : int = prim::Constant[value=1]()
  %y : Tensor = aten::addmm(%c, %a, %b, %one, %one)
  return (%y))IR",
                    {at::randint(0, 5, {3}, at::kLong), at::randint(0, 5, {2, 4}, at::kLong),
                     at::randint(0, 5, {4, 3}, at::kLong)});
  }
  SECTION("ger (outer's old name)") {
    check_ir_opsets(R"IR(
graph(%a : Tensor, %b : Tensor):
  %y : Tensor = aten::ger(%a, %b)
  return (%y))IR",
                    {randn({3}), randn({4}, 2)});
  }
  SECTION("outer") {
    check_ir_opsets(R"IR(
graph(%a : Tensor, %b : Tensor):
  %y : Tensor = aten::outer(%a, %b)
  return (%y))IR",
                    {randn({3}), randn({4}, 2)});
  }
}

TEST_CASE("aten::einsum", "[linalg]") {
  SECTION("ellipsis and spaces") {
    check_ir_opsets(R"IR(
graph(%a : Tensor, %b : Tensor):
  %eq : str = prim::Constant[value="...ij, ...kj -> ...ik"]()
  %none : NoneType = prim::Constant()
  %l : Tensor[] = prim::ListConstruct(%a, %b)
  %y : Tensor = aten::einsum(%eq, %l, %none)
  return (%y))IR",
                    {randn({2, 3, 4}), randn({2, 5, 4}, 2)});
  }
  auto r = check_ir_opsets(R"IR(
graph(%a : Tensor, %b : Tensor):
  %eq : str = prim::Constant[value="bij,bjk->bik"]()
  %none : NoneType = prim::Constant()
  %l : Tensor[] = prim::ListConstruct(%a, %b)
  %y : Tensor = aten::einsum(%eq, %l, %none)
  return (%y))IR",
                           {randn({2, 3, 4}), randn({2, 4, 5}, 2)});
  CHECK(r.count("Einsum") == 1);
  SECTION("opset 11: the all-at-once error names opset 12, where Einsum arrives") {
    std::string err = export_ir_error(R"IR(
graph(%a : Tensor, %b : Tensor):
  %eq : str = prim::Constant[value="bij,bjk->bik"]()
  %none : NoneType = prim::Constant()
  %l : Tensor[] = prim::ListConstruct(%a, %b)
  %y : Tensor = aten::einsum(%eq, %l, %none)
  return (%y))IR",
                                      {randn({2, 3, 4}), randn({2, 4, 5}, 2)}, 11);
    CHECK_THAT(err, Catch::Contains("1 op has no converter at opset 11"));
    CHECK_THAT(err, Catch::Contains("aten::einsum"));
    CHECK_THAT(err, Catch::Contains("[supported from opset 12: use --opset 12]"));
  }
}
