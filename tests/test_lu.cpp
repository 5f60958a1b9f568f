#include "harness.h"

#include <catch2/catch.hpp>

using namespace t2o_test;

namespace {

std::string bconst(const std::string &name, bool v) {
  return "  %" + name + " : bool = prim::Constant[value=" + (v ? "1" : "0") + "]()\n";
}

// graph(<inputs>) -> <outs> = call, every output returned.
std::string ir(const std::string &inputs, const std::string &outs, const std::string &call,
               const std::string &consts = "") {
  std::string names;
  for (size_t i = 0; i < outs.size(); ++i)
    if (outs[i] == '%') {
      size_t e = outs.find(' ', i);
      names += (names.empty() ? "" : ", ") + outs.substr(i, e - i);
    }
  return "graph(" + inputs + "):\n" + consts + "  " + outs + " = " + call + "\n  return (" + names +
         ")";
}

at::Tensor wellcond(std::vector<int64_t> shape, uint64_t seed) {
  return randn(shape, seed) + shape.back() * at::eye(shape.back());
}

// A matrix whose LU needs row swaps: a random one (no diagonal dominance).
at::Tensor pivoting(std::vector<int64_t> shape, uint64_t seed) {
  return randn(shape, seed) * 2;
}

} // namespace

TEST_CASE("aten::slogdet", "[lu]") {
  auto text = ir("%x : Tensor", "%s : Tensor, %l : Tensor", "aten::slogdet(%x)");
  check_ir_opsets(text, {pivoting({4, 4}, 1)});
  check_ir_opsets(text, {pivoting({3, 3, 3}, 2)});
  auto neg = wellcond({3, 3}, 3);
  neg.index_put_({0}, -neg[0]); // negative determinant
  check_ir_opsets(text, {neg});
}

TEST_CASE("aten::linalg_slogdet", "[lu]") {
  check_ir_opsets(ir("%x : Tensor", "%s : Tensor, %l : Tensor", "aten::linalg_slogdet(%x)"),
                  {pivoting({2, 5, 5}, 4)});
}

TEST_CASE("aten::linalg_lu_factor", "[lu]") {
  auto text = ir("%x : Tensor", "%lu : Tensor, %p : Tensor", "aten::linalg_lu_factor(%x, %t)",
                 bconst("t", true));
  check_ir_opsets(text, {pivoting({4, 4}, 5)});
  check_ir_opsets(text, {pivoting({2, 3, 3}, 6)});
}

TEST_CASE("aten::linalg_lu_factor_ex", "[lu]") {
  check_ir_opsets(ir("%x : Tensor", "%lu : Tensor, %p : Tensor, %i : Tensor",
                     "aten::linalg_lu_factor_ex(%x, %t, %f)",
                     bconst("t", true) + bconst("f", false)),
                  {pivoting({2, 4, 4}, 7)});
}

TEST_CASE("aten::linalg_lu", "[lu]") {
  auto text = ir("%x : Tensor", "%P : Tensor, %L : Tensor, %U : Tensor", "aten::linalg_lu(%x, %t)",
                 bconst("t", true));
  check_ir_opsets(text, {pivoting({4, 4}, 8)});
  check_ir_opsets(text, {pivoting({3, 5, 5}, 9)});
}

TEST_CASE("aten::lu_unpack", "[lu]") {
  auto a = pivoting({2, 4, 4}, 10);
  auto [lu, piv] = at::linalg_lu_factor(a);
  auto text = ir("%lu : Tensor, %piv : Tensor", "%P : Tensor, %L : Tensor, %U : Tensor",
                 "aten::lu_unpack(%lu, %piv, %d, %p)", bconst("d", true) + bconst("p", true));
  check_ir_opsets(text, {lu, piv});
}

TEST_CASE("aten::lu_solve", "[lu]") {
  auto [lu, piv] = at::linalg_lu_factor(pivoting({2, 4, 4}, 11));
  check_ir_opsets(ir("%b : Tensor, %lu : Tensor, %piv : Tensor", "%y : Tensor",
                     "aten::lu_solve(%b, %lu, %piv)"),
                  {randn({2, 4, 3}, 12), lu, piv});
}

TEST_CASE("aten::linalg_lu_solve", "[lu]") {
  auto [lu, piv] = at::linalg_lu_factor(pivoting({2, 4, 4}, 13));
  for (bool left : {true, false})
    for (bool adjoint : {false, true})
      DYNAMIC_SECTION("left " << left << " adjoint " << adjoint) {
        auto rhs = left ? randn({2, 4, 3}, 14) : randn({2, 3, 4}, 14);
        check_ir_opsets(ir("%lu : Tensor, %piv : Tensor, %b : Tensor", "%y : Tensor",
                           "aten::linalg_lu_solve(%lu, %piv, %b, %l, %a)",
                           bconst("l", left) + bconst("a", adjoint)),
                        {lu, piv, rhs});
      }
}

TEST_CASE("aten::linalg_householder_product", "[lu]") {
  auto [qr, tau] = at::geqrf(randn({5, 3}, 15));
  auto text =
      ir("%a : Tensor, %t : Tensor", "%y : Tensor", "aten::linalg_householder_product(%a, %t)");
  check_ir_opsets(text, {qr, tau});
  auto [qr2, tau2] = at::geqrf(randn({2, 4, 4}, 16));
  check_ir_opsets(text, {qr2, tau2});
  check_ir_opsets(text, {qr2, tau2.narrow(-1, 0, 2)}); // fewer reflectors than columns
}

TEST_CASE("aten::orgqr", "[lu]") {
  auto [qr, tau] = at::geqrf(randn({2, 5, 3}, 17));
  check_ir_opsets(ir("%a : Tensor, %t : Tensor", "%y : Tensor", "aten::orgqr(%a, %t)"), {qr, tau});
  auto [q64, t64] = at::geqrf(randn({4, 4}, 20).to(at::kDouble));
  check_ir_opsets(ir("%a : Tensor, %t : Tensor", "%y : Tensor", "aten::orgqr(%a, %t)"), {q64, t64});
}

TEST_CASE("aten::ormqr", "[lu]") {
  auto [qr, tau] = at::geqrf(randn({5, 3}, 18));
  for (bool left : {true, false})
    for (bool trans : {false, true})
      DYNAMIC_SECTION("left " << left << " transpose " << trans) {
        auto other = left ? randn({5, 2}, 19) : randn({4, 5}, 19);
        auto [q64, t64] = at::geqrf(randn({5, 3}, 21).to(at::kDouble));
        check_ir_opsets(ir("%a : Tensor, %t : Tensor, %c : Tensor", "%y : Tensor",
                           "aten::ormqr(%a, %t, %c, %l, %tr)",
                           bconst("l", left) + bconst("tr", trans)),
                        {qr, tau, other});
        check_ir_opsets(ir("%a : Tensor, %t : Tensor, %c : Tensor", "%y : Tensor",
                           "aten::ormqr(%a, %t, %c, %l, %tr)",
                           bconst("l", left) + bconst("tr", trans)),
                        {q64, t64, other.to(at::kDouble)});
      }
}
