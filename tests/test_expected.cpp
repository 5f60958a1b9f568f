// --expected-outputs (issue 25 part 4): ONNX Runtime checked against outputs Python computed from
// a fresh torch.jit.load of the same file (models/make_oracle_models.py), so an export whose
// weights were damaged — on both sides of --verify — still fails; and torch2onnx zoo's use of it
// (--require-expected-outputs) and of --check-copy-load.
#include "apps/zoo_child.h"
#include "harness.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>
#include <sys/wait.h>

using namespace t2o_test;
namespace fs = std::filesystem;

namespace {

std::string fixture(const std::string &name) {
  return std::string(T2O_ORACLE_MODELS) + "/" + name;
}

nlohmann::json read_json(const std::string &path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}

// Exports oracle_multi.pt (forward(x, y) -> {"sum", "prod"}) checked against `expected`.
CliResult export_multi(const std::string &dir, const std::string &expected) {
  return run_cli({fixture("oracle_multi.pt"), "-o", dir + "/m.onnx", "--input-data",
                  fixture("oracle_multi.inputs.pt"), "--expected-outputs", fixture(expected)});
}

} // namespace

TEST_CASE("expected: Python's outputs of the same file pass, in the summary and the report",
          "[expected]") {
  std::string dir = fresh_dir("expected_pass");
  auto r = run_cli({fixture("oracle_cnn.pt"), "-o", dir + "/m.onnx", "--verify", "--input-data",
                    fixture("oracle_cnn.inputs.pt"), "--expected-outputs",
                    fixture("oracle_cnn.expected.pt"), "--report", dir + "/r.json"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.out, "expected output: max abs error"));
  CHECK(contains(r.out, "matches the expected outputs in"));
  auto j = read_json(dir + "/r.json");
  CHECK(j["status"] == "ok");
  CHECK(j["options"]["expected_outputs"] == fixture("oracle_cnn.expected.pt"));
  REQUIRE(j["expected"]["outputs"].size() == 1);
  CHECK(j["expected"]["ok"] == true);
  CHECK(j["expected"]["outputs"][0]["max_abs_error"].get<double>() < 1e-5);
  CHECK(j["expected"]["outputs"][0]["max_abs_ref"].get<double>() > 0.1); // not a vacuous check
}

// A traced x.sum() * 0.5 holds 0.5 as a 0-d float64 tensor; the output is float32 in Python and
// in LibTorch, so it must be float32 in the file too (it was float64, which --verify refused).
TEST_CASE("expected: a traced 0-d result times a Python number stays float32", "[expected]") {
  std::string dir = fresh_dir("expected_scalars");
  auto r = run_cli({fixture("oracle_scalars.pt"), "-o", dir + "/m.onnx", "--verify", "--input-data",
                    fixture("oracle_scalars.inputs.pt"), "--expected-outputs",
                    fixture("oracle_scalars.expected.pt"), "--report", dir + "/r.json"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  auto j = read_json(dir + "/r.json");
  REQUIRE(j["expected"]["outputs"].size() == 6);
  CHECK(j["expected"]["ok"] == true);
  auto show = run_cli({"show", dir + "/m.onnx"});
  CHECK_FALSE(contains(show.out, "f64"));
}

TEST_CASE("expected: damaged weights pass --verify but not Python's outputs", "[expected]") {
  // oracle_cnn_damaged.pt is oracle_cnn.pt with one weight changed: an export whose weights were
  // damaged as it loaded them looks the same to --verify, whose LibTorch run uses them too.
  std::string dir = fresh_dir("expected_damaged");
  auto r = run_cli({fixture("oracle_cnn_damaged.pt"), "-o", dir + "/m.onnx", "--verify",
                    "--input-data", fixture("oracle_cnn.inputs.pt"), "--expected-outputs",
                    fixture("oracle_cnn.expected.pt"), "--report", dir + "/r.json"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(contains(r.out, "verify output: max abs error"));
  CHECK_FALSE(contains(r.out, "verify output: FAIL"));
  CHECK(contains(r.out, ") FAIL"));
  CHECK(contains(r.err, "ONNX Runtime's outputs differ from the expected outputs in"));
  CHECK(fs::exists(dir + "/m.onnx")); // kept for a closer look, as after a failed --verify
  auto j = read_json(dir + "/r.json");
  CHECK(j["status"] == "expected_failed");
  CHECK(j["exit_code"] == 1);
  CHECK(j["verify"]["ok"] == true);
  CHECK(j["expected"]["ok"] == false);
  CHECK(j["expected"]["outputs"][0]["max_abs_error"].get<double>() > 1e-3);
}

TEST_CASE("expected: outputs moved by 1e-2 fail, without --verify too", "[expected]") {
  std::string dir = fresh_dir("expected_perturbed");
  auto r = run_cli({fixture("oracle_cnn.pt"), "-o", dir + "/m.onnx", "--input-data",
                    fixture("oracle_cnn.inputs.pt"), "--expected-outputs",
                    fixture("oracle_cnn.perturbed.pt")});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(contains(r.out, "expected output: max abs error 0.01"));
  SECTION("a tolerance above the change passes") {
    auto loose = run_cli({fixture("oracle_cnn.pt"), "-o", dir + "/m.onnx", "--input-data",
                          fixture("oracle_cnn.inputs.pt"), "--expected-outputs",
                          fixture("oracle_cnn.perturbed.pt"), "--atol", "0.02"});
    INFO(loose.out << loose.err);
    CHECK(loose.exit_code == 0);
  }
}

TEST_CASE("expected: outputs by name or in order, and their count and shapes", "[expected]") {
  std::string dir = fresh_dir("expected_forms");
  // Flat tuple in forward's order; a dict and an .npz by name in the other order; an .npz of
  // arr_0, arr_1.
  for (const char *f : {"oracle_multi.expected.pt", "oracle_multi.dict.pt",
                        "oracle_multi.named.npz", "oracle_multi.positional.npz"}) {
    auto r = export_multi(dir, f);
    INFO(f << "\n" << r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(contains(r.out, "expected sum: max abs error 0,"));
    CHECK(contains(r.out, "expected prod: max abs error 0,"));
  }
  auto short_file = export_multi(dir, "oracle_multi.short.pt");
  CHECK(short_file.exit_code == 1);
  CHECK(contains(short_file.out, "holds 1 output, ONNX Runtime returned 2"));
  auto shape = export_multi(dir, "oracle_multi.shape.pt");
  CHECK(shape.exit_code == 1);
  CHECK(
      contains(shape.out, "expected prod: FAIL: shape differs: expected 3x2 vs ONNX Runtime 2x3"));
}

TEST_CASE("expected: command-line mistakes", "[expected]") {
  std::string dir = fresh_dir("expected_usage");
  std::string model = fixture("oracle_cnn.pt"), out = dir + "/m.onnx";
  auto no_data = run_cli({model, "-o", out, "--input", "x:f32[1,3,16,16]", "--expected-outputs",
                          fixture("oracle_cnn.expected.pt")});
  CHECK(no_data.exit_code == 2);
  CHECK(contains(no_data.err, "--expected-outputs needs the inputs"));
  auto tolerance = run_cli({model, "-o", out, "--input", "x:f32[1,3,16,16]", "--rtol", "1e-3"});
  CHECK(tolerance.exit_code == 2);
  CHECK(contains(tolerance.err, "--rtol is for --verify or --expected-outputs"));
  auto missing = run_cli({model, "-o", out, "--input-data", fixture("oracle_cnn.inputs.pt"),
                          "--expected-outputs", dir + "/none.pt"});
  CHECK(missing.exit_code == 1);
  CHECK(contains(missing.err, "does not exist"));
  CHECK_FALSE(fs::exists(out)); // read before the export: nothing written
  std::ofstream(dir + "/outs.txt") << "1 2 3";
  auto kind = run_cli({model, "-o", out, "--input-data", fixture("oracle_cnn.inputs.pt"),
                       "--expected-outputs", dir + "/outs.txt"});
  CHECK(kind.exit_code == 1);
  CHECK(contains(kind.err, "unknown file type '.txt'"));
}

TEST_CASE("expected: zoo passes the fixture's inputs and expected outputs", "[expected][zoo]") {
  std::string dir = fresh_dir("expected_zoo");
  std::string manifest = dir + "/zoo.yaml";
  std::ofstream(manifest) << "model_dir: " << T2O_ORACLE_MODELS << "\nmodels:\n"
                          << "  - {name: cnn, model: oracle_cnn.pt, inputs: \"x:f32[1,3,16,16]\", "
                             "opset: [13, 17]}\n"
                          << "  - {name: damaged, model: oracle_cnn_damaged.pt, inputs: "
                             "\"x:f32[1,3,16,16]\", input_data: oracle_cnn.inputs.pt, "
                             "expected_outputs: oracle_cnn.expected.pt}\n";
  auto r = run_cli({"zoo", manifest, "--out", dir + "/o", "--json", dir + "/r.json",
                    "--require-expected-outputs", "--check-copy-load"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1); // the damaged one
  auto j = read_json(dir + "/r.json");
  REQUIRE(j["models"].size() == 3);
  const auto &cnn = j["models"][0], &cnn17 = j["models"][1], &damaged = j["models"][2];
  CHECK(cnn["status"] == "pass");
  CHECK(cnn["expected_checked"] == true);
  CHECK(cnn["expected_error_ratio"].get<double>() < 0.5);
  CHECK(cnn["copy_load"] == "identical");
  CHECK(fs::exists(dir + "/o/logs/cnn@op13.copy-load.log"));
  CHECK_FALSE(fs::exists(dir + "/o/cnn@op13")); // the second file is gone with the test data
  // The load is checked once per model, at its first opset.
  CHECK(cnn17["status"] == "pass");
  CHECK(cnn17["expected_checked"] == true);
  CHECK(cnn17["copy_load"].is_null());
  CHECK(damaged["status"] == "fail");
  CHECK(contains(damaged["first_error"].get<std::string>(), "expected output: max abs error"));
  CHECK(damaged["copy_load"].is_null()); // not exported again after a failure
  // The child was given the files found beside the model (MODEL.inputs.pt, MODEL.expected.pt).
  auto log = file_bytes(dir + "/o/logs/cnn@op17.json");
  CHECK(contains(log, "oracle_cnn.expected.pt"));
  CHECK(contains(log, "oracle_cnn.inputs.pt"));
  SECTION("a model without expected outputs fails when they are required") {
    std::ofstream(manifest) << "model_dir: " << T2O_ORACLE_MODELS << "\nmodels:\n"
                            << "  - {name: plain, model: oracle_cnn_damaged.pt, inputs: "
                               "\"x:f32[1,3,16,16]\"}\n";
    auto no = run_cli({"zoo", manifest, "--out", dir + "/o2", "--require-expected-outputs"});
    CHECK(no.exit_code == 1);
    CHECK(contains(no.out, "no expected outputs: neither the manifest's expected_outputs nor"));
    auto yes = run_cli({"zoo", manifest, "--out", dir + "/o2"});
    CHECK(yes.exit_code == 0);
  }
}

namespace {

// An ONNX model of one initializer `w` holding `value`, written to `path`.
void write_model(const std::string &path, float value) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto *w = m.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(1);
  w->add_float_data(value);
  std::ofstream(path, std::ios::binary) << m.SerializeAsString();
}

} // namespace

TEST_CASE("expected: --check-copy-load fails a model whose two files differ", "[zoo]") {
  using namespace torch2onnx::zoo;
  std::string dir = fresh_dir("copy_load_differs");
  Job job;
  job.name = "m";
  JobPaths p = job_paths(dir, job);
  fs::create_directories(p.copy_dir);
  fs::create_directories(dir + "/logs");
  write_model(p.onnx, 1.0F);
  Running run;
  run.copy_start = Clock::now();
  int exited_0 = 0; // a wait status: exit status 0
  SECTION("identical files pass, and the second is removed") {
    write_model(p.copy_onnx, 1.0F);
    Result r;
    r.status = Status::Pass;
    finish_copy_load(r, run, exited_0, p, /*keep=*/false);
    CHECK(r.status == Status::Pass);
    CHECK(r.copy_load == "identical");
    CHECK_FALSE(fs::exists(p.copy_onnx));
  }
  SECTION("one initializer differs: the model fails naming it, both files kept") {
    write_model(p.copy_onnx, 2.0F);
    Result r;
    r.status = Status::Pass;
    finish_copy_load(r, run, exited_0, p, false);
    CHECK(r.status == Status::Fail);
    CHECK(contains(r.first_error, "wrote different ONNX files: 1 initializer differs: w"));
    CHECK(fs::exists(p.copy_onnx));
  }
  SECTION("the second export failed") {
    std::ofstream(p.copy_log) << "torch2onnx: error: cannot load\n";
    Result r;
    r.status = Status::Pass;
    finish_copy_load(r, run, 1 << 8, p, false); // exit status 1
    CHECK(r.status == Status::Fail);
    CHECK(contains(r.first_error, "TORCH2ONNX_LOAD=copy failed (exit status 1): torch2onnx: "
                                  "error: cannot load"));
  }
}
