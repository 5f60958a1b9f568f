// <math.h>-style elementwise functions (aten_lib/numeric.cpp), each against LibTorch in ONNX
// Runtime at its lowest opset and at 21.
#include "harness.h"
#include "ir_text.h"

#include <catch2/catch.hpp>
#include <limits>

using namespace t2o_test;

namespace {

const float kInf = std::numeric_limits<float>::infinity();
const float kNan = std::numeric_limits<float>::quiet_NaN();

// graph(%x, %z) with %c a clone of %x (for in-place calls) and %h = 0.5, %two = 2, %m3 = -3.
std::string call2(const std::string &call) {
  return "graph(%x : Tensor, %z : Tensor):\n  %none : NoneType = prim::Constant()\n"
         "  %h : float = prim::Constant[value=0.5]()\n  %two : int = prim::Constant[value=2]()\n"
         "  %m3 : int = prim::Constant[value=-3]()\n"
         "  %c : Tensor = aten::clone(%x, %none)\n  %y : Tensor = " +
         call + "\n  return (%y)";
}

} // namespace

TEST_CASE("aten::copysign", "[numeric]") {
  auto x = at::tensor({1.5f, -2.f, 0.f, -0.f, 3.f, -4.f, kInf, 7.f});
  auto z = at::tensor({-1.f, 2.f, -0.f, 0.f, -0.f, -3.f, -1.f, 1e-30f});
  check_ir_opsets(call2("aten::copysign(%x, %z)"), {x, z});
  SECTION("broadcast, a Scalar other, integers") {
    check_ir_opsets(call2("aten::copysign(%x, %z)"), {randn({3, 4}, 1), randn({4}, 2)});
    check_ir_opsets(call2("aten::copysign(%x, %m3)"), {randn({3, 4}, 1), x});
    check_ir_opsets(call2("aten::copysign(%x, %z)"), {ints({3, 4}), ints({3, 4})});
  }
  SECTION("in place") {
    check_ir_opsets(call2("aten::copysign_(%c, %z)"), {x, z});
    check_ir_opsets(call2("aten::copysign_(%c, %h)"), {x, z});
  }
}

TEST_CASE("aten::hypot", "[numeric]") {
  auto x = randn({3, 4}, 3) * 5, z = randn({4}, 4) * 5;
  check_ir_opsets(call2("aten::hypot(%x, %z)"), {x, z});
  check_ir_opsets(call2("aten::hypot_(%c, %z)"), {x, z});
}

TEST_CASE("aten::fmax", "[numeric]") {
  auto x = at::tensor({1.f, kNan, 3.f, kNan, -2.f, 5.f, -kInf});
  auto z = at::tensor({2.f, 1.f, kNan, kNan, -2.f, -5.f, 0.f});
  check_ir_opsets(call2("aten::fmax(%x, %z)"), {x, z});
  check_ir_opsets(call2("aten::fmin(%x, %z)"), {x, z});
  SECTION("integers, broadcast") {
    check_ir_opsets(call2("aten::fmax(%x, %z)"), {ints({3, 4}), ints({4})});
    check_ir_opsets(call2("aten::fmin(%x, %z)"), {ints({3, 4}), ints({4})});
  }
}

TEST_CASE("aten::gcd", "[numeric]") {
  auto x = at::tensor(std::vector<int64_t>{12, -18, 0, 0, 7, 1071, -48, 832040, int64_t{1} << 40});
  auto z = at::tensor(std::vector<int64_t>{18, 12, 5, 0, 13, 462, -180, 514229, 6});
  auto r = check_ir_opsets(call2("aten::gcd(%x, %z)"), {x, z});
  CHECK(r.count("Loop") == 1);
  check_ir_opsets(call2("aten::lcm(%x, %z)"), {x.remainder(100000), z});
  SECTION("int32, broadcast, in place") {
    auto a = ints({3, 4}, -60, 60, at::kInt), b = ints({4}, -60, 60, at::kInt);
    check_ir_opsets(call2("aten::gcd(%x, %z)"), {a, b});
    check_ir_opsets(call2("aten::lcm(%x, %z)"), {a, b});
    check_ir_opsets(call2("aten::gcd_(%c, %z)"), {a, b});
    check_ir_opsets(call2("aten::lcm_(%c, %z)"), {a, b});
  }
}

TEST_CASE("aten::ldexp", "[numeric]") {
  auto x = randn({3, 4}, 5), e = ints({3, 4}, -6, 7);
  check_ir_opsets(call2("aten::ldexp(%x, %z)"), {x, e});
  check_ir_opsets(call2("aten::ldexp_(%c, %z)"), {x, e});
}

TEST_CASE("aten::float_power", "[numeric]") {
  auto x = randn({3, 4}, 6).abs() + 0.1, e = randn({3, 4}, 7);
  check_ir_opsets(call2("aten::float_power(%x, %z)"), {x, e});
  check_ir_opsets(call2("aten::float_power(%x, %h)"), {x, e});
  check_ir_opsets(call2("aten::float_power(%two, %z)"), {x, e});
  check_ir_opsets(call2("aten::float_power(%x, %z)"), {ints({5}, -4, 5), ints({5}, 0, 4)});
  SECTION("in place (self must be float64)") {
    check_ir_opsets(call2("aten::float_power_(%c, %z)"), {x.to(at::kDouble), e});
    check_ir_opsets(call2("aten::float_power_(%c, %two)"), {x.to(at::kDouble), e});
  }
}

TEST_CASE("aten::frexp", "[numeric]") {
  const std::string g = R"IR(
graph(%x : Tensor):
  %m : Tensor, %e : Tensor = aten::frexp(%x)
  return (%m, %e))IR";
  auto x = at::tensor({0.f, -0.f, 1.f, 0.5f, 0.25f, -8.f, 3.f, 1023.f, 1024.f, 1e-20f, -3e30f,
                       1.17549435e-38f, 1e-40f, 0.75f, -0.99999994f, kInf, kNan});
  auto r = check_ir_opsets(g, {x});
  CHECK(r.torch_outputs[1].scalar_type() == at::kInt);
  check_ir_opsets(g, {randn({3, 4}, 8) * 100});
  check_ir_opsets(g, {randn({3, 4}, 9).to(at::kDouble) * 1e10});
}

TEST_CASE("aten::isreal", "[numeric]") {
  check_ir_opsets(ir1("aten::isreal(%x)"), {randn({3, 4}, 10)});
  check_ir_opsets(ir1("aten::isreal(%x)"), {ints({5})});
  SECTION("complex: where the imaginary part is 0") {
    auto x = randn({4, 2}, 11);
    x.index_put_({1, 1}, 0.f);
    x.index_put_({3, 1}, -0.f);
    check_ir_opsets(ir("%x : Tensor", "  %a : Tensor = aten::view_as_complex(%x)\n"
                                      "  %y : Tensor = aten::isreal(%a)"),
                    {x});
  }
}

// nextafter moves by one unit in the last place, far below the default tolerance: the tests
// also return nextafter(x, y) - x, compared with no absolute slack (rtol 1e-4 of its own size).
TEST_CASE("aten::nextafter", "[numeric]") {
  const std::string g = R"IR(
graph(%x : Tensor, %z : Tensor):
  %one : int = prim::Constant[value=1]()
  %n : Tensor = aten::nextafter(%x, %z)
  %d : Tensor = aten::sub(%n, %x, %one)
  return (%n, %d))IR";
  auto x = at::tensor({1.f, 1.f, 2.f, 0.5f, -1.f, -4.f, 3.f, 0.f, 0.f, 1e-40f, 1e-30f, -7.5f,
                       3.4028235e38f, 5.f, kNan});
  auto z =
      at::tensor({2.f, 0.f, -1.f, 10.f, 0.f, -5.f, 3.f, 1.f, -1.f, 1.f, 0.f, 8.f, kInf, kNan, 1.f});
  check_ir_opsets(g, {x, z}, 1e-4, 0.0);
  check_ir_opsets(g, {randn({4, 5}, 12) * 100, randn({4, 5}, 13) * 100}, 1e-4, 0.0);
  SECTION("double") {
    check_ir_opsets(g, {x.to(at::kDouble), z.to(at::kDouble)}, 1e-4, 0.0);
  }
  SECTION("in place") {
    check_ir_opsets(ir("%x : Tensor, %z : Tensor", "  %c : Tensor = aten::clone(%x, %none)\n"
                                                   "  %n : Tensor = aten::nextafter_(%c, %z)\n"
                                                   "  %y : Tensor = aten::sub(%n, %x, %1)"),
                    {x, z}, 1e-4, 0.0);
  }
}
