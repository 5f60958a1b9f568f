// --fallback-domain (docs/fallback.md): an op without a converter written as a node of a custom
// domain (tensor arguments as inputs, the others as attributes), with a notice listing it; off by
// default, where the one error listing every unsupported op stands.
#include "aten_lib/plugins.h"
#include "custom_op_resolver.h"
#include "exporter/core/tensor_util.h"
#include "exporter/export_module.h"
#include "exporter/frontend/torchscript/convert.h"
#include "exporter/frontend/torchscript/loader.h"
#include "exporter/options.h"
#include "harness.h"

#include <filesystem>
#include <onnx/onnx_pb.h>
#include <torch/csrc/jit/ir/irparser.h>
#include <torch/library.h>
#include <torch/script.h>

using namespace torch2onnx;
using namespace t2o_test;
namespace fs = std::filesystem;

namespace {

// An op torch2onnx has no converter for, with arguments of every kind.
at::Tensor scale_shift(const at::Tensor &x, const c10::optional<at::Tensor> &bias, double alpha,
                       c10::IntArrayRef dims, c10::string_view mode, bool flag) {
  (void)dims;
  (void)mode;
  at::Tensor y = x * alpha;
  if (bias && bias->defined())
    y = y + *bias;
  return flag ? y : -y;
}

using torch2onnx::testing::CustomOpResolver;

const char *kIr = R"IR(
graph(%x : Tensor, %b : Tensor):
  %alpha : float = prim::Constant[value=0.5]()
  %d0 : int = prim::Constant[value=1]()
  %d1 : int = prim::Constant[value=2]()
  %dims : int[] = prim::ListConstruct(%d0, %d1)
  %mode : str = prim::Constant[value="fast"]()
  %flag : bool = prim::Constant[value=1]()
  %y : Tensor = t2ofb::scale_shift(%x, %b, %alpha, %dims, %mode, %flag)
  %z : Tensor = aten::relu(%y)
  return (%z)
)IR";

Converted convert(const std::string &ir, const std::vector<at::Tensor> &inputs,
                  const Registry *registry) {
  auto graph = std::make_shared<torch::jit::Graph>();
  torch::jit::parseIR(ir, graph.get());
  prepare_graph(graph);
  GraphInputs gi;
  for (size_t i = 0; i < inputs.size(); ++i) {
    gi.names.push_back("input_" + std::to_string(i));
    gi.infos.push_back(info_of(inputs[i]));
    gi.example.emplace_back(inputs[i]);
  }
  return convert_graph(graph, gi, kDefaultOpset, {}, registry);
}

const onnx::AttributeProto *attr(const onnx::NodeProto &n, const std::string &name) {
  for (const auto &a : n.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

} // namespace

TORCH_LIBRARY(t2ofb, m) {
  m.def("scale_shift(Tensor x, Tensor? bias, float alpha, int[] dims, str mode, bool flag) -> "
        "Tensor",
        scale_shift);
}

TEST_CASE("without --fallback-domain an op without a converter fails as before", "[fallback]") {
  try {
    convert(kIr, {randn({2, 3}), randn({2, 3}, 2)}, nullptr);
    FAIL("converted an op without a converter");
  } catch (const Error &e) {
    CHECK(contains(e.what(), "1 op has no converter at opset 17:"));
    CHECK(contains(e.what(), "t2ofb::scale_shift (1 use)"));
    CHECK(contains(e.hint(), "--fallback-domain NAME"));
  }
}

TEST_CASE("fallback: --fallback-domain writes the op as a node of the domain", "[fallback]") {
  auto registry = registry_with_plugins(nullptr, {}, "org.t2o.test");
  REQUIRE(registry);
  Converted c = convert(kIr, {randn({2, 3}), randn({2, 3}, 2)}, registry.get());
  REQUIRE(c.fallback_ops.size() == 1);
  CHECK(c.fallback_ops[0].op == "t2ofb::scale_shift");
  CHECK(c.fallback_ops[0].uses == 1);
  // Serializing runs the ONNX checker and shape inference on the custom node.
  std::string bytes = c.builder->serialize_to_string(SerializeOptions{});
  onnx::ModelProto m;
  REQUIRE(m.ParseFromString(bytes));
  bool imported = false;
  for (const auto &imp : m.opset_import())
    imported = imported || (imp.domain() == "org.t2o.test" && imp.version() == 1);
  CHECK(imported);
  const onnx::NodeProto *node = nullptr;
  for (const auto &n : m.graph().node())
    if (n.domain() == "org.t2o.test")
      node = &n;
  REQUIRE(node);
  CHECK(node->op_type() == "scale_shift");
  REQUIRE(node->input_size() == 2); // x and bias: the schema's tensor arguments
  CHECK(node->input(0) == "input_0");
  CHECK(node->input(1) == "input_1");
  REQUIRE(attr(*node, "alpha"));
  CHECK(attr(*node, "alpha")->f() == 0.5f);
  REQUIRE(attr(*node, "dims"));
  CHECK(std::vector<int64_t>(attr(*node, "dims")->ints().begin(),
                             attr(*node, "dims")->ints().end()) == std::vector<int64_t>{1, 2});
  REQUIRE(attr(*node, "mode"));
  CHECK(attr(*node, "mode")->s() == "fast");
  REQUIRE(attr(*node, "flag"));
  CHECK(attr(*node, "flag")->i() == 1);
  REQUIRE(attr(*node, "torch_op"));
  CHECK(attr(*node, "torch_op")->s() == "t2ofb::scale_shift");
  // The node's output feeds the converted Relu, with the recorded dtype and shape.
  CHECK(c.builder->info(Val{node->output(0)}).str() == "f32[2,3]");
  bool relu = false;
  for (const auto &n : m.graph().node())
    relu = relu || (n.op_type() == "Relu" && n.input(0) == node->output(0));
  CHECK(relu);
}

TEST_CASE("fallback: --fallback-domain leaves an omitted optional tensor out", "[fallback]") {
  std::string ir = kIr;
  ir.replace(ir.find("%x : Tensor, %b : Tensor"), 24, "%x : Tensor");
  ir.replace(ir.find("  %alpha"), 0, "  %b : NoneType = prim::Constant()\n");
  auto registry = registry_with_plugins(nullptr, {}, "org.t2o.test");
  Converted c = convert(ir, {randn({2, 3})}, registry.get());
  c.builder->serialize_to_string(SerializeOptions{});
  const onnx::ModelProto &m = c.builder->model();
  bool found = false;
  for (const auto &n : m.graph().node())
    if (n.domain() == "org.t2o.test") {
      found = true;
      CHECK(n.input_size() == 1); // a trailing omitted input is dropped
    }
  CHECK(found);
}

TEST_CASE("an export with --fallback-domain warns and refuses --verify", "[fallback]") {
  torch::jit::Module mod("M");
  mod.define(R"(
def forward(self, x, b):
    return t2ofb.scale_shift(x, b, 0.5, [1, 2], "fast", True)
)",
             std::make_shared<CustomOpResolver>("t2ofb"));
  std::string dir = fresh_dir("fallback_export");
  ExportOptions o;
  o.output_path = dir + "/fallback.onnx";
  o.fallback_domain = "org.t2o.test";
  std::vector<c10::IValue> args = {randn({2, 3}), randn({2, 3}, 2)};
  ExportReport r = export_module(mod, args, o);
  CHECK(fs::exists(o.output_path));
  REQUIRE(r.fallback_ops.size() == 1);
  CHECK(r.fallback_domain == "org.t2o.test");
  CHECK(r.fallback_ops[0].op == "t2ofb::scale_shift");
  bool warned = false;
  for (const auto &n : r.notices)
    warned = warned || (contains(n, "t2ofb::scale_shift (1 use)") &&
                        contains(n, "written as nodes of the custom domain 'org.t2o.test'"));
  CHECK(warned);

  fs::remove(o.output_path);
  o.verify = true;
  try {
    export_module(mod, args, o);
    FAIL("verified a file ONNX Runtime cannot run");
  } catch (const Error &e) {
    CHECK(contains(e.what(), "--verify cannot run this model in ONNX Runtime: t2ofb::scale_shift "
                             "is written as nodes of the custom domain 'org.t2o.test'"));
  }
  CHECK_FALSE(fs::exists(o.output_path));
}

TEST_CASE("fallback: --fallback-domain takes dotted names other than ONNX's own", "[fallback]") {
  CHECK_NOTHROW(check_fallback_domain("org.example.ops"));
  CHECK_NOTHROW(check_fallback_domain("custom"));
  CHECK_THROWS_WITH(check_fallback_domain("ai.onnx"), Catch::Contains("one of ONNX's own"));
  CHECK_THROWS_WITH(check_fallback_domain("ai.onnx.ml"), Catch::Contains("one of ONNX's own"));
  CHECK_THROWS_WITH(check_fallback_domain("1abc"), Catch::Contains("is not a domain name"));
  CHECK_THROWS_WITH(check_fallback_domain("a..b"), Catch::Contains("is not a domain name"));
}

TEST_CASE("cli: a bad --fallback-domain is a command-line error", "[fallback]") {
  auto r = run_cli({"model.pt", "--fallback-domain", "ai.onnx"});
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, "--fallback-domain 'ai.onnx' is one of ONNX's own domains"));
}

// LibTorch's own warnings while the model runs (TORCH_WARN_ONCE: scatter_reduce is in beta) are
// the report's notices, not glog lines on stderr.
TEST_CASE("LibTorch's warnings become notices of the report", "[fallback]") {
  torch::jit::Module mod("M");
  mod.define(R"(
def forward(self, x, idx):
    return torch.zeros(3).scatter_reduce(0, idx, x, "amax")
)");
  ExportOptions o;
  o.output_path = fresh_dir("libtorch_warnings") + "/m.onnx";
  std::vector<c10::IValue> args = {randn({5}), at::tensor({0, 2, 1, 0, 2}, at::kLong)};
  ExportReport r = export_module(mod, args, o);
  bool noted = false;
  for (const auto &n : r.notices)
    noted = noted || (contains(n, "LibTorch warned") && contains(n, "scatter_reduce"));
  CHECK(noted);
}

// A model drawing random numbers (a diffusion step's torch.randn_like): a notice says why
// --verify cannot match, instead of only blaming the first node that reads the noise.
TEST_CASE("an op drawing random numbers is a notice of the report", "[fallback]") {
  torch::jit::Module mod("M");
  mod.define(R"(
def forward(self, x):
    return x * 0.9 + 0.1 * torch.randn_like(x)
)");
  ExportOptions o;
  o.output_path = fresh_dir("random_notice") + "/m.onnx";
  ExportReport r = export_module(mod, {randn({2, 4})}, o);
  int noted = 0;
  for (const auto &n : r.notices)
    noted += contains(n, "draws random numbers (aten::randn_like") ? 1 : 0;
  CHECK(noted == 1);
}
