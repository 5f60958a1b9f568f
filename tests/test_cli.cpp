// The torch2onnx command line as a user runs it: errors, exit codes, files left behind.
#include "harness.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace t2o_test;
namespace fs = std::filesystem;

namespace {
std::string write_file(const std::string &dir, const std::string &name, const std::string &bytes) {
  std::string p = dir + "/" + name;
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}
} // namespace

TEST_CASE("cli: --help documents every flag with an example", "[cli]") {
  auto r = run_cli({"--help"});
  CHECK(r.exit_code == 0);
  for (const char *flag :
       {"--output", "--input", "--opset", "--verify", "--rtol", "--atol", "--verify-dims",
        "--external-data", "--output-names", "--load-library", "--verbose", "--quiet", "--seed",
        "--timings", "--no-optimize", "--report", "--locate", "--version"})
    CHECK(contains(r.out, flag));
  CHECK(contains(r.out, "x:f32[1,3,224,224]"));
  // One usage block (CLI11's own line replaced), and no CLI11 internals such as "{false}".
  size_t first = r.out.find("Usage:");
  REQUIRE(first != std::string::npos);
  CHECK(r.out.find("Usage:", first + 1) == std::string::npos);
  CHECK_FALSE(contains(r.out, "{false}"));
  CHECK_FALSE(contains(r.out, "{true}"));
}

TEST_CASE("cli: --version names torch2onnx, LibTorch and the opset range", "[cli]") {
  auto r = run_cli({"--version"});
  CHECK(r.exit_code == 0);
  CHECK(contains(r.out, "torch2onnx 0."));
  CHECK(contains(r.out, "LibTorch 1."));
  CHECK(contains(r.out, "ONNX opsets 11-21"));
}

TEST_CASE("cli: ops misuse exits 2, not CLI11's own codes", "[cli]") {
  for (std::vector<std::string> args : {std::vector<std::string>{"ops", "--no-such-flag"},
                                        std::vector<std::string>{"ops", "--opset", "99"},
                                        std::vector<std::string>{"ops", "extra"}}) {
    auto r = run_cli(args);
    INFO(args.back() << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "torch2onnx: error: "));
  }
  CHECK(run_cli({"ops", "--help"}).exit_code == 0);
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
    const char *spec;
    const char *message;
  };
  for (const Case &c :
       {Case{"x:f33[1,3]", "unknown dtype 'f33'"}, Case{"x:f32[1,0]", "at least 1"},
        Case{"x:f32[1,-2]", "not a positive integer"}, Case{"x:f32", "missing [dims]"},
        Case{"x:f32[1,,3]", "empty dimension"}, Case{"1x:f32[1]", "not a valid input name"}}) {
    INFO(c.spec);
    auto r = run_cli({model, "--input", c.spec});
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, c.message));
    CHECK(contains(r.err, "x:f32[1,3,224,224]")); // shows the expected form
  }
}

TEST_CASE("cli: a missing argument names the forward arguments", "[cli]") {
  // forward(a, b) has no defaults: leaving b out is a command-line mistake (exit 2).
  auto r = run_cli({test_model("two_inputs"), "--input", "f32[2,3]"});
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, "forward(a, b) needs argument 'b' (Tensor), which has no default"));
  // No --input at all names the first one.
  std::string dir = fresh_dir("no_input");
  auto none = run_cli({test_model("two_inputs"), "-o", dir + "/m.onnx"});
  CHECK(none.exit_code == 2);
  CHECK(contains(none.err, "forward(a, b) needs argument 'a' (Tensor), which has no default"));
  CHECK_FALSE(fs::exists(dir + "/m.onnx"));
}

TEST_CASE("cli: opset outside the supported range", "[cli]") {
  for (const char *opset : {"10", "22"}) {
    auto r = run_cli({test_model("tiny_cnn"), "--input", "f32[1,3,16,16]", "--opset", opset});
    CHECK(r.exit_code == 2); // a command-line mistake (Settings::validate), found before loading
    CHECK(contains(r.err, std::string("--opset ") + opset + " is not supported"));
    CHECK(contains(r.err, "11 to 21"));
  }
}

TEST_CASE("cli: a failing node's constant tensors are named by shape, not printed", "[cli]") {
  // An RNN's weights reach aten::lstm as a constant list: the error once printed every value.
  auto r = run_cli({test_model("lstm_proj_packed"), "-o", fresh_dir("lstm_proj") + "/m.onnx",
                    "--input", "x:f32[2,9,20]", "--input", "lengths:i64[2]:1..9"});
  CHECK(r.exit_code == 1);
  CHECK(contains(r.err, "aten::lstm"));
  CHECK(contains(r.err, "proj_size over a PackedSequence"));
  CHECK(contains(r.err, "[tensor Float[128,20], tensor Float[128,12]"));
  CHECK(r.err.size() < 1500);
}

TEST_CASE("cli: every unsupported op is listed with where it is used and no file is written",
          "[cli]") {
  std::string dir = fresh_dir("unsupported");
  std::string out = dir + "/model.onnx";
  SECTION("no output file is created") {
    auto r = run_cli({test_model("unconverted"), "-o", out, "--input", "f32[2,3]"});
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, "2 ops have no converter at opset 17"));
    CHECK(contains(r.err, "aten::linalg_eig (2 uses): first ("));
    CHECK(contains(r.err, "second ("));
    CHECK(contains(r.err, "aten::linalg_svd (1 use)"));
    CHECK(contains(r.err, "make_test_models.py:")); // the source line
    CHECK_FALSE(fs::exists(out));
    CHECK((fs::directory_iterator(dir) == fs::directory_iterator())); // no temporary left either
  }
  SECTION("an existing output file is left untouched") {
    write_file(dir, "model.onnx", "previous contents");
    auto r = run_cli({test_model("unconverted"), "-o", out, "--input", "f32[2,3]"});
    CHECK(r.exit_code == 1);
    std::ifstream f(out);
    std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    CHECK(s == "previous contents");
  }
}

TEST_CASE("cli: output path problems are reported before any work", "[cli]") {
  std::string dir = fresh_dir("outpath");
  SECTION("missing folder") {
    auto r = run_cli(
        {test_model("tiny_cnn"), "-o", dir + "/no/such/dir/m.onnx", "--input", "f32[1,3,16,16]"});
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, "does not exist"));
  }
  SECTION("output equals input") {
    std::string model = dir + "/m.pt";
    fs::copy_file(test_model("tiny_cnn"), model);
    auto r = run_cli({model, "-o", model, "--input", "f32[1,3,16,16]"});
    CHECK(r.exit_code == 2); // the path rule: a command-line mistake (docs/security.md)
    CHECK(contains(r.err, "is the model"));
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
  CHECK(bad.exit_code == 2); // a command-line mistake
  CHECK(contains(bad.err, "--output-names gives 1 name but the model has 2 outputs"));
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
  CHECK(fs::file_size(dir + "/m.onnx.data") >= 8 * 3 * 3 * 3 * 4); // the conv weight moved
  CHECK(contains(r.err, "ONNX external data"));
  CHECK(contains(r.out, "verify output: max abs error"));
}

TEST_CASE("cli: --timings prints the phases and the rewrites, --no-optimize turns them off",
          "[cli]") {
  std::string dir = fresh_dir("timings");
  auto r = run_cli({test_model("tiny_cnn"), "-o", dir + "/m.onnx", "--input", "f32[1,3,16,16]",
                    "--timings", "--verify"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  for (const char *phase : {"load ", "prepare ", "record ", "convert ", "optimize ", "serialize "})
    CHECK(contains(r.err, phase));
  CHECK(contains(r.err, "fold-conv-batchnorm 1")); // TinyCnn: Conv -> BatchNorm -> ReLU
  auto n = run_cli({test_model("tiny_cnn"), "-o", dir + "/n.onnx", "--input", "f32[1,3,16,16]",
                    "--timings", "--no-optimize", "--verify"});
  INFO(n.out << n.err);
  REQUIRE(n.exit_code == 0);
  CHECK_FALSE(contains(n.err, "fold-conv-batchnorm"));
  CHECK(contains(n.out, "verify output: max abs error"));
}

TEST_CASE("cli: command-line mistakes found before the export exit 2 and write nothing", "[cli]") {
  std::string dir = fresh_dir("usage");
  std::string model = test_model("tiny_cnn");
  std::string out = dir + "/m.onnx";
  struct Case {
    std::vector<std::string> args;
    const char *message;
  };
  fs::create_directories(dir + "/folder.onnx");
  for (const Case &c : {
           Case{{"--input", "x:f32[batch=1,3,16,16]", "--verify", "--verify-dims", "seq=3"},
                "--verify-dims names 'seq', which is not a symbolic dim"},
           Case{{"--input", "x:f32[batch=1,3,16,16]", "--verify", "--verify-dims",
                 "batch=3,batch=4"},
                "--verify-dims gives 'batch' twice"},
           Case{{"--input", "x:f32[batch=1,3,16,16]", "--verify-dims", "batch=3"},
                "--verify-dims is for --verify or --expected-outputs"},
           Case{{"--input", "x:f32[1,3,16,16]", "--verify", "--rtol", "nan"},
                "--rtol nan must be a finite number >= 0"},
           Case{{"--input", "x:f32[1,3,16,16]", "--verify", "--atol", "nan"},
                "--atol nan must be a finite number >= 0"},
           Case{{"--input", "x:f32[1,3,16,16]", "--verify", "--atol", "inf"}, "--atol inf must be"},
           Case{{"--input", "x:f32[1,3,16,16]", "--verify", "--rtol", "-1e-3"},
                "--rtol -0.001 must be"},
           Case{{"--input", "x:f32[1,3,16,16]", "-o", dir + "/folder.onnx"}, "is a directory"},
           Case{{"--input", "x:f32[1,3,16,16]", "-o", dir + "/noext", "--verify"},
                "has no file extension, which --verify needs"},
       }) {
    std::vector<std::string> args = {model};
    if (std::find(c.args.begin(), c.args.end(), "-o") == c.args.end())
      args.insert(args.end(), {"-o", out});
    args.insert(args.end(), c.args.begin(), c.args.end());
    auto r = run_cli(args);
    INFO(fmt::format("{}", fmt::join(c.args, " ")) << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, c.message));
    CHECK_FALSE(fs::exists(out));
    CHECK_FALSE(fs::exists(dir + "/noext"));
  }
}

TEST_CASE("cli: --output-names equal to a forward argument's name is a command-line error",
          "[cli]") {
  std::string dir = fresh_dir("out_is_in");
  // tiny_cnn's forward(x): the input is unnamed in the spec, so it takes the name x.
  auto r = run_cli({test_model("tiny_cnn"), "-o", dir + "/m.onnx", "--input", "f32[1,3,16,16]",
                    "--output-names", "x"});
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, "--output-names 'x' is also the name of an input"));
  CHECK_FALSE(contains(r.err, "torch2onnx bug"));
  CHECK_FALSE(fs::exists(dir + "/m.onnx"));
}

TEST_CASE("cli: a failure after the model was written leaves no model behind", "[cli]") {
  std::string dir = fresh_dir("late_failure");
  // A file where --verify's test-data folder must go: refused before the export starts (the
  // files are moved into place only when everything worked: test_reliability_files.cpp).
  write_file(dir, "m", "the user's file");
  auto r = run_cli(
      {test_model("tiny_cnn"), "-o", dir + "/m.onnx", "--input", "f32[1,3,16,16]", "--verify"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(contains(r.err, "writes its test data to the folder"));
  CHECK_FALSE(fs::exists(dir + "/m.onnx"));
  std::ifstream f(dir + "/m");
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  CHECK(s == "the user's file");
}

TEST_CASE("cli: the test-data message counts the sets written", "[cli]") {
  std::string dir = fresh_dir("sets");
  auto r = run_cli({test_model("tiny_cnn"), "-o", dir + "/m.onnx", "--input",
                    "x:f32[batch=1,3,16,16]", "--verify", "--verify-dims", "batch=3"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.out, "test data in " + dir + "/m/test_data_set_0..2 (3 sets)"));
  for (int k = 0; k < 3; ++k)
    CHECK(fs::exists(dir + "/m/test_data_set_" + std::to_string(k) + "/input_0.pb"));
  auto one = run_cli(
      {test_model("tiny_cnn"), "-o", dir + "/s.onnx", "--input", "x:f32[1,3,16,16]", "--verify"});
  REQUIRE(one.exit_code == 0);
  CHECK(contains(one.out, "test data in " + dir + "/s/test_data_set_0\n"));
}

TEST_CASE("cli: --verify-dims checks a size of 0 (an empty batch or cache)", "[cli]") {
  // The first decoding step has an empty KV cache: past=0 is a size users verify at.
  std::string dir = fresh_dir("verify_zero");
  auto r = run_cli({test_model("tiny_cnn"), "-o", dir + "/m.onnx", "--input",
                    "x:f32[batch=1,3,16,16]", "--verify", "--verify-dims", "batch=0"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.out, "[batch=0]"));
  auto bad = run_cli({test_model("tiny_cnn"), "-o", dir + "/n.onnx", "--input",
                      "x:f32[batch=1,3,16,16]", "--verify", "--verify-dims", "batch=-1"});
  CHECK(bad.exit_code == 2);
}

namespace {
nlohmann::json read_json(const std::string &path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}
} // namespace

TEST_CASE("cli: --report JSON on a dynamic-shape model, field by field", "[cli][report]") {
  std::string dir = fresh_dir("report_dynamic");
  std::string out = dir + "/m.onnx";
  auto r = run_cli({test_model("tiny_cnn"), "-o", out, "--input", "x:f32[batch=1,3,16,16]",
                    "--verify", "--verify-dims", "batch=3", "--report", dir + "/r.json"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  auto j = read_json(dir + "/r.json");
  INFO(j.dump(2));
  CHECK(j["format"] == "torch2onnx-report");
  CHECK(j["version"] == 1);
  CHECK(j["tool"]["torch2onnx"].get<std::string>().rfind("0.", 0) == 0);
  CHECK(j["tool"]["libtorch"].get<std::string>().rfind("1.", 0) == 0);
  CHECK(j["status"] == "ok");
  CHECK(j["exit_code"] == 0);
  CHECK(j["seconds"].get<double>() > 0);
  CHECK(j["model"] == test_model("tiny_cnn"));
  CHECK(j["output"] == out);
  CHECK(j["opset"] == 17);
  CHECK(j["options"]["verify"] == true);
  CHECK(j["options"]["rtol"] == 1e-4);
  CHECK(j["options"]["verify_dims"]["batch"] == 3);
  REQUIRE(j["inputs"].size() == 1);
  CHECK(j["inputs"][0]["name"] == "x");
  CHECK(j["inputs"][0]["dtype"] == "f32");
  CHECK(j["inputs"][0]["dims"] == nlohmann::json::parse(R"(["batch", 3, 16, 16])"));
  CHECK(j["inputs"][0]["example"] == nlohmann::json::parse("[1, 3, 16, 16]"));
  REQUIRE(j["outputs"].size() == 1);
  CHECK(j["outputs"][0]["name"] == "output");
  for (const char *p : {"load", "prepare", "record", "convert", "optimize", "serialize", "export"})
    CHECK(j["phases"][p].get<double>() >= 0);
  CHECK(j["graph"]["nodes"].get<int>() > 0);
  CHECK(j["graph"]["parameters"].get<int>() > 0);
  CHECK(j["graph"]["parameter_bytes"].get<int>() >= 4 * j["graph"]["parameters"].get<int>());
  CHECK(j["graph"]["file_bytes"] == fs::file_size(out));
  CHECK(j["rewrites"]["applied"]["fold-conv-batchnorm"] == 1); // Conv -> BatchNorm -> ReLU
  CHECK(j["rewrites"]["nodes_after"] == j["graph"]["nodes"]);
  CHECK(j["warnings"].is_array());
  CHECK(j["notices"].is_array());
  CHECK_FALSE(j.contains("error"));
  const auto &v = j["verify"];
  CHECK(v["ok"] == true);
  CHECK(v["test_data_dir"] == dir + "/m");
  REQUIRE(v["data_sets"].size() == 3); // the example, the second recording size, --verify-dims
  int sizes[] = {1, 2, 3};
  for (int k = 0; k < 3; ++k) {
    const auto &set = v["data_sets"][k];
    INFO("data set " << k);
    CHECK(set["index"] == k);
    CHECK(set["dir"] == dir + "/m/test_data_set_" + std::to_string(k));
    CHECK(fs::is_directory(set["dir"].get<std::string>()));
    CHECK(set["sizes"]["batch"] == sizes[k]);
    CHECK(set["ok"] == true);
    REQUIRE(set["outputs"].size() == 1);
    const auto &c = set["outputs"][0];
    CHECK(c["name"] == "output");
    CHECK(c["ok"] == true);
    CHECK(c["shape_ok"] == true);
    CHECK(c["max_abs_error"].get<double>() <= c["tolerance"].get<double>());
    CHECK(c["max_rel_error"].get<double>() >= 0);
    CHECK(c["max_abs_ref"].get<double>() > 0);
    CHECK(c["tolerance"].get<double>() >= 1e-4);
    CHECK_FALSE(c.contains("problem"));
  }
}

TEST_CASE("cli: --report on a failing export holds the error and is written anyway",
          "[cli][report]") {
  std::string dir = fresh_dir("report_failure");
  SECTION("no converter") {
    auto r = run_cli({test_model("unconverted"), "-o", dir + "/m.onnx", "--input", "f32[2,3]",
                      "--report", dir + "/r.json"});
    REQUIRE(r.exit_code == 1);
    auto j = read_json(dir + "/r.json");
    INFO(j.dump(2));
    CHECK(j["format"] == "torch2onnx-report");
    CHECK(j["version"] == 1);
    CHECK(j["status"] == "error");
    CHECK(j["exit_code"] == 1);
    CHECK(j["error"]["kind"] == "export");
    CHECK(contains(j["error"]["message"], "2 ops have no converter at opset 17"));
    CHECK(contains(j["error"]["message"], "aten::linalg_eig"));
    CHECK(contains(j["error"]["hint"], "torch2onnx ops"));
    CHECK(j["error"]["phase"] == "convert");
    CHECK(j["inputs"][0]["name"].is_null()); // forward's names were never read
    CHECK(j["inputs"][0]["dims"] == nlohmann::json::parse("[2, 3]"));
    CHECK_FALSE(j.contains("graph"));
    CHECK_FALSE(j.contains("verify"));
    CHECK_FALSE(fs::exists(dir + "/m.onnx"));
  }
  SECTION("a command-line mistake") {
    auto r = run_cli({test_model("tiny_cnn"), "-o", dir + "/m.onnx", "--input", "f32[1,3,16,16]",
                      "--verify", "--rtol", "nan", "--report", dir + "/r.json"});
    REQUIRE(r.exit_code == 2);
    auto j = read_json(dir + "/r.json");
    CHECK(j["status"] == "error");
    CHECK(j["exit_code"] == 2);
    CHECK(j["error"]["kind"] == "usage");
    CHECK(contains(j["error"]["message"], "--rtol nan"));
  }
  SECTION("the model fails in LibTorch") {
    auto r = run_cli({test_model("tiny_cnn"), "-o", dir + "/m.onnx", "--input", "f32[1,5,16,16]",
                      "--report", dir + "/r.json"});
    REQUIRE(r.exit_code == 1);
    auto j = read_json(dir + "/r.json");
    CHECK(j["error"]["kind"] == "export");
    CHECK(contains(j["error"]["message"], "failed in LibTorch"));
  }
  SECTION("verification fails: the checks say which output and by how much") {
    auto r = run_cli({test_model("tiny_cnn"), "-o", dir + "/m.onnx", "--input", "f32[1,3,16,16]",
                      "--verify", "--rtol", "0", "--atol", "0", "--report", dir + "/r.json"});
    auto j = read_json(dir + "/r.json");
    INFO(r.out << r.err << j.dump(2));
    // An exact match is possible, though unlikely with convolutions: then the report says ok.
    if (r.exit_code == 1) {
      CHECK(j["status"] == "verify_failed");
      CHECK(j["exit_code"] == 1);
      CHECK(j["verify"]["ok"] == false);
      CHECK(j["verify"]["data_sets"][0]["outputs"][0]["ok"] == false);
      CHECK(j["verify"]["data_sets"][0]["outputs"][0]["tolerance"] == 0);
      CHECK_FALSE(j.contains("error"));
    } else {
      CHECK(j["status"] == "ok");
    }
  }
}

TEST_CASE("cli: --report FILE.md writes markdown", "[cli][report]") {
  std::string dir = fresh_dir("report_md");
  auto r = run_cli({test_model("tiny_cnn"), "-o", dir + "/m.onnx", "--input", "x:f32[1,3,16,16]",
                    "--verify", "--report", dir + "/r.md"});
  REQUIRE(r.exit_code == 0);
  std::ifstream f(dir + "/r.md");
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  CHECK(contains(s, "# torch2onnx report: "));
  CHECK(contains(s, "- status: **ok** (exit 0)"));
  CHECK(contains(s, "- x: f32[1,3,16,16]"));
  CHECK(contains(s, "## Verification: ok"));
  CHECK(contains(s, "| 0 |  | output |"));
}
