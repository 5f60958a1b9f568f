// The --report fields added after the first version (output types, the op table, the ONNX Runtime
// version, the failing node as separate fields, phases of a failed export) and --locate: a test
// registry with one deliberately wrong converter proves the search names exactly that node.
#include "apps/report.h"
#include "aten_lib/converter.h"
#include "builder/error.h"
#include "harness.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace t2o_test;
using namespace torch2onnx;
namespace fs = std::filesystem;

namespace {

nlohmann::json read_json(const std::string &path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}

// tiny_cnn: conv -> bn -> F.relu -> pool -> flatten -> fc, with a symbolic batch.
ExportOptions tiny_options(const std::string &dir) {
  ExportOptions o;
  o.model_path = test_model("tiny_cnn");
  o.output_path = dir + "/m.onnx";
  o.inputs = {parse_input_spec("x:f32[batch=1,3,16,16]")};
  return o;
}

} // namespace

TEST_CASE("report: --locate names exactly the node whose converter is wrong", "[report][locate]") {
  // |x| instead of max(x, 0): wrong wherever the batch-normalized values are negative.
  Registry wrong =
      registry_with_relu([](ConvertCtx &c) { c.set_out(0, c.b.op1("Abs", {c.tensor("self")})); });
  ExportOptions o = tiny_options(fresh_dir("locate_wrong"));
  o.verify = true;
  o.registry = &wrong;
  ExportReport r = export_model(o);
  REQUIRE(r.verify);
  CHECK_FALSE(r.verify->ok()); // the outputs disagree, so the search ran without --locate
  REQUIRE(r.divergence);
  const Divergence &d = *r.divergence;
  INFO(report::divergence_line(d));
  REQUIRE(d.found);
  CHECK(d.op == "aten::relu");
  CHECK(d.scope == "");
  CHECK(d.converter == "aten::relu (test, since opset 13)");
  CHECK(d.onnx_value == "aten::relu/Abs");
  CHECK(d.check.max_abs_error > d.check.tolerance);
  CHECK(d.torch_min == 0); // max(x, 0)
  CHECK(d.onnx_min >= 0);  // |x|
  CHECK(d.onnx_max >= d.torch_max);
  CHECK(d.compared >= 2); // the batch norm before it was compared and passed
  CHECK(d.sizes == "batch=1");
  CHECK(report::divergence_line(d).rfind("first diverging node: #", 0) == 0);
  CHECK(contains(report::divergence_line(d), "aten::relu"));
  // The report starts with that line.
  report::Inputs in;
  in.options = &o;
  in.result = &r;
  in.output_path = o.output_path;
  in.exit_code = 1;
  auto j = report::build(in);
  CHECK(j["divergence"]["found"] == true);
  CHECK(j["divergence"]["node"]["op"] == "aten::relu");
  CHECK(j["divergence"]["converter"] == "aten::relu (test, since opset 13)");
  CHECK(j["divergence"]["onnx_range"][0].get<double>() >= 0);
  CHECK(report::markdown(j).rfind("first diverging node: #", 0) == 0);
}

TEST_CASE("report: --locate on a correct export finds no diverging node", "[report][locate]") {
  ExportOptions o = tiny_options(fresh_dir("locate_ok"));
  o.verify = true;
  o.locate = true;
  ExportReport r = export_model(o);
  REQUIRE(r.verify);
  CHECK(r.verify->ok());
  REQUIRE(r.divergence);
  CHECK_FALSE(r.divergence->found);
  CHECK(r.divergence->compared >= 4);
  CHECK(contains(r.divergence->note, "within tolerance"));
}

TEST_CASE("report: a converter failing at a node gives the node as separate fields", "[report]") {
  Registry failing = registry_with_relu(
      [](ConvertCtx &) { throw Error("deliberate failure", "a test converter"); });
  ExportOptions o = tiny_options(fresh_dir("report_node_error"));
  o.registry = &failing;
  ExportReport partial;
  std::optional<Error> err;
  try {
    export_model(o, {}, &partial);
  } catch (const Error &e) {
    err = e;
  }
  REQUIRE(err);
  REQUIRE(err->node());
  CHECK(err->node()->op == "aten::relu");
  CHECK(err->node()->reason == "deliberate failure");
  CHECK_FALSE(fs::exists(o.output_path));
  report::Failure f{"export", err->what(), err->hint(), "convert", err->node()};
  report::Inputs in;
  in.options = &o;
  in.failure = &f;
  in.partial = &partial;
  in.output_path = o.output_path;
  in.exit_code = 1;
  auto j = report::build(in);
  INFO(j.dump(2));
  CHECK(j["status"] == "error");
  const auto &e = j["error"];
  CHECK(contains(e["message"], "aten::relu"));
  CHECK(e["hint"] == "a test converter");
  CHECK(e["node"]["op"] == "aten::relu");
  CHECK(e["node"]["index"].get<size_t>() == err->node()->index);
  CHECK(e["node"]["scope"] == "");
  CHECK(contains(e["node"]["source"], ".py:")); // the model kept its debug info
  REQUIRE(e["node"]["inputs"].size() == 1);
  CHECK(contains(e["node"]["inputs"][0], "f32["));
  CHECK(e["reason"] == "deliberate failure");
  // The phases that ran, the failing one until the failure; none after it.
  CHECK(j["phases"]["load"].get<double>() > 0);
  CHECK(j["phases"]["convert"].get<double>() > 0);
  CHECK_FALSE(j["phases"].contains("serialize"));
  CHECK(j["phases"]["export"].get<double>() >= j["phases"]["convert"].get<double>());
  CHECK(contains(report::markdown(j), "node: #"));
}

TEST_CASE("report: the CLI report of a dynamic-shape model has output types and the op table",
          "[report][cli]") {
  std::string dir = fresh_dir("report_fields");
  auto r = run_cli({test_model("tiny_cnn"), "-o", dir + "/m.onnx", "--input",
                    "x:f32[batch=1,3,16,16]", "--verify", "--report", dir + "/r.json"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  auto j = read_json(dir + "/r.json");
  INFO(j.dump(2));
  CHECK(j["version"] == 1);
  CHECK(j["tool"]["onnxruntime"] == "1.20.1");
  REQUIRE(j["outputs"].size() == 1);
  CHECK(j["outputs"][0] ==
        nlohmann::json::parse(R"({"name": "output", "dtype": "f32", "dims": ["batch", 4]})"));
  const auto &ops = j["ops"];
  CHECK(ops["aten::_convolution"]["count"] == 1);
  CHECK(ops["aten::_convolution"]["onnx"] == nlohmann::json::parse(R"({"Conv": 1})"));
  CHECK(ops["aten::batch_norm"]["onnx"].empty()); // folded into the Conv
  CHECK(ops["aten::relu"]["onnx"]["Relu"] == 1);
  CHECK(ops["aten::flatten"]["onnx"]["Reshape"] == 1);
  CHECK(ops["aten::linear"]["onnx"]["Gemm"] == 1);
  CHECK_FALSE(ops.contains("prim::Constant"));
  CHECK_FALSE(j.contains("divergence")); // verification passed and no --locate
}

TEST_CASE("report: --locate on the command line prints and reports the search", "[report][cli]") {
  std::string dir = fresh_dir("report_locate_cli");
  auto r = run_cli({test_model("tiny_cnn"), "-o", dir + "/m.onnx", "--input", "x:f32[1,3,16,16]",
                    "--locate", "--report", dir + "/r.json"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.err, "first diverging node: none found"));
  auto j = read_json(dir + "/r.json");
  CHECK(j["options"]["verify"] == true); // --locate implies --verify
  CHECK(j["divergence"]["found"] == false);
  CHECK(j["divergence"]["compared"].get<int>() >= 4);
}
