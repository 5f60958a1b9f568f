// `torch2onnx zoo MANIFEST`: each model is exported and verified by a child torch2onnx process
// (apps/zoo_child.h) with a time limit, so a model that crashes LibTorch or hangs is recorded as
// that model's failure and the batch goes on.
#include "apps/zoo.h"

#include "apps/progress_line.h"
#include "apps/zoo_child.h"
#include "apps/zoo_results.h"
#include "aten_lib/converter.h"
#include "builder/error.h"
#include "builder/file_io.h"
#include "builder/printable.h"

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <signal.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;

namespace torch2onnx::zoo {
namespace {

std::string self_exe() {
  std::error_code ec;
  auto p = fs::read_symlink("/proc/self/exe", ec);
  if (ec)
    throw Error("cannot find the torch2onnx binary (/proc/self/exe)");
  return p.string();
}

void write_file(const std::string &p, const std::string &text) {
  if (p.empty())
    return;
  write_file_atomic(p, text); // whole or not at all; says why it cannot
}

// Where models/make_zoo.py keeps a model's expected outputs (find_oracle_files looks there).
std::string oracle_file(const Job &j) {
  fs::path p(j.model);
  return (p.extension() == ".pt" ? p.replace_extension("") : p).string() + ".expected.pt";
}

volatile sig_atomic_t g_interrupted = 0;
void on_interrupt(int) {
  g_interrupted = 1;
}

struct Options {
  std::string manifest, out = "zoo-out", models, junit, report, json, resume;
  int jobs = 1, opset = 0;
  std::string shard;
  bool keep = false, list = false;
  bool check_copy_load = false, require_expected = false;
  double timeout = 0;
};

// "I/N" with 1 <= I <= N.
std::pair<int, int> parse_shard(const std::string &s) {
  if (s.empty())
    return {1, 1};
  int i = 0, n = 0;
  char extra = 0;
  if (std::sscanf(s.c_str(), "%d/%d%c", &i, &n, &extra) != 2 || n < 1 || i < 1 || i > n)
    throw Error(fmt::format("--shard '{}' must be I/N with 1 <= I <= N, e.g. --shard 1/2", s));
  return {i, n};
}

const char *kZooFooter = R"(
Examples:
  torch2onnx zoo models/zoo/ci.yaml --jobs 2 --junit zoo.xml --report zoo.md
  torch2onnx zoo models/zoo/torchvision.yaml --shard 1/4 --jobs 2 --json shard-1.json
                                                  one of 4 CI machines (docs/zoo.md)
  torch2onnx zoo merge shard-*.json --manifest models/zoo/torchvision.yaml --report zoo.md
                                                  the 4 shards' results as one (zoo merge --help)
  torch2onnx zoo models/zoo/ci.yaml --resume last.json --json last.json
                                                  run only what did not pass last time

MANIFEST is YAML (see docs/zoo.md): model_dir, defaults (opset, rtol, atol, timeout,
load_library, converters) and a list of models (name, model, inputs, opset, rtol, atol, timeout,
load_library, converters, output_names, verify_dims, input_data: [files], functions: [classes],
expected_outputs: file, expect_fail: "reason"). A model's expected outputs (expected_outputs, or
MODEL.expected.pt beside it, with MODEL.inputs.pt as input data when the entry has none, as
models/make_zoo.py writes them) are passed as --expected-outputs: ONNX Runtime is checked against
them too.

Status per model: pass, fail (export or verification failed), crash (killed by a signal or an
unexpected exit status), timeout, xfail (failed as the manifest expects), xpass (passed although
expected to fail). Exit status: 0 when no model failed unexpectedly, 1 otherwise, 2 bad usage.
)";

// Parses the zoo command line into `o`; returns an exit status when there is nothing to run.
std::optional<int> parse_options(int argc, char **argv, Options &o) {
  CLI::App app{"torch2onnx zoo: export and verify every model of a manifest, each in its own "
               "process with a time limit.\n\n"
               "Usage: torch2onnx zoo MANIFEST [--out DIR] [--jobs N] [--shard I/N] [--opset N]\n"
               "                      [--junit FILE.xml] [--report FILE.md] [--json FILE.json]\n"
               "                      [--resume PREVIOUS.json]\n"
               "       torch2onnx zoo merge RESULT.json... [--manifest M.yaml] [--json F]\n"
               "                      [--junit F] [--report F.md]"};
  app.footer(kZooFooter);
  app.add_option("manifest", o.manifest, "YAML manifest listing the models")->required();
  app.add_option("--out", o.out, "folder for ONNX files and logs (default zoo-out)");
  app.add_option("--models", o.models,
                 "folder for relative model paths (default: the manifest's model_dir)");
  app.add_option("--jobs,-j", o.jobs, "models exported in parallel (default 1)")
      ->check(CLI::Range(1, 64));
  app.add_option("--shard", o.shard, "take every N-th model starting at the I-th, e.g. 2/3");
  app.add_option("--opset", o.opset, "export every model at this opset instead of the manifest's")
      ->check(CLI::Range(kMinOpset, kMaxOpset));
  app.add_option("--timeout", o.timeout, "seconds per model, replacing the manifest's")
      ->check(CLI::PositiveNumber);
  app.add_option("--junit", o.junit, "write JUnit XML results here");
  app.add_option("--report", o.report, "write a markdown table of the results here");
  app.add_option("--json", o.json, "write JSON results here");
  app.add_option("--resume", o.resume,
                 "skip the models that passed in this earlier --json (of a shard or a merge) "
                 "with the same inputs, binary and options");
  app.add_flag("--keep", o.keep, "keep the ONNX files of passing models (default: deleted)");
  app.add_flag("--list", o.list, "print the jobs (after --shard and --opset) and exit");
  app.add_flag("--check-copy-load", o.check_copy_load,
               "export each passing model again (at its first opset) with TORCH2ONNX_LOAD=copy, "
               "without verification, and fail it unless both ONNX files are byte-identical");
  app.add_flag("--require-expected-outputs", o.require_expected,
               "fail a model that has no expected outputs (the manifest's expected_outputs, or "
               "MODEL.expected.pt beside it) instead of exporting it without that check");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  return std::nullopt;
}

// The path rule (builder/file_io.h) for a batch: --junit, --report and --json are written, so
// none may be the manifest, a job's model or other input, or a file a job writes.
void check_result_paths(const Options &o, const std::vector<Job> &jobs) {
  std::vector<PathUse> reads = {{o.manifest, "the manifest", false}}, writes;
  for (const auto &[path, flag] : {std::pair{o.junit, "--junit"}, std::pair{o.report, "--report"},
                                   std::pair{o.json, "--json"}})
    if (!path.empty())
      writes.push_back({path, flag, false});
  if (writes.empty())
    return;
  for (const Job &j : jobs) {
    reads.push_back({j.model, fmt::format("the model of '{}'", j.name), false});
    for (const auto &f : j.input_data)
      reads.push_back({f, fmt::format("--input-data of '{}'", j.name), false});
    JobPaths p = job_paths(o.out, j);
    for (const auto &[path, what] : {std::pair{p.onnx, "ONNX file"}, std::pair{p.data, "weights"},
                                     std::pair{p.log, "log"}, std::pair{p.report, "report"}})
      for (const auto &w : writes)
        check_path_conflicts({}, {w, {path, fmt::format("the {} of '{}'", what, j.name), false}});
  }
  check_path_conflicts(reads, writes);
}

// The shard's jobs of the manifest, with --timeout applied.
std::vector<Job> select_jobs(const Options &o, int shard_i, int shard_n) {
  Manifest m = load_manifest(o.manifest, o.models, o.opset);
  std::vector<Job> jobs;
  for (size_t k = 0; k < m.jobs.size(); ++k)
    if (static_cast<int>(k % shard_n) == shard_i - 1)
      jobs.push_back(m.jobs[k]);
  for (auto &j : jobs) {
    if (o.timeout > 0)
      j.timeout = o.timeout;
    find_oracle_files(j);
  }
  return jobs;
}

// Runs the jobs, at most o.jobs at a time, until all finished or SIGINT/SIGTERM.
class Batch {
public:
  Batch(const Options &o, const std::vector<Job> &jobs, std::string exe)
      : o_(o), jobs_(jobs), exe_(std::move(exe)), results_(jobs.size()) {}

  void run() {
    while (done_ < jobs_.size()) {
      start_more();
      if (g_interrupted) {
        stop_all();
        break;
      }
      if (!reap_finished() && !running_.empty()) {
        show_running();
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
      }
    }
  }

  std::vector<Result> finished() {
    std::vector<Result> out;
    for (auto &r : results_)
      if (r)
        out.push_back(std::move(*r));
    return out;
  }

private:
  JobPaths paths(const Job &j) const { return job_paths(o_.out, j); }

  void start_more() {
    while (!g_interrupted && running_.size() < static_cast<size_t>(o_.jobs) &&
           next_ < jobs_.size()) {
      const Job &j = jobs_[next_];
      Running r;
      r.index = next_++;
      r.start = Clock::now();
      JobPaths p = paths(j);
      r.before = take_snapshot(p);
      std::error_code ec;
      fs::remove(p.report, ec); // an earlier run's report must not stand for this run
      if (o_.require_expected && j.expected_outputs.empty()) {
        not_started(r.index, Status::Fail,
                    fmt::format("no expected outputs: neither the manifest's expected_outputs nor "
                                "{} (make them with models/make_zoo.py)",
                                oracle_file(j)));
        continue;
      }
      try {
        // --check-copy-load compares the default load with the copying one: not copy with copy.
        std::vector<std::pair<std::string, std::string>> env;
        if (o_.check_copy_load)
          env.emplace_back("TORCH2ONNX_LOAD", "");
        r.pid = spawn(child_args(j, exe_, p), p.log, env);
      } catch (const Error &e) {
        // Could not start this one (log not writable, fork failed): its failure, not the batch's.
        not_started(r.index, Status::Crash, e.what());
        continue;
      }
      running_.push_back(r);
    }
  }

  // A job that did not start: `status` unless the manifest expects it to fail.
  void not_started(size_t index, Status status, const std::string &why) {
    const Job &j = jobs_[index];
    Result res;
    res.job = j;
    res.status = j.expect_fail.empty() ? status : Status::ExpectedFail;
    res.first_error = why;
    fmt::print("[{}/{}] {:<28} {:<7} {}\n", ++done_, jobs_.size(), j.name, status_name(res.status),
               res.first_error);
    results_[index] = std::move(res);
  }

  // Stops the children we started; the results so far are still reported.
  void stop_all() {
    for (auto &r : running_)
      ::kill(-r.pid, SIGKILL);
    for (auto &r : running_)
      ::waitpid(r.pid, nullptr, 0);
    running_.clear();
    line_.clear();
    fmt::print(stderr, "\nzoo: interrupted after {} of {} models\n", done_, jobs_.size());
  }

  // Collects finished children and kills timed-out ones; true when one finished.
  bool reap_finished() {
    bool reaped = false;
    for (size_t k = 0; k < running_.size();) {
      Running &r = running_[k];
      const Job &j = jobs_[r.index];
      int ws = 0;
      if (::waitpid(r.pid, &ws, WNOHANG) == 0) {
        auto since = r.exported ? r.copy_start : r.start;
        if (!r.timed_out && Clock::now() - since > std::chrono::duration<double>(j.timeout)) {
          r.timed_out = true;
          ::kill(-r.pid, SIGKILL);
        }
        ++k;
        continue;
      }
      ::kill(-r.pid, SIGKILL); // whatever the child left running in its group
      Result res;
      if (r.exported) {
        res = std::move(*r.exported);
        finish_copy_load(res, r, ws, paths(j), o_.keep);
      } else {
        res = finish(j, r, ws, paths(j));
        if (start_copy_load(r, res)) {
          ++k;
          continue;
        }
      }
      record(r, std::move(res));
      running_.erase(running_.begin() + static_cast<long>(k));
      reaped = true;
    }
    return reaped;
  }

  // --check-copy-load: after a pass, the same export with TORCH2ONNX_LOAD=copy. True when it
  // started (`r` now waits for it, holding the first result).
  bool start_copy_load(Running &r, Result &first) {
    const Job &j = jobs_[r.index];
    if (!o_.check_copy_load || !j.first_opset || first.status != Status::Pass)
      return false;
    JobPaths p = paths(j);
    std::error_code ec;
    fs::create_directories(p.copy_dir, ec);
    try {
      r.pid = spawn(copy_load_args(j, exe_, p), p.copy_log, {{"TORCH2ONNX_LOAD", "copy"}});
    } catch (const Error &e) {
      first.status = Status::Fail;
      first.first_error = first.copy_load =
          fmt::format("cannot start the export with TORCH2ONNX_LOAD=copy: {}", e.what());
      return false;
    }
    r.exported = std::move(first);
    r.copy_start = Clock::now();
    return true;
  }

  void record(const Running &r, Result res) {
    const Job &j = jobs_[r.index];
    ++done_;
    line_.clear();
    fmt::print("[{:>{}}/{}] {:<28} {:<7} {:6.1f} s  {}\n", done_,
               std::to_string(jobs_.size()).size(), jobs_.size(), j.name, status_name(res.status),
               res.seconds, one_line(res));
    std::fflush(stdout);
    if (res.status == Status::Pass && !o_.keep)
      remove_written(paths(j), r.before);
    results_[r.index] = std::move(res);
  }

  // On a terminal: done/total, the ETA and the models running, on one updating stderr line.
  void show_running() {
    if (!line_.active())
      return;
    std::vector<std::string> names;
    for (const auto &r : running_)
      names.push_back(fmt::format("{} {:.0f} s", jobs_[r.index].name,
                                  std::chrono::duration<double>(Clock::now() - r.start).count()));
    double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    std::fflush(stdout);
    line_.show(
        zoo_progress_text(done_, jobs_.size(), elapsed, fmt::format("{}", fmt::join(names, ", "))));
  }

  const Options &o_;
  const std::vector<Job> &jobs_;
  std::string exe_;
  std::vector<std::optional<Result>> results_;
  std::vector<Running> running_;
  size_t next_ = 0, done_ = 0;
  ProgressLine line_{true};
  Clock::time_point start_ = Clock::now();
};

// Writes --junit/--report/--json and prints the summary; returns the exit status.
int summarize(const Options &o, const std::vector<Result> &finished, size_t total, int shard_i,
              int shard_n, double wall, const RunInfo &info) {
  int unexpected = 0, xpass = 0, pass = 0;
  for (const auto &r : finished) {
    unexpected += is_unexpected_failure(r.status);
    xpass += r.status == Status::UnexpectedPass;
    pass += r.status == Status::Pass;
  }
  std::string title = fmt::format("`torch2onnx zoo {}`{}", fs::path(o.manifest).filename().string(),
                                  shard_n > 1 ? fmt::format(" shard {}/{}", shard_i, shard_n) : "");
  try {
    write_file(o.junit, junit_xml(finished, fs::path(o.manifest).stem().string()));
    write_file(o.report, markdown_table(finished, title));
    write_file(o.json, shard_json(finished, info));
  } catch (const Error &e) {
    fmt::print(stderr, "torch2onnx: error: {}\n", printable(e.what(), true));
    return 1;
  }
  fmt::print("zoo: {} passed, {} failed unexpectedly, {} expected failures, {} unexpected passes "
             "({} of {} run, {:.1f} s)\n",
             pass, unexpected, finished.size() - pass - unexpected - xpass, xpass, finished.size(),
             total, wall);
  for (const auto &r : finished)
    if (is_unexpected_failure(r.status))
      fmt::print("  {} {}: {} (log: {})\n", status_name(r.status), r.job.name,
                 printable(one_line(r)), r.log_path);
  return unexpected > 0 || g_interrupted ? 1 : 0;
}

} // namespace

int run_zoo(int argc, char **argv) {
  if (argc > 1 && std::string(argv[1]) == "merge")
    return run_zoo_merge(argc - 1, argv + 1);
  Options o;
  if (auto rc = parse_options(argc, argv, o))
    return *rc;
  std::vector<Job> jobs;
  std::string exe;
  int shard_i = 1, shard_n = 1;
  RunInfo info;                // for --json and --resume (apps/zoo_results.h)
  std::vector<Result> carried; // --resume: passed before, not run again
  try {
    std::tie(shard_i, shard_n) = parse_shard(o.shard);
    jobs = select_jobs(o, shard_i, shard_n);
    check_result_paths(o, jobs);
    if (o.list) {
      for (const auto &j : jobs)
        fmt::print("{}\topset {}\t{}\t{}{}\n", j.name, j.opset, j.model, fmt::join(j.inputs, " "),
                   j.expect_fail.empty() ? "" : "\texpected to fail: " + j.expect_fail);
      fmt::print("{} job(s)\n", jobs.size());
      return 0;
    }
    if (!o.json.empty() || !o.resume.empty()) {
      info = describe_run(o.manifest, o.models, o.opset, shard_i, shard_n, jobs, o.out);
      // The zoo's own checks decide a pass too: a pass without them is not one with them.
      std::string checks = std::string(o.check_copy_load ? " +copy-load" : "") +
                           (o.require_expected ? " +require-expected" : "");
      for (auto &fp : info.fingerprints)
        fp.second += checks;
    }
    if (!o.resume.empty())
      carried = resume_from(o.resume, jobs, info);
    fs::create_directories(o.out + "/logs");
    exe = self_exe();
  } catch (const std::exception &e) {
    fmt::print(stderr, "torch2onnx: error: {}\n", e.what());
    if (const auto *err = dynamic_cast<const Error *>(&e); err && !err->hint().empty())
      fmt::print(stderr, "  hint: {}\n", err->hint());
    return 2;
  }

  fmt::print("zoo: {} model(s) from {}{}, {} job(s) in parallel, output in {}\n", jobs.size(),
             o.manifest, shard_n > 1 ? fmt::format(" (shard {}/{})", shard_i, shard_n) : "", o.jobs,
             o.out);
  if (!o.resume.empty())
    fmt::print("zoo: {} model(s) skipped: passed in {} with the same inputs, binary and options\n",
               carried.size(), o.resume);
  std::fflush(stdout);
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);

  auto t0 = Clock::now();
  Batch batch(o, jobs, exe);
  batch.run();
  double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  std::vector<Result> results = in_manifest_order(batch.finished(), std::move(carried), info);
  return summarize(o, results, info.planned.empty() ? jobs.size() : info.planned.size(), shard_i,
                   shard_n, wall, info);
}

} // namespace torch2onnx::zoo
