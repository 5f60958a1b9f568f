#include "harness.h"

#include <catch2/catch.hpp>

using namespace t2o_test;

namespace {

std::string red(int r) {
  return "  %red : int = prim::Constant[value=" + std::to_string(r) + "]()\n";
}

// graph(<inputs>) -> call, with `consts` (and %n = None, %red per reduction) before it.
std::string ir(const std::string &inputs, const std::string &call, const std::string &consts) {
  return "graph(" + inputs + "):\n  %n : NoneType = prim::Constant()\n" + consts +
         "  %y : Tensor = " + call + "\n  return (%y)";
}

std::string fconst(const std::string &name, const std::string &v) {
  return "  %" + name + " : float = prim::Constant[value=" + v + "]()\n";
}

std::string bconst(const std::string &name, bool v) {
  return "  %" + name + " : bool = prim::Constant[value=" + (v ? "1" : "0") + "]()\n";
}

const char *kXT = "%x : Tensor, %t : Tensor";

// +1 / -1 labels.
at::Tensor signs(std::vector<int64_t> shape, uint64_t seed) {
  return at::where(randn(shape, seed) >= 0, at::ones(shape), -at::ones(shape));
}

at::Tensor labels(std::vector<int64_t> shape, int64_t classes, uint64_t seed) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  return at::randint(0, classes, shape, gen, at::TensorOptions().dtype(at::kLong));
}

} // namespace

TEST_CASE("aten::l1_loss", "[loss_more]") {
  auto x = randn({4, 5}, 1), t = randn({4, 5}, 2);
  for (int r : {0, 1, 2})
    DYNAMIC_SECTION("reduction " << r) {
      check_ir_opsets(ir(kXT, "aten::l1_loss(%x, %t, %red)", red(r)), {x, t});
    }
}

TEST_CASE("aten::smooth_l1_loss", "[loss_more]") {
  auto x = randn({4, 5}, 3) * 2, t = randn({4, 5}, 4);
  for (int r : {0, 1, 2})
    for (const char *beta : {"1.", "0.5", "0."})
      DYNAMIC_SECTION("reduction " << r << " beta " << beta) {
        check_ir_opsets(
            ir(kXT, "aten::smooth_l1_loss(%x, %t, %red, %beta)", red(r) + fconst("beta", beta)),
            {x, t});
      }
}

TEST_CASE("aten::huber_loss", "[loss_more]") {
  auto x = randn({3, 6}, 5) * 2, t = randn({3, 6}, 6);
  for (int r : {0, 1, 2})
    for (const char *delta : {"1.", "0.7"})
      DYNAMIC_SECTION("reduction " << r << " delta " << delta) {
        check_ir_opsets(ir(kXT, "aten::huber_loss(%x, %t, %red, %d)", red(r) + fconst("d", delta)),
                        {x, t});
      }
}

TEST_CASE("aten::margin_ranking_loss", "[loss_more]") {
  auto a = randn({8}, 7), b = randn({8}, 8), y = signs({8}, 9);
  for (int r : {0, 1, 2})
    DYNAMIC_SECTION("reduction " << r) {
      check_ir_opsets(ir("%a : Tensor, %b : Tensor, %t : Tensor",
                         "aten::margin_ranking_loss(%a, %b, %t, %m, %red)",
                         red(r) + fconst("m", "0.3")),
                      {a, b, y});
    }
}

TEST_CASE("aten::hinge_embedding_loss", "[loss_more]") {
  auto x = randn({4, 5}, 10) * 2, y = signs({4, 5}, 11);
  for (int r : {0, 1, 2})
    DYNAMIC_SECTION("reduction " << r) {
      check_ir_opsets(
          ir(kXT, "aten::hinge_embedding_loss(%x, %t, %m, %red)", red(r) + fconst("m", "1.5")),
          {x, y});
    }
}

TEST_CASE("aten::soft_margin_loss", "[loss_more]") {
  auto x = randn({4, 5}, 12) * 3, y = signs({4, 5}, 13);
  for (int r : {0, 1, 2})
    DYNAMIC_SECTION("reduction " << r) {
      check_ir_opsets(ir(kXT, "aten::soft_margin_loss(%x, %t, %red)", red(r)), {x, y});
    }
}

TEST_CASE("aten::cosine_embedding_loss", "[loss_more]") {
  auto a = randn({6, 4}, 14), b = randn({6, 4}, 15), y = signs({6}, 16);
  for (int r : {0, 1, 2})
    DYNAMIC_SECTION("reduction " << r) {
      auto text =
          ir("%a : Tensor, %b : Tensor, %t : Tensor",
             "aten::cosine_embedding_loss(%a, %b, %t, %m, %red)", red(r) + fconst("m", "0.2"));
      check_ir_opsets(text, {a, b, y});
      check_ir_opsets(text, {a[0], b[0], y[0]}); // unbatched
    }
}

TEST_CASE("aten::triplet_margin_loss", "[loss_more]") {
  auto a = randn({5, 8}, 17), p = randn({5, 8}, 18), q = randn({5, 8}, 19);
  for (int r : {0, 1, 2})
    for (bool swap : {false, true})
      for (const char *pn : {"2.", "1."})
        DYNAMIC_SECTION("reduction " << r << " swap " << swap << " p " << pn) {
          check_ir_opsets(ir("%a : Tensor, %p : Tensor, %q : Tensor",
                             "aten::triplet_margin_loss(%a, %p, %q, %m, %pn, %eps, %sw, %red)",
                             red(r) + fconst("m", "1.") + fconst("pn", pn) + fconst("eps", "1e-6") +
                                 bconst("sw", swap)),
                          {a, p, q});
        }
}

TEST_CASE("aten::multi_margin_loss", "[loss_more]") {
  auto x = randn({6, 4}, 20), t = labels({6}, 4, 21), w = randn({4}, 22).abs() + 0.1;
  for (int r : {0, 1, 2})
    for (int p : {1, 2})
      DYNAMIC_SECTION("reduction " << r << " p " << p) {
        auto consts = red(r) + "  %p : int = prim::Constant[value=" + std::to_string(p) + "]()\n" +
                      fconst("m", "0.8");
        check_ir_opsets(ir(kXT, "aten::multi_margin_loss(%x, %t, %p, %m, %n, %red)", consts),
                        {x, t});
        check_ir_opsets(ir(std::string(kXT) + ", %w : Tensor",
                           "aten::multi_margin_loss(%x, %t, %p, %m, %w, %red)", consts),
                        {x, t, w});
        check_ir_opsets(ir(kXT, "aten::multi_margin_loss(%x, %t, %p, %m, %n, %red)", consts),
                        {x[1], t[1]}); // unbatched
      }
}

TEST_CASE("aten::multilabel_margin_loss", "[loss_more]") {
  auto x = randn({3, 5}, 23);
  // Row 0: targets 3, 0; row 1: 1, 2, 4 (the 0 after the -1 is ignored); row 2: all five.
  auto t = at::tensor({3, 0, -1, 2, 2, 1, 2, 4, -1, 0, 4, 3, 2, 1, 0}, at::kLong).reshape({3, 5});
  for (int r : {0, 1, 2})
    DYNAMIC_SECTION("reduction " << r) {
      auto text = ir(kXT, "aten::multilabel_margin_loss(%x, %t, %red)", red(r));
      check_ir_opsets(text, {x, t});
      check_ir_opsets(text, {x[1], t[1]}); // unbatched
    }
}

TEST_CASE("aten::poisson_nll_loss", "[loss_more]") {
  auto counts = at::tensor({0., 1., 2., 3., 5., 7., 1., 4., 0., 2., 9., 6.}).reshape({3, 4});
  auto rates = randn({3, 4}, 24).abs() + 0.2;
  for (int r : {0, 1, 2})
    for (bool log_input : {true, false})
      for (bool full : {false, true})
        DYNAMIC_SECTION("reduction " << r << " log_input " << log_input << " full " << full) {
          auto x = log_input ? at::log(rates) : rates;
          check_ir_opsets(
              ir(kXT, "aten::poisson_nll_loss(%x, %t, %li, %full, %eps, %red)",
                 red(r) + bconst("li", log_input) + bconst("full", full) + fconst("eps", "1e-8")),
              {x, counts.to(at::kFloat)});
        }
}

TEST_CASE("aten::binary_cross_entropy", "[loss_more]") {
  auto x = at::sigmoid(randn({4, 5}, 25) * 2), t = at::rand({4, 5});
  t.index_put_({0}, 1.f);
  auto w = randn({5}, 26).abs() + 0.1;
  auto x0 = x.clone();
  x0.index_put_({1, 1}, 0.f); // log(0) clamps at -100
  for (int r : {0, 1, 2})
    DYNAMIC_SECTION("reduction " << r) {
      check_ir_opsets(ir(kXT, "aten::binary_cross_entropy(%x, %t, %n, %red)", red(r)), {x, t});
      check_ir_opsets(ir(std::string(kXT) + ", %w : Tensor",
                         "aten::binary_cross_entropy(%x, %t, %w, %red)", red(r)),
                      {x0, t, w});
    }
}

TEST_CASE("aten::ctc_loss", "[loss_more]") {
  auto lp = at::log_softmax(randn({12, 3, 5}, 30), 2);
  // Padded targets with a repeated label (which needs a blank between) and a shorter row.
  auto t = at::tensor({1, 2, 2, 4, 3, 3, 1, 0, 4, 1, 0, 0}, at::kLong).reshape({3, 4});
  auto lists = "  %il : int[] = prim::Constant[value=[12, 10, 7]]()\n"
               "  %tl : int[] = prim::Constant[value=[4, 3, 2]]()\n"
               "  %blank : int = prim::Constant[value=0]()\n";
  for (int r : {0, 1, 2})
    DYNAMIC_SECTION("reduction " << r) {
      check_ir_opsets(ir("%x : Tensor, %t : Tensor",
                         "aten::ctc_loss(%x, %t, %il, %tl, %blank, %red, %zi)",
                         lists + red(r) + bconst("zi", false)),
                      {lp, t});
      check_ir_opsets(
          ir("%x : Tensor, %t : Tensor, %il : Tensor, %tl : Tensor",
             "aten::ctc_loss(%x, %t, %il, %tl, %blank, %red, %zi)",
             "  %blank : int = prim::Constant[value=0]()\n" + red(r) + bconst("zi", false)),
          {lp, t, at::tensor({12, 10, 7}, at::kLong), at::tensor({4, 3, 2}, at::kLong)});
    }
  SECTION("concatenated targets, another blank") {
    auto flat = at::tensor({1, 2, 2, 4, 3, 3, 1, 0, 2}, at::kLong);
    check_ir_opsets(ir(kXT, "aten::ctc_loss(%x, %t, %il, %tl, %blank, %red, %zi)",
                       "  %il : int[] = prim::Constant[value=[12, 12, 9]]()\n"
                       "  %tl : int[] = prim::Constant[value=[4, 3, 2]]()\n"
                       "  %blank : int = prim::Constant[value=4]()\n" +
                           red(1) + bconst("zi", false)),
                    {lp, at::where(flat != 4, flat, at::zeros_like(flat))});
  }
  SECTION("unbatched") {
    for (int r : {0, 1}) {
      check_ir_opsets(ir(kXT, "aten::ctc_loss(%x, %t, %il, %tl, %blank, %red, %zi)",
                         "  %il : int[] = prim::Constant[value=[11]]()\n"
                         "  %tl : int[] = prim::Constant[value=[3]]()\n"
                         "  %blank : int = prim::Constant[value=0]()\n" +
                             red(r) + bconst("zi", false)),
                      {lp.select(1, 0), at::tensor({2, 2, 3}, at::kLong)});
      check_ir_opsets(
          ir("%x : Tensor, %t : Tensor, %il : Tensor, %tl : Tensor",
             "aten::ctc_loss(%x, %t, %il, %tl, %blank, %red, %zi)",
             "  %blank : int = prim::Constant[value=0]()\n" + red(r) + bconst("zi", false)),
          {lp.select(1, 1), at::tensor({4, 1}, at::kLong), at::scalar_tensor(9, at::kLong),
           at::scalar_tensor(2, at::kLong)});
    }
  }
  SECTION("impossible alignments: inf, or 0 with zero_infinity") {
    auto tl = "  %il : int[] = prim::Constant[value=[3, 12, 12]]()\n"
              "  %tl : int[] = prim::Constant[value=[4, 3, 2]]()\n"
              "  %blank : int = prim::Constant[value=0]()\n";
    for (bool zi : {false, true})
      check_ir_opsets(ir(kXT, "aten::ctc_loss(%x, %t, %il, %tl, %blank, %red, %zi)",
                         tl + red(0) + bconst("zi", zi)),
                      {lp, t});
  }
}
