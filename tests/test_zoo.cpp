// `torch2onnx zoo`: manifests, sharding, parallel children, and a crash or hang in one model
// recorded as that model's failure while the rest finish.
#include "harness.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

using namespace t2o_test;
namespace fs = std::filesystem;

namespace {
std::string write_manifest(const std::string &dir, const std::string &text) {
  std::string p = dir + "/zoo.yaml";
  std::ofstream(p) << text;
  return p;
}

// The JSON report writes one model per line: name -> that line.
std::map<std::string, std::string> models_in(const std::string &json) {
  std::map<std::string, std::string> out;
  std::istringstream in(json);
  std::string line;
  while (std::getline(in, line)) {
    auto k = line.find("{\"name\": \"");
    if (k == std::string::npos)
      continue;
    auto b = k + 10, e = line.find('"', b);
    out[line.substr(b, e - b)] = line;
  }
  return out;
}

std::string status_of(const std::string &line) {
  auto k = line.find("\"status\": \"");
  if (k == std::string::npos)
    return "?";
  auto b = k + 11;
  return line.substr(b, line.find('"', b) - b);
}

// Tiny models (tests' fixtures) plus one that segfaults and one that hangs when loaded.
std::string zoo_manifest(const std::string &hang_timeout, bool crash_expected) {
  std::string tiny = "inputs: \"x:f32[1,3,16,16]\"";
  std::string m =
      "model_dir: " + std::string(T2O_TEST_MODELS) + "\n" +
      "defaults: {opset: 17, timeout: 120}\n"
      "models:\n"
      "  - {name: tiny_a, model: tiny_cnn.pt, " +
      tiny +
      "}\n"
      "  - {name: tiny_b, model: tiny_cnn.pt, " +
      tiny +
      ", opset: [13, 14]}\n"
      "  - {name: tuple, model: tuple_out.pt, inputs: \"f32[2,3]\"}\n"
      "  - {name: two, model: two_inputs.pt, inputs: [\"a:f32[2,3]\", \"b:f32[2,3]\"]}\n"
      "  - {name: crashes, model: tiny_cnn.pt, " +
      tiny + ", load_library: " T2O_ZOO_CRASH_LIB;
  m += crash_expected ? ", expect_fail: \"segfaults on load (test)\"}\n" : "}\n";
  m += "  - {name: hangs, model: tiny_cnn.pt, " + tiny + ", load_library: " T2O_ZOO_HANG_LIB +
       ", timeout: " + hang_timeout + "}\n";
  m += "  - {name: unsupported, model: unconverted.pt, inputs: \"f32[2,3]\", "
       "expect_fail: \"no converter for linalg_eig\"}\n";
  return m;
}
} // namespace

TEST_CASE("zoo: two shards with --jobs 2 cover the manifest, a crash and a hang fail alone",
          "[zoo]") {
  std::string dir = fresh_dir("zoo_shards");
  std::string manifest = write_manifest(dir, zoo_manifest("4", false));
  std::map<std::string, std::string> all;
  for (const char *shard : {"1/2", "2/2"}) {
    std::string tag = shard[0] == '1' ? "s1" : "s2";
    auto r = run_cli({"zoo", manifest, "--jobs", "2", "--shard", shard, "--out", dir + "/" + tag,
                      "--json", dir + "/" + tag + ".json", "--junit", dir + "/" + tag + ".xml",
                      "--report", dir + "/" + tag + ".md"});
    INFO(r.out << r.err);
    // Each shard holds one of the crash and the hang, so each fails.
    CHECK(r.exit_code == 1);
    CHECK(contains(r.out, "4/4]"));
    auto part = models_in(file_bytes(dir + "/" + tag + ".json"));
    CHECK(part.size() == 4);
    for (const auto &[name, line] : part)
      CHECK(all.insert({name, line}).second); // disjoint
    CHECK(contains(file_bytes(dir + "/" + tag + ".xml"), "<testsuite name=\"zoo\" tests=\"4\""));
    CHECK(contains(file_bytes(dir + "/" + tag + ".md"), "| model | opset | status |"));
  }
  std::set<std::string> names;
  for (const auto &kv : all)
    names.insert(kv.first);
  CHECK(names == std::set<std::string>{"tiny_a", "tiny_b@op13", "tiny_b@op14", "tuple", "two",
                                       "crashes", "hangs", "unsupported"});
  for (const char *ok : {"tiny_a", "tiny_b@op13", "tiny_b@op14", "tuple", "two"}) {
    INFO(ok << ": " << all[ok]);
    CHECK(status_of(all[ok]) == "pass");
    CHECK(contains(all[ok], "\"outputs_checked\": "));
    CHECK_FALSE(contains(all[ok], "\"nodes\": null"));
  }
  // A segfault in the child is caught by its own handler (issue 17: an error, never a signal):
  // that model fails with the crash named, and the batch goes on.
  CHECK(status_of(all["crashes"]) == "fail");
  CHECK(contains(all["crashes"], "crashed (SIGSEGV)"));
  CHECK(status_of(all["hangs"]) == "timeout");
  CHECK(contains(all["hangs"], "timed out after 4 s"));
  CHECK(status_of(all["unsupported"]) == "xfail");
  CHECK(contains(all["unsupported"], "linalg_eig"));
  CHECK(contains(all["two"], "\"outputs_checked\": 1"));
  CHECK(contains(all["tuple"], "\"outputs_checked\": 2"));
  // Passing models' ONNX files and test data are removed (no --keep); failures keep their logs.
  // Each child's --report stays beside its log.
  CHECK_FALSE(fs::exists(dir + "/s1/tiny_a.onnx"));
  CHECK_FALSE(fs::exists(dir + "/s1/tiny_a"));
  CHECK(fs::exists(dir + "/s1/logs/tiny_a.json"));
  CHECK(fs::exists(dir + "/s2/logs/crashes.log"));
}

TEST_CASE("zoo: expected failures and --opset keep the exit status 0", "[zoo]") {
  std::string dir = fresh_dir("zoo_expected");
  std::string text = zoo_manifest("3", true);
  text = text.substr(0, text.find("  - {name: hangs")); // drop the hang: keeps the test quick
  text +=
      "  - {name: unsupported, model: unconverted.pt, inputs: \"f32[2,3]\", expect_fail: \"x\"}\n";
  std::string manifest = write_manifest(dir, text);
  auto r = run_cli({"zoo", manifest, "--jobs", "2", "--opset", "15", "--out", dir + "/o", "--json",
                    dir + "/r.json"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  auto all = models_in(file_bytes(dir + "/r.json"));
  CHECK(all.size() == 6); // --opset replaces tiny_b's two opsets by one
  CHECK(all.count("tiny_b"));
  CHECK(contains(all["tiny_b"], "\"opset\": 15"));
  CHECK(status_of(all["crashes"]) == "xfail");
  CHECK(contains(r.out, "0 failed unexpectedly"));
}

TEST_CASE("zoo: verify_dims passes --verify-dims to the model's export", "[zoo]") {
  std::string dir = fresh_dir("zoo_verify_dims");
  std::string manifest = write_manifest(
      dir, "model_dir: " + std::string(T2O_TEST_MODELS) +
               "\nmodels:\n"
               "  - {name: sym, model: tiny_cnn.pt, inputs: \"x:f32[batch=1,3,16,16]\", "
               "verify_dims: \"batch=5\"}\n");
  auto r = run_cli({"zoo", manifest, "--out", dir + "/o"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  std::string log = file_bytes(dir + "/o/logs/sym.log");
  INFO(log);
  CHECK(contains(log, "[batch=1]"));
  CHECK(contains(log, "[batch=5]"));
  SECTION("a malformed value is a manifest error with the line") {
    auto bad = write_manifest(dir, "models:\n  - name: a\n    inputs: \"f32[1]\"\n"
                                   "    verify_dims: \"batch\"\n");
    auto b = run_cli({"zoo", bad});
    CHECK(b.exit_code == 2);
    CHECK(contains(b.err, "zoo.yaml:4:"));
  }
}

TEST_CASE("zoo: manifest mistakes are reported with the line, before anything runs", "[zoo]") {
  std::string dir = fresh_dir("zoo_bad");
  SECTION("unknown key") {
    auto m = write_manifest(dir, "models:\n  - name: a\n    inputs: \"f32[1]\"\n    opsett: 13\n");
    auto r = run_cli({"zoo", m, "--out", dir + "/o"});
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "zoo.yaml:4: unknown key 'opsett'"));
  }
  SECTION("bad input spec") {
    auto m = write_manifest(dir, "models:\n  - {name: a, inputs: \"x:f99[1]\"}\n");
    auto r = run_cli({"zoo", m});
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "zoo.yaml:2:"));
    CHECK(contains(r.err, "f99"));
  }
  SECTION("duplicate names and bad opsets") {
    auto m = write_manifest(dir, "models:\n  - {name: a, inputs: \"f32[1]\"}\n"
                                 "  - {name: a, inputs: \"f32[1]\"}\n");
    CHECK(contains(run_cli({"zoo", m}).err, "duplicate name 'a'"));
    m = write_manifest(dir, "models:\n  - {name: a, inputs: \"f32[1]\", opset: 22}\n");
    CHECK(contains(run_cli({"zoo", m}).err, "opset 22 is outside 11..21"));
  }
  SECTION("not YAML, missing file, bad shard") {
    auto m = write_manifest(dir, "models: [\n");
    CHECK(contains(run_cli({"zoo", m}).err, "not valid YAML"));
    auto r = run_cli({"zoo", dir + "/none.yaml"});
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "does not exist"));
    m = write_manifest(dir, "models:\n  - {name: a, inputs: \"f32[1]\"}\n");
    r = run_cli({"zoo", m, "--shard", "3/2"});
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "--shard '3/2'"));
  }
  SECTION("--help lists the flags") {
    auto r = run_cli({"zoo", "--help"});
    CHECK(r.exit_code == 0);
    for (const char *f : {"--out", "--jobs", "--shard", "--opset", "--junit", "--report", "--json"})
      CHECK(contains(r.out, f));
  }
}

TEST_CASE("zoo: the checked-in manifests parse, and shards split them exactly", "[zoo]") {
  struct M {
    const char *file;
    size_t jobs;
  };
  // torchvision.yaml: 94 models at opset 13 and 21; ci.yaml: 31 models, 5 of them at five opsets
  // (11, 13, 17, 18 and 21).
  for (M m : {M{"torchvision.yaml", 188}, M{"ci.yaml", 51}}) {
    std::string path = std::string(T2O_ZOO_MANIFESTS) + "/" + m.file;
    INFO(path);
    auto all = run_cli({"zoo", path, "--list"});
    REQUIRE(all.exit_code == 0);
    CHECK(contains(all.out, std::to_string(m.jobs) + " job(s)"));
    std::multiset<std::string> seen;
    for (const char *shard : {"1/3", "2/3", "3/3"}) {
      auto r = run_cli({"zoo", path, "--list", "--shard", shard});
      std::istringstream in(r.out);
      std::string line;
      while (std::getline(in, line))
        if (line.find('\t') != std::string::npos)
          seen.insert(line.substr(0, line.find('\t')));
    }
    CHECK(seen.size() == m.jobs);
    std::set<std::string> unique(seen.begin(), seen.end());
    CHECK(unique.size() == m.jobs);
  }
}

TEST_CASE("zoo: names that would reach outside a model's own files are refused", "[zoo]") {
  std::string dir = fresh_dir("zoo_names");
  // The user's folder: a sentinel beside --out, one inside it and an earlier run's log.
  std::string run = dir + "/run";
  fs::create_directories(run + "/o/logs");
  std::ofstream(run + "/sentinel.txt") << "mine";
  std::ofstream(run + "/o/inside.txt") << "mine";
  std::ofstream(run + "/o/logs/other.log") << "an earlier log";
  for (const char *name :
       {"..", ".", "logs", "LOGS", ".hidden", "-o", "a/b", "a b", "x@op13", "m.onnx", "a\\\\b"}) {
    INFO(name);
    std::string manifest =
        write_manifest(dir, "model_dir: " + std::string(T2O_TEST_MODELS) +
                                "\nmodels:\n"
                                "  - {name: \"" +
                                name + "\", model: tiny_cnn.pt, inputs: \"x:f32[1,3,16,16]\"}\n");
    auto r = run_cli({"zoo", manifest, "--out", run + "/o"});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "zoo.yaml:3:"));
    CHECK(contains(r.err, "name '"));
    CHECK(file_bytes(run + "/sentinel.txt") == "mine");
    CHECK(file_bytes(run + "/o/inside.txt") == "mine");
    CHECK(file_bytes(run + "/o/logs/other.log") == "an earlier log");
    CHECK(fs::exists(manifest));
  }
}

TEST_CASE("zoo: a passing model deletes only the files its run wrote", "[zoo]") {
  std::string dir = fresh_dir("zoo_cleanup");
  std::string out = dir + "/o";
  // The user's files in the model's test-data folder, and an old data set there (stale data).
  fs::create_directories(out + "/sym/test_data_set_7");
  std::ofstream(out + "/sym/user_file.txt") << "mine";
  std::ofstream(out + "/sym/test_data_set_7/input_0.pb") << "old";
  std::string manifest = write_manifest(
      dir, "model_dir: " + std::string(T2O_TEST_MODELS) +
               "\nmodels:\n"
               "  - {name: sym, model: tiny_cnn.pt, inputs: \"x:f32[batch=1,3,16,16]\", "
               "verify_dims: \"batch=3\"}\n"
               "  - {name: fresh, model: tiny_cnn.pt, inputs: \"x:f32[1,3,16,16]\"}\n");
  auto r = run_cli({"zoo", manifest, "--out", out, "--json", dir + "/r.json"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(file_bytes(out + "/sym/user_file.txt") == "mine");
  // A test_data_set_N left by an earlier export is stale verification data: the export replaces
  // every set (issue 17), while the user's other files stay.
  CHECK_FALSE(fs::exists(out + "/sym/test_data_set_7"));
  for (int k = 0; k < 3; ++k)
    CHECK_FALSE(fs::exists(out + "/sym/test_data_set_" + std::to_string(k)));
  CHECK_FALSE(fs::exists(out + "/sym.onnx"));
  // A folder this run created goes once empty.
  CHECK_FALSE(fs::exists(out + "/fresh"));
  CHECK_FALSE(fs::exists(out + "/fresh.onnx"));
  // The results come from the children's reports.
  auto all = models_in(file_bytes(dir + "/r.json"));
  CHECK(status_of(all["sym"]) == "pass");
  CHECK(contains(all["sym"], "\"outputs_checked\": 3"));
  CHECK_FALSE(contains(all["sym"], "\"nodes\": null"));
  CHECK_FALSE(contains(all["sym"], "\"export_seconds\": null"));
  CHECK(contains(file_bytes(out + "/logs/sym.json"), "\"format\": \"torch2onnx-report\""));
  SECTION("--keep keeps them") {
    auto k = run_cli({"zoo", manifest, "--out", out, "--keep"});
    REQUIRE(k.exit_code == 0);
    CHECK(fs::exists(out + "/sym.onnx"));
    CHECK(fs::exists(out + "/sym/test_data_set_2/input_0.pb"));
    CHECK(file_bytes(out + "/sym/user_file.txt") == "mine");
  }
}

TEST_CASE("zoo: a failing model's first error comes from its report", "[zoo]") {
  std::string dir = fresh_dir("zoo_report_error");
  std::string manifest = write_manifest(
      dir,
      "model_dir: " + std::string(T2O_TEST_MODELS) +
          "\nmodels:\n"
          "  - {name: unsupported, model: unconverted.pt, inputs: \"f32[2,3]\"}\n"
          "  - {name: strict, model: tiny_cnn.pt, inputs: \"f32[1,3,16,16]\", rtol: 0, atol: 0}\n");
  auto r = run_cli({"zoo", manifest, "--out", dir + "/o", "--json", dir + "/r.json"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  auto all = models_in(file_bytes(dir + "/r.json"));
  CHECK(status_of(all["unsupported"]) == "fail");
  // The message's lines joined into one.
  CHECK(contains(all["unsupported"], "2 ops have no converter at opset 17:   aten::linalg_eig"));
  if (status_of(all["strict"]) == "fail") {
    CHECK(contains(all["strict"], "verify output: max abs error"));
    CHECK(contains(all["strict"], "\"outputs_checked\": 1"));
  }
}
