// --expected-outputs: the written ONNX file run in ONNX Runtime on the example inputs and compared
// with outputs computed outside torch2onnx (Python's torch.jit.load of the same file, another
// runtime, golden values), so a fault that changes both the export and its LibTorch reference
// (--verify) still shows.
#pragma once

#include "exporter/verify/expected_report.h"

#include <ATen/core/Tensor.h>
#include <string>
#include <vector>

namespace torch2onnx {

// The outputs a file holds, in order; `names` are their names when the file gives them (an .npz's
// array names, a dict's keys), else empty.
struct ExpectedOutputs {
  std::string file;
  std::vector<std::string> names;
  std::vector<at::Tensor> tensors;
};

// Reads FILE: a torch.save'd tensor, tuple, list or dict of tensors (nested as forward returns
// them: flattened in order, None left out), an .npz (arrays named after the ONNX outputs, or
// arr_0, arr_1, ... in order) or one .npy (a single output). Throws Error naming the file.
// Example: torch.save(model(x), "expected.pt") in Python.
ExpectedOutputs read_expected_outputs(const std::string &path);

// Runs `onnx_path` in ONNX Runtime on `inputs` (unless `onnxruntime_outputs` already holds its
// outputs on them, e.g. from --verify) and compares each output with `expected` (by name when the
// file names every ONNX output, else in order) within max(atol, rtol * max|expected|). A count
// that does not match is one failed check.
ExpectedReport check_expected_outputs(const ExpectedOutputs &expected, const std::string &onnx_path,
                                      const std::vector<std::string> &input_names,
                                      const std::vector<at::Tensor> &inputs,
                                      const std::vector<std::string> &output_names, double rtol,
                                      double atol,
                                      const std::vector<at::Tensor> *onnxruntime_outputs = nullptr,
                                      const std::vector<double> &steps = {});

} // namespace torch2onnx
