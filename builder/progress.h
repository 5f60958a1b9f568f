// Progress of a long export, for a display (the CLI's updating line on a terminal): the phase, and
// how far it is (nodes converted, weight bytes written, verification steps). The export pipeline
// starts each phase; the walker and the file writer advance it. Updates reach the sink installed
// by a ProgressScope at each phase change, every kNodeStep nodes and every kByteStep bytes;
// without a sink every call is a cheap no-op. One export at a time reports (the CLI runs one).
//
// Example:
//   ProgressScope scope([](const Progress &p) { show(p); });   // around export_model
//   progress_phase(Phase::Convert, ProgressUnit::Nodes, graph_nodes);
//   progress_advance(1);                                         // per node converted
#pragma once

#include "builder/phase.h"

#include <cstdint>
#include <functional>
#include <string>

namespace torch2onnx {

enum class ProgressUnit { None, Nodes, Bytes, Steps };

struct Progress {
  Phase phase = Phase::None;
  ProgressUnit unit = ProgressUnit::None;
  uint64_t done = 0;
  uint64_t total = 0; // 0: unknown
  std::string step;   // what the current step is, e.g. "ONNX Runtime, data set 2 of 3"
};

using ProgressFn = std::function<void(const Progress &)>;

constexpr uint64_t kNodeStep = 64;                // nodes between two updates
constexpr uint64_t kByteStep = uint64_t{8} << 20; // bytes between two updates

// Installs `sink` for the lifetime of the scope (an empty sink installs nothing); the previous
// sink comes back afterwards.
class ProgressScope {
public:
  explicit ProgressScope(ProgressFn sink);
  ~ProgressScope();
  ProgressScope(const ProgressScope &) = delete;
  ProgressScope &operator=(const ProgressScope &) = delete;

private:
  ProgressFn previous_;
  bool installed_ = false;
};

// Starts a phase (done = 0; `step` says what it does first, may be empty) and tells the sink.
// The phase is kept with or without a sink: current_export_phase() reads it.
void progress_phase(Phase phase, ProgressUnit unit = ProgressUnit::None, uint64_t total = 0,
                    const std::string &step = "");
// The phase the export is in (the last progress_phase; None before the first). A failure's
// report names it.
Phase current_export_phase();
// Adds `n` to the phase's count; tells the sink when a step boundary is crossed or the total is
// reached.
void progress_advance(uint64_t n);
// Starts the next step of a phase counted in steps (its number is the new `done`, from 1) and
// says what it is.
void progress_step(const std::string &step);

} // namespace torch2onnx
