// Process-level safety. What the process must undo when it is stopped from outside (SIGINT,
// SIGTERM, SIGHUP) or dies (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT): temporary files and folders
// it is writing, and child processes it started. The signal handlers only make async-signal-safe
// calls: they kill the registered children, unlink the registered files, remove the registered
// (then empty) folders, print one line and _exit.
//
// Example:
//   install_signal_cleanup();                  // once, in main
//   TempFileGuard g(tmp_path);                 // removed on SIGINT while g lives
//   ChildGuard c(pid);                         // killed (its process group) on SIGINT
//   PhaseGuard p("verifying: running the model in LibTorch");  // named if the process crashes
#pragma once

#include "builder/error.h"

#include <functional>
#include <string>
#include <sys/types.h>

namespace torch2onnx {

// Installs the handlers (idempotent) and an alternate signal stack, so a stack overflow still
// reports. Interrupts exit 128 + signal (130 for SIGINT, 143 for SIGTERM); a crash prints
// "torch2onnx: error: crashed (SIGSEGV) while <phase>" and exits 1.
void install_signal_cleanup();
// An alternate signal stack for the calling thread (install_signal_cleanup does the main
// thread's); call it first thing in any thread that runs LibTorch's interpreter.
void ensure_alt_signal_stack();

// The step the process is in, for the crash message. Kept until replaced.
void set_phase(const char *phase);
const char *current_phase();
// The same with a text made at run time (copied; e.g. naming a plugin's file), for the thread that
// sets phases; the crash message shows at most its first 500 bytes.
void set_phase_text(const std::string &phase);

// A document the crash handler writes to `path` (--report) when the process crashes: `before`,
// the event ("crashed (SIGSEGV)"), `middle`, the phase, `after`; through a temporary file and a
// rename. With `json`, the phase is escaped for a JSON string. An empty path clears it.
// The placeholders the caller splits its document at: kCrashEvent, kCrashPhase.
constexpr const char *kCrashEvent = "@@T2O_CRASH_EVENT@@";
constexpr const char *kCrashPhase = "@@T2O_CRASH_PHASE@@";
void set_crash_report(const std::string &path, const std::string &document, bool json);

class PhaseGuard {
public:
  explicit PhaseGuard(const char *phase) : previous_(current_phase()) { set_phase(phase); }
  ~PhaseGuard() { set_phase(previous_); }
  PhaseGuard(const PhaseGuard &) = delete;
  PhaseGuard &operator=(const PhaseGuard &) = delete;

private:
  const char *previous_;
};

// A file (or, with is_dir, an empty-at-the-end folder) removed if a signal ends the process while
// the guard lives. Register a folder before the files written into it: files are removed first.
class TempFileGuard {
public:
  explicit TempFileGuard(const std::string &path, bool is_dir = false);
  ~TempFileGuard();
  TempFileGuard(const TempFileGuard &) = delete;
  TempFileGuard &operator=(const TempFileGuard &) = delete;

private:
  int slot_ = -1;
};

// A child process (and its process group when it leads one) killed if a signal ends the process
// while the guard lives.
class ChildGuard {
public:
  explicit ChildGuard(pid_t pid);
  ~ChildGuard();
  ChildGuard(const ChildGuard &) = delete;
  ChildGuard &operator=(const ChildGuard &) = delete;

private:
  int slot_ = -1;
};

// Runs `fn` on a thread with a large stack (1 GiB of address space, committed only as used;
// smaller when a memory limit refuses that) and rethrows what it throws. LibTorch's interpreter
// recurses once per node on deep graphs: a traced chain of 20,000 ops overflows the default 8 MB.
// Returns the stack size used (0: ran on the calling thread).
size_t run_on_large_stack(const std::function<void()> &fn);

// Whether an exception text is an allocation failure (std::bad_alloc, LibTorch's "can't allocate
// memory"), which must be reported as out of memory, not as a corrupt file or a bug.
bool is_out_of_memory(const std::string &what);
// Whether the process runs under an address-space limit (ulimit -v).
bool memory_limited();
// The process's address-space limit (ulimit -v) as text, e.g. "586 MB", or "" when unlimited.
std::string memory_limit_text();
// The Error "out of memory while <doing>", naming the memory limit and what to do.
// Example: throw out_of_memory("loading 'm.pt'");
Error out_of_memory(const std::string &doing);

} // namespace torch2onnx
