// What --verify found: per output and per size checked, how far ONNX Runtime is from LibTorch.
// Free of LibTorch headers (the CLI prints it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace torch2onnx {

struct OutputCheck {
  std::string name;
  std::string sizes;        // the symbolic dim sizes checked, e.g. "batch=3" (empty: static)
  double max_abs_error = 0; // max |onnx - torch|
  double max_rel_error = 0; // max |onnx - torch| / max(1, max |torch|)
  double max_abs_ref = 0;   // max |torch|
  double tolerance = 0;     // max(atol, rtol * max |torch|, kQuantizedStepTolerance * step)
  // A quantized output: its quantization step (scale), and how many values differ from LibTorch's
  // by more than one step. 0 for other outputs.
  double step = 0;
  int64_t beyond_one_step = 0;
  int64_t values = 0; // elements compared
  bool shape_ok = true;
  std::string problem; // non-empty when the check failed for another reason
  std::string note;    // printed beside a passing check (e.g. no finite value on either side)
  bool ok() const { return shape_ok && problem.empty() && max_abs_error <= tolerance; }
};

// The first node (in topological order) whose ONNX value differs from LibTorch's beyond the
// tolerance, found by running a copy of the model with every node's value as an output
// (exporter/locate.h).
struct Divergence {
  bool found = false;
  std::string sizes;      // the data set searched, e.g. "batch=3" (empty: static)
  size_t index = 0;       // the node's position in the walk
  std::string op;         // "aten::gelu"
  std::string scope;      // module path ("" at top level)
  std::string source;     // "model.py:12" when known
  std::string converter;  // "aten::gelu (activation, since opset 13)"; "" for the walker's own
  std::string onnx_value; // the ONNX value compared
  OutputCheck check;      // the comparison of that value (name: the ONNX value)
  double torch_min = 0, torch_max = 0, onnx_min = 0, onnx_max = 0; // finite values' ranges
  size_t compared = 0; // values compared up to (and including) the diverging one
  size_t skipped = 0;  // values that could not be compared (removed by rewrites, ...)
  double seconds = 0;
  std::string note; // when not found: why
};

struct VerifyReport {
  std::vector<OutputCheck> outputs;
  std::string onnxruntime_version; // of the runner used, e.g. "1.20.1"
  std::string test_data_dir;       // <output stem>/test_data_set_0 (one set per size checked)
  double seconds = 0;
  bool ok() const {
    for (const auto &o : outputs)
      if (!o.ok())
        return false;
    return !outputs.empty();
  }
};

} // namespace torch2onnx
