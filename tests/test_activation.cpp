#include "harness.h"
#include "ir_text.h"

#include <catch2/catch.hpp>

using namespace t2o_test;

namespace {

// Like ir1, for in-place ops: they act on a temporary (-x), so that LibTorch does not modify the
// graph input the harness later feeds to ONNX Runtime.
std::string ir1_inplace(const std::string &call, const std::string &consts = "") {
  return "graph(%x0 : Tensor):\n  %x : Tensor = aten::neg(%x0)\n" + consts +
         "  %y : Tensor = " + call + "\n  return (%y)";
}

} // namespace

TEST_CASE("aten::relu", "[activation]") {
  SECTION("float") {
    auto r = check_ir_opsets(ir1("aten::relu(%x)"), {randn({2, 3, 4})});
    CHECK(r.count("Relu") == 1);
  }
  SECTION("in place") {
    check_ir_opsets(ir1_inplace("aten::relu_(%x)"), {randn({2, 3, 4})});
  }
  SECTION("int") {
    auto r = check_ir_opsets(ir1("aten::relu(%x)"), {at::randint(-5, 5, {3, 4}, at::kLong)});
    CHECK(r.count("Max") == 1);
  }
}

TEST_CASE("aten::sigmoid", "[activation]") {
  auto r = check_ir_opsets(ir1("aten::sigmoid(%x)"), {randn({2, 3, 4})});
  CHECK(r.count("Sigmoid") == 1);
  check_ir_opsets(ir1_inplace("aten::sigmoid_(%x)"), {randn({2, 3, 4})});
}

TEST_CASE("aten::hardtanh", "[activation]") {
  SECTION("defaults") {
    auto r = check_ir_opsets(ir1("aten::hardtanh(%x, %lo, %hi)",
                                 "  %lo : int = prim::Constant[value=-1]()\n"
                                 "  %hi : int = prim::Constant[value=1]()\n"),
                             {randn({2, 8})});
    CHECK(r.count("Clip") == 1);
  }
  SECTION("float bounds, in place") {
    check_ir_opsets(ir1_inplace("aten::hardtanh_(%x, %lo, %hi)",
                                "  %lo : float = prim::Constant[value=-0.5]()\n"
                                "  %hi : float = prim::Constant[value=0.25]()\n"),
                    {randn({2, 8})});
  }
}

TEST_CASE("aten::relu6", "[activation]") {
  auto r = check_ir_opsets(ir1("aten::relu6(%x)"), {randn({4, 8}) * 5});
  CHECK(r.count("Clip") == 1);
}

TEST_CASE("aten::silu", "[activation]") {
  check_ir_opsets(ir1("aten::silu(%x)"), {randn({2, 3, 4})});
  check_ir_opsets(ir1_inplace("aten::silu_(%x)"), {randn({2, 3, 4})});
}

TEST_CASE("aten::hardswish", "[activation]") {
  auto x = randn({2, 16}) * 4;
  auto r13 = check_ir(ir1("aten::hardswish(%x)"), {x}, 13);
  CHECK(r13.count("HardSigmoid") == 1);
  CHECK(r13.count("HardSwish") == 0);
  auto r17 = check_ir(ir1_inplace("aten::hardswish_(%x)"), {x}, 17);
  CHECK(r17.count("HardSwish") == 1);
}

TEST_CASE("aten::hardsigmoid", "[activation]") {
  auto r = check_ir_opsets(ir1("aten::hardsigmoid(%x)"), {randn({2, 16}) * 4});
  CHECK(r.count("HardSigmoid") == 1);
}

TEST_CASE("aten::gelu", "[activation]") {
  // The Gelu op from opset 20; below, its formula.
  SECTION("erf") {
    auto ir = ir1("aten::gelu(%x, %a)", "  %a : str = prim::Constant[value=\"none\"]()\n");
    CHECK(check_ir_opsets(ir, {randn({2, 3, 8}) * 3}).count("Gelu") == 1);
    // Below 20 spelled as ONNX Runtime's GeluFusion expects it: x / sqrt(2), not x * (1 / sqrt 2).
    auto r = check_ir(ir, {randn({2, 3, 8}) * 3}, 19);
    CHECK(r.count("Erf") == 1);
    CHECK(r.count("Div") == 1);
  }
  SECTION("tanh") {
    auto ir = ir1("aten::gelu(%x, %a)", "  %a : str = prim::Constant[value=\"tanh\"]()\n");
    CHECK(check_ir_opsets(ir, {randn({2, 3, 8}) * 3}).count("Gelu") == 1);
    // FastGeluFusion's second form: Pow(x, 3).
    auto r = check_ir(ir, {randn({2, 3, 8}) * 3}, 19);
    CHECK(r.count("Tanh") == 1);
    CHECK(r.count("Pow") == 1);
  }
}

TEST_CASE("aten::leaky_relu", "[activation]") {
  auto r = check_ir_opsets(
      ir1("aten::leaky_relu(%x, %s)", "  %s : float = prim::Constant[value=0.2]()\n"),
      {randn({2, 3, 4})});
  CHECK(r.count("LeakyRelu") == 1);
  check_ir_opsets(
      ir1_inplace("aten::leaky_relu_(%x, %s)", "  %s : float = prim::Constant[value=0.2]()\n"),
      {randn({2, 3, 4})});
}

TEST_CASE("aten::elu", "[activation]") {
  SECTION("plain") {
    auto r = check_ir_opsets(ir1("aten::elu(%x, %a, %one, %one)",
                                 "  %a : float = prim::Constant[value=0.7]()\n"
                                 "  %one : int = prim::Constant[value=1]()\n"),
                             {randn({3, 5})});
    CHECK(r.count("Elu") == 1);
  }
  SECTION("scale and input_scale") {
    auto r = check_ir_opsets(ir1("aten::elu(%x, %a, %s, %insc)",
                                 "  %a : float = prim::Constant[value=0.7]()\n"
                                 "  %s : float = prim::Constant[value=1.5]()\n"
                                 "  %insc : float = prim::Constant[value=2.]()\n"),
                             {randn({3, 5})});
    CHECK(r.count("Elu") == 0);
  }
}

TEST_CASE("aten::selu", "[activation]") {
  auto r = check_ir_opsets(ir1("aten::selu(%x)"), {randn({3, 5}) * 2});
  CHECK(r.count("Selu") == 1);
}

TEST_CASE("aten::celu", "[activation]") {
  SECTION("float") {
    auto r = check_ir_opsets(
        ir1("aten::celu(%x, %a)", "  %a : float = prim::Constant[value=0.5]()\n"), {randn({3, 5})});
    CHECK(r.count("Celu") == 1);
  }
  SECTION("double decomposes") {
    auto r =
        check_ir_opsets(ir1("aten::celu(%x, %a)", "  %a : float = prim::Constant[value=0.5]()\n"),
                        {randn({3, 5}).to(at::kDouble)});
    CHECK(r.count("Celu") == 0);
  }
}

TEST_CASE("aten::softmax", "[activation]") {
  SECTION("last dim") {
    auto r = check_ir_opsets(ir1("aten::softmax(%x, %d, %none)",
                                 "  %d : int = prim::Constant[value=-1]()\n"
                                 "  %none : NoneType = prim::Constant()\n"),
                             {randn({2, 3, 4})});
    CHECK(r.count("Softmax") == 1);
  }
  SECTION("middle dim") {
    check_ir_opsets(ir1("aten::softmax(%x, %d, %none)", "  %d : int = prim::Constant[value=1]()\n"
                                                        "  %none : NoneType = prim::Constant()\n"),
                    {randn({2, 3, 4})});
  }
  SECTION("dtype double") {
    auto r = check_ir_opsets(ir1("aten::softmax(%x, %d, %dt)",
                                 "  %d : int = prim::Constant[value=0]()\n"
                                 "  %dt : int = prim::Constant[value=7]()\n"),
                             {randn({4, 3})});
    CHECK(r.count("Cast") == 1);
  }
}

TEST_CASE("aten::log_softmax", "[activation]") {
  auto r = check_ir_opsets(ir1("aten::log_softmax(%x, %d, %none)",
                               "  %d : int = prim::Constant[value=1]()\n"
                               "  %none : NoneType = prim::Constant()\n"),
                           {randn({2, 5, 3})});
  CHECK(r.count("LogSoftmax") == 1);
}

TEST_CASE("aten::_softmax", "[activation]") {
  check_ir_opsets(ir1("aten::_softmax(%x, %d, %f)", "  %d : int = prim::Constant[value=1]()\n"
                                                    "  %f : bool = prim::Constant[value=0]()\n"),
                  {randn({2, 5, 3})});
  check_ir_opsets(ir1("aten::_log_softmax(%x, %d, %f)",
                      "  %d : int = prim::Constant[value=1]()\n"
                      "  %f : bool = prim::Constant[value=0]()\n"),
                  {randn({2, 5, 3})});
}

TEST_CASE("aten::_log_softmax", "[activation]") {
  check_ir_opsets(ir1("aten::_log_softmax(%x, %d, %f)",
                      "  %d : int = prim::Constant[value=0]()\n"
                      "  %f : bool = prim::Constant[value=0]()\n"),
                  {randn({4, 3})});
}

TEST_CASE("aten::special_softmax", "[activation]") {
  const char *consts =
      "  %d : int = prim::Constant[value=-1]()\n  %n : NoneType = prim::Constant()\n";
  check_ir_opsets(ir1("aten::special_softmax(%x, %d, %n)", consts), {randn({4, 3})});
  check_ir_opsets(ir1("aten::special_log_softmax(%x, %d, %n)", consts), {randn({4, 3})});
}

TEST_CASE("aten::special_log_softmax", "[activation]") {
  const char *consts =
      "  %d : int = prim::Constant[value=0]()\n  %n : NoneType = prim::Constant()\n";
  check_ir_opsets(ir1("aten::special_log_softmax(%x, %d, %n)", consts), {randn({4, 3})});
}

TEST_CASE("aten::logit", "[activation]") {
  SECTION("no eps") {
    check_ir_opsets(ir1("aten::logit(%x, %n)", "  %n : NoneType = prim::Constant()\n"),
                    {at::rand({4, 5}) * 0.9 + 0.05});
  }
  SECTION("eps") {
    auto x = at::rand({4, 5});
    x[0][0] = 0;
    x[1][1] = 1;
    check_ir_opsets(ir1("aten::logit(%x, %e)", "  %e : float = prim::Constant[value=0.01]()\n"),
                    {x});
  }
}

TEST_CASE("aten::tanh", "[activation]") {
  auto r = check_ir_opsets(ir1("aten::tanh(%x)"), {randn({2, 3, 4})});
  CHECK(r.count("Tanh") == 1);
  check_ir_opsets(ir1_inplace("aten::tanh_(%x)"), {randn({2, 3, 4})});
}

TEST_CASE("aten::softplus", "[activation]") {
  SECTION("defaults") {
    auto r = check_ir_opsets(ir1("aten::softplus(%x, %b, %t)",
                                 "  %b : int = prim::Constant[value=1]()\n"
                                 "  %t : int = prim::Constant[value=20]()\n"),
                             {randn({4, 8}) * 10});
    CHECK(r.count("Softplus") == 1);
  }
  SECTION("beta and threshold") {
    check_ir_opsets(ir1("aten::softplus(%x, %b, %t)",
                        "  %b : float = prim::Constant[value=2.]()\n"
                        "  %t : float = prim::Constant[value=3.]()\n"),
                    {randn({4, 8}) * 4});
  }
}

TEST_CASE("aten::mish", "[activation]") {
  // The Mish op from opset 18 (check_ir_opsets' opset-21 run); x tanh(softplus(x)) below.
  CHECK(check_ir_opsets(ir1("aten::mish(%x)"), {randn({4, 8}) * 3}).count("Mish") == 1);
  CHECK(check_ir(ir1("aten::mish(%x)"), {randn({4, 8}) * 3}, 17).count("Mish") == 0);
}

TEST_CASE("aten::glu", "[activation]") {
  SECTION("last dim") {
    auto r = check_ir_opsets(ir1("aten::glu(%x, %d)", "  %d : int = prim::Constant[value=-1]()\n"),
                             {randn({3, 8})});
    CHECK(r.count("Split") == 1);
  }
  SECTION("dim 1") {
    check_ir_opsets(ir1("aten::glu(%x, %d)", "  %d : int = prim::Constant[value=1]()\n"),
                    {randn({2, 6, 5})});
  }
}

TEST_CASE("aten::prelu", "[activation]") {
  const std::string ir = R"IR(
graph(%x : Tensor, %w : Tensor):
  %y : Tensor = aten::prelu(%x, %w)
  return (%y))IR";
  SECTION("per channel") {
    auto r = check_ir_opsets(ir, {randn({2, 3, 4, 5}), randn({3}, 2)});
    CHECK(r.count("PRelu") == 1);
  }
  SECTION("single slope, rank 2") {
    check_ir_opsets(ir, {randn({4, 6}), randn({1}, 2)});
  }
}

TEST_CASE("aten::log_sigmoid", "[activation]") {
  check_ir_opsets(ir1("aten::log_sigmoid(%x)"), {randn({4, 8}) * 10});
}

TEST_CASE("aten::hardshrink", "[activation]") {
  auto r = check_ir_opsets(
      ir1("aten::hardshrink(%x, %l)", "  %l : float = prim::Constant[value=0.5]()\n"),
      {randn({4, 8})});
  CHECK(r.count("Shrink") == 1);
}

TEST_CASE("aten::softshrink", "[activation]") {
  auto r = check_ir_opsets(
      ir1("aten::softshrink(%x, %l)", "  %l : float = prim::Constant[value=0.3]()\n"),
      {randn({4, 8})});
  CHECK(r.count("Shrink") == 1);
}

TEST_CASE("aten::threshold", "[activation]") {
  check_ir_opsets(ir1("aten::threshold(%x, %t, %v)",
                      "  %t : float = prim::Constant[value=0.1]()\n"
                      "  %v : float = prim::Constant[value=-2.]()\n"),
                  {randn({4, 8})});
}

TEST_CASE("activation dtypes", "[activation]") {
  SECTION("double") {
    // LibTorch 1.13 has few float16 CPU kernels, so float64 is the second dtype checked here.
    // (ONNX Runtime's CPU HardSigmoid, Softplus and Selu take float32 only.)
    auto x = randn({2, 8}).to(at::kDouble) * 3;
    for (const char *call : {"aten::sigmoid(%x)", "aten::tanh(%x)", "aten::relu6(%x)"}) {
      auto r = check_ir_opsets(ir1(call), {x});
      CHECK(r.count("Cast") == 0);
    }
  }
  SECTION("bfloat16 gelu computes in float") {
    // ONNX Runtime cannot take bfloat16 inputs here; cast inside the graph. bfloat16 arrives in
    // opset 13.
    auto r = check_ir(R"IR(
graph(%x : Tensor):
  %bf : int = prim::Constant[value=15]()
  %false : bool = prim::Constant[value=0]()
  %none : NoneType = prim::Constant()
  %a : str = prim::Constant[value="none"]()
  %xb : Tensor = aten::to(%x, %bf, %false, %false, %none)
  %g : Tensor = aten::gelu(%xb, %a)
  %f : int = prim::Constant[value=6]()
  %y : Tensor = aten::to(%g, %f, %false, %false, %none)
  return (%y))IR",
                      {randn({2, 8})}, 13, 2e-2, 2e-2);
    CHECK(r.count("Erf") == 1);
  }
}
