#include "harness.h"

#include <catch2/catch.hpp>

using namespace t2o_test;

namespace {

std::string ir2(const std::string &call, const std::string &consts = "") {
  return "graph(%x : Tensor, %z : Tensor):\n  %n : NoneType = prim::Constant()\n" + consts +
         "  %y : Tensor = " + call + "\n  return (%y)";
}

std::string ir1(const std::string &call, const std::string &consts = "") {
  return "graph(%x : Tensor):\n  %n : NoneType = prim::Constant()\n" + consts +
         "  %y : Tensor = " + call + "\n  return (%y)";
}

std::string iconst(const std::string &name, int64_t v) {
  return "  %" + name + " : int = prim::Constant[value=" + std::to_string(v) + "]()\n";
}

} // namespace

TEST_CASE("aten::inner", "[products]") {
  check_ir_opsets(ir2("aten::inner(%x, %z)"), {randn({2, 3, 4}, 1), randn({5, 4}, 2)});
  check_ir_opsets(ir2("aten::inner(%x, %z)"), {randn({4}, 3), randn({4}, 4)});
  check_ir_opsets(ir2("aten::inner(%x, %z)"), {randn({4}, 3), randn({2, 3, 4}, 4)});
  check_ir_opsets(ir2("aten::inner(%x, %z)"), {randn({}, 5), randn({2, 3}, 6)});
  check_ir_opsets(ir2("aten::inner(%x, %z)"), {ints({3, 4}, -5, 5), ints({2, 4}, -5, 5)}); // int64
}

TEST_CASE("aten::vdot", "[products]") {
  check_ir_opsets(ir2("aten::vdot(%x, %z)"), {randn({7}, 7), randn({7}, 8)});
}

TEST_CASE("aten::linalg_matmul", "[products]") {
  check_ir_opsets(ir2("aten::linalg_matmul(%x, %z)"), {randn({2, 3, 4}, 9), randn({4, 5}, 10)});
  check_ir_opsets(ir2("aten::linalg_matmul(%x, %z)"), {randn({4}, 9), randn({3, 4, 2}, 10)});
}

TEST_CASE("aten::kron", "[products]") {
  check_ir_opsets(ir2("aten::kron(%x, %z)"), {randn({2, 3}, 11), randn({4, 5}, 12)});
  check_ir_opsets(ir2("aten::kron(%x, %z)"), {randn({3}, 11), randn({2, 2, 4}, 12)});
  check_ir_opsets(ir2("aten::kron(%x, %z)"), {ints({2, 2}), ints({3}, 0, 5)});
}

TEST_CASE("aten::chain_matmul", "[products]") {
  auto ir = "graph(%a : Tensor, %b : Tensor, %c : Tensor):\n"
            "  %l : Tensor[] = prim::ListConstruct(%a, %b, %c)\n"
            "  %y : Tensor = aten::chain_matmul(%l)\n  return (%y)";
  check_ir_opsets(ir, {randn({3, 4}, 13), randn({4, 6}, 14), randn({6, 2}, 15)});
  auto one = "graph(%a : Tensor):\n  %l : Tensor[] = prim::ListConstruct(%a)\n"
             "  %y : Tensor = aten::chain_matmul(%l)\n  return (%y)";
  check_ir_opsets(one, {randn({3, 4}, 13)});
}

TEST_CASE("aten::linalg_multi_dot", "[products]") {
  auto ir = "graph(%a : Tensor, %b : Tensor, %c : Tensor, %d : Tensor):\n"
            "  %l : Tensor[] = prim::ListConstruct(%a, %b, %c, %d)\n"
            "  %y : Tensor = aten::linalg_multi_dot(%l)\n  return (%y)";
  check_ir_opsets(ir, {randn({5}, 16), randn({5, 3}, 17), randn({3, 6}, 18), randn({6}, 19)});
  check_ir_opsets(ir, {randn({2, 5}, 16), randn({5, 3}, 17), randn({3, 6}, 18), randn({6, 4}, 19)});
}

TEST_CASE("aten::linalg_vecdot", "[products]") {
  check_ir_opsets(ir2("aten::linalg_vecdot(%x, %z, %d)", iconst("d", -1)),
                  {randn({3, 4}, 20), randn({2, 1, 4}, 21)});
  check_ir_opsets(ir2("aten::linalg_vecdot(%x, %z, %d)", iconst("d", 0)),
                  {randn({5, 2}, 22), randn({5, 2}, 23)});
}

TEST_CASE("aten::vander", "[products]") {
  auto x = at::tensor({0.5f, -1.2f, 2.f, 0.f, 1.5f});
  check_ir_opsets(ir1("aten::vander(%x, %n, %inc)", "  %inc : bool = prim::Constant[value=0]()\n"),
                  {x});
  check_ir_opsets(ir1("aten::vander(%x, %N, %inc)",
                      iconst("N", 3) + "  %inc : bool = prim::Constant[value=1]()\n"),
                  {x});
  check_ir_opsets(ir1("aten::vander(%x, %N, %inc)",
                      iconst("N", 4) + "  %inc : bool = prim::Constant[value=0]()\n"),
                  {at::tensor({1, 2, 3, -2}, at::kLong)});
}

TEST_CASE("aten::linalg_vander", "[products]") {
  check_ir_opsets(ir1("aten::linalg_vander(%x, %n)"), {randn({2, 4}, 24)});
  check_ir_opsets(ir1("aten::linalg_vander(%x, %N)", iconst("N", 6)), {randn({3}, 25)});
}
