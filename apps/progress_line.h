// One updating status line on stderr ("\r", the text, erase to the end of the line), for long work
// on a terminal: an export's phase and progress, the zoo's done/total and ETA. Shown only when
// stderr is a terminal (and the caller enables it: not with -q); cleared before anything else is
// printed and when it goes away, so logs and results never carry it.
//
// Example:
//   ProgressLine line(verbosity >= 1);
//   line.show("converting: 1,200 of 5,000 nodes (24%)");   // at most 10 redraws a second
//   line.clear();                                            // before printing a result
#pragma once

#include "builder/progress.h"

#include <chrono>
#include <string>

namespace torch2onnx {

class ProgressLine {
public:
  // Active when `enabled` and stderr is a terminal.
  explicit ProgressLine(bool enabled);
  ~ProgressLine() { clear(); }
  ProgressLine(const ProgressLine &) = delete;
  ProgressLine &operator=(const ProgressLine &) = delete;

  bool active() const { return active_; }
  // Redraws the line with `text` (cut to the terminal's width), at most every 100 ms unless
  // `force` (a phase change should show at once).
  void show(const std::string &text, bool force = false);
  // Erases the line if one is shown.
  void clear();

private:
  bool active_ = false;
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_{};
};

// An export's line: "converting: 1,200 of 5,000 nodes (24%), 3.1 s",
// "writing: 120.0 MB of 530.2 MB (22%), 7.9 s", "verifying: step 2 of 3: ONNX Runtime ..., 9 s".
std::string progress_text(const Progress &p, double seconds);

// The zoo's line: "[3/12] 25%, ETA 4 min 10 s; running: resnet18 12 s, vgg11 40 s".
std::string zoo_progress_text(size_t done, size_t total, double elapsed,
                              const std::string &running);

// 75 -> "1 min 15 s"; 9 -> "9.0 s"; 42 -> "42 s"; 4000 -> "1 h 6 min".
std::string duration_text(double seconds);

} // namespace torch2onnx
