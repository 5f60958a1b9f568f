#include "builder/process.h"

#include "builder/error.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <functional>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace torch2onnx {
namespace {

// Fixed-size tables: the signal handler may not allocate or take locks. A slot is claimed with a
// compare-and-swap (Free -> Writing), filled, then published (Active).
enum SlotState : int { kFree = 0, kWriting = 1, kActive = 2 };

constexpr int kMaxFiles = 128;
constexpr size_t kMaxPath = 4096;
struct FileSlot {
  std::atomic<int> state{kFree};
  bool is_dir = false;
  char path[kMaxPath];
};
FileSlot g_files[kMaxFiles];

constexpr int kMaxChildren = 32;
struct ChildSlot {
  std::atomic<int> state{kFree};
  pid_t pid = 0;
};
ChildSlot g_children[kMaxChildren];

std::atomic<const char *> g_phase{nullptr};
char g_phase_text[512];

// The crash report (set_crash_report): parts allocated before any crash, read by the handler.
struct CrashReport {
  std::string path, tmp, before, middle, after;
  bool json = false;
};
std::atomic<const CrashReport *> g_crash_report{nullptr};
std::atomic<bool> g_installed{false};
std::atomic<int> g_handling{0};

template <typename Slot> int claim(Slot *slots, int n) {
  for (int i = 0; i < n; ++i) {
    int expected = kFree;
    if (slots[i].state.compare_exchange_strong(expected, kWriting))
      return i;
  }
  return -1; // table full: the guard does nothing (cleanup is best effort past 128 files)
}

void write_err(const char *s) {
  size_t n = std::strlen(s);
  while (n > 0) {
    ssize_t w = ::write(2, s, n);
    if (w <= 0)
      return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

// Removes a folder and the files directly in it with system calls only (no allocation: this runs
// in a signal handler). Sub-folders are not descended into.
void remove_flat_dir(const char *path) {
  int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    alignas(8) char buf[4096];
    for (;;) {
      long n = ::syscall(SYS_getdents64, fd, buf, sizeof(buf));
      if (n <= 0)
        break;
      for (long off = 0; off < n;) {
        // struct linux_dirent64: u64 ino, s64 off, u16 reclen, u8 type, char name[]
        unsigned short reclen;
        std::memcpy(&reclen, buf + off + 16, sizeof(reclen));
        const char *name = buf + off + 19;
        if (std::strcmp(name, ".") != 0 && std::strcmp(name, "..") != 0)
          ::unlinkat(fd, name, 0);
        off += reclen;
      }
    }
    ::close(fd);
  }
  ::rmdir(path);
}

void undo_all() {
  for (auto &c : g_children)
    if (c.state.load() == kActive && c.pid > 0) {
      ::kill(-c.pid, SIGKILL); // its process group, when it leads one
      ::kill(c.pid, SIGKILL);
    }
  for (auto &f : g_files)
    if (f.state.load() == kActive && !f.is_dir)
      ::unlink(f.path);
  // Folders last, newest first (a folder registered after another may sit inside it).
  for (int i = kMaxFiles - 1; i >= 0; --i)
    if (g_files[i].state.load() == kActive && g_files[i].is_dir)
      remove_flat_dir(g_files[i].path);
}

const char *signal_name(int sig) {
  switch (sig) {
  case SIGINT:
    return "SIGINT";
  case SIGTERM:
    return "SIGTERM";
  case SIGHUP:
    return "SIGHUP";
  case SIGSEGV:
    return "SIGSEGV";
  case SIGBUS:
    return "SIGBUS";
  case SIGILL:
    return "SIGILL";
  case SIGFPE:
    return "SIGFPE";
  case SIGABRT:
    return "SIGABRT";
  }
  return "a signal";
}

void write_all_fd(int fd, const char *s, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, s, n);
    if (w <= 0)
      return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

// The JSON escapes of a phase text, written a character at a time (no allocation).
void write_json_text(int fd, const char *s) {
  for (; *s; ++s) {
    const auto c = static_cast<unsigned char>(*s);
    if (c == '"' || c == '\\') {
      char e[2] = {'\\', static_cast<char>(c)};
      write_all_fd(fd, e, 2);
    } else if (c < 0x20) {
      write_all_fd(fd, " ", 1);
    } else {
      write_all_fd(fd, s, 1);
    }
  }
}

void write_crash_report(int sig) {
  const CrashReport *r = g_crash_report.load();
  if (r == nullptr)
    return;
  int fd = ::open(r->tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return;
  const char *phase = g_phase.load();
  write_all_fd(fd, r->before.data(), r->before.size());
  write_all_fd(fd, "crashed (", 9);
  write_all_fd(fd, signal_name(sig), std::strlen(signal_name(sig)));
  write_all_fd(fd, ")", 1);
  write_all_fd(fd, r->middle.data(), r->middle.size());
  if (r->json)
    write_json_text(fd, phase ? phase : "running");
  else
    write_all_fd(fd, phase ? phase : "running", std::strlen(phase ? phase : "running"));
  write_all_fd(fd, r->after.data(), r->after.size());
  ::fsync(fd);
  ::close(fd);
  ::rename(r->tmp.c_str(), r->path.c_str());
}

void on_interrupt(int sig) {
  if (g_handling.exchange(1) != 0)
    return;
  undo_all();
  write_err("\ntorch2onnx: interrupted (");
  write_err(signal_name(sig));
  write_err("); temporary files removed, ONNX Runtime stopped\n");
  ::_exit(128 + sig);
}

void on_crash(int sig) {
  if (g_handling.exchange(1) != 0)
    ::_exit(1);
  undo_all();
  write_crash_report(sig);
  write_err("torch2onnx: error: crashed (");
  write_err(signal_name(sig));
  write_err(")");
  if (const char *phase = g_phase.load()) {
    write_err(" while ");
    write_err(phase);
  }
  write_err("\n  hint: ");
  write_err(sig == SIGSEGV
                ? "a segfault here is most often a stack overflow in LibTorch on a very deep graph "
                  "or a fault in a custom-op or converter library; no output file was written or "
                  "changed. Please report it with the model if neither applies\n"
                : "no output file was written or changed; please report it with the command and "
                  "the model\n");
  ::_exit(1);
}

// std::terminate under an address-space limit (ulimit -v): an allocation failed inside a LibTorch
// object whose destructor then threw again (its zip writer does: 'unexpected pos ... vs 0'), which
// ends the process through std::terminate. That is running out of memory, reported as such after
// removing the temporary files. Without a limit the previous handler runs (and SIGABRT reports a
// crash).
std::terminate_handler g_previous_terminate = nullptr;

[[noreturn]] void on_terminate() {
  if (!memory_limited() || g_handling.exchange(1) != 0) {
    if (g_previous_terminate)
      g_previous_terminate();
    std::abort();
  }
  undo_all();
  write_err("torch2onnx: error: out of memory");
  if (const char *phase = g_phase.load()) {
    write_err(" while ");
    write_err(phase);
  }
  write_err(" (LibTorch stopped the process under the memory limit, ulimit -v)\n  hint: raise the "
            "limit (ulimit -v); an export needs LibTorch (about 1 GB of address space) plus about "
            "twice the model's weights. No output file was written or changed\n");
  ::_exit(1);
}

} // namespace

void ensure_alt_signal_stack() {
  // A stack overflow leaves no stack for the handler: give each thread that may overflow one.
  static thread_local bool done = false;
  if (done)
    return;
  // Keep an alternate stack someone else installed (AddressSanitizer gives every thread one and
  // unmaps it itself when the thread ends: replacing it would make that unmap fail).
  stack_t current{};
  if (::sigaltstack(nullptr, &current) == 0 && !(current.ss_flags & SS_DISABLE)) {
    done = true;
    return;
  }
  static thread_local char stack[64 * 1024];
  stack_t ss{};
  ss.ss_sp = stack;
  ss.ss_size = sizeof(stack);
  ss.ss_flags = 0;
  if (::sigaltstack(&ss, nullptr) == 0)
    done = true;
}

void install_signal_cleanup() {
  ensure_alt_signal_stack();
  if (g_installed.exchange(true))
    return;
  struct sigaction sa {};
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = on_interrupt;
  for (int sig : {SIGINT, SIGTERM, SIGHUP})
    ::sigaction(sig, &sa, nullptr);
  struct sigaction crash {};
  sigemptyset(&crash.sa_mask);
  crash.sa_handler = on_crash;
  crash.sa_flags = SA_ONSTACK | SA_RESETHAND;
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT})
    ::sigaction(sig, &crash, nullptr);
  g_previous_terminate = std::set_terminate(on_terminate);
}

void set_phase(const char *phase) {
  g_phase.store(phase);
}
const char *current_phase() {
  return g_phase.load();
}

void set_phase_text(const std::string &phase) {
  // One buffer: the handler may read it while it is rewritten, and then prints a mix of two
  // phases at worst (never past the buffer: its last byte stays 0).
  g_phase.store(nullptr);
  size_t n = std::min(phase.size(), sizeof(g_phase_text) - 1);
  std::memcpy(g_phase_text, phase.data(), n);
  g_phase_text[n] = '\0';
  g_phase.store(g_phase_text);
}

void set_crash_report(const std::string &path, const std::string &document, bool json) {
  if (path.empty()) {
    g_crash_report.store(nullptr);
    return;
  }
  const std::string event = kCrashEvent, phase = kCrashPhase;
  size_t e = document.find(event), p = document.find(phase);
  if (e == std::string::npos || p == std::string::npos || p < e)
    return;
  auto *r = new CrashReport; // never freed: the handler may be reading the one it replaces
  r->path = path;
  std::string dir = path.substr(0, path.rfind('/') + 1);
  r->tmp = dir + ".t2o-crash-report.tmp" + std::to_string(::getpid());
  r->before = document.substr(0, e);
  r->middle = document.substr(e + event.size(), p - e - event.size());
  r->after = document.substr(p + phase.size());
  r->json = json;
  g_crash_report.store(r);
}

TempFileGuard::TempFileGuard(const std::string &path, bool is_dir) {
  if (path.size() >= kMaxPath)
    return;
  slot_ = claim(g_files, kMaxFiles);
  if (slot_ < 0)
    return;
  auto &s = g_files[slot_];
  std::memcpy(s.path, path.c_str(), path.size() + 1);
  s.is_dir = is_dir;
  s.state.store(kActive);
}

TempFileGuard::~TempFileGuard() {
  if (slot_ >= 0)
    g_files[slot_].state.store(kFree);
}

ChildGuard::ChildGuard(pid_t pid) {
  slot_ = claim(g_children, kMaxChildren);
  if (slot_ < 0)
    return;
  g_children[slot_].pid = pid;
  g_children[slot_].state.store(kActive);
}

ChildGuard::~ChildGuard() {
  if (slot_ >= 0)
    g_children[slot_].state.store(kFree);
}

namespace {
struct StackJob {
  const std::function<void()> *fn;
  std::exception_ptr error;
};

void *run_stack_job(void *arg) {
  auto *job = static_cast<StackJob *>(arg);
  ensure_alt_signal_stack();
  try {
    (*job->fn)();
  } catch (...) {
    job->error = std::current_exception();
  }
  return nullptr;
}
} // namespace

size_t run_on_large_stack(const std::function<void()> &fn) {
  StackJob job{&fn, nullptr};
  // Under a memory limit (ulimit -v) the stack takes at most an eighth of it: a 1 GiB stack under
  // a 2 GB limit left too little for the model and failed where 1.5 GB worked.
  struct rlimit rl {};
  size_t cap = size_t{1} << 30;
  if (::getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    cap = std::max<size_t>(size_t{64} << 20, static_cast<size_t>(rl.rlim_cur / 8));
  for (size_t size : {size_t{1} << 30, size_t{256} << 20, size_t{64} << 20}) {
    if (size > cap)
      continue;
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0)
      break;
    pthread_t thread;
    bool started = pthread_attr_setstacksize(&attr, size) == 0 &&
                   pthread_create(&thread, &attr, run_stack_job, &job) == 0;
    pthread_attr_destroy(&attr);
    if (!started)
      continue; // e.g. ulimit -v leaves no room for this stack: try a smaller one
    pthread_join(thread, nullptr);
    if (job.error)
      std::rethrow_exception(job.error);
    return size;
  }
  fn();
  return 0;
}

bool is_out_of_memory(const std::string &what) {
  return what.find("bad_alloc") != std::string::npos ||
         what.find("can't allocate memory") != std::string::npos ||
         what.find("Cannot allocate memory") != std::string::npos;
}

bool memory_limited() {
  struct rlimit rl {};
  return ::getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY;
}

std::string memory_limit_text() {
  struct rlimit rl {};
  if (::getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
    return "";
  return std::to_string(static_cast<unsigned long long>(rl.rlim_cur) >> 20) + " MB";
}

Error out_of_memory(const std::string &doing) {
  std::string limit = memory_limit_text();
  std::string where =
      limit.empty() ? "" : fmt::format(" (the process memory limit, ulimit -v, is {})", limit);
  return Error(fmt::format("out of memory while {}{}", doing, where),
               limit.empty() ? "free memory (close other programs, run fewer exports at once) or "
                               "use a machine with more; an export needs about twice the model's "
                               "weights"
                             : "raise the limit (ulimit -v); an export needs LibTorch (about 1 GB "
                               "of address space) plus about twice the model's weights");
}

} // namespace torch2onnx
