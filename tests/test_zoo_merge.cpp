// `torch2onnx zoo merge` and `zoo --resume` (apps/zoo_results.h): shards' results joined into one
// JSON, JUnit and markdown report, missing and overlapping models named; models that passed
// before with the same inputs, binary and options skipped. Real runs use tiny manifests of the
// tests' fixtures; the CI manifest's four shards are merged from result files made here.
#include "harness.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace t2o_test;
namespace fs = std::filesystem;

namespace {

void spill(const std::string &p, const std::string &text) {
  std::ofstream(p) << text;
}

std::string write_manifest(const std::string &dir, const std::string &models) {
  std::string p = dir + "/zoo.yaml";
  spill(p, "model_dir: " + std::string(T2O_TEST_MODELS) +
               "\ndefaults: {opset: 17, timeout: 120}\nmodels:\n" + models);
  return p;
}

// Six jobs: four passing exports, one at two opsets, one expected failure.
const char *kSixJobs =
    "  - {name: tiny_a, model: tiny_cnn.pt, inputs: \"x:f32[1,3,16,16]\"}\n"
    "  - {name: tiny_b, model: tiny_cnn.pt, inputs: \"x:f32[1,3,16,16]\", opset: [13, 14]}\n"
    "  - {name: tuple, model: tuple_out.pt, inputs: \"f32[2,3]\"}\n"
    "  - {name: two, model: two_inputs.pt, inputs: [\"a:f32[2,3]\", \"b:f32[2,3]\"]}\n"
    "  - {name: unsupported, model: unconverted.pt, inputs: \"f32[2,3]\", "
    "expect_fail: \"no converter\"}\n";

nlohmann::json read_json(const std::string &p) {
  return nlohmann::json::parse(file_bytes(p));
}

std::vector<std::string> names_of(const nlohmann::json &results) {
  std::vector<std::string> out;
  for (const auto &m : results["models"])
    out.push_back(m["name"].get<std::string>());
  return out;
}

const nlohmann::json *model(const nlohmann::json &results, const std::string &name) {
  for (const auto &m : results["models"])
    if (m["name"] == name)
      return &m;
  return nullptr;
}

// The jobs `zoo MANIFEST --list --shard I/N` prints, by name.
std::vector<std::string> listed(const std::string &manifest, const std::string &shard) {
  auto r = run_cli({"zoo", manifest, "--list", "--shard", shard});
  REQUIRE(r.exit_code == 0);
  std::vector<std::string> names;
  std::istringstream in(r.out);
  std::string line;
  while (std::getline(in, line))
    if (line.find('\t') != std::string::npos)
      names.push_back(line.substr(0, line.find('\t')));
  return names;
}

// A results file as a shard of `manifest` writes it, every listed job passed.
void write_shard_results(const std::string &path, const std::string &manifest,
                         const std::vector<std::string> &names, const std::string &shard,
                         size_t manifest_jobs) {
  nlohmann::json j;
  j["models"] = nlohmann::json::array();
  for (const auto &n : names)
    j["models"].push_back({{"name", n},
                           {"model", n + ".pt"},
                           {"opset", 17},
                           {"status", "pass"},
                           {"seconds", 1.5},
                           {"nodes", 10},
                           {"params", "1.0K"}});
  j["format"] = "torch2onnx-zoo-results";
  j["manifest"] = manifest;
  j["shard"] = shard;
  j["manifest_jobs"] = manifest_jobs;
  j["planned"] = names;
  spill(path, j.dump(2));
}

} // namespace

TEST_CASE("zoo merge: four shards join into one report, a lost shard and an overlap are named",
          "[zoo][merge]") {
  std::string dir = fresh_dir("zoo_merge");
  std::string manifest = write_manifest(dir, kSixJobs);
  std::vector<std::string> shards;
  for (int i = 1; i <= 4; ++i) {
    std::string json = dir + "/shard-" + std::to_string(i) + ".json";
    auto r = run_cli({"zoo", manifest, "--shard", std::to_string(i) + "/4", "--out",
                      dir + "/s" + std::to_string(i), "--json", json});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    auto j = read_json(json);
    CHECK(j["shard"] == std::to_string(i) + "/4");
    CHECK(j["manifest_jobs"] == 6);
    CHECK(contains(j["binary"].get<std::string>(), "torch2onnx "));
    for (const auto &m : j["models"]) {
      CHECK(m["fingerprint"].get<std::string>().size() > 8);
      CHECK(m["index"].is_number());
    }
    shards.push_back(json);
  }
  const std::vector<std::string> order = {"tiny_a", "tiny_b@op13", "tiny_b@op14",
                                          "tuple",  "two",         "unsupported"};

  SECTION("all four, against the manifest: one report in manifest order") {
    std::vector<std::string> args = {"zoo", "merge"};
    args.insert(args.end(), shards.begin(), shards.end());
    args.insert(args.end(), {"--manifest", manifest, "--json", dir + "/all.json", "--junit",
                             dir + "/all.xml", "--report", dir + "/all.md"});
    auto r = run_cli(args);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(contains(r.out, "zoo merge: 4 file(s), 6 model(s): 5 pass, 1 xfail"));
    auto all = read_json(dir + "/all.json");
    CHECK(names_of(all) == order);
    CHECK(all["missing"].empty());
    CHECK(all["overlapping"].empty());
    CHECK(all["merged_from"].size() == 4);
    CHECK(model(all, "tuple")->at("outputs_checked") == 2);
    CHECK(contains(file_bytes(dir + "/all.xml"),
                   "tests=\"6\" failures=\"0\" errors=\"0\" skipped=\"1\""));
    std::string md = file_bytes(dir + "/all.md");
    CHECK(contains(md, "`torch2onnx zoo merge` of 4 file(s) of zoo.yaml: 6 models"));
    CHECK(contains(md, "| two | 17 | pass |"));
    SECTION("a merged file merges again, and --resume takes it") {
      auto again = run_cli({"zoo", "merge", dir + "/all.json", "--manifest", manifest});
      INFO(again.out << again.err);
      CHECK(again.exit_code == 0);
    }
  }
  SECTION("without --manifest the files' shard records suffice") {
    auto r = run_cli(
        {"zoo", "merge", shards[0], shards[1], shards[2], shards[3], "--json", dir + "/b.json"});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(names_of(read_json(dir + "/b.json")) == order);
  }
  SECTION("a lost shard: its models are named, exit 1") {
    auto r = run_cli({"zoo", "merge", shards[0], shards[1], shards[3], "--report", dir + "/c.md"});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, "every model of shard 3/4 (no file of it given)"));
    CHECK(contains(file_bytes(dir + "/c.md"), "**Missing** (1)"));
    auto m = run_cli({"zoo", "merge", shards[0], shards[1], shards[3], "--manifest", manifest});
    INFO(m.out << m.err);
    CHECK(m.exit_code == 1);
    // Shard 3 of 4 holds the 3rd job (tiny_b@op14); the manifest names its line.
    CHECK(contains(m.err, "models missing from the merged results (1)"));
    CHECK(contains(m.err, "tiny_b@op14 (manifest line 5)"));
  }
  SECTION("a shard given twice overlaps; a run stopped early misses its planned models") {
    auto r = run_cli({"zoo", "merge", shards[0], shards[1], shards[2], shards[3], shards[1]});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, "models in more than one file (2)"));
    CHECK(contains(r.err, "tiny_b@op13: in " + shards[1] + " (pass) and " + shards[1]));
    auto j = read_json(shards[0]);
    j["models"].erase(j["models"].begin()); // as if the run had stopped before its first model
    spill(dir + "/stopped.json", j.dump());
    auto s = run_cli({"zoo", "merge", dir + "/stopped.json", shards[1], shards[2], shards[3]});
    INFO(s.out << s.err);
    CHECK(s.exit_code == 1);
    CHECK(contains(s.err, "tiny_a (planned in " + dir + "/stopped.json, no result"));
  }
  SECTION("files that are not results are refused, naming the file") {
    spill(dir + "/junk.json", "{\"models\": 3}");
    auto r = run_cli({"zoo", "merge", shards[0], dir + "/junk.json"});
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "junk.json is not a zoo results file"));
    r = run_cli({"zoo", "merge", shards[0], "--json", shards[0]});
    CHECK(r.exit_code == 2);
  }
}

TEST_CASE("zoo merge: the CI manifest's four shards, checked against the manifest",
          "[zoo][merge]") {
  std::string dir = fresh_dir("zoo_merge_ci");
  std::string ci = std::string(T2O_ZOO_MANIFESTS) + "/ci.yaml";
  std::vector<std::string> files;
  std::vector<std::vector<std::string>> shards;
  size_t total = 0;
  for (int i = 1; i <= 4; ++i) {
    shards.push_back(listed(ci, std::to_string(i) + "/4"));
    total += shards.back().size();
  }
  REQUIRE(total == 51);
  for (int i = 1; i <= 4; ++i) {
    files.push_back(dir + "/ci-" + std::to_string(i) + ".json");
    write_shard_results(files.back(), ci, shards[i - 1], std::to_string(i) + "/4", total);
  }
  auto r = run_cli({"zoo", "merge", files[0], files[1], files[2], files[3], "--manifest", ci,
                    "--json", dir + "/ci.json", "--junit", dir + "/ci.xml"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(contains(r.out, "51 model(s): 51 pass"));
  auto merged = read_json(dir + "/ci.json");
  // Manifest order: shard i holds jobs i, i+4, ...; merged, they interleave again.
  auto names = names_of(merged);
  REQUIRE(names.size() == 51);
  CHECK(names[0] == shards[0][0]);
  CHECK(names[1] == shards[1][0]);
  CHECK(names[4] == shards[0][1]);
  CHECK(contains(file_bytes(dir + "/ci.xml"), "<testsuite name=\"ci\" tests=\"51\""));

  SECTION("a model dropped from one shard's file is named with its manifest line") {
    std::string dropped = shards[1][2];
    auto j = read_json(files[1]);
    for (auto it = j["models"].begin(); it != j["models"].end(); ++it)
      if ((*it)["name"] == dropped) {
        j["models"].erase(it);
        break;
      }
    spill(files[1], j.dump());
    auto m = run_cli({"zoo", "merge", files[0], files[1], files[2], files[3], "--manifest", ci});
    INFO(m.out << m.err);
    CHECK(m.exit_code == 1);
    CHECK(contains(m.err, dropped + " (manifest line "));
  }
  SECTION("merged against another --opset than the shards ran: every job differs") {
    auto m = run_cli({"zoo", "merge", files[0], files[1], files[2], files[3], "--manifest", ci,
                      "--opset", "13"});
    INFO(m.out << m.err);
    CHECK(m.exit_code == 1);
    CHECK(contains(m.err, "models that are not in the manifest"));
  }
}

TEST_CASE("zoo --resume: only what did not pass with the same inputs, binary and options runs",
          "[zoo][resume]") {
  std::string dir = fresh_dir("zoo_resume");
  fs::copy_file(test_model("tiny_cnn"), dir + "/a.pt");
  auto manifest_with = [&](const std::string &c_extra) {
    return write_manifest(
        dir, "  - {name: a, model: " + dir + "/a.pt, inputs: \"x:f32[1,3,16,16]\"}\n" +
                 "  - {name: b, model: unconverted.pt, inputs: \"f32[2,3]\"}\n" +
                 "  - {name: c, model: tuple_out.pt, inputs: \"f32[2,3]\"" + c_extra + "}\n");
  };
  std::string manifest = manifest_with("");
  auto first = run_cli({"zoo", manifest, "--out", dir + "/o", "--json", dir + "/r1.json"});
  INFO(first.out << first.err);
  REQUIRE(first.exit_code == 1); // b has no converter
  auto r1 = read_json(dir + "/r1.json");
  REQUIRE(model(r1, "a")->at("status") == "pass");
  REQUIRE(model(r1, "b")->at("status") == "fail");

  auto second = run_cli({"zoo", manifest, "--out", dir + "/o", "--resume", dir + "/r1.json",
                         "--json", dir + "/r2.json"});
  INFO(second.out << second.err);
  CHECK(second.exit_code == 1);
  CHECK(contains(second.out, "zoo: 2 model(s) skipped: passed in " + dir + "/r1.json"));
  CHECK(contains(second.out, "[1/1] b "));
  auto r2 = read_json(dir + "/r2.json");
  CHECK(names_of(r2) == std::vector<std::string>{"a", "b", "c"});
  CHECK(model(r2, "a")->at("resumed_from") == dir + "/r1.json");
  CHECK_FALSE(model(r2, "b")->contains("resumed_from"));
  CHECK(model(r2, "a")->at("nodes") == model(r1, "a")->at("nodes"));

  SECTION("another option (c's tolerance) runs c again") {
    std::string changed = manifest_with(", rtol: 1e-3");
    auto r = run_cli({"zoo", changed, "--out", dir + "/o", "--resume", dir + "/r2.json"});
    INFO(r.out << r.err);
    CHECK(contains(r.out, "zoo: 1 model(s) skipped"));
    CHECK(contains(r.out, "] c "));
    CHECK_FALSE(contains(r.out, "] a "));
  }
  SECTION("another model file at the same path runs a again; the same one elsewhere does not") {
    fs::copy_file(test_model("tuple_out"), dir + "/a.pt", fs::copy_options::overwrite_existing);
    auto run = run_cli({"zoo", manifest, "--out", dir + "/o", "--resume", dir + "/r2.json"});
    INFO(run.out << run.err);
    CHECK(contains(run.out, "zoo: 1 model(s) skipped")); // c only
    CHECK(contains(run.out, "] a "));
    fs::copy_file(test_model("tiny_cnn"), dir + "/a.pt", fs::copy_options::overwrite_existing);
    fs::create_directories(dir + "/elsewhere");
    fs::copy_file(test_model("tiny_cnn"), dir + "/elsewhere/a.pt");
    std::string moved = write_manifest(dir, "  - {name: a, model: " + dir +
                                                "/elsewhere/a.pt, inputs: \"x:f32[1,3,16,16]\"}\n");
    auto same = run_cli({"zoo", moved, "--out", dir + "/o", "--resume", dir + "/r2.json"});
    INFO(same.out << same.err);
    CHECK(same.exit_code == 0);
    CHECK(contains(same.out, "zoo: 1 model(s) skipped"));
  }
  SECTION("another binary runs everything again") {
    auto j = read_json(dir + "/r2.json");
    for (auto &m : j["models"])
      m["binary"] = "torch2onnx 0.0.1, LibTorch 1.12.0; build 0; ONNX Runtime 1.14.0";
    spill(dir + "/other_binary.json", j.dump());
    auto r =
        run_cli({"zoo", manifest, "--out", dir + "/o", "--resume", dir + "/other_binary.json"});
    INFO(r.out << r.err);
    CHECK(contains(r.out, "zoo: 0 model(s) skipped"));
    CHECK(contains(r.out, "[3/3]"));
  }
  SECTION("an unreadable previous file is a command-line error") {
    auto r = run_cli({"zoo", manifest, "--resume", dir + "/none.json"});
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "none.json"));
  }
}
