// The public C++ API (include/torch2onnx/torch2onnx.h) as a user links it: this executable links
// only libtorch2onnx.so (t2o_api) and LibTorch, never the exporter's internal libraries.
// Numerical claims are the API's own verification: LibTorch and ONNX Runtime on the same inputs.
#include <filesystem>
#include <torch/csrc/jit/frontend/resolver.h>
#include <torch/csrc/jit/frontend/sugared_value.h>
#include <torch/library.h>
#include <torch/script.h>
#include <torch2onnx/torch2onnx.h>

#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

// LibTorch's glog CHECK(cond) would abort instead of reporting: Catch's CHECK, as tests/harness.h.
#undef CHECK
#define CHECK(...)                                                                                 \
  INTERNAL_CATCH_TEST("CHECK", Catch::ResultDisposition::ContinueOnFailure, __VA_ARGS__)

namespace fs = std::filesystem;

namespace {

std::string model(const std::string &name) {
  return std::string(T2O_TEST_MODELS "/") + name;
}

std::string out_path(const std::string &name) {
  fs::path dir = fs::path(T2O_TEST_OUT) / "api";
  fs::create_directories(dir);
  fs::path p = dir / name;
  fs::remove(p);
  return p.string();
}

} // namespace

TEST_CASE("export_module: a loaded module with a symbolic batch verifies in ONNX Runtime",
          "[api]") {
  torch::jit::Module m = torch::jit::load(model("tiny_cnn.pt"));
  m.train(true); // the export runs it in eval mode and gives it back as it came
  torch2onnx::ExportSettings s;
  s.dynamic_dims = {{"x", {{0, "batch"}}}};
  s.output_names = {"logits"};
  s.verify = true;
  std::vector<std::string> lines;
  s.log = [&](const std::string &line) { lines.push_back(line); };
  std::string out = out_path("tiny_cnn.onnx");
  torch2onnx::ExportResult r = torch2onnx::export_module(m, {torch::randn({2, 3, 16, 16})}, out, s);
  CHECK(m.is_training());
  CHECK(fs::exists(out));
  CHECK(r.output_path == out);
  CHECK(r.opset == 17);
  CHECK(r.nodes > 0);
  CHECK(r.parameters > 0);
  CHECK(r.input_names == std::vector<std::string>{"x"});
  CHECK(r.output_names == std::vector<std::string>{"logits"});
  CHECK(!lines.empty());
  REQUIRE(r.verified);
  CHECK(r.verify_ok);
  // The example size and a second batch size, each compared output by output.
  REQUIRE(r.outputs.size() == 2);
  CHECK(r.outputs[0].sizes == "batch=2");
  CHECK(r.outputs[1].sizes != "batch=2");
  for (const auto &o : r.outputs) {
    CHECK(o.ok);
    CHECK(o.max_abs_error <= o.tolerance);
  }
}

TEST_CASE("export_module: input names and an older opset", "[api]") {
  torch::jit::Module m = torch::jit::load(model("two_inputs.pt"));
  torch2onnx::ExportSettings s;
  s.opset = 13;
  s.input_names = {"left", "right"};
  s.dynamic_dims = {{"left", {{0, "n"}}}, {"right", {{0, "n"}}}};
  s.verify = true;
  auto r = torch2onnx::export_module(m, {torch::randn({3, 4}), torch::randn({3, 4})},
                                     out_path("two_inputs.onnx"), s);
  CHECK(r.opset == 13);
  CHECK(r.input_names == std::vector<std::string>{"left", "right"});
  CHECK(r.verify_ok);
}

TEST_CASE("export_file: --input specs", "[api]") {
  torch2onnx::ExportSettings s;
  s.verify = true;
  auto r = torch2onnx::export_file(model("two_inputs.pt"), out_path("two_inputs_file.onnx"),
                                   {"a:f32[batch=2,5]", "b:f32[batch=2,5]"}, s);
  CHECK(r.input_names == std::vector<std::string>{"a", "b"});
  CHECK(r.verify_ok);
}

TEST_CASE("API errors are torch2onnx::Error with the CLI's message and no output file", "[api]") {
  std::string out = out_path("bad.onnx");
  SECTION("dynamic_dims naming no input") {
    torch::jit::Module m = torch::jit::load(model("tiny_cnn.pt"));
    torch2onnx::ExportSettings s;
    s.dynamic_dims = {{"images", {{0, "batch"}}}};
    REQUIRE_THROWS_AS(torch2onnx::export_module(m, {torch::randn({1, 3, 16, 16})}, out, s),
                      torch2onnx::Error);
    try {
      torch2onnx::export_module(m, {torch::randn({1, 3, 16, 16})}, out, s);
    } catch (const torch2onnx::Error &e) {
      CHECK_THAT(e.what(), Catch::Contains("'images'") && Catch::Contains("x"));
    }
  }
  SECTION("ops without a converter: every one named at once") {
    torch::jit::Module m = torch::jit::load(model("unconverted.pt"));
    try {
      torch2onnx::export_module(m, {torch::rand({2, 3})}, out);
      FAIL("the export should have failed");
    } catch (const torch2onnx::Error &e) {
      CHECK_THAT(e.what(), Catch::Contains("linalg_svd"));
    }
  }
  SECTION("a bad input spec") {
    REQUIRE_THROWS_AS(torch2onnx::export_file(model("two_inputs.pt"), out, {"a:f99[2]"}),
                      torch2onnx::Error);
  }
  CHECK(!fs::exists(out));
}

TEST_CASE("version", "[api]") {
  CHECK(torch2onnx::version() == T2O_VERSION);
}

namespace {

at::Tensor twice(const at::Tensor &x) {
  return x * 2;
}

// Resolves `t2otest.op(...)` in TorchScript source to the custom op t2otest::op, as Python's
// torch.ops.t2otest.op does (C++'s default resolver knows torch only).
struct CustomOpResolver : torch::jit::Resolver {
  std::shared_ptr<torch::jit::SugaredValue> resolveValue(const std::string &name,
                                                         torch::jit::GraphFunction &,
                                                         const torch::jit::SourceRange &) override {
    if (name == "torch")
      return std::make_shared<torch::jit::BuiltinModule>("aten");
    if (name == "t2otest")
      return std::make_shared<torch::jit::BuiltinModule>("t2otest");
    return nullptr;
  }
};

} // namespace

TORCH_LIBRARY(t2otest, m) {
  m.def("twice(Tensor x) -> Tensor", twice);
}

TEST_CASE("ExportSettings: converters load a plugin through libtorch2onnx.so", "[api]") {
  torch::jit::Module m("M");
  m.define(R"(
def forward(self, x):
    return torch.relu(t2otest.twice(x))
)",
           std::make_shared<CustomOpResolver>());
  torch2onnx::ExportSettings s;
  s.verify = true;
  std::string out = out_path("plugin.onnx");
  SECTION("the plugin's converter, verified") {
    s.converters = {T2O_PLUGIN_GOOD};
    torch2onnx::ExportResult r = torch2onnx::export_module(m, {torch::randn({2, 3})}, out, s);
    REQUIRE(r.verified);
    CHECK(r.verify_ok);
  }
  SECTION("a missing plugin is an Error") {
    s.converters = {"/no/such/plugin.so"};
    CHECK_THROWS_WITH(torch2onnx::export_module(m, {torch::randn({2, 3})}, out, s),
                      Catch::Contains("converter plugin '/no/such/plugin.so' does not exist"));
  }
  SECTION("fallback_domain writes the op as a custom node and refuses verify") {
    s.fallback_domain = "org.t2o.api";
    CHECK_THROWS_WITH(torch2onnx::export_module(m, {torch::randn({2, 3})}, out, s),
                      Catch::Contains("--verify cannot run this model"));
    s.verify = false;
    torch2onnx::ExportResult r = torch2onnx::export_module(m, {torch::randn({2, 3})}, out, s);
    CHECK(fs::exists(out));
    bool warned = false;
    for (const auto &n : r.notices)
      warned = warned || n.find("custom domain 'org.t2o.api'") != std::string::npos;
    CHECK(warned);
  }
}
