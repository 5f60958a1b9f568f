#include <catch2/catch.hpp>

#include "harness.h"

using namespace t2o_test;

TEST_CASE("aten::relu", "[activation]") {
  auto r = check_ir_opsets(R"IR(
graph(%x : Tensor):
  %y : Tensor = aten::relu(%x)
  return (%y))IR",
                           {randn({2, 3, 4})});
  CHECK(r.count("Relu") == 1);
}

TEST_CASE("aten::sigmoid", "[activation]") {
  auto r = check_ir_opsets(R"IR(
graph(%x : Tensor):
  %y : Tensor = aten::sigmoid(%x)
  return (%y))IR",
                           {randn({2, 3, 4})});
  CHECK(r.count("Sigmoid") == 1);
}
