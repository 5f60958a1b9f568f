// torch2onnx's library entry point: export (and optionally verify) one TorchScript model.
// Free of LibTorch headers so the CLI compiles quickly.
#pragma once

#include "builder/functions.h"
#include "builder/graph_builder.h"
#include "builder/optimize.h"
#include "builder/phase.h"
#include "exporter/options.h"
#include "exporter/verify/expected_report.h"
#include "exporter/verify/report.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace torch2onnx {

// Seconds per export phase: torch::jit::load; freezing and graph passes; the LibTorch run that
// records shapes; the walk that builds ONNX nodes; graph rewrites (builder/optimize.h); checks,
// shape inference and writing the file.
struct PhaseTimes {
  double load = 0, prepare = 0, record = 0, convert = 0, optimize = 0, serialize = 0;

  // The time of one of kTimedPhases (builder/phase.h); 0 for the others.
  double of(Phase p) const {
    switch (p) {
    case Phase::Load:
      return load;
    case Phase::Prepare:
      return prepare;
    case Phase::Record:
      return record;
    case Phase::Convert:
      return convert;
    case Phase::Optimize:
      return optimize;
    case Phase::Serialize:
      return serialize;
    default:
      return 0;
    }
  }
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
  std::vector<TensorInfo> output_infos; // per output: dtype and dims (symbolic by name)
  // Per op walked (aten::conv2d, prim::If, ...): how often, and the ONNX op types of the nodes
  // named after it in the written file (after the rewrites).
  struct OpUse {
    size_t count = 0;
    std::map<std::string, size_t> onnx;
  };
  std::map<std::string, OpUse> ops;
  // --functions: the FunctionProtos written.
  std::vector<LocalFunction> functions;

  std::vector<InputSpec> inputs;      // the ONNX inputs: name, dtype, dims (symbolic by name)
  std::vector<std::string> constants; // forward's arguments fixed as constants, "name=value"
  std::optional<VerifyReport> verify;
  std::optional<ExpectedReport> expected; // --expected-outputs
  std::optional<Divergence> divergence;   // --locate, or a failed verification
  // --fallback-domain: the ops written as nodes of that domain, with their uses and first places.
  struct FallbackOp {
    std::string op;
    size_t uses = 0;
    std::vector<std::string> places; // "layer1.act (model.py:12)"
  };
  std::string fallback_domain;
  std::vector<FallbackOp> fallback_ops;
};

using LogFn = std::function<void(const std::string &)>;

// Exports options.model_path to ONNX (and verifies when options.verify). Throws Error on any
// failure; an export failure never leaves an output file behind. `progress` (optional) is filled
// as the export goes, so after a failure it holds what was done (phase times: the phase that
// failed has its time until the failure).
ExportReport export_model(const ExportOptions &options, const LogFn &log = {},
                          ExportReport *progress = nullptr);

// The output path used when none is given: the model path with ".onnx".
std::string default_output_path(const std::string &model_path);

} // namespace torch2onnx
