// `torch2onnx zoo MANIFEST`: each model is exported and verified by a child torch2onnx process
// (this same binary, via /proc/self/exe) in its own process group with a time limit, so a model
// that crashes LibTorch or hangs is recorded as that model's failure and the batch goes on.
#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "apps/zoo.h"
#include "builder/error.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace torch2onnx::zoo {
namespace {

struct Running {
  pid_t pid = -1;
  size_t index = 0;  // into the shard's job list
  Clock::time_point start;
  bool timed_out = false;
};

std::string self_exe() {
  std::error_code ec;
  auto p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("cannot find the torch2onnx binary (/proc/self/exe)");
  return p.string();
}

std::vector<std::string> child_args(const Job& j, const std::string& exe, const std::string& onnx) {
  std::vector<std::string> a = {exe, j.model, "-o", onnx, "--opset", std::to_string(j.opset),
                                "--verify"};
  for (const auto& s : j.inputs) a.insert(a.end(), {"--input", s});
  if (j.rtol) a.insert(a.end(), {"--rtol", fmt::format("{}", *j.rtol)});
  if (j.atol) a.insert(a.end(), {"--atol", fmt::format("{}", *j.atol)});
  for (const auto& l : j.libraries) a.insert(a.end(), {"--load-library", l});
  if (!j.verify_dims.empty()) a.insert(a.end(), {"--verify-dims", j.verify_dims});
  if (!j.output_names.empty()) a.insert(a.end(), {"--output-names", fmt::format("{}", fmt::join(j.output_names, ","))});
  return a;
}

// Starts one child with stdout and stderr going to `log`, in a new process group so a timeout
// kills whatever it started too (the ONNX Runtime runner).
pid_t spawn(const std::vector<std::string>& args, const std::string& log) {
  std::vector<char*> argv;
  for (const auto& s : args) argv.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);
  int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(fmt::format("cannot write the log file '{}': {}", log, std::strerror(errno)));
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fd);
    throw Error(fmt::format("fork failed: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    // /proc/self/exe is this very binary even if the file was rebuilt since the batch started.
    ::execv("/proc/self/exe", argv.data());
    std::fprintf(stderr, "torch2onnx: error: cannot run %s: %s\n", argv[0], std::strerror(errno));
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from the parent, so a kill right after fork finds the group
  ::close(fd);
  return pid;
}

std::string read_file(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void write_file(const std::string& p, const std::string& text) {
  if (p.empty()) return;
  std::ofstream f(p, std::ios::binary);
  if (!f) throw Error(fmt::format("cannot write '{}'", p));
  f << text;
}

Result finish(const Job& job, const Running& run, int wstatus, const std::string& log) {
  Result r;
  r.job = job;
  r.log_path = log;
  r.seconds = std::chrono::duration<double>(Clock::now() - run.start).count();
  parse_child_output(read_file(log), r);
  if (WIFEXITED(wstatus)) {
    r.exit_code = WEXITSTATUS(wstatus);
    // 0: exported and verified; 1: export or verification failed; anything else (2 bad command
    // line, 127 exec failure, an abort caught by a runtime) is a crash of the tool.
    r.status = r.exit_code == 0 ? Status::Pass : r.exit_code == 1 ? Status::Fail : Status::Crash;
  } else if (WIFSIGNALED(wstatus)) {
    r.signal = WTERMSIG(wstatus);
    r.status = Status::Crash;
  }
  if (run.timed_out) r.status = Status::Timeout;
  if (!job.expect_fail.empty())
    r.status = r.status == Status::Pass ? Status::UnexpectedPass : Status::ExpectedFail;
  return r;
}

std::string one_line(const Result& r) {
  std::string detail;
  if (r.status == Status::Pass || r.status == Status::UnexpectedPass) {
    detail = fmt::format("{} nodes, {} params", r.nodes, r.params);
    if (r.worst_error_ratio >= 0)
      detail += fmt::format(", worst error {:.2g} ({:.2g}×tol)", r.worst_abs_error, r.worst_error_ratio);
    if (!r.note.empty()) detail += "; WARNING: " + r.note;
    if (r.status == Status::UnexpectedPass) detail += "; expected to fail: remove expect_fail";
  } else if (r.status == Status::Timeout) {
    detail = fmt::format("timed out after {:.0f} s", r.job.timeout);
  } else if (r.signal) {
    detail = fmt::format("killed by signal {} ({})", r.signal, strsignal(r.signal));
  } else {
    detail = r.first_error.empty() ? fmt::format("exit status {}", r.exit_code) : r.first_error;
    if (r.status == Status::ExpectedFail) detail = "expected: " + r.job.expect_fail;
  }
  if (detail.size() > 200) detail = detail.substr(0, 197) + "...";
  return detail;
}

volatile sig_atomic_t g_interrupted = 0;
void on_interrupt(int) { g_interrupted = 1; }

struct Options {
  std::string manifest, out = "zoo-out", models, junit, report, json;
  int jobs = 1, opset = 0;
  std::string shard;
  bool keep = false, list = false;
  double timeout = 0;
};

// "I/N" with 1 <= I <= N.
std::pair<int, int> parse_shard(const std::string& s) {
  if (s.empty()) return {1, 1};
  int i = 0, n = 0;
  char extra = 0;
  if (std::sscanf(s.c_str(), "%d/%d%c", &i, &n, &extra) != 2 || n < 1 || i < 1 || i > n)
    throw Error(fmt::format("--shard '{}' must be I/N with 1 <= I <= N, e.g. --shard 1/2", s));
  return {i, n};
}

}  // namespace

int run_zoo(int argc, char** argv) {
  CLI::App app{"torch2onnx zoo: export and verify every model of a manifest, each in its own "
               "process with a time limit.\n\n"
               "Usage: torch2onnx zoo MANIFEST [--out DIR] [--jobs N] [--shard I/N] [--opset N]\n"
               "                      [--junit FILE.xml] [--report FILE.md] [--json FILE.json]"};
  app.footer(R"(
Examples:
  torch2onnx zoo models/zoo/ci.yaml --jobs 2 --junit zoo.xml --report zoo.md
  torch2onnx zoo models/zoo/torchvision.yaml --shard 1/4 --jobs 2     one of 4 CI machines

MANIFEST is YAML (see docs/zoo.md): model_dir, defaults (opset, rtol, atol, timeout,
load_library) and a list of models (name, model, inputs, opset, rtol, atol, timeout,
load_library, output_names, verify_dims, expect_fail: "reason").

Status per model: pass, fail (export or verification failed), crash (killed by a signal or an
unexpected exit status), timeout, xfail (failed as the manifest expects), xpass (passed although
expected to fail). Exit status: 0 when no model failed unexpectedly, 1 otherwise, 2 bad usage.
)");
  Options o;
  app.add_option("manifest", o.manifest, "YAML manifest listing the models")->required();
  app.add_option("--out", o.out, "folder for ONNX files and logs (default zoo-out)");
  app.add_option("--models", o.models,
                 "folder for relative model paths (default: the manifest's model_dir)");
  app.add_option("--jobs,-j", o.jobs, "models exported in parallel (default 1)")
      ->check(CLI::Range(1, 64));
  app.add_option("--shard", o.shard, "take every N-th model starting at the I-th, e.g. 2/3");
  app.add_option("--opset", o.opset, "export every model at this opset instead of the manifest's")
      ->check(CLI::Range(13, 17));
  app.add_option("--timeout", o.timeout, "seconds per model, replacing the manifest's");
  app.add_option("--junit", o.junit, "write JUnit XML results here");
  app.add_option("--report", o.report, "write a markdown table of the results here");
  app.add_option("--json", o.json, "write JSON results here");
  app.add_flag("--keep", o.keep, "keep the ONNX files of passing models (default: deleted)");
  app.add_flag("--list", o.list, "print the jobs (after --shard and --opset) and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }

  std::vector<Job> jobs;
  std::string exe;
  int shard_i = 1, shard_n = 1;
  try {
    std::tie(shard_i, shard_n) = parse_shard(o.shard);
    Manifest m = load_manifest(o.manifest, o.models, o.opset);
    for (size_t k = 0; k < m.jobs.size(); ++k)
      if (static_cast<int>(k % shard_n) == shard_i - 1) jobs.push_back(m.jobs[k]);
    if (o.timeout > 0)
      for (auto& j : jobs) j.timeout = o.timeout;
    if (o.list) {
      for (const auto& j : jobs)
        fmt::print("{}\topset {}\t{}\t{}{}\n", j.name, j.opset, j.model, fmt::join(j.inputs, " "),
                   j.expect_fail.empty() ? "" : "\texpected to fail: " + j.expect_fail);
      fmt::print("{} job(s)\n", jobs.size());
      return 0;
    }
    fs::create_directories(o.out + "/logs");
    exe = self_exe();
  } catch (const Error& e) {
    fmt::print(stderr, "torch2onnx: error: {}\n", e.what());
    if (!e.hint().empty()) fmt::print(stderr, "  hint: {}\n", e.hint());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "torch2onnx: error: {}\n", e.what());
    return 2;
  }

  const bool tty = ::isatty(1);
  fmt::print("zoo: {} model(s) from {}{}, {} job(s) in parallel, output in {}\n", jobs.size(),
             o.manifest, shard_n > 1 ? fmt::format(" (shard {}/{})", shard_i, shard_n) : "",
             o.jobs, o.out);
  std::fflush(stdout);
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);

  std::vector<std::optional<Result>> results(jobs.size());
  std::vector<Running> running;
  size_t next = 0, done = 0;
  auto t0 = Clock::now();
  auto onnx_path = [&](const Job& j) { return o.out + "/" + j.name + ".onnx"; };
  auto log_path = [&](const Job& j) { return o.out + "/logs/" + j.name + ".log"; };
  while (done < jobs.size()) {
    while (!g_interrupted && running.size() < static_cast<size_t>(o.jobs) && next < jobs.size()) {
      const Job& j = jobs[next];
      Running r;
      r.index = next++;
      r.start = Clock::now();
      try {
        r.pid = spawn(child_args(j, exe, onnx_path(j)), log_path(j));
      } catch (const Error& e) {
        // Could not start this one (log not writable, fork failed): its failure, not the batch's.
        Result res;
        res.job = j;
        res.status = j.expect_fail.empty() ? Status::Crash : Status::ExpectedFail;
        res.first_error = e.what();
        fmt::print("[{}/{}] {:<28} {:<7} {}\n", ++done, jobs.size(), j.name,
                   status_name(res.status), res.first_error);
        results[r.index] = std::move(res);
        continue;
      }
      running.push_back(r);
    }
    if (g_interrupted) {
      // Stop the children we started and report what finished.
      for (auto& r : running) ::kill(-r.pid, SIGKILL);
      for (auto& r : running) ::waitpid(r.pid, nullptr, 0);
      running.clear();
      fmt::print(stderr, "\nzoo: interrupted after {} of {} models\n", done, jobs.size());
      break;
    }
    bool reaped = false;
    for (size_t k = 0; k < running.size();) {
      Running& r = running[k];
      int ws = 0;
      pid_t p = ::waitpid(r.pid, &ws, WNOHANG);
      if (p == 0) {
        const Job& j = jobs[r.index];
        if (!r.timed_out && Clock::now() - r.start > std::chrono::duration<double>(j.timeout)) {
          r.timed_out = true;
          ::kill(-r.pid, SIGKILL);
        }
        ++k;
        continue;
      }
      ::kill(-r.pid, SIGKILL);  // whatever the child left running in its group
      const Job& j = jobs[r.index];
      Result res = finish(j, r, ws, log_path(j));
      ++done;
      if (tty) fmt::print("\r\033[K");
      fmt::print("[{:>{}}/{}] {:<28} {:<7} {:6.1f} s  {}\n", done, std::to_string(jobs.size()).size(),
                 jobs.size(), j.name, status_name(res.status), res.seconds, one_line(res));
      std::fflush(stdout);
      if (res.status == Status::Pass && !o.keep) {
        std::error_code ec;
        fs::remove(onnx_path(j), ec);
        fs::remove_all(o.out + "/" + j.name, ec);  // --verify's test data
      }
      results[r.index] = std::move(res);
      running.erase(running.begin() + static_cast<long>(k));
      reaped = true;
    }
    if (!reaped && !running.empty()) {
      if (tty) {
        std::vector<std::string> names;
        for (const auto& r : running)
          names.push_back(fmt::format("{} {:.0f}s", jobs[r.index].name,
                                      std::chrono::duration<double>(Clock::now() - r.start).count()));
        fmt::print("\r\033[K  running: {}", fmt::join(names, ", "));
        std::fflush(stdout);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }

  std::vector<Result> finished;
  for (auto& r : results)
    if (r) finished.push_back(std::move(*r));
  int unexpected = 0, xpass = 0, pass = 0;
  for (const auto& r : finished) {
    unexpected += is_unexpected_failure(r.status);
    xpass += r.status == Status::UnexpectedPass;
    pass += r.status == Status::Pass;
  }
  double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  std::string title = fmt::format("`torch2onnx zoo {}`{}", fs::path(o.manifest).filename().string(),
                                  shard_n > 1 ? fmt::format(" shard {}/{}", shard_i, shard_n) : "");
  try {
    write_file(o.junit, junit_xml(finished, fs::path(o.manifest).stem().string()));
    write_file(o.report, markdown_table(finished, title));
    write_file(o.json, json_report(finished));
  } catch (const Error& e) {
    fmt::print(stderr, "torch2onnx: error: {}\n", e.what());
    return 1;
  }
  fmt::print("zoo: {} passed, {} failed unexpectedly, {} expected failures, {} unexpected passes "
             "({} of {} run, {:.1f} s)\n",
             pass, unexpected, finished.size() - pass - unexpected - xpass, xpass, finished.size(),
             jobs.size(), wall);
  if (unexpected > 0) {
    for (const auto& r : finished)
      if (is_unexpected_failure(r.status))
        fmt::print("  {} {}: {} (log: {})\n", status_name(r.status), r.job.name, one_line(r),
                   r.log_path);
  }
  return unexpected > 0 || g_interrupted ? 1 : 0;
}

}  // namespace torch2onnx::zoo
