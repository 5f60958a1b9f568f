#include <catch2/catch.hpp>

#include "harness.h"

using namespace t2o_test;

// The numbers come from a runtime tensor (a sum), so the walker cannot fold them.
TEST_CASE("aten::Int", "[scalar]") {
  auto r = check_ir_opsets(R"IR(
graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %s : Tensor = aten::sum(%x, %none)
  %i : int = aten::Int(%s)
  %f : float = aten::Float(%s)
  %b : bool = aten::Bool(%s)
  %ti : Tensor = prim::NumToTensor(%i)
  %tf : Tensor = prim::NumToTensor(%f)
  %tb : Tensor = prim::NumToTensor(%b)
  return (%ti, %tf, %tb))IR",
                           {randn({5}) * 3});
  CHECK(r.count("Cast") >= 2);
}

TEST_CASE("aten::item", "[scalar]") {
  check_ir_opsets(R"IR(
graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %s : Tensor = aten::sum(%x, %none)
  %n : Scalar = aten::item(%s)
  %m : Scalar = aten::ScalarImplicit(%s)
  %tn : Tensor = prim::NumToTensor(%n)
  %tm : Tensor = prim::NumToTensor(%m)
  return (%tn, %tm))IR",
                  {randn({5})});
}
