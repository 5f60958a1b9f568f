#include "harness.h"

#include <catch2/catch.hpp>

using namespace t2o_test;

namespace {

std::string red(int r) {
  return "  %red : int = prim::Constant[value=" + std::to_string(r) + "]()\n";
}

// graph(%x, %t[, %w]) -> op(%x, %t, <args>)
std::string ir_loss(const std::string &call, const std::string &consts, bool weight = false) {
  return std::string("graph(%x : Tensor, %t : Tensor") + (weight ? ", %w : Tensor" : "") +
         "):\n  %n : NoneType = prim::Constant()\n" + consts + "  %y : Tensor = " + call +
         "\n  return (%y)";
}

at::Tensor labels(std::vector<int64_t> shape, int64_t classes, uint64_t seed) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  return at::randint(0, classes, shape, gen, at::TensorOptions().dtype(at::kLong));
}

} // namespace

TEST_CASE("aten::mse_loss", "[loss]") {
  auto x = randn({4, 5}, 1), t = randn({4, 5}, 2);
  for (int r : {0, 1, 2}) {
    DYNAMIC_SECTION("reduction " << r) {
      check_ir_opsets(ir_loss("aten::mse_loss(%x, %t, %red)", red(r)), {x, t});
    }
  }
}

TEST_CASE("aten::nll_loss", "[loss]") {
  auto x = at::log_softmax(randn({6, 4}, 3), 1);
  auto t = labels({6}, 4, 4);
  t.index_put_({2}, 1);
  t.index_put_({3}, 1);
  auto w = randn({4}, 5).abs() + 0.1;
  for (int r : {0, 1, 2}) {
    DYNAMIC_SECTION("reduction " << r) {
      auto res = check_ir_opsets(ir_loss("aten::nll_loss(%x, %t, %n, %red, %ig)",
                                         red(r) + "  %ig : int = prim::Constant[value=-100]()\n"),
                                 {x, t});
      CHECK(res.count("NegativeLogLikelihoodLoss") == 1);
      check_ir_opsets(ir_loss("aten::nll_loss(%x, %t, %w, %red, %ig)",
                              red(r) + "  %ig : int = prim::Constant[value=1]()\n", true),
                      {x, t, w});
    }
  }
  SECTION("opset 11: decomposed (NegativeLogLikelihoodLoss arrives in 12)") {
    for (int r : {0, 1, 2}) {
      INFO("reduction " << r);
      auto res = check_ir(ir_loss("aten::nll_loss(%x, %t, %w, %red, %ig)",
                                  red(r) + "  %ig : int = prim::Constant[value=1]()\n", true),
                          {x, t, w}, 11);
      CHECK(res.count("NegativeLogLikelihoodLoss") == 0);
      CHECK(res.count("GatherElements") == 1);
    }
  }
  SECTION("no batch dim") {
    check_ir_opsets(ir_loss("aten::nll_loss(%x, %t, %n, %red, %ig)",
                            red(0) + "  %ig : int = prim::Constant[value=-100]()\n"),
                    {x[0], t[0]});
    check_ir_opsets(ir_loss("aten::nll_loss(%x, %t, %w, %red, %ig)",
                            red(1) + "  %ig : int = prim::Constant[value=-100]()\n", true),
                    {x[0], t[0], w});
  }
}

TEST_CASE("aten::nll_loss2d", "[loss]") {
  auto x = at::log_softmax(randn({2, 3, 4, 5}, 6), 1);
  auto t = labels({2, 4, 5}, 3, 7);
  auto w = randn({3}, 8).abs() + 0.1;
  check_ir_opsets(ir_loss("aten::nll_loss2d(%x, %t, %w, %red, %ig)",
                          red(1) + "  %ig : int = prim::Constant[value=2]()\n", true),
                  {x, t, w});
  check_ir_opsets(ir_loss("aten::nll_loss2d(%x, %t, %n, %red, %ig)",
                          red(0) + "  %ig : int = prim::Constant[value=-100]()\n"),
                  {x, t});
}

TEST_CASE("aten::nll_loss_nd", "[loss]") {
  auto x = at::log_softmax(randn({2, 3, 7}, 9), 1);
  check_ir_opsets(ir_loss("aten::nll_loss_nd(%x, %t, %n, %red, %ig)",
                          red(2) + "  %ig : int = prim::Constant[value=-100]()\n"),
                  {x, labels({2, 7}, 3, 10)});
}

TEST_CASE("aten::nll_loss_forward", "[loss]") {
  auto x = at::log_softmax(randn({6, 4}, 11), 1);
  auto t = labels({6}, 4, 12);
  t.index_put_({0}, 3);
  auto w = randn({4}, 13).abs() + 0.1;
  for (int r : {0, 1, 2}) {
    DYNAMIC_SECTION("reduction " << r) {
      auto body = red(r) + "  %ig : int = prim::Constant[value=3]()\n";
      check_ir_opsets(
          "graph(%x : Tensor, %t : Tensor, %w : Tensor):\n" + body +
              "  %y : Tensor, %tw : Tensor = aten::nll_loss_forward(%x, %t, %w, %red, %ig)\n"
              "  return (%y, %tw)",
          {x, t, w});
      check_ir_opsets(
          "graph(%x : Tensor, %t : Tensor):\n  %n : NoneType = prim::Constant()\n" + body +
              "  %y : Tensor, %tw : Tensor = aten::nll_loss_forward(%x, %t, %n, %red, %ig)\n"
              "  return (%y, %tw)",
          {x, t});
    }
  }
}

TEST_CASE("aten::cross_entropy_loss", "[loss]") {
  auto x = randn({6, 5}, 14) * 3;
  auto t = labels({6}, 5, 15);
  t.index_put_({1}, 2);
  auto w = randn({5}, 16).abs() + 0.1;
  auto consts = [](int r, int ignore, const char *eps) {
    return red(r) + "  %ig : int = prim::Constant[value=" + std::to_string(ignore) + "]()\n" +
           "  %eps : float = prim::Constant[value=" + eps + "]()\n";
  };
  for (int r : {0, 1, 2}) {
    DYNAMIC_SECTION("class indices, reduction " << r) {
      check_ir_opsets(
          ir_loss("aten::cross_entropy_loss(%x, %t, %n, %red, %ig, %eps)", consts(r, -100, "0.")),
          {x, t});
      check_ir_opsets(ir_loss("aten::cross_entropy_loss(%x, %t, %w, %red, %ig, %eps)",
                              consts(r, 2, "0."), true),
                      {x, t, w});
    }
    DYNAMIC_SECTION("label smoothing, reduction " << r) {
      check_ir_opsets(
          ir_loss("aten::cross_entropy_loss(%x, %t, %n, %red, %ig, %eps)", consts(r, 2, "0.2")),
          {x, t});
      check_ir_opsets(ir_loss("aten::cross_entropy_loss(%x, %t, %w, %red, %ig, %eps)",
                              consts(r, 2, "0.1"), true),
                      {x, t, w});
    }
    DYNAMIC_SECTION("class probabilities, reduction " << r) {
      auto p = at::softmax(randn({6, 5}, 17), 1);
      check_ir_opsets(ir_loss("aten::cross_entropy_loss(%x, %t, %w, %red, %ig, %eps)",
                              consts(r, -100, "0.1"), true),
                      {x, p, w});
    }
  }
  SECTION("spatial, no batch") {
    check_ir_opsets(
        ir_loss("aten::cross_entropy_loss(%x, %t, %n, %red, %ig, %eps)", consts(1, -100, "0.")),
        {randn({2, 5, 3, 3}, 18), labels({2, 3, 3}, 5, 19)});
    check_ir_opsets(ir_loss("aten::cross_entropy_loss(%x, %t, %w, %red, %ig, %eps)",
                            consts(0, -100, "0.1"), true),
                    {x[0], t[0], w});
  }
}

TEST_CASE("aten::binary_cross_entropy_with_logits", "[loss]") {
  auto x = randn({4, 3}, 20) * 10, t = at::rand({4, 3});
  auto w = randn({3}, 21).abs(), pw = randn({3}, 22).abs() + 0.5;
  for (int r : {0, 1, 2}) {
    DYNAMIC_SECTION("reduction " << r) {
      check_ir_opsets(
          ir_loss("aten::binary_cross_entropy_with_logits(%x, %t, %n, %n, %red)", red(r)), {x, t});
      check_ir_opsets(
          "graph(%x : Tensor, %t : Tensor, %w : Tensor, %pw : Tensor):\n" + red(r) +
              "  %y : Tensor = aten::binary_cross_entropy_with_logits(%x, %t, %w, %pw, %red)\n"
              "  return (%y)",
          {x, t, w, pw});
    }
  }
}

TEST_CASE("aten::kl_div", "[loss]") {
  auto x = at::log_softmax(randn({4, 5}, 23), 1);
  auto p = at::softmax(randn({4, 5}, 24), 1);
  p.index_put_({0, 0}, 0.f);
  for (int r : {0, 1, 2}) {
    DYNAMIC_SECTION("reduction " << r) {
      check_ir_opsets(ir_loss("aten::kl_div(%x, %t, %red, %lt)",
                              red(r) + "  %lt : bool = prim::Constant[value=0]()\n"),
                      {x, p});
      check_ir_opsets(ir_loss("aten::kl_div(%x, %t, %red, %lt)",
                              red(r) + "  %lt : bool = prim::Constant[value=1]()\n"),
                      {x, at::log_softmax(randn({4, 5}, 25), 1)});
    }
  }
}
