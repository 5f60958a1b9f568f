#include "harness.h"

#include <catch2/catch.hpp>

using namespace t2o_test;

namespace {

// stft(x, n_fft, hop, win, window, normalized, onesided, return_complex=False); `window` is
// "%w" (a graph input) or "%n" (None).
std::string stft_ir(int n_fft, const std::string &hop, const std::string &win,
                    const std::string &window, bool normalized, bool onesided) {
  return "graph(%x : Tensor, %w : Tensor):\n"
         "  %n : NoneType = prim::Constant()\n"
         "  %nfft : int = prim::Constant[value=" +
         std::to_string(n_fft) + "]()\n" +
         (hop == "None" ? "  %hop : NoneType = prim::Constant()\n"
                        : "  %hop : int = prim::Constant[value=" + hop + "]()\n") +
         (win == "None" ? "  %win : NoneType = prim::Constant()\n"
                        : "  %win : int = prim::Constant[value=" + win + "]()\n") +
         "  %norm : bool = prim::Constant[value=" + (normalized ? "1" : "0") + "]()\n" +
         "  %one : bool = prim::Constant[value=" + (onesided ? "1" : "0") + "]()\n" +
         "  %rc : bool = prim::Constant[value=0]()\n"
         "  %y : Tensor = aten::stft(%x, %nfft, %hop, %win, " +
         window + ", %norm, %one, %rc)\n  return (%y)";
}

} // namespace

TEST_CASE("aten::stft", "[signal]") {
  auto hann = at::hann_window(16, at::kFloat);
  SECTION("batched, window, onesided") {
    auto r = check_ir_opsets(stft_ir(16, "4", "16", "%w", false, true), {randn({2, 100}, 1), hann});
    CHECK(r.count("MatMul") == 2);
  }
  SECTION("1-D, default hop, normalized, two-sided") {
    check_ir_opsets(stft_ir(16, "None", "None", "%w", true, false), {randn({64}, 2), hann});
  }
  SECTION("short window centered in n_fft") {
    check_ir_opsets(stft_ir(16, "5", "10", "%w", false, true),
                    {randn({3, 90}, 3), at::hann_window(10, at::kFloat)});
  }
  SECTION("no window, short win_length") {
    check_ir_opsets(stft_ir(12, "3", "8", "%n", false, true), {randn({50}, 4), hann});
  }
  SECTION("center overload, reflect padding") {
    auto ir = R"IR(
graph(%x : Tensor, %w : Tensor):
  %nfft : int = prim::Constant[value=16]()
  %hop : int = prim::Constant[value=4]()
  %n : NoneType = prim::Constant()
  %t : bool = prim::Constant[value=1]()
  %f : bool = prim::Constant[value=0]()
  %mode : str = prim::Constant[value="reflect"]()
  %y : Tensor = aten::stft(%x, %nfft, %hop, %n, %w, %t, %mode, %f, %t, %f)
  return (%y))IR";
    check_ir_opsets(ir, {randn({2, 80}, 5), hann});
  }
  SECTION("return_complex=True gives the complex spectrum (tests/test_complex.cpp)") {
    auto ir = R"IR(
graph(%x : Tensor, %w : Tensor):
  %nfft : int = prim::Constant[value=16]()
  %n : NoneType = prim::Constant()
  %t : bool = prim::Constant[value=1]()
  %f : bool = prim::Constant[value=0]()
  %s : Tensor = aten::stft(%x, %nfft, %n, %n, %w, %f, %t, %t)
  %y : Tensor = aten::view_as_real(%s)
  return (%y))IR";
    check_ir_opsets(ir, {randn({64}, 6), hann});
  }
}
