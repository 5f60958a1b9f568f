// `torch2onnx zoo`: batch export + verification of the models a YAML manifest lists, each in its
// own child process (a crash or hang is that model's failure, the batch goes on).
#pragma once

#include "torch2onnx/settings.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace torch2onnx::zoo {

// One (model, opset) pair to export and verify. A manifest entry with `opset: [14, 17]` gives
// two jobs, named `name@op14` and `name@op17`.
struct Job {
  std::string name;                // unique in the manifest
  std::string model;               // absolute or cwd-relative TorchScript path
  std::vector<std::string> inputs; // --input specs
  int opset = 17;
  // The manifest's settings (include/torch2onnx/settings.h: rtol, atol, load_library, converters,
  // output_names, functions, verify_dims, ...); its own opset is `opset`.
  Settings settings;
  std::vector<std::string> input_data; // --input-data files (relative ones: in model_dir)
  // --expected-outputs: the manifest's `expected_outputs`, or NAME.expected.pt beside the model
  // (with NAME.inputs.pt as the input data when the manifest gives none; find_oracle_files).
  std::string expected_outputs;
  std::string expect_fail; // non-empty: the reason this model is expected to fail
  double timeout = 900;    // seconds
  int line = 0;            // manifest line, for messages
  // The entry's first opset: zoo --check-copy-load checks the load once per entry (what is loaded
  // does not depend on the opset).
  bool first_opset = true;
};

struct Manifest {
  std::string path;
  std::string model_dir; // where relative model paths are resolved
  std::vector<Job> jobs;
};

// Fills the job's expected outputs and input data from the files models/make_zoo.py keeps beside
// the model (MODEL.expected.pt, MODEL.inputs.pt; MODEL is the path without ".pt") where the
// manifest names none. Expected outputs are used only with input data to go with them.
void find_oracle_files(Job &j);

// Parses a manifest (see docs/zoo.md for the format). `models_dir` (when non-empty) overrides the
// manifest's model_dir; `opset` (when > 0) replaces every entry's opsets. Throws Error with the
// file and line on any problem, including unknown keys (typos must not pass silently).
Manifest load_manifest(const std::string &path, const std::string &models_dir, int opset);

enum class Status { Pass, Fail, Crash, Timeout, ExpectedFail, UnexpectedPass };
const char *status_name(Status s);
// Fail, Crash and Timeout of a model not marked expect_fail.
bool is_unexpected_failure(Status s);

struct Result {
  Job job;
  Status status = Status::Fail;
  double seconds = 0;         // wall time of the child
  double export_seconds = -1; // from the report; -1 when the export did not finish
  long long nodes = -1;
  std::string params;            // as the CLI prints it, e.g. "11.69M"
  double worst_abs_error = -1;   // max over outputs of max |onnx - torch|
  double worst_error_ratio = -1; // max over outputs of error / tolerance (>1 fails)
  int outputs_checked = 0;
  // --expected-outputs (the child's report): whether it ran, and the worst error against the file
  // (-1 when there is no number: not checked, or only shape/count problems).
  bool expected_checked = false;
  double expected_abs_error = -1, expected_error_ratio = -1;
  // zoo --check-copy-load: "" (not checked), "identical", or why the check failed.
  std::string copy_load;
  double copy_seconds = 0; // the second export's wall time
  std::string
      first_error;  // the report's error (or first failing check), else the log's first error
  std::string note; // a warning about a pass, e.g. all reference outputs zero or NaN
  std::string log_path;
  int exit_code = -1; // -1 when killed by a signal
  int signal = 0;
};

// Reads a finished child's --report JSON (apps/report.h) into `r`: export time, nodes,
// parameters, the worst verification error and the error. False when there is no readable report
// (the child crashed, was killed, or could not start).
bool read_child_report(const std::string &path, Result &r);
// Without a report: the first error line of the child's log (e.g. "terminate called ...").
void parse_child_log(const std::string &text, Result &r);

// Writers for the results (in manifest order).
std::string junit_xml(const std::vector<Result> &results, const std::string &suite);
std::string markdown_table(const std::vector<Result> &results, const std::string &title);
// Extra fields for json_report (apps/zoo_results.h adds the run's): `model(i)` goes into model
// i's object, `top` into the document; each empty or starting with ", ".
struct JsonExtra {
  std::function<std::string(size_t)> model;
  std::string top;
};
std::string json_report(const std::vector<Result> &results, const JsonExtra &extra = {});

// The `zoo` subcommand; argv[0] is "zoo".
int run_zoo(int argc, char **argv);

} // namespace torch2onnx::zoo
