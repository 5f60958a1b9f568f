// Bad inputs the CLI must survive: each ends with a non-zero exit code (never a signal), one
// message naming the file or flag and what to do, no output file, and an existing output file
// left untouched. Also: byte-identical repeated exports and the atomic writer. (The simpler cases,
// missing model, empty file, malformed specs..., are in test_cli.cpp.)
#include "apps/zoo.h"
#include "builder/graph_builder.h"
#include "exporter/core/tensor_util.h"
#include "exporter/frontend/pickle_check.h"
#include "exporter/frontend/torchscript/loader.h"
#include "fuzz/fuzz_targets.h"
#include "harness.h"

#include <ATen/ATen.h>
#include <caffe2/serialize/inline_container.h>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sys/stat.h>
#include <torch/csrc/jit/ir/ir.h>

using namespace t2o_test;
namespace fs = std::filesystem;

namespace {

void write_bytes(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// run_cli with a file-size limit (ulimit -f, in 512-byte blocks) on the CLI process only: the
// output redirections run_command adds belong to the outer shell, so the limit does not apply.
CliResult run_cli_limited(const std::vector<std::string> &args, int blocks) {
  std::string cmd = "sh -c " +
                    shell_quote("ulimit -f " + std::to_string(blocks) + "; exec \"$@\"") + " sh " +
                    shell_quote(T2O_CLI);
  for (const auto &a : args)
    cmd += " " + shell_quote(a);
  return run_command(cmd);
}

// Files in `dir` other than `keep` (temporaries a failed write might leave behind).
std::vector<std::string> other_files(const std::string &dir, const std::vector<std::string> &keep) {
  std::vector<std::string> out;
  for (const auto &e : fs::directory_iterator(dir)) {
    std::string n = e.path().filename().string();
    if (std::find(keep.begin(), keep.end(), n) == keep.end())
      out.push_back(n);
  }
  return out;
}

// Runs the CLI on `model` (plus `extra` args) twice: once with no output file present, once with
// an existing one. Checks the contract every failure keeps and returns the first result.
CliResult expect_clean_failure(const std::string &model, const std::vector<std::string> &extra,
                               int exit_code = 1, int max_lines = 4) {
  std::string dir = fresh_dir("failure");
  std::string out = dir + "/out.onnx";
  std::vector<std::string> args = {model, "-o", out};
  args.insert(args.end(), extra.begin(), extra.end());
  CliResult r = run_cli(args);
  INFO(r.err);
  CHECK(r.exit_code == exit_code); // an exit code, not a signal (128 + n)
  CHECK(contains(r.err, "torch2onnx: error: "));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') <= max_lines); // one message, not a backtrace
  CHECK_FALSE(fs::exists(out));
  CHECK(other_files(dir, {}).empty());
  write_bytes(out, "previous contents");
  CliResult again = run_cli(args);
  CHECK(again.exit_code == exit_code);
  CHECK(file_bytes(out) == "previous contents");
  CHECK(other_files(dir, {"out.onnx"}).empty());
  return r;
}

std::string cut_copy(const std::string &src, size_t size, const std::string &dir,
                     const std::string &name) {
  std::string bytes = file_bytes(src);
  std::string p = dir + "/" + name;
  write_bytes(p, bytes.substr(0, std::min(size, bytes.size())));
  return p;
}

} // namespace

TEST_CASE("reliability: a TorchScript file cut short is reported as truncated", "[reliability]") {
  std::string dir = fresh_dir("cut");
  size_t full = fs::file_size(test_model("tiny_cnn"));
  for (size_t size :
       {size_t{3}, size_t{30}, full / 10, full / 2, full * 9 / 10, full - 30, full - 1}) {
    INFO("cut at " << size << " of " << full);
    std::string model =
        cut_copy(test_model("tiny_cnn"), size, dir, "cut_" + std::to_string(size) + ".pt");
    auto r = expect_clean_failure(model, {"--input", "f32[1,3,16,16]"});
    CHECK(contains(r.err, model));
    CHECK((contains(r.err, "cut short") || contains(r.err, "not a TorchScript file")));
  }
}

TEST_CASE("reliability: corrupt bytes inside a TorchScript archive", "[reliability]") {
  std::string dir = fresh_dir("corrupt");
  std::string bytes = file_bytes(test_model("tiny_cnn"));
  for (size_t at : {bytes.size() / 4, bytes.size() / 2, bytes.size() - 200}) {
    std::string b = bytes;
    for (size_t i = at; i < at + 64 && i < b.size(); ++i)
      b[i] = static_cast<char>(b[i] ^ 0x5a);
    std::string model = dir + "/flip_" + std::to_string(at) + ".pt";
    write_bytes(model, b);
    INFO(model);
    auto r = expect_clean_failure(model, {"--input", "f32[1,3,16,16]"});
    CHECK(contains(r.err, model));
  }
}

// The weights' checksums are checked on a second thread while LibTorch loads the file (loader.cpp
// check_pending_crcs): a damaged weight must still be reported as such, naming its record, and
// leave no output.
TEST_CASE("reliability: a damaged weight record fails its checksum", "[reliability]") {
  // Also in a record described the zip64 way (sizes and offset in the extra field), as the weights
  // past 4 GB of a large model's file are.
  const std::vector<std::pair<std::string, std::string>> models = {
      {"tiny_cnn", "f32[1,3,16,16]"}, {"zip64_gpt2_tiny", "ids:i64[1,16]"}};
  for (const auto &[name, spec] : models) {
    INFO(name);
    std::string src = test_model(name);
    caffe2::serialize::PyTorchStreamReader in(src);
    std::string biggest;
    size_t biggest_size = 0;
    for (const std::string &record : in.getAllRecords()) {
      if (record.rfind("data/", 0) != 0)
        continue;
      size_t n = std::get<1>(in.getRecord(record));
      if (n > biggest_size) {
        biggest = record;
        biggest_size = n;
      }
    }
    REQUIRE(biggest_size >= 64);
    std::string bytes = file_bytes(src);
    size_t at = in.getRecordOffset(biggest) + biggest_size / 2;
    for (size_t i = at; i < at + 8; ++i)
      bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
    std::string model = fresh_dir("weight_crc_" + name) + "/damaged_weight.pt";
    write_bytes(model, bytes);
    auto r = expect_clean_failure(model, {"--input", spec});
    CHECK(contains(r.err, "is corrupt"));
    CHECK(contains(r.err, "fails its checksum"));
    CHECK(contains(r.err, biggest));
  }
}

// A hostile file can carry correct checksums: rewrite tiny_cnn with LibTorch's own writer and one
// string length in data.pkl raised to ~4 GB. LibTorch's unpickler would allocate that much before
// noticing (tests/fuzz found it); the loader must refuse it first.
TEST_CASE("reliability: an impossible length inside a pickle record with valid checksums",
          "[reliability]") {
  caffe2::serialize::PyTorchStreamReader in(test_model("tiny_cnn"));
  auto [pkl, pkl_size] = in.getRecord("data.pkl");
  std::string data(static_cast<const char *>(pkl.get()), pkl_size);
  CHECK(torch2onnx::pickle_length_problem(reinterpret_cast<const unsigned char *>(data.data()),
                                          data.size()) == "");
  // The first BINUNICODE ('X' + 4-byte length) is the first attribute name, after PROTO 2,
  // GLOBAL "__torch__\n<class>\n", BINPUT, EMPTY_TUPLE, NEWOBJ, EMPTY_DICT, BINPUT, MARK.
  size_t x = data.find("X", data.find('\n', data.find('\n') + 1));
  REQUIRE(x != std::string::npos);
  REQUIRE(data.compare(x + 5, 8, "training") == 0);
  data[x + 4] = static_cast<char>(0xf6);
  std::string problem = torch2onnx::pickle_length_problem(
      reinterpret_cast<const unsigned char *>(data.data()), data.size());
  CHECK(contains(problem, fmt::format("the value at byte {} claims", x)));

  std::string dir = fresh_dir("pickle_len");
  std::string model = dir + "/hostile.pt";
  {
    caffe2::serialize::PyTorchStreamWriter out(model);
    for (const std::string &name : in.getAllRecords()) {
      if (name == "version")
        continue; // the writer adds it
      if (name == "data.pkl") {
        out.writeRecord(name, data.data(), data.size());
      } else {
        auto [ptr, n] = in.getRecord(name);
        out.writeRecord(name, ptr.get(), n);
      }
    }
    out.writeEndOfFile();
  }
  auto r = expect_clean_failure(model, {"--input", "f32[1,3,16,16]"});
  CHECK(contains(r.err, "in the pickle record 'data.pkl'"));
  CHECK(contains(r.err, "claims 4127195144 bytes")); // 0xf6000008
  CHECK(contains(r.err, model));
}

TEST_CASE("reliability: zip archives that are not TorchScript", "[reliability]") {
  SECTION("a plain zip") {
    auto r = expect_clean_failure(test_model("plain_zip"), {"--input", "f32[2,3]"});
    CHECK(contains(r.err, "is a zip archive but not a TorchScript file"));
    CHECK(contains(r.err, "torch.jit.trace"));
  }
  SECTION("a torch.save pickle") {
    auto r = expect_clean_failure(test_model("torch_save"), {"--input", "f32[2,3]"});
    CHECK(contains(r.err, "saved with torch.save, not as TorchScript"));
    CHECK(contains(r.err, "torch.jit.script"));
  }
}

TEST_CASE("reliability: a file from a newer PyTorch says which version is needed",
          "[reliability]") {
  SECTION("newer file format") {
    auto r = expect_clean_failure(test_model("newer_format"),
                                  {"--input", "f32[2,3]", "--input", "f32[2,3]"});
    CHECK(contains(r.err, "saved by a newer PyTorch"));
    CHECK(contains(r.err, "file format version 11"));
    CHECK(contains(r.err, "reads versions up to 10"));
    CHECK(contains(r.err, "LibTorch 1.13"));
  }
  SECTION("an aten op this LibTorch does not have") {
    auto r = expect_clean_failure(test_model("newer_op"),
                                  {"--input", "f32[2,3]", "--input", "f32[2,3]"});
    CHECK(contains(r.err, "uses the op aten::frobnicate, which LibTorch 1.13"));
    CHECK(contains(r.err, "newer PyTorch"));
  }
}

TEST_CASE("reliability: a custom op whose library is not loaded is named", "[reliability]") {
  auto r =
      expect_clean_failure(test_model("custom_op"), {"--input", "f32[2,3]", "--input", "f32[2,3]"});
  CHECK(contains(r.err, "uses the custom op t2o_demo::relu, whose library is not loaded"));
  CHECK(contains(r.err, "--load-library"));
  SECTION("a library that does not load") {
    std::string dir = fresh_dir("badlib");
    std::string lib = dir + "/libnot.so";
    write_bytes(lib, "not an ELF file");
    auto bad = expect_clean_failure(test_model("custom_op"), {"--load-library", lib, "--input",
                                                              "f32[2,3]", "--input", "f32[2,3]"});
    CHECK(contains(bad.err, "--load-library: cannot load '" + lib + "'"));
  }
}

TEST_CASE("reliability: input specs the model cannot take", "[reliability]") {
  SECTION("too many specs") {
    // The command line's fault, found once the model is loaded: a usage error, exit status 2.
    auto r = expect_clean_failure(test_model("tiny_cnn"),
                                  {"--input", "f32[1,3,16,16]", "--input", "f32[1]"}, 2);
    CHECK(contains(r.err, "forward(x) takes 1 argument but 2 --input specs were given"));
  }
  SECTION("a dtype the model rejects shows LibTorch's reason") {
    auto r = expect_clean_failure(test_model("tiny_cnn"), {"--input", "x:i64[1,3,16,16]"}, 1, 60);
    CHECK(contains(r.err, "failed in LibTorch"));
    CHECK((contains(r.err, "Long") || contains(r.err, "type")));
  }
  SECTION("a rank the model rejects") {
    auto r = expect_clean_failure(test_model("tiny_cnn"), {"--input", "x:f32[3,16]"}, 1, 60);
    CHECK(contains(r.err, "failed in LibTorch"));
  }
  SECTION("huge dims are refused by the parser, not by an allocation failure") {
    auto r =
        expect_clean_failure(test_model("tiny_cnn"), {"--input", "x:f32[1,3,9999999999999,16]"}, 2);
    CHECK(contains(r.err, "too large"));
  }
}

TEST_CASE("reliability: conflicting and malformed flags are command-line errors", "[reliability]") {
  std::string m = test_model("two_inputs");
  struct Case {
    std::vector<std::string> args;
    const char *message;
  };
  for (const Case &c : {
           Case{{"--rtol", "1e-3"}, "--verify"},
           Case{{"--seed", "3"}, "--verify"},
           Case{{"--opset", "seventeen"}, "--opset"},
           Case{{"--no-such-flag"}, "--no-such-flag"},
           Case{{"--input", "a:f32[2,3]", "--input", "a:f32[2,3]"}, "both name an input 'a'"},
           Case{{"--output-names", "y,y"}, "gives the name 'y' twice"},
           Case{{"--input", "y:f32[2,3]", "--input", "b:f32[2,3]", "--output-names", "y"},
                "'y' is also the name of --input"},
           Case{{"--output-names", "y,"}, "empty name"},
           Case{{"-v", "-q"}, "choose one"},
       }) {
    std::vector<std::string> args = {"--input", "f32[2,3]", "--input", "f32[2,3]"};
    if (contains(c.args[0] + (c.args.size() > 2 ? c.args[2] : ""), "--input"))
      args.clear();
    args.insert(args.end(), c.args.begin(), c.args.end());
    INFO(fmt::format("{}", fmt::join(args, " ")));
    auto r = expect_clean_failure(m, args, 2);
    CHECK(contains(r.err, c.message));
  }
}

TEST_CASE("reliability: output paths that cannot be written", "[reliability]") {
  SECTION("a folder that is not writable") {
    // root can write anywhere chmod forbids; /sys refuses new files even to root.
    std::string out = "/sys/t2o_test_out.onnx";
    std::string dir;
    if (::geteuid() != 0) {
      dir = fresh_dir("readonly");
      fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
      out = dir + "/m.onnx";
    }
    auto r = run_cli(
        {test_model("two_inputs"), "-o", out, "--input", "f32[2,3]", "--input", "f32[2,3]"});
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, "cannot create a file in"));
    // EACCES for a file, EPERM for a folder in /sys (the export writes into a folder of its own).
    CHECK((contains(r.err, "ermission denied") || contains(r.err, "not permitted")));
    CHECK_FALSE(fs::exists(out));
    if (!dir.empty())
      fs::permissions(dir, fs::perms::owner_all);
  }
  SECTION("the output path names the model through another spelling") {
    std::string dir = fresh_dir("same");
    std::string model = dir + "/m.pt";
    fs::copy_file(test_model("two_inputs"), model);
    auto r = run_cli({model, "-o", dir + "/../" + fs::path(dir).filename().string() + "/./m.pt",
                      "--input", "f32[2,3]", "--input", "f32[2,3]"});
    CHECK(r.exit_code == 2); // a command-line mistake (the path rule, docs/security.md)
    CHECK(contains(r.err, "is the model"));
    CHECK(file_bytes(model) == file_bytes(test_model("two_inputs")));
  }
}

TEST_CASE("reliability: a full disk mid-write leaves no file and no temporary", "[reliability]") {
  std::string dir = fresh_dir("full");
  std::string out = dir + "/m.onnx";
  // The tiny CNN's ONNX file is about 3 KB: a 1 KB limit makes the write fail part-way.
  std::vector<std::string> args = {test_model("tiny_cnn"), "-o", out, "--input", "f32[1,3,16,16]"};
  auto r = run_cli_limited(args, 2);
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(contains(r.err, "cannot write '" + out + "'"));
  CHECK(contains(r.err, "File too large"));
  CHECK_FALSE(fs::exists(out));
  CHECK(other_files(dir, {}).empty());
  write_bytes(out, "previous contents");
  auto again = run_cli_limited(args, 2);
  CHECK(again.exit_code == 1);
  CHECK(file_bytes(out) == "previous contents");
  CHECK(other_files(dir, {"m.onnx"}).empty());
  auto ok = run_cli(args); // and without the limit it works
  CHECK(ok.exit_code == 0);
  CHECK(file_bytes(out) != "previous contents");
}

TEST_CASE("reliability: NaN weights are counted in every floating dtype", "[reliability]") {
  // nonfinite_weight_warnings reads the weights' bits itself (no temporary tensor): check each
  // floating dtype, with infinities (not counted), a NaN with its sign bit set and a
  // non-contiguous constant.
  auto graph = std::make_shared<torch::jit::Graph>();
  const double nan = std::nan(""), inf = INFINITY;
  std::vector<at::ScalarType> types = {at::kFloat, at::kDouble, at::kHalf, at::kBFloat16};
  for (size_t k = 0; k < types.size(); ++k) {
    at::Tensor t = at::tensor({1.0, nan, -inf, inf, -nan, 0.5}, at::kDouble).to(types[k]);
    auto *v = graph->insertConstant(k == 0 ? t.view({2, 3}).t() : t);
    v->setDebugName(fmt::format("self.w{}", k));
  }
  auto *c = graph->insertConstant(at::tensor({1.0, nan}, at::kDouble).to(at::kComplexFloat));
  c->setDebugName("self.c");
  graph->insertConstant(at::full({4}, inf));
  auto w = torch2onnx::nonfinite_weight_warnings(*graph);
  REQUIRE(w.size() == 5);
  for (size_t k = 0; k < types.size(); ++k) {
    INFO(w[k]);
    CHECK(contains(w[k], fmt::format("weight 'w{}' (6 values) has 2 NaN values", k)));
  }
  CHECK(contains(w[4], "weight 'c' (2 values) has 1 NaN value;"));
}

TEST_CASE("reliability: NaN weights give a warning naming the weight", "[reliability]") {
  // The check runs on a second thread from the end of prepare (LoadedModel::weight_warnings).
  auto m = torch2onnx::load_model(test_model("nan_weights"));
  REQUIRE(m.weight_warnings.valid());
  std::vector<std::string> warnings = m.weight_warnings.get();
  REQUIRE(warnings.size() == 1);
  // The weight also holds an Inf, which is not worth a warning (-inf fills causal masks).
  CHECK(contains(warnings[0], "weight 'fc.weight' (6 values) has 1 NaN value;"));
  CHECK_FALSE(contains(warnings[0], "infinite"));
  CHECK(torch2onnx::nonfinite_weight_warnings(*m.graph) == warnings);
  auto clean = torch2onnx::load_model(test_model("tiny_cnn"));
  CHECK(clean.weight_warnings.get().empty());
  std::string dir = fresh_dir("nan");
  auto r = run_cli({test_model("nan_weights"), "-o", dir + "/m.onnx", "--input", "f32[2,3]"});
  INFO(r.err);
  CHECK(r.exit_code == 0); // a warning, not an error
  CHECK(contains(r.err, "weight 'fc.weight' (6 values) has 1 NaN value;"));
}

TEST_CASE("reliability: outputs that are not tensors are named", "[reliability]") {
  auto r = expect_clean_failure(test_model("none_out"), {"--input", "f32[2,3]"});
  CHECK(contains(r.err, "cannot be an ONNX output"));
  CHECK(contains(r.err, "forward returns NoneType"));
  SECTION("a dict of tensors gives one output per value, named after its key") {
    std::string dir = fresh_dir("dictout");
    auto d =
        run_cli({test_model("dict_out"), "-o", dir + "/m.onnx", "--input", "f32[2,3]", "--verify"});
    INFO(d.out << d.err);
    CHECK(d.exit_code == 0);
    CHECK(contains(d.out, "verify y: max abs error"));
  }
  SECTION("numbers are fine: they become constant outputs") {
    std::string dir = fresh_dir("intout");
    auto r = run_cli({test_model("int_out"), "-o", dir + "/m.onnx", "--input", "f32[2,3]"});
    CHECK(r.exit_code == 0);
  }
}

TEST_CASE("reliability: a model over 2 GB switches to external data by itself and says so",
          "[reliability][big]") {
  // big_constant computes a 2.24 GB weight at export time (its .pt file is tiny).
  std::string dir = fresh_dir("big");
  auto r = run_cli(
      {test_model("big_constant"), "-o", dir + "/m.onnx", "--input", "idx:i64[4]", "--verify"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.err, "because the model is over 2 GB"));
  CHECK(contains(r.err, dir + "/m.onnx.data"));
  CHECK(contains(r.out, "verify output: max abs error"));
  CHECK(fs::file_size(dir + "/m.onnx.data") >= size_t{2240000000});
  CHECK(fs::file_size(dir + "/m.onnx") < 100000);
  fs::remove_all(dir); // 2.2 GB: do not keep it in the build tree
}

TEST_CASE("reliability: LibTorch's interpreter errors shrink to the reason and the source line",
          "[reliability]") {
  std::string what = "The following operation failed in the TorchScript interpreter.\n"
                     "Traceback of TorchScript, serialized code (most recent call last):\n"
                     "  File \"code/__torch__.py\", line 16, in forward\n"
                     "    input = torch.relu((bn).forward((conv).forward(x, ), ))\n"
                     "                                     ~~~~~~~~~~~~~ <--- HERE\n"
                     "Traceback of TorchScript, original code (most recent call last):\n"
                     "/usr/lib/python3/dist-packages/torch/nn/modules/conv.py(459): _conv_forward\n"
                     "/usr/lib/python3/dist-packages/torch/nn/modules/conv.py(463): forward\n"
                     "/work/main/models/make_test_models.py(26): forward\n"
                     "/usr/lib/python3/dist-packages/torch/jit/_trace.py(759): trace\n"
                     "RuntimeError: expected scalar type Long but found Float\n";
  CHECK(torch2onnx::summarize_torch_error(what) ==
        "expected scalar type Long but found Float (at /work/main/models/make_test_models.py(26): "
        "forward)");
  CHECK(torch2onnx::summarize_torch_error("plain message\nmore") == "plain message");
  // A scripted model's own exception keeps its text and type, at the model's raise.
  std::string raised = "The following operation failed in the TorchScript interpreter.\n"
                       "Traceback of TorchScript, serialized code (most recent call last):\n"
                       "  File \"code/__torch__.py\", line 16, in forward\n"
                       "      ops.prim.RaiseException(_0, \"builtins.ValueError\")\n"
                       "      ~~~~~~~~~~~~~~~~~~~~~~~ <--- HERE\n"
                       "\n"
                       "Traceback of TorchScript, original code (most recent call last):\n"
                       "  File \"/src/model.py\", line 57, in forward\n"
                       "    def forward(self, ids, lengths):\n"
                       "        if bool((lengths[1:] > lengths[:-1]).any()):\n"
                       "            raise ValueError(\"lengths must be sorted\")\n"
                       "            ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~ <--- HERE\n"
                       "builtins.ValueError: lengths must be sorted\n";
  CHECK(torch2onnx::summarize_torch_error(raised) ==
        "ValueError: lengths must be sorted (at /src/model.py:57: raise ValueError(\"lengths must "
        "be sorted\"))");
}

TEST_CASE("reliability: exporting the same model twice gives byte-identical files",
          "[reliability]") {
  std::string dir = fresh_dir("determinism");
  for (const char *name : {"tiny_cnn", "tuple_out"}) {
    std::string spec = std::string(name) == "tiny_cnn" ? "f32[1,3,16,16]" : "f32[2,3]";
    auto a = run_cli({test_model(name), "-o", dir + "/a.onnx", "--input", spec});
    auto b = run_cli({test_model(name), "-o", dir + "/b.onnx", "--input", spec});
    REQUIRE(a.exit_code == 0);
    REQUIRE(b.exit_code == 0);
    std::string x = file_bytes(dir + "/a.onnx"), y = file_bytes(dir + "/b.onnx");
    CHECK(!x.empty());
    CHECK(x == y);
  }
}

TEST_CASE("reliability: the atomic writer replaces the file whole or not at all", "[reliability]") {
  std::string dir = fresh_dir("atomic");
  std::string p = dir + "/f.bin";
  SECTION("a failing writer leaves no file and no temporary") {
    CHECK_THROWS_WITH(torch2onnx::write_file_atomic_with(p,
                                                         [](int fd) {
                                                           (void)!::write(fd, "partial", 7);
                                                           errno = ENOSPC;
                                                           return false;
                                                         }),
                      Catch::Contains("cannot write '" + p + "'") &&
                          Catch::Contains("No space left"));
    CHECK(other_files(dir, {}).empty());
  }
  SECTION("a failing writer keeps the previous file") {
    write_bytes(p, "old");
    CHECK_THROWS(torch2onnx::write_file_atomic_with(p, [](int) { return false; }));
    CHECK(file_bytes(p) == "old");
    CHECK(other_files(dir, {"f.bin"}).empty());
  }
  SECTION("success replaces the file, readable by all, no temporary left") {
    write_bytes(p, "old");
    torch2onnx::write_file_atomic(p, "new contents");
    CHECK(file_bytes(p) == "new contents");
    CHECK((fs::status(p).permissions() & fs::perms::others_read) != fs::perms::none);
    CHECK(other_files(dir, {"f.bin"}).empty());
  }
  SECTION("a missing folder is an error") {
    CHECK_THROWS_WITH(torch2onnx::write_file_atomic(dir + "/no/f.bin", "x"),
                      Catch::Contains("does not exist"));
  }
}

TEST_CASE("reliability: inputs the fuzzers found stay fixed", "[reliability][fuzz]") {
  // tests/fuzz/regressions/<target>/: every input that once crashed or hung a fuzz target.
  fs::path root = fs::path(__FILE__).parent_path() / "fuzz" / "regressions";
  int replayed = 0;
  for (const char *target : {"input_spec", "load_model", "manifest"}) {
    if (!fs::is_directory(root / target))
      continue;
    for (const auto &e : fs::directory_iterator(root / target)) {
      if (!e.is_regular_file() || e.path().extension() == ".md")
        continue;
      INFO(e.path().string());
      std::string bytes = file_bytes(e.path().string());
      const auto *data = reinterpret_cast<const uint8_t *>(bytes.data());
      if (std::string(target) == "input_spec") {
        t2o_fuzz::fuzz_input_spec(data, bytes.size());
      } else if (std::string(target) == "manifest") {
        std::string p = t2o_fuzz::write_temp(data, bytes.size(), ".yaml");
        CHECK_NOTHROW([&] {
          try {
            torch2onnx::zoo::load_manifest(p, "/tmp", 0);
          } catch (const torch2onnx::Error &) {
          }
        }());
        fs::remove(p);
      } else {
        std::string p = t2o_fuzz::write_temp(data, bytes.size(), ".pt");
        CHECK_NOTHROW([&] {
          try {
            torch2onnx::load_model(p);
          } catch (const torch2onnx::Error &) {
          }
        }());
        fs::remove(p);
      }
      ++replayed;
    }
  }
  SUCCEED(replayed << " regression inputs replayed");
}

TEST_CASE("reliability: a zoo manifest listing an opset twice is refused", "[reliability]") {
  // opset: [17, 17] made two jobs named m@op17 writing the same files at once.
  std::string dir = fresh_dir("zoo_opsets");
  std::ofstream(dir + "/z.yaml") << "models:\n  - name: m\n    inputs: [\"f32[2,3]\"]\n"
                                    "    opset: [17, 17]\n";
  try {
    torch2onnx::zoo::load_manifest(dir + "/z.yaml", dir, 0);
    FAIL("the manifest was accepted");
  } catch (const torch2onnx::Error &e) {
    CHECK(contains(e.what(), "opset 17 is listed twice"));
  }
}
