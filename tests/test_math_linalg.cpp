#include "harness.h"
#include "ir_text.h"

#include <catch2/catch.hpp>

using namespace t2o_test;

namespace {

std::string ir3(const std::string &call, const std::string &consts = "") {
  return "graph(%x : Tensor, %u : Tensor, %v : Tensor):\n" + consts + "  %y : Tensor = " + call +
         "\n  return (%y)";
}

// In-place: the op acts on x * 1 so that the graph input is not modified.
std::string ir3_inplace(const std::string &call, const std::string &consts = "") {
  return "graph(%x0 : Tensor, %u : Tensor, %v : Tensor):\n"
         "  %one_ : int = prim::Constant[value=1]()\n"
         "  %x : Tensor = aten::mul(%x0, %one_)\n" +
         consts + "  %y : Tensor = " + call + "\n  return (%y)";
}

const char *kBetaAlpha = "  %beta : float = prim::Constant[value=0.5]()\n"
                         "  %alpha : int = prim::Constant[value=2]()\n"
                         "  %zero : int = prim::Constant[value=0]()\n";

// Well-conditioned matrices with positive determinants: A A^T + I.
at::Tensor spd(std::vector<int64_t> shape, uint64_t seed) {
  auto a = randn(shape, seed);
  return at::matmul(a, a.transpose(-1, -2)) + at::eye(shape.back());
}

// `%name : float` holding `v` ("inf" too: the IR parser has no inf literal, so it comes from
// aten::Float(str), which the exporter folds).
std::string float_const(const std::string &name, const std::string &v) {
  return "  %" + name + "_s : str = prim::Constant[value=\"" + v + "\"]()\n  %" + name +
         " : float = aten::Float(%" + name + "_s)\n";
}

} // namespace

TEST_CASE("aten::cross", "[math_linalg]") {
  SECTION("explicit dim, broadcast") {
    auto r =
        check_ir_opsets(ir2("aten::cross(%x, %z, %d)", "  %d : int = prim::Constant[value=1]()\n"),
                        {randn({4, 3, 2}, 1), randn({4, 3, 2}, 2)});
    CHECK(r.count("Gather") == 4);
    check_ir_opsets(
        ir2("aten::linalg_cross(%x, %z, %d)", "  %d : int = prim::Constant[value=1]()\n"),
        {randn({4, 3, 2}, 1), randn({1, 3, 2}, 2)});
  }
  SECTION("default dim: the first of size 3") {
    check_ir_opsets(ir2("aten::cross(%x, %z, %n)", "  %n : NoneType = prim::Constant()\n"),
                    {randn({2, 3, 3}, 1), randn({2, 3, 3}, 2)});
  }
  SECTION("linalg_cross, int") {
    check_ir_opsets(
        ir2("aten::linalg_cross(%x, %z, %d)", "  %d : int = prim::Constant[value=-1]()\n"),
        {randn({5, 3}, 3), randn({5, 3}, 4)});
    check_ir_opsets(
        ir2("aten::linalg_cross(%x, %z, %d)", "  %d : int = prim::Constant[value=-1]()\n"),
        {at::randint(-5, 5, {5, 3}, at::kLong), at::randint(-5, 5, {5, 3}, at::kLong)});
  }
}

TEST_CASE("aten::tensordot", "[math_linalg]") {
  auto r = check_ir_opsets(ir2("aten::tensordot(%x, %z, %da, %db)",
                               "  %zero : int = prim::Constant[value=0]()\n"
                               "  %two : int = prim::Constant[value=2]()\n"
                               "  %one : int = prim::Constant[value=1]()\n"
                               "  %da : int[] = prim::ListConstruct(%two, %zero)\n"
                               "  %db : int[] = prim::ListConstruct(%one, %two)\n"),
                           {randn({3, 4, 5}, 5), randn({6, 5, 3}, 6)});
  CHECK(r.count("Einsum") == 1);
  check_ir_opsets(ir2("aten::tensordot(%x, %z, %da, %db)",
                      "  %da : int[] = prim::ListConstruct()\n"
                      "  %db : int[] = prim::ListConstruct()\n"),
                  {randn({2, 3}, 5), randn({4}, 6)});
}

TEST_CASE("aten::cdist", "[math_linalg]") {
  auto a = randn({2, 5, 4}, 7), b = randn({2, 6, 4}, 8);
  for (const char *p : {"2.", "1.", "0.", "3.", "inf"}) {
    DYNAMIC_SECTION("p=" << p) {
      check_ir_opsets(ir2("aten::cdist(%x, %z, %p, %n)",
                          float_const("p", p) + "  %n : NoneType = prim::Constant()\n"),
                      {a, b});
    }
  }
  SECTION("2-d, many rows (LibTorch takes its matmul path)") {
    check_ir_opsets(ir2("aten::cdist(%x, %z, %p, %n)", "  %p : float = prim::Constant[value=2.]()\n"
                                                       "  %n : NoneType = prim::Constant()\n"),
                    {randn({30, 3}, 9), randn({40, 3}, 10)}, 1e-4, 1e-3);
  }
}

TEST_CASE("aten::pairwise_distance", "[math_linalg]") {
  auto consts = [](const char *p, const char *keep) {
    return std::string("  %p : float = prim::Constant[value=") + p + "]()\n" +
           "  %eps : float = prim::Constant[value=1e-6]()\n" +
           "  %k : bool = prim::Constant[value=" + keep + "]()\n";
  };
  check_ir_opsets(ir2("aten::pairwise_distance(%x, %z, %p, %eps, %k)", consts("2.", "0")),
                  {randn({6, 5}, 11), randn({6, 5}, 12)});
  check_ir_opsets(ir2("aten::pairwise_distance(%x, %z, %p, %eps, %k)", consts("1.", "1")),
                  {randn({6, 5}, 11), randn({5}, 12)});
}

TEST_CASE("aten::cosine_similarity", "[math_linalg]") {
  auto consts = "  %d : int = prim::Constant[value=1]()\n"
                "  %eps : float = prim::Constant[value=1e-8]()\n";
  check_ir_opsets(ir2("aten::cosine_similarity(%x, %z, %d, %eps)", consts),
                  {randn({4, 8, 3}, 13), randn({4, 8, 3}, 14)});
  SECTION("broadcast along dim, zero vector") {
    auto x = randn({4, 1, 3}, 13);
    x.index_put_({0}, 0.f);
    check_ir_opsets(ir2("aten::cosine_similarity(%x, %z, %d, %eps)", consts),
                    {x, randn({8, 1}, 14)});
  }
}

TEST_CASE("aten::det", "[math_linalg]") {
  auto x = randn({3, 4, 4}, 15);
  auto r = check_ir_opsets(ir1("aten::det(%x)"), {x});
  CHECK(r.count("Det") == 1);
  check_ir_opsets(ir1("aten::linalg_det(%x)"), {x});
}

TEST_CASE("aten::linalg_det", "[math_linalg]") {
  check_ir_opsets(ir1("aten::linalg_det(%x)"), {randn({5, 5}, 16)});
}

TEST_CASE("aten::logdet", "[math_linalg]") {
  check_ir_opsets(ir1("aten::logdet(%x)"), {spd({2, 4, 4}, 17)});
}

TEST_CASE("aten::linalg_norm", "[math_linalg]") {
  auto x = randn({3, 4, 5}, 18);
  auto n = "  %n : NoneType = prim::Constant()\n";
  SECTION("ord None, dim None: flattened 2-norm") {
    check_ir_opsets(ir1("aten::linalg_norm(%x, %n, %n, %f, %n)",
                        std::string(n) + "  %f : bool = prim::Constant[value=0]()\n"),
                    {x});
  }
  SECTION("vector ords over one dim") {
    for (const char *p : {"3", "1.", "0.", "inf", "-inf", "-1."}) {
      DYNAMIC_SECTION("ord " << p) {
        check_ir_opsets(ir1("aten::linalg_norm(%x, %p, %d, %t, %n)",
                            std::string(n) + float_const("p", p) +
                                "  %one : int = prim::Constant[value=1]()\n"
                                "  %d : int[] = prim::ListConstruct(%one)\n"
                                "  %t : bool = prim::Constant[value=1]()\n"),
                        {x});
      }
    }
  }
  SECTION("matrix ords over two dims") {
    for (const char *p : {"1", "-1", "inf", "-inf"}) {
      DYNAMIC_SECTION("ord " << p) {
        check_ir_opsets(ir1("aten::linalg_norm(%x, %p, %d, %f, %n)",
                            std::string(n) + float_const("p", p) +
                                "  %a : int = prim::Constant[value=0]()\n"
                                "  %b : int = prim::Constant[value=2]()\n"
                                "  %d : int[] = prim::ListConstruct(%a, %b)\n"
                                "  %f : bool = prim::Constant[value=0]()\n"),
                        {x});
      }
    }
  }
  SECTION("ord 'fro' on a matrix") {
    check_ir_opsets(ir1("aten::linalg_norm(%x, %s, %n, %f, %n)",
                        std::string(n) + "  %s : str = prim::Constant[value=\"fro\"]()\n"
                                         "  %f : bool = prim::Constant[value=0]()\n"),
                    {randn({4, 5}, 19)});
  }
  SECTION("'nuc' is rejected") {
    auto err = export_ir_error(ir1("aten::linalg_norm(%x, %s, %n, %f, %n)",
                                   std::string(n) + "  %s : str = prim::Constant[value=\"nuc\"]()\n"
                                                    "  %f : bool = prim::Constant[value=0]()\n"),
                               {randn({4, 5}, 19)});
    CHECK(err.find("nuc") != std::string::npos);
  }
}

TEST_CASE("aten::linalg_matrix_norm", "[math_linalg]") {
  auto x = randn({2, 4, 5}, 20);
  auto dims = "  %a : int = prim::Constant[value=-2]()\n"
              "  %b : int = prim::Constant[value=-1]()\n"
              "  %d : int[] = prim::ListConstruct(%a, %b)\n"
              "  %n : NoneType = prim::Constant()\n";
  check_ir_opsets(ir1("aten::linalg_matrix_norm(%x, %s, %d, %t, %n)",
                      std::string(dims) + "  %s : str = prim::Constant[value=\"fro\"]()\n"
                                          "  %t : bool = prim::Constant[value=1]()\n"),
                  {x});
  check_ir_opsets(ir1("aten::linalg_matrix_norm(%x, %p, %d, %f, %n)",
                      std::string(dims) + "  %p : int = prim::Constant[value=1]()\n"
                                          "  %f : bool = prim::Constant[value=0]()\n"),
                  {x});
}

TEST_CASE("aten::frobenius_norm", "[math_linalg]") {
  auto x = randn({3, 4, 5}, 21);
  check_ir_opsets(ir1("aten::frobenius_norm(%x)"), {x});
  check_ir_opsets(ir1("aten::frobenius_norm(%x, %d, %t)",
                      "  %a : int = prim::Constant[value=0]()\n"
                      "  %b : int = prim::Constant[value=2]()\n"
                      "  %d : int[] = prim::ListConstruct(%a, %b)\n"
                      "  %t : bool = prim::Constant[value=1]()\n"),
                  {x});
}

TEST_CASE("aten::addmv", "[math_linalg]") {
  auto self = randn({4}, 22), m = randn({4, 6}, 23), v = randn({6}, 24);
  auto r = check_ir_opsets(ir3("aten::addmv(%x, %u, %v, %beta, %alpha)", kBetaAlpha), {self, m, v});
  CHECK(r.count("MatMul") == 1);
  self.index_put_({0}, std::numeric_limits<float>::quiet_NaN()); // beta = 0 ignores self
  check_ir_opsets(ir3("aten::addmv(%x, %u, %v, %zero, %alpha)", kBetaAlpha), {self, m, v});
}

TEST_CASE("aten::addr", "[math_linalg]") {
  auto self = randn({4, 6}, 25), a = randn({4}, 26), b = randn({6}, 27);
  check_ir_opsets(ir3("aten::addr(%x, %u, %v, %beta, %alpha)", kBetaAlpha), {self, a, b});
  check_ir_opsets(ir3("aten::addr(%x, %u, %v, %alpha, %alpha)", kBetaAlpha),
                  {at::randint(-4, 4, {4, 6}, at::kLong), at::randint(-4, 4, {4}, at::kLong),
                   at::randint(-4, 4, {6}, at::kLong)});
}

TEST_CASE("aten::addbmm", "[math_linalg]") {
  auto self = randn({3, 5}, 28), a = randn({4, 3, 2}, 29), b = randn({4, 2, 5}, 30);
  check_ir_opsets(ir3("aten::addbmm(%x, %u, %v, %beta, %alpha)", kBetaAlpha), {self, a, b});
  check_ir_opsets(ir3_inplace("aten::addbmm_(%x, %u, %v, %beta, %alpha)", kBetaAlpha),
                  {self, a, b});
}

TEST_CASE("aten::bilinear", "[math_linalg]") {
  auto x1 = randn({2, 3, 4}, 31), x2 = randn({2, 3, 5}, 32), w = randn({6, 4, 5}, 33);
  auto ir = "graph(%x : Tensor, %u : Tensor, %w : Tensor, %b : Tensor):\n"
            "  %y : Tensor = aten::bilinear(%x, %u, %w, %b)\n  return (%y)";
  auto r = check_ir_opsets(ir, {x1, x2, w, randn({6}, 34)});
  CHECK(r.count("Einsum") == 1);
  check_ir_opsets(ir3("aten::bilinear(%x, %u, %v, %n)", "  %n : NoneType = prim::Constant()\n"),
                  {randn({7, 4}, 31), randn({7, 5}, 32), w});
}

TEST_CASE("aten::_weight_norm", "[math_linalg]") {
  auto v = randn({6, 3, 2, 2}, 35);
  check_ir_opsets(ir2("aten::_weight_norm(%x, %z, %d)", "  %d : int = prim::Constant[value=0]()\n"),
                  {v, randn({6, 1, 1, 1}, 36)});
  check_ir_opsets(ir2("aten::_weight_norm(%x, %z, %d)", "  %d : int = prim::Constant[value=2]()\n"),
                  {v, randn({1, 1, 2, 1}, 36)});
  check_ir_opsets(
      ir2("aten::_weight_norm(%x, %z, %d)", "  %d : int = prim::Constant[value=-1]()\n"),
      {v, randn({}, 36)});
}

TEST_CASE("aten::mT", "[math_linalg]") {
  auto r = check_ir_opsets(ir1("aten::mT(%x)"), {randn({2, 3, 4}, 37)});
  CHECK(r.count("Transpose") == 1);
  check_ir_opsets(ir1("aten::mH(%x)"), {randn({3, 4}, 37)});
}

TEST_CASE("aten::mH", "[math_linalg]") {
  check_ir_opsets(ir1("aten::mH(%x)"), {randn({2, 3, 4}, 38)});
}

TEST_CASE("aten::numpy_T", "[math_linalg]") {
  check_ir_opsets(ir1("aten::numpy_T(%x)"), {randn({2, 3, 4}, 39)});
}

TEST_CASE("aten::addmv_", "[math_linalg]") {
  check_ir_opsets(ir3_inplace("aten::addmv_(%x, %u, %v, %beta, %alpha)", kBetaAlpha),
                  {randn({4}, 22), randn({4, 6}, 23), randn({6}, 24)});
}

TEST_CASE("aten::addr_", "[math_linalg]") {
  check_ir_opsets(ir3_inplace("aten::addr_(%x, %u, %v, %beta, %alpha)", kBetaAlpha),
                  {randn({4, 6}, 25), randn({4}, 26), randn({6}, 27)});
}

TEST_CASE("aten::addbmm_", "[math_linalg]") {
  check_ir_opsets(ir3_inplace("aten::addbmm_(%x, %u, %v, %beta, %alpha)", kBetaAlpha),
                  {randn({3, 5}, 28), randn({4, 3, 2}, 29), randn({4, 2, 5}, 30)});
}

TEST_CASE("aten::linalg_cross", "[math_linalg]") {
  check_ir_opsets(
      ir2("aten::linalg_cross(%x, %z, %d)", "  %d : int = prim::Constant[value=-1]()\n"),
      {randn({2, 5, 3}, 3), randn({1, 5, 3}, 4)});
}

// The determinant with LAPACK's LU and pivots, unbatched and batched; a matrix whose first
// column is zero below a small entry (row swaps), and a singular one (a zero pivot).
TEST_CASE("aten::_linalg_det", "[math_linalg]") {
  std::string ir = R"IR(
graph(%x : Tensor):
  %d : Tensor, %lu : Tensor, %piv : Tensor = aten::_linalg_det(%x)
  return (%d, %lu, %piv))IR";
  check_ir_opsets(ir, {randn({4, 4}, 21)});
  check_ir_opsets(ir, {randn({2, 3, 5, 5}, 22)});
  auto swapped = at::tensor({0.1, 2., 3., 0., 1., 5., 4., 0., 6.}, at::kFloat).view({3, 3});
  check_ir_opsets(ir, {swapped});
  auto singular = at::tensor({1., 2., 3., 2., 4., 6., 1., 0., 1.}, at::kFloat).view({3, 3});
  check_ir_opsets(ir, {singular});
  // Only the determinant used: the factorization is still exact and costs no extra output.
  check_ir_opsets(R"IR(
graph(%x : Tensor):
  %d : Tensor, %lu : Tensor, %piv : Tensor = aten::_linalg_det(%x)
  return (%d))IR",
                  {randn({3, 2, 2}, 23)});
}
