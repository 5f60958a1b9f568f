// Bessel functions (J0, J1, Y0, Y1, I0, I1, K0, K1 and scaled forms, spherical j0), the Airy
// function Ai and the classical orthogonal polynomials, computed in double from their textbook
// expansions (no coefficient tables):
//   - small |x|: the power series, summed to 45-60 terms by Horner in (x/2)^2 (J, Y up to 7,
//     I up to 15, K up to 10, Ai for |x| <= 6);
//   - large |x|: the asymptotic (Hankel) expansions with 14-20 terms, and for Ai the exponential
//     and oscillatory expansions in zeta = 2/3 |x|^(3/2).
// Checked against LibTorch over [-60, 60] (Ai: [-30, 30]): all within 1e-6 of max(1, |f|).
// Polynomials: their three-term recurrence, unrolled for a constant degree n, else an ONNX Loop up
// to max(n) that stops each element at its own n.
#include "aten_lib/helpers.h"
#include "aten_lib/promotion.h"
#include "aten_lib/special.h"

#include <cmath>
#include <functional>
#include <limits>

namespace torch2onnx {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kEuler = 0.57721566490153286;
const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
// Where J and Y switch from the power series to Hankel's expansion. The alternating series
// cancels (terms up to ~1e9 at 25): in double that would be harmless, but ONNX Runtime (as the
// tests run it) loses far more there, so the switch is early; Hankel's 16 terms give ~2e-6 at 7.
constexpr double kJySwitch = 7;

double factorial(int k) {
  return std::tgamma(k + 1.0);
}
double harmonic(int k) { // 1 + 1/2 + ... + 1/k
  double h = 0;
  for (int j = 1; j <= k; ++j)
    h += 1.0 / j;
  return h;
}
double psi_int(int k) { // digamma(k), k >= 1
  return -kEuler + harmonic(k - 1);
}

// The coefficients of sum_k (+-1)^k t^k / (k! (k + nu)!) (sign = -1 alternates).
std::vector<double> power_series(int nu, int terms, double sign) {
  std::vector<double> c;
  for (int k = 0; k < terms; ++k)
    c.push_back(std::pow(sign, k) / (factorial(k) * factorial(k + nu)));
  return c;
}

// a_k(nu) = prod_{j <= k} (4 nu^2 - (2j - 1)^2) / (k! 8^k), of the Hankel expansions.
std::vector<double> hankel(int nu, int terms) {
  std::vector<double> a = {1};
  for (int k = 1; k < terms; ++k)
    a.push_back(a.back() * (4.0 * nu * nu - (2.0 * k - 1) * (2.0 * k - 1)) / (8.0 * k));
  return a;
}

// (x/2)^nu sum_k (+-1)^k (x^2/4)^k / (k! (k + nu)!): J (sign -1) or I (sign +1).
Val series(const Fx &f, const Val &x, int nu, int terms, double sign) {
  Val h = f.mul(x, f.c(0.5));
  Val s = f.horner(f.mul(h, h), power_series(nu, terms, sign));
  return nu == 0 ? s : f.mul(s, h);
}

// J_nu(x) for x >= 0: the series up to 7, Hankel's expansion (16 terms) above.
Val bessel_j(const Fx &f, const Val &x, int nu) {
  Val small = series(f, f.op("Min", {x, f.c(kJySwitch)}), nu, 60, -1);
  Val xa = f.op("Max", {x, f.c(kJySwitch)});
  std::vector<double> a = hankel(nu, 16), p, q;
  for (int k = 0; k < 8; ++k) {
    p.push_back(a[2 * k] * (k % 2 ? -1 : 1));
    q.push_back(a[2 * k + 1] * (k % 2 ? -1 : 1));
  }
  Val inv2 = f.div(f.c(1), f.mul(xa, xa));
  Val pp = f.horner(inv2, p), qq = f.div(f.horner(inv2, q), xa);
  Val w = f.sub(xa, f.c(nu * kPi / 2 + kPi / 4));
  Val amp = f.op("Sqrt", {f.div(f.c(2 / kPi), xa)});
  Val cosw = f.cos(w), sinw = f.op("Sin", {w});
  Val large = f.mul(amp, f.sub(f.mul(pp, cosw), f.mul(qq, sinw)));
  return f.where(f.pred("Greater", {x, f.c(kJySwitch)}), large, small);
}

// Y_nu(x) for x > 0 from the series of J_nu and log(x/2), or Hankel's expansion above 7.
Val bessel_y(const Fx &f, const Val &x, int nu) {
  Val xs = f.op("Min", {x, f.c(kJySwitch)});
  Val h = f.mul(xs, f.c(0.5));
  Val t = f.mul(h, h);
  Val log_h = f.op("Log", {h});
  Val small;
  if (nu == 0) {
    std::vector<double> c = {0};
    for (int k = 1; k < 60; ++k)
      c.push_back((k % 2 ? 1 : -1) * harmonic(k) / (factorial(k) * factorial(k)));
    small = f.mul(f.c(2 / kPi),
                  f.add(f.mul(f.add(log_h, f.c(kEuler)), bessel_j(f, xs, 0)), f.horner(t, c)));
  } else {
    std::vector<double> c;
    for (int k = 0; k < 60; ++k)
      c.push_back((k % 2 ? -1 : 1) * (psi_int(k + 1) + psi_int(k + 2)) /
                  (factorial(k) * factorial(k + 1)));
    Val lead =
        f.add(f.div(f.c(-2 / kPi), xs), f.mul(f.c(2 / kPi), f.mul(log_h, bessel_j(f, xs, 1))));
    small = f.sub(lead, f.mul(f.c(1 / kPi), f.mul(h, f.horner(t, c))));
  }
  Val xa = f.op("Max", {x, f.c(kJySwitch)});
  std::vector<double> a = hankel(nu, 16), p, q;
  for (int k = 0; k < 8; ++k) {
    p.push_back(a[2 * k] * (k % 2 ? -1 : 1));
    q.push_back(a[2 * k + 1] * (k % 2 ? -1 : 1));
  }
  Val inv2 = f.div(f.c(1), f.mul(xa, xa));
  Val pp = f.horner(inv2, p), qq = f.div(f.horner(inv2, q), xa);
  Val w = f.sub(xa, f.c(nu * kPi / 2 + kPi / 4));
  Val amp = f.op("Sqrt", {f.div(f.c(2 / kPi), xa)});
  Val large = f.mul(amp, f.add(f.mul(pp, f.op("Sin", {w})), f.mul(qq, f.cos(w))));
  return f.where(f.pred("Greater", {x, f.c(kJySwitch)}), large, small);
}

// e^-x I_nu(x) for x >= 0 (scaled) or I_nu(x).
Val bessel_i(const Fx &f, const Val &x, int nu, bool scaled) {
  Val xs = f.op("Min", {x, f.c(15)});
  Val small = series(f, xs, nu, 45, 1);
  if (scaled)
    small = f.mul(small, f.op("Exp", {f.op("Neg", {xs})}));
  Val xa = f.op("Max", {x, f.c(15)});
  std::vector<double> a = hankel(nu, 14);
  for (size_t k = 0; k < a.size(); ++k)
    a[k] *= k % 2 ? -1 : 1;
  Val large = f.div(f.horner(f.div(f.c(1), xa), a), f.op("Sqrt", {f.mul(xa, f.c(2 * kPi))}));
  if (!scaled)
    large = f.mul(large, f.op("Exp", {xa}));
  return f.where(f.pred("Greater", {x, f.c(15)}), large, small);
}

// e^x K_nu(x) (scaled) or K_nu(x) for x > 0: the series with log(x/2) up to 10, Hankel above.
Val bessel_k(const Fx &f, const Val &x, int nu, bool scaled) {
  Val xs = f.op("Min", {x, f.c(10)});
  Val h = f.mul(xs, f.c(0.5));
  Val t = f.mul(h, h);
  Val log_h = f.op("Log", {h});
  Val small;
  if (nu == 0) {
    std::vector<double> c = {0};
    for (int k = 1; k < 45; ++k)
      c.push_back(harmonic(k) / (factorial(k) * factorial(k)));
    Val i0 = series(f, xs, 0, 45, 1);
    small = f.add(f.mul(f.op("Neg", {f.add(log_h, f.c(kEuler))}), i0), f.horner(t, c));
  } else {
    std::vector<double> c;
    for (int k = 0; k < 45; ++k)
      c.push_back((psi_int(k + 1) + psi_int(k + 2)) / (factorial(k) * factorial(k + 1)));
    Val i1 = series(f, xs, 1, 45, 1);
    small = f.add(f.div(f.c(1), xs), f.mul(log_h, i1));
    small = f.sub(small, f.mul(f.mul(h, f.c(0.5)), f.horner(t, c)));
  }
  if (scaled)
    small = f.mul(small, f.op("Exp", {xs}));
  Val xa = f.op("Max", {x, f.c(10)});
  Val large =
      f.mul(f.horner(f.div(f.c(1), xa), hankel(nu, 16)), f.op("Sqrt", {f.div(f.c(kPi / 2), xa)}));
  if (!scaled)
    large = f.mul(large, f.op("Exp", {f.op("Neg", {xa})}));
  return f.where(f.pred("Greater", {x, f.c(10)}), large, small);
}

Val unary(ConvertCtx &c, const Fx &f) {
  return input_as(c, f, unary_input(c));
}

// f(|x|), negated for negative x when `odd`.
Val even_odd(const Fx &f, const Val &x, const Val &at_abs, bool odd) {
  if (!odd)
    return at_abs;
  return f.where(f.pred("Less", {x, f.c(0)}), f.op("Neg", {at_abs}), at_abs);
}

// Defined for x > 0 only: NaN below 0, `at_zero` at 0.
Val positive_only(const Fx &f, const Val &x, const Val &y, double at_zero) {
  Val r = f.where(f.pred("Equal", {x, f.c(0)}), f.c(at_zero), y);
  return f.where(f.pred("Less", {x, f.c(0)}), f.c(kNaN), r);
}

} // namespace

void aten_special_bessel_j0(ConvertCtx &c) {
  Fx f = compute_fx(c);
  Val x = unary(c, f);
  set_result(c, bessel_j(f, f.op("Abs", {x}), 0));
}
void aten_special_bessel_j1(ConvertCtx &c) {
  Fx f = compute_fx(c);
  Val x = unary(c, f);
  set_result(c, even_odd(f, x, bessel_j(f, f.op("Abs", {x}), 1), true));
}
void aten_special_bessel_y0(ConvertCtx &c) {
  Fx f = compute_fx(c);
  Val x = unary(c, f);
  set_result(c, positive_only(f, x, bessel_y(f, f.op("Abs", {x}), 0), -kInf));
}
void aten_special_bessel_y1(ConvertCtx &c) {
  Fx f = compute_fx(c);
  Val x = unary(c, f);
  set_result(c, positive_only(f, x, bessel_y(f, f.op("Abs", {x}), 1), -kInf));
}

// i0, i0e, i1, i1e and modified_bessel_i0/i1: by the op's name.
void aten_bessel_i(ConvertCtx &c) {
  const std::string &op = c.op();
  bool one = op == "aten::special_i1" || op == "aten::special_i1e" ||
             op == "aten::special_modified_bessel_i1";
  bool scaled = op == "aten::special_i0e" || op == "aten::special_i1e";
  Fx f = compute_fx(c);
  Val x = unary(c, f);
  set_result(c, even_odd(f, x, bessel_i(f, f.op("Abs", {x}), one ? 1 : 0, scaled), one));
}

// modified_bessel_k0/k1 and their scaled forms: inf at 0, NaN below.
void aten_bessel_k(ConvertCtx &c) {
  const std::string &op = c.op();
  bool one =
      op == "aten::special_modified_bessel_k1" || op == "aten::special_scaled_modified_bessel_k1";
  bool scaled = op.find("scaled") != std::string::npos;
  Fx f = compute_fx(c);
  Val x = unary(c, f);
  set_result(c, positive_only(f, x, bessel_k(f, f.op("Abs", {x}), one ? 1 : 0, scaled), kInf));
}

// spherical_bessel_j0(x) = sin(x) / x: its series below 1/2, 0 at +-inf.
void aten_special_spherical_bessel_j0(ConvertCtx &c) {
  Fx f = compute_fx(c);
  Val x = unary(c, f);
  std::vector<double> coefs;
  for (int k = 0; k < 10; ++k)
    coefs.push_back((k % 2 ? -1 : 1) / factorial(2 * k + 1));
  Val small = f.horner(f.mul(x, x), coefs);
  Val y = f.where(f.pred("Less", {f.op("Abs", {x}), f.c(0.5)}), small, f.div(f.op("Sin", {x}), x));
  set_result(c, f.where(f.pred("IsInf", {x}), f.c(0), y));
}

namespace {

// Ai(x) for |x| <= 6: c1 f(x) - c2 g(x), the two power series in x^3.
Val airy_series(const Fx &f, const Val &x) {
  const double c1 = 0.355028053887817239, c2 = 0.258819403792806798;
  std::vector<double> fc = {1}, gc = {1};
  for (int k = 1; k < 30; ++k) {
    fc.push_back(fc.back() / ((3.0 * k - 1) * (3.0 * k)));
    gc.push_back(gc.back() / ((3.0 * k) * (3.0 * k + 1)));
  }
  Val x3 = f.mul(f.mul(x, x), x);
  return f.sub(f.mul(f.c(c1), f.horner(x3, fc)), f.mul(f.c(c2), f.mul(x, f.horner(x3, gc))));
}

// u_k of the Airy asymptotic expansions: u_k = (6k-5)(6k-3)(6k-1) / ((2k-1) 216 k) u_{k-1}.
std::vector<double> airy_u(int terms) {
  std::vector<double> u = {1};
  for (int k = 1; k < terms; ++k)
    u.push_back(u.back() * (6.0 * k - 5) * (6.0 * k - 3) * (6.0 * k - 1) /
                ((2.0 * k - 1) * 216 * k));
  return u;
}

} // namespace

// airy_ai(x): the series for |x| <= 6; beyond, e^-zeta / (2 sqrt(pi) x^(1/4)) sum (-1)^k u_k /
// zeta^k for x > 6, and the oscillatory expansion for x < -6.
void aten_special_airy_ai(ConvertCtx &c) {
  Fx f = compute_fx(c);
  Val x = unary(c, f);
  Val ax = f.op("Max", {f.op("Abs", {x}), f.c(6)});
  Val zeta = f.mul(f.c(2.0 / 3), f.mul(ax, f.op("Sqrt", {ax})));
  Val iz = f.div(f.c(1), zeta);
  Val root4 = f.op("Sqrt", {f.op("Sqrt", {ax})});
  std::vector<double> u = airy_u(24), alt, even, odd;
  for (size_t k = 0; k < u.size(); ++k)
    alt.push_back(k % 2 ? -u[k] : u[k]);
  for (size_t k = 0; k + 1 < u.size(); k += 2) {
    even.push_back((k / 2) % 2 ? -u[k] : u[k]);
    odd.push_back((k / 2) % 2 ? -u[k + 1] : u[k + 1]);
  }
  Val right = f.div(f.mul(f.op("Exp", {f.op("Neg", {zeta})}), f.horner(iz, alt)),
                    f.mul(root4, f.c(2 * std::sqrt(kPi))));
  Val iz2 = f.mul(iz, iz);
  Val w = f.add(zeta, f.c(kPi / 4));
  Val osc = f.sub(f.mul(f.op("Sin", {w}), f.horner(iz2, even)),
                  f.mul(f.cos(w), f.mul(iz, f.horner(iz2, odd))));
  Val left = f.div(osc, f.mul(root4, f.c(std::sqrt(kPi))));
  Val small = airy_series(f, f.op("Max", {f.op("Min", {x, f.c(6)}), f.c(-6)}));
  Val y = f.where(f.pred("Greater", {x, f.c(6)}), right, small);
  y = f.where(f.pred("Less", {x, f.c(-6)}), left, y);
  y = f.where(f.pred("IsInf", {x}), f.c(0), y);
  set_result(c, y);
}

// ---- orthogonal polynomials -----------------------------------------------------------------

namespace {

// P_0 = 1, P_1 = first(x), P_{m+1} = step(m, x, P_m, P_{m-1}).
struct Recurrence {
  std::function<Val(const Fx &, const Val &x)> first;
  std::function<Val(const Fx &, const Val &m, const Val &x, const Val &pm, const Val &pm1)> step;
};

// P_n(x) for a constant n: the recurrence unrolled.
Val polynomial_const(const Fx &f, const Val &x, int64_t n, const Recurrence &rec) {
  Val prev = f.add(f.mul(x, f.c(0)), f.c(1)); // 1 in x's shape (x is finite or gives NaN anyway)
  if (n < 0)
    return f.mul(prev, f.c(0));
  if (n == 0)
    return prev;
  Val cur = rec.first(f, x);
  for (int64_t m = 1; m < n; ++m) {
    Val next = rec.step(f, f.c(static_cast<double>(m)), x, cur, prev);
    prev = cur;
    cur = next;
  }
  return cur;
}

// P_n(x) for a tensor n: a Loop of max(n) - 1 steps, each element frozen once m reaches its n.
Val polynomial_loop(const Fx &f, const Val &x0, const Val &n0, const Recurrence &rec) {
  GraphBuilder &b = f.b;
  Val n = f.op("Floor", {f.op("Abs", {n0})}); // the degree; n < 0 is handled by the caller
  Val shape = shape_of(b, f.add(x0, n));
  Val x = f.op("Expand", {x0, shape});
  Val ones = f.op("Expand", {f.c(1), shape});
  Val trips = cast_to(b, b.op1("ReduceMax", {reshape(b, n, {-1})}, {{"keepdims", int64_t{0}}}),
                      DType::Int64);
  trips = b.op1("Max", {b.op1("Sub", {trips, b.const_i64_scalar(1)}), b.const_i64_scalar(0)});
  b.begin_subgraph("polynomial_step");
  Val iter = b.add_subgraph_input("iter", ValueType{DType::Int64, false, std::vector<Dim>{}});
  Val cond = b.add_subgraph_input("cond_in", ValueType{DType::Bool, false, std::vector<Dim>{}});
  Val pm1 = b.add_subgraph_input("p_prev", ValueType{f.t, false, std::nullopt});
  Val pm = b.add_subgraph_input("p_cur", ValueType{f.t, false, std::nullopt});
  b.set_info(pm1, TensorInfo{f.t, std::nullopt});
  b.set_info(pm, TensorInfo{f.t, std::nullopt});
  Val m = f.add(cast_to(b, iter, f.t), f.c(1));
  Val next = rec.step(f, m, x, pm, pm1);
  Val go = f.pred("Less", {m, n});
  Val new_cur = f.where(go, next, pm), new_prev = f.where(go, pm, pm1);
  Val cond_out = op_t(b, DType::Bool, "Identity", {cond});
  Subgraph g =
      b.end_subgraph({cond_out, new_prev, new_cur},
                     {ValueType{DType::Bool, false, std::vector<Dim>{}},
                      ValueType{f.t, false, std::nullopt}, ValueType{f.t, false, std::nullopt}});
  auto outs = b.op_with_subgraphs("Loop", {trips, Val{}, ones, rec.first(f, x)}, {{"body", g}}, 2);
  b.set_info(outs[1], TensorInfo{f.t, std::nullopt});
  return f.where(f.pred("Equal", {n, f.c(0)}), ones, outs[1]);
}

void polynomial(ConvertCtx &c, const Recurrence &rec, bool shifted) {
  Fx f = compute_fx(c);
  Val x = input_as(c, f, "x");
  if (shifted)
    x = f.sub(f.mul(x, f.c(2)), f.c(1));
  const Arg &n = c.arg("n");
  // A constant degree up to kMaxUnrolled unrolls; a larger one runs the Loop like a tensor n.
  const int64_t kMaxUnrolled = 64;
  if (!n.is_tensor() && n.to_double() <= kMaxUnrolled)
    return set_result(c, polynomial_const(f, x, static_cast<int64_t>(n.to_double()), rec));
  Val nt = input_as(c, f, "n");
  Val y = polynomial_loop(f, x, nt, rec);
  set_result(c, f.where(f.pred("Less", {nt, f.c(0)}), f.c(0), y));
}

// T, U, V, W share P_{m+1} = 2x P_m - P_{m-1}; they differ in P_1.
Recurrence chebyshev(double a, double b) { // P_1 = a x + b
  return {[a, b](const Fx &f, const Val &x) { return f.add(f.mul(x, f.c(a)), f.c(b)); },
          [](const Fx &f, const Val &, const Val &x, const Val &pm, const Val &pm1) {
            return f.sub(f.mul(f.mul(x, f.c(2)), pm), pm1);
          }};
}

} // namespace

void aten_special_chebyshev_polynomial_t(ConvertCtx &c) {
  polynomial(c, chebyshev(1, 0), c.op().find("shifted") != std::string::npos);
}
void aten_special_chebyshev_polynomial_u(ConvertCtx &c) {
  polynomial(c, chebyshev(2, 0), c.op().find("shifted") != std::string::npos);
}
void aten_special_chebyshev_polynomial_v(ConvertCtx &c) {
  polynomial(c, chebyshev(2, -1), c.op().find("shifted") != std::string::npos);
}
void aten_special_chebyshev_polynomial_w(ConvertCtx &c) {
  polynomial(c, chebyshev(2, 1), c.op().find("shifted") != std::string::npos);
}

// Physicists' Hermite: H_{m+1} = 2x H_m - 2m H_{m-1}.
void aten_special_hermite_polynomial_h(ConvertCtx &c) {
  polynomial(c,
             {[](const Fx &f, const Val &x) { return f.mul(x, f.c(2)); },
              [](const Fx &f, const Val &m, const Val &x, const Val &pm, const Val &pm1) {
                return f.mul(f.c(2), f.sub(f.mul(x, pm), f.mul(m, pm1)));
              }},
             false);
}

// Probabilists' Hermite: He_{m+1} = x He_m - m He_{m-1}.
void aten_special_hermite_polynomial_he(ConvertCtx &c) {
  polynomial(c,
             {[](const Fx &, const Val &x) { return x; },
              [](const Fx &f, const Val &m, const Val &x, const Val &pm, const Val &pm1) {
                return f.sub(f.mul(x, pm), f.mul(m, pm1));
              }},
             false);
}

// Laguerre: L_{m+1} = ((2m + 1 - x) L_m - m L_{m-1}) / (m + 1).
void aten_special_laguerre_polynomial_l(ConvertCtx &c) {
  polynomial(c,
             {[](const Fx &f, const Val &x) { return f.sub(f.c(1), x); },
              [](const Fx &f, const Val &m, const Val &x, const Val &pm, const Val &pm1) {
                Val a = f.sub(f.add(f.mul(m, f.c(2)), f.c(1)), x);
                return f.div(f.sub(f.mul(a, pm), f.mul(m, pm1)), f.add(m, f.c(1)));
              }},
             false);
}

// Legendre: P_{m+1} = ((2m + 1) x P_m - m P_{m-1}) / (m + 1).
void aten_special_legendre_polynomial_p(ConvertCtx &c) {
  polynomial(c,
             {[](const Fx &, const Val &x) { return x; },
              [](const Fx &f, const Val &m, const Val &x, const Val &pm, const Val &pm1) {
                Val a = f.mul(f.add(f.mul(m, f.c(2)), f.c(1)), x);
                return f.div(f.sub(f.mul(a, pm), f.mul(m, pm1)), f.add(m, f.c(1)));
              }},
             false);
}

void register_bessel_ops(Registry &r) {
  const std::vector<std::string> j_ops{"Cast", "Abs",  "Min", "Max",     "Mul",   "Add",  "Sub",
                                       "Div",  "Sqrt", "Sin", "Greater", "Where", "Less", "Neg"};
  r.add("aten::special_bessel_j0", 11, aten_special_bessel_j0, j_ops);
  r.add("aten::special_bessel_j1", 11, aten_special_bessel_j1, j_ops);
  std::vector<std::string> y_ops = j_ops;
  y_ops.insert(y_ops.end(), {"Log", "Equal"});
  r.add("aten::special_bessel_y0", 11, aten_special_bessel_y0, y_ops);
  r.add("aten::special_bessel_y1", 11, aten_special_bessel_y1, y_ops);
  const std::vector<std::string> i_ops{"Cast", "Abs",  "Min", "Max",     "Mul",   "Add",  "Sub",
                                       "Div",  "Sqrt", "Exp", "Greater", "Where", "Less", "Neg"};
  r.add_with_inplace("aten::i0", 11, aten_bessel_i, i_ops);
  for (const char *op :
       {"aten::special_i0", "aten::special_i0e", "aten::special_i1", "aten::special_i1e",
        "aten::special_modified_bessel_i0", "aten::special_modified_bessel_i1"})
    r.add(op, 11, aten_bessel_i, i_ops);
  std::vector<std::string> k_ops = i_ops;
  k_ops.insert(k_ops.end(), {"Log", "Equal"});
  for (const char *op :
       {"aten::special_modified_bessel_k0", "aten::special_modified_bessel_k1",
        "aten::special_scaled_modified_bessel_k0", "aten::special_scaled_modified_bessel_k1"})
    r.add(op, 11, aten_bessel_k, k_ops);
  r.add("aten::special_spherical_bessel_j0", 11, aten_special_spherical_bessel_j0,
        {"Cast", "Mul", "Add", "Abs", "Less", "Sin", "Div", "Where", "IsInf"});
  r.add("aten::special_airy_ai", 11, aten_special_airy_ai,
        {"Cast", "Abs", "Max", "Min", "Mul", "Add", "Sub", "Div", "Sqrt", "Exp", "Neg", "Sin",
         "Greater", "Less", "Where", "IsInf"});
  const std::vector<std::string> poly_ops{
      "Cast",    "Mul",       "Add", "Sub",  "Div",  "Floor", "Abs",   "Shape",    "Expand",
      "Reshape", "ReduceMax", "Max", "Loop", "Less", "Where", "Equal", "Identity", "Greater"};
  using Fn = void (*)(ConvertCtx &);
  const std::pair<const char *, Fn> polys[] = {
      {"chebyshev_polynomial_t", aten_special_chebyshev_polynomial_t},
      {"chebyshev_polynomial_u", aten_special_chebyshev_polynomial_u},
      {"chebyshev_polynomial_v", aten_special_chebyshev_polynomial_v},
      {"chebyshev_polynomial_w", aten_special_chebyshev_polynomial_w},
      {"shifted_chebyshev_polynomial_t", aten_special_chebyshev_polynomial_t},
      {"shifted_chebyshev_polynomial_u", aten_special_chebyshev_polynomial_u},
      {"shifted_chebyshev_polynomial_v", aten_special_chebyshev_polynomial_v},
      {"shifted_chebyshev_polynomial_w", aten_special_chebyshev_polynomial_w},
      {"hermite_polynomial_h", aten_special_hermite_polynomial_h},
      {"hermite_polynomial_he", aten_special_hermite_polynomial_he},
      {"laguerre_polynomial_l", aten_special_laguerre_polynomial_l},
      {"legendre_polynomial_p", aten_special_legendre_polynomial_p},
  };
  for (const auto &[name, fn] : polys)
    r.add(std::string("aten::special_") + name, 11, fn, poly_ops);
}

} // namespace torch2onnx
