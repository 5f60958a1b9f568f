#include "harness.h"

#include <catch2/catch.hpp>
#include <limits>

using namespace t2o_test;

namespace {

const char *kConsts = R"IR(
  %one : int = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %none : NoneType = prim::Constant()
  %half : float = prim::Constant[value=0.5]()
  %f25 : float = prim::Constant[value=2.5]()
  %m3 : int = prim::Constant[value=-3]()
  %zero_f : float = prim::Constant[value=0.]()
  %trunc : str = prim::Constant[value="trunc"]()
  %floor : str = prim::Constant[value="floor"]()
)IR";

// graph(%x) -> %y = call, with the constants in kConsts.
std::string ir1(const std::string &call) {
  return std::string("graph(%x : Tensor):") + kConsts + "  %y : Tensor = " + call +
         "\n  return (%y)";
}

// graph(%x, %w) -> %y = call.
std::string ir2(const std::string &call) {
  return std::string("graph(%x : Tensor, %w : Tensor):") + kConsts + "  %y : Tensor = " + call +
         "\n  return (%y)";
}

// In-place ops act on a temporary (x + 0) so that LibTorch does not modify the graph input the
// harness later feeds to ONNX Runtime.
std::string ir2_inplace(const std::string &call) {
  return std::string("graph(%x0 : Tensor, %w : Tensor):") + kConsts +
         "  %zero : int = prim::Constant[value=0]()\n"
         "  %x : Tensor = aten::add(%x0, %zero, %one)\n"
         "  %y : Tensor = " +
         call + "\n  return (%y)";
}

// Non-zero integers of both signs, for divisors.
at::Tensor divisors(std::vector<int64_t> shape) {
  return ints(shape, 1, 6) * (ints(shape, 0, 2) * 2 - 1);
}

at::Tensor bools(std::vector<int64_t> shape, uint64_t seed) {
  return randn(shape, seed) > 0;
}

} // namespace

TEST_CASE("aten::add", "[elementwise]") {
  SECTION("tensors with broadcasting") {
    auto r = check_ir_opsets(ir2("aten::add(%x, %w, %one)"), {randn({2, 3, 4}), randn({3, 1}, 2)});
    CHECK(r.count("Add") == 1);
    CHECK(r.count("Mul") == 0);
  }
  SECTION("alpha") {
    auto r = check_ir_opsets(ir2("aten::add(%x, %w, %f25)"), {randn({2, 3}), randn({2, 3}, 2)});
    CHECK(r.count("Mul") == 1);
  }
  SECTION("python float on int tensor promotes to float") {
    check_ir_opsets(ir1("aten::add(%x, %f25, %one)"), {ints({3, 4})});
  }
  SECTION("python int keeps int32") {
    check_ir_opsets(ir1("aten::add(%x, %m3, %two)"), {ints({5}, -5, 5, at::kInt)});
  }
  SECTION("int and float tensors") {
    check_ir_opsets(ir2("aten::add(%x, %w, %one)"), {ints({3}), randn({3})});
  }
  SECTION("int8 wraps like torch") {
    check_ir_opsets(ir2("aten::add(%x, %w, %one)"),
                    {ints({16}, -128, 127, at::kChar), ints({16}, -128, 127, at::kChar)});
  }
  SECTION("bools are or-ed") {
    auto r = check_ir_opsets(ir2("aten::add(%x, %w, %one)"), {bools({8}, 1), bools({8}, 2)});
    CHECK(r.count("Or") == 1);
  }
  SECTION("double with 0-d float tensor") {
    check_ir_opsets(ir2("aten::add(%x, %w, %one)"), {randn({4}).to(at::kDouble), randn({}, 3)});
  }
  SECTION("in place") {
    check_ir_opsets(ir2_inplace("aten::add_(%x, %w, %one)"), {randn({4}), randn({4}, 2)});
  }
}

TEST_CASE("aten::sub", "[elementwise]") {
  SECTION("alpha") {
    check_ir_opsets(ir2("aten::sub(%x, %w, %two)"), {randn({2, 3}), randn({3}, 2)});
  }
  SECTION("scalar") {
    check_ir_opsets(ir1("aten::sub(%x, %half, %one)"), {randn({2, 3})});
  }
  SECTION("in place") {
    check_ir_opsets(ir2_inplace("aten::sub_(%x, %w, %one)"), {randn({4}), randn({4}, 2)});
  }
}

TEST_CASE("aten::rsub", "[elementwise]") {
  SECTION("scalar") {
    auto r = check_ir_opsets(ir1("aten::rsub(%x, %f25, %two)"), {randn({2, 3})});
    CHECK(r.count("Sub") == 1);
  }
  SECTION("tensor") {
    check_ir_opsets(ir2("aten::rsub(%x, %w, %one)"), {ints({4}), ints({4})});
  }
}

TEST_CASE("aten::mul", "[elementwise]") {
  SECTION("tensors") {
    check_ir_opsets(ir2("aten::mul(%x, %w)"), {randn({2, 3}), randn({2, 3}, 2)});
  }
  SECTION("scalar") {
    check_ir_opsets(ir1("aten::mul(%x, %f25)"), {ints({2, 3})});
  }
  SECTION("bools") {
    auto r = check_ir_opsets(ir2("aten::mul(%x, %w)"), {bools({8}, 1), bools({8}, 2)});
    CHECK(r.count("And") == 1);
  }
  SECTION("in place") {
    check_ir_opsets(ir2_inplace("aten::mul_(%x, %w)"), {randn({4}), randn({4}, 2)});
  }
}

TEST_CASE("aten::div", "[elementwise]") {
  SECTION("float") {
    check_ir_opsets(ir2("aten::div(%x, %w)"), {randn({2, 3}), randn({2, 3}, 2)});
  }
  SECTION("ints give float") {
    check_ir_opsets(ir2("aten::div(%x, %w)"), {ints({12}), divisors({12})});
  }
  SECTION("scalar") {
    check_ir_opsets(ir1("aten::div(%x, %m3)"), {ints({12})});
  }
  SECTION("trunc float") {
    check_ir_opsets(ir2("aten::div(%x, %w, %trunc)"), {randn({12}) * 5, randn({12}, 2)});
  }
  SECTION("floor float") {
    auto r = check_ir_opsets(ir2("aten::div(%x, %w, %floor)"), {randn({12}) * 5, randn({12}, 2)});
    CHECK(r.count("Floor") == 1);
    // Near-exact multiples (2.1 // 0.7 is 2 in torch; floor(2.1 / 0.7) is 3), signs, zeros.
    auto x = at::tensor({2.1F, -2.1F, 2.1F, 0.3F, -0.3F, 0.0F, 5.0F, 1.0F, 7.5F});
    auto y = at::tensor({0.7F, 0.7F, -0.7F, 0.1F, 0.1F, -3.0F, 0.0F, 3.0F, -2.5F});
    check_ir_opsets(ir2("aten::div(%x, %w, %floor)"), {x, y});
    check_ir_opsets(ir2("aten::floor_divide(%x, %w)"), {x, y});
  }
  SECTION("trunc int") {
    check_ir_opsets(ir2("aten::div(%x, %w, %trunc)"), {ints({16}), divisors({16})});
  }
  SECTION("floor int") {
    check_ir_opsets(ir2("aten::div(%x, %w, %floor)"), {ints({16}), divisors({16})});
  }
  SECTION("floor int by scalar") {
    check_ir_opsets(ir1("aten::div(%x, %m3, %floor)"), {ints({16})});
  }
  SECTION("in place") {
    check_ir_opsets(ir2_inplace("aten::div_(%x, %w)"), {randn({4}), randn({4}, 2)});
  }
}

TEST_CASE("aten::floor_divide", "[elementwise]") {
  SECTION("int") {
    check_ir_opsets(ir2("aten::floor_divide(%x, %w)"), {ints({16}), divisors({16})});
  }
  SECTION("float scalar") {
    check_ir_opsets(ir1("aten::floor_divide(%x, %half)"), {randn({16}) * 3});
  }
}

TEST_CASE("aten::remainder", "[elementwise]") {
  SECTION("int") {
    check_ir_opsets(ir2("aten::remainder(%x, %w)"), {ints({16}), divisors({16})});
  }
  SECTION("float, divisors of both signs") {
    check_ir_opsets(ir2("aten::remainder(%x, %w)"), {randn({16}) * 5, randn({16}, 2)});
  }
  SECTION("scalar self") {
    check_ir_opsets(ir1("aten::remainder(%f25, %x)"), {randn({16}) + 4});
  }
  SECTION("scalar divisor") {
    check_ir_opsets(ir1("aten::remainder(%x, %m3)"), {ints({16})});
  }
}

TEST_CASE("aten::fmod", "[elementwise]") {
  SECTION("int") {
    check_ir_opsets(ir2("aten::fmod(%x, %w)"), {ints({16}), divisors({16})});
  }
  SECTION("float") {
    auto r = check_ir_opsets(ir1("aten::fmod(%x, %f25)"), {randn({16}) * 5});
    CHECK(r.count("Mod") == 1);
  }
}

TEST_CASE("aten::pow", "[elementwise]") {
  SECTION("tensor ^ tensor") {
    check_ir_opsets(ir2("aten::pow(%x, %w)"), {randn({3, 4}).abs() + 0.5, randn({4}, 2)});
  }
  SECTION("tensor ^ 2") {
    check_ir_opsets(ir1("aten::pow(%x, %two)"), {randn({3, 4})});
  }
  SECTION("tensor ^ 0.5") {
    check_ir_opsets(ir1("aten::pow(%x, %half)"), {randn({3, 4}).abs()});
  }
  SECTION("scalar ^ tensor") {
    check_ir_opsets(ir1("aten::pow(%f25, %x)"), {randn({3, 4})});
  }
  SECTION("int tensor ^ int") {
    check_ir_opsets(ir1("aten::pow(%x, %two)"), {ints({3, 4})});
    // Pow-7 takes floating types only: opset 11 computes in double and casts back.
    auto r = check_ir(ir1("aten::pow(%x, %two)"), {ints({3, 4})}, 11);
    CHECK(r.count("Cast") >= 2);
  }
  SECTION("int tensor ^ float") {
    check_ir_opsets(ir1("aten::pow(%x, %half)"), {ints({6}, 0, 9)});
  }
}

namespace {

// op(%x) on each input, at both opset ends.
void check_unary(const std::string &op, const std::vector<at::Tensor> &xs) {
  for (const auto &x : xs)
    check_ir_opsets(ir1("aten::" + op + "(%x)"), {x});
}

} // namespace

TEST_CASE("aten::neg", "[elementwise]") {
  check_unary("neg", {randn({3, 5}) * 2, ints({7})});
}

TEST_CASE("aten::abs", "[elementwise]") {
  check_unary("abs", {randn({3, 5}) * 2, ints({7}, -9, 9, at::kInt), ints({7}, -9, 9, at::kChar)});
}

TEST_CASE("aten::exp", "[elementwise]") {
  check_unary("exp", {randn({3, 5}) * 2, ints({7})});
}

TEST_CASE("aten::expm1", "[elementwise]") {
  check_unary("expm1", {randn({3, 5}) * 2});
}

TEST_CASE("aten::exp2", "[elementwise]") {
  check_unary("exp2", {randn({3, 5}) * 2});
}

TEST_CASE("aten::log", "[elementwise]") {
  check_unary("log", {randn({3, 5}).abs() + 0.1});
}

TEST_CASE("aten::log2", "[elementwise]") {
  check_unary("log2", {randn({3, 5}).abs() + 0.1});
}

TEST_CASE("aten::log10", "[elementwise]") {
  check_unary("log10", {randn({3, 5}).abs() + 0.1});
}

TEST_CASE("aten::log1p", "[elementwise]") {
  check_unary("log1p", {randn({3, 5}).abs() + 0.1});
}

TEST_CASE("aten::sqrt", "[elementwise]") {
  check_unary("sqrt", {randn({3, 5}).abs() + 0.1, ints({7}, 0, 9)});
}

TEST_CASE("aten::rsqrt", "[elementwise]") {
  check_unary("rsqrt", {randn({3, 5}).abs() + 0.1});
  // Div(1, Sqrt(x)): the form ONNX Runtime's RMSNorm fusion (SimplifiedLayerNormFusion) matches.
  auto r = check_ir(ir1("aten::rsqrt(%x)"), {randn({3, 5}).abs() + 0.1});
  CHECK(r.count("Div") == 1);
  CHECK(r.count("Reciprocal") == 0);
}

TEST_CASE("aten::reciprocal", "[elementwise]") {
  check_unary("reciprocal", {randn({3, 5}).abs() + 0.1});
}

TEST_CASE("aten::square", "[elementwise]") {
  check_unary("square", {randn({3, 5}) * 2, ints({7})});
}

TEST_CASE("aten::sign", "[elementwise]") {
  check_unary("sign", {randn({3, 5}) * 2, ints({7})});
}

TEST_CASE("aten::erf", "[elementwise]") {
  check_unary("erf", {randn({3, 5}) * 2});
}

TEST_CASE("aten::erfc", "[elementwise]") {
  check_unary("erfc", {randn({3, 5}) * 2});
}

TEST_CASE("aten::sin", "[elementwise]") {
  check_unary("sin", {randn({3, 5}) * 2});
}

TEST_CASE("aten::cos", "[elementwise]") {
  check_unary("cos", {randn({3, 5}) * 2});
}

TEST_CASE("aten::tan", "[elementwise]") {
  check_unary("tan", {at::rand({3, 5}) * 1.8 - 0.9});
}

TEST_CASE("aten::asin", "[elementwise]") {
  check_unary("asin", {at::rand({3, 5}) * 1.8 - 0.9});
}

TEST_CASE("aten::acos", "[elementwise]") {
  check_unary("acos", {at::rand({3, 5}) * 1.8 - 0.9});
}

TEST_CASE("aten::atan", "[elementwise]") {
  check_unary("atan", {randn({3, 5}) * 2});
}

TEST_CASE("aten::sinh", "[elementwise]") {
  check_unary("sinh", {randn({3, 5}) * 2});
}

TEST_CASE("aten::cosh", "[elementwise]") {
  check_unary("cosh", {randn({3, 5}) * 2});
}

TEST_CASE("aten::asinh", "[elementwise]") {
  check_unary("asinh", {randn({3, 5}) * 2});
}

TEST_CASE("aten::acosh", "[elementwise]") {
  check_unary("acosh", {randn({3, 5}).abs() + 0.1 + 1});
}

TEST_CASE("aten::atanh", "[elementwise]") {
  check_unary("atanh", {at::rand({3, 5}) * 1.8 - 0.9});
}

TEST_CASE("aten::floor", "[elementwise]") {
  check_unary("floor", {randn({3, 5}) * 2, ints({7})});
}

TEST_CASE("aten::ceil", "[elementwise]") {
  check_unary("ceil", {randn({3, 5}) * 2});
}

TEST_CASE("aten::trunc", "[elementwise]") {
  check_unary("trunc", {randn({3, 5}) * 2});
}

TEST_CASE("aten::frac", "[elementwise]") {
  check_unary("frac", {randn({3, 5}) * 2});
}

TEST_CASE("aten::deg2rad", "[elementwise]") {
  check_unary("deg2rad", {randn({3, 5}) * 2});
}

TEST_CASE("aten::rad2deg", "[elementwise]") {
  check_unary("rad2deg", {randn({3, 5}) * 2});
}

TEST_CASE("aten::exp_", "[elementwise]") {
  check_ir_opsets(ir2_inplace("aten::exp_(%x)"), {randn({4}), randn({4}, 2)});
}

TEST_CASE("aten::round", "[elementwise]") {
  auto x = at::tensor({-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.3, -0.7}, at::kFloat);
  SECTION("half to even") {
    auto r = check_ir_opsets(ir1("aten::round(%x)"), {x});
    CHECK(r.count("Round") == 1);
  }
  SECTION("decimals") {
    check_ir_opsets(ir1("aten::round(%x, %two)"), {randn({12}) * 10});
    check_ir_opsets(ir1("aten::round(%x, %m3)"), {randn({12}) * 10000});
  }
}

TEST_CASE("aten::clamp", "[elementwise]") {
  SECTION("both scalars") {
    auto r = check_ir_opsets(ir1("aten::clamp(%x, %m3, %half)"), {randn({4, 5}) * 4});
    CHECK(r.count("Clip") == 1);
  }
  SECTION("min only") {
    check_ir_opsets(ir1("aten::clamp(%x, %half, %none)"), {randn({4, 5})});
  }
  SECTION("max only") {
    check_ir_opsets(ir1("aten::clamp(%x, %none, %half)"), {randn({4, 5})});
  }
  SECTION("int tensor, int bounds") {
    check_ir_opsets(ir1("aten::clamp(%x, %m3, %two)"), {ints({10})});
  }
  SECTION("tensor bounds") {
    auto r = check_ir_opsets(R"IR(
graph(%x : Tensor, %lo : Tensor, %hi : Tensor):
  %y : Tensor = aten::clamp(%x, %lo, %hi)
  return (%y))IR",
                             {randn({4, 5}), randn({5}, 2) - 1, randn({4, 1}, 3) + 1});
    CHECK(r.count("Max") == 1);
    CHECK(r.count("Min") == 1);
  }
  SECTION("in place") {
    check_ir_opsets(ir2_inplace("aten::clamp_(%x, %m3, %half)"), {randn({4}), randn({4}, 2)});
  }
  SECTION("one bound keeps infinities (Clip's missing bound would be 3.4e38)") {
    const float inf = std::numeric_limits<float>::infinity();
    auto x = at::tensor({-inf, -2.f, 0.f, 3.f, inf});
    check_ir_opsets(ir1("aten::clamp(%x, %half, %none)"), {x});
    check_ir_opsets(ir1("aten::clamp(%x, %none, %half)"), {x});
    check_ir_opsets(ir1("aten::clamp_min(%x, %half)"), {x});
    auto r = check_ir_opsets(ir1("aten::clamp_min(%x, %zero_f)"), {x}); // a Relu
    CHECK(r.count("Relu") == 1);
  }
  SECTION("clamp_min / clamp_max") {
    check_ir_opsets(ir1("aten::clamp_min(%x, %half)"), {randn({4, 5})});
    check_ir_opsets(ir1("aten::clamp_max(%x, %half)"), {randn({4, 5})});
    check_ir_opsets(ir2("aten::clamp_min(%x, %w)"), {randn({4, 5}), randn({5}, 2)});
    check_ir_opsets(ir2("aten::clamp_max(%x, %w)"), {randn({4, 5}), randn({5}, 2)});
  }
}

TEST_CASE("aten::where", "[elementwise]") {
  const std::string ir3 = R"IR(
graph(%c : Tensor, %x : Tensor, %w : Tensor):
  %y : Tensor = aten::where(%c, %x, %w)
  return (%y))IR";
  SECTION("tensors") {
    auto r = check_ir_opsets(ir3, {bools({3, 4}, 1), randn({3, 4}), randn({4}, 2)});
    CHECK(r.count("Where") == 1);
  }
  SECTION("int and float promote") {
    check_ir_opsets(ir3, {bools({3, 4}, 1), ints({3, 4}), randn({4}, 2)});
  }
  SECTION("scalar other") {
    check_ir_opsets(R"IR(
graph(%c : Tensor, %x : Tensor):
  %s : float = prim::Constant[value=-1.5]()
  %y : Tensor = aten::where(%c, %x, %s)
  return (%y))IR",
                    {bools({3, 4}, 1), randn({3, 4})});
  }
  SECTION("bool values (merging padding and causal masks): no bool Where in ONNX Runtime") {
    auto r = check_ir_opsets(ir3, {bools({3, 4}, 1), bools({3, 4}, 2), bools({4}, 3)});
    CHECK(r.count("Where") == 0);
  }
}

TEST_CASE("aten::masked_fill", "[elementwise]") {
  SECTION("scalar value") {
    check_ir_opsets(ir2("aten::masked_fill(%x, %w, %f25)"), {randn({3, 4}), bools({4}, 2)});
  }
  SECTION("tensor value") {
    check_ir_opsets(R"IR(
graph(%x : Tensor, %m : Tensor, %v : Tensor):
  %y : Tensor = aten::masked_fill(%x, %m, %v)
  return (%y))IR",
                    {ints({3, 4}), bools({3, 4}, 2), at::scalar_tensor(7, at::kLong)});
  }
  SECTION("in place") {
    check_ir_opsets(ir2_inplace("aten::masked_fill_(%x, %w, %half)"), {randn({4}), bools({4}, 2)});
  }
  SECTION("a bool tensor") {
    check_ir_opsets(ir2("aten::masked_fill(%x, %w, %one)"), {bools({3, 4}, 1), bools({4}, 2)});
  }
}

namespace {

void check_compare(const std::string &op) {
  std::string name = "aten::" + op;
  SECTION("tensors") {
    check_ir_opsets(ir2(name + "(%x, %w)"),
                    {ints({4, 5}, -2, 2).to(at::kFloat), ints({5}, -2, 2).to(at::kFloat)});
  }
  SECTION("int tensor vs python float") {
    // 0.5 must not be truncated to the tensor's int dtype.
    check_ir_opsets(ir1(name + "(%x, %half)"), {ints({10}, -2, 3)});
  }
  SECTION("int tensor vs float tensor") {
    check_ir_opsets(ir2(name + "(%x, %w)"), {ints({10}, -2, 3), randn({10}, 2)});
  }
  SECTION("bools") {
    check_ir_opsets(ir2(name + "(%x, %w)"), {bools({10}, 1), bools({10}, 2)});
  }
}

} // namespace

TEST_CASE("aten::eq", "[elementwise]") {
  check_compare("eq");
}
TEST_CASE("aten::ne", "[elementwise]") {
  check_compare("ne");
}
TEST_CASE("aten::lt", "[elementwise]") {
  check_compare("lt");
}
TEST_CASE("aten::le", "[elementwise]") {
  check_compare("le");
}
TEST_CASE("aten::gt", "[elementwise]") {
  check_compare("gt");
}
TEST_CASE("aten::ge", "[elementwise]") {
  check_compare("ge");
}
TEST_CASE("aten::less", "[elementwise]") {
  check_compare("less");
}
TEST_CASE("aten::less_equal", "[elementwise]") {
  check_compare("less_equal");
}
TEST_CASE("aten::greater", "[elementwise]") {
  check_compare("greater");
}
TEST_CASE("aten::greater_equal", "[elementwise]") {
  check_compare("greater_equal");
}
TEST_CASE("aten::not_equal", "[elementwise]") {
  check_compare("not_equal");
}

TEST_CASE("aten::logical_and", "[elementwise]") {
  check_ir_opsets(ir2("aten::logical_and(%x, %w)"), {bools({3, 4}, 1), bools({4}, 2)});
  check_ir_opsets(ir2("aten::logical_and(%x, %w)"), {ints({3, 4}, -1, 2), randn({4}, 2)});
}

TEST_CASE("aten::logical_or", "[elementwise]") {
  check_ir_opsets(ir2("aten::logical_or(%x, %w)"), {bools({3, 4}, 1), bools({4}, 2)});
  check_ir_opsets(ir2("aten::logical_or(%x, %w)"), {ints({3, 4}, -1, 2), randn({4}, 2)});
}

TEST_CASE("aten::logical_xor", "[elementwise]") {
  check_ir_opsets(ir2("aten::logical_xor(%x, %w)"), {bools({3, 4}, 1), bools({4}, 2)});
  check_ir_opsets(ir2("aten::logical_xor(%x, %w)"), {ints({3, 4}, -1, 2), randn({4}, 2)});
}

TEST_CASE("aten::logical_not", "[elementwise]") {
  check_ir_opsets(ir1("aten::logical_not(%x)"), {bools({3, 4}, 1)});
  check_ir_opsets(ir1("aten::logical_not(%x)"), {ints({3, 4}, -1, 2)});
}

TEST_CASE("aten::bitwise_not", "[elementwise]") {
  SECTION("bool") {
    auto r = check_ir_opsets(ir1("aten::bitwise_not(%x)"), {bools({3, 4}, 1)});
    CHECK(r.count("Not") == 1);
  }
  SECTION("int64") {
    check_ir_opsets(ir1("aten::bitwise_not(%x)"), {ints({8})});
  }
  SECTION("uint8") {
    check_ir_opsets(ir1("aten::bitwise_not(%x)"), {ints({8}, 0, 255, at::kByte)});
  }
}

TEST_CASE("aten::minimum", "[elementwise]") {
  check_ir_opsets(ir2("aten::minimum(%x, %w)"), {randn({3, 4}), randn({4}, 2)});
}

TEST_CASE("aten::maximum", "[elementwise]") {
  check_ir_opsets(ir2("aten::maximum(%x, %w)"), {randn({3, 4}), randn({4}, 2)});
  check_ir_opsets(ir2("aten::maximum(%x, %w)"), {ints({3, 4}), randn({4}, 2)});
}

TEST_CASE("aten::isnan", "[elementwise]") {
  SECTION("float") {
    auto x = randn({8});
    x[2] = NAN;
    x[5] = NAN;
    auto r = check_ir_opsets(ir1("aten::isnan(%x)"), {x});
    CHECK(r.count("IsNaN") == 1);
  }
  SECTION("int") {
    check_ir_opsets(ir1("aten::isnan(%x)"), {ints({8})});
  }
}

TEST_CASE("float16 arithmetic", "[elementwise]") {
  // A Python float does not promote a float16 tensor.
  auto r =
      check_ir_opsets(ir1("aten::add(%x, %f25, %one)"), {randn({8}).to(at::kHalf)}, 1e-2, 1e-2);
  CHECK(r.count("Cast") == 0);
}

TEST_CASE("aten::isinf", "[elementwise]") {
  auto x = randn({8});
  x[1] = INFINITY;
  x[4] = -INFINITY;
  x[6] = NAN;
  check_ir_opsets(ir1("aten::isinf(%x)"), {x});
  check_ir_opsets(ir1("aten::isfinite(%x)"), {x});
  check_ir_opsets(ir1("aten::isfinite(%x)"), {ints({8})});
}

TEST_CASE("aten::isfinite", "[elementwise]") {
  auto x = randn({8});
  x[3] = -INFINITY;
  x[5] = NAN;
  auto r = check_ir_opsets(ir1("aten::isfinite(%x)"), {x});
  CHECK(r.count("IsInf") == 1);
}

TEST_CASE("aten::addcmul", "[elementwise]") {
  const std::string ir = R"IR(
graph(%x : Tensor, %a : Tensor, %b : Tensor):
  %v : float = prim::Constant[value=0.5]()
  %y : Tensor = aten::addcmul(%x, %a, %b, %v)
  return (%y))IR";
  check_ir_opsets(ir, {randn({3, 4}), randn({4}, 2), randn({3, 1}, 3)});
}

TEST_CASE("aten::addcdiv", "[elementwise]") {
  const std::string ir = R"IR(
graph(%x : Tensor, %a : Tensor, %b : Tensor):
  %v : int = prim::Constant[value=2]()
  %y : Tensor = aten::addcdiv(%x, %a, %b, %v)
  return (%y))IR";
  check_ir_opsets(ir, {randn({3, 4}), randn({4}, 2), randn({3, 1}, 3).abs() + 0.5});
}

TEST_CASE("aten::lerp", "[elementwise]") {
  SECTION("scalar weight") {
    check_ir_opsets(ir2("aten::lerp(%x, %w, %half)"), {randn({3, 4}), randn({4}, 2)});
  }
  SECTION("tensor weight") {
    check_ir_opsets(R"IR(
graph(%x : Tensor, %e : Tensor, %w : Tensor):
  %y : Tensor = aten::lerp(%x, %e, %w)
  return (%y))IR",
                    {randn({3, 4}), randn({4}, 2), at::rand({3, 4})});
  }
}

TEST_CASE("aten::subtract", "[elementwise]") {
  check_ir_opsets(ir2("aten::subtract(%x, %w, %two)"), {randn({2, 3}), randn({3}, 2)});
}

TEST_CASE("aten::multiply", "[elementwise]") {
  check_ir_opsets(ir2("aten::multiply(%x, %w)"), {randn({2, 3}), randn({3}, 2)});
}

TEST_CASE("aten::divide", "[elementwise]") {
  check_ir_opsets(ir2("aten::divide(%x, %w, %floor)"), {ints({16}), divisors({16})});
}

TEST_CASE("aten::true_divide", "[elementwise]") {
  check_ir_opsets(ir2("aten::true_divide(%x, %w)"), {ints({16}), divisors({16})});
}

TEST_CASE("aten::clip", "[elementwise]") {
  check_ir_opsets(ir1("aten::clip(%x, %m3, %half)"), {randn({4, 5}) * 4});
}

TEST_CASE("aten::special_erf", "[elementwise]") {
  check_unary("special_erf", {randn({6})});
}
TEST_CASE("aten::special_erfc", "[elementwise]") {
  check_unary("special_erfc", {randn({6})});
}
TEST_CASE("aten::special_expm1", "[elementwise]") {
  check_unary("special_expm1", {randn({6})});
}

// exp(x^2) * erfc(x) on both sides of the switch at 2 and far out, where erfc underflows.
TEST_CASE("aten::special_erfcx", "[elementwise]") {
  auto x = at::cat(
      {at::linspace(-3, 3, 61), at::linspace(1.9, 2.1, 21), at::tensor({5., 10., 50., 1e3, 1e5})});
  check_ir_opsets(ir1("aten::special_erfcx(%x)"), {x.to(at::kFloat)}, 1e-5, 1e-6);
}
