// Converter plugins (--converters, docs/plugins.md): loading, refusing what is no plugin or was
// built against another version, listing with `torch2onnx ops`, and an export through a plugin's
// converter verified in ONNX Runtime. The plugins are tests/plugins/test_plugin.cpp, built
// several ways.
#include "aten_lib/plugins.h"
#include "custom_op_resolver.h"
#include "exporter/export_module.h"
#include "harness.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <torch/library.h>
#include <torch/script.h>

using namespace torch2onnx;
using namespace t2o_test;
namespace fs = std::filesystem;

namespace {

at::Tensor twice(const at::Tensor &x) {
  return x * 2;
}

at::Tensor scale(const at::Tensor &x, double alpha) {
  return x * alpha;
}

using torch2onnx::testing::CustomOpResolver;

// The message load_plugin throws for `path` ("" when it loads).
std::string load_error(const std::string &path) {
  Registry r = Registry::global();
  try {
    load_plugin(path, r);
  } catch (const Error &e) {
    return std::string(e.what()) + "\n  hint: " + e.hint();
  }
  return "";
}

} // namespace

// The custom op the good plugin converts, as a custom-op library would register it.
TORCH_LIBRARY(t2otest, m) {
  m.def("twice(Tensor x) -> Tensor", twice);
  m.def("scale(Tensor x, float alpha=2.) -> Tensor", scale);
}

TEST_CASE("a plugin's converters join a copy of the registry with the plugin's path", "[plugins]") {
  auto r = registry_with_plugins(nullptr, {T2O_PLUGIN_GOOD}, "");
  REQUIRE(r);
  const RegistryEntry *e = r->find("t2otest::twice", kDefaultOpset);
  REQUIRE(e);
  CHECK(e->plugin == T2O_PLUGIN_GOOD);
  CHECK(e->family == "test_plugin");
  CHECK(e->onnx_ops == std::vector<std::string>{"Add"});
  CHECK(r->find("aten::relu", kDefaultOpset) != nullptr); // torch2onnx's own are all there
  CHECK(r->find("aten::relu", kDefaultOpset)->plugin.empty());
  CHECK(Registry::global().find("t2otest::twice", kDefaultOpset) == nullptr);
  CHECK(registry_with_plugins(nullptr, {}, "") == nullptr); // nothing to add
}

TEST_CASE("a plugin built against another torch2onnx version is refused", "[plugins]") {
  std::string msg = load_error(T2O_PLUGIN_OLD);
  INFO(msg);
  CHECK(contains(msg, "was built against torch2onnx 0.0.1 (plugin interface 999)"));
  CHECK(contains(msg, std::string("but this is torch2onnx ") + T2O_VERSION_TEXT));
  CHECK(contains(msg, "it is not loaded"));
  CHECK(contains(msg, "rebuild the plugin"));
}

TEST_CASE("a library without the plugin entry points is refused", "[plugins]") {
  std::string msg = load_error(T2O_PLUGIN_NO_ENTRY);
  INFO(msg);
  CHECK(contains(msg, "is not a torch2onnx converter plugin: it does not define "
                      "torch2onnx_plugin_abi_version"));
  CHECK(contains(msg, "TORCH2ONNX_PLUGIN"));
}

TEST_CASE("a plugin using a symbol torch2onnx lacks fails to load with its name", "[plugins]") {
  std::string msg = load_error(T2O_PLUGIN_UNDEFINED);
  INFO(msg);
  CHECK(contains(msg, "cannot load converter plugin"));
  CHECK(contains(msg, "undefined symbol"));
  CHECK(contains(msg, "t2o_test_missing_symbol()")); // demangled
}

TEST_CASE("a missing plugin file and a file that is no library are errors", "[plugins]") {
  std::string msg = load_error("/no/such/libplugin.so");
  CHECK(contains(msg, "converter plugin '/no/such/libplugin.so' does not exist"));
  std::string dir = fresh_dir("plugins_not_a_library");
  std::string text = dir + "/libtext.so";
  { std::ofstream(text) << "not a shared library"; }
  msg = load_error(text);
  INFO(msg);
  CHECK(contains(msg, "cannot load converter plugin '" + text + "'"));
}

TEST_CASE("a plugin registering an op torch2onnx already converts is refused", "[plugins]") {
  std::string msg = load_error(T2O_PLUGIN_DUPLICATE);
  INFO(msg);
  CHECK(contains(msg, "registers aten::relu at opset 11, which torch2onnx (family activation) "
                      "already has"));
}

TEST_CASE("torch2onnx ops lists a plugin's ops with the plugin they came from", "[plugins]") {
  auto r = run_cli({"ops", "--converters", T2O_PLUGIN_GOOD});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::string line;
  std::istringstream lines(r.out);
  bool found = false;
  while (std::getline(lines, line))
    if (line.rfind("t2otest::twice", 0) == 0) {
      found = true;
      CHECK(contains(line, "test_plugin"));
      CHECK(contains(line, std::string("[plugin ") + T2O_PLUGIN_GOOD + "]"));
    }
  CHECK(found);
  CHECK(contains(r.out, "(2 from plugins)"));

  auto j = run_cli({"ops", "--json", "--converters", T2O_PLUGIN_GOOD});
  REQUIRE(j.exit_code == 0);
  auto doc = nlohmann::json::parse(j.out);
  size_t plugin_ops = 0;
  for (const auto &e : doc) {
    if (e["op"] == "t2otest::twice")
      CHECK(e["plugin"] == T2O_PLUGIN_GOOD);
    plugin_ops += !e["plugin"].is_null();
  }
  CHECK(plugin_ops == 2);

  auto bad = run_cli({"ops", "--converters", T2O_PLUGIN_OLD});
  CHECK(bad.exit_code == 1);
  CHECK(contains(bad.err, "was built against torch2onnx 0.0.1"));
}

TEST_CASE("an export converts a custom op through its plugin and verifies", "[plugins]") {
  torch::jit::Module m("M");
  m.define(R"(
def forward(self, x):
    return torch.relu(t2otest.twice(x))
)",
           std::make_shared<CustomOpResolver>("t2otest"));
  std::string dir = fresh_dir("plugins_export");
  ExportOptions o;
  o.output_path = dir + "/twice.onnx";
  o.verify = true;
  std::vector<c10::IValue> args = {randn({2, 3})};
  SECTION("without the plugin: the usual error names the op") {
    try {
      export_module(m, args, o);
      FAIL("exported without a converter");
    } catch (const Error &e) {
      CHECK(contains(e.what(), "t2otest::twice (1 use)"));
      CHECK(contains(e.hint(), "--converters"));
    }
    CHECK_FALSE(fs::exists(o.output_path));
  }
  SECTION("with the plugin") {
    o.converters = {T2O_PLUGIN_GOOD};
    ExportReport r = export_module(m, args, o);
    REQUIRE(r.verify);
    CHECK(r.verify->ok());
    REQUIRE(r.ops.count("t2otest::twice"));
    CHECK(r.ops.at("t2otest::twice").onnx.count("Add") == 1);
  }
}

// Plugins written for interface 1 read arguments by position (c.tensor(0), c.double_or(1, ...));
// that still works, as does calling torch2onnx's converters from a plugin (ConvertCtx::call).
TEST_CASE("a plugin reading arguments by position, calling aten::mul's converter", "[plugins]") {
  torch::jit::Module m("M");
  m.define(R"(
def forward(self, x):
    return t2otest.scale(x) + t2otest.scale(x, 0.5)
)",
           std::make_shared<CustomOpResolver>("t2otest"));
  std::string dir = fresh_dir("plugins_positional");
  ExportOptions o;
  o.output_path = dir + "/scale.onnx";
  o.verify = true;
  o.converters = {T2O_PLUGIN_GOOD};
  std::vector<c10::IValue> args = {randn({2, 3})};
  ExportReport r = export_module(m, args, o);
  REQUIRE(r.verify);
  CHECK(r.verify->ok());
  REQUIRE(r.ops.count("t2otest::scale"));
  CHECK(r.ops.at("t2otest::scale").onnx.count("Mul") == 1);
}
