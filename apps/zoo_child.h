// One zoo job's child process: its command line, the files it writes under --out, starting it,
// and deleting what it wrote once it passed.
#pragma once

#include "apps/zoo.h"

#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <sys/types.h>
#include <vector>

namespace torch2onnx::zoo {

// Where a job's child writes: OUT/NAME.onnx (+ .data), its --verify test data in OUT/NAME/,
// and OUT/logs/NAME.log and OUT/logs/NAME.json (its --report).
struct JobPaths {
  std::string onnx, data, test_dir, log, report;
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

// Starts one child with stdout and stderr going to `log`, in a new process group.
pid_t spawn(const std::vector<std::string> &args, const std::string &log);

using Clock = std::chrono::steady_clock;

struct Running {
  pid_t pid = -1;
  size_t index = 0; // into the shard's job list
  Clock::time_point start;
  bool timed_out = false;
  Snapshot before;
};

// The result of a finished child: its exit status, then its report (or, without one, its log).
Result finish(const Job &job, const Running &run, int wstatus, const JobPaths &p);

// The status line's detail for one result.
std::string one_line(const Result &r);

} // namespace torch2onnx::zoo
