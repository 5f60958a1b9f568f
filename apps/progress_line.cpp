#include "apps/progress_line.h"

#include "apps/report.h"

#include <cstdio>
#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

namespace torch2onnx {
namespace {

// The terminal's width; 80 when it cannot be asked.
size_t terminal_columns() {
  struct winsize w {};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 0)
    return w.ws_col;
  return 80;
}

// 1234567 -> "1,234,567".
std::string grouped(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0)
      out += ',';
    out += digits[i];
  }
  return out;
}

std::string percent(uint64_t done, uint64_t total) {
  return total == 0 ? "" : fmt::format(" ({}%)", std::min<uint64_t>(100, done * 100 / total));
}

} // namespace

ProgressLine::ProgressLine(bool enabled) : active_(enabled && ::isatty(STDERR_FILENO) == 1) {}

void ProgressLine::show(const std::string &text, bool force) {
  if (!active_)
    return;
  auto now = std::chrono::steady_clock::now();
  if (!force && shown_ && now - last_ < std::chrono::milliseconds(100))
    return;
  last_ = now;
  // One column spare: a line filling the last column wraps on some terminals, and "\r" would then
  // return to the wrapped part only.
  size_t width = terminal_columns() - 1;
  std::string line = text.size() > width ? text.substr(0, width) : text;
  std::fprintf(stderr, "\r%s\033[K", line.c_str());
  std::fflush(stderr);
  shown_ = true;
}

void ProgressLine::clear() {
  if (!shown_)
    return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  shown_ = false;
}

std::string progress_text(const Progress &p, double seconds) {
  uint64_t done = p.total > 0 ? std::min(p.done, p.total) : p.done;
  std::string how;
  switch (p.unit) {
  case ProgressUnit::Nodes:
    how = p.total > 0 ? fmt::format("{} of {} nodes{}", grouped(done), grouped(p.total),
                                    percent(done, p.total))
                      : fmt::format("{} nodes", grouped(done));
    break;
  case ProgressUnit::Bytes:
    how = p.total > 0 ? fmt::format("{} of {}{}", report::human_bytes(static_cast<double>(done)),
                                    report::human_bytes(static_cast<double>(p.total)),
                                    percent(done, p.total))
                      : report::human_bytes(static_cast<double>(done));
    break;
  case ProgressUnit::Steps:
    how = p.total > 0 ? fmt::format("step {} of {}", done, p.total) : fmt::format("step {}", done);
    if (!p.step.empty())
      how += ": " + p.step;
    break;
  case ProgressUnit::None:
    how = p.step;
    break;
  }
  return fmt::format("{}{}{}, {}", phase_activity(p.phase), how.empty() ? "" : ": ", how,
                     duration_text(seconds));
}

std::string zoo_progress_text(size_t done, size_t total, double elapsed,
                              const std::string &running) {
  std::string eta = "ETA after the first model";
  if (done > 0 && done < total)
    eta = "ETA " +
          duration_text(elapsed / static_cast<double>(done) * static_cast<double>(total - done));
  return fmt::format("[{}/{}] {}%, {}, {} elapsed{}{}", done, total,
                     total == 0 ? 100 : done * 100 / total, eta, duration_text(elapsed),
                     running.empty() ? "" : "; running: ", running);
}

std::string duration_text(double seconds) {
  auto s = static_cast<long long>(seconds + 0.5);
  if (s < 60)
    return seconds < 10 ? fmt::format("{:.1f} s", seconds) : fmt::format("{} s", s);
  if (s < 3600)
    return fmt::format("{} min {} s", s / 60, s % 60);
  return fmt::format("{} h {} min", s / 3600, s % 3600 / 60);
}

} // namespace torch2onnx
