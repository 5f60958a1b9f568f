// Special functions of aten_lib/special.cpp and aten_lib/bessel.cpp, against LibTorch in ONNX
// Runtime over the ranges users hit (the default tolerance: 1e-4 of max(1, max|torch|)).
#include "harness.h"
#include "ir_text.h"

#include <catch2/catch.hpp>
#include <limits>

using namespace t2o_test;

namespace {

const float kNan = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

// n points evenly spaced in [lo, hi].
at::Tensor span(double lo, double hi, int64_t n) {
  return at::linspace(lo, hi, n, at::kFloat);
}

// Positive arguments (0.1, 20) plus negative non-integers away from the poles.
at::Tensor gamma_args() {
  return at::cat({span(0.1, 20, 200), at::tensor({-0.5f, -1.3f, -2.7f, -3.5f, -4.25f, -0.1f})});
}

// The in-place form of a unary op on a temporary, as in test_math.cpp.
std::string inplace(const std::string &call) {
  return ir("%x0 : Tensor", "  %x : Tensor = aten::mul(%x0, %1)\n  %y : Tensor = " + call);
}

} // namespace

TEST_CASE("aten::lgamma", "[special]") {
  auto x = at::cat({gamma_args(), at::tensor({0.f, -2.f, 1.f, 2.f, 1e-3f, 150.f, kInf})});
  auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::lgamma(%x)
  %y : Tensor = aten::special_gammaln(%x))IR",
                              "%a, %y"),
                           {x});
  CHECK(r.count("Sin") == 2);
  check_ir_opsets(inplace("aten::lgamma_(%x)"), {gamma_args()});
  check_ir_opsets(ir1("aten::lgamma(%x)"), {ints({6}, 1, 30)});
}

TEST_CASE("aten::gamma", "[special]") {
  // math.gamma of a number computed at run time (from a 0-d tensor's value).
  for (float v : {0.5f, 1.f, 3.7f, 10.f, -0.5f, -1.3f, -2.7f, -3.5f}) {
    INFO(v);
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %s : float = aten::Float(%x)
  %g : float = aten::gamma(%s)
  %y : Tensor = prim::NumToTensor(%g))IR"),
                    {at::tensor(v, at::kDouble)});
  }
}

TEST_CASE("aten::digamma", "[special]") {
  auto x = at::cat({gamma_args(), at::tensor({0.f, -2.f, 1.f, 1.4616321f, 1e-3f, 1e4f})});
  check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::digamma(%x)
  %b : Tensor = aten::special_digamma(%x)
  %y : Tensor = aten::special_psi(%x))IR",
                     "%a, %b, %y"),
                  {x});
  check_ir_opsets(inplace("aten::digamma_(%x)"), {gamma_args()});
}

TEST_CASE("aten::polygamma", "[special]") {
  auto x = gamma_args();
  check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::polygamma(%0, %x)
  %b : Tensor = aten::polygamma(%1, %x)
  %c : Tensor = aten::special_polygamma(%2, %x)
  %y : Tensor = aten::polygamma(%3, %x))IR",
                     "%a, %b, %c, %y"),
                  {x});
  check_ir_opsets(inplace("aten::polygamma_(%x, %5)"), {span(0.5, 20, 50)});
}

TEST_CASE("aten::special_zeta", "[special]") {
  auto q = at::cat({span(0.1, 20, 100), at::tensor({-2.5f, -1.5f, 0.f, -1.f})});
  auto s = at::full({104}, 3.f);
  s.index_put_({at::indexing::Slice(0, 30)}, 2.f);
  s.index_put_({at::indexing::Slice(30, 60)}, 4.5f);
  s.index_put_({103}, 1.f);
  check_ir_opsets(ir2("aten::special_zeta(%x, %z)"), {s, q});
  check_ir_opsets(ir1("aten::special_zeta(%s, %x)", "  %s : float = prim::Constant[value=2.5]()\n"),
                  {span(0.5, 10, 20)});
}

TEST_CASE("aten::mvlgamma", "[special]") {
  auto x = span(2.1, 20, 50);
  check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::mvlgamma(%x, %1)
  %y : Tensor = aten::special_multigammaln(%x, %3))IR",
                     "%a, %y"),
                  {x});
  check_ir_opsets(inplace("aten::mvlgamma_(%x, %2)"), {x});
}

TEST_CASE("aten::erfinv", "[special]") {
  auto x = at::cat({span(-0.999, 0.999, 300),
                    at::tensor({-1.f, 1.f, 0.f, 0.9999999f, -0.99999994f, 1.5f, kNan})});
  check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::erfinv(%x)
  %y : Tensor = aten::special_erfinv(%x))IR",
                     "%a, %y"),
                  {x});
  check_ir_opsets(inplace("aten::erfinv_(%x)"), {span(-0.9, 0.9, 20)});
}

TEST_CASE("aten::special_ndtr", "[special]") {
  check_ir_opsets(ir1("aten::special_ndtr(%x)"),
                  {at::cat({span(-40, 10, 501), at::tensor({-kInf, kInf, kNan})})});
}

TEST_CASE("aten::special_log_ndtr", "[special]") {
  check_ir_opsets(ir1("aten::special_log_ndtr(%x)"),
                  {at::cat({span(-40, 10, 501), at::tensor({-3.f, 3.f, kInf})})});
  // Only the left tail, where log_ndtr is tiny in size: its relative accuracy shows.
  check_ir_opsets(ir1("aten::special_log_ndtr(%x)"), {span(-4, -0.5, 50)});
}

TEST_CASE("aten::special_ndtri", "[special]") {
  auto p = at::cat({at::logspace(-30, -1, 60, 10, at::kFloat), span(0.02, 0.98, 97),
                    1 - at::logspace(-6, -1, 20, 10, at::kFloat),
                    at::tensor({0.f, 1.f, 0.5f, -0.1f, 1.1f})});
  check_ir_opsets(ir1("aten::special_ndtri(%x)"), {p});
}

TEST_CASE("aten::special_entr", "[special]") {
  check_ir_opsets(ir1("aten::special_entr(%x)"),
                  {at::cat({span(0.001, 5, 50), at::tensor({0.f, -1.f, kNan, kInf})})});
}

TEST_CASE("aten::special_xlog1py", "[special]") {
  auto x = at::cat({randn({20}, 1), at::tensor({0.f, 0.f, 2.f, -1.f})});
  auto y = at::cat({randn({20}, 2).abs() * 3 - 0.9, at::tensor({kNan, 3.f, 1e-8f, -1.f})});
  check_ir_opsets(ir2("aten::special_xlog1py(%x, %z)"), {x, y});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::special_xlog1py(%x, %s15)"), {x});
}

// ---- Bessel and Airy functions ----

namespace {
// [-60, 60] with small arguments densely and the branch points (7, 10, 15).
at::Tensor bessel_args() {
  return at::cat({span(-60, 60, 241), span(-3, 3, 61),
                  at::tensor({0.f, 14.99f, 15.01f, 6.99f, 7.01f, 9.99f, 10.01f})});
}
at::Tensor positive_args() {
  return at::cat({span(0.01, 60, 241), span(0.001, 3, 61),
                  at::tensor({0.f, -1.f, 9.99f, 10.01f, 6.99f, 7.01f})});
}
} // namespace

TEST_CASE("aten::special_bessel_j0", "[special]") {
  check_ir_opsets(ir1("aten::special_bessel_j0(%x)"), {bessel_args()});
}
TEST_CASE("aten::special_bessel_j1", "[special]") {
  check_ir_opsets(ir1("aten::special_bessel_j1(%x)"), {bessel_args()});
}
TEST_CASE("aten::special_bessel_y0", "[special]") {
  check_ir_opsets(ir1("aten::special_bessel_y0(%x)"), {positive_args()});
}
TEST_CASE("aten::special_bessel_y1", "[special]") {
  // Y1 ~ -2 / (pi x) near 0: from x = 0.01 on, so the tolerance (relative to max |Y1|) is not huge.
  check_ir_opsets(ir1("aten::special_bessel_y1(%x)"),
                  {at::cat({span(0.01, 60, 241), at::tensor({0.f, -1.f, 6.99f, 7.01f})})});
}

TEST_CASE("aten::i0", "[special]") {
  auto x = at::cat({span(-20, 20, 161), at::tensor({0.f, 14.99f, 15.01f})});
  check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::i0(%x)
  %b : Tensor = aten::special_i0(%x)
  %y : Tensor = aten::special_modified_bessel_i0(%x))IR",
                     "%a, %b, %y"),
                  {x});
  check_ir_opsets(inplace("aten::i0_(%x)"), {span(-5, 5, 21)});
  check_ir_opsets(ir1("aten::special_i1(%x)"), {x});
  check_ir_opsets(ir1("aten::special_modified_bessel_i1(%x)"), {x});
  // The scaled forms stay small: the whole range with all branches.
  check_ir_opsets(ir1("aten::special_i0e(%x)"), {bessel_args()});
  check_ir_opsets(ir1("aten::special_i1e(%x)"), {bessel_args()});
}

TEST_CASE("aten::special_modified_bessel_k0", "[special]") {
  check_ir_opsets(ir1("aten::special_modified_bessel_k0(%x)"), {positive_args()});
  check_ir_opsets(ir1("aten::special_modified_bessel_k1(%x)"),
                  {at::cat({span(0.05, 60, 241), at::tensor({0.f, -1.f, 9.99f, 10.01f})})});
  check_ir_opsets(ir1("aten::special_scaled_modified_bessel_k0(%x)"), {positive_args()});
  check_ir_opsets(ir1("aten::special_scaled_modified_bessel_k1(%x)"),
                  {at::cat({span(0.05, 60, 241), at::tensor({0.f, -1.f, 9.99f, 10.01f})})});
}

TEST_CASE("aten::special_spherical_bessel_j0", "[special]") {
  check_ir_opsets(ir1("aten::special_spherical_bessel_j0(%x)"),
                  {at::cat({span(-30, 30, 241), at::tensor({0.f, 0.49f, -0.51f, kInf})})});
}

TEST_CASE("aten::special_airy_ai", "[special]") {
  check_ir_opsets(ir1("aten::special_airy_ai(%x)"),
                  {at::cat({span(-30, 30, 241), at::tensor({0.f, 5.99f, 6.01f, -5.99f, -6.01f})})});
}

// ---- orthogonal polynomials ----

namespace {

// Each polynomial at x in [-1.2, 1.2] (also +-1) for degrees 0..12 and -1, with n a tensor (a
// Loop) and a constant (unrolled).
void check_polynomial(const std::string &op, double lo = -1.2, double hi = 1.2) {
  INFO(op);
  auto x = at::cat({span(lo, hi, 25), at::tensor({-1.f, 1.f, 0.f})}).reshape({1, 28});
  auto n = at::arange(-1, 13, at::kFloat).reshape({14, 1});
  check_ir_opsets(ir2("aten::" + op + "(%x, %z)"), {x, n});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::" + op + "(%x, %5)"), {x});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::" + op + "(%x, %0)"), {x});
  check_ir_opsets(ir2("aten::" + op + "(%x, %z)"),
                  {x, at::arange(0, 8, at::kLong).reshape({8, 1})});
}

} // namespace

TEST_CASE("aten::special_chebyshev_polynomial_t", "[special]") {
  check_polynomial("special_chebyshev_polynomial_t");
}
TEST_CASE("aten::special_shifted_chebyshev_polynomial_t", "[special]") {
  check_polynomial("special_shifted_chebyshev_polynomial_t", -0.1, 1.1);
}
TEST_CASE("aten::special_chebyshev_polynomial_u", "[special]") {
  check_polynomial("special_chebyshev_polynomial_u");
}
TEST_CASE("aten::special_shifted_chebyshev_polynomial_u", "[special]") {
  check_polynomial("special_shifted_chebyshev_polynomial_u", -0.1, 1.1);
}
TEST_CASE("aten::special_chebyshev_polynomial_v", "[special]") {
  check_polynomial("special_chebyshev_polynomial_v");
}
TEST_CASE("aten::special_shifted_chebyshev_polynomial_v", "[special]") {
  check_polynomial("special_shifted_chebyshev_polynomial_v", -0.1, 1.1);
}
TEST_CASE("aten::special_chebyshev_polynomial_w", "[special]") {
  check_polynomial("special_chebyshev_polynomial_w");
}
TEST_CASE("aten::special_shifted_chebyshev_polynomial_w", "[special]") {
  check_polynomial("special_shifted_chebyshev_polynomial_w", -0.1, 1.1);
}
TEST_CASE("aten::special_hermite_polynomial_h", "[special]") {
  check_polynomial("special_hermite_polynomial_h", -3, 3);
}
TEST_CASE("aten::special_hermite_polynomial_he", "[special]") {
  check_polynomial("special_hermite_polynomial_he", -3, 3);
}
TEST_CASE("aten::special_laguerre_polynomial_l", "[special]") {
  check_polynomial("special_laguerre_polynomial_l", -2, 10);
}
TEST_CASE("aten::special_legendre_polynomial_p", "[special]") {
  check_polynomial("special_legendre_polynomial_p");
  // A large constant degree runs the Loop instead of unrolling.
  check_ir_opsets(ir1("aten::special_legendre_polynomial_p(%x, %n)",
                      "  %n : int = prim::Constant[value=70]()\n"),
                  {span(-1, 1, 41)});
}

TEST_CASE("aten::igamma", "[special]") {
  auto a = at::cat({span(0.1, 20, 40).repeat({6}), at::tensor({0.f, 0.f, 1.f, -1.f, kInf, 2.f})});
  auto x = at::cat({span(0.01, 30, 240), at::tensor({1.f, 0.f, 0.f, 1.f, 2.f, kInf})});
  check_ir_opsets(ir("%x : Tensor, %z : Tensor", R"IR(
  %a : Tensor = aten::igamma(%x, %z)
  %b : Tensor = aten::igammac(%x, %z)
  %c : Tensor = aten::special_gammainc(%x, %z)
  %y : Tensor = aten::special_gammaincc(%x, %z))IR",
                     "%a, %b, %c, %y"),
                  {a, x});
  check_ir_opsets(ir("%x0 : Tensor, %z : Tensor", R"IR(
  %x : Tensor = aten::mul(%x0, %1)
  %a : Tensor = aten::igamma_(%x, %z)
  %w : Tensor = aten::mul(%x0, %1)
  %y : Tensor = aten::igammac_(%w, %z))IR",
                     "%a, %y"),
                  {span(0.5, 10, 20), span(0.1, 15, 20)});
}
