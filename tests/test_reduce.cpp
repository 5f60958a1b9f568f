#include "builder/graph_builder.h"
#include "harness.h"
#include "ir_text.h"

#include <catch2/catch.hpp>
#ifndef ONNX_ML
#define ONNX_ML 1
#endif
#ifndef ONNX_NAMESPACE
#define ONNX_NAMESPACE onnx
#endif
#include <onnx/onnx_pb.h>

using namespace t2o_test;

TEST_CASE("aten::sum", "[reduce]") {
  SECTION("dims keepdim") {
    auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::sum(%x, %d02, %true, %none)
  %b : Tensor = aten::sum(%x, %d1, %false, %none)
  %y : Tensor = aten::sum(%x, %none))IR",
                                "%a, %b, %y"),
                             {randn({2, 3, 4})});
    CHECK(r.count("ReduceSum") == 3);
  }
  SECTION("int32 sums to int64, dtype argument") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::sum(%x, %d1, %false, %none)
  %y : Tensor = aten::sum(%x, %d1, %false, %double))IR",
                       "%a, %y"),
                    {ints({2, 3}, 0, 9, at::kInt)});
  }
  SECTION("bool") {
    check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::sum(%x, %none)"),
                    {ints({2, 3}, 0, 2).to(at::kBool)});
  }
}

TEST_CASE("aten::mean", "[reduce]") {
  auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::mean(%x, %d02, %true, %none)
  %b : Tensor = aten::mean(%x, %none)
  %y : Tensor = aten::mean(%x, %d1, %false, %double))IR",
                              "%a, %b, %y"),
                           {randn({2, 3, 4})});
  CHECK(r.count("ReduceMean") == 3);
}

TEST_CASE("aten::prod", "[reduce]") {
  check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::prod(%x, %1, %false, %none)
  %y : Tensor = aten::prod(%x, %none))IR",
                     "%a, %y"),
                  {randn({2, 3, 4})});
}

TEST_CASE("aten::amax", "[reduce]") {
  auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::amax(%x, %d1, %true)
  %y : Tensor = aten::amin(%x, %d02, %false))IR",
                              "%a, %y"),
                           {randn({2, 3, 4})});
  CHECK(r.count("ReduceMax") == 1);
  CHECK(r.count("ReduceMin") == 1);
}

TEST_CASE("aten::max", "[reduce]") {
  SECTION("dim: values and indices") {
    auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %v : Tensor, %i : Tensor = aten::max(%x, %1, %false)
  %w : Tensor, %j : Tensor = aten::min(%x, %m1, %true))IR",
                                "%v, %i, %w, %j"),
                             {randn({2, 3, 4})});
    CHECK(r.count("ArgMax") == 1);
    CHECK(r.count("ArgMin") == 1);
  }
  SECTION("int64 dim") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %v : Tensor, %i : Tensor = aten::max(%x, %1, %false))IR",
                       "%v, %i"),
                    {at::randperm(12, at::kLong).reshape({3, 4})});
  }
  SECTION("all") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::max(%x)
  %y : Tensor = aten::min(%x))IR",
                       "%a, %y"),
                    {randn({2, 3, 4})});
  }
  SECTION("elementwise") {
    check_ir_opsets(ir("%x : Tensor, %z : Tensor", R"IR(
  %a : Tensor = aten::max(%x, %z)
  %y : Tensor = aten::min(%x, %z))IR",
                       "%a, %y"),
                    {randn({2, 3}), randn({3}, 2)});
  }
}

TEST_CASE("aten::argmax", "[reduce]") {
  auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::argmax(%x, %1, %true)
  %b : Tensor = aten::argmin(%x, %m1, %false)
  %y : Tensor = aten::argmax(%x, %none, %false))IR",
                              "%a, %b, %y"),
                           {randn({2, 3, 4})});
  CHECK(r.count("ArgMax") == 2);
}

TEST_CASE("aten::var", "[reduce]") {
  SECTION("unbiased dims") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::var(%x, %d1, %true, %true)
  %b : Tensor = aten::std(%x, %d02, %false, %false)
  %y : Tensor = aten::std(%x, %true))IR",
                       "%a, %b, %y"),
                    {randn({2, 3, 4})});
  }
  SECTION("correction") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::var(%x, %d1, %0, %false)
  %y : Tensor = aten::std(%x, %none, %2, %true))IR",
                       "%a, %y"),
                    {randn({2, 3, 4})});
  }
  SECTION("correction past the count gives inf, not a negative variance") {
    const std::string g = ir("%x : Tensor", R"IR(
  %c : int = prim::Constant[value=5]()
  %a : Tensor = aten::var(%x, %d1, %c, %false)
  %y : Tensor = aten::std(%x, %d1, %c, %true))IR",
                             "%a, %y");
    check_ir_opsets(g, {randn({2, 3, 4})});
    check_ir_dynamic(g, {randn({2, 3, 4}, 1)}, {randn({3, 4, 4}, 2)});
  }
}

TEST_CASE("aten::norm", "[reduce]") {
  SECTION("p=2 over dims") {
    auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %y : Tensor = aten::norm(%x, %2, %d1, %true))IR"),
                             {randn({2, 3, 4})});
    CHECK(r.count("ReduceL2") == 1);
  }
  SECTION("other p") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %p3 : float = prim::Constant[value=3.5]()
  %p0 : float = prim::Constant[value=0.]()
  %a : Tensor = aten::norm(%x, %1, %d1, %false)
  %b : Tensor = aten::norm(%x, %p3, %d02, %false)
  %c : Tensor = aten::norm(%x, %p0, %d1, %false)
  %y : Tensor = aten::norm(%x, %2))IR",
                       "%a, %b, %c, %y"),
                    {randn({2, 3, 4})});
  }
  SECTION("linalg_vector_norm") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::linalg_vector_norm(%x, %2, %d1, %true, %none)
  %y : Tensor = aten::linalg_vector_norm(%x, %2, %none, %false, %none))IR",
                       "%a, %y"),
                    {randn({2, 3, 4})});
  }
}

TEST_CASE("aten::logsumexp", "[reduce]") {
  auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::logsumexp(%x, %d1, %true)
  %y : Tensor = aten::logsumexp(%x, %d02, %false))IR",
                              "%a, %y"),
                           {randn({2, 3, 4})});
  CHECK(r.count("ReduceLogSumExp") == 2);
}

TEST_CASE("aten::all", "[reduce]") {
  SECTION("bool") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::all(%x, %1, %false)
  %b : Tensor = aten::any(%x, %0, %true)
  %c : Tensor = aten::all(%x)
  %y : Tensor = aten::any(%x))IR",
                       "%a, %b, %c, %y"),
                    {ints({4, 3}, 0, 2).to(at::kBool)});
  }
  SECTION("float") {
    check_ir_opsets(ir("%x : Tensor", R"IR(
  %a : Tensor = aten::all(%x, %1, %false)
  %y : Tensor = aten::any(%x, %m1, %false))IR",
                       "%a, %y"),
                    {ints({4, 3}, 0, 2).to(at::kFloat)});
  }
}

TEST_CASE("aten::cumsum", "[reduce]") {
  auto r = check_ir_opsets(ir("%x : Tensor, %i : Tensor", R"IR(
  %a : Tensor = aten::cumsum(%x, %1, %none)
  %y : Tensor = aten::cumsum(%i, %m1, %none))IR",
                              "%a, %y"),
                           {randn({2, 3, 4}), ints({2, 3}, 0, 9, at::kInt)});
  CHECK(r.count("CumSum") == 2);
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::cumsum(%x, %0, %double)"),
                  {randn({5, 2})});
}

// The builder writes each node in the form of its opset (builder/opset_forms.cpp) and checks it
// against libonnx's schema up to 17, its own table (builder/onnx_schemas.cpp) above.
TEST_CASE("builder: node forms and schemas across opsets", "[reduce]") {
  using namespace torch2onnx;
  auto node = [](GraphBuilder &b, size_t i) -> const onnx::NodeProto & {
    return b.model().graph().node(static_cast<int>(i));
  };
  auto has_attr = [](const onnx::NodeProto &n, const std::string &name) {
    for (const auto &a : n.attribute())
      if (a.name() == name)
        return true;
    return false;
  };
  TensorInfo f32{DType::Float, std::vector<Dim>{Dim::known(2), Dim::known(3)}};
  SECTION("opset 11: axes and split sizes as attributes, Softmax over a non-last axis") {
    GraphBuilder b(11);
    Val x = b.add_input("x", f32);
    b.op1("Unsqueeze", {x, b.const_i64({0})});
    CHECK(node(b, 0).input_size() == 1);
    CHECK(has_attr(node(b, 0), "axes"));
    b.op("Split", {x, b.const_i64({1, 2})}, {{"axis", int64_t{1}}}, 2);
    CHECK(has_attr(node(b, 1), "split"));
    b.op1("Softmax", {x}, {{"axis", int64_t{0}}});
    CHECK(node(b, 2).op_type() == "Transpose");
    Val dynamic = b.op1("Shape", {x});
    CHECK_THROWS_WITH(b.op1("Squeeze", {x, dynamic}), Catch::Contains("needs opset 13"));
  }
  SECTION("opset 18: Reduce* axes as an input, Split num_outputs") {
    GraphBuilder b(18);
    Val x = b.add_input("x", f32);
    b.op1("ReduceMean", {x}, {{"axes", std::vector<int64_t>{1}}, {"keepdims", int64_t{0}}});
    CHECK(node(b, 0).input_size() == 2);
    CHECK_FALSE(has_attr(node(b, 0), "axes"));
    b.op("Split", {x}, {{"axis", int64_t{0}}}, 2);
    CHECK(has_attr(node(b, 1), "num_outputs"));
  }
  SECTION("opset 21: own schema table rejects what ONNX does not define") {
    GraphBuilder b(21);
    Val x = b.add_input("x", f32);
    CHECK_THROWS_WITH(b.op1("Gelu", {x}, {{"approximate", "fast"}}),
                      Catch::Contains("not one of none, tanh"));
    CHECK_THROWS_WITH(b.op1("ReduceMax", {x}, {{"axis", int64_t{0}}}),
                      Catch::Contains("has no attribute 'axis'"));
    CHECK_NOTHROW(b.op1("Gelu", {x}, {{"approximate", "tanh"}}));
    CHECK_THROWS_WITH(b.op("Mish", {x}, {}, 2), Catch::Contains("has 1 outputs, got 2"));
  }
}

TEST_CASE("aten::amax, max and maximum of 8-bit integers at opset 11", "[reduce]") {
  // ReduceMax/ReduceMin take uint8/int8 and Max/Min integers only from opset 12 (an image's
  // img.amax(-1) was an invalid model at 11): reduced in int32 / double and cast back.
  const std::string g = ir("%x : Tensor, %w : Tensor", R"IR(
  %a : Tensor = aten::amax(%x, %d1, %false)
  %m : Tensor, %i : Tensor = aten::max(%x, %1, %true)
  %all : Tensor = aten::min(%x)
  %e : Tensor = aten::maximum(%x, %w))IR",
                           "%a, %m, %i, %all, %e");
  auto u8 = at::randint(0, 255, {2, 3, 4}).to(at::kByte);
  auto i8 = at::randint(-128, 127, {2, 3, 4}).to(at::kChar);
  for (const auto &x : {u8, i8}) {
    check_ir(g, {x, x.flip(-1)}, 11);
    check_ir(g, {x, x.flip(-1)}, 17);
  }
}

TEST_CASE("max and min of bool tensors and their reductions", "[reduce]") {
  // (x > 0.5).max(-1), torch.maximum of masks: ONNX's Max/Min take no bools, ReduceMax/Min only
  // from opset 20 and ONNX Runtime has no bool ArgMax: Or/And, or a Cast to int32 and back.
  const std::string g = ir("%x : Tensor, %w : Tensor", R"IR(
  %a : Tensor = aten::amax(%x, %d1, %false)
  %m : Tensor, %i : Tensor = aten::max(%x, %1, %true)
  %n : Tensor, %j : Tensor = aten::min(%x, %m1, %false)
  %all : Tensor = aten::min(%x)
  %e : Tensor = aten::maximum(%x, %w)
  %f : Tensor = aten::minimum(%x, %w))IR",
                           "%a, %m, %i, %n, %j, %all, %e, %f");
  auto x = randn({2, 3, 4}, 1) > 0.3;
  for (int opset : {11, 13, 17, 20})
    check_ir(g, {x, randn({2, 3, 4}, 2) > 0}, opset);
}

TEST_CASE("aten::mean over a dim that may be empty is NaN, as in LibTorch", "[reduce]") {
  // scores[scores > t].mean() with nothing above t (a data-dependent count) and a mean over a
  // dim of 0: ONNX Runtime's ReduceMean of nothing is 0, LibTorch's NaN; sum / count there.
  const std::string g = ir("%x : Tensor, %t : Tensor", R"IR(
  %m : Tensor = aten::gt(%x, %t)
  %l : Tensor?[] = prim::ListConstruct(%m)
  %sel : Tensor = aten::index(%x, %l)
  %a : Tensor = aten::mean(%sel, %none)
  %b : Tensor = aten::mean(%x, %d1, %false, %none))IR",
                           "%a, %b");
  check_ir(g, {randn({3, 4}), at::scalar_tensor(100.0)}); // nothing selected: NaN
  check_ir(g, {randn({3, 4}), at::scalar_tensor(0.0)});
  check_ir(g, {randn({3, 0}), at::scalar_tensor(0.0)}); // mean over a dim of 0
}
