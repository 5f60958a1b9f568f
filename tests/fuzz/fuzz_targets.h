// The bodies of the libFuzzer targets, shared with tests/test_reliability.cpp, which replays the
// regression inputs kept in tests/fuzz/regressions/ in the normal (non-fuzz) build.
// Contract checked: bad input gives torch2onnx::Error, never a crash, a hang or another exception.
#pragma once

#include "builder/error.h"
#include "exporter/options.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

namespace t2o_fuzz {

// Stops the run: libFuzzer (and the replay test) treat abort() as a finding.
[[noreturn]] inline void fail(const std::string &what) {
  std::fprintf(stderr, "t2o_fuzz: %s\n", what.c_str());
  std::abort();
}

// parse_input_spec on any text; what it accepts must print (str()) to a spec that parses back to
// the same thing.
inline void fuzz_input_spec(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  torch2onnx::InputSpec spec;
  try {
    spec = torch2onnx::parse_input_spec(text);
  } catch (const torch2onnx::Error &) {
    return;
  }
  std::string printed = spec.str();
  torch2onnx::InputSpec again;
  try {
    again = torch2onnx::parse_input_spec(printed);
  } catch (const torch2onnx::Error &e) {
    fail("'" + text + "' parsed, but its str() '" + printed + "' does not: " + e.what());
  }
  if (again.str() != printed)
    fail("round trip of '" + text + "' changed " + printed + " to " + again.str());
  for (const auto &d : spec.dims)
    if (d.value < 1)
      fail("'" + text + "' gave a dimension below 1");
}

// A file with these bytes, private to this process (libFuzzer may run several jobs at once).
inline std::string write_temp(const uint8_t *data, size_t size, const char *suffix) {
  const char *dir = std::getenv("TMPDIR");
  std::string path =
      std::string(dir && *dir ? dir : "/tmp") + "/t2o_fuzz_" + std::to_string(::getpid()) + suffix;
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char *>(data), static_cast<std::streamsize>(size));
  if (!f)
    fail("cannot write " + path);
  return path;
}

} // namespace t2o_fuzz
