// torch2onnx's library entry point: export (and optionally verify) one TorchScript model.
// Free of LibTorch headers so the CLI compiles quickly.
#pragma once

#include "builder/graph_builder.h"
#include "builder/optimize.h"
#include "exporter/options.h"
#include "exporter/verify/report.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace torch2onnx {

// Seconds per export phase: torch::jit::load; freezing and graph passes; the LibTorch run that
// records shapes; the walk that builds ONNX nodes; graph rewrites (builder/optimize.h); checks,
// shape inference and writing the file.
struct PhaseTimes {
  double load = 0, prepare = 0, record = 0, convert = 0, optimize = 0, serialize = 0;
};

struct ExportReport {
  std::string output_path;
  int opset = 0;
  GraphStats stats;
  double seconds = 0; // export wall time, without verification
  PhaseTimes phases;
  OptimizeReport optimized;
  std::vector<std::string> warnings; // details, printed with -v
  std::vector<std::string> notices; // problems a user should see (e.g. NaN weights), always printed
  std::vector<std::string> input_names, output_names;
  std::vector<InputSpec> inputs;      // the ONNX inputs: name, dtype, dims (symbolic by name)
  std::vector<std::string> constants; // forward's arguments fixed as constants, "name=value"
  std::optional<VerifyReport> verify;
};

using LogFn = std::function<void(const std::string &)>;

// Exports options.model_path to ONNX (and verifies when options.verify). Throws Error on any
// failure; an export failure never leaves an output file behind.
ExportReport export_model(const ExportOptions &options, const LogFn &log = {});

// The output path used when none is given: the model path with ".onnx".
std::string default_output_path(const std::string &model_path);

} // namespace torch2onnx
