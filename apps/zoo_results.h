// Zoo results across runs and machines: what a shard's --json records beyond the results (the
// shard, each model's place in the manifest, the binary and each job's fingerprint), joining the
// shards' files (`torch2onnx zoo merge`), and skipping what passed before (`zoo --resume`).
#pragma once

#include "apps/zoo.h"

#include <map>
#include <string>
#include <vector>

namespace torch2onnx::zoo {

// The program that verified a model: "torch2onnx 0.1.0, LibTorch 1.13.0, ONNX opsets 11-21
// (default 17); build 4b1c...; ONNX Runtime 1.20.1" (the build: the GNU build id of
// libtorch2onnx-cli.so, else the CRC-32 of its bytes). Two runs agree on it only when they run the
// same build against the same LibTorch and ONNX Runtime.
std::string binary_id();

// A job as --resume compares it: its command line without the paths it writes, each file it reads
// (the model, --input-data, libraries, plugins) as its size and CRC-32 instead of its path, and
// expect_fail. The same model file under another path or on another machine gives the same text.
std::string job_fingerprint(const Job &job, const std::string &out);

// A shard's run, for its --json (read back by `zoo merge` and `zoo --resume`).
struct RunInfo {
  std::string manifest;                            // as given
  int shard_index = 1, shard_count = 1;            // --shard I/N
  size_t manifest_jobs = 0;                        // jobs of the whole manifest
  std::vector<std::string> planned;                // this shard's jobs, in manifest order
  std::map<std::string, size_t> index;             // job name -> place in the manifest's jobs
  std::map<std::string, std::string> fingerprints; // job name -> job_fingerprint
  std::string binary;                              // binary_id()
  std::map<std::string, std::string> resumed;      // job name -> the file it was carried from
};

// The run's jobs: `jobs` are the shard's (select_jobs), in manifest order.
RunInfo describe_run(const std::string &manifest, const std::string &models_dir, int opset,
                     int shard_index, int shard_count, const std::vector<Job> &jobs,
                     const std::string &out);

// json_report with the run's fields: "manifest", "shard", "manifest_jobs", "planned", "binary"
// at the top; "index", "fingerprint", "binary", "timeout" and, for a carried result, "resumed_from"
// per model.
std::string shard_json(const std::vector<Result> &results, const RunInfo &info);

// --resume PREVIOUS.json: takes out of `jobs` each job that passed in PREVIOUS (a shard's or a
// merged file) with the same fingerprint and binary, and returns their results as PREVIOUS has
// them (the carried results; `info.resumed` names them). Throws Error when PREVIOUS cannot be read.
std::vector<Result> resume_from(const std::string &previous, std::vector<Job> &jobs, RunInfo &info);

// The results of this run and the carried ones together, in manifest order (info.index).
std::vector<Result> in_manifest_order(std::vector<Result> ran, std::vector<Result> carried,
                                      const RunInfo &info);

// One model of a results file, with the run's fields when the file has them.
struct StoredResult {
  Result result;
  long long index = -1; // place in the manifest's jobs; -1: not recorded
  std::string fingerprint, binary, resumed_from;
};

// A results file: a shard's --json, a merged one, or an older file without the run's fields.
struct StoredRun {
  std::string path;
  std::string manifest;
  int shard_index = 0, shard_count = 0; // 0: not recorded (or a merged file)
  size_t manifest_jobs = 0;
  std::vector<std::string> planned;
  std::vector<StoredResult> models;
};

// Reads a results file; throws Error naming the file and what is wrong with it.
StoredRun read_results(const std::string &path);

// `torch2onnx zoo merge RESULT.json...`; argv[0] is "merge".
int run_zoo_merge(int argc, char **argv);

} // namespace torch2onnx::zoo
