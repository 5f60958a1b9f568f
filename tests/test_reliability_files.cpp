// Reliability round 3 (issue 26), the files the CLI writes: no path written is a path read (or
// inside a folder --verify replaces), nothing of the user's is deleted, a failed re-export leaves
// the earlier output as it was, two exports to one -o at once both finish, a report path that
// cannot take the report says why, legal names stay legal with the temporary names added.
#include "harness.h"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>

using namespace t2o_test;
namespace fs = std::filesystem;

namespace {

void write_bytes(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// Every file or folder below `dir` whose name marks it as a temporary.
std::vector<std::string> temporaries(const std::string &dir) {
  std::vector<std::string> out;
  for (const auto &e : fs::recursive_directory_iterator(dir))
    if (contains(e.path().filename().string(), ".tmp"))
      out.push_back(e.path().string());
  return out;
}

// Path -> bytes of every file below `dir`.
std::map<std::string, std::string> snapshot(const std::string &dir) {
  std::map<std::string, std::string> out;
  for (const auto &e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file())
      out[fs::relative(e.path(), dir).string()] = file_bytes(e.path().string());
  return out;
}

const std::vector<std::string> kSpec = {"--input", "x:f32[1,3,16,16]"};

std::vector<std::string> args(std::vector<std::string> a, const std::vector<std::string> &more) {
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

} // namespace

TEST_CASE("files: no path written is a path read", "[reliability]") {
  std::string dir = fresh_dir("paths");
  std::string model = dir + "/e.onnx.data";
  fs::copy_file(test_model("tiny_cnn"), model);
  const std::string original = file_bytes(model);
  struct Case {
    std::vector<std::string> args;
    std::string expect;
  } cases[] = {
      // The model was deleted as "the old OUT.onnx.data".
      {{model, "-o", dir + "/e.onnx"}, "is the model"},
      {{model, "-o", dir + "/x.onnx", "--report", model}, "--report"},
      {{model, "-o", dir + "/x.json", "--report", dir + "/x.json"}, "are the same file"},
      {{model, "-o", dir + "/x.onnx", "--report", dir + "/x.onnx.data"}, "are the same file"},
      {{model, "-o", dir + "/x.onnx", "--load-library", dir + "/x.onnx"}, "--load-library"},
  };
  for (const auto &c : cases) {
    INFO(fmt::format("{}", fmt::join(c.args, " ")));
    auto r = run_cli(args(c.args, kSpec));
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, c.expect));
    CHECK(file_bytes(model) == original);
  }
  CHECK_FALSE(fs::exists(dir + "/x.onnx"));
  CHECK_FALSE(fs::exists(dir + "/x.json"));
  // -o '' wrote MODEL.onnx beside the model, as if -o was not given.
  auto empty = run_cli(args({model, "-o", ""}, kSpec));
  CHECK(empty.exit_code == 2);
  CHECK(contains(empty.err, "-o is empty"));
  CHECK_FALSE(fs::exists(dir + "/e.onnx"));
}

TEST_CASE("files: devices and the zoo's result files are paths too", "[reliability]") {
  // A rename over /dev/null or /dev/stdout (as root) would replace the device or the link with a
  // file: a written path that is not a regular file is refused, a link is written through.
  std::string dir = fresh_dir("paths_devices");
  for (const auto &extra : std::vector<std::vector<std::string>>{
           {"-o", "/dev/null"}, {"-o", dir + "/m.onnx", "--report", "/dev/null"}}) {
    auto r = run_cli(args(args({test_model("tiny_cnn")}, extra), kSpec));
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "torch2onnx writes regular files only"));
  }
  auto piped = run_command("(" + shell_quote(T2O_CLI) + " " + test_model("tiny_cnn") + " -o " +
                           dir + "/m.onnx --input x:f32[1,3,16,16] --report /dev/stdout | cat)");
  CHECK(contains(piped.err, "is a pipe (FIFO); torch2onnx writes regular files only"));
  CHECK(fs::is_character_file("/dev/null"));
  CHECK(fs::is_symlink("/dev/stdout"));
  // -o through a symbolic link writes the file it names; the link stays.
  write_bytes(dir + "/real.onnx", "old");
  fs::create_symlink("real.onnx", dir + "/link.onnx");
  REQUIRE(run_cli(args({test_model("tiny_cnn"), "-o", dir + "/link.onnx"}, kSpec)).exit_code == 0);
  CHECK(fs::is_symlink(dir + "/link.onnx"));
  CHECK(file_bytes(dir + "/real.onnx") != "old");
  // zoo --report over its own manifest, --json over --junit.
  std::string manifest = dir + "/z.yaml";
  write_bytes(manifest, "models:\n  - name: m\n    model: " + test_model("tiny_cnn") +
                            "\n    inputs: [\"x:f32[1,3,16,16]\"]\n");
  const std::string text = file_bytes(manifest);
  for (const auto &extra : std::vector<std::vector<std::string>>{
           {"--report", manifest}, {"--json", dir + "/r", "--junit", dir + "/r"}}) {
    auto r = run_cli(args({"zoo", manifest, "--out", dir + "/out"}, extra));
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK((contains(r.err, "is the manifest") || contains(r.err, "are the same file")));
    CHECK(file_bytes(manifest) == text);
  }
}

TEST_CASE("files: --verify never deletes a file of the user's in a test_data_set folder",
          "[reliability]") {
  std::string dir = fresh_dir("user_in_set");
  std::string out = dir + "/m.onnx";
  REQUIRE(run_cli(args({test_model("tiny_cnn"), "-o", out, "--verify"}, kSpec)).exit_code == 0);
  // A model kept inside the test-data folder, and given as the model: refused, kept.
  std::string inside = dir + "/m/test_data_set_0/model.pt";
  fs::copy_file(test_model("tiny_cnn"), inside);
  auto r = run_cli(args({inside, "-o", out, "--verify"}, kSpec));
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, "inside the test-data folder"));
  CHECK(fs::exists(inside));
  // The same file there while another model is exported: refused, kept.
  auto again = run_cli(args({test_model("tiny_cnn"), "-o", out, "--verify"}, kSpec));
  INFO(again.err);
  CHECK(again.exit_code == 1);
  CHECK(contains(again.err, "holds 'model.pt', which torch2onnx did not write"));
  CHECK(fs::exists(inside));
  // Its --input-data there too.
  auto data = run_cli({test_model("tiny_cnn"), "-o", out, "--verify", "--input-data",
                       dir + "/m/test_data_set_0/input_0.pb"});
  CHECK(data.exit_code == 2);
  CHECK(contains(data.err, "inside the test-data folder"));
  CHECK(temporaries(dir).empty());
}

TEST_CASE("files: a re-export that fails while verifying keeps the earlier output",
          "[reliability]") {
  std::string dir = fresh_dir("failed_reexport");
  std::string out = dir + "/m.onnx";
  const std::vector<std::string> dyn = {"--input", "x:f32[batch=1,3,16,16]", "--verify"};
  REQUIRE(run_cli(args({test_model("tiny_cnn"), "-o", out}, dyn)).exit_code == 0);
  REQUIRE(fs::exists(dir + "/m/test_data_set_1"));
  auto before = snapshot(dir);
  // ONNX Runtime fails (as out of memory would): the earlier model and its two sets stay whole.
  std::string fake = dir + "/bin";
  fs::create_directories(fake);
  write_bytes(fake + "/node", "#!/bin/sh\necho 'model error: std::bad_alloc' >&2\nexit 1\n");
  fs::permissions(fake + "/node", fs::perms::owner_all);
  auto r =
      run_command("PATH=" + fake + ":$PATH " + shell_quote(T2O_CLI) + " " + test_model("tiny_cnn") +
                  " -o " + out + " --input x:f32[1,3,16,16] --verify");
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(contains(r.err, "ONNX Runtime failed to run"));
  // A model ONNX Runtime refuses after logging warnings of its own is the model's problem, not
  // the runner installation's.
  write_bytes(fake + "/node", "#!/bin/sh\necho '[W:onnxruntime:, graph.cc:1] a warning' >&2\n"
                              "echo 'model error: Could not find an implementation for Where(9)' "
                              ">&2\nexit 1\n");
  r = run_command("PATH=" + fake + ":$PATH " + shell_quote(T2O_CLI) + " " + test_model("tiny_cnn") +
                  " -o " + out + " --input x:f32[1,3,16,16] --verify");
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(contains(r.err, "ONNX Runtime failed to run"));
  CHECK(contains(r.err, "Where(9)"));
  CHECK_FALSE(contains(r.err, "installation"));
  // An index out of range at run time: the hint names float16 rounding and the inputs.
  write_bytes(fake + "/node", "#!/bin/sh\necho 'model error: GatherElements op: Out of range "
                              "value in index tensor' >&2\nexit 1\n");
  r = run_command("PATH=" + fake + ":$PATH " + shell_quote(T2O_CLI) + " " + test_model("tiny_cnn") +
                  " -o " + out + " --input x:f32[1,3,16,16] --verify");
  CHECK(r.exit_code == 1);
  CHECK(contains(r.err, "Out of range value in index tensor"));
  CHECK(contains(r.err, "--dtype f16/bf16"));
  fs::remove_all(fake);
  CHECK(snapshot(dir) == before);
  CHECK(temporaries(dir).empty());
}

TEST_CASE("files: two exports to one -o at once both finish with complete files", "[reliability]") {
  std::string dir = fresh_dir("concurrent");
  std::string out = dir + "/m.onnx";
  std::string one = shell_quote(T2O_CLI) + " " + test_model("tiny_cnn") + " -o " + out +
                    " --input x:f32[batch=1,3,16,16] --verify";
  run_command("(" + one + " >/dev/null 2>" + dir + "/e1; echo $? >" + dir + "/rc1) & (" + one +
              " --seed 7 >/dev/null 2>" + dir + "/e2; echo $? >" + dir + "/rc2) & wait");
  INFO(file_bytes(dir + "/e1") << file_bytes(dir + "/e2"));
  CHECK(file_bytes(dir + "/rc1") == "0\n");
  CHECK(file_bytes(dir + "/rc2") == "0\n");
  CHECK(fs::exists(out));
  CHECK(fs::exists(dir + "/m/test_data_set_0/input_0.pb"));
  CHECK(fs::exists(dir + "/m/test_data_set_1/output_0.pb"));
  CHECK(temporaries(dir).empty());
}

TEST_CASE("files: report paths that cannot take a report say why", "[reliability]") {
  std::string dir = fresh_dir("report_paths");
  auto r = run_cli(args({test_model("tiny_cnn"), "-o", dir + "/m.onnx", "--report", dir}, kSpec));
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, "is a directory"));
  CHECK_FALSE(contains(r.err, "Success"));
  auto missing = run_cli(
      args({test_model("tiny_cnn"), "-o", dir + "/m.onnx", "--report", dir + "/no/r.json"}, kSpec));
  CHECK(missing.exit_code == 2);
  CHECK(contains(missing.err, "does not exist"));
  CHECK_FALSE(fs::exists(dir + "/m.onnx"));
}

TEST_CASE("files: a legal 250-byte output name exports and verifies", "[reliability]") {
  std::string dir = fresh_dir("long_name");
  std::string name = std::string(245, 'n') + ".onnx"; // 250 bytes; the limit is 255
  auto r = run_cli(args({test_model("tiny_cnn"), "-o", dir + "/" + name, "--verify", "--locate",
                         "--report", dir + "/" + std::string(245, 'r') + ".json"},
                        kSpec));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(fs::exists(dir + "/" + name));
  CHECK(fs::exists(dir + "/" + std::string(245, 'n') + "/test_data_set_0/input_0.pb"));
  CHECK(temporaries(dir).empty());
}
