// A zoo job's child process and the files it writes. Each child is this same binary (via
// /proc/self/exe) in its own process group, so a timeout kills whatever it started too.
#include "apps/zoo_child.h"

#include "builder/error.h"

#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace torch2onnx::zoo {

JobPaths job_paths(const std::string &out, const Job &j) {
  JobPaths p;
  p.onnx = out + "/" + j.name + ".onnx";
  p.data = p.onnx + ".data";
  p.test_dir = out + "/" + j.name; // the CLI's rule: the output path without ".onnx"
  p.log = out + "/logs/" + j.name + ".log";
  p.report = out + "/logs/" + j.name + ".json";
  p.copy_dir = p.test_dir + "/copy-load";
  p.copy_onnx = p.copy_dir + "/" + j.name + ".onnx";
  p.copy_log = out + "/logs/" + j.name + ".copy-load.log";
  return p;
}

Snapshot take_snapshot(const JobPaths &p) {
  Snapshot s;
  std::error_code ec;
  s.data_existed = fs::exists(p.data, ec);
  if (s.data_existed)
    s.data_time = fs::last_write_time(p.data, ec);
  s.test_dir_existed = fs::is_directory(p.test_dir, ec);
  if (s.test_dir_existed)
    for (const auto &e : fs::directory_iterator(p.test_dir, ec))
      s.test_dir_entries.insert(e.path().filename().string());
  return s;
}

namespace {

bool is_test_data_set(const std::string &name) {
  const std::string prefix = "test_data_set_";
  if (name.rfind(prefix, 0) != 0 || name.size() == prefix.size())
    return false;
  for (size_t i = prefix.size(); i < name.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(name[i])))
      return false;
  return true;
}

} // namespace

void remove_written(const JobPaths &p, const Snapshot &before) {
  std::error_code ec;
  fs::remove(p.onnx, ec); // the child's output path: a pass means this run wrote it
  if (fs::exists(p.data, ec) &&
      (!before.data_existed || fs::last_write_time(p.data, ec) != before.data_time))
    fs::remove(p.data, ec);
  if (!fs::is_directory(p.test_dir, ec))
    return;
  std::vector<fs::path> created;
  for (const auto &e : fs::directory_iterator(p.test_dir, ec)) {
    std::string n = e.path().filename().string();
    if (is_test_data_set(n) && !before.test_dir_entries.count(n) && e.is_directory(ec))
      created.push_back(e.path());
  }
  for (const auto &d : created)
    fs::remove_all(d, ec);
  // fs::remove deletes a folder only when it is empty: a user's file inside keeps it.
  if (!before.test_dir_existed)
    fs::remove(p.test_dir, ec);
}

namespace {

// The flags that make the export (both exports of --check-copy-load share them), with the
// manifest's settings; the settings that tune verification only when it runs.
std::vector<std::string> export_args(const Job &j, const std::string &exe, const std::string &out,
                                     bool verification) {
  std::vector<std::string> a = {exe, j.model, "-o", out, "--opset", std::to_string(j.opset)};
  for (const auto &s : j.inputs)
    a.insert(a.end(), {"--input", s});
  for (const auto &f : j.input_data)
    a.insert(a.end(), {"--input-data", f});
  Settings s = j.settings;
  s.opset = kDefaultOpset; // given above
  for (auto &arg : setting_args(s, verification))
    a.push_back(std::move(arg));
  return a;
}

} // namespace

std::vector<std::string> child_args(const Job &j, const std::string &exe, const JobPaths &p) {
  std::vector<std::string> a = export_args(j, exe, p.onnx, true);
  a.insert(a.end(), {"--verify", "--report", p.report});
  if (!j.expected_outputs.empty())
    a.insert(a.end(), {"--expected-outputs", j.expected_outputs});
  return a;
}

std::vector<std::string> copy_load_args(const Job &j, const std::string &exe, const JobPaths &p) {
  std::vector<std::string> a = export_args(j, exe, p.copy_onnx, false);
  a.push_back("--quiet");
  return a;
}

pid_t spawn(const std::vector<std::string> &args, const std::string &log,
            const std::vector<std::pair<std::string, std::string>> &env) {
  std::vector<char *> argv;
  for (const auto &s : args)
    argv.push_back(const_cast<char *>(s.c_str()));
  argv.push_back(nullptr);
  int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    throw Error(fmt::format("cannot write the log file '{}': {}", log, std::strerror(errno)));
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
    if (devnull >= 0)
      ::dup2(devnull, 0);
    for (const auto &[name, value] : env)
      value.empty() ? ::unsetenv(name.c_str()) : ::setenv(name.c_str(), value.c_str(), 1);
    // /proc/self/exe is this very binary even if the file was rebuilt since the batch started.
    ::execv("/proc/self/exe", argv.data());
    std::fprintf(stderr, "torch2onnx: error: cannot run %s: %s\n", argv[0], std::strerror(errno));
    ::_exit(127);
  }
  ::setpgid(pid, pid); // also from the parent, so a kill right after fork finds the group
  ::close(fd);
  return pid;
}

namespace {

std::string read_text(const std::string &p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

} // namespace

Result finish(const Job &job, const Running &run, int wstatus, const JobPaths &p) {
  Result r;
  r.job = job;
  r.log_path = p.log;
  r.seconds = std::chrono::duration<double>(Clock::now() - run.start).count();
  // The report says what happened; a child that crashed or was killed wrote none (or a stale
  // one from an earlier run, which the start of this run removed), so then its log does.
  if (!read_child_report(p.report, r))
    parse_child_log(read_text(p.log), r);
  if (WIFEXITED(wstatus)) {
    r.exit_code = WEXITSTATUS(wstatus);
    // 0: exported and verified; 1: export or verification failed; anything else (2 bad command
    // line, 127 exec failure, an abort caught by a runtime) is a crash of the tool.
    r.status = r.exit_code == 0 ? Status::Pass : r.exit_code == 1 ? Status::Fail : Status::Crash;
  } else if (WIFSIGNALED(wstatus)) {
    r.signal = WTERMSIG(wstatus);
    r.status = Status::Crash;
  }
  if (run.timed_out)
    r.status = Status::Timeout;
  if (!job.expect_fail.empty())
    r.status = r.status == Status::Pass ? Status::UnexpectedPass : Status::ExpectedFail;
  return r;
}

std::string one_line(const Result &r) {
  std::string detail;
  if (r.status == Status::Pass || r.status == Status::UnexpectedPass) {
    detail = fmt::format("{} nodes, {} params", r.nodes, r.params);
    if (r.worst_error_ratio >= 0)
      detail +=
          fmt::format(", worst error {:.2g} ({:.2g}×tol)", r.worst_abs_error, r.worst_error_ratio);
    if (r.expected_error_ratio >= 0)
      detail += fmt::format(", vs expected {:.2g} ({:.2g}×tol)", r.expected_abs_error,
                            r.expected_error_ratio);
    if (r.copy_load == "identical")
      detail += ", copy load identical";
    if (!r.note.empty())
      detail += "; WARNING: " + r.note;
    if (r.status == Status::UnexpectedPass)
      detail += "; expected to fail: remove expect_fail";
  } else if (r.status == Status::Timeout) {
    detail = fmt::format("timed out after {:.0f} s", r.job.timeout);
  } else if (r.signal) {
    detail = fmt::format("killed by signal {} ({})", r.signal, strsignal(r.signal));
  } else {
    detail = r.first_error.empty() ? fmt::format("exit status {}", r.exit_code) : r.first_error;
    if (r.status == Status::ExpectedFail)
      detail = "expected: " + r.job.expect_fail;
  }
  if (detail.size() > 200)
    detail = detail.substr(0, 197) + "...";
  return detail;
}

} // namespace torch2onnx::zoo
