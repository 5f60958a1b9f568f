// The torch2onnx command line as a user runs it: errors, exit codes, files left behind.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "harness.h"

using namespace t2o_test;
namespace fs = std::filesystem;

namespace {
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string write_file(const std::string& dir, const std::string& name, const std::string& bytes) {
  std::string p = dir + "/" + name;
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}
}  // namespace

TEST_CASE("cli: --help documents every flag with an example", "[cli]") {
  auto r = run_cli({"--help"});
  CHECK(r.exit_code == 0);
  for (const char* flag : {"--output", "--input", "--opset", "--verify", "--rtol", "--atol",
                           "--verify-dims", "--external-data",
                           "--output-names", "--load-library", "--verbose", "--quiet", "--seed",
                           "--timings", "--no-optimize"})
    CHECK(contains(r.out, flag));
  CHECK(contains(r.out, "x:f32[1,3,224,224]"));
}

TEST_CASE("cli: a missing model file is one clear error", "[cli]") {
  std::string dir = fresh_dir("missing");
  auto r = run_cli({dir + "/nope.pt", "-o", dir + "/out.onnx", "--input", "x:f32[1,3]"});
  CHECK(r.exit_code == 1);
  CHECK(contains(r.err, "does not exist"));
  CHECK(contains(r.err, "nope.pt"));
  CHECK_FALSE(fs::exists(dir + "/out.onnx"));
}

TEST_CASE("cli: files that are not TorchScript are rejected by name", "[cli]") {
  std::string dir = fresh_dir("notts");
  SECTION("empty") {
    auto r = run_cli({write_file(dir, "empty.pt", ""), "--input", "f32[1]"});
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, "is empty"));
  }
  SECTION("random bytes") {
    auto r = run_cli({write_file(dir, "junk.pt", "\x01\x02garbage bytes"), "--input", "f32[1]"});
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, "not a TorchScript file"));
  }
  SECTION("a directory") {
    auto r = run_cli({dir, "--input", "f32[1]"});
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, "is a directory"));
  }
  CHECK_FALSE(fs::exists(dir + "/empty.onnx"));
  CHECK_FALSE(fs::exists(dir + "/junk.onnx"));
}

TEST_CASE("cli: malformed input specs say what is wrong", "[cli]") {
  std::string model = test_model("tiny_cnn");
  struct Case {
    const char* spec;
    const char* message;
  };
  for (const Case& c : {Case{"x:f33[1,3]", "unknown dtype 'f33'"}, Case{"x:f32[1,0]", "at least 1"},
                        Case{"x:f32[1,-2]", "not a positive integer"}, Case{"x:f32", "missing [dims]"},
                        Case{"x:f32[1,,3]", "empty dimension"}, Case{"1x:f32[1]", "not a valid input name"}}) {
    INFO(c.spec);
    auto r = run_cli({model, "--input", c.spec});
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, c.message));
    CHECK(contains(r.err, "x:f32[1,3,224,224]"));  // shows the expected form
  }
}

TEST_CASE("cli: wrong number of inputs names the forward arguments", "[cli]") {
  auto r = run_cli({test_model("two_inputs"), "--input", "f32[2,3]"});
  CHECK(r.exit_code == 1);
  CHECK(contains(r.err, "forward(a, b) takes 2 inputs but 1 --input spec was given"));
}

TEST_CASE("cli: opset outside the supported range", "[cli]") {
  for (const char* opset : {"12", "18"}) {
    auto r = run_cli({test_model("tiny_cnn"), "--input", "f32[1,3,16,16]", "--opset", opset});
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, std::string("--opset ") + opset + " is not supported"));
    CHECK(contains(r.err, "13 to 17"));
  }
}

TEST_CASE("cli: every unsupported op is listed with where it is used and no file is written",
          "[cli]") {
  std::string dir = fresh_dir("unsupported");
  std::string out = dir + "/model.onnx";
  SECTION("no output file is created") {
    auto r = run_cli({test_model("unsupported"), "-o", out, "--input", "f32[2,3]"});
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, "2 ops have no converter at opset 17"));
    CHECK(contains(r.err, "aten::special_bessel_j0 (2 uses): first ("));
    CHECK(contains(r.err, "second ("));
    CHECK(contains(r.err, "aten::special_zeta (1 use)"));
    CHECK(contains(r.err, "make_test_models.py:"));  // the source line
    CHECK_FALSE(fs::exists(out));
    CHECK((fs::directory_iterator(dir) == fs::directory_iterator()));  // no temporary left either
  }
  SECTION("an existing output file is left untouched") {
    write_file(dir, "model.onnx", "previous contents");
    auto r = run_cli({test_model("unsupported"), "-o", out, "--input", "f32[2,3]"});
    CHECK(r.exit_code == 1);
    std::ifstream f(out);
    std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    CHECK(s == "previous contents");
  }
}

TEST_CASE("cli: output path problems are reported before any work", "[cli]") {
  std::string dir = fresh_dir("outpath");
  SECTION("missing folder") {
    auto r = run_cli({test_model("tiny_cnn"), "-o", dir + "/no/such/dir/m.onnx", "--input",
                      "f32[1,3,16,16]"});
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, "does not exist"));
  }
  SECTION("output equals input") {
    std::string model = dir + "/m.pt";
    fs::copy_file(test_model("tiny_cnn"), model);
    auto r = run_cli({model, "-o", model, "--input", "f32[1,3,16,16]"});
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, "is the model file itself"));
    CHECK(fs::file_size(model) == fs::file_size(test_model("tiny_cnn")));
  }
}

TEST_CASE("cli: a model LibTorch rejects for the given shape shows LibTorch's reason", "[cli]") {
  auto r = run_cli({test_model("tiny_cnn"), "--input", "f32[1,5,16,16]"});
  CHECK(r.exit_code == 1);
  CHECK(contains(r.err, "failed in LibTorch"));
  CHECK(contains(r.err, "channels"));
}

TEST_CASE("cli: export and verify a small CNN to the default output path", "[cli]") {
  std::string dir = fresh_dir("tiny");
  std::string model = dir + "/tiny.pt";
  fs::copy_file(test_model("tiny_cnn"), model);
  auto r = run_cli({model, "--input", "x:f32[1,3,16,16]", "--verify"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(fs::exists(dir + "/tiny.onnx"));
  CHECK(contains(r.out, dir + "/tiny.onnx: opset 17, "));
  CHECK(contains(r.out, "parameters"));
  CHECK(contains(r.out, "verify output: max abs error"));
  CHECK(fs::exists(dir + "/tiny/test_data_set_0/input_0.pb"));
  CHECK(fs::exists(dir + "/tiny/test_data_set_0/output_0.pb"));
}

TEST_CASE("cli: input and output names - tuple outputs become one output each", "[cli]") {
  std::string dir = fresh_dir("names");
  auto r = run_cli({test_model("tuple_out"), "-o", dir + "/t.onnx", "--input", "inp:f32[2,3]",
                    "--output-names", "pos,prob", "--verify", "--opset", "13"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(contains(r.out, "verify pos:"));
  CHECK(contains(r.out, "verify prob:"));
  auto bad = run_cli({test_model("tuple_out"), "-o", dir + "/t2.onnx", "--input", "f32[2,3]",
                      "--output-names", "only_one"});
  CHECK(bad.exit_code == 1);
  CHECK(contains(bad.err, "--output-names gives 1 names but the model has 2 outputs"));
  CHECK_FALSE(fs::exists(dir + "/t2.onnx"));
}

TEST_CASE("cli: quiet prints nothing on success and ops lists converters", "[cli]") {
  std::string dir = fresh_dir("quiet");
  auto q = run_cli({test_model("two_inputs"), "-o", dir + "/m.onnx", "--input", "f32[2,3]",
                    "--input", "f32[2,3]", "-q"});
  CHECK(q.exit_code == 0);
  CHECK(q.out.empty());
  auto ops = run_cli({"ops", "--opset", "13"});
  CHECK(ops.exit_code == 0);
  CHECK(contains(ops.out, "aten::relu"));
  CHECK(contains(ops.out, "ops at opset 13"));
  auto json = run_cli({"ops", "--json"});
  CHECK(contains(json.out, "\"op\": \"aten::relu\""));
}

TEST_CASE("cli: --external-data writes the weights beside the model and verifies", "[cli]") {
  std::string dir = fresh_dir("external");
  auto r = run_cli({test_model("tiny_cnn"), "-o", dir + "/m.onnx", "--input", "x:f32[1,3,16,16]",
                    "--external-data", "--verify"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(fs::exists(dir + "/m.onnx.data"));
  CHECK(fs::file_size(dir + "/m.onnx.data") >= 8 * 3 * 3 * 3 * 4);  // the conv weight moved
  CHECK(contains(r.err, "ONNX external data"));
  CHECK(contains(r.out, "verify output: max abs error"));
}

TEST_CASE("cli: --timings prints the phases and the rewrites; --no-optimize turns them off",
          "[cli]") {
  std::string dir = fresh_dir("timings");
  auto r = run_cli({test_model("tiny_cnn"), "-o", dir + "/m.onnx", "--input", "f32[1,3,16,16]",
                    "--timings", "--verify"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  for (const char* phase : {"load ", "prepare ", "record ", "convert ", "optimize ", "serialize "})
    CHECK(contains(r.err, phase));
  CHECK(contains(r.err, "fold-conv-batchnorm 1"));  // TinyCnn: Conv -> BatchNorm -> ReLU
  auto n = run_cli({test_model("tiny_cnn"), "-o", dir + "/n.onnx", "--input", "f32[1,3,16,16]",
                    "--timings", "--no-optimize", "--verify"});
  INFO(n.out << n.err);
  REQUIRE(n.exit_code == 0);
  CHECK_FALSE(contains(n.err, "fold-conv-batchnorm"));
  CHECK(contains(n.out, "verify output: max abs error"));
}
