#include "harness.h"
#include "ir_text.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <limits>

using namespace t2o_test;

namespace {

// In-place ops act on a temporary (x * 1), so LibTorch does not modify the graph input.
std::string ir2_inplace(const std::string &call, const std::string &consts = "") {
  return "graph(%x0 : Tensor, %z : Tensor):\n  %one_ : int = prim::Constant[value=1]()\n"
         "  %x : Tensor = aten::mul(%x0, %one_)\n" +
         consts + "  %y : Tensor = " + call + "\n  return (%y)";
}

const float kInf = std::numeric_limits<float>::infinity();
const float kNan = std::numeric_limits<float>::quiet_NaN();

// Special values that the decompositions must treat like LibTorch.
at::Tensor specials() {
  return at::tensor({0.f, -0.f, 1.f, -2.5f, kInf, -kInf, kNan, 3.f});
}

} // namespace

TEST_CASE("aten::atan2", "[math]") {
  auto y = randn({4, 5}, 1), x = randn({4, 5}, 2);
  y.index_put_({0, 0}, 0.f);
  x.index_put_({0, 0}, 0.f);
  x.index_put_({1, 1}, 0.f);
  x.index_put_({1, 2}, 0.f);
  y.index_put_({1, 2}, -1.f);
  auto r = check_ir_opsets(ir2("aten::atan2(%x, %z)"), {y, x});
  CHECK(r.count("Atan") == 1);
  check_ir_opsets(ir2("aten::atan2(%x, %z)"),
                  {at::randint(-3, 3, {6}, at::kLong), at::randint(-3, 3, {6}, at::kLong)});
  // Signed zeros, as C's atan2: atan2(-0, -1) = -pi (a phase of a negated vector), atan2(+-0, -0)
  // = +-pi, atan2(+-1, -0) = +-pi/2.
  auto ys = at::tensor({-0.f, 0.f, -0.f, 0.f, 1.f, -1.f, -0.f, 2.f});
  auto xs = at::tensor({-1.f, -1.f, -0.f, -0.f, -0.f, -0.f, 3.f, -2.f});
  check_ir_opsets(ir2("aten::atan2(%x, %z)"), {ys, xs});
}

TEST_CASE("aten::xlogy", "[math]") {
  auto x = randn({3, 4}, 3);
  x.index_put_({0}, 0.f);
  auto y = randn({3, 4}, 4).abs();
  y.index_put_({0, 0}, kNan);
  y.index_put_({1, 0}, 0.f);
  SECTION("tensors") {
    auto r = check_ir_opsets(ir2("aten::xlogy(%x, %z)"), {x, y});
    CHECK(r.count("Log") == 1);
  }
  SECTION("scalars") {
    check_ir_opsets(ir1("aten::xlogy(%x, %s)", "  %s : float = prim::Constant[value=2.5]()\n"),
                    {x});
    check_ir_opsets(ir1("aten::xlogy(%s, %x)", "  %s : int = prim::Constant[value=3]()\n"), {y});
  }
}

TEST_CASE("aten::logaddexp", "[math]") {
  auto a = at::cat({randn({6}, 5) * 30, specials()}), b = at::cat({randn({6}, 6), specials()});
  auto r = check_ir_opsets(ir2("aten::logaddexp(%x, %z)"), {a, b});
  CHECK(r.count("Exp") == 1);
  check_ir_opsets(ir2("aten::logaddexp(%x, %z)"), {a, b.flip(0)});
}

TEST_CASE("aten::logaddexp2", "[math]") {
  auto a = at::cat({randn({6}, 5) * 30, specials()}), b = at::cat({randn({6}, 6), specials()});
  check_ir_opsets(ir2("aten::logaddexp2(%x, %z)"), {a, b});
  check_ir_opsets(ir2("aten::logaddexp2(%x, %z)"), {a, b.flip(0)});
}

TEST_CASE("aten::logcumsumexp", "[math]") {
  SECTION("wide range") {
    auto x = randn({3, 7}, 7) * 50;
    x.index_put_({0, 0}, -kInf);
    x.index_put_({1, 3}, kInf);
    auto r = check_ir_opsets(
        ir1("aten::logcumsumexp(%x, %d)", "  %d : int = prim::Constant[value=1]()\n"), {x});
    CHECK(r.count("ReduceMax") == 1);
  }
  SECTION("middle dim, all -inf prefix") {
    auto x = randn({2, 5, 3}, 8);
    x.index_put_({0, 0, 0}, -kInf);
    x.index_put_({0, 1, 0}, -kInf);
    check_ir_opsets(ir1("aten::logcumsumexp(%x, %d)", "  %d : int = prim::Constant[value=-2]()\n"),
                    {x});
  }
  SECTION("symbolic length") {
    check_ir_dynamic(ir1("aten::logcumsumexp(%x, %d)", "  %d : int = prim::Constant[value=1]()\n"),
                     {randn({2, 5, 3}, 1) * 20}, {randn({2, 11, 3}, 2) * 20});
  }
}

TEST_CASE("aten::heaviside", "[math]") {
  auto x = at::tensor({-1.5f, 0.f, 2.f, 0.f, -0.f, 3.f});
  check_ir_opsets(ir2("aten::heaviside(%x, %z)"), {x, randn({6}, 9)});
  check_ir_opsets(ir2("aten::heaviside(%x, %z)"),
                  {at::randint(-2, 3, {8}, at::kLong), at::randint(-9, 9, {8}, at::kLong)});
}

TEST_CASE("aten::sinc", "[math]") {
  auto x = at::cat({randn({10}, 10) * 3, at::tensor({0.f, 1.f, -2.f})});
  auto r = check_ir_opsets(ir1("aten::sinc(%x)"), {x});
  CHECK(r.count("Sin") == 1);
  check_ir_opsets(ir1("aten::sinc(%x)"), {at::randint(-3, 3, {6}, at::kLong)});
}

TEST_CASE("aten::signbit", "[math]") {
  check_ir_opsets(ir1("aten::signbit(%x)"), {specials()});
  check_ir_opsets(ir1("aten::signbit(%x)"), {at::randint(-3, 3, {6}, at::kInt)});
  check_ir_opsets(ir1("aten::signbit(%x)"), {at::randint(0, 200, {6}, at::kByte)});
}

TEST_CASE("aten::isposinf", "[math]") {
  auto r = check_ir_opsets(ir1("aten::isposinf(%x)"), {specials()});
  CHECK(r.count("IsInf") == 1);
  check_ir_opsets(ir1("aten::isposinf(%x)"), {at::randint(-3, 3, {6}, at::kLong)});
}

TEST_CASE("aten::isneginf", "[math]") {
  check_ir_opsets(ir1("aten::isneginf(%x)"), {specials()});
  check_ir_opsets(ir1("aten::isneginf(%x)"), {specials().to(at::kDouble)});
}

TEST_CASE("aten::nan_to_num", "[math]") {
  SECTION("defaults") {
    check_ir_opsets(ir1("aten::nan_to_num(%x, %n, %n, %n)", "  %n : NoneType = prim::Constant()\n"),
                    {specials()});
    check_ir_opsets(ir1("aten::nan_to_num(%x, %n, %n, %n)", "  %n : NoneType = prim::Constant()\n"),
                    {specials().to(at::kDouble)});
  }
  SECTION("values, in place") {
    check_ir_opsets(ir2_inplace("aten::nan_to_num_(%x, %a, %b, %c)",
                                "  %a : float = prim::Constant[value=1.5]()\n"
                                "  %b : float = prim::Constant[value=100.]()\n"
                                "  %c : float = prim::Constant[value=-7.]()\n"),
                    {specials(), specials()});
  }
  SECTION("int") {
    check_ir_opsets(ir1("aten::nan_to_num(%x, %n, %n, %n)", "  %n : NoneType = prim::Constant()\n"),
                    {at::randint(-3, 3, {6}, at::kLong)});
  }
}

TEST_CASE("aten::angle", "[math]") {
  check_ir_opsets(ir1("aten::angle(%x)"), {specials()});
  check_ir_opsets(ir1("aten::angle(%x)"), {at::randint(-3, 3, {6}, at::kLong)});
}

TEST_CASE("aten::hardtanh_backward", "[math]") {
  check_ir_opsets(ir2("aten::hardtanh_backward(%x, %z, %lo, %hi)",
                      "  %lo : float = prim::Constant[value=-0.5]()\n"
                      "  %hi : int = prim::Constant[value=1]()\n"),
                  {randn({3, 8}, 11), randn({3, 8}, 12)});
}

// The numbers come from runtime tensors (via aten::Int / aten::Float), so nothing folds.
TEST_CASE("aten::floordiv", "[math]") {
  auto ir = R"IR(
graph(%x : Tensor, %z : Tensor):
  %none : NoneType = prim::Constant()
  %sx : Tensor = aten::sum(%x, %none)
  %sz : Tensor = aten::sum(%z, %none)
  %a : int = aten::Int(%sx)
  %b : int = aten::Int(%sz)
  %fa : float = aten::Float(%sx)
  %three : int = prim::Constant[value=3]()
  %q : int = aten::floordiv(%a, %b)
  %q2 : int = aten::floordiv(%a, %three)
  %qf : float = aten::floordiv(%fa, %b)
  %t : Tensor = prim::NumToTensor(%q)
  %t2 : Tensor = prim::NumToTensor(%q2)
  %tf : Tensor = prim::NumToTensor(%qf)
  return (%t, %t2, %tf))IR";
  for (auto [a, b] : {std::pair{7.f, 2.f}, {-7.f, 2.f}, {7.f, -2.f}, {-8.f, 2.f}, {-7.5f, -2.f}})
    check_ir_opsets(ir, {at::tensor({a}), at::tensor({b})});
}

// math.<fn>(x) of a number computed at run time (a scripted model's math.ceil(t / s) on a
// runtime length), each against LibTorch: acosh's argument is 1 + x^2, the others take x.
TEST_CASE("math functions of a runtime number", "[math]") {
  std::string body = "  %none : NoneType = prim::Constant()\n"
                     "  %s : Tensor = aten::sum(%x, %none)\n"
                     "  %a : float = aten::Float(%s)\n"
                     "  %a2 : float = aten::mul(%a, %a)\n"
                     "  %one : float = prim::Constant[value=1.]()\n"
                     "  %big : float = aten::add(%a2, %one)\n";
  std::vector<std::string> outs;
  int k = 0;
  for (const char *fn :
       {"sqrt",  "exp",   "log",   "log10", "log1p",    "expm1", "tanh",  "fabs", "ceil",
        "floor", "round", "isnan", "isinf", "isfinite", "sin",   "cos",   "tan",  "asin",
        "acos",  "atan",  "sinh",  "cosh",  "asinh",    "acosh", "atanh", "erf",  "erfc"}) {
    std::string name = std::string(fn);
    bool positive = name == "sqrt" || name == "log" || name == "log10" || name == "acosh";
    std::string type = name == "ceil" || name == "floor" ? "int"
                       : name.rfind("is", 0) == 0        ? "bool"
                                                         : "float";
    std::string v = "%r" + std::to_string(k), t = "%t" + std::to_string(k++);
    body += fmt::format("  {} : {} = aten::{}({})\n  {} : Tensor = prim::NumToTensor({})\n", v,
                        type, fn, positive ? "%big" : "%a", t, v);
    outs.push_back(t);
  }
  std::string ir =
      "graph(%x : Tensor):\n" + body + fmt::format("  return ({})", fmt::join(outs, ", "));
  for (float x : {0.3f, -0.45f, 0.8f})
    check_ir_opsets(ir, {at::tensor({x})});
}

// A 0-d tensor passed where a float or an int is expected (TorchScript's implicit conversion).
TEST_CASE("aten::FloatImplicit and aten::IntImplicit", "[math]") {
  check_ir_opsets(ir("%x : Tensor, %k : Tensor", R"IR(
  %f : float = aten::FloatImplicit(%x)
  %i : int = aten::IntImplicit(%k)
  %a : Tensor = prim::NumToTensor(%f)
  %b : Tensor = prim::NumToTensor(%i))IR",
                     "%a, %b"),
                  {at::scalar_tensor(2.5, at::kDouble), at::scalar_tensor(7, at::kLong)});
}

TEST_CASE("aten::bitwise_and", "[math]") {
  auto a = at::randint(0, 2, {10}, at::kBool), b = at::randint(0, 2, {10}, at::kBool);
  auto r = check_ir_opsets(ir2("aten::bitwise_and(%x, %z)"), {a, b});
  CHECK(r.count("And") == 1);
  check_ir_opsets("graph(%x0 : Tensor, %z : Tensor):\n  %x : Tensor = aten::logical_not(%x0)\n"
                  "  %y : Tensor = aten::bitwise_and_(%x, %z)\n  return (%y)",
                  {a, b});
}

TEST_CASE("aten::bitwise_or", "[math]") {
  auto a = at::randint(0, 2, {10}, at::kBool), b = at::randint(0, 2, {10}, at::kBool);
  check_ir_opsets(ir2("aten::bitwise_or(%x, %z)"), {a, b});
}

TEST_CASE("aten::bitwise_xor", "[math]") {
  auto a = at::randint(0, 2, {10}, at::kBool), b = at::randint(0, 2, {10}, at::kBool);
  check_ir_opsets(ir2("aten::bitwise_xor(%x, %z)"), {a, b});
}

TEST_CASE("bitwise ops on integers need opset 18", "[math]") {
  auto err = export_ir_error(ir2("aten::bitwise_and(%x, %z)"), {at::randint(0, 9, {4}, at::kLong),
                                                                at::randint(0, 9, {4}, at::kLong)});
  CHECK(err.find("opset 18") != std::string::npos);
  // From opset 18: BitwiseAnd/Or/Xor on signed and unsigned integers (negative values too).
  for (auto dt : {at::kInt, at::kLong, at::kByte, at::kShort})
    for (const char *op : {"aten::bitwise_and", "aten::__or__", "aten::__xor__"})
      for (int opset : {18, 21}) {
        INFO(op << " " << dt << " opset " << opset);
        int64_t lo = dt == at::kByte ? 0 : -300;
        auto r = check_ir(ir2(std::string(op) + "(%x, %z)"),
                          {at::randint(lo, 255, {12}, dt), at::randint(lo, 255, {12}, dt)}, opset);
        CHECK(r.count("BitwiseAnd") + r.count("BitwiseOr") + r.count("BitwiseXor") == 1);
      }
}

TEST_CASE("aten::bitwise_left_shift", "[math]") {
  SECTION("signed tensors") {
    auto x = at::randint(-1000, 1000, {12}, at::kLong), s = at::randint(0, 32, {12}, at::kLong);
    auto r = check_ir_opsets(ir2("aten::bitwise_left_shift(%x, %z)"), {x, s});
    CHECK(r.count("BitShift") == 1);
    check_ir_opsets(ir2("aten::__lshift__(%x, %z)"), {x.to(at::kInt), s.to(at::kInt)});
    check_ir_opsets(ir2("aten::__lshift__(%x, %z)"), {x.to(at::kShort), (s % 16).to(at::kShort)});
  }
  SECTION("uint8, scalar shift, in place") {
    auto x = at::randint(0, 255, {12}, at::kByte);
    check_ir_opsets(
        ir1("aten::bitwise_left_shift(%x, %s)", "  %s : int = prim::Constant[value=3]()\n"), {x});
    check_ir_opsets(ir2_inplace("aten::bitwise_left_shift_(%x, %z)"),
                    {x, at::randint(0, 9, {12}, at::kByte)});
  }
}

TEST_CASE("aten::bitwise_right_shift", "[math]") {
  SECTION("signed, arithmetic") {
    auto x = at::randint(-1000, 1000, {16}, at::kLong), s = at::randint(0, 16, {16}, at::kLong);
    x.index_put_({0}, std::numeric_limits<int64_t>::min());
    s.index_put_({0}, 63);
    check_ir_opsets(ir2("aten::bitwise_right_shift(%x, %z)"), {x, s});
    check_ir_opsets(ir2("aten::__rshift__(%x, %z)"), {x.to(at::kShort), (s % 16).to(at::kShort)});
    check_ir_opsets(ir2("aten::__rshift__(%x, %z)"), {x.to(at::kChar), (s % 8).to(at::kChar)});
  }
  SECTION("unsigned, scalar, in place") {
    auto x = at::randint(0, 255, {12}, at::kByte);
    check_ir_opsets(ir1("aten::__rshift__(%x, %s)", "  %s : int = prim::Constant[value=2]()\n"),
                    {x});
    check_ir_opsets(ir2_inplace("aten::bitwise_right_shift_(%x, %z)"),
                    {x, at::randint(0, 10, {12}, at::kByte)});
  }
}

TEST_CASE("aten::conj", "[math]") {
  auto x = randn({2, 3}, 13);
  for (const char *op : {"conj", "conj_physical", "resolve_conj", "resolve_neg"}) {
    auto ir = "graph(%x : Tensor):\n  %x1 : Tensor = aten::neg(%x)\n  %y : Tensor = aten::" +
              std::string(op) + "(%x1)\n  return (%y)";
    check_ir_opsets(ir, {x});
  }
  check_ir_opsets(ir1("aten::conj(%x)"), {x});
}

TEST_CASE("aten::rrelu", "[math]") {
  auto consts = "  %lo : float = prim::Constant[value=0.1]()\n"
                "  %hi : float = prim::Constant[value=0.3]()\n"
                "  %n : NoneType = prim::Constant()\n";
  SECTION("eval: mean slope") {
    auto r = check_ir_opsets(ir1("aten::rrelu(%x, %lo, %hi, %f, %n)",
                                 std::string(consts) + "  %f : bool = prim::Constant[value=0]()\n"),
                             {randn({4, 6}, 14)});
    CHECK(r.count("LeakyRelu") == 1);
  }
  SECTION("training: random slopes within [lower, upper]") {
    auto x = randn({200, 50}, 15);
    auto ir = ir1("aten::rrelu(%x, %lo, %hi, %t, %n)",
                  std::string(consts) + "  %t : bool = prim::Constant[value=1]()\n");
    for (int opset : {13, 17}) {
      auto out = run_ir_in_ort(ir, {x}, opset);
      REQUIRE(out.size() == 1);
      auto y = out[0];
      auto pos = x >= 0;
      CHECK(at::equal(y.masked_select(pos), x.masked_select(pos)));
      auto slope = y.masked_select(~pos) / x.masked_select(~pos);
      CHECK(slope.min().item<float>() >= 0.1f - 1e-5f);
      CHECK(slope.max().item<float>() <= 0.3f + 1e-5f);
      CHECK(std::abs(slope.mean().item<float>() - 0.2f) < 0.01f);
      CHECK(slope.std().item<float>() > 0.04f); // uniform on [0.1, 0.3]: std 0.058
    }
  }
}

// Aliases, in-place forms and dunder spellings, each under its own name.

TEST_CASE("aten::atan2_", "[math]") {
  check_ir_opsets(ir2_inplace("aten::atan2_(%x, %z)"), {randn({4, 5}, 1), randn({4, 5}, 2)});
}

TEST_CASE("aten::arctan2", "[math]") {
  check_ir_opsets(ir2("aten::arctan2(%x, %z)"), {randn({4, 5}, 1), randn({5}, 2)});
}

TEST_CASE("aten::xlogy_", "[math]") {
  check_ir_opsets(ir2_inplace("aten::xlogy_(%x, %z)"), {randn({3, 4}, 3), randn({3, 4}, 4).abs()});
}

TEST_CASE("aten::special_xlogy", "[math]") {
  check_ir_opsets(ir2("aten::special_xlogy(%x, %z)"), {randn({3, 4}, 3), randn({3, 4}, 4).abs()});
}

TEST_CASE("aten::heaviside_", "[math]") {
  check_ir_opsets(ir2_inplace("aten::heaviside_(%x, %z)"),
                  {at::tensor({-1.5f, 0.f, 2.f, 0.f}), randn({1}, 9)});
}

TEST_CASE("aten::special_sinc", "[math]") {
  check_ir_opsets(ir1("aten::special_sinc(%x)"), {at::cat({randn({6}, 10), at::zeros({1})})});
}

TEST_CASE("aten::sinc_", "[math]") {
  auto x = at::cat({randn({6}, 10), at::zeros({1})});
  check_ir_opsets(ir2_inplace("aten::sinc_(%x)"), {x, x});
}

TEST_CASE("aten::nan_to_num_", "[math]") {
  check_ir_opsets(
      ir2_inplace("aten::nan_to_num_(%x, %n, %n, %n)", "  %n : NoneType = prim::Constant()\n"),
      {specials(), specials()});
}

namespace {

std::vector<at::Tensor> bools() {
  return {at::randint(0, 2, {10}, at::kBool), at::randint(0, 2, {10}, at::kBool)};
}

// In-place on a bool temporary (not x: LibTorch would modify the graph input).
std::string bool_inplace(const std::string &op) {
  return "graph(%x0 : Tensor, %z : Tensor):\n  %x : Tensor = aten::logical_not(%x0)\n"
         "  %y : Tensor = aten::" +
         op + "(%x, %z)\n  return (%y)";
}

} // namespace

TEST_CASE("aten::__and__", "[math]") {
  check_ir_opsets(ir2("aten::__and__(%x, %z)"), bools());
}
TEST_CASE("aten::__or__", "[math]") {
  check_ir_opsets(ir2("aten::__or__(%x, %z)"), bools());
}
TEST_CASE("aten::__xor__", "[math]") {
  check_ir_opsets(ir2("aten::__xor__(%x, %z)"), bools());
}
TEST_CASE("aten::bitwise_or_", "[math]") {
  check_ir_opsets(bool_inplace("bitwise_or_"), bools());
}
TEST_CASE("aten::bitwise_xor_", "[math]") {
  check_ir_opsets(bool_inplace("bitwise_xor_"), bools());
}

TEST_CASE("aten::__lshift__", "[math]") {
  check_ir_opsets(ir2("aten::__lshift__(%x, %z)"),
                  {at::randint(-1000, 1000, {12}, at::kLong), at::randint(0, 64, {12}, at::kLong)});
}

TEST_CASE("aten::__rshift__", "[math]") {
  check_ir_opsets(ir2("aten::__rshift__(%x, %z)"),
                  {at::randint(-1000, 1000, {12}, at::kInt), at::randint(0, 32, {12}, at::kInt)});
}

TEST_CASE("aten::bitwise_left_shift_", "[math]") {
  check_ir_opsets(ir2_inplace("aten::bitwise_left_shift_(%x, %z)"),
                  {at::randint(-100, 100, {12}, at::kLong), at::randint(0, 60, {12}, at::kLong)});
}

TEST_CASE("aten::bitwise_right_shift_", "[math]") {
  check_ir_opsets(ir2_inplace("aten::bitwise_right_shift_(%x, %z)"),
                  {at::randint(-100, 100, {12}, at::kLong), at::randint(0, 60, {12}, at::kLong)});
}

TEST_CASE("aten::conj_physical", "[math]") {
  check_ir_opsets(ir1("aten::conj_physical(%x)"), {randn({2, 3}, 13)});
}
TEST_CASE("aten::resolve_conj", "[math]") {
  check_ir_opsets(ir1("aten::resolve_conj(%x)"), {randn({2, 3}, 13)});
}
TEST_CASE("aten::resolve_neg", "[math]") {
  check_ir_opsets(ir1("aten::resolve_neg(%x)"), {randn({2, 3}, 13)});
}

TEST_CASE("aten::rrelu_", "[math]") {
  check_ir_opsets(ir2_inplace("aten::rrelu_(%x, %lo, %hi, %f, %n)",
                              "  %lo : float = prim::Constant[value=0.1]()\n"
                              "  %hi : float = prim::Constant[value=0.3]()\n"
                              "  %n : NoneType = prim::Constant()\n"
                              "  %f : bool = prim::Constant[value=0]()\n"),
                  {randn({4, 6}, 14), randn({1}, 1)});
}
