// One zoo job's child process: its command line, the files it writes under --out, starting it,
// and deleting what it wrote once it passed.
#pragma once

#include "apps/zoo.h"

#include <chrono>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <sys/types.h>
#include <vector>

namespace torch2onnx::zoo {

// Where a job's child writes: OUT/NAME.onnx (+ .data), its --verify test data in OUT/NAME/,
// and OUT/logs/NAME.log and OUT/logs/NAME.json (its --report). With --check-copy-load the second
// export writes OUT/NAME/copy-load/NAME.onnx (the same file name, so external data is named
// alike) and its log OUT/logs/NAME.copy-load.log.
struct JobPaths {
  std::string onnx, data, test_dir, log, report;
  std::string copy_dir, copy_onnx, copy_log;
};
JobPaths job_paths(const std::string &out, const Job &j);

// What existed at a job's paths before its child ran, so that cleaning up after a pass removes
// only what this run wrote, never a user's file or folder.
struct Snapshot {
  bool data_existed = false;
  std::filesystem::file_time_type data_time;
  bool test_dir_existed = false;
  std::set<std::string> test_dir_entries;
};
Snapshot take_snapshot(const JobPaths &p);

// Removes the ONNX file, its external data (when this run wrote it), the test_data_set_N folders
// this run created, and the test-data folder itself when this run created it and it is empty.
void remove_written(const JobPaths &p, const Snapshot &before);

// The child's command line (this binary, exporting with --verify and --report).
std::vector<std::string> child_args(const Job &j, const std::string &exe, const JobPaths &p);

// The second export of --check-copy-load: the same model, inputs and flags, no verification,
// quiet; run with TORCH2ONNX_LOAD=copy (LibTorch's own load, which copies every weight).
std::vector<std::string> copy_load_args(const Job &j, const std::string &exe, const JobPaths &p);

// Starts one child with stdout and stderr going to `log`, in a new process group, with `env`
// (NAME, VALUE) set in its environment (an empty VALUE removes NAME).
pid_t spawn(const std::vector<std::string> &args, const std::string &log,
            const std::vector<std::pair<std::string, std::string>> &env = {});

using Clock = std::chrono::steady_clock;

struct Running {
  pid_t pid = -1;
  size_t index = 0; // into the shard's job list
  Clock::time_point start;
  bool timed_out = false;
  Snapshot before;
  // --check-copy-load: the first child's result while the second export runs (started then).
  std::optional<Result> exported;
  Clock::time_point copy_start;
};

// The result of a finished child: its exit status, then its report (or, without one, its log).
Result finish(const Job &job, const Running &run, int wstatus, const JobPaths &p);

// The end of --check-copy-load's second export (apps/zoo_copy_load.cpp): `r` (the first child's
// pass) fails unless that export succeeded and wrote the very bytes of the first. Removes the
// second file when identical (unless `keep`).
void finish_copy_load(Result &r, const Running &run, int wstatus, const JobPaths &p, bool keep);

// The status line's detail for one result.
std::string one_line(const Result &r);

} // namespace torch2onnx::zoo
