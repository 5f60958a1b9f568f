#include "harness.h"

#include <catch2/catch.hpp>

using namespace t2o_test;

namespace {

at::Tensor positive(std::vector<int64_t> shape, uint64_t seed) {
  return randn(shape, seed).abs() + 0.5;
}

} // namespace

TEST_CASE("aten::batch_norm", "[norm]") {
  auto ir = [](const std::string &w, const std::string &b, bool training) {
    return std::string(R"IR(
graph(%x : Tensor, %w : Tensor, %b : Tensor, %m : Tensor, %v : Tensor):
  %none : NoneType = prim::Constant()
  %train : bool = prim::Constant[value=)IR") +
           (training ? "1" : "0") + R"IR(]()
  %mom : float = prim::Constant[value=0.1]()
  %eps : float = prim::Constant[value=1e-05]()
  %y : Tensor = aten::batch_norm(%x, )IR" +
           w + ", " + b + R"IR(, %m, %v, %train, %mom, %eps, %train)
  return (%y))IR";
  };
  std::vector<at::Tensor> in4{randn({2, 3, 4, 5}, 1), randn({3}, 2), randn({3}, 3), randn({3}, 4),
                              positive({3}, 5)};
  SECTION("eval with weight and bias") {
    auto r = check_ir_opsets(ir("%w", "%b", false), in4);
    CHECK(r.count("BatchNormalization") == 1);
  }
  SECTION("eval without weight and bias") {
    auto r = check_ir_opsets(ir("%none", "%none", false), in4);
    CHECK(r.count("BatchNormalization") == 0);
    check_ir_opsets(ir("%w", "%none", false), in4);
  }
  SECTION("rank 2 and rank 3 inputs") {
    auto in2 = in4;
    in2[0] = randn({4, 3}, 6);
    check_ir_opsets(ir("%w", "%b", false), in2);
    check_ir_opsets(ir("%none", "%b", false), in2);
    in2[0] = randn({4, 3, 7}, 6);
    check_ir_opsets(ir("%w", "%b", false), in2);
  }
  SECTION("training mode uses batch statistics") {
    check_ir_opsets(ir("%w", "%b", true), in4);
  }
}

TEST_CASE("aten::layer_norm", "[norm]") {
  auto ir = [](const std::string &shape, const std::string &w, const std::string &b) {
    return R"IR(
graph(%x : Tensor, %w : Tensor, %b : Tensor):
  %none : NoneType = prim::Constant()
  %true : bool = prim::Constant[value=1]()
  %eps : float = prim::Constant[value=1e-05]()
  %shape : int[] = prim::Constant[value=)IR" +
           shape + R"IR(]()
  %y : Tensor = aten::layer_norm(%x, %shape, )IR" +
           w + ", " + b + R"IR(, %eps, %true)
  return (%y))IR";
  };
  SECTION("last dim, affine") {
    auto r =
        check_ir_opsets(ir("[8]", "%w", "%b"), {randn({2, 5, 8}, 1), randn({8}, 2), randn({8}, 3)});
    CHECK(r.count("LayerNormalization") == 1);
    auto r13 =
        check_ir(ir("[8]", "%w", "%b"), {randn({2, 5, 8}, 1), randn({8}, 2), randn({8}, 3)}, 13);
    CHECK(r13.count("LayerNormalization") == 0);
  }
  SECTION("two dims, no affine") {
    check_ir_opsets(ir("[5, 8]", "%none", "%none"),
                    {randn({2, 5, 8}, 1), randn({5, 8}, 2), randn({5, 8}, 3)});
  }
  SECTION("weight only") {
    check_ir_opsets(ir("[8]", "%w", "%none"), {randn({3, 8}, 1), randn({8}, 2), randn({8}, 3)});
  }
  SECTION("normalized_shape from the input's sizes (F.layer_norm(x, x.shape[1:]))") {
    const std::string g = R"IR(
graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %true : bool = prim::Constant[value=1]()
  %eps : float = prim::Constant[value=1e-05]()
  %one : int = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %h : int = aten::size(%x, %one)
  %w : int = aten::size(%x, %two)
  %shape : int[] = prim::ListConstruct(%h, %w)
  %y : Tensor = aten::layer_norm(%x, %shape, %none, %none, %eps, %true)
  return (%y))IR";
    check_ir_opsets(g, {randn({2, 5, 8}, 1)});
    check_ir_dynamic(g, {randn({2, 5, 8}, 1)}, {randn({3, 6, 4}, 2)});
  }
}

TEST_CASE("aten::native_layer_norm", "[norm]") {
  check_ir_opsets(R"IR(
graph(%x : Tensor, %w : Tensor, %b : Tensor):
  %eps : float = prim::Constant[value=1e-05]()
  %shape : int[] = prim::Constant[value=[6]]()
  %y : Tensor, %mean : Tensor, %rstd : Tensor = aten::native_layer_norm(%x, %shape, %w, %b, %eps)
  return (%y, %mean, %rstd))IR",
                  {randn({2, 3, 6}, 1), randn({6}, 2), randn({6}, 3)});
}

TEST_CASE("aten::group_norm", "[norm]") {
  auto ir = [](const std::string &w, const std::string &b) {
    return R"IR(
graph(%x : Tensor, %w : Tensor, %b : Tensor):
  %none : NoneType = prim::Constant()
  %g : int = prim::Constant[value=2]()
  %true : bool = prim::Constant[value=1]()
  %eps : float = prim::Constant[value=1e-05]()
  %y : Tensor = aten::group_norm(%x, %g, )IR" +
           w + ", " + b + R"IR(, %eps, %true)
  return (%y))IR";
  };
  // GroupNormalization from opset 21 (per-channel scale and bias); the decomposition below.
  SECTION("affine, 4-D") {
    auto r =
        check_ir_opsets(ir("%w", "%b"), {randn({2, 6, 3, 4}, 1), randn({6}, 2), randn({6}, 3)});
    CHECK(r.count("GroupNormalization") == 1);
  }
  SECTION("no affine, 3-D") {
    auto r =
        check_ir_opsets(ir("%none", "%none"), {randn({2, 4, 5}, 1), randn({4}, 2), randn({4}, 3)});
    CHECK(r.count("GroupNormalization") == 1);
  }
  SECTION("decomposed at opset 20: InstanceNormalization over (N, G, -1)") {
    auto r = check_ir(ir("%w", "%b"), {randn({2, 6, 3, 4}, 1), randn({6}, 2), randn({6}, 3)}, 20);
    CHECK(r.count("GroupNormalization") == 0);
    CHECK(r.count("InstanceNormalization") == 1);
    CHECK(r.count("ReduceMean") == 0);
  }
  SECTION("rank 2 (N, C), decomposed at opset 11") {
    auto r = check_ir(ir("%w", "%b"), {randn({3, 6}, 1), randn({6}, 2), randn({6}, 3)}, 11);
    CHECK(r.count("InstanceNormalization") == 1);
  }
}

TEST_CASE("aten::instance_norm", "[norm]") {
  auto ir = [](const std::string &w, const std::string &b, bool use_input_stats) {
    return std::string(R"IR(
graph(%x : Tensor, %w : Tensor, %b : Tensor, %m : Tensor, %v : Tensor):
  %none : NoneType = prim::Constant()
  %use : bool = prim::Constant[value=)IR") +
           (use_input_stats ? "1" : "0") + R"IR(]()
  %false : bool = prim::Constant[value=0]()
  %mom : float = prim::Constant[value=0.1]()
  %eps : float = prim::Constant[value=1e-05]()
  %y : Tensor = aten::instance_norm(%x, )IR" +
           w + ", " + b + R"IR(, %m, %v, %use, %mom, %eps, %false)
  return (%y))IR";
  };
  std::vector<at::Tensor> in{randn({2, 3, 4, 5}, 1), randn({3}, 2), randn({3}, 3), randn({3}, 4),
                             positive({3}, 5)};
  SECTION("affine") {
    auto r = check_ir_opsets(ir("%w", "%b", true), in);
    CHECK(r.count("InstanceNormalization") == 1);
  }
  SECTION("no affine") {
    check_ir_opsets(ir("%none", "%none", true), in);
  }
  SECTION("running stats") {
    check_ir_opsets(ir("%w", "%b", false), in);
  }
}

// The decomposition GroupNorm lowers to: the output and the per-(sample, group) mean and rstd.
TEST_CASE("aten::native_group_norm", "[norm]") {
  std::string ir = R"IR(
graph(%x : Tensor, %w : Tensor, %b : Tensor):
  %none : NoneType = prim::Constant()
  %n : int = prim::Constant[value=2]()
  %c : int = prim::Constant[value=6]()
  %hw : int = prim::Constant[value=12]()
  %g : int = prim::Constant[value=3]()
  %eps : float = prim::Constant[value=1e-05]()
  %y : Tensor, %mean : Tensor, %rstd : Tensor = aten::native_group_norm(%x, %w, %b, %n, %c, %hw, %g, %eps)
  %y2 : Tensor, %m2 : Tensor, %r2 : Tensor = aten::native_group_norm(%x, %none, %none, %n, %c, %hw, %g, %eps)
  return (%y, %mean, %rstd, %y2))IR";
  check_ir_opsets(ir, {randn({2, 6, 3, 4}, 1) * 2 + 1, randn({6}, 2), randn({6}, 3)});
}
