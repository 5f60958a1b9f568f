// --functions: calls of chosen module classes become calls of ONNX local functions, one
// FunctionProto per distinct body, weights passed in; the file verifies in ONNX Runtime against
// LibTorch like the flat graph. Fixtures: models/make_function_models.py (T2O_FUNCTION_MODELS).
#include "apps/zoo.h"
#include "builder/functions.h"
#include "exporter/export.h"
#include "harness.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

using namespace t2o_test;
using namespace torch2onnx;
namespace fs = std::filesystem;

namespace {

std::string model_path(const std::string &name) {
  return (fs::path(T2O_FUNCTION_MODELS) / (name + ".pt")).string();
}

onnx::ModelProto read_model(const std::string &path) {
  onnx::ModelProto m;
  std::ifstream f(path, std::ios::binary);
  REQUIRE(f);
  REQUIRE(m.ParseFromIstream(&f));
  return m;
}

ExportReport export_with(const std::string &name, const std::string &input,
                         const std::vector<std::string> &functions, int opset = 17) {
  ExportOptions o;
  o.model_path = model_path(name);
  o.output_path = fresh_dir("functions_" + name) + "/" + name + ".onnx";
  o.inputs = {parse_input_spec(input)};
  o.opset = opset;
  o.verify = true;
  o.functions = functions;
  o.verbosity = 0;
  return export_model(o);
}

void require_verified(const ExportReport &r) {
  REQUIRE(r.verify);
  for (const auto &c : r.verify->outputs) {
    INFO(c.name << " at " << c.sizes << ": max|onnx-torch| = " << c.max_abs_error << ", tolerance "
                << c.tolerance << " " << c.problem);
    CHECK(c.ok());
  }
  REQUIRE(r.verify->ok());
}

// Calls of local functions in the main graph, by function name.
std::map<std::string, int> calls_in(const onnx::ModelProto &m) {
  std::map<std::string, int> calls;
  for (const auto &n : m.graph().node())
    if (n.domain() == kFunctionDomain)
      ++calls[n.op_type()];
  return calls;
}

int count_op(const onnx::GraphProto &g, const std::string &op) {
  int n = 0;
  for (const auto &node : g.node())
    n += node.op_type() == op;
  return n;
}

const LocalFunction *find_function(const ExportReport &r, const std::string &name) {
  for (const auto &f : r.functions)
    if (f.name == name)
      return &f;
  return nullptr;
}

} // namespace

TEST_CASE("functions: BasicBlocks become two functions and verify") {
  ExportReport r = export_with("small_resnet", "x:f32[1,3,32,32]", {"BasicBlock"});
  require_verified(r);
  // The downsampling block (stride 2, 1x1 shortcut) computes something else than the other three.
  REQUIRE(r.functions.size() == 2);
  const LocalFunction *plain = find_function(r, "BasicBlock");
  const LocalFunction *down = find_function(r, "BasicBlock_1");
  REQUIRE(plain != nullptr);
  REQUIRE(down != nullptr);
  CHECK(plain->calls == std::vector<std::string>{"layer1.0", "layer1.1", "layer2.1"});
  CHECK(down->calls == std::vector<std::string>{"layer2.0"});
  CHECK(plain->activation_inputs == 1);
  CHECK(plain->weight_inputs >= 2); // the two convolutions' weights (batch norm folded in)
  CHECK(down->weight_inputs > plain->weight_inputs);

  onnx::ModelProto m = read_model(r.output_path);
  REQUIRE(m.functions_size() == 2);
  CHECK(calls_in(m) == std::map<std::string, int>{{"BasicBlock", 3}, {"BasicBlock_1", 1}});
  for (const auto &f : m.functions()) {
    CHECK(f.domain() == kFunctionDomain);
    onnx::GraphProto body;
    *body.mutable_node() = f.node();
    CHECK(count_op(body, "Conv") == (f.name() == "BasicBlock" ? 2 : 3));
    CHECK(f.input_size() == static_cast<int>(f.name() == "BasicBlock"
                                                 ? plain->activation_inputs + plain->weight_inputs
                                                 : down->activation_inputs + down->weight_inputs));
  }
  // Only the stem's convolution is left in the main graph; weights stay its initializers.
  CHECK(count_op(m.graph(), "Conv") == 1);
  bool imported = false;
  for (const auto &imp : m.opset_import())
    imported = imported || (imp.domain() == kFunctionDomain && imp.version() == 1);
  CHECK(imported);
  // The op table still sees the convolutions inside the bodies.
  CHECK(r.ops.at("aten::_convolution").onnx.count("Conv") == 1);
}

TEST_CASE("functions: TransformerEncoderLayers become one function with a symbolic batch") {
  ExportReport r =
      export_with("small_encoder", "x:f32[batch=2,10,16]", {"TransformerEncoderLayer"});
  require_verified(r);
  CHECK(r.verify->outputs.size() == 2); // the example batch and a second size
  REQUIRE(r.functions.size() == 1);
  CHECK(r.functions[0].name == "TransformerEncoderLayer");
  CHECK(r.functions[0].calls == std::vector<std::string>{"encoder.0", "encoder.1", "encoder.2"});
  onnx::ModelProto m = read_model(r.output_path);
  CHECK(m.functions_size() == 1);
  CHECK(calls_in(m) == std::map<std::string, int>{{"TransformerEncoderLayer", 3}});
}

TEST_CASE("functions: blocks whose constants differ do not share a body") {
  // blocks.0 and blocks.2 multiply by 0.5, blocks.1 by 2.0.
  ExportReport r = export_with("scaled_mlp", "x:f32[4,8]", {"Scaled"});
  require_verified(r);
  REQUIRE(r.functions.size() == 2);
  CHECK(r.functions[0].name == "Scaled");
  CHECK(r.functions[0].calls == std::vector<std::string>{"blocks.0", "blocks.2"});
  CHECK(r.functions[1].name == "Scaled_1");
  CHECK(r.functions[1].calls == std::vector<std::string>{"blocks.1"});
}

TEST_CASE("functions: several types and opset 15 and the flat path unchanged") {
  ExportReport r = export_with("small_resnet", "x:f32[1,3,32,32]", {"BasicBlock", "Linear"}, 15);
  require_verified(r);
  CHECK(r.functions.size() == 3); // two BasicBlock bodies, one Linear
  ExportReport flat = export_with("small_resnet", "x:f32[1,3,32,32]", {});
  require_verified(flat);
  CHECK(flat.functions.empty());
  onnx::ModelProto m = read_model(flat.output_path);
  CHECK(m.functions_size() == 0);
  CHECK(calls_in(m).empty());
  for (const auto &imp : m.opset_import())
    CHECK(imp.domain() != kFunctionDomain);
}

TEST_CASE("functions: the report and show list the functions") {
  std::string dir = fresh_dir("functions_cli");
  std::string out = dir + "/resnet.onnx", report = dir + "/resnet.json";
  auto res = run_cli({model_path("small_resnet"), "-o", out, "--input", "x:f32[1,3,32,32]",
                      "--functions", "BasicBlock", "--verify", "--report", report});
  INFO(res.out << res.err);
  REQUIRE(res.exit_code == 0);
  CHECK(res.out.find("function torch2onnx.functions.BasicBlock (BasicBlock): 3 calls") !=
        std::string::npos);
  std::ifstream f(report);
  auto j = nlohmann::json::parse(f);
  REQUIRE(j["functions"].size() == 2);
  CHECK(j["functions"][0]["name"] == "BasicBlock");
  CHECK(j["functions"][0]["module_type"] == "BasicBlock");
  CHECK(j["functions"][0]["calls"].size() == 3);
  CHECK(j["functions"][1]["calls"] == nlohmann::json::parse(R"(["layer2.0"])"));
  CHECK(j["options"]["functions"] == nlohmann::json::parse(R"(["BasicBlock"])"));

  auto show = run_cli({"show", out, "--json"});
  REQUIRE(show.exit_code == 0);
  auto s = nlohmann::json::parse(show.out);
  REQUIRE(s["functions"].size() == 2);
  CHECK(s["functions"][0]["domain"] == kFunctionDomain);
  CHECK(s["functions"][0]["name"] == "BasicBlock");
  auto text = run_cli({"show", out});
  CHECK(text.out.find("functions: 2") != std::string::npos);
  CHECK(text.out.find("torch2onnx.functions.BasicBlock_1(") != std::string::npos);
}

TEST_CASE("functions: errors") {
  std::string dir = fresh_dir("functions_errors");
  SECTION("opset below 15") {
    auto res = run_cli({model_path("small_resnet"), "-o", dir + "/a.onnx", "--input",
                        "x:f32[1,3,32,32]", "--functions", "BasicBlock", "--opset", "14"});
    CHECK(res.exit_code != 0);
    CHECK(res.err.find("--functions needs opset 15 or newer") != std::string::npos);
    CHECK(!fs::exists(dir + "/a.onnx"));
  }
  SECTION("a class the model does not have") {
    auto res = run_cli({model_path("small_resnet"), "-o", dir + "/b.onnx", "--input",
                        "x:f32[1,3,32,32]", "--functions", "BasicBlok"});
    CHECK(res.exit_code != 0);
    INFO(res.err);
    CHECK(res.err.find("--functions BasicBlok: the model has no module of this class") !=
          std::string::npos);
    CHECK(res.err.find("BasicBlock") != std::string::npos); // the classes it has are listed
    CHECK(res.err.find("Conv2d") != std::string::npos);
    CHECK(!fs::exists(dir + "/b.onnx"));
  }
}

TEST_CASE("functions: a module called twice around another node gives two calls") {
  // a/Relu -> top-level Neg -> a/Relu: one call of "a" holding both Relus would need its own
  // output as input (a cycle), so they are two calls of one function.
  onnx::ModelProto m;
  auto *imp = m.add_opset_import();
  imp->set_domain("");
  imp->set_version(17);
  auto *g = m.mutable_graph();
  g->add_input()->set_name("x");
  auto add = [&](const std::string &name, const std::string &op, const std::string &in) {
    auto *n = g->add_node();
    n->set_name(name);
    n->set_op_type(op);
    n->add_input(in);
    n->add_output(name);
  };
  add("a/aten::relu/Relu", "Relu", "x");
  add("aten::neg/Neg", "Neg", "a/aten::relu/Relu");
  add("a/aten::relu/Relu_1", "Relu", "aten::neg/Neg");
  g->add_output()->set_name("a/aten::relu/Relu_1");
  auto fns = extract_functions(m, {{"a", "Act"}});
  REQUIRE(fns.size() == 1);
  CHECK(fns[0].name == "Act");
  CHECK(fns[0].calls == std::vector<std::string>{"a", "a"});
  CHECK(fns[0].nodes == 1);
  REQUIRE(g->node_size() == 3);
  CHECK(g->node(0).op_type() == "Act");
  CHECK(g->node(0).input(0) == "x");
  CHECK(g->node(1).op_type() == "Neg");
  CHECK(g->node(2).op_type() == "Act");
  CHECK(g->node(2).input(0) == "aten::neg/Neg");
  CHECK(g->node(2).output(0) == "a/aten::relu/Relu_1");
  REQUIRE(m.functions_size() == 1);
  CHECK(m.functions(0).input_size() == 1);
  CHECK(m.functions(0).output(0) == "aten::relu/Relu");
}

TEST_CASE("functions: two exports of one model give byte-identical files") {
  std::string dir = fresh_dir("functions_twice");
  ExportOptions o;
  o.model_path = model_path("small_encoder");
  o.inputs = {parse_input_spec("x:f32[batch=2,10,16]")};
  o.functions = {"TransformerEncoderLayer"};
  o.verbosity = 0;
  o.output_path = dir + "/a.onnx";
  export_model(o);
  o.output_path = dir + "/b.onnx";
  export_model(o);
  CHECK(file_bytes(dir + "/a.onnx") == file_bytes(dir + "/b.onnx"));
  CHECK(!file_bytes(dir + "/a.onnx").empty());
}

TEST_CASE("functions: zoo manifests take functions") {
  std::string dir = fresh_dir("functions_zoo");
  std::ofstream(dir + "/zoo.yaml") << "models:\n"
                                      "  - name: a\n"
                                      "    inputs: \"x:f32[1,3,32,32]\"\n"
                                      "    functions: [BasicBlock, Linear]\n"
                                      "  - name: b\n"
                                      "    inputs: \"x:f32[1,3,32,32]\"\n"
                                      "    functions: BasicBlock\n"
                                      "  - name: c\n"
                                      "    inputs: \"x:f32[1,3,32,32]\"\n";
  auto m = zoo::load_manifest(dir + "/zoo.yaml", "", 0);
  REQUIRE(m.jobs.size() == 3);
  CHECK(m.jobs[0].settings.functions == std::vector<std::string>{"BasicBlock", "Linear"});
  CHECK(m.jobs[1].settings.functions == std::vector<std::string>{"BasicBlock"});
  CHECK(m.jobs[2].settings.functions.empty());
}
