#include "harness.h"
#include "ir_text.h"

#include <catch2/catch.hpp>

using namespace t2o_test;

TEST_CASE("aten::flatten", "[shape]") {
  SECTION("start 1") {
    auto r = check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::flatten(%x, %1, %m1)"),
                             {randn({2, 3, 4, 5})});
    CHECK(r.count("Reshape") == 1);
  }
  SECTION("0-d input") {
    check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::flatten(%x, %0, %m1)"), {randn({})});
  }
  SECTION("middle") {
    check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::flatten(%x, %1, %2)"),
                    {randn({2, 3, 4, 5})});
  }
}

TEST_CASE("aten::view", "[shape]") {
  SECTION("view with -1") {
    auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %s : int[] = prim::ListConstruct(%2, %m1)
  %y : Tensor = aten::view(%x, %s))IR"),
                             {randn({2, 3, 4})});
    CHECK(r.count("Reshape") == 1);
  }
  SECTION("reshape") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %s : int[] = prim::ListConstruct(%3, %m1, %2)
  %y : Tensor = aten::reshape(%x, %s))IR"),
                    {randn({2, 3, 4})});
  }
  SECTION("to a size of 0: an empty tensor (a Reshape would read 0 as 'copy this dim')") {
    check_ir(ir("%x : Tensor", R"IR(
  %s : int[] = prim::ListConstruct(%3, %2, %0, %2)
  %y : Tensor = aten::view(%x, %s))IR"),
             {randn({3, 0, 4})});
  }
  SECTION("view_as / reshape_as") {
    check_ir_opsets(ir("%x : Tensor, %o : Tensor", R"IR(
  %a : Tensor = aten::view_as(%x, %o)
  %y : Tensor = aten::reshape_as(%a, %x))IR"),
                    {randn({2, 6}), randn({3, 4})});
  }
}

TEST_CASE("aten::permute", "[shape]") {
  SECTION("permute") {
    auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %p : int[] = prim::ListConstruct(%2, %0, %1)
  %y : Tensor = aten::permute(%x, %p))IR"),
                             {randn({2, 3, 4})});
    CHECK(r.count("Transpose") == 1);
  }
  SECTION("transpose and t") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::transpose(%x, %m1, %0)
  %b : Tensor = aten::flatten(%a, %1, %2)
  %y : Tensor = aten::t(%b))IR"),
                    {randn({2, 3, 4})});
  }
  SECTION("moveaxis (movedim's NumPy name)") {
    check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::moveaxis(%x, %m1, %0)"),
                    {randn({2, 3, 4})});
  }
  SECTION("movedim") {
    check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::movedim(%x, %0, %m1)"),
                    {randn({2, 3, 4})});
  }
  SECTION("contiguous and clone are no-ops") {
    auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::relu(%x)
  %b : Tensor = aten::contiguous(%a, %0)
  %y : Tensor = aten::clone(%b, %none))IR"),
                             {randn({2, 3})});
    CHECK(r.count("Relu") == 1);
  }
}

TEST_CASE("aten::cat", "[shape]") {
  SECTION("cat") {
    auto r = check_ir_opsets(ir("%x : Tensor, %z : Tensor", R"IR(
  %l : Tensor[] = prim::ListConstruct(%x, %z, %x)
  %y : Tensor = aten::cat(%l, %m1))IR"),
                             {randn({2, 3}), randn({2, 5})});
    CHECK(r.count("Concat") == 1);
  }
  SECTION("stack") {
    check_ir_opsets(ir("%x : Tensor, %z : Tensor", R"IR(
  %l : Tensor[] = prim::ListConstruct(%x, %z)
  %y : Tensor = aten::stack(%l, %1))IR"),
                    {randn({2, 3}), randn({2, 3})});
  }
  SECTION("legacy empty tensor is skipped") {
    check_ir_opsets(ir("%x : Tensor, %e : Tensor", R"IR(
  %l : Tensor[] = prim::ListConstruct(%x, %e, %x)
  %y : Tensor = aten::cat(%l, %1))IR"),
                    {randn({2, 3}), randn({0})});
  }
  SECTION("mixed dtypes promote") {
    check_ir_opsets(ir("%x : Tensor, %z : Tensor", R"IR(
  %l : Tensor[] = prim::ListConstruct(%x, %z)
  %y : Tensor = aten::cat(%l, %0))IR"),
                    {randn({2, 3}), ints({1, 3}, 0, 5)});
  }
}

TEST_CASE("aten::split", "[shape]") {
  SECTION("split int") {
    auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %l : Tensor[] = aten::split(%x, %2, %1)
  %a : Tensor, %b : Tensor, %c : Tensor = prim::ListUnpack(%l)
  %y : Tensor = aten::relu(%c))IR",
                                "%a, %b, %y"),
                             {randn({2, 5})});
    CHECK(r.count("Split") == 1);
  }
  SECTION("split sizes") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %s : int[] = prim::ListConstruct(%1, %3)
  %l : Tensor[] = aten::split(%x, %s, %m1))IR",
                       "%l"),
                    {randn({2, 4})});
  }
  SECTION("split_with_sizes") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %s : int[] = prim::ListConstruct(%2, %1)
  %l : Tensor[] = aten::split_with_sizes(%x, %s, %0))IR",
                       "%l"),
                    {randn({3, 4})});
  }
  SECTION("chunk") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %l : Tensor[] = aten::chunk(%x, %3, %1))IR",
                       "%l"),
                    {randn({2, 7})});
  }
  SECTION("tensor_split sections and indices") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %l : Tensor[] = aten::tensor_split(%x, %3, %1)
  %i : int[] = prim::ListConstruct(%1, %3)
  %k : Tensor[] = aten::tensor_split(%x, %i, %1))IR",
                       "%l, %k"),
                    {randn({2, 7})});
  }
  SECTION("chunk and tensor_split on a dim known only at run time") {
    // Classifier-free guidance: eps_cond, eps_uncond = out.chunk(2) on a symbolic batch; sizes
    // that do not divide evenly (9 into 3 + 3 + 3 and 11 into 4 + 4 + 3; 4 + 4 + 3 and 4 + 4 + 4).
    auto g = ir("%x : Tensor", R"IR(
  %l : Tensor[] = aten::chunk(%x, %3, %1)
  %a : Tensor, %b : Tensor, %c : Tensor = prim::ListUnpack(%l)
  %k : Tensor[] = aten::tensor_split(%x, %3, %1)
  %d : Tensor, %e : Tensor, %f : Tensor = prim::ListUnpack(%k))IR",
                "%a, %b, %c, %d, %e, %f");
    for (int opset : {11, 17})
      check_ir_dynamic(g, {randn({2, 9})}, {randn({3, 11}, 2)}, opset);
    check_ir_dynamic(g, {randn({2, 12})}, {randn({3, 10}, 2)});
  }
  SECTION("unbind") {
    auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %l : Tensor[] = aten::unbind(%x, %1)
  %a : Tensor, %b : Tensor, %c : Tensor = prim::ListUnpack(%l)
  %k : Tensor[] = prim::ListConstruct(%a, %c)
  %y : Tensor = aten::cat(%k, %0))IR",
                                "%y, %b"),
                             {randn({2, 3, 4})});
    CHECK(r.count("Split") == 1);
  }
}

TEST_CASE("aten::squeeze", "[shape]") {
  SECTION("all") {
    check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::squeeze(%x)"), {randn({2, 1, 3, 1})});
  }
  SECTION("dim") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::squeeze(%x, %1)
  %y : Tensor = aten::squeeze(%a, %0))IR"),
                    {randn({2, 1, 3})});
  }
  SECTION("dim that is not 1 is kept") {
    auto r = check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::squeeze(%x, %0)"),
                             {randn({2, 3})});
    CHECK(r.count("Squeeze") == 0);
  }
  SECTION("unsqueeze") {
    auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::unsqueeze(%x, %m1)
  %y : Tensor = aten::unsqueeze(%a, %0))IR"),
                             {randn({2, 3})});
    CHECK(r.count("Unsqueeze") == 2);
  }
}

TEST_CASE("aten::expand", "[shape]") {
  SECTION("expand with -1 and new dims") {
    auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %s : int[] = prim::ListConstruct(%2, %m1, %3)
  %y : Tensor = aten::expand(%x, %s, %false))IR"),
                             {randn({4, 1})});
    CHECK(r.count("Expand") == 1);
  }
  SECTION("expand_as") {
    check_ir_opsets(ir("%x : Tensor, %o : Tensor", "  %y : Tensor = aten::expand_as(%x, %o)"),
                    {randn({1, 3}), randn({2, 3})});
  }
  SECTION("repeat and tile") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %s : int[] = prim::ListConstruct(%2, %1, %3)
  %a : Tensor = aten::repeat(%x, %s)
  %t : int[] = prim::ListConstruct(%2)
  %b : Tensor = aten::tile(%x, %t))IR",
                       "%a, %b"),
                    {randn({2, 3})});
  }
  SECTION(
      "repeat and tile by a size known at run time (PointNet: eye(3).view(1, 9).repeat(B, 1))") {
    const std::string g = R"IR(
graph(%x : Tensor, %w : Tensor):
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %b : int = aten::size(%x, %zero)
  %s : int[] = prim::ListConstruct(%b, %one)
  %y : Tensor = aten::repeat(%w, %s)
  %z : Tensor = aten::add(%x, %y, %one)
  %t : int[] = prim::ListConstruct(%b)
  %u : Tensor = aten::tile(%w, %t)
  return (%z, %u))IR";
    for (int opset : {11, 17})
      check_ir_dynamic(g, {randn({2, 9}), randn({1, 9}, 2)}, {randn({5, 9}), randn({1, 9}, 2)},
                       opset);
  }
}

TEST_CASE("aten::slice", "[shape]") {
  SECTION("start end step") {
    auto r = check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::slice(%x, %1, %1, %m1, %2)"),
                             {randn({2, 8})});
    CHECK(r.count("Slice") == 1);
  }
  SECTION("open end") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %big : int = prim::Constant[value=9223372036854775807]()
  %y : Tensor = aten::slice(%x, %0, %1, %big, %1))IR"),
                    {randn({4, 3})});
  }
  SECTION("None bounds") {
    check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::slice(%x, %m1, %none, %2, %1)"),
                    {randn({4, 3})});
  }
  SECTION("runtime start (from a tensor value)") {
    check_ir_opsets(ir("%x : Tensor, %n : Tensor", R"IR(
  %s : Tensor = aten::sum(%n, %none)
  %si : int = aten::Int(%s)
  %a : Tensor = aten::slice(%x, %1, %si, %none, %1)
  %y : Tensor = aten::narrow(%x, %1, %s, %2))IR",
                       "%a, %y"),
                    {randn({2, 6}), at::full({2}, 1, at::kLong)});
  }
  SECTION("full slice is a no-op") {
    auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %big : int = prim::Constant[value=9223372036854775807]()
  %y : Tensor = aten::slice(%x, %0, %0, %big, %1))IR"),
                             {randn({4, 3})});
    CHECK(r.count("Slice") == 0);
  }
  SECTION("narrow") {
    check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::narrow(%x, %1, %1, %2)"),
                    {randn({2, 5})});
  }
  SECTION("narrow with a runtime length and a negative start (pe.narrow(0, 0, x.size(1)))") {
    const std::string g = ir("%x : Tensor, %pe : Tensor", R"IR(
  %n : int = aten::size(%x, %1)
  %a : Tensor = aten::narrow(%pe, %0, %0, %n)
  %b : Tensor = aten::narrow(%x, %1, %m2, %1))IR",
                             "%a, %b");
    check_ir_opsets(g, {randn({2, 5}), randn({9, 3}, 2)});
    check_ir_dynamic(g, {randn({2, 5}), randn({9, 3}, 2)}, {randn({3, 7}, 3), randn({9, 3}, 4)});
  }
  SECTION("select") {
    auto r = check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::select(%x, %1, %m1)"),
                             {randn({2, 5, 3})});
    CHECK(r.count("Gather") == 1);
  }
}

TEST_CASE("aten::index_select", "[shape]") {
  SECTION("index_select") {
    check_ir_opsets(
        ir("%x : Tensor, %i : Tensor", "  %y : Tensor = aten::index_select(%x, %1, %i)"),
        {randn({2, 5}), ints({4}, 0, 5)});
  }
  SECTION("gather") {
    auto r = check_ir_opsets(
        ir("%x : Tensor, %i : Tensor", "  %y : Tensor = aten::gather(%x, %1, %i, %false)"),
        {randn({2, 5}), ints({2, 3}, 0, 5)});
    CHECK(r.count("GatherElements") == 1);
  }
  SECTION("index with one tensor") {
    check_ir_opsets(ir("%x : Tensor, %i : Tensor", R"IR(
  %l : Tensor?[] = prim::ListConstruct(%none, %i)
  %y : Tensor = aten::index(%x, %l))IR"),
                    {randn({2, 5, 3}), ints({2, 2}, 0, 5)});
  }
  SECTION("index with a boolean mask") {
    auto r = check_ir_opsets(ir("%x : Tensor, %m : Tensor", R"IR(
  %l : Tensor?[] = prim::ListConstruct(%m)
  %y : Tensor = aten::index(%x, %l))IR"),
                             {randn({4, 3, 2}), ints({4, 3}, 0, 2).to(at::kBool)});
    CHECK(r.count("NonZero") == 1);
  }
  SECTION("index with a boolean mask after whole dims (x[:, keep], x[:, m2d])") {
    check_ir_opsets(ir("%x : Tensor, %m : Tensor", R"IR(
  %l : Tensor?[] = prim::ListConstruct(%none, %m)
  %y : Tensor = aten::index(%x, %l))IR"),
                    {randn({4, 5, 2}), at::tensor({1, 0, 1, 1, 0}).to(at::kBool)});
    check_ir_opsets(ir("%x : Tensor, %m : Tensor", R"IR(
  %l : Tensor?[] = prim::ListConstruct(%none, %m)
  %y : Tensor = aten::index(%x, %l))IR"),
                    {randn({2, 4, 3, 5}), ints({4, 3}, 0, 2).to(at::kBool)});
  }
  SECTION("index with two broadcast tensors") {
    check_ir_opsets(ir("%x : Tensor, %i : Tensor, %j : Tensor", R"IR(
  %l : Tensor?[] = prim::ListConstruct(%i, %j)
  %y : Tensor = aten::index(%x, %l))IR"),
                    {randn({4, 5, 2}), ints({3, 1}, 0, 4), ints({2}, 0, 5)});
  }
  SECTION("index with tensors on later dims: adjacent (in place) and apart (first)") {
    // Informer's K[:, :, rows, cols, :]: the broadcast dims where the indexed dims were.
    check_ir_opsets(ir("%x : Tensor, %i : Tensor, %j : Tensor", R"IR(
  %l : Tensor?[] = prim::ListConstruct(%none, %none, %i, %j)
  %y : Tensor = aten::index(%x, %l))IR"),
                    {randn({2, 3, 6, 7, 4}), ints({6, 1}, 0, 6), ints({6, 5}, -7, 7)});
    // x[i, :, j]: separated by a slice, the broadcast dims come first.
    check_ir_opsets(ir("%x : Tensor, %i : Tensor, %j : Tensor", R"IR(
  %l : Tensor?[] = prim::ListConstruct(%i, %none, %j)
  %y : Tensor = aten::index(%x, %l))IR"),
                    {randn({4, 3, 5, 2}), ints({3}, 0, 4), ints({2, 3}, 0, 5)});
  }
  SECTION("index_select with a 0-d index") {
    check_ir_opsets(
        ir("%x : Tensor, %i : Tensor", "  %y : Tensor = aten::index_select(%x, %0, %i)"),
        {randn({4, 5}), ints({}, 0, 4)});
  }
}

TEST_CASE("aten::flip", "[shape]") {
  SECTION("flip") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %d : int[] = prim::ListConstruct(%0, %m1)
  %y : Tensor = aten::flip(%x, %d))IR"),
                    {randn({2, 3, 4})});
  }
  SECTION("roll with dims") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %s : int[] = prim::ListConstruct(%2, %m1)
  %d : int[] = prim::ListConstruct(%1, %0)
  %y : Tensor = aten::roll(%x, %s, %d))IR"),
                    {randn({3, 5})});
  }
  SECTION("roll along symbolic dims (torch.roll of a sequence of any length)") {
    const std::string g = R"IR(
graph(%x : Tensor):
  %three : int = prim::Constant[value=3]()
  %m7 : int = prim::Constant[value=-7]()
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %s : int[] = prim::ListConstruct(%three, %m7)
  %d : int[] = prim::ListConstruct(%one, %zero)
  %y : Tensor = aten::roll(%x, %s, %d)
  return (%y))IR";
    for (int opset : {11, 17})
      check_ir_dynamic(g, {randn({2, 8})}, {randn({5, 2}, 2)}, opset);
  }
  SECTION("roll flattened") {
    const std::string g = ir("%x : Tensor", R"IR(
  %s : int[] = prim::ListConstruct(%3)
  %d : int[] = prim::ListConstruct()
  %y : Tensor = aten::roll(%x, %s, %d))IR");
    check_ir_opsets(g, {randn({3, 5})});
    // Of a tensor with a symbolic dim (was: 'dimension 0 is out of range for a tensor of rank -1').
    check_ir_dynamic(g, {randn({3, 5})}, {randn({4, 5}, 2)});
  }
}

TEST_CASE("aten::dropout", "[shape]") {
  auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %p : float = prim::Constant[value=0.5]()
  %a : Tensor = aten::dropout(%x, %p, %false)
  %b : Tensor = aten::feature_dropout(%a, %p, %false)
  %y : Tensor = aten::alpha_dropout(%b, %p, %false))IR"),
                           {randn({2, 3})});
  CHECK(r.op_types.size() <= 1); // at most the output Identity
}

TEST_CASE("aten::to", "[shape]") {
  SECTION("to dtype") {
    auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %y : Tensor = aten::to(%x, %long, %false, %false, %none))IR"),
                             {randn({2, 3}) * 10});
    CHECK(r.count("Cast") == 1);
  }
  SECTION("to device") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %dev : Device = prim::Constant[value="cpu"]()
  %y : Tensor = aten::to(%x, %dev, %double, %false, %false, %none))IR"),
                    {randn({2, 3})});
  }
  SECTION("to other, dtype_layout") {
    check_ir_opsets(ir("%x : Tensor, %o : Tensor", R"IR(
  %a : Tensor = aten::to(%x, %o, %false, %false, %none)
  %b : Tensor = aten::to(%x, %double, %none, %none, %none, %false, %false, %none))IR",
                       "%a, %b"),
                    {randn({2, 3}), ints({1}, 0, 3, at::kInt)});
  }
  SECTION("type_as") {
    check_ir_opsets(ir("%x : Tensor, %o : Tensor", "  %y : Tensor = aten::type_as(%x, %o)"),
                    {ints({2, 3}, 0, 9), randn({1})});
  }
}

TEST_CASE("aten::zeros_like", "[shape]") {
  SECTION("zeros_like / ones_like / full_like") {
    auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %v : float = prim::Constant[value=2.5]()
  %a : Tensor = aten::zeros_like(%x, %none, %none, %none, %none, %none)
  %b : Tensor = aten::ones_like(%x, %long, %none, %none, %none, %none)
  %c : Tensor = aten::full_like(%x, %v, %none, %none, %none, %none, %none))IR",
                                "%a, %b, %c"),
                             {randn({2, 3})});
    CHECK(r.count("ConstantOfShape") == 3);
  }
  SECTION("bool and int fills") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %bool : int = prim::Constant[value=11]()
  %a : Tensor = aten::ones_like(%x, %bool, %none, %none, %none, %none)
  %y : Tensor = aten::full_like(%x, %3, %none, %none, %none, %none, %none))IR",
                       "%a, %y"),
                    {ints({2, 3}, 0, 5)});
  }
  SECTION("new_zeros / new_ones / new_full with a runtime size") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %n : Tensor = aten::sum(%x, %none)
  %ni : int = aten::Int(%n)
  %s : int[] = prim::ListConstruct(%ni, %2)
  %v : float = prim::Constant[value=2.5]()
  %a : Tensor = aten::new_zeros(%x, %s, %none, %none, %none, %none)
  %b : Tensor = aten::new_ones(%x, %s, %none, %none, %none, %none)
  %c : Tensor = aten::new_full(%x, %s, %v, %none, %none, %none, %none))IR",
                       "%a, %b, %c"),
                    {at::full({3}, 1.0f)});
  }
}

TEST_CASE("aten::arange", "[shape]") {
  check_ir_opsets(ir("%x : Tensor", R"IR(
  %n : Tensor = aten::sum(%x, %none)
  %ni : int = aten::Int(%n)
  %y : Tensor = aten::arange(%1, %ni, %2, %none, %none, %none, %none))IR"),
                  {at::full({7}, 1.0f)});
}

TEST_CASE("aten::pad", "[shape]") {
  SECTION("constant") {
    auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %p : int[] = prim::ListConstruct(%1, %2, %0, %1)
  %mode : str = prim::Constant[value="constant"]()
  %v : float = prim::Constant[value=1.5]()
  %y : Tensor = aten::pad(%x, %p, %mode, %v))IR"),
                             {randn({1, 2, 3, 4})});
    CHECK(r.count("Pad") == 1);
  }
  SECTION("reflect and replicate") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %p : int[] = prim::ListConstruct(%1, %2, %2, %1)
  %r : str = prim::Constant[value="reflect"]()
  %e : str = prim::Constant[value="replicate"]()
  %a : Tensor = aten::pad(%x, %p, %r, %none)
  %b : Tensor = aten::pad(%x, %p, %e, %none)
  %c : Tensor = aten::reflection_pad2d(%x, %p)
  %d : Tensor = aten::replication_pad2d(%x, %p))IR",
                       "%a, %b, %c, %d"),
                    {randn({1, 2, 4, 5})});
  }
  SECTION("constant_pad_nd") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %p : int[] = prim::ListConstruct(%1, %1)
  %y : Tensor = aten::constant_pad_nd(%x, %p, %2))IR"),
                    {randn({2, 3})});
  }
  SECTION("amounts known only at run time: to a multiple of 8, and centred") {
    // Demucs' valid_length, "pad to a multiple of the hop" before framing.
    auto g = ir("%x : Tensor", R"IR(
  %eight : int = prim::Constant[value=8]()
  %t : int = aten::size(%x, %m1)
  %r : int = aten::remainder(%t, %eight)
  %d : int = aten::sub(%eight, %r)
  %extra : int = aten::remainder(%d, %eight)
  %half : int = aten::floordiv(%extra, %2)
  %rest : int = aten::sub(%extra, %half)
  %p : int[] = prim::ListConstruct(%0, %extra)
  %q : int[] = prim::ListConstruct(%half, %rest, %1, %0)
  %mode : str = prim::Constant[value="constant"]()
  %refl : str = prim::Constant[value="reflect"]()
  %a : Tensor = aten::pad(%x, %p, %mode, %none)
  %b : Tensor = aten::pad(%x, %q, %refl, %none)
  %c : Tensor = aten::constant_pad_nd(%x, %q, %2))IR",
                "%a, %b, %c");
    for (int opset : {11, 17})
      check_ir_dynamic(g, {randn({2, 3, 13})}, {randn({1, 3, 21}, 2)}, opset);
  }
}

TEST_CASE("aten::reflection_pad1d", "[shape]") {
  auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %pl : int[] = prim::ListConstruct(%2, %1)
  %y : Tensor = aten::reflection_pad1d(%x, %pl))IR"),
                           {randn({2, 3, 5})});
  CHECK(r.count("Pad") == 1);
}

TEST_CASE("aten::reflection_pad3d", "[shape]") {
  auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %pl : int[] = prim::ListConstruct(%1, %2, %0, %1, %2, %1)
  %y : Tensor = aten::reflection_pad3d(%x, %pl))IR"),
                           {randn({1, 2, 3, 4, 5})});
  CHECK(r.count("Pad") == 1);
}

TEST_CASE("aten::replication_pad1d", "[shape]") {
  auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %pl : int[] = prim::ListConstruct(%3, %1)
  %y : Tensor = aten::replication_pad1d(%x, %pl))IR"),
                           {randn({2, 3, 4})});
  CHECK(r.count("Pad") == 1);
}

TEST_CASE("aten::replication_pad3d", "[shape]") {
  auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %pl : int[] = prim::ListConstruct(%2, %1, %1, %0, %0, %3)
  %y : Tensor = aten::replication_pad3d(%x, %pl))IR"),
                           {randn({1, 2, 3, 4, 5})});
  CHECK(r.count("Pad") == 1);
}

TEST_CASE("aten::meshgrid", "[shape]") {
  SECTION("ij") {
    check_ir_opsets(ir("%a : Tensor, %b : Tensor", R"IR(
  %l : Tensor[] = prim::ListConstruct(%a, %b)
  %y : Tensor[] = aten::meshgrid(%l))IR"),
                    {randn({3}), randn({4})});
  }
  SECTION("xy") {
    check_ir_opsets(ir("%a : Tensor, %b : Tensor, %c : Tensor", R"IR(
  %l : Tensor[] = prim::ListConstruct(%a, %b, %c)
  %xy : str = prim::Constant[value="xy"]()
  %y : Tensor[] = aten::meshgrid(%l, %xy))IR"),
                    {randn({3}), randn({4}), randn({2})});
  }
}

TEST_CASE("aten::_unsafe_view", "[shape]") {
  auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %s : int[] = prim::ListConstruct(%3, %m1)
  %y : Tensor = aten::_unsafe_view(%x, %s))IR"),
                           {randn({2, 3, 4})});
  CHECK(r.count("Reshape") == 1);
}

TEST_CASE("aten::concat", "[shape]") {
  auto r = check_ir_opsets(ir("%x : Tensor, %z : Tensor", R"IR(
  %l : Tensor[] = prim::ListConstruct(%x, %z, %x)
  %y : Tensor = aten::concat(%l, %m1))IR"),
                           {randn({2, 3}), randn({2, 4}, 2)});
  CHECK(r.count("Concat") == 1);
}

TEST_CASE("aten::concatenate", "[shape]") {
  check_ir_opsets(ir("%x : Tensor, %z : Tensor", R"IR(
  %l : Tensor[] = prim::ListConstruct(%x, %z)
  %y : Tensor = aten::concatenate(%l, %1))IR"),
                  {at::randint(0, 9, {2, 2}, at::kLong), at::randint(0, 9, {2, 3}, at::kLong)});
}

// Inference-mode dropout is the identity; the in-place forms act on a clone so that LibTorch
// does not modify the graph input fed to ONNX Runtime afterwards.
TEST_CASE("aten::dropout_", "[shape]") {
  SECTION("in-place variants") {
    auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %c : Tensor = aten::clone(%x, %none)
  %a : Tensor = aten::dropout_(%c, %half, %false)
  %b : Tensor = aten::feature_dropout_(%a, %half, %false)
  %d : Tensor = aten::alpha_dropout_(%b, %half, %false)
  %y : Tensor = aten::feature_alpha_dropout_(%d, %half, %false))IR"),
                             {randn({2, 3, 4})});
    CHECK(r.count("Dropout") == 0);
  }
  SECTION("feature_alpha_dropout") {
    auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %y : Tensor = aten::feature_alpha_dropout(%x, %half, %false))IR"),
                             {randn({2, 3, 4})});
    CHECK(r.op_types.size() <= 1); // at most the output Identity
  }
}

// Sizes from a runtime int (0-d int64 input %t through aten::Int), so the walker cannot fold
// the creation op into a constant.
TEST_CASE("aten::zeros", "[shape]") {
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

TEST_CASE("aten::ones", "[shape]") {
  auto r = check_ir_opsets(ir("%t : Tensor", R"IR(
  %n : int = aten::Int(%t)
  %s : int[] = prim::ListConstruct(%n, %3)
  %a : Tensor = aten::ones(%s, %none, %none, %none, %none)
  %y : Tensor = aten::ones(%s, %long, %none, %none, %none))IR",
                              "%a, %y"),
                           {scalar_long(2)});
  CHECK(r.count("ConstantOfShape") == 2);
}

TEST_CASE("aten::full", "[shape]") {
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

// Circular padding: positive pads wrap around, a negative pad crops that side first.
TEST_CASE("aten::_pad_circular", "[shape]") {
  SECTION("2-D, both sides") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %p : int[] = prim::ListConstruct(%1, %2, %2, %0)
  %y : Tensor = aten::_pad_circular(%x, %p))IR"),
                    {randn({1, 2, 3, 4})});
  }
  SECTION("1-D with a crop") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %p : int[] = prim::ListConstruct(%m1, %3)
  %y : Tensor = aten::_pad_circular(%x, %p))IR"),
                    {randn({2, 3, 5})});
  }
  SECTION("aten::pad mode circular") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %p : int[] = prim::ListConstruct(%2, %1, %1, %1, %0, %1)
  %mode : str = prim::Constant[value="circular"]()
  %y : Tensor = aten::pad(%x, %p, %mode, %none))IR"),
                    {randn({1, 2, 3, 4, 5})});
  }
}

TEST_CASE("aten::hstack and aten::vstack", "[shape]") {
  auto two_d = ir("%x : Tensor, %z : Tensor", R"IR(
  %l : Tensor[] = prim::ListConstruct(%x, %z)
  %h : Tensor = aten::hstack(%l)
  %v : Tensor = aten::vstack(%l))IR",
                  "%h, %v");
  check_ir_opsets(two_d, {randn({3, 4}, 1), randn({3, 4}, 2)});
  auto one_d = ir("%x : Tensor, %z : Tensor", R"IR(
  %l : Tensor[] = prim::ListConstruct(%x, %z)
  %h : Tensor = aten::hstack(%l)
  %v : Tensor = aten::vstack(%l))IR",
                  "%h, %v");
  check_ir(one_d, {randn({4}, 3), randn({4}, 4)});
}
