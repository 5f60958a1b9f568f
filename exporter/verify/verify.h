// Verification in ONNX Runtime (through the pinned onnxruntime-node package) against LibTorch.
#pragma once

#include "exporter/options.h"
#include "exporter/verify/report.h"
#include "exporter/verify/runner.h"

#include <ATen/core/Tensor.h>
#include <functional>
#include <string>
#include <vector>

namespace torch2onnx {

// Runs `model_path` in ONNX Runtime on `inputs` (named) and returns its outputs in graph order.
std::vector<at::Tensor> run_onnxruntime(const std::string &model_path,
                                        const std::vector<std::string> &input_names,
                                        const std::vector<at::Tensor> &inputs);

// Compares ONNX Runtime's outputs with LibTorch's, per output.
std::vector<OutputCheck> compare_outputs(const std::vector<std::string> &names,
                                         const std::vector<at::Tensor> &expected,
                                         const std::vector<at::Tensor> &actual, double rtol,
                                         double atol, const std::vector<double> &steps = {});

// Random inputs for the (tensor) specs, reproducible from `seed`: floats ~ N(0,1), ints in
// [0, 10), bools; a spec's value range (x:i64[1,8]:0..999) instead when it has one.
// `sizes` overrides symbolic dims by name (others use their example size).
std::vector<at::Tensor>
make_example_inputs(const std::vector<InputSpec> &specs, uint64_t seed,
                    const std::vector<std::pair<std::string, int64_t>> &sizes = {});

// Writes <dir>/input_N.pb and output_N.pb (ONNX model zoo layout).
void write_test_data(const std::string &dir, const std::vector<std::string> &input_names,
                     const std::vector<at::Tensor> &inputs,
                     const std::vector<std::string> &output_names,
                     const std::vector<at::Tensor> &outputs);

// One verification: the ONNX file in ONNX Runtime against LibTorch's outputs on the same inputs.
struct VerifyRun {
  std::string onnx_path;
  std::vector<std::string> input_names, output_names; // the ONNX graph's
  std::vector<at::Tensor> inputs;                     // the ONNX inputs
  std::vector<c10::IValue> torch_args; // forward's arguments for LibTorch (empty: `inputs`)
  // The graph's inputs as the source framework gets them, when not `inputs` (--dtype f16 with
  // x:f16 specs: `inputs` float16, these float32; empty otherwise). --locate runs the graph on
  // them.
  std::vector<at::Tensor> source_inputs;
  std::string test_data_dir; // where the inputs and LibTorch's outputs are written
  std::string label;         // the symbolic dim sizes, e.g. "batch=3" (empty: all dims static)
  double rtol = 1e-4, atol = 1e-4;
  // Per output: its quantization step when it is quantized (0 otherwise): see compare_outputs.
  std::vector<double> output_steps;
  // When set, receives ONNX Runtime's outputs (--expected-outputs compares them too, instead of
  // running ONNX Runtime again on the same inputs).
  std::vector<at::Tensor> *onnxruntime_outputs = nullptr;
};

// Writes the test data (the inputs and `expected`, LibTorch's outputs for them: see
// reference_outputs in exporter/frontend/torchscript/reference.h), runs the file in ONNX Runtime
// and compares every output (each check carries `run.label`); an output count that differs is one
// more failed check. `say` (may be empty) hears what is running.
std::vector<OutputCheck> verify_run(const VerifyRun &run, const std::vector<at::Tensor> &expected,
                                    const std::function<void(const std::string &)> &say = {});

} // namespace torch2onnx
