// Ops that reuse another op's converter (unsafe_/sym_ spellings, native_* forms, detach).
#include "harness.h"

using namespace t2o_test;

TEST_CASE("aten::native_batch_norm", "[aliases]") {
  auto r = check_ir_opsets(R"IR(
graph(%x : Tensor, %w : Tensor, %b : Tensor, %rm : Tensor, %rv : Tensor):
  %false : bool = prim::Constant[value=0]()
  %mom : float = prim::Constant[value=0.1]()
  %eps : float = prim::Constant[value=1e-05]()
  %y : Tensor, %m : Tensor, %s : Tensor = aten::native_batch_norm(%x, %w, %b, %rm, %rv, %false, %mom, %eps)
  return (%y, %m, %s))IR",
                           {randn({2, 3, 4, 4}, 1), randn({3}, 2), randn({3}, 3), randn({3}, 4),
                            randn({3}, 5).abs() + 0.5});
  CHECK(r.count("BatchNormalization") == 1);
}

TEST_CASE("aten::native_dropout", "[aliases]") {
  check_ir_opsets(R"IR(
graph(%x : Tensor):
  %p : float = prim::Constant[value=0.5]()
  %false : bool = prim::Constant[value=0]()
  %y : Tensor, %mask : Tensor = aten::native_dropout(%x, %p, %false)
  return (%y, %mask))IR",
                  {randn({2, 3}, 1)});
}

TEST_CASE("aten::unsafe_split", "[aliases]") {
  auto r = check_ir_opsets(R"IR(
graph(%x : Tensor):
  %two : int = prim::Constant[value=2]()
  %one : int = prim::Constant[value=1]()
  %parts : Tensor[] = aten::unsafe_split(%x, %two, %one)
  %a : Tensor, %b : Tensor = prim::ListUnpack(%parts)
  return (%a, %b))IR",
                           {randn({2, 4}, 1)});
  CHECK(r.count("Split") == 1);
}

TEST_CASE("aten::unsafe_split_with_sizes", "[aliases]") {
  check_ir_opsets(R"IR(
graph(%x : Tensor):
  %one : int = prim::Constant[value=1]()
  %three : int = prim::Constant[value=3]()
  %sizes : int[] = prim::ListConstruct(%one, %three)
  %parts : Tensor[] = aten::unsafe_split_with_sizes(%x, %sizes, %one)
  %a : Tensor, %b : Tensor = prim::ListUnpack(%parts)
  return (%a, %b))IR",
                  {randn({2, 4}, 1)});
}

TEST_CASE("aten::unsafe_chunk", "[aliases]") {
  check_ir_opsets(R"IR(
graph(%x : Tensor):
  %two : int = prim::Constant[value=2]()
  %one : int = prim::Constant[value=1]()
  %parts : Tensor[] = aten::unsafe_chunk(%x, %two, %one)
  %a : Tensor, %b : Tensor = prim::ListUnpack(%parts)
  return (%a, %b))IR",
                  {randn({2, 4}, 1)});
}

TEST_CASE("aten::_local_scalar_dense", "[aliases]") {
  check_ir_opsets(R"IR(
graph(%x : Tensor, %t : Tensor):
  %s : Scalar = aten::_local_scalar_dense(%t)
  %y : Tensor = aten::mul(%x, %s)
  return (%y))IR",
                  {randn({2, 3}, 1), randn({}, 2)});
}

TEST_CASE("aten::detach", "[aliases]") {
  auto r = check_ir_opsets(R"IR(
graph(%x : Tensor):
  %d : Tensor = aten::detach(%x)
  %y : Tensor = aten::relu(%d)
  return (%y))IR",
                           {randn({2, 3}, 1)});
  CHECK(r.count("Relu") == 1);
}

TEST_CASE("aten::is_nonzero", "[aliases]") {
  for (double v : {0.0, 2.5}) {
    check_ir_opsets(R"IR(
graph(%t : Tensor):
  %b : bool = aten::is_nonzero(%t)
  return (%b))IR",
                    {at::full({1}, v)});
  }
}

TEST_CASE("aten::sym_size", "[aliases]") {
  auto ex = randn({2, 3}, 1);
  auto alt = randn({5, 3}, 2);
  check_ir_dynamic(R"IR(
graph(%x : Tensor):
  %zero : int = prim::Constant[value=0]()
  %n : int = aten::sym_size(%x, %zero)
  %y : Tensor = aten::mul(%x, %n)
  return (%y))IR",
                   {ex}, {alt}, 13);
}
