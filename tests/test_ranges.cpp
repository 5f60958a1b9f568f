// Tensors made from a few numbers (aten_lib/ranges.cpp), each against LibTorch in ONNX Runtime at
// its lowest opset and at 21.
#include "harness.h"
#include "ir_text.h"

#include <catch2/catch.hpp>

using namespace t2o_test;

namespace {

// graph(%x) returning %y computed by `body` (with the kIrConsts constants) and x + 0, so the graph
// has an input.
std::string made(const std::string &body) {
  return ir("%x : Tensor", body + "\n  %z : Tensor = aten::add(%x, %0, %1)", "%y, %z");
}

} // namespace

TEST_CASE("aten::tril_indices", "[ranges]") {
  for (const char *args : {"%3, %3, %0", "%3, %5, %1", "%5, %3, %m1", "%2, %6, %m2"}) {
    DYNAMIC_SECTION(args) {
      check_ir_opsets(made(std::string("  %y : Tensor = aten::tril_indices(") + args +
                           ", %long, %none, %none, %none)"),
                      {randn({1}, 1)});
      check_ir_opsets(made(std::string("  %y : Tensor = aten::triu_indices(") + args +
                           ", %long, %none, %none, %none)"),
                      {randn({1}, 1)});
    }
  }
}

TEST_CASE("aten::range", "[ranges]") {
  check_ir_opsets(made("  %y : Tensor = aten::range(%1, %7, %2, %none, %none, %none, %none)"),
                  {randn({1}, 1)});
  check_ir_opsets(made("  %y : Tensor = aten::range(%m2, %s15, %half, %none, %none, %none, %none)"),
                  {randn({1}, 1)});
  check_ir_opsets(made("  %y : Tensor = aten::range(%5, %m1, %m2, %long, %none, %none, %none)"),
                  {randn({1}, 1)});
  check_ir_opsets(made("  %y : Tensor = aten::range(%0, %6, %none, %none, %none, %none)"),
                  {randn({1}, 1)});
  SECTION("run-time end") {
    check_ir_opsets(ir("%x : Tensor", "  %e : float = aten::Float(%x)\n"
                                      "  %y : Tensor = aten::range(%half, %e, %s15, %none, %none, "
                                      "%none, %none)"),
                    {at::tensor({7.3f})});
  }
}

TEST_CASE("aten::logspace", "[ranges]") {
  check_ir_opsets(made("  %y : Tensor = aten::logspace(%m2, %2, %7, %s2, %none, %none, %none, "
                       "%none)"),
                  {randn({1}, 1)});
  check_ir_opsets(made("  %ten : float = prim::Constant[value=10.]()\n"
                       "  %y : Tensor = aten::logspace(%0, %3, %5, %ten, %double, %none, %none, "
                       "%none)"),
                  {randn({1}, 1)});
}

TEST_CASE("aten::bartlett_window", "[ranges]") {
  for (const char *n : {"%1", "%2", "%5", "%6"}) {
    DYNAMIC_SECTION("length " << n) {
      check_ir_opsets(made(std::string("  %y : Tensor = aten::bartlett_window(") + n +
                           ", %true, %none, %none, %none, %none)"),
                      {randn({1}, 1)});
      check_ir_opsets(made(std::string("  %y : Tensor = aten::bartlett_window(") + n +
                           ", %false, %none, %none, %none, %none)"),
                      {randn({1}, 1)});
    }
  }
  check_ir_opsets(made("  %y : Tensor = aten::bartlett_window(%7, %none, %none, %none, %none)"),
                  {randn({1}, 1)});
}

TEST_CASE("aten::kaiser_window", "[ranges]") {
  for (const char *n : {"%1", "%2", "%6", "%7"}) {
    DYNAMIC_SECTION("length " << n) {
      check_ir_opsets(made(std::string("  %y : Tensor = aten::kaiser_window(") + n +
                           ", %true, %s2, %none, %none, %none, %none)"),
                      {randn({1}, 1)});
      check_ir_opsets(made(std::string("  %y : Tensor = aten::kaiser_window(") + n +
                           ", %false, %s2, %none, %none, %none, %none)"),
                      {randn({1}, 1)});
    }
  }
  check_ir_opsets(made("  %y : Tensor = aten::kaiser_window(%7, %none, %none, %none, %none)"),
                  {randn({1}, 1)});
  check_ir_opsets(made("  %y : Tensor = aten::kaiser_window(%6, %false, %none, %none, %none, "
                       "%none)"),
                  {randn({1}, 1)});
}

TEST_CASE("aten::fft_fftfreq", "[ranges]") {
  for (const char *n : {"%1", "%5", "%6"}) {
    DYNAMIC_SECTION("n " << n) {
      check_ir_opsets(made(std::string("  %y : Tensor = aten::fft_fftfreq(") + n +
                           ", %half, %none, %none, %none, %none)"),
                      {randn({1}, 1)});
      check_ir_opsets(made(std::string("  %y : Tensor = aten::fft_rfftfreq(") + n +
                           ", %s2, %none, %none, %none, %none)"),
                      {randn({1}, 1)});
    }
  }
}
