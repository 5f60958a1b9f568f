// The phases of an export, in order. One enum for the phase times (--timings, the report's
// "phases"), the progress line, the phase a failure happened in (the report's error.phase) and the
// crash message: none of them reads another's text.
//
//   progress_phase(Phase::Convert, ProgressUnit::Nodes, n);   // builder/progress.h
//   phase_name(Phase::Convert)      // "convert"    (reports, --timings)
//   phase_activity(Phase::Convert)  // "converting" (the progress line)
#pragma once

#include <cstdint>

namespace torch2onnx {

enum class Phase : uint8_t {
  None,      // not exporting (yet)
  Load,      // torch::jit::load, or taking an in-memory module
  Prepare,   // freezing and LibTorch's graph passes
  Record,    // one LibTorch run that records every value's shape
  Convert,   // the op check and the walk that builds ONNX nodes
  Optimize,  // graph rewrites, the ONNX checker and shape inference
  Serialize, // writing the file(s)
  Verify,    // --verify, --locate and --expected-outputs
};

// The phases that have a time in PhaseTimes (exporter/export.h), in order.
inline constexpr Phase kTimedPhases[] = {Phase::Load,    Phase::Prepare,  Phase::Record,
                                         Phase::Convert, Phase::Optimize, Phase::Serialize};

// "load", "prepare", ...; "" for None.
const char *phase_name(Phase p);
// What the progress line says while the phase runs: "loading", "recording shapes", ...
const char *phase_activity(Phase p);

} // namespace torch2onnx
