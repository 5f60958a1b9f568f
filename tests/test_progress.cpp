// The progress line (apps/progress_line.h): on a terminal an export shows its phase and progress,
// and the zoo its done/total and ETA, on one updating stderr line that is cleared before results
// are printed; nothing of it without a terminal or with -q. The terminal is a pseudo-terminal from
// util-linux's `script`.
#include "harness.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <regex>

using namespace t2o_test;

namespace {

const char *kErase = "\033[K";

// Runs the CLI with stdout and stderr on a pseudo-terminal; returns what the terminal received
// (its "\n" arrive as "\r\n").
CliResult run_on_terminal(const std::vector<std::string> &args) {
  std::string cmd = shell_quote(T2O_CLI);
  for (const auto &a : args)
    cmd += " " + shell_quote(a);
  return run_command("script -qec " + shell_quote(cmd) + " /dev/null");
}

// The text of every redraw of the progress line: what follows each "\r" up to the erase.
std::vector<std::string> redraws(const std::string &terminal) {
  std::vector<std::string> out;
  for (size_t at = terminal.find('\r'); at != std::string::npos; at = terminal.find('\r', at + 1)) {
    size_t end = terminal.find(kErase, at);
    size_t newline = terminal.find('\n', at);
    if (end != std::string::npos && (newline == std::string::npos || end < newline))
      out.push_back(terminal.substr(at + 1, end - at - 1));
  }
  return out;
}

bool any_contains(const std::vector<std::string> &lines, const std::string &part) {
  for (const auto &l : lines)
    if (contains(l, part))
      return true;
  return false;
}

// The terminal's text with the progress line's redraws and erases taken out: what a reader sees
// at the end (each redraw is erased by the next one, or by the clear before a result).
std::string settled(std::string terminal) {
  std::string out;
  for (size_t i = 0; i < terminal.size(); ++i) {
    if (terminal.compare(i, 4, "\r\033[K") == 0) {
      i += 3;
      continue;
    }
    if (terminal[i] == '\r' && terminal.find(kErase, i) < terminal.find('\n', i)) {
      i = terminal.find(kErase, i) + 2; // a redraw: gone once the next one or the clear comes
      continue;
    }
    if (terminal[i] != '\r')
      out += terminal[i];
  }
  return out;
}

std::string tiny_manifest(const std::string &dir, int models) {
  std::string m = "model_dir: " + std::string(T2O_TEST_MODELS) + "\nmodels:\n";
  for (int i = 0; i < models; ++i)
    m += "  - {name: tiny_" + std::to_string(i) +
         ", model: tiny_cnn.pt, inputs: \"x:f32[1,3,16,16]\"}\n";
  std::string path = dir + "/zoo.yaml";
  std::ofstream(path) << m;
  return path;
}

} // namespace

TEST_CASE("progress: an export on a terminal shows its phases on one line, cleared at the end",
          "[progress]") {
  std::string dir = fresh_dir("progress_export");
  auto r = run_on_terminal(
      {test_model("tiny_cnn"), "-o", dir + "/m.onnx", "--input", "x:f32[1,3,16,16]", "--verify"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  auto lines = redraws(r.out);
  CHECK(any_contains(lines, "loading"));
  CHECK(any_contains(lines, "recording shapes"));
  CHECK(any_contains(lines, "converting: 0 of "));
  CHECK(std::regex_search(r.out, std::regex("converting: [0-9,]+ of [0-9,]+ nodes")));
  CHECK(std::regex_search(r.out, std::regex("writing: [0-9.]+ [KM]?B of [0-9.]+ [KM]?B")));
  CHECK(any_contains(lines, "verifying: step 1 of 2: LibTorch runs the model"));
  CHECK(any_contains(lines, "verifying: step 2 of 2: ONNX Runtime runs the model"));
  // One line: no redraw holds a line break, and the line is erased before the results.
  for (const auto &l : lines)
    CHECK(l.find('\n') == std::string::npos);
  std::string seen = settled(r.out);
  INFO(seen);
  CHECK_FALSE(contains(seen, "converting"));
  CHECK_FALSE(contains(seen, "verifying:"));
  CHECK(contains(seen, "verified in ONNX Runtime"));
  // The summary starts its own line: the progress line was erased, not written over.
  CHECK((contains(seen, "\n" + dir + "/m.onnx: opset 17") ||
         seen.rfind(dir + "/m.onnx: opset 17", 0) == 0));
}

TEST_CASE("progress: nothing extra with -q or without a terminal", "[progress]") {
  std::string dir = fresh_dir("progress_quiet");
  SECTION("-q on a terminal prints nothing at all") {
    auto r = run_on_terminal({test_model("tiny_cnn"), "-o", dir + "/q.onnx", "--input",
                              "x:f32[1,3,16,16]", "--verify", "-q"});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.empty());
  }
  SECTION("stderr not a terminal: the usual lines only") {
    auto r = run_cli(
        {test_model("tiny_cnn"), "-o", dir + "/p.onnx", "--input", "x:f32[1,3,16,16]", "--verify"});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.err.find('\r') == std::string::npos);
    CHECK(r.err.find(kErase) == std::string::npos);
    CHECK_FALSE(contains(r.err, "converting"));
    CHECK(contains(r.out, "verified in ONNX Runtime"));
  }
  SECTION("-v on a terminal: each log line is whole, the progress line erased before it") {
    auto r = run_on_terminal({test_model("tiny_cnn"), "-o", dir + "/v.onnx", "--input",
                              "x:f32[1,3,16,16]", "--verify", "-v"});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    std::string seen = settled(r.out);
    CHECK(contains(seen, "\ntorch2onnx: ["));
    CHECK_FALSE(contains(seen, "converting:"));
  }
}

TEST_CASE("progress: the zoo shows done/total and an ETA on a terminal, not in a log",
          "[progress][zoo]") {
  std::string dir = fresh_dir("progress_zoo");
  std::string manifest = tiny_manifest(dir, 3);
  auto r = run_on_terminal({"zoo", manifest, "--jobs", "1", "--out", dir + "/t"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  auto lines = redraws(r.out);
  CHECK(any_contains(lines, "[0/3] 0%, ETA after the first model"));
  CHECK(std::regex_search(r.out, std::regex("\\[1/3\\] 33%, ETA [0-9.]+ (s|min)")));
  CHECK(any_contains(lines, "running: tiny_"));
  std::string seen = settled(r.out);
  INFO(seen);
  CHECK_FALSE(contains(seen, "ETA"));
  CHECK(contains(seen, "zoo: 3 passed"));
  SECTION("without a terminal: one line per model and the summary, no progress line") {
    auto p = run_cli({"zoo", manifest, "--jobs", "1", "--out", dir + "/p"});
    INFO(p.out << p.err);
    CHECK(p.exit_code == 0);
    CHECK_FALSE(contains(p.out + p.err, "ETA"));
    CHECK((p.out + p.err).find('\r') == std::string::npos);
    CHECK(contains(p.out, "[3/3] tiny_2"));
  }
}
