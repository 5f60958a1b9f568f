#include "aten_lib/converter.h"
#include "harness.h"

#include <catch2/catch.hpp>

using namespace t2o_test;

namespace {

std::string ir1(const std::string &call, const std::string &consts = "") {
  return "graph(%x : Tensor):\n" + consts + "  %y : Tensor = " + call + "\n  return (%y)";
}

std::string ir2(const std::string &call, const std::string &consts = "") {
  return "graph(%x : Tensor, %z : Tensor):\n" + consts + "  %y : Tensor = " + call +
         "\n  return (%y)";
}

// Two outputs: `outs` declares them ("%y : Tensor, %i : Tensor"), both returned.
std::string ir_two(const std::string &inputs, const std::string &call, const std::string &consts) {
  return "graph(" + inputs + "):\n" + consts + "  %y : Tensor, %i : Tensor = " + call +
         "\n  return (%y, %i)";
}

std::string bconst(const std::string &name, bool v) {
  return "  %" + name + " : bool = prim::Constant[value=" + (v ? "1" : "0") + "]()\n";
}

std::string iconst(const std::string &name, int64_t v) {
  return "  %" + name + " : int = prim::Constant[value=" + std::to_string(v) + "]()\n";
}

// Well-conditioned: random + n I.
at::Tensor wellcond(std::vector<int64_t> shape, uint64_t seed) {
  return randn(shape, seed) + shape.back() * at::eye(shape.back());
}

// Symmetric positive definite: A A^T + I.
at::Tensor spd(std::vector<int64_t> shape, uint64_t seed) {
  auto a = randn(shape, seed);
  return at::matmul(a, a.transpose(-1, -2)) + at::eye(shape.back());
}

// Triangular with a dominant diagonal (the other triangle holds values the solve must ignore).
at::Tensor tri(std::vector<int64_t> shape, uint64_t seed, bool upper) {
  auto a = randn(shape, seed);
  auto d = at::eye(shape.back()) * 3 * at::sign(randn({shape.back()}, seed + 100) + 0.1);
  return (upper ? at::triu(a, 1) : at::tril(a, -1)) + d;
}

} // namespace

TEST_CASE("aten::inverse", "[solve]") {
  check_ir_opsets(ir1("aten::inverse(%x)"), {wellcond({3, 3}, 1)});
  check_ir_opsets(ir1("aten::inverse(%x)"), {wellcond({2, 4, 4}, 2)});
  // A zero in the leading position forces a row swap.
  auto p = wellcond({3, 3}, 3);
  p.index_put_({0, 0}, 0.f);
  check_ir_opsets(ir1("aten::inverse(%x)"), {p});
}

TEST_CASE("aten::linalg_inv", "[solve]") {
  check_ir_opsets(ir1("aten::linalg_inv(%x)"), {wellcond({2, 3, 5, 5}, 4)});
  check_ir_opsets(ir1("aten::linalg_inv(%x)"), {wellcond({1, 1}, 4)});
}

TEST_CASE("aten::linalg_inv_ex", "[solve]") {
  check_ir_opsets(ir_two("%x : Tensor", "aten::linalg_inv_ex(%x, %f)", bconst("f", false)),
                  {wellcond({2, 3, 3}, 5)});
}

TEST_CASE("aten::linalg_solve", "[solve]") {
  auto a = wellcond({2, 3, 3}, 6);
  auto text = [](bool left) {
    return ir2("aten::linalg_solve(%x, %z, %left)", bconst("left", left));
  };
  check_ir_opsets(text(true), {a, randn({2, 3, 4}, 7)});
  check_ir_opsets(text(true), {a, randn({3}, 8)});           // vector
  check_ir_opsets(text(true), {a, randn({2, 3}, 9)});        // batch of vectors
  check_ir_opsets(text(true), {a[0], randn({5, 3, 3}, 10)}); // broadcast batch
  // X A = B (LibTorch 1.13 takes no vector B here).
  check_ir_opsets(text(false), {a, randn({2, 4, 3}, 11)});
  check_ir_opsets(text(false), {a[0], randn({5, 2, 3}, 12)});
}

TEST_CASE("aten::linalg_solve_ex", "[solve]") {
  check_ir_opsets(ir_two("%x : Tensor, %z : Tensor", "aten::linalg_solve_ex(%x, %z, %l, %f)",
                         bconst("l", true) + bconst("f", false)),
                  {wellcond({4, 4}, 11), randn({4, 2}, 12)});
}

TEST_CASE("aten::cholesky", "[solve]") {
  for (bool upper : {false, true})
    DYNAMIC_SECTION("upper " << upper) {
      check_ir_opsets(ir1("aten::cholesky(%x, %u)", bconst("u", upper)), {spd({4, 4}, 13)});
      check_ir_opsets(ir1("aten::cholesky(%x, %u)", bconst("u", upper)), {spd({2, 3, 3}, 14)});
    }
}

TEST_CASE("aten::linalg_cholesky", "[solve]") {
  check_ir_opsets(ir1("aten::linalg_cholesky(%x, %u)", bconst("u", false)), {spd({5, 5}, 15)});
  check_ir_opsets(ir1("aten::linalg_cholesky(%x, %u)", bconst("u", true)), {spd({2, 2, 2}, 16)});
}

TEST_CASE("aten::linalg_cholesky_ex", "[solve]") {
  check_ir_opsets(ir_two("%x : Tensor", "aten::linalg_cholesky_ex(%x, %u, %f)",
                         bconst("u", false) + bconst("f", false)),
                  {spd({2, 3, 3}, 17)});
}

TEST_CASE("aten::triangular_solve", "[solve]") {
  for (bool upper : {true, false})
    for (bool trans : {false, true})
      for (bool unit : {false, true})
        DYNAMIC_SECTION("upper " << upper << " transpose " << trans << " unit " << unit) {
          auto text =
              ir_two("%b : Tensor, %a : Tensor", "aten::triangular_solve(%b, %a, %up, %tr, %un)",
                     bconst("up", upper) + bconst("tr", trans) + bconst("un", unit));
          check_ir_opsets(text, {randn({2, 4, 3}, 18), tri({2, 4, 4}, 19, upper)});
          check_ir_opsets(text, {randn({2, 4, 3}, 20), tri({4, 4}, 21, upper)}); // broadcast
        }
}

TEST_CASE("aten::linalg_solve_triangular", "[solve]") {
  for (bool upper : {true, false})
    for (bool left : {true, false})
      DYNAMIC_SECTION("upper " << upper << " left " << left) {
        auto text = ir2("aten::linalg_solve_triangular(%x, %z, %up, %left, %un)",
                        bconst("up", upper) + bconst("left", left) + bconst("un", false));
        auto rhs = left ? randn({2, 3, 5}, 22) : randn({2, 5, 3}, 22);
        check_ir_opsets(text, {tri({2, 3, 3}, 23, upper), rhs});
      }
  check_ir_opsets(ir2("aten::linalg_solve_triangular(%x, %z, %up, %left, %un)",
                      bconst("up", false) + bconst("left", true) + bconst("un", true)),
                  {tri({3, 3}, 24, false), randn({3, 2}, 25)});
}

TEST_CASE("aten::cholesky_solve", "[solve]") {
  for (bool upper : {false, true})
    DYNAMIC_SECTION("upper " << upper) {
      auto l = at::linalg_cholesky(spd({2, 4, 4}, 26), upper);
      check_ir_opsets(ir2("aten::cholesky_solve(%x, %z, %u)", bconst("u", upper)),
                      {randn({2, 4, 3}, 27), l});
      check_ir_opsets(ir2("aten::cholesky_solve(%x, %z, %u)", bconst("u", upper)),
                      {randn({2, 4, 3}, 27), l[0]});
    }
}

TEST_CASE("aten::cholesky_inverse", "[solve]") {
  for (bool upper : {false, true})
    DYNAMIC_SECTION("upper " << upper) {
      auto l = at::linalg_cholesky(spd({4, 4}, 28), upper);
      check_ir_opsets(ir1("aten::cholesky_inverse(%x, %u)", bconst("u", upper)), {l});
    }
}

TEST_CASE("aten::matrix_power", "[solve]") {
  auto a = wellcond({2, 3, 3}, 29) / 3;
  for (int n : {0, 1, 2, 5, -1, -3})
    DYNAMIC_SECTION("n " << n) {
      check_ir_opsets(ir1("aten::matrix_power(%x, %n)", iconst("n", n)), {a});
    }
  SECTION("int64") {
    check_ir_opsets(ir1("aten::matrix_power(%x, %n)", iconst("n", 3)), {ints({3, 3}, -3, 3)});
  }
}

TEST_CASE("aten::linalg_matrix_power", "[solve]") {
  check_ir_opsets(ir1("aten::linalg_matrix_power(%x, %n)", iconst("n", 4)),
                  {wellcond({4, 4}, 30) / 4});
}

TEST_CASE("aten::matrix_exp", "[solve]") {
  check_ir_opsets(ir1("aten::matrix_exp(%x)"), {randn({3, 3}, 31)});
  check_ir_opsets(ir1("aten::matrix_exp(%x)"), {randn({2, 4, 4}, 32) * 0.1});
  check_ir_opsets(ir1("aten::matrix_exp(%x)"), {randn({4, 4}, 33) * 2}); // several squarings
  check_ir_opsets(ir1("aten::matrix_exp(%x)"), {at::zeros({2, 2})});
}

TEST_CASE("aten::linalg_matrix_exp", "[solve]") {
  check_ir_opsets(ir1("aten::linalg_matrix_exp(%x)"), {randn({2, 3, 3}, 34)});
}

TEST_CASE("dynamic batch dims", "[solve]") {
  check_ir_dynamic(ir1("aten::inverse(%x)"), {wellcond({2, 3, 3}, 35)}, {wellcond({5, 3, 3}, 36)});
  check_ir_dynamic(ir1("aten::linalg_cholesky(%x, %u)", bconst("u", false)), {spd({2, 3, 3}, 44)},
                   {spd({4, 3, 3}, 45)});
  check_ir_dynamic(ir2("aten::linalg_solve(%x, %z, %left)", bconst("left", true)),
                   {wellcond({2, 3, 3}, 46), randn({2, 3, 2}, 47)},
                   {wellcond({6, 3, 3}, 48), randn({6, 3, 2}, 49)});
}

TEST_CASE("float64 matrices", "[solve]") {
  auto a = wellcond({2, 4, 4}, 50).to(at::kDouble);
  check_ir_opsets(ir1("aten::inverse(%x)"), {a});
  check_ir_opsets(ir1("aten::linalg_cholesky(%x, %u)", bconst("u", false)),
                  {spd({4, 4}, 51).to(at::kDouble)});
  check_ir_opsets(ir1("aten::matrix_exp(%x)"), {randn({3, 3}, 52).to(at::kDouble) * 3});
  check_ir_opsets(ir_two("%b : Tensor, %a : Tensor",
                         "aten::triangular_solve(%b, %a, %up, %tr, %un)",
                         bconst("up", true) + bconst("tr", true) + bconst("un", false)),
                  {randn({4, 2}, 53).to(at::kDouble), tri({4, 4}, 54, true).to(at::kDouble)});
  check_ir_opsets(ir2("aten::linalg_solve(%x, %z, %left)", bconst("left", false)),
                  {a, randn({2, 3, 4}, 55).to(at::kDouble)});
}

TEST_CASE("a dynamic matrix size is refused, naming the op", "[solve]") {
  using namespace torch2onnx;
  GraphBuilder b(17);
  TensorInfo info{DType::Float, std::vector<Dim>{Dim::named("n", 3), Dim::named("n", 3)}};
  Val x = b.add_input("x", info);
  ConvertCtx c(b, "aten::inverse", {Arg::of_tensor(x)}, {info}, {"self"});
  c.set_registry(&Registry::global());
  try {
    Registry::global().find("aten::inverse", 17)->fn(c);
    FAIL("no error");
  } catch (const Error &e) {
    CHECK(contains(e.what(), "aten::inverse needs a static matrix size"));
    CHECK(contains(e.hint(), "fixed matrix sizes"));
  }
}

TEST_CASE("aten::linalg_tensorinv", "[solve]") {
  auto a = wellcond({6, 6}, 37).reshape({2, 3, 6});
  check_ir_opsets(ir1("aten::linalg_tensorinv(%x, %i)", iconst("i", 2)), {a});
  check_ir_opsets(ir1("aten::linalg_tensorinv(%x, %i)", iconst("i", 1)),
                  {wellcond({4, 4}, 38).reshape({4, 2, 2})});
}

TEST_CASE("aten::linalg_tensorsolve", "[solve]") {
  auto a = wellcond({6, 6}, 39).reshape({2, 3, 6});
  auto rhs = randn({2, 3}, 40);
  check_ir_opsets(
      ir2("aten::linalg_tensorsolve(%x, %z, %n)", "  %n : NoneType = prim::Constant()\n"),
      {a, rhs});
  auto text = ir2("aten::linalg_tensorsolve(%x, %z, %d)",
                  iconst("zero", 0) + "  %d : int[] = prim::ListConstruct(%zero)\n");
  check_ir_opsets(text, {wellcond({6, 6}, 41).reshape({2, 3, 6}).permute({2, 0, 1}).contiguous(),
                         randn({2, 3}, 42)});
}

TEST_CASE("aten::linalg_cond", "[solve]") {
  auto a = wellcond({2, 4, 4}, 43);
  for (const char *p : {"1", "-1"})
    DYNAMIC_SECTION("p " << p) {
      check_ir_opsets(ir1("aten::linalg_cond(%x, %p)",
                          std::string("  %p : int = prim::Constant[value=") + p + "]()\n"),
                      {a});
    }
  SECTION("p inf") {
    check_ir_opsets(ir1("aten::linalg_cond(%x, %p)",
                        "  %s : str = prim::Constant[value=\"inf\"]()\n"
                        "  %p : float = aten::Float(%s)\n"),
                    {a});
  }
  SECTION("p 'fro'") {
    check_ir_opsets(
        ir1("aten::linalg_cond(%x, %p)", "  %p : str = prim::Constant[value=\"fro\"]()\n"), {a});
  }
  SECTION("p None needs an SVD") {
    auto err = export_ir_error(
        ir1("aten::linalg_cond(%x, %p)", "  %p : NoneType = prim::Constant()\n"), {a});
    CHECK(contains(err, "needs singular values"));
  }
}
