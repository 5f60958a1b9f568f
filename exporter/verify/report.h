// What --verify found: per output and per size checked, how far ONNX Runtime is from LibTorch.
// Free of LibTorch headers (the CLI prints it).
#pragma once

#include <string>
#include <vector>

namespace torch2onnx {

struct OutputCheck {
  std::string name;
  std::string sizes;        // the symbolic dim sizes checked, e.g. "batch=3" (empty: static)
  double max_abs_error = 0; // max |onnx - torch|
  double max_rel_error = 0; // max |onnx - torch| / max(1, max |torch|)
  double max_abs_ref = 0;   // max |torch|
  double tolerance = 0;     // max(atol, rtol * max |torch|)
  bool shape_ok = true;
  std::string problem; // non-empty when the check failed for another reason
  bool ok() const { return shape_ok && problem.empty() && max_abs_error <= tolerance; }
};

struct VerifyReport {
  std::vector<OutputCheck> outputs;
  std::string test_data_dir; // <output stem>/test_data_set_0 (one set per size checked)
  double seconds = 0;
  bool ok() const {
    for (const auto &o : outputs)
      if (!o.ok())
        return false;
    return !outputs.empty();
  }
};

} // namespace torch2onnx
