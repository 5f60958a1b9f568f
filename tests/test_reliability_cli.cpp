// Reliability round 3 (issue 26), the other surfaces: `ops` with plugins that crash, throw or
// register nonsense, `show` on hostile files (escapes, sizes past int64, negative dims, missing
// data), a crash during an export still writing --report, out of memory without a backtrace,
// output names with a newline through ONNX Runtime, and a model archive with two records on one
// header. Inputs crafted at test time, run under `timeout`.
#include "harness.h"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

using namespace t2o_test;
namespace fs = std::filesystem;

namespace {

void write_bytes(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

size_t lines(const std::string &s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

CliResult run_timed(const std::vector<std::string> &args, int seconds = 120) {
  std::string cmd = "timeout -s KILL " + std::to_string(seconds) + " " + shell_quote(T2O_CLI);
  for (const auto &a : args)
    cmd += " " + shell_quote(a);
  return run_command(cmd);
}

// A tiny ONNX model: Identity from an input to an output, names and an initializer as given.
void write_model(const std::string &path, const std::string &in, const std::string &out,
                 const onnx::TensorProto *init = nullptr) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("test\x1b[31m");
  m.add_opset_import()->set_version(17);
  auto *g = m.mutable_graph();
  g->set_name("g");
  auto value = [](onnx::ValueInfoProto *v, const std::string &name) {
    v->set_name(name);
    auto *t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_value(2);
  };
  value(g->add_input(), in);
  value(g->add_output(), out);
  auto *n = g->add_node();
  n->set_op_type("Identity");
  n->set_name("node\nfake line");
  n->add_input(in);
  n->add_output(out);
  if (init)
    *g->add_initializer() = *init;
  std::ofstream f(path, std::ios::binary);
  m.SerializeToOstream(&f);
}

} // namespace

TEST_CASE("cli: ops survives plugins that crash, throw or register nonsense", "[reliability]") {
  struct Case {
    std::string plugin, expect;
  } cases[] = {
      {T2O_PLUGIN_ABORT, "crashed (SIGABRT) while loading the converter plugin"},
      {T2O_PLUGIN_SEGV, "crashed (SIGSEGV) while loading the converter plugin"},
      {T2O_PLUGIN_THROW_INT, "threw an exception that is not a std::exception"},
      {T2O_PLUGIN_BAD_NAME, "registers an op named ''"},
      {T2O_PLUGIN_BAD_OPSET, "registers t2otest::odd at opset -5"},
  };
  for (const auto &c : cases) {
    auto r = run_timed({"ops", "--converters", c.plugin});
    INFO(c.plugin << "\n" << r.out << r.err);
    CHECK(r.exit_code == 1); // not 134 / 139 / terminate
    CHECK(contains(r.err, c.expect));
    CHECK(contains(r.err, c.plugin));
    CHECK(lines(r.err) <= 2);
  }
  std::string dir = fresh_dir("plugin_arch");
  // A plugin built for another machine: dlopen said "No such file or directory".
  std::string arm = dir + "/libarm.so";
  std::string elf = file_bytes(T2O_PLUGIN_GOOD);
  elf[18] = static_cast<char>(183); // e_machine: EM_AARCH64
  elf[19] = 0;
  write_bytes(arm, elf);
  auto r = run_timed({"ops", "--converters", arm});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(contains(r.err, "is built for aarch64 (64-bit), but this torch2onnx runs on x86-64"));
  auto lib = run_timed({test_model("tiny_cnn"), "-o", dir + "/m.onnx", "--input", "f32[1,3,16,16]",
                        "--load-library", arm});
  CHECK(lib.exit_code == 1);
  CHECK(contains(lib.err, "--load-library '" + arm + "' is built for aarch64"));
  // ops --json with a plugin whose path holds a quote and a newline: still JSON.
  std::string odd = dir + "/we\"ird\n.so";
  fs::copy_file(T2O_PLUGIN_GOOD, odd);
  auto json = run_timed({"ops", "--json", "--converters", odd});
  REQUIRE(json.exit_code == 0);
  auto listed = nlohmann::json::parse(json.out);
  CHECK(std::any_of(listed.begin(), listed.end(),
                    [&](const nlohmann::json &e) { return e["plugin"] == odd; }));
  // In an export, a plugin throwing an int is one error too.
  auto ex = run_timed({test_model("tiny_cnn"), "-o", dir + "/m.onnx", "--input", "f32[1,3,16,16]",
                       "--converters", T2O_PLUGIN_THROW_INT});
  CHECK(ex.exit_code == 1);
  CHECK(contains(ex.err, "not a std::exception"));
  CHECK_FALSE(fs::exists(dir + "/m.onnx"));
}

TEST_CASE("cli: show escapes names and reports impossible sizes", "[reliability]") {
  std::string dir = fresh_dir("show_hostile");
  onnx::TensorProto big;
  big.set_name("w\x1b]0;owned\x07");
  big.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : {int64_t{1} << 62, int64_t{1} << 62, int64_t{16}})
    big.add_dims(d);
  write_model(dir + "/big.onnx", "x\x1b[2J", "y\nz", &big);
  auto r = run_timed({"show", dir + "/big.onnx"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK_FALSE(contains(r.out, "\x1b"));
  CHECK(contains(r.out, "x\\e[2J"));
  CHECK(contains(r.out, "y\\nz"));
  CHECK_FALSE(contains(r.out, "\nz"));
  CHECK_FALSE(contains(r.out, "0 elements"));
  CHECK(contains(r.out, "warning: initializer 'w\\e]0;owned\\x07' f32["));
  CHECK(contains(r.out, "but the file holds 0 B"));
  // --json keeps the names as they are (JSON escapes them itself).
  auto j = run_timed({"show", dir + "/big.onnx", "--json"});
  CHECK(contains(j.out, "\"y\\nz\""));

  onnx::TensorProto neg;
  neg.set_name("n");
  neg.set_data_type(onnx::TensorProto::FLOAT);
  neg.add_dims(-5);
  neg.add_dims(3);
  write_model(dir + "/neg.onnx", "x", "y", &neg);
  auto n = run_timed({"show", dir + "/neg.onnx"});
  INFO(n.out);
  CHECK_FALSE(contains(n.out, "-15"));
  CHECK(contains(n.out, "has a negative dim (-5)"));

  // A second graph field, which protobuf would merge silently.
  std::string twice = file_bytes(dir + "/neg.onnx");
  twice += std::string("\x3a\x00", 2);
  write_bytes(dir + "/twice.onnx", twice);
  auto t = run_timed({"show", dir + "/twice.onnx"});
  CHECK(t.exit_code == 1);
  CHECK(contains(t.err, "gives the ModelProto field 7 twice"));
}

TEST_CASE("cli: a crash during an export still writes the report", "[reliability]") {
  std::string dir = fresh_dir("crash_report");
  for (const char *report : {"r.json", "r.md"}) {
    auto r = run_timed({test_model("tiny_cnn"), "-o", dir + "/m.onnx", "--input", "f32[1,3,16,16]",
                        "--load-library", T2O_ZOO_CRASH_LIB, "--report", dir + "/" + report});
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, "crashed (SIGSEGV)"));
    std::string doc = file_bytes(dir + "/" + report);
    INFO(doc);
    CHECK(contains(doc, "crashed (SIGSEGV) while"));
    CHECK(contains(doc, "crash"));
    CHECK_FALSE(contains(doc, "@@T2O"));
  }
  CHECK_FALSE(fs::exists(dir + "/m.onnx"));
}

TEST_CASE("cli: out of memory is one message, without LibTorch's backtrace", "[reliability]") {
  std::string dir = fresh_dir("oom_example");
  // 3 GB of example input under a 1.5 GB address-space limit: the allocation fails.
  auto r = run_command("ulimit -v 1500000; exec timeout -s KILL 120 " + shell_quote(T2O_CLI) + " " +
                       test_model("tiny_cnn") + " -o " + dir +
                       "/m.onnx --input x:f32[1,3,16000,16000] --verify");
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(contains(r.err, "out of memory"));
  CHECK_FALSE(contains(r.err, "frame #"));
  CHECK(lines(r.err) <= 3);
}

TEST_CASE("cli: output names with a newline go through ONNX Runtime and print escaped",
          "[reliability]") {
  std::string dir = fresh_dir("newline_names");
  auto r = run_timed({test_model("tiny_cnn"), "-o", dir + "/m.onnx", "--input", "f32[1,3,16,16]",
                      "--output-names", "y\nz", "--verify", "-v"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(contains(r.out, "verify y\\nz: max abs error"));
}

TEST_CASE("cli: a model archive with two records on one local header is refused", "[reliability]") {
  // Point the central-directory entry of the last record at the first record's local header
  // (offset 0). LibTorch's mapped load aborted on it.
  std::string bytes = file_bytes(test_model("tiny_cnn"));
  size_t eocd = bytes.rfind(std::string("PK\x05\x06", 4));
  REQUIRE(eocd != std::string::npos);
  size_t last = bytes.rfind(std::string("PK\x01\x02", 4));
  REQUIRE(last != std::string::npos);
  for (int i = 0; i < 4; ++i)
    bytes[last + 42 + static_cast<size_t>(i)] = 0;
  std::string dir = fresh_dir("shared_header");
  write_bytes(dir + "/m.pt", bytes);
  auto r = run_timed({dir + "/m.pt", "-o", dir + "/m.onnx", "--input", "f32[1,3,16,16]"});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(contains(r.err, "point at the same bytes"));
  CHECK_FALSE(contains(r.err, "crashed"));
  CHECK_FALSE(fs::exists(dir + "/m.onnx"));
}
