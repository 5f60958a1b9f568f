// `torch2onnx show`: on files torch2onnx wrote (with provenance), on a file with If, Loop and a
// local function written by python3-onnx (another producer), and on files it cannot read.
#include "builder/graph_builder.h"
#include "exporter/frontend/torchscript/convert.h"
#include "exporter/frontend/torchscript/loader.h"
#include "harness.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <torch/csrc/jit/ir/irparser.h>

using namespace t2o_test;
namespace fs = std::filesystem;

namespace {

// The line of `text` containing `part` (empty when none does).
std::string line_with(const std::string &text, const std::string &part) {
  size_t at = text.find(part);
  if (at == std::string::npos)
    return "";
  size_t start = text.rfind('\n', at);
  start = start == std::string::npos ? 0 : start + 1;
  return text.substr(start, text.find('\n', at) - start);
}

size_t indent_of(const std::string &line) {
  return line.find_first_not_of(' ');
}

// tiny_cnn (Conv -> BatchNorm -> ReLU -> pool -> flatten -> Linear) with a symbolic batch.
std::string export_tiny(const std::string &dir, const std::vector<std::string> &extra = {}) {
  std::string out = dir + "/m.onnx";
  std::vector<std::string> args = {test_model("tiny_cnn"), "-o", out, "--input",
                                   "x:f32[batch=1,3,16,16]"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = run_cli(args);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  return out;
}

// The python3-onnx file (models/make_show_fixture.py), made once per run.
std::string other_exporter_file() {
  static std::string path;
  if (path.empty()) {
    std::string dir = fresh_dir("show_other");
    auto r = run_command(shell_quote(T2O_PYTHON) + " " +
                         shell_quote(std::string(T2O_SOURCE_DIR) + "/models/make_show_fixture.py") +
                         " " + shell_quote(dir + "/other.onnx"));
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0); // needs python3-onnx: scripts/install_deps.sh installs it
    path = dir + "/other.onnx";
  }
  return path;
}

} // namespace

TEST_CASE("show: our file lists each node with types and the aten op it came from", "[show]") {
  std::string out = export_tiny(fresh_dir("show_ours"));
  auto r = run_cli({"show", out});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.out, "ONNX IR 8, opset ai.onnx 17, producer torch2onnx "));
  CHECK(contains(r.out, "inputs:\n  x: f32[batch,3,16,16]\n"));
  CHECK(contains(r.out, "outputs:\n  output: f32[batch,4]\n"));
  // Conv+BatchNorm folded: the Conv carries the conv's provenance and writes the BN's value.
  std::string conv = line_with(r.out, " Conv(");
  CHECK(contains(conv, "Conv(x: f32[batch,3,16,16], conv.weight_bnfold_1: f32[8,3,3,3]"));
  CHECK(contains(conv, "-> bn/aten::batch_norm/BatchNormalization: f32[batch,8,16,16]"));
  CHECK(contains(conv, "kernel_shape=[3,3]"));
  CHECK(contains(conv, "pads=[1,1,1,1]"));
  CHECK(contains(conv, "# aten::_convolution in conv"));
  CHECK(contains(line_with(r.out, " Relu("), "# aten::relu"));
  CHECK(contains(line_with(r.out, " Gemm("), "# aten::linear in fc"));
  // Small constants show their values.
  CHECK(contains(line_with(r.out, " ReduceProd("), "axes=[0]"));
  CHECK(contains(r.out, "initializers: 7 (263 elements, 1.1 KB); largest: conv.weight_bnfold_1 "
                        "f32[8,3,3,3] (864 B)"));
  CHECK(contains(r.out, "nodes: 10\n"));
}

TEST_CASE("show --json: the same listing for tools", "[show]") {
  std::string out = export_tiny(fresh_dir("show_json"));
  auto r = run_cli({"show", out, "--json"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["file"] == out);
  CHECK(j["file_bytes"] == fs::file_size(out));
  CHECK(j["ir_version"] == 8);
  CHECK(j["producer"]["name"] == "torch2onnx");
  CHECK(j["opsets"]["ai.onnx"] == 17);
  REQUIRE(j["inputs"].size() == 1);
  CHECK(j["inputs"][0] ==
        nlohmann::json::parse(R"({"name": "x", "dtype": "f32", "dims": ["batch", 3, 16, 16]})"));
  CHECK(j["outputs"][0]["dims"] == nlohmann::json::parse(R"(["batch", 4])"));
  CHECK(j["initializers"]["count"] == 7);
  CHECK(j["initializers"]["elements"] == 263);
  CHECK(j["initializers"]["bytes"] == 1064); // 260 f32 values and 3 i64 constants
  CHECK(j["initializers"]["external"] == 0);
  CHECK(j["initializers"]["largest"][0]["name"] == "conv.weight_bnfold_1");
  CHECK(j["initializers"]["largest"][0]["bytes"] == 864);
  const auto &nodes = j["graph"]["nodes"];
  REQUIRE(nodes.size() == 10);
  CHECK(nodes[0]["op"] == "Conv");
  CHECK(nodes[0]["aten"] == "aten::_convolution");
  CHECK(nodes[0]["scope"] == "conv");
  CHECK(nodes[0]["attributes"]["group"] == "1");
  CHECK(nodes[0]["inputs"][1]["dims"] == nlohmann::json::parse("[8, 3, 3, 3]"));
  CHECK(nodes[1]["aten"] == "aten::relu");
  CHECK(nodes[1]["scope"] == "");
  CHECK(j["functions"].empty());
}

TEST_CASE("show: another exporter's file with If and Loop subgraphs and a local function",
          "[show]") {
  std::string file = other_exporter_file();
  auto r = run_cli({"show", file});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.out, "opset ai.onnx 17, custom.fn 1, producer other-exporter 9.9"));
  CHECK(contains(r.out, "inputs:\n  x: f32[N,4]\n"));
  CHECK_FALSE(contains(r.out, "# ")); // no provenance: we did not write it
  CHECK(
      contains(r.out, "initializers: 5 (2.1K elements, 8.2 KB); largest: big f32[64,32] (8.2 KB)"));
  CHECK(contains(r.out, "Greater(s, zero: f32[] = 0) -> c"));
  // Subgraphs follow their node, indented, with their own inputs and outputs.
  std::string if_line = line_with(r.out, " If(c) -> y");
  REQUIRE_FALSE(if_line.empty());
  std::string then_line = line_with(r.out, "then_branch: graph then_body () -> (then_y: f32[N,4])");
  REQUIRE_FALSE(then_line.empty());
  std::string then_mul = line_with(r.out, "Mul(x: f32[N,4], two: f32[] = 2) -> then_y: f32[N,4]");
  REQUIRE_FALSE(then_mul.empty());
  CHECK(indent_of(then_line) > indent_of(if_line));
  CHECK(indent_of(then_mul) > indent_of(then_line));
  CHECK(contains(r.out, "Loop(trips: i64[] = 3, -, y) -> z"));
  CHECK(contains(r.out, "body: graph loop_body (iter: i64[], cond_in: bool[], acc_in: f32[N,4]) "
                        "-> (cond_out: bool[], acc_out: f32[N,4])"));
  CHECK(contains(r.out, "custom.fn.MyScale(z) -> out: f32[N,4]"));
  CHECK(contains(r.out, "functions: 1\n  custom.fn.MyScale(a) -> (b)\n"));
  CHECK(contains(r.out, "Constant() -> k  {value=<f32[]: 0.5>}"));

  auto js = run_cli({"show", file, "--json"});
  REQUIRE(js.exit_code == 0);
  auto j = nlohmann::json::parse(js.out);
  const auto &branch = j["graph"]["nodes"][2];
  CHECK(branch["op"] == "If");
  CHECK_FALSE(branch.contains("aten"));
  CHECK(branch["subgraphs"]["then_branch"]["nodes"][0]["op"] == "Mul");
  CHECK(branch["subgraphs"]["else_branch"]["nodes"][0]["inputs"][1]["dims"] ==
        nlohmann::json::parse("[4]"));
  const auto &loop = j["graph"]["nodes"][3];
  CHECK(loop["inputs"][1]["name"] == ""); // the omitted condition
  CHECK(loop["subgraphs"]["body"]["inputs"].size() == 3);
  CHECK(j["graph"]["nodes"][4]["domain"] == "custom.fn");
  REQUIRE(j["functions"].size() == 1);
  CHECK(j["functions"][0]["name"] == "MyScale");
  CHECK(j["functions"][0]["nodes"].size() == 2);
}

TEST_CASE("show: our If and Loop - subgraph nodes are indented and keep their aten op", "[show]") {
  // A branch on a runtime value becomes an ONNX If; a loop over a runtime count an ONNX Loop.
  const std::string ir = R"IR(
graph(%x : Tensor, %n : Tensor):
  %none : NoneType = prim::Constant()
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %true : bool = prim::Constant[value=1]()
  %s : Tensor = aten::sum(%x, %none)
  %c : Tensor = aten::gt(%s, %zero)
  %b : bool = aten::Bool(%c)
  %y : Tensor = prim::If(%b)
    block0():
      %t : Tensor = aten::relu(%x)
      -> (%t)
    block1():
      %e : Tensor = aten::neg(%x)
      -> (%e)
  %k : int = aten::Int(%n)
  %z : Tensor = prim::Loop(%k, %true, %y)
    block0(%i : int, %acc : Tensor):
      %a2 : Tensor = aten::add(%acc, %x, %one)
      -> (%true, %a2)
  return (%z))IR";
  auto graph = std::make_shared<torch::jit::Graph>();
  torch::jit::parseIR(ir, graph.get());
  torch2onnx::prepare_graph(graph);
  auto c = torch2onnx::convert_graph(graph, {randn({2, 3}), scalar_long(3)}, {"x", "n"}, 17, {});
  std::string path = fresh_dir("show_if") + "/cf.onnx";
  c.builder->save(path, torch2onnx::SerializeOptions{});
  auto r = run_cli({"show", path});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  std::string if_line = line_with(r.out, " If(");
  std::string then_line = line_with(r.out, "then_branch: graph ");
  std::string relu = line_with(r.out, " Relu(x: f32[2,3])");
  std::string loop = line_with(r.out, " Loop(");
  std::string body = line_with(r.out, "body: graph ");
  std::string add = line_with(r.out, " Add(");
  REQUIRE_FALSE(if_line.empty());
  REQUIRE_FALSE(then_line.empty());
  REQUIRE_FALSE(relu.empty());
  REQUIRE_FALSE(loop.empty());
  REQUIRE_FALSE(body.empty());
  REQUIRE_FALSE(add.empty());
  CHECK(contains(if_line, "# prim::If"));
  CHECK(contains(relu, "# aten::relu"));
  CHECK(contains(add, "# aten::add"));
  CHECK(indent_of(then_line) > indent_of(if_line));
  CHECK(indent_of(relu) > indent_of(then_line));
  CHECK(indent_of(body) > indent_of(loop));
  CHECK(indent_of(add) > indent_of(body));
}

TEST_CASE("show: a file whose external data is missing is still listed", "[show]") {
  std::string dir = fresh_dir("show_external");
  std::string out = export_tiny(dir, {"--external-data"});
  REQUIRE(fs::exists(out + ".data"));
  fs::remove(out + ".data");
  auto r = run_cli({"show", out});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.out, "in external data"));
  CHECK(contains(r.out, "largest: conv.weight_bnfold_1 f32[8,3,3,3] (864 B)"));
}

TEST_CASE("show: errors and help", "[show]") {
  std::string dir = fresh_dir("show_errors");
  SECTION("--help") {
    auto r = run_cli({"show", "--help"});
    CHECK(r.exit_code == 0);
    CHECK(contains(r.out, "--json"));
    CHECK(contains(r.out, "torch2onnx show model.onnx"));
  }
  SECTION("not an ONNX file") {
    std::ofstream(dir + "/junk.onnx") << "this is not protobuf at all\n";
    auto r = run_cli({"show", dir + "/junk.onnx"});
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, "is not an ONNX model"));
  }
  SECTION("TorchScript instead of ONNX") {
    auto r = run_cli({"show", test_model("tiny_cnn")});
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, "torch2onnx show reads .onnx files"));
  }
  SECTION("a missing file and a missing argument") {
    auto r = run_cli({"show", dir + "/nope.onnx"});
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, "does not exist"));
    CHECK(run_cli({"show"}).exit_code == 2);
  }
}

TEST_CASE("show: dims of symbols recorded at the same sizes are not given a wrong name", "[show]") {
  // batch, h and w all at 16: the second recording puts each at 32, so which of them an
  // intermediate dim follows cannot be told from its sizes. It stays unnamed (once, every such
  // dim was named after the last symbol, e.g. the output's batch dim as 'w').
  std::string out = fresh_dir("show_same_sizes") + "/m.onnx";
  auto e = run_cli(
      {test_model("tiny_cnn"), "-o", out, "--input", "x:f32[b=16,3,h=16,w=16]", "--verify"});
  INFO(e.out << e.err);
  REQUIRE(e.exit_code == 0);
  auto r = run_cli({"show", out});
  CHECK(contains(r.out, "inputs:\n  x: f32[b,3,h,w]\n"));
  CHECK_FALSE(contains(r.out, "output: f32[w,4]"));
  CHECK_FALSE(contains(r.out, "output: f32[h,4]"));
  CHECK(contains(r.out, "output: f32[?,4]"));
}
