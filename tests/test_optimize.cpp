// The graph rewrites of builder/optimize.h, one rule at a time: each fires where its condition
// holds (numerics still match LibTorch in ONNX Runtime) and stays away where it does not.
#include "builder/graph_builder.h"
#include "builder/optimize.h"
#include "builder/rewrites/rules.h"
#include "harness.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <onnx/onnx_pb.h>
#include <set>

using namespace t2o_test;
using namespace torch2onnx;

namespace {

size_t applied(const OptimizeReport &r, const std::string &rule) {
  auto it = r.applied.find(rule);
  return it == r.applied.end() ? 0 : it->second;
}

// A builder graph with one f32 input of `dims`, built by `body`, optimized; returns op types.
struct Built {
  std::vector<std::string> ops;
  OptimizeReport report;
  size_t count(const std::string &op) const {
    return static_cast<size_t>(std::count(ops.begin(), ops.end(), op));
  }
};

Built build(const std::vector<int64_t> &dims,
            const std::function<void(GraphBuilder &, Val)> &body) {
  GraphBuilder b(17);
  TensorInfo info;
  info.dtype = DType::Float;
  std::vector<Dim> shape;
  for (auto d : dims)
    shape.push_back(Dim{d, ""});
  info.shape = shape;
  Val x = b.add_input("x", info);
  body(b, x);
  Built out;
  SerializeOptions so;
  b.finish_graph(so);
  b.rewrite([&](onnx::ModelProto &m) { out.report = optimize_model(m); });
  b.serialize_to_string(so);
  out.ops = b.model_op_types();
  return out;
}

// Conv weights and batch-norm statistics made from deterministic ops, so they fold to constants.
const char *kConvBn = R"IR(
graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %false : bool = prim::Constant[value=0]()
  %true : bool = prim::Constant[value=1]()
  %i0 : int = prim::Constant[value=0]()
  %i1 : int = prim::Constant[value=1]()
  %i3 : int = prim::Constant[value=3]()
  %i4 : int = prim::Constant[value=4]()
  %n : int = prim::Constant[value=108]()
  %f6 : int = prim::Constant[value=6]()
  %mom : float = prim::Constant[value=0.1]()
  %eps : float = prim::Constant[value=1.0000000000000001e-05]()
  %r : Tensor = aten::arange(%n, %f6, %none, %none, %none)
  %s : Tensor = aten::sin(%r)
  %wshape : int[] = prim::ListConstruct(%i4, %i3, %i3, %i3)
  %w : Tensor = aten::reshape(%s, %wshape)
  %r4 : Tensor = aten::arange(%i4, %f6, %none, %none, %none)
  %gamma : Tensor = aten::cos(%r4)
  %beta : Tensor = aten::sin(%r4)
  %mean : Tensor = aten::sin(%gamma)
  %var0 : Tensor = aten::exp(%beta)
  %var : Tensor = aten::mul(%var0, %var0)
  %stride : int[] = prim::ListConstruct(%i1, %i1)
  %pad : int[] = prim::ListConstruct(%i1, %i1)
  %c : Tensor = aten::conv2d(%x, %w, %none, %stride, %pad, %stride, %i1)
  %y : Tensor = aten::batch_norm(%c, %gamma, %beta, %mean, %var, %false, %mom, %eps, %true)
  %z : Tensor = aten::relu(%y)
  return (%z)
)IR";

} // namespace

TEST_CASE("optimize: fold-conv-batchnorm folds the statistics into the Conv", "[optimize]") {
  auto r = check_ir_optimized(kConvBn, {randn({2, 3, 9, 9})});
  CHECK(applied(r.rewrites, "fold-conv-batchnorm") == 1);
  CHECK(r.count("BatchNormalization") == 0);
  CHECK(r.count("Conv") == 1);
  SECTION("not when the Conv's output is also used elsewhere") {
    std::string ir = kConvBn;
    auto pos = ir.find("  return (%z)");
    ir.replace(pos, std::string::npos, "  %o : Tensor = aten::add(%z, %c, %i1)\n  return (%o)\n");
    auto r2 = check_ir_optimized(ir, {randn({2, 3, 9, 9})});
    CHECK(applied(r2.rewrites, "fold-conv-batchnorm") == 0);
    CHECK(r2.count("BatchNormalization") == 1);
  }
}

TEST_CASE("optimize: cse computes a repeated subexpression once", "[optimize]") {
  const char *ir = R"IR(
graph(%x : Tensor):
  %i1 : int = prim::Constant[value=1]()
  %a : Tensor = aten::sigmoid(%x)
  %b : Tensor = aten::sigmoid(%x)
  %c : Tensor = aten::mul(%a, %x)
  %d : Tensor = aten::mul(%b, %x)
  %e : Tensor = aten::add(%c, %d, %i1)
  return (%e)
)IR";
  auto r = check_ir_optimized(ir, {randn({3, 5})});
  CHECK(applied(r.rewrites, "cse") == 2); // the second Sigmoid, then the second Mul
  CHECK(r.count("Sigmoid") == 1);
  CHECK(r.count("Mul") == 1);
  SECTION("random ops are never merged") {
    auto b = build({2, 3}, [](GraphBuilder &g, Val x) {
      auto r1 = g.op1("RandomUniformLike", {x});
      auto r2 = g.op1("RandomUniformLike", {x});
      g.add_output(g.op1("Add", {r1, r2}), "y");
    });
    CHECK(b.count("RandomUniformLike") == 2);
    CHECK(applied(b.report, "cse") == 0);
  }
}

TEST_CASE("optimize: identity removes Identity nodes, also before graph outputs", "[optimize]") {
  auto b = build({2, 3}, [](GraphBuilder &g, Val x) {
    auto i1 = g.op1("Identity", {x});
    auto r = g.op1("Relu", {i1});
    g.add_output(r, "y");
  });
  CHECK(b.count("Identity") == 0); // the inner one and the output Identity
  CHECK(applied(b.report, "identity") == 2);
  SECTION("an input returned as an output keeps its Identity") {
    auto k = build({2, 3}, [](GraphBuilder &g, Val x) { g.add_output(x, "y"); });
    CHECK(k.count("Identity") == 1);
  }
  SECTION("a value returned twice keeps one of the two Identity nodes") {
    auto k = build({2, 3}, [](GraphBuilder &g, Val x) {
      auto r = g.op1("Relu", {x});
      g.add_output(r, "y1");
      g.add_output(r, "y2");
    });
    CHECK(k.count("Identity") == 2); // Relu has two readers: neither output can take its name
  }
}

TEST_CASE("optimize: noop-cast drops casts to the type a value already has", "[optimize]") {
  auto b = build({2, 3}, [](GraphBuilder &g, Val x) {
    auto same = g.op1("Cast", {x}, {Attr("to", 1)});      // f32 -> f32
    auto other = g.op1("Cast", {same}, {Attr("to", 11)}); // f32 -> f64 stays
    g.add_output(other, "y");
  });
  CHECK(b.count("Cast") == 1);
  CHECK(applied(b.report, "noop-cast") == 1);
}

TEST_CASE("optimize: noop-reshape drops Reshape/Expand to the same shape", "[optimize]") {
  const char *ir = R"IR(
graph(%x : Tensor):
  %i2 : int = prim::Constant[value=2]()
  %i3 : int = prim::Constant[value=3]()
  %im1 : int = prim::Constant[value=-1]()
  %same : int[] = prim::ListConstruct(%i2, %im1)
  %other : int[] = prim::ListConstruct(%i3, %i2)
  %a : Tensor = aten::reshape(%x, %same)
  %b : Tensor = aten::relu(%a)
  %c : Tensor = aten::reshape(%b, %other)
  return (%c)
)IR";
  auto r = check_ir_optimized(ir, {randn({2, 3})});
  CHECK(applied(r.rewrites, "noop-reshape") >= 1);
  CHECK(r.count("Reshape") == 1); // [2,3] -> [3,2] stays
  SECTION("Expand that broadcasts nothing") {
    auto b = build({2, 3}, [](GraphBuilder &g, Val x) {
      auto e1 = g.op1("Expand", {x, g.const_i64({1, 3})});     // no-op
      auto e2 = g.op1("Expand", {e1, g.const_i64({4, 2, 3})}); // adds a dim: stays
      g.add_output(e2, "y");
    });
    CHECK(b.count("Expand") == 1);
    CHECK(applied(b.report, "noop-expand") == 1);
    CHECK(applied(b.report, "noop-reshape") == 0);
  }
}

TEST_CASE("optimize: noop-transpose and noop-dropout", "[optimize]") {
  auto b = build({2, 3, 4}, [](GraphBuilder &g, Val x) {
    auto t1 = g.op1("Transpose", {x}, {Attr("perm", std::vector<int64_t>{0, 1, 2})});
    auto t2 = g.op1("Transpose", {t1}, {Attr("perm", std::vector<int64_t>{0, 2, 1})});
    auto d = g.op("Dropout", {t2}, {}, 1)[0];
    g.add_output(g.op1("Relu", {d}), "y");
  });
  CHECK(b.count("Transpose") == 1);
  CHECK(b.count("Dropout") == 0);
  CHECK(applied(b.report, "noop-transpose") == 1);
  CHECK(applied(b.report, "noop-dropout") == 1);
}

namespace {

// A 4x3 weight %w made from deterministic ops (it folds to a constant), then `body`.
std::string with_weight(const std::string &inputs, const std::string &body) {
  return "graph(" + inputs + R"IR():
  %none : NoneType = prim::Constant()
  %false : bool = prim::Constant[value=0]()
  %m1 : int = prim::Constant[value=-1]()
  %i3 : int = prim::Constant[value=3]()
  %i4 : int = prim::Constant[value=4]()
  %n : int = prim::Constant[value=12]()
  %f6 : int = prim::Constant[value=6]()
  %r : Tensor = aten::arange(%n, %f6, %none, %none, %none)
  %s : Tensor = aten::sin(%r)
  %wshape : int[] = prim::ListConstruct(%i4, %i3)
  %w : Tensor = aten::reshape(%s, %wshape)
)IR" + body;
}

size_t initializers_of(const IrResult &r, int64_t numel) {
  return static_cast<size_t>(
      std::count(r.initializer_numels.begin(), r.initializer_numels.end(), numel));
}

} // namespace

TEST_CASE("optimize: fold-transpose-weight stores a Linear's weight transposed", "[optimize]") {
  // nn.Linear on 3-D input: Transpose(W) + MatMul, the Transpose folded into the initializer.
  std::string ir = with_weight("%x : Tensor", "  %y : Tensor = aten::linear(%x, %w, %none)\n"
                                              "  return (%y)\n");
  auto r = check_ir_optimized(ir, {randn({2, 5, 3})});
  CHECK(applied(r.rewrites, "fold-transpose-weight") == 1);
  CHECK(r.count("Transpose") == 0);
  CHECK(r.count("MatMul") == 1);
  CHECK(initializers_of(r, 12) == 1);
  // Without the rewrites (--no-optimize) the Transpose stays; check_ir verifies both files.
  CHECK(check_ir(ir, {randn({2, 5, 3})}).count("Transpose") == 1);
}

TEST_CASE("optimize: fold-transpose-weight's blocked transpose gives the element walk's bytes",
          "[optimize]") {
  // The fast path (the last two dims swapped) against the slow one, for every element size it
  // takes, shapes that are not multiples of its 16 x 16 blocks, batched matrices and empty ones;
  // other permutations go the slow way in both.
  using torch2onnx::rewrites::transpose_bytes;
  using torch2onnx::rewrites::transpose_bytes_generic;
  struct Case {
    std::vector<int64_t> dims, perm;
  };
  const std::vector<Case> cases = {{{37, 53}, {1, 0}},
                                   {{16, 16}, {1, 0}},
                                   {{1, 70}, {1, 0}},
                                   {{3, 17, 33}, {0, 2, 1}},
                                   {{2, 3, 5, 19}, {0, 1, 3, 2}},
                                   {{0, 8}, {1, 0}},
                                   {{4, 6, 5}, {2, 0, 1}},
                                   {{4, 6, 5}, {1, 0, 2}}};
  for (size_t es : {1, 2, 4, 8, 3}) {
    for (const auto &c : cases) {
      size_t n = es;
      for (int64_t d : c.dims)
        n *= static_cast<size_t>(d);
      std::string src(n, '\0');
      for (size_t k = 0; k < n; ++k)
        src[k] = static_cast<char>((k * 2654435761u) >> 13);
      INFO("element size " << es << ", " << c.dims.size() << "-d, perm[0] " << c.perm[0]);
      std::string fast = transpose_bytes(src, c.dims, c.perm, es);
      CHECK(fast == transpose_bytes_generic(src, c.dims, c.perm, es));
      CHECK(fast.size() == src.size());
    }
  }
}

// LeViT's Linear + BatchNorm1d: bn(linear(x).flatten(0, 1)).reshape_as(...), on 3-D input.
std::string linear_bn(const std::string &bias, const std::string &extra = "") {
  return with_weight("%x : Tensor", R"IR(  %true : bool = prim::Constant[value=1]()
  %i0 : int = prim::Constant[value=0]()
  %i1 : int = prim::Constant[value=1]()
  %mom : float = prim::Constant[value=0.1]()
  %eps : float = prim::Constant[value=1.0000000000000001e-05]()
  %r4 : Tensor = aten::arange(%i4, %f6, %none, %none, %none)
  %gamma : Tensor = aten::cos(%r4)
  %beta : Tensor = aten::sin(%r4)
  %mean : Tensor = aten::sin(%gamma)
  %var0 : Tensor = aten::exp(%beta)
  %var : Tensor = aten::mul(%var0, %var0)
  %b : Tensor = aten::cos(%beta)
  %h : Tensor = aten::linear(%x, %w, )IR" +
                                        bias + R"IR()
  %f : Tensor = aten::flatten(%h, %i0, %i1)
  %n2 : Tensor = aten::batch_norm(%f, %gamma, %beta, %mean, %var, %false, %mom, %eps, %true)
  %y : Tensor = aten::reshape_as(%n2, %h)
)IR" + extra);
}

TEST_CASE("optimize: fold-matmul-batchnorm folds a BatchNorm1d after a Linear", "[optimize]") {
  // Checked against LibTorch in ONNX Runtime with all its graph optimizations, whose own
  // MatMulBnFusion made a Gemm that refuses the rank-3 input before this rule (issue 30).
  for (const char *bias : {"%b", "%none"}) {
    INFO("bias " << bias);
    auto r = check_ir_optimized(linear_bn(bias, "  return (%y)\n"), {randn({2, 5, 3})});
    CHECK(applied(r.rewrites, "fold-matmul-batchnorm") == 1);
    CHECK(r.count("BatchNormalization") == 0);
    CHECK(r.count("MatMul") == 1);
    CHECK(initializers_of(r, 12) == 1); // the folded weight only
  }
  SECTION("not when the weight is also read elsewhere (tied)") {
    std::string ir = linear_bn("%b", "  %t : Tensor = aten::linear(%x, %w, %none)\n"
                                     "  return (%y, %t)\n");
    auto r = check_ir_optimized(ir, {randn({2, 5, 3})});
    CHECK(applied(r.rewrites, "fold-matmul-batchnorm") == 0);
    CHECK(r.count("BatchNormalization") == 1);
  }
}

// A Linear (weight w [4, 3], bias %b of 4) on x, then `body` reading its output %h.
std::string linear_then(const std::string &body) {
  return with_weight("%x : Tensor", R"IR(  %i0 : int = prim::Constant[value=0]()
  %i1 : int = prim::Constant[value=1]()
  %i2 : int = prim::Constant[value=2]()
  %r4 : Tensor = aten::arange(%i4, %f6, %none, %none, %none)
  %b : Tensor = aten::cos(%r4)
  %gamma : Tensor = aten::sin(%b)
  %h : Tensor = aten::linear(%x, %w, %b)
)IR" + body);
}

// ConvNeXt's layer scale: linear(x NHWC).permute(0, 3, 1, 2) times gamma reshaped to [C, 1, 1],
// the product's operands `operands` ("%g3, %p" or "%p, %g3").
std::string permuted_times_gamma(const std::string &operands) {
  return linear_then("  %i3 : int = prim::Constant[value=3]()\n"
                     "  %perm : int[] = prim::ListConstruct(%i0, %i3, %i1, %i2)\n"
                     "  %p : Tensor = aten::permute(%h, %perm)\n"
                     "  %gshape : int[] = prim::ListConstruct(%i4, %i1, %i1)\n"
                     "  %g3 : Tensor = aten::reshape(%gamma, %gshape)\n"
                     "  %y : Tensor = aten::mul(" +
                     operands + ")\n  return (%y)\n");
}

TEST_CASE("optimize: fold-matmul-scale folds a layer scale into the Linear", "[optimize]") {
  SECTION("gamma * linear(x), gamma along the features") {
    auto r = check_ir_optimized(linear_then("  %y : Tensor = aten::mul(%gamma, %h)\n"
                                            "  return (%y)\n"),
                                {randn({2, 5, 3})});
    CHECK(applied(r.rewrites, "fold-matmul-scale") == 1);
    CHECK(r.count("Mul") == 0);
    CHECK(initializers_of(r, 12) == 1); // the scaled weight only
  }
  SECTION("linear(x) * 0.5") {
    auto r = check_ir_optimized(linear_then("  %half : float = prim::Constant[value=0.5]()\n"
                                            "  %y : Tensor = aten::mul(%h, %half)\n"
                                            "  return (%y)\n"),
                                {randn({2, 5, 3})});
    CHECK(applied(r.rewrites, "fold-matmul-scale") == 1);
    CHECK(r.count("Mul") == 0);
  }
  SECTION("ConvNeXt: gamma [C, 1, 1] * linear(x NHWC).permute(0, 3, 1, 2)") {
    auto r = check_ir_optimized(permuted_times_gamma("%g3, %p"), {randn({2, 5, 6, 3})});
    CHECK(applied(r.rewrites, "fold-matmul-scale") == 1);
    CHECK(r.count("Mul") == 0);
    CHECK(r.count("Transpose") == 1);
  }
  SECTION("permute(linear(x)) * gamma [C, 1, 1]: the scale second") {
    auto r = check_ir_optimized(permuted_times_gamma("%p, %g3"), {randn({2, 5, 6, 3})});
    CHECK(applied(r.rewrites, "fold-matmul-scale") == 1);
    CHECK(r.count("Mul") == 0);
  }
  SECTION("not when the scales run along another axis than the features") {
    auto r = check_ir_optimized(linear_then("  %i5 : int = prim::Constant[value=5]()\n"
                                            "  %cols : Tensor = aten::arange(%i5, %f6, %none, "
                                            "%none, %none)\n"
                                            "  %sshape : int[] = prim::ListConstruct(%i5, %i1)\n"
                                            "  %s2 : Tensor = aten::reshape(%cols, %sshape)\n"
                                            "  %y : Tensor = aten::mul(%h, %s2)\n"
                                            "  return (%y)\n"),
                                {randn({2, 5, 3})});
    CHECK(applied(r.rewrites, "fold-matmul-scale") == 0);
    CHECK(r.count("Mul") == 1);
  }
  SECTION("not when the weight is also read elsewhere (tied)") {
    auto r = check_ir_optimized(linear_then("  %y : Tensor = aten::mul(%h, %gamma)\n"
                                            "  %t : Tensor = aten::linear(%x, %w, %none)\n"
                                            "  return (%y, %t)\n"),
                                {randn({2, 5, 3})});
    CHECK(applied(r.rewrites, "fold-matmul-scale") == 0);
    CHECK(initializers_of(r, 12) == 1);
  }
}

TEST_CASE("optimize: noop-index-wrap drops the negative-index wrap of nonzero's indices",
          "[optimize]") {
  // A switch-MoE router's dispatch: out[routed] = rows, routed = (expert == 1).nonzero().
  const char *ir = R"IR(
graph(%x : Tensor, %expert : Tensor, %idx : Tensor):
  %i0 : int = prim::Constant[value=0]()
  %i1 : int = prim::Constant[value=1]()
  %m1 : int = prim::Constant[value=-1]()
  %false : bool = prim::Constant[value=0]()
  %mask : Tensor = aten::eq(%expert, %i1)
  %nz : Tensor = aten::nonzero(%mask)
  %routed : Tensor = aten::squeeze(%nz, %m1)
  %rows : Tensor = aten::index_select(%x, %i0, %routed)
  %twice : Tensor = aten::mul(%rows, %rows)
  %ix : Tensor?[] = prim::ListConstruct(%routed)
  %y : Tensor = aten::index_put(%x, %ix, %twice, %false)
  %ix2 : Tensor?[] = prim::ListConstruct(%idx)
  %z : Tensor = aten::index_put(%x, %ix2, %twice, %false)
  return (%y, %z)
)IR";
  auto expert = at::tensor({1, 0, 1, 1, 2, 1}, at::kLong);
  // %idx may be negative (counts from the end): its wrap stays.
  auto idx = at::tensor({-1, 0, -3, 2}, at::kLong);
  auto r = check_ir_optimized(ir, {randn({6, 3}), expert, idx});
  CHECK(applied(r.rewrites, "noop-index-wrap") >= 1);
  CHECK(r.count("Where") == 1); // %idx's
}

TEST_CASE("optimize: fold-constants computes nodes of constants at export time", "[optimize]") {
  // x * Cast(0.25 as f64) + Reshape(c6, [2, 3]) + Unsqueeze(Range(0, 3, 1), 0) as f32
  // + ConstantOfShape([2, 3], 1.5): every constant-only node becomes an initializer.
  GraphBuilder b(17);
  TensorInfo info;
  info.dtype = DType::Float;
  info.shape = std::vector<Dim>{Dim::known(2), Dim::known(3)};
  Val x = b.add_input("x", info);
  Val quarter = b.op1("Cast", {b.constant(TensorData::f64({0.25}, {}))},
                      {{"to", int64_t{onnx::TensorProto::FLOAT}}});
  Val c6 = b.op1("Reshape",
                 {b.constant(TensorData::f32({1, 2, 3, 4, 5, 6}, {6})), b.const_i64({2, -1})});
  Val range = b.op1("Range", {b.const_i64_scalar(0), b.const_i64_scalar(3), b.const_i64_scalar(1)});
  Val row = b.op1("Cast", {b.op1("Unsqueeze", {range, b.const_i64({0})})},
                  {{"to", int64_t{onnx::TensorProto::FLOAT}}});
  Val ones =
      b.op1("ConstantOfShape", {b.const_i64({2, 3})}, {{"value", TensorData::f32({1.5F}, {1})}});
  Val y = b.op1("Mul", {x, quarter});
  y = b.op1("Add", {b.op1("Add", {b.op1("Add", {y, c6}), row}), ones});
  b.add_output(y, "y");
  SerializeOptions so;
  b.finish_graph(so);
  OptimizeReport report;
  b.rewrite([&](onnx::ModelProto &m) { report = optimize_model(m); });
  b.serialize_to_string(so);
  auto ops = b.model_op_types();
  CHECK(applied(report, "fold-constants") == 6);
  CHECK(std::count(ops.begin(), ops.end(), "Cast") == 0);
  CHECK(std::count(ops.begin(), ops.end(), "Reshape") == 0);
  CHECK(std::count(ops.begin(), ops.end(), "ConstantOfShape") == 0);
  CHECK(ops.size() == 4); // Mul, Add, Add, Add
  // The folded values, read back from the file's initializers.
  std::map<std::string, std::vector<float>> values;
  const auto &g = b.model().graph();
  for (const auto &t : g.initializer())
    if (t.data_type() == onnx::TensorProto::FLOAT && t.raw_data().size() % 4 == 0) {
      std::vector<float> v(t.raw_data().size() / 4);
      std::memcpy(v.data(), t.raw_data().data(), t.raw_data().size());
      values[t.name()] = v;
    }
  auto input_of = [&](const std::string &op, int k, int nth) {
    int seen = 0;
    for (const auto &n : g.node())
      if (n.op_type() == op && seen++ == nth)
        return n.input(k);
    return std::string();
  };
  CHECK(values[input_of("Mul", 1, 0)] == std::vector<float>{0.25F});
  CHECK(values[input_of("Add", 1, 0)] == std::vector<float>{1, 2, 3, 4, 5, 6});
  CHECK(values[input_of("Add", 1, 1)] == std::vector<float>{0, 1, 2});
  CHECK(values[input_of("Add", 1, 2)] == std::vector<float>{1.5F, 1.5F, 1.5F, 1.5F, 1.5F, 1.5F});
}

TEST_CASE("optimize: fold-constants folds equal values into one initializer, so cse still "
          "merges their readers",
          "[optimize]") {
  // Two Casts of the same f64 constant (as two converters write them), each read by a Mul of x:
  // folded separately into two initializers, the Muls would no longer look alike (swin_t's
  // shape arithmetic lost 1000 merges this way).
  auto r = build({2}, [](GraphBuilder &b, Val x) {
    auto half = [&] {
      return b.op1("Cast", {b.constant(TensorData::f64({0.5}, {}))},
                   {{"to", int64_t{onnx::TensorProto::FLOAT}}});
    };
    Val y1 = b.op1("Mul", {x, half()});
    Val y2 = b.op1("Mul", {x, half()});
    b.add_output(b.op1("Add", {y1, y2}), "y");
  });
  CHECK(applied(r.report, "fold-constants") == 2);
  CHECK(r.count("Cast") == 0);
  CHECK(r.count("Mul") == 1);
  SECTION("not into a value folded on since (its data is released)") {
    // The first Cast's value is only read by a Reshape, folded in turn: the second Cast of the
    // same value must get data of its own (ta_conformer: the ONNX checker rejected an initializer
    // without data).
    auto r2 = build({1}, [](GraphBuilder &b, Val x) {
      auto half = [&] {
        return b.op1("Cast", {b.constant(TensorData::f64({0.5}, {}))},
                     {{"to", int64_t{onnx::TensorProto::FLOAT}}});
      };
      Val reshaped = b.op1("Reshape", {half(), b.const_i64({1})});
      Val y = b.op1("Add", {b.op1("Mul", {x, reshaped}), b.op1("Mul", {x, half()})});
      b.add_output(y, "y");
    });
    CHECK(applied(r2.report, "fold-constants") == 3);
    CHECK(r2.count("Cast") == 0);
  }
}

TEST_CASE("optimize: fold-constants leaves casts ONNX does not define to the runtime",
          "[optimize]") {
  // NaN to an integer and 300 to uint8 are undefined in ONNX's Cast: the nodes stay.
  auto r = build({2}, [](GraphBuilder &b, Val x) {
    Val nan_i = b.op1("Cast", {b.constant(TensorData::f32({std::nanf("")}, {}))},
                      {{"to", int64_t{onnx::TensorProto::INT64}}});
    Val big_u8 = b.op1("Cast", {b.constant(TensorData::f32({300.0F}, {}))},
                       {{"to", int64_t{onnx::TensorProto::UINT8}}});
    Val s = b.op1("Add", {b.op1("Cast", {nan_i}, {{"to", int64_t{onnx::TensorProto::FLOAT}}}),
                          b.op1("Cast", {big_u8}, {{"to", int64_t{onnx::TensorProto::FLOAT}}})});
    b.add_output(b.op1("Add", {x, s}), "y");
  });
  CHECK(r.count("Cast") == 4);
  CHECK(applied(r.report, "fold-constants") == 0);
}

TEST_CASE("optimize: fold-constants leaves an empty result to the runtime", "[optimize]") {
  // A Cast of a constant with no elements (shape arithmetic of a size-0 dim): an initializer
  // without data is rejected by the ONNX checker, so the node stays (ta_conformer at static
  // sizes, found by make bench-graphs).
  auto r = build({2}, [](GraphBuilder &b, Val x) {
    Val empty = b.op1("Cast", {b.constant(TensorData::f64({}, {0}))},
                      {{"to", int64_t{onnx::TensorProto::FLOAT}}});
    b.add_output(b.op1("Concat", {x, empty}, {{"axis", int64_t{0}}}), "y");
  });
  CHECK(applied(r.report, "fold-constants") == 0);
  CHECK(r.count("Cast") == 1);
}

TEST_CASE("optimize: fold-reshape-chain reshapes once", "[optimize]") {
  // Swin's window partition: view -> permute -> contiguous().view -> view.
  const char *ir = R"IR(
graph(%x : Tensor):
  %i1 : int = prim::Constant[value=1]()
  %i2 : int = prim::Constant[value=2]()
  %i3 : int = prim::Constant[value=3]()
  %i4 : int = prim::Constant[value=4]()
  %m1 : int = prim::Constant[value=-1]()
  %s1 : int[] = prim::ListConstruct(%i2, %i2, %i2, %i2, %i3)
  %a : Tensor = aten::view(%x, %s1)
  %p : int[] = prim::ListConstruct(%i1, %i3, %i2, %i4, %m1)
  %s2 : int[] = prim::ListConstruct(%i4, %m1, %i3)
  %i0 : int = prim::Constant[value=0]()
  %perm : int[] = prim::ListConstruct(%i0, %i2, %i1, %i3, %i4)
  %t : Tensor = aten::permute(%a, %perm)
  %b : Tensor = aten::reshape(%t, %s2)
  %s3 : int[] = prim::ListConstruct(%m1, %i3)
  %c : Tensor = aten::reshape(%b, %s3)
  %u : Tensor = aten::unsqueeze(%c, %i0)
  %s4 : int[] = prim::ListConstruct(%i4, %i4, %i3)
  %d : Tensor = aten::reshape(%u, %s4)
  return (%d, %a)
)IR";
  auto r = check_ir_optimized(ir, {randn({4, 4, 3})});
  CHECK(applied(r.rewrites, "fold-reshape-chain") == 2); // b -> c, and unsqueeze -> d
  CHECK(r.count("Reshape") == 2);                        // %a (also an output), then one
  CHECK(r.count("Unsqueeze") == 0);
}

TEST_CASE("optimize: a weight tied to an embedding and an LM head is stored once", "[optimize]") {
  // logits = embedding(w, ids) @ w.t() + x: w is read twice, so neither the walk (folding
  // w.t()) nor the rewrites may make a transposed copy of it.
  std::string ir = with_weight("%x : Tensor, %ids : Tensor",
                               "  %h : Tensor = aten::embedding(%w, %ids, %m1, %false, %false)\n"
                               "  %wt : Tensor = aten::t(%w)\n"
                               "  %y : Tensor = aten::matmul(%h, %wt)\n"
                               "  %one : int = prim::Constant[value=1]()\n"
                               "  %z : Tensor = aten::add(%y, %x, %one)\n"
                               "  return (%z)\n");
  auto ids = at::randint(0, 4, {2, 5}, at::kLong);
  auto r = check_ir_optimized(ir, {randn({2, 5, 4}), ids});
  CHECK(applied(r.rewrites, "fold-transpose-weight") == 0);
  CHECK(r.count("Transpose") == 1);
  CHECK(initializers_of(r, 12) == 1);
}

TEST_CASE("optimize: long chains stay linear (aliases resolve through the whole chain)",
          "[optimize]") {
  // 20000 Identity nodes in a row: each aliases to the previous; the result must read x directly.
  auto b = build({4}, [](GraphBuilder &g, Val x) {
    Val v = x;
    for (int i = 0; i < 20000; ++i)
      v = g.op1("Identity", {v});
    g.add_output(g.op1("Neg", {v}), "y");
  });
  CHECK(b.ops.size() == 1);
  CHECK(b.ops[0] == "Neg");
  CHECK(b.report.nodes_before == 20002);
}

TEST_CASE("optimize: rules have unique names, opset ranges and element types", "[optimize]") {
  std::set<std::string> names;
  for (const auto &r : default_rules()) {
    CHECK(names.insert(r.name).second);
    CHECK(r.matches);
    CHECK(r.apply);
  }
  CHECK(names.size() == 14);
  // Two rules of one name would mix their counts: refused.
  std::vector<RewriteRule> twice = {default_rules()[1], default_rules()[1]};
  CHECK_THROWS_WITH(check_rule_names(twice), Catch::Contains("two rewrite rules are named"));
  auto transposes = [](const std::vector<RewriteRule> &rules, int opset, DType dtype) {
    GraphBuilder g(opset);
    TensorInfo info;
    info.dtype = dtype;
    info.shape = std::vector<Dim>{Dim{2, ""}, Dim{3, ""}};
    Val x = g.add_input("x", info);
    auto t = g.op1("Transpose", {x}, {Attr("perm", std::vector<int64_t>{0, 1})});
    g.add_output(g.op1("Neg", {t}), "y");
    SerializeOptions so;
    g.finish_graph(so);
    g.rewrite([&](onnx::ModelProto &m) { optimize_model(m, rules); });
    g.serialize_to_string(so);
    auto ops = g.model_op_types();
    return std::count(ops.begin(), ops.end(), "Transpose");
  };
  RewriteRule rule;
  for (const auto &r : default_rules())
    if (r.name == "noop-transpose")
      rule = r;
  CHECK(transposes({rule}, 17, DType::Float) == 0);
  SECTION("a rule is tried only within its opsets") {
    rule.min_opset = 18;
    CHECK(transposes({rule}, 17, DType::Float) == 1);
    rule.min_opset = 1;
    rule.max_opset = 16;
    CHECK(transposes({rule}, 17, DType::Float) == 1);
    CHECK(transposes({rule}, 13, DType::Float) == 0);
  }
  SECTION("a rule with element types is not tried on another type") {
    rule.elem_types = {11}; // onnx::TensorProto::DOUBLE
    CHECK(transposes({rule}, 17, DType::Float) == 1);
    CHECK(transposes({rule}, 17, DType::Double) == 0);
  }
  SECTION("apply runs only where the condition holds") {
    rule.matches = [](const OptGraph &, int) { return false; };
    CHECK(transposes({rule}, 17, DType::Float) == 1);
  }
}

TEST_CASE("builder: identical constants are stored once, large ones too", "[optimize]") {
  GraphBuilder b(17);
  std::vector<float> big(100000);
  for (size_t i = 0; i < big.size(); ++i)
    big[i] = static_cast<float>(i % 97) * 0.5f;
  Val a = b.constant(TensorData::f32(big, {100000}), "w");
  Val same = b.constant(TensorData::f32(big, {100000}), "w");
  CHECK(a.name == same.name);
  // Differs in one element between the sampled slices: must not be merged with `a`.
  auto other = big;
  other[50001] += 1.0f;
  Val c = b.constant(TensorData::f32(other, {100000}), "w");
  CHECK(c.name != a.name);
  Val reshaped = b.constant(TensorData::f32(big, {1000, 100}), "w"); // same bytes, other shape
  CHECK(reshaped.name != a.name);
}
