// --dtype f16 / bf16 (builder/float16.h, docs/float16.md): the conversion step on small graphs
// (weights, Casts at the inputs and outputs, the float32 ops, subgraphs, the ONNX checker and
// shape inference on the result), and exports through the CLI and a zoo manifest, checked against
// Python's own outputs of the oracle fixtures (models/make_oracle_models.py) at the float16
// tolerance.
#include "builder/float16.h"
#include "builder/graph_builder.h"
#include "harness.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>
#include <torch/script.h>

using namespace t2o_test;
using namespace torch2onnx;
namespace fs = std::filesystem;

namespace {

constexpr int kF32 = onnx::TensorProto::FLOAT;
constexpr int kF16 = onnx::TensorProto::FLOAT16;

TensorInfo f32(std::vector<int64_t> dims) {
  TensorInfo info;
  info.dtype = DType::Float;
  std::vector<Dim> shape;
  for (auto d : dims)
    shape.push_back(Dim::known(d));
  info.shape = shape;
  return info;
}

// A finished, converted graph: `body` adds nodes and outputs to a builder with input x f32[2,4].
struct Converted {
  onnx::ModelProto model;
  FloatConversionReport report;
  std::string bytes; // serialized after the ONNX checker and shape inference
};

Converted convert(const std::function<void(GraphBuilder &, Val)> &body,
                  const FloatConversion &fc = {}) {
  GraphBuilder b(17);
  Val x = b.add_input("x", f32({2, 4}));
  body(b, x);
  SerializeOptions so;
  b.finish_graph(so);
  Converted c;
  b.rewrite([&](onnx::ModelProto &m) { c.report = convert_float_type(m, fc); });
  c.bytes = b.serialize_to_string(so);
  REQUIRE(c.model.ParseFromString(c.bytes));
  return c;
}

const onnx::NodeProto *producer(const onnx::GraphProto &g, const std::string &value) {
  for (const auto &n : g.node())
    for (const auto &o : n.output())
      if (o == value)
        return &n;
  return nullptr;
}

int cast_to(const onnx::NodeProto &n) {
  for (const auto &a : n.attribute())
    if (a.name() == "to")
      return static_cast<int>(a.i());
  return -1;
}

int elem(const onnx::ValueInfoProto &v) {
  return v.type().tensor_type().elem_type();
}

// The element type of `value` from the model's inputs, outputs and inferred value_info.
int value_type(const onnx::GraphProto &g, const std::string &value) {
  for (const auto *list : {&g.input(), &g.output(), &g.value_info()})
    for (const auto &v : *list)
      if (v.name() == value)
        return elem(v);
  for (const auto &t : g.initializer())
    if (t.name() == value)
      return t.data_type();
  return 0;
}

// x -> MatMul(w) -> Add(b) -> Softmax -> output; and x -> ReduceSum -> second output.
void mlp(GraphBuilder &b, Val x) {
  Val w = b.constant(TensorData::f32(std::vector<float>(12, 0.5F), {4, 3}), "w");
  Val bias = b.constant(TensorData::f32({1, 2, 1e-6F}, {3}), "bias"); // 1e-6: a subnormal
  Val h = b.op1("Add", {b.op1("MatMul", {x, w}), bias});
  Val s = b.op1("Softmax", {b.op1("Relu", {h})}, {Attr("axis", int64_t{-1})});
  b.set_info(s, f32({2, 3}));
  b.add_output(s, "probs");
  Val r = b.op1("ReduceSum", {x, b.const_i64({1})}, {Attr("keepdims", int64_t{0})});
  b.set_info(r, f32({2}));
  b.add_output(r, "sums");
}

} // namespace

TEST_CASE("float16: weights become float16, float32 inputs and outputs keep their type",
          "[float16]") {
  Converted c = convert(mlp);
  const auto &g = c.model.graph();
  for (const auto &t : g.initializer())
    CHECK(t.data_type() != kF32);         // w and bias; the int64 axes stay int64
  CHECK(c.report.float32_constants == 0); // bias's 1e-6 is within a roundoff of its 2
  CHECK(elem(g.input(0)) == kF32);
  for (const auto &o : g.output()) {
    CHECK(elem(o) == kF32);
    const auto *p = producer(g, o.name());
    REQUIRE(p != nullptr);
    // Softmax and ReduceSum compute in float32: their outputs need no Cast back.
    CHECK((p->op_type() == "Softmax" || p->op_type() == "ReduceSum" ||
           (p->op_type() == "Cast" && cast_to(*p) == kF32)));
  }
  // x is read in float16 by MatMul through one Cast, and in float32 by ReduceSum without one.
  const onnx::NodeProto *matmul = nullptr, *reduce = nullptr, *softmax = nullptr;
  for (const auto &n : g.node()) {
    if (n.op_type() == "MatMul")
      matmul = &n;
    if (n.op_type() == "ReduceSum")
      reduce = &n;
    if (n.op_type() == "Softmax")
      softmax = &n;
  }
  REQUIRE((matmul && reduce && softmax));
  const auto *in_cast = producer(g, matmul->input(0));
  REQUIRE(in_cast != nullptr);
  CHECK(in_cast->op_type() == "Cast");
  CHECK(cast_to(*in_cast) == kF16);
  CHECK(in_cast->input(0) == "x");
  CHECK(reduce->input(0) == "x");
  CHECK(value_type(g, matmul->output(0)) == kF16);
  CHECK(value_type(g, softmax->input(0)) == kF32);
  CHECK(c.report.kept == 2);
  // No Cast reads another Cast's output (no float16 -> float32 -> float16 pair).
  for (const auto &n : g.node())
    if (n.op_type() == "Cast") {
      const auto *p = producer(g, n.input(0));
      CHECK((p == nullptr || p->op_type() != "Cast"));
    }
  // The same graph converts to the same bytes.
  CHECK(convert(mlp).bytes == c.bytes);
}

TEST_CASE("float16: an input declared float16 takes no Cast; bfloat16 converts the same way",
          "[float16]") {
  FloatConversion fc;
  fc.low_inputs = {"x"};
  Converted c = convert(mlp, fc);
  CHECK(elem(c.model.graph().input(0)) == kF16);
  for (const auto &n : c.model.graph().node()) {
    INFO(n.name() << " reads " << n.input(0));
    if (n.op_type() == "Cast" && n.input(0) == "x")
      CHECK(cast_to(n) == kF32); // only ReduceSum's, which computes in float32
  }
  FloatConversion bf;
  bf.to = onnx::TensorProto::BFLOAT16;
  Converted b = convert(mlp, bf);
  for (const auto &t : b.model.graph().initializer())
    CHECK(t.data_type() != kF32);
  CHECK(float32_ops().size() > 10);
  CHECK(std::is_sorted(float32_ops().begin(), float32_ops().end()));
}

namespace {

// max(norm, 1e-12) -> Expand -> Div, then Mul by a weight; x * 1e5 / 1e6.
void eps_and_large(GraphBuilder &b, Val x) {
  Val norm =
      b.op1("ReduceL2", {x}, {Attr("axes", std::vector<int64_t>{1}), Attr("keepdims", int64_t{1})});
  Val eps = b.constant(TensorData::f32({1e-12F}, {}), "eps");
  Val shape = b.op1("Shape", {x});
  Val d = b.op1("Div", {x, b.op1("Expand", {b.op1("Max", {norm, eps}), shape})});
  Val w = b.constant(TensorData::f32({0.5F, 1e-6F, 2, 3}, {4}), "w");
  Val y = b.op1("Mul", {d, w});
  b.set_info(y, f32({2, 4}));
  b.add_output(y, "y");
  Val big = b.constant(TensorData::f32({1e5F}, {}), "big");
  Val huge = b.constant(TensorData::f32({1e6F}, {}), "huge");
  Val z = b.op1("Relu", {b.op1("Div", {b.op1("Mul", {x, big}), huge})});
  b.set_info(z, f32({2, 4}));
  b.add_output(z, "z");
}

// x [2, 4] as [2, 4, 1, 1] -> Conv (1x1, 3 channels) with a bias of 1e-8 (what folding a BatchNorm
// with zero shift leaves); the same tiny tensor also as the Gemm's bias and, separately, as an
// Add operand. Returns nothing; outputs "conv", "gemm", "added".
void tiny_biases(GraphBuilder &b, Val x) {
  Val img = b.op1("Reshape", {x, b.const_i64({2, 4, 1, 1})});
  Val w = b.constant(TensorData::f32(std::vector<float>(12, 0.25F), {3, 4, 1, 1}), "w");
  Val tiny = b.constant(TensorData::f32({1e-8F, -2e-8F, 3e-9F}, {3}), "tiny");
  Val conv = b.op1("Conv", {img, w, tiny});
  b.set_info(conv, f32({2, 3, 1, 1}));
  b.add_output(conv, "conv");
  Val wg = b.constant(TensorData::f32(std::vector<float>(12, 0.5F), {4, 3}), "wg");
  Val tiny2 = b.constant(TensorData::f32({4e-9F, 1e-8F, -1e-8F}, {3}), "tiny2");
  Val gemm = b.op1("Gemm", {x, wg, tiny2});
  b.set_info(gemm, f32({2, 3}));
  b.add_output(gemm, "gemm");
  Val eps = b.constant(TensorData::f32({1e-8F, 1e-8F, 1e-8F, 1e-8F}, {4}), "eps");
  Val added = b.op1("Add", {x, eps});
  b.set_info(added, f32({2, 4}));
  b.add_output(added, "added");
}

} // namespace

// A bias below float16's smallest normal converts (it moves its outputs by at most 3e-8); the
// same values as an operand of an Add (an eps) stay float32 with the op that reads them.
TEST_CASE("float16: a tiny Conv or Gemm bias converts, its layer with it", "[float16]") {
  Converted c = convert(tiny_biases);
  const auto &g = c.model.graph();
  CHECK(c.report.float32_constants == 1); // eps only
  for (const auto &t : g.initializer()) {
    INFO(t.name());
    CHECK((t.data_type() == kF32) == (t.name() == "eps"));
  }
  for (const auto &n : g.node())
    if (n.op_type() == "Conv" || n.op_type() == "Gemm")
      CHECK(value_type(g, n.output(0)) == kF16);
}

TEST_CASE("float16: a constant float16 cannot hold stays float32, with the ops that read and carry "
          "it",
          "[float16]") {
  Converted c = convert(eps_and_large);
  const auto &g = c.model.graph();
  CHECK(c.report.float32_constants == 3);               // eps, big, huge; not w (1e-6 next to 3)
  std::map<std::string, const onnx::NodeProto *> by_op; // "Mul", "Mul2": in graph order
  for (const auto &n : g.node())
    by_op[n.op_type() + (by_op.count(n.op_type()) ? "2" : "")] = &n;
  for (const char *op : {"Max", "Expand", "Div", "Mul2", "Div2"}) {
    INFO(op);
    REQUIRE(by_op.count(op));
    CHECK(value_type(g, by_op[op]->output(0)) == kF32); // computed in float32
  }
  CHECK(value_type(g, by_op["Max"]->input(1)) == kF32);  // eps
  CHECK(value_type(g, by_op["Mul2"]->input(1)) == kF32); // big
  CHECK(value_type(g, by_op["Div2"]->input(1)) == kF32); // huge
  CHECK(value_type(g, by_op["Mul"]->input(1)) == kF16);  // w
  // The Div computes with the carried eps: Mul reads its output through a Cast to float16.
  CHECK(by_op["Div"]->input(0) == "x");
  CHECK(value_type(g, by_op["Mul"]->output(0)) == kF16);
  const auto *cast = producer(g, by_op["Mul"]->input(0));
  REQUIRE(cast != nullptr);
  CHECK(cast->op_type() == "Cast");
  CHECK(cast_to(*cast) == kF16);
  // Relu reads Div2's output, which carries no constant (Div2 computed with it): float16.
  REQUIRE(by_op.count("Relu"));
  CHECK(value_type(g, by_op["Relu"]->output(0)) == kF16);
  // bfloat16 holds all of them (float32's exponent range).
  FloatConversion bf;
  bf.to = onnx::TensorProto::BFLOAT16;
  CHECK(convert(eps_and_large, bf).report.float32_constants == 0);
}

namespace {

// A scripted module saved to `name`.pt in a fresh folder: forward's source in TorchScript.
std::string scripted_model(const std::string &name, const std::string &forward,
                           const std::vector<std::pair<std::string, at::Tensor>> &buffers = {}) {
  torch::jit::Module m("M");
  for (const auto &[n, t] : buffers)
    m.register_buffer(n, t);
  m.define(forward);
  std::string path = fresh_dir(name) + "/" + name + ".pt";
  m.save(path);
  return path;
}

} // namespace

TEST_CASE("float16: normalize of a zero row and a product by 1e5 verify in float16",
          "[float16][cli]") {
  // Before: 1e-12 was 0 in float16, so the zero row was 0/0 = NaN; 1e5 was clamped to 65504.
  std::string pt = scripted_model("float16_eps",
                                  "def forward(self, x):\n"
                                  "    x = x * self.rows\n"
                                  "    n = x.norm(2, [-1], True)\n"
                                  "    y = x / n.clamp_min(1e-12).expand_as(x)\n"
                                  "    return y, x * 100000.0 / 1000000.0\n",
                                  {{"rows", at::tensor({0.0F, 1.0F, 1.0F}).reshape({3, 1})}});
  auto r = run_cli({pt, "--input", "x:f32[3,8]", "--dtype", "f16", "--verify", "-o",
                    pt.substr(0, pt.size() - 3) + "_f16.onnx"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(contains(r.out, "verify output_0: max abs error"));
  CHECK(contains(r.out, "verify output_1: max abs error"));
}

TEST_CASE("float16: a Loop carrying such a constant reads it in float16, as its body does",
          "[float16]") {
  auto body = [](GraphBuilder &b, Val x) {
    Val eps = b.constant(TensorData::f32({1e-12F}, {}), "eps");
    b.begin_subgraph("body");
    b.add_subgraph_input("i", ValueType{DType::Int64, false, std::vector<Dim>{}});
    Val c = b.add_subgraph_input("c", ValueType{DType::Bool, false, std::vector<Dim>{}});
    Val v = b.add_subgraph_input("v", ValueType{DType::Float, false, std::vector<Dim>{}});
    Val v2 = b.op1("Add", {v, b.const_scalar(DType::Float, 1.0)});
    Subgraph g = b.end_subgraph({c, v2}, {ValueType{DType::Bool}, ValueType{DType::Float}});
    Val n = b.const_scalar(DType::Int64, 2);
    Val yes = b.const_scalar(DType::Bool, 1);
    Val out = b.op_with_subgraphs("Loop", {n, yes, eps}, {{"body", g}}, 1)[0];
    Val y = b.op1("Add", {x, out});
    b.set_info(y, f32({2, 4}));
    b.add_output(y, "y");
  };
  Converted c = convert(body); // the ONNX checker and shape inference accept the types
  const onnx::NodeProto *loop = nullptr;
  for (const auto &n : c.model.graph().node())
    if (n.op_type() == "Loop")
      loop = &n;
  REQUIRE(loop != nullptr);
  CHECK(value_type(c.model.graph(), loop->input(2)) == kF16);
  CHECK(value_type(c.model.graph(), loop->output(0)) == kF16);
}

TEST_CASE("float16: If branches, constants and casts inside them are converted", "[float16]") {
  auto body = [](GraphBuilder &b, Val x) {
    Val sum = b.op1("ReduceSum", {x, b.const_i64({0, 1})}, {Attr("keepdims", int64_t{0})});
    Val cond = b.op1("Greater", {sum, b.const_scalar(DType::Float, 0.0)});
    b.begin_subgraph("then");
    Val t = b.op1("Mul", {x, b.const_scalar(DType::Float, 2.0)});
    Subgraph then_g = b.end_subgraph({t}, {ValueType{DType::Float}});
    b.begin_subgraph("else");
    Val e = b.op1("Cast", {b.op1("Shape", {x})}, {Attr("to", int64_t{kF32})});
    Val e2 = b.op1("Exp", {b.op1("ReduceMean", {x}, {Attr("keepdims", int64_t{1})})});
    Subgraph else_g =
        b.end_subgraph({b.op1("Mul", {e2, b.op1("ReduceSum", {e})})}, {ValueType{DType::Float}});
    Val y =
        b.op_with_subgraphs("If", {cond}, {{"then_branch", then_g}, {"else_branch", else_g}}, 1)[0];
    b.set_info(y, f32({2, 4}));
    b.add_output(y, "y");
  };
  Converted c = convert(body);
  const auto &g = c.model.graph();
  CHECK(elem(g.output(0)) == kF32);
  const onnx::NodeProto *if_node = nullptr;
  for (const auto &n : g.node())
    if (n.op_type() == "If")
      if_node = &n;
  REQUIRE(if_node != nullptr);
  for (const auto &a : if_node->attribute()) {
    INFO(a.name());
    CHECK(elem(a.g().output(0)) == kF16);
    for (const auto &n : a.g().node())
      if (n.op_type() == "Cast" && n.input(0).find("Shape") != std::string::npos)
        CHECK(cast_to(n) == kF32); // a size made float: index arithmetic, kept float32
  }
}

TEST_CASE("float16: bits round to nearest even; overflow is inf, NaN stays NaN", "[float16]") {
  CHECK(float16_bits(1.0F) == 0x3c00);
  CHECK(float16_bits(65504.0F) == 0x7bff);
  CHECK(float16_bits(65520.0F) == 0x7c00);
  CHECK(float16_bits(-2.0F) == 0xc000);
  CHECK(float16_bits(1.0F + 1.0F / 2048) == 0x3c00); // halfway: to even
  CHECK(float16_bits(5.96e-8F) == 0x0001);           // the smallest subnormal
  CHECK(float16_value(float16_bits(0.1F)) == Approx(0.1F).epsilon(1e-3));
  CHECK(std::isnan(float16_value(float16_bits(std::nanf("")))));
  CHECK(bfloat16_bits(1.0F) == 0x3f80);
  CHECK((bfloat16_bits(std::nanf("")) & 0x7fc0) == 0x7fc0);
}

namespace {

std::string oracle(const std::string &name) {
  return std::string(T2O_ORACLE_MODELS) + "/" + name;
}

} // namespace

TEST_CASE("float16: --dtype f16 --verify matches LibTorch and Python at the float16 tolerance, "
          "in half the size",
          "[float16][cli]") {
  std::string dir = fresh_dir("float16_cli");
  const std::vector<std::string> common = {oracle("oracle_cnn.pt"), "--input", "x:f32[1,3,16,16]",
                                           "--input-data", oracle("oracle_cnn.inputs.pt")};
  auto args32 = common;
  args32.insert(args32.end(), {"-o", dir + "/f32.onnx", "-q"});
  REQUIRE(run_cli(args32).exit_code == 0);
  auto args = common;
  args.insert(args.end(), {"-o", dir + "/f16.onnx", "--dtype", "f16", "--verify",
                           "--expected-outputs", oracle("oracle_cnn.expected.pt")});
  auto r = run_cli(args);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.out, "verify output: max abs error"));
  CHECK(contains(r.out, "matches the expected outputs"));
  CHECK(contains(r.out, "260 parameters (520 B)")); // 1040 B in float32 (the file size: python:api)
  onnx::ModelProto m;
  REQUIRE(m.ParseFromString(file_bytes(dir + "/f16.onnx")));
  CHECK(elem(m.graph().input(0)) == kF32);
  CHECK(elem(m.graph().output(0)) == kF32);
  SECTION("the float32 tolerance would refuse it: the float16 one is what passes") {
    auto strict = common;
    strict.insert(strict.end(), {"--dtype", "f16", "--verify", "--rtol", "1e-6", "--atol", "1e-6",
                                 "-o", dir + "/s.onnx"});
    CHECK(run_cli(strict).exit_code == 1);
  }
  SECTION("bf16 cannot be verified, an unknown type is refused, both before the export") {
    auto bf = run_cli({oracle("oracle_cnn.pt"), "--input", "x:f32[1,3,16,16]", "--dtype", "bf16",
                       "--verify", "-o", dir + "/bf.onnx"});
    INFO(bf.err);
    CHECK(bf.exit_code == 2);
    CHECK(contains(bf.err, "bfloat16 kernels"));
    auto f8 = run_cli({oracle("oracle_cnn.pt"), "--input", "x:f32[1,3,16,16]", "--dtype", "f8"});
    CHECK(f8.exit_code == 2);
    CHECK(contains(f8.err, "--dtype 'f8'"));
    auto plain = run_cli({oracle("oracle_cnn.pt"), "--input", "x:f32[1,3,16,16]", "--dtype", "bf16",
                          "-o", dir + "/bf.onnx", "-q"});
    CHECK(plain.exit_code == 0);
  }
}

TEST_CASE("float16: an x:f16 input of a float32 model is recorded in float32 and declared "
          "float16",
          "[float16][cli]") {
  // LibTorch's CPU kernels have no float16 Conv: without --dtype f16 the model cannot run on a
  // float16 input; with it, LibTorch runs in float32 on the float16-rounded values and the file
  // takes float16, verified at two batch sizes, and --locate runs through the same inputs.
  std::string dir = fresh_dir("float16_f16_input");
  const std::vector<std::string> common = {oracle("oracle_cnn.pt"), "--input",
                                           "x:f16[batch=1,3,16,16]"};
  auto plain = common;
  plain.insert(plain.end(), {"-o", dir + "/f32.onnx"});
  auto refused = run_cli(plain);
  CHECK(refused.exit_code == 1);
  CHECK(contains(refused.err, "Half"));
  CHECK(contains(refused.err, "add --dtype f16")); // the hint says what to do
  auto args = common;
  args.insert(args.end(), {"-o", dir + "/m.onnx", "--dtype", "f16", "--verify", "--locate",
                           "--verify-dims", "batch=3", "--report", dir + "/r.json"});
  auto r = run_cli(args);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.out, "verify output [batch=3]"));
  CHECK(contains(r.out + r.err, "first diverging node: none found"));
  onnx::ModelProto m;
  REQUIRE(m.ParseFromString(file_bytes(dir + "/m.onnx")));
  CHECK(elem(m.graph().input(0)) == kF16);
  for (const auto &n : m.graph().node()) // the first Conv reads the float16 input as it is
    CHECK((n.op_type() != "Cast" || n.input(0) != "x"));
  auto j = nlohmann::json::parse(file_bytes(dir + "/r.json"));
  CHECK(j["inputs"][0]["dtype"] == "f16");
  // The test data holds what the file takes: float16.
  onnx::TensorProto t;
  REQUIRE(t.ParseFromString(file_bytes(dir + "/m/test_data_set_0/input_0.pb")));
  CHECK(t.data_type() == kF16);
}

TEST_CASE("float16: a zoo manifest's dtype key exports every model in float16", "[float16][zoo]") {
  std::string dir = fresh_dir("float16_zoo");
  std::string manifest = dir + "/zoo.yaml";
  std::ofstream(manifest) << "model_dir: " << T2O_ORACLE_MODELS << "\nmodels:\n"
                          << "  - {name: cnn, model: oracle_cnn.pt, inputs: \"x:f32[1,3,16,16]\", "
                             "dtype: f16}\n";
  auto r = run_cli({"zoo", manifest, "--out", dir + "/o", "--json", dir + "/r.json",
                    "--require-expected-outputs"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  auto j = nlohmann::json::parse(file_bytes(dir + "/r.json"));
  REQUIRE(j["models"].size() == 1);
  CHECK(j["models"][0]["status"] == "pass");
  CHECK(j["models"][0]["expected_checked"] == true);
  auto log = nlohmann::json::parse(file_bytes(dir + "/o/logs/cnn.json"));
  CHECK(log["options"]["dtype"] == "f16");
}

TEST_CASE("float16: a scatter with a reduction (scatter_add, index_add) stays float32",
          "[float16]") {
  // Sums of many updates, like ReduceSum; ONNX Runtime's CPU ScatterElements of opset 16+ has no
  // float16 kernel for reduction 'add' (a GNN's message passing failed to load in f16).
  auto body = [](GraphBuilder &b, Val x) {
    Val idx = b.constant(TensorData::i64({0, 1, 1, 0, 2, 2, 3, 3}, {2, 4}));
    Val upd = b.op1("Mul", {x, b.constant(TensorData::f32({2.0F}, {}))});
    Val add = b.op1("ScatterElements", {x, idx, upd},
                    {Attr("axis", int64_t{1}), Attr("reduction", std::string("add"))});
    b.set_info(add, f32({2, 4}));
    b.add_output(add, "summed");
    Val put = b.op1("ScatterElements", {upd, idx, x}, {Attr("axis", int64_t{1})});
    b.set_info(put, f32({2, 4}));
    b.add_output(put, "placed");
  };
  Converted c = convert(body);
  const auto &g = c.model.graph();
  const onnx::NodeProto *add = nullptr, *put = nullptr;
  for (const auto &n : g.node())
    if (n.op_type() == "ScatterElements")
      (n.attribute_size() == 2 ? add : put) = &n;
  REQUIRE((add && put));
  CHECK(value_type(g, add->output(0)) == kF32);
  CHECK(value_type(g, add->input(2)) == kF32);
  CHECK(value_type(g, put->output(0)) == kF16);
}

TEST_CASE("float16: index arithmetic written in float stays float32 (T5 buckets, rotary angles)",
          "[float16][cli]") {
  // T5's relative-position buckets (log of positions, then .long()) and rotary angles from
  // arange(T).float(): in float16 positions past 2048 are not whole numbers and a bucket
  // boundary moves (a bucket off by one picked another embedding row: error 9.3 on a scale of 8).
  // The chain from an integer made float up to its first float16 activation computes in float32.
  std::string pt =
      scripted_model("float16_index_math",
                     "def forward(self, x):\n"
                     "    t = x.size(1)\n"
                     "    pos = torch.arange(t)\n"
                     "    rel = (pos[None, :] - pos[:, None]).abs()\n"
                     "    big = 8 + (torch.log(rel.float() / 8 + 1e-6) / 2.77 * 8).long()\n"
                     "    bucket = torch.where(rel < 8, rel, torch.clamp(big, max=15))\n"
                     "    ang = torch.arange(t).float()[:, None] * self.inv_freq[None, :]\n"
                     "    rot = x[0, :, :4] * torch.cos(ang) + x[0, :, 4:] * torch.sin(ang)\n"
                     "    return self.table[bucket].sum(-1) + rot.sum(-1), bucket\n",
                     {{"inv_freq", 1.0 / at::pow(10000.0, at::arange(0, 8, 2, at::kFloat) / 8)},
                      {"table", at::randn({16, 4})}});
  auto r = run_cli({pt, "--input", "x:f32[1,seq=3000,8]", "--dtype", "f16", "--verify", "-o",
                    pt.substr(0, pt.size() - 3) + "_f16.onnx"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(contains(r.out, "verify output_1 [seq=3000]: max abs error 0,"));
}

TEST_CASE("float16: a model saved in float16 verifies at the float16 tolerance", "[float16][cli]") {
  // (x * 300).sum(-1) in float16: LibTorch sums in float32 and rounds once, ONNX Runtime's
  // float16 ReduceSum rounds as it goes: an ulp apart (0.125 of 340), over the default 1e-4.
  std::string pt = scripted_model("float16_saved_sum",
                                  "def forward(self, x):\n"
                                  "    return (x * self.k).sum(-1)\n",
                                  {{"k", at::full({8}, 300.0).to(at::kHalf)}});
  auto r = run_cli({pt, "--input", "x:f16[batch=3,8]", "--verify", "--seed", "3", "-o",
                    pt.substr(0, pt.size() - 3) + ".onnx"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
}
