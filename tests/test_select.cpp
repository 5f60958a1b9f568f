#include "harness.h"
#include "ir_text.h"

#include <catch2/catch.hpp>

using namespace t2o_test;

TEST_CASE("aten::diagonal", "[select]") {
  auto x = randn({3, 4, 5});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::diagonal(%x, %0, %0, %1)"), {x});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::diagonal(%x, %1, %m1, %0)"), {x});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::diagonal(%x, %m2, %1, %2)"), {x});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::diagonal_copy(%x, %1, %1, %2)"), {x});
}

TEST_CASE("aten::diagonal over dims known only at run time", "[select]") {
  // A [batch, batch] similarity matrix's diagonal (contrastive scores), offsets either way.
  for (const char *offset : {"%0", "%1", "%m2"}) {
    DYNAMIC_SECTION("offset " << offset) {
      const std::string g = ir("%a : Tensor, %b : Tensor", "  %bt : Tensor = aten::t(%b)\n"
                                                           "  %s : Tensor = aten::matmul(%a, %bt)\n"
                                                           "  %y : Tensor = aten::diagonal(%s, " +
                                                               std::string(offset) + ", %0, %1)");
      for (int opset : {11, 17}) // at 11, Min of the int64 sizes is rewritten (Min-12 has ints)
        check_ir_dynamic(g, {randn({4, 8}, 1), randn({4, 8}, 2)},
                         {randn({6, 8}, 3), randn({6, 8}, 4)}, opset);
    }
  }
  check_ir_dynamic(ir("%x : Tensor", "  %y : Tensor = aten::diagonal(%x, %1, %m1, %0)"),
                   {randn({3, 4, 5}, 1)}, {randn({6, 4, 2}, 2)});
}

TEST_CASE("aten::diagonal_scatter", "[select]") {
  check_ir_opsets(
      ir("%x : Tensor, %v : Tensor", "  %y : Tensor = aten::diagonal_scatter(%x, %v, %0, %0, %1)"),
      {randn({3, 4, 5}, 1), randn({5, 3}, 2)});
  check_ir_opsets(
      ir("%x : Tensor, %v : Tensor", "  %y : Tensor = aten::diagonal_scatter(%x, %v, %m2, %1, %2)"),
      {randn({3, 4, 5}, 1), randn({3, 2}, 2)});
  check_ir_dynamic(ir("%x : Tensor, %v : Tensor",
                      "  %y : Tensor = aten::diagonal_scatter(%x, %v, %1, %m2, %m1)"),
                   {randn({2, 4, 4}, 1), randn({2, 3}, 2)},
                   {randn({3, 6, 6}, 3), randn({3, 5}, 4)});
}

TEST_CASE("aten::tril", "[select]") {
  auto x = randn({2, 4, 5});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::tril(%x, %0)"), {x});
  auto r13 = check_ir(ir("%x : Tensor", "  %y : Tensor = aten::tril(%x, %m1)"), {x}, 13);
  CHECK(r13.count("Trilu") == 0);
  auto r17 = check_ir(ir("%x : Tensor", "  %y : Tensor = aten::tril(%x, %m1)"), {x}, 17);
  CHECK(r17.count("Trilu") == 1);
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::tril(%x, %1)"), {ints({4, 3}, 0, 9)});
}

TEST_CASE("aten::triu", "[select]") {
  auto x = randn({4, 5});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::triu(%x, %1)"), {x});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::triu(%x, %m2)"),
                  {ints({4, 3}, 0, 9).to(at::kInt)});
}

// A bool mask below opset 14 (ONNX Runtime's Where has no bool kernel there), and a diagonal
// known only at run time: the causal mask of a model with a KV cache of `past` steps,
// triu(ones(T, S), diagonal=S - T + 1), at every opset (Trilu's k input from 14).
TEST_CASE("aten::triu with a bool mask or a runtime diagonal", "[select]") {
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::triu(%x, %1)"),
                  {ints({5, 6}, 0, 2).to(at::kBool)});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::tril(%x, %m1)"),
                  {ints({2, 5, 6}, 0, 2).to(at::kBool)});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::tril(%x, %0)"),
                  {ints({4, 4}, -5, 5).to(at::kShort)});
  const std::string causal = R"IR(
graph(%x : Tensor, %past : Tensor):
  %one : int = prim::Constant[value=1]()
  %t : int = aten::size(%x, %one)
  %p : int = aten::size(%past, %one)
  %s : int = aten::add(%t, %p)
  %d : int = aten::sub(%s, %t)
  %k : int = aten::add(%d, %one)
  %none : NoneType = prim::Constant()
  %sizes : int[] = prim::ListConstruct(%t, %s)
  %ones : Tensor = aten::ones(%sizes, %none, %none, %none, %none)
  %m : Tensor = aten::triu(%ones, %k)
  %l : Tensor = aten::tril(%ones, %d)
  return (%m, %l))IR";
  for (int opset : {11, 13, 14, 17})
    check_ir_dynamic(causal, {randn({1, 4}), randn({1, 3})}, {randn({1, 6}), randn({1, 1})}, opset);
}

TEST_CASE("aten::_unique", "[select]") {
  auto x = ints({3, 5}, 0, 6);
  check_ir_opsets(
      ir("%x : Tensor", "  %y : Tensor, %i : Tensor = aten::_unique(%x, %true, %true)", "%y, %i"),
      {x});
  check_ir_opsets(ir("%x : Tensor",
                     "  %y : Tensor, %i : Tensor, %c : Tensor = aten::_unique2(%x, %true, %true, "
                     "%true)",
                     "%y, %i, %c"),
                  {at::round(randn({7}) * 2)});
}

// The number of distinct values follows the data, also where a later size is taken from it
// (torch.zeros(u.shape[0]).index_add(0, inverse, ...): a histogram of labels). A file recorded on
// 3 distinct values must give 2 or 5 on other values (it gave a fixed [3] before).
TEST_CASE("aten::_unique2: sizes taken from the distinct count stay dynamic", "[select]") {
  const std::string g = R"IR(
graph(%x : Tensor):
  %true : bool = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %none : NoneType = prim::Constant()
  %u : Tensor, %inv : Tensor, %cnt : Tensor = aten::_unique2(%x, %true, %true, %true)
  %n : int = aten::size(%u, %zero)
  %sizes : int[] = prim::ListConstruct(%n)
  %z : Tensor = aten::zeros(%sizes, %none, %none, %none, %none)
  %m : int = aten::size(%x, %zero)
  %msizes : int[] = prim::ListConstruct(%m)
  %ones : Tensor = aten::ones(%msizes, %none, %none, %none, %none)
  %one : int = prim::Constant[value=1]()
  %h : Tensor = aten::index_add(%z, %zero, %inv, %ones, %one)
  %c : Tensor = aten::mul(%cnt, %one)
  return (%h, %c, %u))IR";
  auto example = at::tensor({3, 1, 3, 7, 1, 1}, at::kLong);
  for (auto other :
       {at::tensor({5, 5, 2, 5, 2, 5}, at::kLong), at::tensor({9, 4, 8, 1, 0, 2}, at::kLong)})
    check_ir_unseen(g, {example}, {other});
}

TEST_CASE("aten::_unique2", "[select]") {
  check_ir_opsets(ir("%x : Tensor",
                     "  %y : Tensor, %i : Tensor, %c : Tensor = aten::_unique2(%x, %true, %false, "
                     "%true)",
                     "%y, %c"),
                  {ints({10}, 0, 4)});
}

TEST_CASE("aten::unique_dim", "[select]") {
  auto x = at::tensor({1, 2, 1, 2, 0, 0, 1, 2, 3, 3, 0, 0}, at::kLong).reshape({6, 2});
  check_ir_opsets(ir("%x : Tensor",
                     "  %y : Tensor, %i : Tensor, %c : Tensor = aten::unique_dim(%x, %0, %true, "
                     "%true, %true)",
                     "%y, %i, %c"),
                  {x});
}

TEST_CASE("aten::unique_consecutive", "[select]") {
  check_ir_opsets(ir("%x : Tensor",
                     "  %y : Tensor, %i : Tensor, %c : Tensor = aten::unique_consecutive(%x, "
                     "%true, %true, %none)",
                     "%y, %i, %c"),
                  {at::tensor({1, 1, 2, 2, 3, 1, 1, 2}, at::kLong).reshape({2, 4})});
  check_ir_opsets(ir("%x : Tensor",
                     "  %y : Tensor, %i : Tensor, %c : Tensor = aten::unique_consecutive(%x, "
                     "%true, %true, %1)",
                     "%y, %i, %c"),
                  {at::tensor({1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 3, 4}, at::kFloat).reshape({2, 6})});
}

TEST_CASE("aten::histc", "[select]") {
  auto x = randn({50});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::histc(%x, %3, %0, %0)"), {x});
  check_ir_opsets(ir("%x : Tensor", "  %lo : float = prim::Constant[value=-1.]()\n"
                                    "  %hi : float = prim::Constant[value=1.5]()\n"
                                    "  %b : int = prim::Constant[value=7]()\n"
                                    "  %y : Tensor = aten::histc(%x, %b, %lo, %hi)"),
                  {x});
  // Values on bin edges land in LibTorch's bin: percentages k/100 over [0.1, 0.8] in 7 bins
  // ((x - lo) / (hi - lo) * bins: multiplying first puts 0.6 in the wrong bin).
  check_ir_opsets(ir("%x : Tensor", "  %lo : float = prim::Constant[value=0.1]()\n"
                                    "  %hi : float = prim::Constant[value=0.8]()\n"
                                    "  %b : int = prim::Constant[value=7]()\n"
                                    "  %y : Tensor = aten::histc(%x, %b, %lo, %hi)"),
                  {at::arange(0, 100, at::kFloat) / 100});
}

TEST_CASE("aten::bincount", "[select]") {
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::bincount(%x, %none, %0)"),
                  {ints({20}, 0, 6)});
  check_ir_opsets(ir("%x : Tensor, %w : Tensor", "  %n : int = prim::Constant[value=9]()\n"
                                                 "  %y : Tensor = aten::bincount(%x, %w, %n)"),
                  {ints({20}, 0, 6), randn({20})});
  // minlength from a runtime size: voxel or node counts (bincount(idx, minlength=x.size(0))).
  auto g = ir("%x : Tensor, %idx : Tensor", "  %n : int = aten::size(%x, %0)\n"
                                            "  %y : Tensor = aten::bincount(%idx, %none, %n)");
  for (int opset : {11, 17})
    check_ir_dynamic(g, {randn({7}), ints({6}, 0, 4)}, {randn({11}, 2), ints({9}, 0, 4)}, opset);
}

TEST_CASE("aten::repeat_interleave", "[select]") {
  auto x = randn({3, 2});
  SECTION("int repeats, dim") {
    check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::repeat_interleave(%x, %2, %0, %none)"),
                    {x});
  }
  SECTION("int repeats, flattened") {
    check_ir_opsets(
        ir("%x : Tensor", "  %y : Tensor = aten::repeat_interleave(%x, %3, %none, %none)"), {x});
  }
  SECTION("tensor repeats") {
    check_ir_opsets(ir("%x : Tensor, %r : Tensor",
                       "  %y : Tensor = aten::repeat_interleave(%x, %r, %1, %none)"),
                    {x, at::tensor({2, 0}, at::kLong)});
    check_ir_opsets(ir("%x : Tensor, %r : Tensor",
                       "  %y : Tensor = aten::repeat_interleave(%x, %r, %none, %none)"),
                    {x, at::tensor({1, 3, 0, 2, 1, 1}, at::kLong)});
  }
  SECTION("repeats only") {
    check_ir_opsets(ir("%r : Tensor", "  %y : Tensor = aten::repeat_interleave(%r, %none)"),
                    {at::tensor({1, 3, 0, 2}, at::kLong)});
  }
}

TEST_CASE("aten::unflatten", "[select]") {
  check_ir_opsets(ir("%x : Tensor", "  %s : int[] = prim::ListConstruct(%2, %m1)\n"
                                    "  %y : Tensor = aten::unflatten(%x, %1, %s)"),
                  {randn({3, 6, 2})});
}

TEST_CASE("aten::unfold", "[select]") {
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::unfold(%x, %1, %3, %2)"),
                  {randn({2, 8, 3})});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::unfold(%x, %m1, %2, %1)"),
                  {randn({2, 5})});
}

TEST_CASE("aten::view_copy", "[select]") {
  check_ir_opsets(ir("%x : Tensor", "  %s : int[] = prim::ListConstruct(%3, %m1)\n"
                                    "  %y : Tensor = aten::view_copy(%x, %s)"),
                  {randn({3, 2, 2})});
}

TEST_CASE("aten::alias", "[select]") {
  check_ir_opsets(ir("%x : Tensor", "  %a : Tensor = aten::alias(%x)\n"
                                    "  %y : Tensor = aten::mul(%a, %a)"),
                  {randn({3, 2})});
}

TEST_CASE("aten::as_strided", "[select]") {
  check_ir_opsets(ir("%x : Tensor", "  %s : int[] = prim::ListConstruct(%2, %2)\n"
                                    "  %st : int[] = prim::ListConstruct(%1, %3)\n"
                                    "  %y : Tensor = aten::as_strided(%x, %s, %st, %1)"),
                  {randn({3, 4})});
}

TEST_CASE("aten::as_strided with sizes known only at run time", "[select]") {
  // Framing a waveform of symbolic length T (torchaudio's kaldi.fbank): n = 1 + (T - 6) // 2
  // frames of 6 samples every 2, then an offset window of a [B, L] input with runtime strides.
  const std::string frames =
      ir("%w : Tensor", "  %t : int = aten::size(%w, %0)\n"
                        "  %r : int = aten::sub(%t, %6)\n"
                        "  %q : int = aten::floordiv(%r, %2)\n"
                        "  %n : int = aten::add(%q, %1)\n"
                        "  %s : int[] = prim::ListConstruct(%n, %6)\n"
                        "  %st : int[] = prim::ListConstruct(%2, %1)\n"
                        "  %y : Tensor = aten::as_strided(%w, %s, %st, %none)");
  check_ir_opsets(frames, {randn({20})});
  check_ir_dynamic(frames, {randn({20}, 1)}, {randn({33}, 2)});
  const std::string rows = ir("%x : Tensor", "  %b : int = aten::size(%x, %0)\n"
                                             "  %l : int = aten::size(%x, %1)\n"
                                             "  %s : int[] = prim::ListConstruct(%b, %3)\n"
                                             "  %st : int[] = prim::ListConstruct(%l, %2)\n"
                                             "  %y : Tensor = aten::as_strided(%x, %s, %st, %1)");
  check_ir_dynamic(rows, {randn({4, 9}, 3)}, {randn({6, 11}, 4)});
}

TEST_CASE("aten::equal", "[select]") {
  auto x = randn({3, 4});
  check_ir_opsets(ir("%x : Tensor, %z : Tensor", "  %y : bool = aten::equal(%x, %z)"),
                  {x, x.clone()});
  check_ir_opsets(ir("%x : Tensor, %z : Tensor", "  %y : bool = aten::equal(%x, %z)"),
                  {x, randn({3, 4}, 2)});
  check_ir_opsets(ir("%x : Tensor, %z : Tensor", "  %y : bool = aten::equal(%x, %z)"),
                  {x, randn({4}, 2)});
}

TEST_CASE("aten::isclose", "[select]") {
  auto x = at::tensor({1.0f, 2.0f, NAN, INFINITY, 1.0f});
  auto z = at::tensor({1.0f + 1e-6f, 2.1f, NAN, INFINITY, -INFINITY});
  std::string consts = "  %rt : float = prim::Constant[value=1e-05]()\n"
                       "  %at : float = prim::Constant[value=1e-08]()\n";
  check_ir_opsets(ir("%x : Tensor, %z : Tensor",
                     consts + "  %y : Tensor = aten::isclose(%x, %z, %rt, %at, %false)"),
                  {x, z});
  check_ir_opsets(ir("%x : Tensor, %z : Tensor",
                     consts + "  %y : Tensor = aten::isclose(%x, %z, %rt, %at, %true)"),
                  {x, z});
}

TEST_CASE("aten::allclose", "[select]") {
  auto x = randn({3, 4});
  std::string consts = "  %rt : float = prim::Constant[value=1e-05]()\n"
                       "  %at : float = prim::Constant[value=1e-08]()\n";
  check_ir_opsets(ir("%x : Tensor, %z : Tensor",
                     consts + "  %y : bool = aten::allclose(%x, %z, %rt, %at, %false)"),
                  {x, x + 1e-7});
  check_ir_opsets(ir("%x : Tensor, %z : Tensor",
                     consts + "  %y : bool = aten::allclose(%x, %z, %rt, %at, %false)"),
                  {x, x + 1e-3});
}

TEST_CASE("aten::aminmax", "[select]") {
  auto x = randn({3, 4});
  check_ir_opsets(
      ir("%x : Tensor", "  %a : Tensor, %b : Tensor = aten::aminmax(%x, %1, %true)", "%a, %b"),
      {x});
  check_ir_opsets(
      ir("%x : Tensor", "  %a : Tensor, %b : Tensor = aten::aminmax(%x, %none, %false)", "%a, %b"),
      {x});
}

TEST_CASE("aten::std_mean", "[select]") {
  auto x = randn({3, 4, 5});
  check_ir_opsets(
      ir("%x : Tensor", "  %a : Tensor, %b : Tensor = aten::std_mean(%x, %true)", "%a, %b"), {x});
  check_ir_opsets(ir("%x : Tensor",
                     "  %d : int[] = prim::ListConstruct(%1, %m1)\n"
                     "  %a : Tensor, %b : Tensor = aten::std_mean(%x, %d, %false, %true)",
                     "%a, %b"),
                  {x});
}

TEST_CASE("aten::var_mean", "[select]") {
  auto x = randn({3, 4, 5});
  check_ir_opsets(ir("%x : Tensor",
                     "  %d : int[] = prim::ListConstruct(%1)\n"
                     "  %a : Tensor, %b : Tensor = aten::var_mean(%x, %d, %2, %false)",
                     "%a, %b"),
                  {x});
  check_ir_opsets(
      ir("%x : Tensor", "  %a : Tensor, %b : Tensor = aten::var_mean(%x, %false)", "%a, %b"), {x});
}
