// Complex tensors (docs/complex.md): carried as real [..., 2] tensors, made from real inputs with
// view_as_complex / complex / polar / stft and returned through view_as_real, real, imag or abs,
// each compared against LibTorch in ONNX Runtime.
#include "aten_lib/dispatch.h"
#include "harness.h"
#include "ir_text.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <torch/script.h>

using namespace t2o_test;

namespace {

// graph(%x, %w, %t) with %a = view_as_complex(%x), %b = view_as_complex(%w) (x and w are real
// [..., 2]) and %t real; `body` computes the complex %z, returned as view_as_real(%z).
std::string cir(const std::string &body) {
  return ir("%x : Tensor, %w : Tensor, %t : Tensor",
            "  %a : Tensor = aten::view_as_complex(%x)\n"
            "  %b : Tensor = aten::view_as_complex(%w)\n" +
                body + "\n  %y : Tensor = aten::view_as_real(%z)");
}

// The same with `body` computing the real %y itself.
std::string cir_to_real(const std::string &body) {
  return ir("%x : Tensor, %w : Tensor, %t : Tensor", "  %a : Tensor = aten::view_as_complex(%x)\n"
                                                     "  %b : Tensor = aten::view_as_complex(%w)\n" +
                                                         body);
}

// Inputs: x (complex [2, 3, 4]), w (complex [3, 1]), t (real [4]).
std::vector<at::Tensor> abt() {
  return {randn({2, 3, 4, 2}, 1), randn({3, 1, 2}, 2), randn({4}, 3)};
}

} // namespace

TEST_CASE("aten::view_as_complex and aten::view_as_real", "[complex]") {
  check_ir_opsets(cir("  %z : Tensor = aten::mul(%a, %s2)"), abt());
  SECTION("the _copy variants") {
    check_ir_opsets(ir("%x : Tensor", "  %a : Tensor = aten::view_as_complex_copy(%x)\n"
                                      "  %y : Tensor = aten::view_as_real_copy(%a)"),
                    {randn({5, 2}, 4)});
  }
}

TEST_CASE("aten::complex", "[complex]") {
  auto r =
      check_ir_opsets(ir("%re : Tensor, %im : Tensor", "  %z : Tensor = aten::complex(%re, %im)\n"
                                                       "  %y : Tensor = aten::view_as_real(%z)"),
                      {randn({3, 1}, 5), randn({4}, 6)});
  CHECK(r.torch_outputs[0].sizes() == at::IntArrayRef({3, 4, 2}));
}

TEST_CASE("aten::polar", "[complex]") {
  check_ir_opsets(ir("%r : Tensor, %th : Tensor", "  %z : Tensor = aten::polar(%r, %th)\n"
                                                  "  %y : Tensor = aten::view_as_real(%z)"),
                  {randn({3, 4}, 7).abs(), randn({4}, 8)});
}

TEST_CASE("aten::real and aten::imag", "[complex]") {
  check_ir_opsets(ir("%x : Tensor, %w : Tensor, %t : Tensor",
                     "  %a : Tensor = aten::view_as_complex(%x)\n"
                     "  %re : Tensor = aten::real(%a)\n  %im : Tensor = aten::imag(%a)\n"
                     "  %r : Tensor = aten::real(%t)",
                     "%re, %im, %r"),
                  abt());
}

TEST_CASE("aten::_conj", "[complex]") {
  check_ir(cir("  %c : Tensor = aten::_conj(%a)\n  %z : Tensor = aten::resolve_conj(%c)"), abt());
}

TEST_CASE("aten::conj and its variants", "[complex]") {
  for (const char *op : {"aten::conj", "aten::_conj", "aten::conj_physical", "aten::_conj_copy"}) {
    CAPTURE(op);
    check_ir(
        cir(std::string("  %c : Tensor = ") + op + "(%a)\n  %z : Tensor = aten::resolve_conj(%c)"),
        abt());
  }
  SECTION("conj of a real tensor is the identity") {
    check_ir(ir1("aten::conj(%x)"), {randn({3}, 9)});
  }
}

TEST_CASE("aten::conj_physical_", "[complex]") {
  check_ir_opsets(cir("  %c : Tensor = aten::clone(%a, %none)\n"
                      "  %z : Tensor = aten::conj_physical_(%c)"),
                  abt());
  SECTION("on a real tensor: the identity") {
    check_ir_opsets(ir("%x : Tensor", "  %c : Tensor = aten::clone(%x, %none)\n"
                                      "  %y : Tensor = aten::conj_physical_(%c)"),
                    {randn({3, 4}, 9)});
  }
}

TEST_CASE("aten::mul on complex tensors", "[complex]") {
  SECTION("complex * complex, broadcast") {
    check_ir_opsets(cir("  %z : Tensor = aten::mul(%a, %b)"), abt());
  }
  SECTION("complex * real tensor and real tensor * complex") {
    check_ir_opsets(cir("  %c : Tensor = aten::mul(%a, %t)\n  %z : Tensor = aten::mul(%t, %c)"),
                    abt());
  }
  SECTION("complex * scalar, in place") {
    check_ir(cir("  %c : Tensor = aten::clone(%a, %none)\n"
                 "  %z : Tensor = aten::mul_(%c, %s15)"),
             abt());
  }
}

TEST_CASE("aten::add and aten::sub on complex tensors", "[complex]") {
  check_ir_opsets(cir("  %z : Tensor = aten::add(%a, %b, %2)"), abt());
  check_ir(cir("  %c : Tensor = aten::add(%a, %t, %1)\n"
               "  %d : Tensor = aten::sub(%t, %c, %s15)\n"
               "  %z : Tensor = aten::sub(%d, %half, %1)"),
           abt());
  check_ir(cir("  %c : Tensor = aten::sub(%a, %b, %1)\n  %z : Tensor = aten::add(%c, %2, %1)"),
           abt());
}

TEST_CASE("aten::div on complex tensors", "[complex]") {
  check_ir_opsets(cir("  %z : Tensor = aten::div(%a, %b)"), abt());
  check_ir(cir("  %c : Tensor = aten::div(%a, %t)\n  %z : Tensor = aten::div(%c, %s2)"), abt());
}

TEST_CASE("aten::exp on complex tensors", "[complex]") {
  check_ir_opsets(cir("  %z : Tensor = aten::exp(%a)"), abt());
}

TEST_CASE("aten::abs and aten::angle on complex tensors", "[complex]") {
  auto x = randn({2, 3, 4, 2}, 1);
  x[0][0][0].zero_(); // angle(0) == 0, |0| == 0
  x[0][0][1][1] = 0;  // on the real axis, negative or positive
  x[0][0][2][0] = 0;  // on the imaginary axis
  check_ir_opsets(cir_to_real("  %y : Tensor = aten::abs(%a)"), {x, randn({3, 1, 2}), randn({4})});
  check_ir_opsets(cir_to_real("  %y : Tensor = aten::angle(%a)"),
                  {x, randn({3, 1, 2}), randn({4})});
}

TEST_CASE("aten::pow on complex tensors", "[complex]") {
  SECTION("squared") {
    check_ir_opsets(cir("  %z : Tensor = aten::pow(%a, %s2)"), abt());
  }
  SECTION("real exponents") {
    check_ir(cir("  %z : Tensor = aten::pow(%a, %s15)"), abt());
    check_ir(cir("  %z : Tensor = aten::pow(%a, %t)"), abt());
    check_ir(cir("  %z : Tensor = aten::pow(%a, %half)"), abt());
  }
  SECTION("complex exponent") {
    check_ir(cir("  %z : Tensor = aten::pow(%a, %b)"),
             {randn({2, 3, 4, 2}, 1), randn({3, 1, 2}, 2) * 0.5, randn({4}, 3)});
  }
  SECTION("|z| ** 2 as Whisper computes power") {
    check_ir(cir_to_real("  %m : Tensor = aten::abs(%a)\n  %y : Tensor = aten::pow(%m, %2)"),
             abt());
  }
}

TEST_CASE("shape ops on complex tensors", "[complex]") {
  SECTION("aten::slice and aten::select on the last dim") {
    check_ir_opsets(cir("  %s : Tensor = aten::slice(%a, %m1, %0, %m1, %1)\n"
                        "  %z : Tensor = aten::select(%s, %m1, %1)"),
                    abt());
  }
  SECTION("aten::unsqueeze, aten::transpose, aten::permute") {
    check_ir(cir("  %u : Tensor = aten::unsqueeze(%a, %m1)\n"
                 "  %v : Tensor = aten::transpose(%u, %0, %m1)\n"
                 "  %p : int[] = prim::ListConstruct(%m1, %0, %2, %1)\n"
                 "  %z : Tensor = aten::permute(%v, %p)"),
             abt());
  }
  SECTION("aten::flatten, aten::view, aten::reshape, aten::squeeze") {
    check_ir(cir("  %f : Tensor = aten::flatten(%a, %0, %m1)\n"
                 "  %s : int[] = prim::ListConstruct(%6, %m1)\n"
                 "  %v : Tensor = aten::view(%f, %s)\n"
                 "  %sz : int[] = prim::ListConstruct(%1, %m1, %2)\n"
                 "  %r : Tensor = aten::reshape(%v, %sz)\n"
                 "  %z : Tensor = aten::squeeze(%r, %0)"),
             abt());
  }
  SECTION("aten::cat, aten::stack, aten::expand") {
    check_ir(cir("  %s : int[] = prim::ListConstruct(%2, %3, %long)\n"
                 "  %e : Tensor = aten::expand(%b, %s, %false)\n"
                 "  %l : Tensor[] = prim::ListConstruct(%a, %e)\n"
                 "  %c : Tensor = aten::cat(%l, %m1)\n"
                 "  %z : Tensor = aten::stack(%l, %m1)"),
             abt());
    check_ir(cir("  %l : Tensor[] = prim::ListConstruct(%a, %a)\n"
                 "  %z : Tensor = aten::cat(%l, %m1)"),
             abt());
  }
  SECTION("sizes of a complex tensor fold to its own (not the carried) sizes") {
    check_ir(cir("  %n : int = aten::size(%a, %m1)\n"
                 "  %s : int[] = prim::ListConstruct(%m1, %n)\n"
                 "  %z : Tensor = aten::reshape(%a, %s)"),
             abt());
  }
  SECTION("aten::contiguous, aten::clone, aten::to") {
    check_ir(cir("  %c : Tensor = aten::contiguous(%a, %0)\n"
                 "  %z : Tensor = aten::clone(%c, %none)"),
             abt());
  }
}

namespace {

// stft(x, n_fft=16, hop=4, win=None, window=%w, center, reflect, normalized=False,
// onesided=True, return_complex=True): the center overload.
const char *const kStftComplex = R"IR(
  %nfft : int = prim::Constant[value=16]()
  %hop : int = prim::Constant[value=4]()
  %mode : str = prim::Constant[value="reflect"]()
  %s : Tensor = aten::stft(%x, %nfft, %hop, %none, %w, %true, %mode, %false, %true, %true)
)IR";

} // namespace

// HDemucs pads its complex spectrogram (F.pad(z, [0, 0, 0, 1]) then F.pad(z, [2, 2])) before
// istft: the pad list starts at the last logical dim, not at the (real, imaginary) pair.
TEST_CASE("aten::pad and aten::constant_pad_nd on complex tensors", "[complex]") {
  SECTION("constant, the last two dims") {
    check_ir_opsets(cir("  %p : int[] = prim::ListConstruct(%0, %0, %0, %1)\n"
                        "  %mode : str = prim::Constant[value=\"constant\"]()\n"
                        "  %q : Tensor = aten::pad(%a, %p, %mode, %none)\n"
                        "  %p2 : int[] = prim::ListConstruct(%2, %2)\n"
                        "  %z : Tensor = aten::constant_pad_nd(%q, %p2, %0)"),
                    abt());
  }
  SECTION("reflect") {
    check_ir(cir("  %p : int[] = prim::ListConstruct(%2, %1)\n"
                 "  %mode : str = prim::Constant[value=\"reflect\"]()\n"
                 "  %z : Tensor = aten::pad(%a, %p, %mode, %none)"),
             abt());
  }
  SECTION("a fill value other than 0 is refused") {
    std::string err = export_ir_error(cir("  %p : int[] = prim::ListConstruct(%1, %1)\n"
                                          "  %z : Tensor = aten::constant_pad_nd(%a, %p, %1)"),
                                      abt());
    CAPTURE(err);
    CHECK(err.find("with the fill value int 1 is not supported") != std::string::npos);
  }
}

TEST_CASE("aten::stft with return_complex=True", "[complex]") {
  auto hann = at::hann_window(16, at::kFloat);
  SECTION("view_as_real of the spectrum") {
    check_ir_opsets(ir("%x : Tensor, %w : Tensor",
                       std::string(kStftComplex) + "  %y : Tensor = aten::view_as_real(%s)"),
                    {randn({2, 80}, 1), hann});
  }
  SECTION("power spectrum without the last frame, as Whisper computes it") {
    check_ir(ir("%x : Tensor, %w : Tensor",
                std::string(kStftComplex) +
                    "  %f : Tensor = aten::slice(%s, %m1, %none, %m1, %1)\n"
                    "  %m : Tensor = aten::abs(%f)\n  %y : Tensor = aten::pow(%m, %2)"),
             {randn({1, 96}, 2), hann});
  }
  SECTION("the phase: DC and Nyquist bins of a real signal are exactly real (pi not -pi)") {
    // many Nyquist bins are negative reals, where atan2 turns on the sign of an imaginary part
    // that must be exactly 0 (not sin(pi) = 1.2e-16); no centre padding, whose reflected first
    // frame is nearly even (imaginary parts within rounding of 0 in every bin)
    check_ir(ir("%x : Tensor, %w : Tensor",
                "  %nfft : int = prim::Constant[value=16]()\n"
                "  %hop : int = prim::Constant[value=4]()\n"
                "  %mode : str = prim::Constant[value=\"reflect\"]()\n"
                "  %s : Tensor = aten::stft(%x, %nfft, %hop, %none, %w, %false, %mode, %false, "
                "%true, %true)\n"
                "  %y : Tensor = aten::angle(%s)"),
             {randn({2, 80}, 3) + 2.0, hann});
  }
}

TEST_CASE("aten::istft", "[complex]") {
  auto hann = at::hann_window(16, at::kFloat);
  SECTION("stft then istft gives the signal back") {
    check_ir_opsets(ir("%x : Tensor, %w : Tensor",
                       std::string(kStftComplex) +
                           "  %y : Tensor = aten::istft(%s, %nfft, %hop, %none, %w, %true, "
                           "%false, %none, %none, %false)"),
                    {randn({2, 80}, 3), hann});
  }
  SECTION("1-D, with length, normalized") {
    check_ir(ir("%x : Tensor, %w : Tensor",
                "  %nfft : int = prim::Constant[value=16]()\n"
                "  %hop : int = prim::Constant[value=4]()\n"
                "  %len : int = prim::Constant[value=70]()\n"
                "  %a : Tensor = aten::view_as_complex(%x)\n"
                "  %y : Tensor = aten::istft(%a, %nfft, %hop, %none, %w, %true, %true, %none, "
                "%len, %false)"),
             {randn({9, 12, 2}, 4), hann});
  }
  SECTION("no window, short win_length, hop not dividing n_fft") {
    check_ir(ir("%x : Tensor",
                "  %nfft : int = prim::Constant[value=16]()\n"
                "  %hop : int = prim::Constant[value=6]()\n"
                "  %win : int = prim::Constant[value=12]()\n"
                "  %a : Tensor = aten::view_as_complex(%x)\n"
                "  %y : Tensor = aten::istft(%a, %nfft, %hop, %win, %none, %true, %false, "
                "%none, %none, %false)"),
             {randn({2, 9, 7, 2}, 5)});
  }
  SECTION("not centered, two-sided input") {
    check_ir(ir("%x : Tensor",
                "  %nfft : int = prim::Constant[value=8]()\n"
                "  %hop : int = prim::Constant[value=3]()\n"
                "  %a : Tensor = aten::view_as_complex(%x)\n"
                "  %y : Tensor = aten::istft(%a, %nfft, %hop, %none, %none, %false, %false, "
                "%false, %none, %false)"),
             {randn({8, 5, 2}, 6)});
  }
}

TEST_CASE("aten::stft and aten::istft on a signal whose length is known only at run time",
          "[complex]") {
  // An audio front end or enhancer taking any number of samples: frames counted at run time.
  auto hann = at::hann_window(16, at::kFloat);
  SECTION("power spectrum") {
    for (int opset : {11, 17})
      check_ir_dynamic(ir("%x : Tensor, %w : Tensor", std::string(kStftComplex) +
                                                          "  %m : Tensor = aten::abs(%s)\n"
                                                          "  %y : Tensor = aten::pow(%m, %2)"),
                       {randn({2, 80}, 1), hann}, {randn({3, 123}, 2), hann}, opset);
  }
  SECTION("round trip without a length") {
    check_ir_dynamic(ir("%x : Tensor, %w : Tensor",
                        std::string(kStftComplex) +
                            "  %y : Tensor = aten::istft(%s, %nfft, %hop, %none, %w, %true, "
                            "%false, %none, %none, %false)"),
                     {randn({2, 80}, 3), hann}, {randn({1, 131}, 4), hann});
  }
  SECTION("round trip to the input's own length, and to a longer one (zeros)") {
    for (const char *extra : {"0", "9"})
      check_ir_dynamic(ir("%x : Tensor, %w : Tensor",
                          std::string(kStftComplex) + "  %e : int = prim::Constant[value=" + extra +
                              "]()\n"
                              "  %n : int = aten::size(%x, %1)\n"
                              "  %len : int = aten::add(%n, %e)\n"
                              "  %y : Tensor = aten::istft(%s, %nfft, %hop, %none, %w, %true, "
                              "%false, %none, %len, %false)"),
                       {randn({2, 80}, 5), hann}, {randn({2, 97}, 6), hann});
  }
  SECTION("not centered") {
    check_ir_dynamic(ir("%x : Tensor",
                        "  %nfft : int = prim::Constant[value=8]()\n"
                        "  %hop : int = prim::Constant[value=3]()\n"
                        "  %a : Tensor = aten::view_as_complex(%x)\n"
                        "  %y : Tensor = aten::istft(%a, %nfft, %hop, %none, %none, %false, "
                        "%false, %false, %none, %false)"),
                     {randn({8, 5, 2}, 6)}, {randn({8, 9, 2}, 7)});
  }
}

TEST_CASE("aten::fft_fft and aten::fft_ifft", "[complex]") {
  SECTION("real input, default n") {
    check_ir_opsets(ir("%x : Tensor", "  %z : Tensor = aten::fft_fft(%x, %none, %m1, %none)\n"
                                      "  %y : Tensor = aten::view_as_real(%z)"),
                    {randn({3, 10}, 1)});
  }
  SECTION("complex input, padded and cut, norms") {
    check_ir(cir("  %n : int = prim::Constant[value=8]()\n"
                 "  %o : str = prim::Constant[value=\"ortho\"]()\n"
                 "  %c : Tensor = aten::fft_fft(%a, %n, %1, %o)\n"
                 "  %f : str = prim::Constant[value=\"forward\"]()\n"
                 "  %z : Tensor = aten::fft_ifft(%c, %2, %m1, %f)"),
             abt());
    check_ir(cir("  %z : Tensor = aten::fft_ifft(%a, %none, %0, %none)"), abt());
  }
}

TEST_CASE("aten::fft_rfft and aten::fft_irfft", "[complex]") {
  check_ir_opsets(ir("%x : Tensor", "  %z : Tensor = aten::fft_rfft(%x, %none, %m1, %none)\n"
                                    "  %y : Tensor = aten::view_as_real(%z)"),
                  {randn({3, 10}, 1)});
  check_ir(ir("%x : Tensor", "  %n : int = prim::Constant[value=7]()\n"
                             "  %z : Tensor = aten::fft_rfft(%x, %n, %0, %none)\n"
                             "  %y : Tensor = aten::view_as_real(%z)"),
           {randn({10, 3}, 2)});
  SECTION("round trip, odd and default lengths") {
    check_ir_opsets(ir("%x : Tensor", "  %z : Tensor = aten::fft_rfft(%x, %none, %m1, %none)\n"
                                      "  %n : int = prim::Constant[value=9]()\n"
                                      "  %y : Tensor = aten::fft_irfft(%z, %n, %m1, %none)"),
                    {randn({2, 9}, 3)});
    check_ir(ir("%x : Tensor", "  %a : Tensor = aten::view_as_complex(%x)\n"
                               "  %o : str = prim::Constant[value=\"ortho\"]()\n"
                               "  %y : Tensor = aten::fft_irfft(%a, %none, %0, %o)"),
             {randn({6, 3, 2}, 4)});
  }
  SECTION("irfft of a real input (a power spectrum: autocorrelation)") {
    check_ir_opsets(ir("%x : Tensor", "  %z : Tensor = aten::fft_rfft(%x, %none, %m1, %none)\n"
                                      "  %a : Tensor = aten::abs(%z)\n"
                                      "  %p : Tensor = aten::mul(%a, %a)\n"
                                      "  %n : int = prim::Constant[value=10]()\n"
                                      "  %y : Tensor = aten::fft_irfft(%p, %n, %m1, %none)"),
                    {randn({2, 10}, 5)});
    check_ir(ir("%x : Tensor", "  %y : Tensor = aten::fft_irfft(%x, %none, %0, %none)"),
             {randn({5, 3}, 6)});
  }
}

TEST_CASE("aten::fft_fftn and the other n-dimensional FFTs", "[complex]") {
  SECTION("aten::fft_fft2 of a real input and aten::fft_ifftn with s") {
    check_ir_opsets(ir("%x : Tensor", "  %z : Tensor = aten::fft_fft2(%x, %none, %d02, %none)\n"
                                      "  %s : int[] = prim::ListConstruct(%5, %m1)\n"
                                      "  %o : str = prim::Constant[value=\"ortho\"]()\n"
                                      "  %c : Tensor = aten::fft_ifftn(%z, %s, %none, %o)\n"
                                      "  %y : Tensor = aten::view_as_real(%c)"),
                    {randn({4, 3, 6}, 1)});
  }
  SECTION("aten::fft_ifft2 of a complex input") {
    check_ir(cir("  %z : Tensor = aten::fft_ifft2(%a, %none, %d02, %none)"), abt());
  }
  SECTION("aten::fft_fftn of a complex input over every dim") {
    check_ir(cir("  %z : Tensor = aten::fft_fftn(%a, %none, %none, %none)"), abt());
  }
  SECTION("aten::fft_rfft2 then aten::fft_irfft2 and aten::fft_rfftn then aten::fft_irfftn") {
    check_ir_opsets(ir("%x : Tensor", "  %d : int[] = prim::ListConstruct(%m2, %m1)\n"
                                      "  %z : Tensor = aten::fft_rfft2(%x, %none, %d, %none)\n"
                                      "  %y : Tensor = aten::fft_irfft2(%z, %none, %d, %none)"),
                    {randn({2, 4, 6}, 2)});
    check_ir(ir("%x : Tensor", "  %s : int[] = prim::ListConstruct(%3, %7)\n"
                               "  %z : Tensor = aten::fft_rfftn(%x, %s, %none, %none)\n"
                               "  %f : str = prim::Constant[value=\"forward\"]()\n"
                               "  %y : Tensor = aten::fft_irfftn(%z, %s, %none, %f)"),
             {randn({2, 4, 6}, 3)});
  }
}

TEST_CASE("aten::_fft_r2c aten::_fft_c2c and aten::_fft_c2r", "[complex]") {
  SECTION("r2c over two dims, onesided and not") {
    check_ir_opsets(ir("%x : Tensor", "  %d : int[] = prim::ListConstruct(%0, %2)\n"
                                      "  %z : Tensor = aten::_fft_r2c(%x, %d, %1, %true)\n"
                                      "  %y : Tensor = aten::view_as_real(%z)"),
                    {randn({4, 3, 6}, 1)});
    check_ir(ir("%x : Tensor", "  %d : int[] = prim::ListConstruct(%1)\n"
                               "  %z : Tensor = aten::_fft_r2c(%x, %d, %2, %false)\n"
                               "  %y : Tensor = aten::view_as_real(%z)"),
             {randn({4, 5}, 2)});
  }
  SECTION("c2c inverse") {
    check_ir_opsets(cir("  %d : int[] = prim::ListConstruct(%0, %2)\n"
                        "  %z : Tensor = aten::_fft_c2c(%a, %d, %2, %false)"),
                    abt());
  }
  SECTION("c2r over two dims") {
    check_ir_opsets(ir("%x : Tensor", "  %a : Tensor = aten::view_as_complex(%x)\n"
                                      "  %d : int[] = prim::ListConstruct(%0, %1)\n"
                                      "  %y : Tensor = aten::_fft_c2r(%a, %d, %2, %7)"),
                    {randn({3, 4, 2}, 3)});
  }
}

TEST_CASE("complex values the ONNX graph cannot take", "[complex]") {
  SECTION("a complex graph output") {
    std::string err = export_ir_error(
        ir("%x : Tensor", "  %y : Tensor = aten::view_as_complex(%x)"), {randn({3, 2})});
    CAPTURE(err);
    CHECK(err.find("is a complex tensor (c64[3] as f32[3,2])") != std::string::npos);
  }
  SECTION("an op without a complex lowering") {
    std::string err = export_ir_error(
        ir("%x : Tensor", "  %a : Tensor = aten::view_as_complex(%x)\n"
                          "  %s : Tensor = aten::sin(%a)\n  %y : Tensor = aten::view_as_real(%s)"),
        {randn({3, 2})});
    CHECK(err.find("aten::sin on complex tensors") != std::string::npos);
    CHECK(err.find("docs/complex.md") != std::string::npos);
  }
  SECTION("a list op whose items would lose the complex flag") {
    std::string err =
        export_ir_error(ir("%x : Tensor", "  %a : Tensor = aten::view_as_complex(%x)\n"
                                          "  %l : Tensor[] = aten::unbind(%a, %0)\n"
                                          "  %s : Tensor = prim::ListUnpack(%l)\n"
                                          "  %y : Tensor = aten::view_as_real(%s)"),
                        {randn({1, 3, 2})});
    CHECK(err.find("aten::unbind on complex tensors") != std::string::npos);
  }
}

TEST_CASE("complex values with a dynamic batch", "[complex]") {
  auto alt = std::vector<at::Tensor>{randn({5, 3, 4, 2}, 4), randn({3, 1, 2}, 5), randn({4}, 6)};
  check_ir_dynamic(cir("  %c : Tensor = aten::mul(%a, %b)\n"
                       "  %n : int = aten::size(%c, %0)\n"
                       "  %l : int[] = aten::size(%c)\n"
                       "  %k : int = aten::__getitem__(%l, %m1)\n"
                       "  %s : int[] = prim::ListConstruct(%n, %m1, %k)\n"
                       "  %r : Tensor = aten::reshape(%c, %s)\n"
                       "  %z : Tensor = aten::pow(%r, %half)"),
                   abt(), alt);
  check_ir_dynamic(cir_to_real("  %y : Tensor = aten::angle(%a)"), abt(), alt);
}

TEST_CASE("the dispatcher refuses complex operands without a complex lowering", "[complex]") {
  // What the pre-scan cannot see (values LibTorch did not record, list items) still fails here.
  using namespace torch2onnx;
  GraphBuilder b(17);
  TensorInfo info{DType::Float, std::vector<Dim>{Dim::known(3), Dim::known(2)}};
  info.complex = true;
  Val x = b.add_input("x", info);
  NodeContext node;
  node.op = "aten::sin";
  node.outputs = {"y"};
  node.arg_names = {"self", "other"};
  const Registry &registry = Registry::global();
  const RegistryEntry *sin = find_converter(Registry::global(), "aten::sin", 17);
  REQUIRE(sin);
  CHECK_THROWS_WITH(call_converter(b, registry, *sin, node, {Arg::of_tensor(x)}, {OutputSlot{}}),
                    Catch::Contains("aten::sin does not support complex tensors"));
  const RegistryEntry *mul = find_converter(Registry::global(), "aten::mul", 17);
  REQUIRE(mul);
  CHECK(mul->complex_fn);
  auto out = call_converter(b, registry, *mul, node, {Arg::of_tensor(x), Arg::of_float(2.0)},
                            {OutputSlot{}});
  CHECK(b.info(out[0].t()).complex);
}

namespace {

// A scripted module saved to `name`.pt in a fresh folder: forward's source in TorchScript.
std::string scripted_model(const std::string &name, const std::string &forward,
                           const std::vector<std::pair<std::string, at::Tensor>> &buffers = {}) {
  torch::jit::Module m("M");
  for (const auto &[n, t] : buffers)
    m.register_buffer(n, t);
  m.define(forward);
  std::string dir = fresh_dir(name);
  std::string path = dir + "/" + name + ".pt";
  m.save(path);
  return path;
}

} // namespace

TEST_CASE("CLI: a complex graph output fails with exit 1 and no file", "[complex][cli]") {
  std::string pt = scripted_model("complex_out", "def forward(self, x):\n"
                                                 "    return torch.view_as_complex(x) * 2\n");
  std::string out = pt + ".onnx";
  auto r = run_cli({pt, "-o", out, "--input", "x:f32[4,2]"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("view_as_real") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("CLI: a complex buffer times a complex value verifies", "[complex][cli]") {
  auto c = at::randn({4, 3}, at::kComplexFloat);
  std::string pt = scripted_model("complex_buffer",
                                  "def forward(self, x):\n"
                                  "    z = torch.view_as_complex(x) * self.freqs[1:3]\n"
                                  "    return torch.view_as_real(z).flatten(2)\n",
                                  {{"freqs", c}});
  std::string out = std::filesystem::path(pt).parent_path() / "complex_buffer.onnx";
  auto r = run_cli({pt, "-o", out, "--input", "x:f32[5,2,3,2]", "--verify"});
  CHECK(r.exit_code == 0);
  CHECK(r.err == "");
}

TEST_CASE("CLI: exp(1j * theta) with a complex Python number verifies", "[complex][cli]") {
  std::string pt = scripted_model("complex_literal", "def forward(self, th):\n"
                                                     "    z = torch.exp(th * 1j) + 0.5j\n"
                                                     "    return torch.view_as_real(z)\n");
  std::string out = std::filesystem::path(pt).parent_path() / "complex_literal.onnx";
  auto r = run_cli({pt, "-o", out, "--input", "th:f32[3,4]", "--verify"});
  CHECK(r.exit_code == 0);
  CHECK(r.err == "");
}
