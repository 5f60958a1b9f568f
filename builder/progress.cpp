#include "builder/progress.h"

#include <mutex>

namespace torch2onnx {
namespace {

struct State {
  std::mutex mutex;
  ProgressFn sink;
  Progress current;
  uint64_t next_report = 0;  // done count at which the sink hears next
  Phase phase = Phase::None; // kept without a sink too
};

State &state() {
  static State s;
  return s;
}

uint64_t step_of(ProgressUnit unit) {
  switch (unit) {
  case ProgressUnit::Nodes:
    return kNodeStep;
  case ProgressUnit::Bytes:
    return kByteStep;
  default:
    return 1;
  }
}

// Called with the mutex held; the sink runs outside it, on a copy (it may take its time).
void tell(std::unique_lock<std::mutex> &lock, State &s) {
  ProgressFn sink = s.sink;
  Progress copy = s.current;
  lock.unlock();
  sink(copy);
}

} // namespace

ProgressScope::ProgressScope(ProgressFn sink) {
  if (!sink)
    return;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  previous_ = std::move(s.sink);
  s.sink = std::move(sink);
  s.current = Progress();
  installed_ = true;
}

ProgressScope::~ProgressScope() {
  if (!installed_)
    return;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.sink = std::move(previous_);
}

void progress_phase(Phase phase, ProgressUnit unit, uint64_t total, const std::string &step) {
  State &s = state();
  std::unique_lock<std::mutex> lock(s.mutex);
  s.phase = phase;
  if (!s.sink)
    return;
  s.current = Progress{phase, unit, 0, total, step};
  s.next_report = step_of(unit);
  tell(lock, s);
}

Phase current_export_phase() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.phase;
}

void progress_advance(uint64_t n) {
  State &s = state();
  std::unique_lock<std::mutex> lock(s.mutex);
  if (!s.sink)
    return;
  s.current.done += n;
  bool at_end = s.current.total > 0 && s.current.done >= s.current.total;
  if (s.current.done < s.next_report && !at_end)
    return;
  uint64_t step = step_of(s.current.unit);
  s.next_report = (s.current.done / step + 1) * step;
  tell(lock, s);
}

void progress_step(const std::string &step) {
  State &s = state();
  std::unique_lock<std::mutex> lock(s.mutex);
  if (!s.sink)
    return;
  s.current.done += 1;
  s.current.step = step;
  tell(lock, s);
}

} // namespace torch2onnx
