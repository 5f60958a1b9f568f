// Tests for converters that share a function with a tested op (aliases, in-place variants, other
// ranks) or that only run when a value is not known at export time (runtime sizes, dynamic shapes).
#include <catch2/catch.hpp>

#include "harness.h"

using namespace t2o_test;

namespace {

const char* kConsts =
    "  %none : NoneType = prim::Constant()\n"
    "  %false : bool = prim::Constant[value=0]()\n"
    "  %m1 : int = prim::Constant[value=-1]()\n"
    "  %0 : int = prim::Constant[value=0]()\n"
    "  %1 : int = prim::Constant[value=1]()\n"
    "  %2 : int = prim::Constant[value=2]()\n"
    "  %3 : int = prim::Constant[value=3]()\n"
    "  %long : int = prim::Constant[value=4]()\n"
    "  %p : float = prim::Constant[value=0.5]()\n";

// graph(args) with the common constants, `body`, returning `outs`.
std::string ir(const std::string& args, const std::string& body, const std::string& outs = "%y") {
  return "graph(" + args + "):\n" + kConsts + body + "\n  return (" + outs + ")";
}

at::Tensor scalar_long(int64_t v) { return at::scalar_tensor(v, at::kLong); }

}  // namespace

TEST_CASE("aten::_unsafe_view", "[coverage]") {
  auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %s : int[] = prim::ListConstruct(%3, %m1)
  %y : Tensor = aten::_unsafe_view(%x, %s))IR"),
                           {randn({2, 3, 4})});
  CHECK(r.count("Reshape") == 1);
}

TEST_CASE("aten::concat", "[coverage]") {
  auto r = check_ir_opsets(ir("%x : Tensor, %z : Tensor", R"IR(
  %l : Tensor[] = prim::ListConstruct(%x, %z, %x)
  %y : Tensor = aten::concat(%l, %m1))IR"),
                           {randn({2, 3}), randn({2, 4}, 2)});
  CHECK(r.count("Concat") == 1);
}

TEST_CASE("aten::concatenate", "[coverage]") {
  check_ir_opsets(ir("%x : Tensor, %z : Tensor", R"IR(
  %l : Tensor[] = prim::ListConstruct(%x, %z)
  %y : Tensor = aten::concatenate(%l, %1))IR"),
                  {at::randint(0, 9, {2, 2}, at::kLong), at::randint(0, 9, {2, 3}, at::kLong)});
}

// Inference-mode dropout is the identity; the in-place forms act on a clone so that LibTorch
// does not modify the graph input fed to ONNX Runtime afterwards.
TEST_CASE("aten::dropout_", "[coverage]") {
  SECTION("in-place variants") {
    auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %c : Tensor = aten::clone(%x, %none)
  %a : Tensor = aten::dropout_(%c, %p, %false)
  %b : Tensor = aten::feature_dropout_(%a, %p, %false)
  %d : Tensor = aten::alpha_dropout_(%b, %p, %false)
  %y : Tensor = aten::feature_alpha_dropout_(%d, %p, %false))IR"),
                             {randn({2, 3, 4})});
    CHECK(r.count("Dropout") == 0);
  }
  SECTION("feature_alpha_dropout") {
    auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %y : Tensor = aten::feature_alpha_dropout(%x, %p, %false))IR"),
                             {randn({2, 3, 4})});
    CHECK(r.op_types.size() <= 1);  // at most the output Identity
  }
}

// Sizes from a runtime int (0-d int64 input %t through aten::Int), so the walker cannot fold
// the creation op into a constant.
TEST_CASE("aten::zeros", "[coverage]") {
  SECTION("default dtype") {
    auto r = check_ir_opsets(ir("%t : Tensor", R"IR(
  %n : int = aten::Int(%t)
  %s : int[] = prim::ListConstruct(%n, %3)
  %y : Tensor = aten::zeros(%s, %none, %none, %none, %none))IR"),
                             {scalar_long(4)});
    CHECK(r.count("ConstantOfShape") == 1);
  }
  SECTION("int64") {
    check_ir_opsets(ir("%t : Tensor", R"IR(
  %n : int = aten::Int(%t)
  %s : int[] = prim::ListConstruct(%2, %n)
  %y : Tensor = aten::zeros(%s, %long, %none, %none, %none))IR"),
                    {scalar_long(5)});
  }
}

TEST_CASE("aten::ones", "[coverage]") {
  auto r = check_ir_opsets(ir("%t : Tensor", R"IR(
  %n : int = aten::Int(%t)
  %s : int[] = prim::ListConstruct(%n, %3)
  %a : Tensor = aten::ones(%s, %none, %none, %none, %none)
  %y : Tensor = aten::ones(%s, %long, %none, %none, %none))IR",
                              "%a, %y"),
                           {scalar_long(2)});
  CHECK(r.count("ConstantOfShape") == 2);
}

TEST_CASE("aten::full", "[coverage]") {
  SECTION("float fill") {
    auto r = check_ir_opsets(ir("%t : Tensor", R"IR(
  %n : int = aten::Int(%t)
  %v : float = prim::Constant[value=2.5]()
  %s : int[] = prim::ListConstruct(%3, %n)
  %y : Tensor = aten::full(%s, %v, %none, %none, %none, %none))IR"),
                             {scalar_long(4)});
    CHECK(r.count("ConstantOfShape") == 1);
  }
  SECTION("int fill gives int64") {
    check_ir_opsets(ir("%t : Tensor", R"IR(
  %n : int = aten::Int(%t)
  %s : int[] = prim::ListConstruct(%n)
  %y : Tensor = aten::full(%s, %3, %none, %none, %none, %none))IR"),
                    {scalar_long(6)});
  }
  SECTION("runtime fill value") {
    check_ir_opsets(ir("%t : Tensor, %f : Tensor", R"IR(
  %n : int = aten::Int(%t)
  %v : float = aten::Float(%f)
  %s : int[] = prim::ListConstruct(%n, %2)
  %y : Tensor = aten::full(%s, %v, %none, %none, %none, %none))IR"),
                    {scalar_long(3), at::scalar_tensor(-1.25, at::kDouble)});
  }
}

// dim/numel fold on static shapes; with a dynamic dim their converters run.
TEST_CASE("aten::dim", "[coverage]") {
  for (int opset : {13, 17}) {
    check_ir_dynamic(ir("%x : Tensor", R"IR(
  %d : int = aten::dim(%x)
  %y : Tensor = aten::mul(%x, %d))IR"),
                     {randn({2, 3, 4})}, {randn({5, 3, 4}, 2)}, opset);
  }
}

TEST_CASE("aten::numel", "[coverage]") {
  SECTION("dynamic shape") {
    for (int opset : {13, 17}) {
      auto r = check_ir_dynamic(ir("%x : Tensor", R"IR(
  %n : int = aten::numel(%x)
  %y : Tensor = aten::add(%x, %n, %1))IR"),
                                {randn({2, 3})}, {randn({4, 5}, 2)}, opset);
      CHECK(r.count("Size") == 1);
    }
  }
  SECTION("static shape folds") {
    auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %n : int = aten::numel(%x)
  %y : Tensor = aten::add(%x, %n, %1))IR"),
                             {randn({2, 3})});
    CHECK(r.count("Size") == 0);
  }
}

TEST_CASE("aten::max_pool3d_with_indices", "[coverage]") {
  SECTION("kernel 2") {
    auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %k : int[] = prim::Constant[value=[2, 2, 2]]()
  %s : int[] = prim::Constant[value=[2, 2, 2]]()
  %pd : int[] = prim::Constant[value=[0, 0, 0]]()
  %dl : int[] = prim::Constant[value=[1, 1, 1]]()
  %y : Tensor, %i : Tensor = aten::max_pool3d_with_indices(%x, %k, %s, %pd, %dl, %false))IR",
                                "%y, %i"),
                             {randn({1, 2, 4, 6, 6})});
    CHECK(r.count("MaxPool") == 1);
  }
  SECTION("padding, stride, ceil_mode, unbatched") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %true : bool = prim::Constant[value=1]()
  %k : int[] = prim::Constant[value=[3, 2, 3]]()
  %s : int[] = prim::Constant[value=[2, 1, 2]]()
  %pd : int[] = prim::Constant[value=[1, 0, 1]]()
  %dl : int[] = prim::Constant[value=[1, 1, 1]]()
  %y : Tensor, %i : Tensor = aten::max_pool3d_with_indices(%x, %k, %s, %pd, %dl, %true))IR",
                       "%y, %i"),
                    {randn({2, 5, 4, 6})});
  }
}

TEST_CASE("aten::reflection_pad1d", "[coverage]") {
  auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %pl : int[] = prim::ListConstruct(%2, %1)
  %y : Tensor = aten::reflection_pad1d(%x, %pl))IR"),
                           {randn({2, 3, 5})});
  CHECK(r.count("Pad") == 1);
}

TEST_CASE("aten::reflection_pad3d", "[coverage]") {
  auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %pl : int[] = prim::ListConstruct(%1, %2, %0, %1, %2, %1)
  %y : Tensor = aten::reflection_pad3d(%x, %pl))IR"),
                           {randn({1, 2, 3, 4, 5})});
  CHECK(r.count("Pad") == 1);
}

TEST_CASE("aten::replication_pad1d", "[coverage]") {
  auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %pl : int[] = prim::ListConstruct(%3, %1)
  %y : Tensor = aten::replication_pad1d(%x, %pl))IR"),
                           {randn({2, 3, 4})});
  CHECK(r.count("Pad") == 1);
}

TEST_CASE("aten::replication_pad3d", "[coverage]") {
  auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %pl : int[] = prim::ListConstruct(%2, %1, %1, %0, %0, %3)
  %y : Tensor = aten::replication_pad3d(%x, %pl))IR"),
                           {randn({1, 2, 3, 4, 5})});
  CHECK(r.count("Pad") == 1);
}
