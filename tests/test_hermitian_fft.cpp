// The Hermitian FFTs (torch.fft.hfft / ihfft and their 2-D and n-D forms): complex values are
// carried as real [..., 2] tensors (docs/complex.md), made with view_as_complex and returned
// through view_as_real.
#include "harness.h"
#include "ir_text.h"

#include <catch2/catch.hpp>

using namespace t2o_test;

namespace {

std::string norm_const(const char *norm) {
  if (std::string(norm) == "None")
    return "  %nm : NoneType = prim::Constant()\n";
  return std::string("  %nm : str = prim::Constant[value=\"") + norm + "\"]()\n";
}

const char *kNorms[] = {"None", "backward", "forward", "ortho"};

} // namespace

TEST_CASE("aten::fft_hfft", "[hermitian_fft]") {
  for (const char *norm : kNorms)
    DYNAMIC_SECTION("norm " << norm) {
      auto body = "  %a : Tensor = aten::view_as_complex(%x)\n" + norm_const(norm) +
                  "  %y : Tensor = aten::fft_hfft(%a, %none, %m1, %nm)";
      check_ir_opsets(ir("%x : Tensor", body), {randn({3, 6, 2}, 1)});
      auto with_n = "  %a : Tensor = aten::view_as_complex(%x)\n" + norm_const(norm) +
                    "  %y : Tensor = aten::fft_hfft(%a, %7, %0, %nm)";
      check_ir_opsets(ir("%x : Tensor", with_n), {randn({5, 2, 2}, 2)});
    }
}

// LibTorch returns a lazy conjugate here, which view_as_real refuses until resolve_conj.
TEST_CASE("aten::fft_ihfft", "[hermitian_fft]") {
  for (const char *norm : kNorms)
    DYNAMIC_SECTION("norm " << norm) {
      auto body = norm_const(norm) + "  %z : Tensor = aten::fft_ihfft(%x, %none, %m1, %nm)\n"
                                     "  %r : Tensor = aten::resolve_conj(%z)\n"
                                     "  %y : Tensor = aten::view_as_real(%r)";
      check_ir_opsets(ir("%x : Tensor", body), {randn({3, 9}, 3)});
      auto with_n = norm_const(norm) + "  %z : Tensor = aten::fft_ihfft(%x, %6, %0, %nm)\n"
                                       "  %r : Tensor = aten::resolve_conj(%z)\n"
                                       "  %y : Tensor = aten::view_as_real(%r)";
      check_ir_opsets(ir("%x : Tensor", with_n), {randn({5, 2}, 4)});
    }
}

TEST_CASE("aten::fft_hfft2", "[hermitian_fft]") {
  for (const char *norm : kNorms)
    DYNAMIC_SECTION("norm " << norm) {
      auto body = "  %a : Tensor = aten::view_as_complex(%x)\n" + norm_const(norm) +
                  "  %d : int[] = prim::ListConstruct(%m2, %m1)\n"
                  "  %y : Tensor = aten::fft_hfft2(%a, %none, %d, %nm)";
      check_ir_opsets(ir("%x : Tensor", body), {randn({2, 4, 5, 2}, 5)});
    }
}

TEST_CASE("aten::fft_ihfft2", "[hermitian_fft]") {
  for (const char *norm : kNorms)
    DYNAMIC_SECTION("norm " << norm) {
      auto body = norm_const(norm) + "  %d : int[] = prim::ListConstruct(%m2, %m1)\n"
                                     "  %z : Tensor = aten::fft_ihfft2(%x, %none, %d, %nm)\n"
                                     "  %y : Tensor = aten::view_as_real(%z)";
      check_ir_opsets(ir("%x : Tensor", body), {randn({2, 4, 6}, 6)});
    }
}

TEST_CASE("aten::fft_hfftn", "[hermitian_fft]") {
  auto body = "  %a : Tensor = aten::view_as_complex(%x)\n" + norm_const("ortho") +
              "  %s : int[] = prim::ListConstruct(%3, %7)\n"
              "  %y : Tensor = aten::fft_hfftn(%a, %s, %none, %nm)";
  check_ir_opsets(ir("%x : Tensor", body), {randn({2, 3, 4, 2}, 7)});
  auto all = "  %a : Tensor = aten::view_as_complex(%x)\n" + norm_const("None") +
             "  %y : Tensor = aten::fft_hfftn(%a, %none, %none, %nm)";
  check_ir_opsets(ir("%x : Tensor", all), {randn({3, 4, 2}, 8)});
}

TEST_CASE("aten::fft_ihfftn", "[hermitian_fft]") {
  auto body = norm_const("forward") + "  %s : int[] = prim::ListConstruct(%3, %7)\n"
                                      "  %z : Tensor = aten::fft_ihfftn(%x, %s, %none, %nm)\n"
                                      "  %y : Tensor = aten::view_as_real(%z)";
  check_ir_opsets(ir("%x : Tensor", body), {randn({2, 4, 6}, 9)});
  auto all = norm_const("None") + "  %z : Tensor = aten::fft_ihfftn(%x, %none, %none, %nm)\n"
                                  "  %y : Tensor = aten::view_as_real(%z)";
  check_ir_opsets(ir("%x : Tensor", all), {randn({3, 5}, 10)});
}
