// Ops that reuse another op's converter (unsafe_/sym_ spellings, native_* forms, detach).
#include "harness.h"
#include "ir_text.h"

using namespace t2o_test;

TEST_CASE("aten::native_batch_norm", "[aliases]") {
  auto r = check_ir_opsets(R"IR(
graph(%x : Tensor, %w : Tensor, %b : Tensor, %rm : Tensor, %rv : Tensor):
  %false : bool = prim::Constant[value=0]()
  %mom : float = prim::Constant[value=0.1]()
  %eps : float = prim::Constant[value=1e-05]()
  %y : Tensor, %m : Tensor, %s : Tensor = aten::native_batch_norm(%x, %w, %b, %rm, %rv, %false, %mom, %eps)
  return (%y, %m, %s))IR",
                           {randn({2, 3, 4, 4}, 1), randn({3}, 2), randn({3}, 3), randn({3}, 4),
                            randn({3}, 5).abs() + 0.5});
  CHECK(r.count("BatchNormalization") == 1);
}

TEST_CASE("aten::native_dropout", "[aliases]") {
  check_ir_opsets(R"IR(
graph(%x : Tensor):
  %p : float = prim::Constant[value=0.5]()
  %false : bool = prim::Constant[value=0]()
  %y : Tensor, %mask : Tensor = aten::native_dropout(%x, %p, %false)
  return (%y, %mask))IR",
                  {randn({2, 3}, 1)});
}

TEST_CASE("aten::unsafe_split", "[aliases]") {
  auto r = check_ir_opsets(R"IR(
graph(%x : Tensor):
  %two : int = prim::Constant[value=2]()
  %one : int = prim::Constant[value=1]()
  %parts : Tensor[] = aten::unsafe_split(%x, %two, %one)
  %a : Tensor, %b : Tensor = prim::ListUnpack(%parts)
  return (%a, %b))IR",
                           {randn({2, 4}, 1)});
  CHECK(r.count("Split") == 1);
}

TEST_CASE("aten::unsafe_split_with_sizes", "[aliases]") {
  check_ir_opsets(R"IR(
graph(%x : Tensor):
  %one : int = prim::Constant[value=1]()
  %three : int = prim::Constant[value=3]()
  %sizes : int[] = prim::ListConstruct(%one, %three)
  %parts : Tensor[] = aten::unsafe_split_with_sizes(%x, %sizes, %one)
  %a : Tensor, %b : Tensor = prim::ListUnpack(%parts)
  return (%a, %b))IR",
                  {randn({2, 4}, 1)});
}

TEST_CASE("aten::unsafe_chunk", "[aliases]") {
  check_ir_opsets(R"IR(
graph(%x : Tensor):
  %two : int = prim::Constant[value=2]()
  %one : int = prim::Constant[value=1]()
  %parts : Tensor[] = aten::unsafe_chunk(%x, %two, %one)
  %a : Tensor, %b : Tensor = prim::ListUnpack(%parts)
  return (%a, %b))IR",
                  {randn({2, 4}, 1)});
}

TEST_CASE("aten::_local_scalar_dense", "[aliases]") {
  check_ir_opsets(R"IR(
graph(%x : Tensor, %t : Tensor):
  %s : Scalar = aten::_local_scalar_dense(%t)
  %y : Tensor = aten::mul(%x, %s)
  return (%y))IR",
                  {randn({2, 3}, 1), randn({}, 2)});
}

TEST_CASE("aten::detach", "[aliases]") {
  auto r = check_ir_opsets(R"IR(
graph(%x : Tensor):
  %d : Tensor = aten::detach(%x)
  %y : Tensor = aten::relu(%d)
  return (%y))IR",
                           {randn({2, 3}, 1)});
  CHECK(r.count("Relu") == 1);
}

TEST_CASE("aten::is_nonzero", "[aliases]") {
  for (double v : {0.0, 2.5}) {
    check_ir_opsets(R"IR(
graph(%t : Tensor):
  %b : bool = aten::is_nonzero(%t)
  return (%b))IR",
                    {at::full({1}, v)});
  }
}

TEST_CASE("aten::sym_size", "[aliases]") {
  auto ex = randn({2, 3}, 1);
  auto alt = randn({5, 3}, 2);
  check_ir_dynamic(R"IR(
graph(%x : Tensor):
  %zero : int = prim::Constant[value=0]()
  %n : int = aten::sym_size(%x, %zero)
  %y : Tensor = aten::mul(%x, %n)
  return (%y))IR",
                   {ex}, {alt}, 13);
}

// ---- NumPy and torch.special names, in-place spellings (issue 28) ----------------------------

namespace {

// graph(%x, %z): %y = `call` on %x, %z and %c, a clone of %x (in-place ops must not write the
// graph input); %h is 0.5.
std::string call_ir(const std::string &call) {
  return "graph(%x : Tensor, %z : Tensor):\n  %none : NoneType = prim::Constant()\n"
         "  %h : float = prim::Constant[value=0.5]()\n"
         "  %c : Tensor = aten::clone(%x, %none)\n  %y : Tensor = " +
         call + "\n  return (%y)";
}

// Values in (-0.9, 0.9) (arcsin, arccos, arctanh), in (1.1, 3.5) (arccosh), or N(0, 2) with a 0.
at::Tensor sample_of(int domain, uint64_t seed) {
  if (domain == 0)
    return at::tanh(randn({3, 4}, seed)) * 0.9;
  if (domain == 1)
    return at::sigmoid(randn({3, 4}, seed)) * 2.4 + 1.1;
  auto x = randn({3, 4}, seed) * 2;
  x.index_put_({0, 0}, 0.f); // sgn(0) = 0, fix(0) = 0
  return x;
}

struct UnaryCase {
  const char *call;
  int domain; // sample_of
};

const UnaryCase kUnaryAliases[] = {
    {"aten::absolute(%x)", 2},  {"aten::absolute_(%c)", 2}, {"aten::negative(%x)", 2},
    {"aten::negative_(%c)", 2}, {"aten::positive(%x)", 2},  {"aten::sgn(%x)", 2},
    {"aten::sgn_(%c)", 2},      {"aten::fix(%x)", 2},       {"aten::fix_(%c)", 2},
    {"aten::arccos(%x)", 0},    {"aten::arccos_(%c)", 0},   {"aten::arccosh(%x)", 1},
    {"aten::arccosh_(%c)", 1},  {"aten::arcsin(%x)", 0},    {"aten::arcsin_(%c)", 0},
    {"aten::arcsinh(%x)", 2},   {"aten::arcsinh_(%c)", 2},  {"aten::arctan(%x)", 2},
    {"aten::arctan_(%c)", 2},   {"aten::arctanh(%x)", 0},   {"aten::arctanh_(%c)", 0}};

} // namespace

TEST_CASE("aten::absolute", "[aliases]") {
  for (const UnaryCase &k : kUnaryAliases) {
    DYNAMIC_SECTION(k.call) {
      check_ir_opsets(call_ir(k.call), {sample_of(k.domain, 3), sample_of(k.domain, 4)});
    }
  }
  SECTION("integers") {
    for (const char *call : {"aten::absolute(%x)", "aten::negative(%x)", "aten::sgn(%x)"}) {
      CAPTURE(call);
      check_ir_opsets(call_ir(call), {ints({3, 4}), ints({3, 4})});
    }
  }
}

TEST_CASE("aten::arctan2_", "[aliases]") {
  auto y = randn({3, 4}, 1), x = randn({3, 4}, 2);
  x.index_put_({0, 0}, 0.f);
  x.index_put_({1, 0}, -0.5f);
  check_ir_opsets(call_ir("aten::arctan2_(%c, %z)"), {y, x});
}

TEST_CASE("aten::greater_", "[aliases]") {
  auto x = randn({3, 4}, 1), z = randn({3, 4}, 2);
  z.index_put_({0, 0}, x.index({0, 0}).item<float>()); // a tie
  x.index_put_({1, 1}, 0.5f);                          // a tie with the Scalar 0.5
  for (const char *call :
       {"aten::greater_(%c, %z)", "aten::greater_equal_(%c, %z)", "aten::less_(%c, %z)",
        "aten::less_equal_(%c, %z)", "aten::not_equal_(%c, %z)", "aten::greater_(%c, %h)",
        "aten::greater_equal_(%c, %h)", "aten::less_(%c, %h)", "aten::less_equal_(%c, %h)",
        "aten::not_equal_(%c, %h)"}) {
    DYNAMIC_SECTION(call) {
      check_ir_opsets(call_ir(call), {x, z});
    }
  }
}

TEST_CASE("aten::special_expit", "[aliases]") {
  auto x = randn({3, 4}, 5) * 3;
  check_ir_opsets(call_ir("aten::special_expit(%x)"), {x, x});
  check_ir_opsets(call_ir("aten::special_exp2(%x)"), {x, x});
  check_ir_opsets(call_ir("aten::special_log1p(%x)"), {x.abs() - 0.5, x});
}

TEST_CASE("aten::special_logit", "[aliases]") {
  auto p = at::sigmoid(randn({3, 4}, 6) * 2);
  p.index_put_({0, 0}, 0.f);
  check_ir_opsets(call_ir("aten::special_logit(%x, %none)"), {at::sigmoid(randn({3, 4}, 6)), p});
  SECTION("eps clamps 0 and 1") {
    check_ir_opsets(ir("%x : Tensor", "  %eps : float = prim::Constant[value=0.01]()\n"
                                      "  %y : Tensor = aten::special_logit(%x, %eps)"),
                    {p});
  }
}

TEST_CASE("aten::special_logsumexp", "[aliases]") {
  auto x = randn({2, 3, 4}, 7) * 4;
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::special_logsumexp(%x, %d1, %false)"),
                  {x});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::special_logsumexp(%x, %d02, %true)"),
                  {x});
}

TEST_CASE("aten::special_round", "[aliases]") {
  auto x = at::tensor({-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 1.2345f, -7.891f, 123.456f});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::special_round(%x, %0)"), {x});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::special_round(%x, %2)"), {x});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::special_round(%x, %m1)"), {x});
}

TEST_CASE("aten::swapaxes", "[aliases]") {
  auto x = randn({2, 3, 4}, 8);
  for (const char *call : {"aten::swapaxes(%x, %0, %m1)", "aten::swapdims(%x, %1, %2)"}) {
    DYNAMIC_SECTION(call) {
      check_ir_opsets(ir("%x : Tensor", std::string("  %y : Tensor = ") + call), {x});
    }
  }
  for (const char *call : {"aten::swapaxes_(%c, %0, %m1)", "aten::swapdims_(%c, %1, %2)"}) {
    DYNAMIC_SECTION(call) {
      check_ir_opsets(ir("%x : Tensor", std::string("  %c : Tensor = aten::clone(%x, %none)\n"
                                                    "  %y : Tensor = ") +
                                            call),
                      {x});
    }
  }
}

TEST_CASE("aten::adjoint", "[aliases]") {
  auto x = randn({2, 3, 4}, 9);
  auto r = check_ir_opsets(call_ir("aten::adjoint(%x)"), {x, x});
  CHECK(r.count("Transpose") == 1);
  check_ir_opsets(call_ir("aten::matrix_H(%x)"), {randn({3, 4}, 10), x}); // 2-D only
}

TEST_CASE("aten::linalg_diagonal", "[aliases]") {
  auto x = randn({2, 4, 5}, 10);
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::linalg_diagonal(%x, %0, %m2, %m1)"),
                  {x});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::linalg_diagonal(%x, %1, %0, %2)"), {x});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::linalg_diagonal(%x, %m1, %m2, %m1)"),
                  {x});
}

TEST_CASE("aten::ravel", "[aliases]") {
  check_ir_opsets(call_ir("aten::ravel(%x)"), {randn({2, 3, 4}, 11), randn({1}, 1)});
  check_ir_opsets(call_ir("aten::ravel(%x)"), {randn({}, 11), randn({1}, 1)});
}

TEST_CASE("aten::fliplr", "[aliases]") {
  auto x = randn({3, 4, 2}, 12);
  check_ir_opsets(call_ir("aten::fliplr(%x)"), {x, x});
  check_ir_opsets(call_ir("aten::flipud(%x)"), {x, x});
  check_ir_opsets(call_ir("aten::flipud(%x)"), {randn({5}, 13), x});
}

TEST_CASE("aten::msort", "[aliases]") {
  auto x = at::tensor({3.f, -1.f, 2.f, -1.f, 0.f, 3.f, 7.f, -4.f}).reshape({4, 2}); // ties
  check_ir_opsets(call_ir("aten::msort(%x)"), {x, x});
  check_ir_opsets(call_ir("aten::msort(%x)"), {randn({6, 3, 2}, 14), x});
}

TEST_CASE("aten::tril_", "[aliases]") {
  auto x = randn({3, 4, 5}, 15);
  for (const char *call : {"aten::tril_(%c, %k)", "aten::triu_(%c, %k)", "aten::tril_(%c, %mk)",
                           "aten::triu_(%c, %mk)"}) {
    DYNAMIC_SECTION(call) {
      std::string g = call_ir(call);
      g.insert(g.find("  %c"), "  %k : int = prim::Constant[value=1]()\n"
                               "  %mk : int = prim::Constant[value=-2]()\n");
      check_ir_opsets(g, {x, x});
    }
  }
}

TEST_CASE("aten::as_strided_", "[aliases]") {
  // A [3, 2] window of a contiguous [4, 4] clone, stepping 4 then 1 from position 1.
  check_ir_opsets(ir("%x : Tensor", "  %c : Tensor = aten::clone(%x, %none)\n"
                                    "  %s : int[] = prim::ListConstruct(%3, %2)\n"
                                    "  %four : int = prim::Constant[value=4]()\n"
                                    "  %st : int[] = prim::ListConstruct(%four, %1)\n"
                                    "  %y : Tensor = aten::as_strided_(%c, %s, %st, %1)"),
                  {randn({4, 4}, 16)});
}
