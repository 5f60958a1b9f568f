// The export command: parses flags, checks the command line, calls the library, prints one summary
// or one clear error, and writes --report. The single place that catches torch2onnx::Error.
#include "apps/export_cmd.h"

#include "apps/progress_line.h"
#include "apps/report.h"
#include "builder/error.h"
#include "builder/file_io.h"
#include "builder/functions.h"
#include "builder/printable.h"
#include "builder/process.h"
#include "exporter/export.h"
#include "exporter/output_files.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <unistd.h>

namespace fs = std::filesystem;

namespace torch2onnx {
namespace {

const char *kUsage =
    "Usage: torch2onnx MODEL.pt [-o OUT.onnx] [--input SPEC]... [--input-data FILE]... [--opset "
    "N]\n"
    "                  [--verify] [--locate] [--expected-outputs FILE] [--report FILE]\n"
    "                  [--converters LIB.so]...\n"
    "                  [--fallback-domain NAME]\n"
    "       torch2onnx ops [--opset N] [--json] [--converters LIB.so]...\n"
    "       torch2onnx show MODEL.onnx [--json]   (list any ONNX file, one line per node)\n"
    "       torch2onnx zoo MANIFEST [--jobs N] [--shard I/N] ...   (see torch2onnx zoo --help)\n"
    "       torch2onnx zoo merge RESULT.json... [--manifest M.yaml] ...   (shards' results as "
    "one)\n"
    "       torch2onnx --version\n";

const char *kExamples = R"(
Examples:
  torch2onnx resnet50.pt -o resnet50.onnx --input x:f32[1,3,224,224] --opset 17 --verify
  torch2onnx bert.pt --input ids:i64[2,128] --input mask:i64[2,128] --output-names logits
  torch2onnx detector.pt --load-library /path/to/torchvision/_C.so --input f32[1,3,320,320]
  torch2onnx model.pt --input x:f32[batch=1,16] --verify --report model.json
  torch2onnx gpt.pt --input-data ids.npy --verify            verify on your own token ids
  torch2onnx m.pt --input-data x.pt --expected-outputs y.pt   check against outputs from Python
  torch2onnx seg.pt --input x:f32[1,3,64,64] --input mask:none   an Optional argument as None
  torch2onnx ops --opset 13          list the converters available at opset 13
  torch2onnx m.pt --load-library libmylib_ops.so --converters libmylib_converters.so --verify
                                     a custom op with its converter plugin (docs/plugins.md)
  torch2onnx m.pt --fallback-domain org.example   ops without a converter as custom-domain nodes

Input SPEC: one per forward argument, in order; arguments left out take their defaults.
  [name:]dtype[dims]   a tensor. dtype: f32 f16 bf16 f64 i64 i32 i16 i8 u8 bool; dims: positive
                       integers, e.g. x:f32[1,3,224,224]
  name: the ONNX input name (default: the forward argument's name)
  symbolic dims: name=example, e.g. x:f32[batch=1,3,224,224] or ids:i64[batch=2,seq=128]; the same
  name in two inputs is the same dim; the ONNX graph keeps it symbolic (recorded at the example and
  at a second size to find every dim that depends on it).
  ...:LO..HI           random values in [LO, HI] instead of N(0,1) / 0..9, e.g. token ids below
                       the vocabulary size: ids:i64[1,128]:0..50256
  [SPEC,SPEC,...]      a List[Tensor] or tuple argument: one ONNX input per tensor (name_0, ...),
                       e.g. feats:[f32[1,64,32,32],f32[1,64,16,16]]; nested for a tuple of
                       tuples (a KV cache): past:[[f32[1,4,p=8,16],f32[1,4,p,16]],[...]] gives
                       past_0_0, past_0_1, past_1_0, ...
  {key:SPEC,...}       a Dict[str, Tensor] argument: one ONNX input per key (name_key), e.g.
                       batch:{image:f32[1,3,64,64],mask:bool[1,64]}
  none | 3 | 0.5 | true   None or a number, fixed as a constant in the ONNX model (an `if mask is
                       None` on it is resolved at export), e.g. --input mask:none
  i64[] | f32[] | bool[]  an int, float or bool argument as a 0-d ONNX input instead (a KV cache's
                       start_pos changes per call), e.g. --input start_pos:i64[]:0..100
  default              the argument's default (to give a later argument)

--input-data FILE gives example values instead of random ones: one .npy (or TensorProto .pb, as
--verify writes) per argument in order, or one .npz (arrays by argument name or in order) or
torch.save'd .pt (a tensor, a tuple/list in order, or a dict by name) for all. The data fixes
dtype and shape; an --input given with it only adds a name and symbolic dims and must agree.
The data is what the model is recorded at and the first verification set (test_data_set_0).

--verify runs the model in LibTorch and the exported file in ONNX Runtime on the same inputs
(the --input-data, or random ones, seeded), writes them beside the output as
<name>/test_data_set_N/{input,output}_K.pb (one set per size checked), prints the worst error per
output and fails when max|onnx - torch| > max(atol, rtol*max|torch|).

--expected-outputs FILE compares ONNX Runtime's outputs on the --input-data values with outputs
computed elsewhere, e.g. in Python from the same file (an oracle that shares no code with the
export): FILE is a torch.save'd tensor, tuple, list or dict (as forward returns them, e.g.
torch.save(torch.jit.load("m.pt").eval()(x), "y.pt")), an .npz (arrays named after the ONNX
outputs, or in order) or one .npy. Same tolerance as --verify (--rtol, --atol); fails (exit 1) when
an output is over it. It needs every input from --input-data and runs with or without --verify.

When an output is over tolerance, --verify also searches the first node whose ONNX value differs
from LibTorch's (the values of every node compared, in order) and prints it as "first diverging
node: ..." with its op, module scope, source line, error, both value ranges and the converter;
--locate runs that search even when every output passes.

--report FILE writes one document about the export, also when it fails or crashes: JSON
(docs/report.md lists the fields), or markdown when FILE ends in .md.

Files: everything is written into a private folder beside the output and moved into place only
when the export succeeded, so a failure leaves an earlier output as it was. No file written (-o,
OUT.data, the test data, --report) may be a file read (the model, --input-data, libraries,
plugins); files read must be regular files (not a FIFO, a pipe or a device). docs/security.md.

The model's weights are mapped from its file (copy-on-write), not read into new memory: the file
must not be rewritten or truncated while the export runs. TORCH2ONNX_LOAD=copy in the
environment loads them with LibTorch's own torch::jit::load instead (slower, same result).
TORCH2ONNX_ORT_DIR names the ONNX Runtime that --verify uses.

On a terminal, one updating stderr line shows the phase and how far it is (nodes converted, weight
bytes written, verification steps), erased before the results; not with -q, nor when stderr is
not a terminal.

Exit status: 0 success, 1 export or verification failed, 2 bad command line.
)";

// CLI11 prints its own "Usage:" line before the description; this replaces it by ours, so the
// help shows one usage block listing every form of the command.
class Formatter : public CLI::Formatter {
public:
  std::string make_usage(const CLI::App *, std::string) const override { return kUsage; }
};

struct Args {
  ExportOptions o;
  std::vector<std::string> specs;
  std::string report;
  bool verbose = false, quiet = false, timings = false;
  // The values of each valued setting's flag, in order (set_setting reads them once CLI11 is
  // done, so a bad value is one error like every other command-line mistake).
  std::map<std::string, std::vector<std::string>> settings;
  bool output_given = false; // -o, also when empty
};

// The settings' flags, from the settings table (include/torch2onnx/settings.h): a flag sets its
// bool to the opposite of the default; a valued flag takes one value per use.
void add_setting_flags(CLI::App &app, Args &a) {
  static const Settings defaults;
  for (const SettingField &f : setting_fields()) {
    if (const auto *m = std::get_if<bool Settings::*>(&f.member)) {
      const bool to = !(defaults.**m);
      app.add_flag_callback(
          f.flag, [&o = a.o, m = *m, to] { o.*m = to; }, f.help);
      continue;
    }
    std::string help = f.help, d = setting_text(defaults, f); // lists and texts: ""
    if (!d.empty())
      help += fmt::format(" (default {})", d);
    app.add_option(f.flag, a.settings[f.name], help)
        ->type_name(f.value)
        ->expected(1) // one value per use of the flag; a repeated flag gives each in turn
        ->take_all();
  }
}

// The valued settings' flags into the options; throws UsageError for a value of the wrong type.
void apply_setting_flags(Args &a) {
  for (const auto &[name, values] : a.settings)
    for (const auto &v : values)
      set_setting(a.o, *find_setting(name), v);
}

void add_flags(CLI::App &app, Args &a) {
  ExportOptions &o = a.o;
  app.add_option("model", o.model_path, "TorchScript file to convert, e.g. resnet50.pt")
      ->required();
  app.add_option("-o,--output", o.output_path,
                 "ONNX file to write (default: MODEL with .onnx), e.g. -o resnet50.onnx");
  app.add_option(
         "--input", a.specs,
         "one forward argument: [name:]dtype[dims], e.g. --input x:f32[1,3,224,224]; repeat "
         "per argument, in order (a list [SPEC,...], none, a number or default: see below)")
      ->take_all()
      // One value per --input: CLI11 would otherwise split a list spec "[f32[2],f32[3]]" itself.
      ->allow_extra_args(false);
  app.add_option("--input-data", o.input_data,
                 "example values from files: .npy or .pb per argument in order, or one .npz or "
                 ".pt for all; repeatable")
      ->take_all();
  app.add_option("--expected-outputs", o.expected_outputs,
                 "outputs computed elsewhere (e.g. Python) for the --input-data values: a .pt "
                 "(torch.save'd tensor, tuple, list or dict), .npz or .npy; ONNX Runtime's "
                 "outputs must match them (see below)");
  add_setting_flags(app, a);
  app.add_option("--report", a.report,
                 "write a report of the export to FILE, also when it fails or crashes: JSON, or "
                 "markdown for "
                 "a .md FILE (see docs/report.md)");
  app.add_flag("--timings", a.timings,
               "print the time of each phase (load, prepare, record, convert, optimize, "
               "serialize) and the rewrites applied, on stderr");
  app.add_flag("-v,--verbose", a.verbose, "print each step and warnings");
  app.add_flag("-q,--quiet", a.quiet, "print nothing on success");
  app.set_version_flag("--version", report::versions_text(), "print the versions and exit");
}

// The checks that need no model: everything here is a command-line mistake (exit 2).
void check_command_line(Args &a) {
  ExportOptions &o = a.o;
  apply_setting_flags(a);
  o.verify = o.verify || o.locate;
  for (const auto &s : a.specs)
    o.inputs.push_back(parse_input_spec(s));
  resolve_dim_names(o.inputs, !o.input_data.empty());
  o.validate();
  check_option_conflicts(o);
  // The settings that tune a comparison need one to tune.
  for (const SettingField &f : setting_fields())
    if (f.verification && !setting_is_default(o, f) && !o.verify && o.expected_outputs.empty())
      throw UsageError(fmt::format("{} is for --verify or --expected-outputs, and neither was "
                                   "given",
                                   f.flag),
                       "add --verify");
  if (!o.expected_outputs.empty() && o.input_data.empty())
    throw Error("--expected-outputs needs the inputs its outputs were computed from",
                "give them with --input-data (e.g. torch.save((x,), 'x.pt') in Python)");
  if (a.output_given && o.output_path.empty())
    throw Error("-o is empty", "give the ONNX file to write, e.g. -o model.onnx, or leave out -o "
                               "to write MODEL.onnx beside the model");
  std::string out = o.output_path.empty() ? default_output_path(o.model_path) : o.output_path;
  std::error_code ec;
  if (fs::is_directory(out, ec))
    throw Error(fmt::format("the output path '{}' is a directory", out),
                "give a file name with -o");
  // The test data goes in a folder named like the output without its extension; without one,
  // that folder would be the model file itself.
  if (o.verify && fs::path(out).extension().empty())
    throw Error(fmt::format("-o '{}' has no file extension, which --verify needs", out),
                "name the output like model.onnx: --verify writes its test data to the folder "
                "'model/' beside it");
  // No path written is a path read, and no two written paths are one (docs/security.md).
  std::vector<PathUse> writes = export_writes(o, out);
  if (!a.report.empty())
    writes.push_back({a.report, "--report", false});
  check_path_conflicts(export_reads(o), writes);
}

// Why the --report path cannot take the report (then none is written, not even of the failure).
std::optional<Error> report_path_problem(const Args &a, const std::string &out) {
  if (a.report.empty())
    return std::nullopt;
  std::error_code ec;
  if (fs::is_directory(a.report, ec))
    return Error(fmt::format("--report '{}' is a directory", a.report),
                 fmt::format("give a file name, e.g. --report {}",
                             (fs::path(a.report) / fs::path(out).stem()).string() + ".json"));
  fs::path dir = fs::path(a.report).has_parent_path() ? fs::path(a.report).parent_path() : ".";
  if (!fs::is_directory(dir, ec))
    return Error(
        fmt::format("--report '{}': the folder '{}' does not exist", a.report, dir.string()),
        "create it first, or give another --report path");
  if (::access(dir.c_str(), W_OK) != 0)
    return Error(fmt::format("--report '{}': the folder '{}' is not writable ({})", a.report,
                             dir.string(), std::strerror(errno)),
                 "give a --report path in a folder you can write to");
  const PathUse report{a.report, "--report", false};
  std::vector<PathUse> writes = export_writes(a.o, out);
  writes.push_back(report);
  try {
    check_path_conflicts(export_reads(a.o), {report});
    check_path_conflicts({}, writes);
  } catch (const Error &e) {
    return e;
  }
  return std::nullopt;
}

// Messages quote names from files (tensor names, dict keys, LibTorch's text of the model's code):
// what reaches the terminal is escaped (builder/printable.h); the message's own line breaks stay.
void print_error(const std::string &message, const std::string &hint) {
  fmt::print(stderr, "torch2onnx: error: {}\n", printable(message, /*keep_newlines=*/true));
  if (!hint.empty())
    fmt::print(stderr, "  hint: {}\n", printable(hint, true));
}

// The first line of an exception's text: LibTorch's c10::Error carries a backtrace after it.
std::string first_line(const std::string &what) {
  std::string line = what.substr(0, what.find('\n'));
  return line.empty() ? what : line;
}

void print_details(const ExportReport &r, const Args &a) {
  if (a.o.verbosity >= 1)
    for (const auto &w : r.notices)
      fmt::print(stderr, "torch2onnx: warning: {}\n", printable(w, true));
  if (a.o.verbosity >= 2)
    for (const auto &w : r.warnings)
      fmt::print(stderr, "torch2onnx: warning: {}\n", printable(w, true));
  if (!a.timings && a.o.verbosity < 2)
    return;
  std::vector<std::string> times;
  for (Phase p : kTimedPhases)
    times.push_back(fmt::format("{} {:.3f} s", phase_name(p), r.phases.of(p)));
  fmt::print(stderr, "torch2onnx: phases: {}\n", fmt::join(times, ", "));
  std::vector<std::string> applied;
  for (const auto &[rule, n] : r.optimized.applied)
    applied.push_back(fmt::format("{} {}", rule, n));
  fmt::print(stderr, "torch2onnx: rewrites: {} -> {} nodes{}{}\n", r.optimized.nodes_before,
             r.optimized.nodes_after, applied.empty() ? "" : ": ", fmt::join(applied, ", "));
}

// "X/test_data_set_0" for one set, "X/test_data_set_0..2 (3 sets)" for three.
std::string test_data_text(const VerifyReport &v) {
  size_t sets = 1;
  for (size_t i = 1; i < v.outputs.size(); ++i)
    sets += v.outputs[i].sizes != v.outputs[i - 1].sizes;
  if (sets == 1)
    return v.test_data_dir;
  return fmt::format("{}/test_data_set_0..{} ({} sets)",
                     fs::path(v.test_data_dir).parent_path().string(), sets - 1, sets);
}

// Prints the verification lines; returns the exit status.
int print_verify(const ExportReport &r, const ExportOptions &o) {
  const auto &v = *r.verify;
  if (r.divergence && (!v.ok() || o.verbosity >= 1))
    fmt::print(stderr, "{}\n", printable(report::divergence_line(*r.divergence)));
  for (const auto &c : v.outputs) {
    if (o.verbosity < 1 && c.ok())
      continue;
    std::string at = c.sizes.empty() ? "" : " [" + c.sizes + "]";
    if (!c.problem.empty())
      fmt::print("  verify {}{}: FAIL: {}\n", printable(c.name), at, printable(c.problem));
    else
      fmt::print("  verify {}{}: max abs error {:.3g}, max rel error {:.3g} (max |torch| {:.3g}, "
                 "tolerance {:.3g}) {}\n",
                 printable(c.name), at, c.max_abs_error, c.max_rel_error, c.max_abs_ref,
                 c.tolerance, c.ok() ? "ok" : "FAIL");
    if (c.problem.empty() && c.step > 0)
      fmt::print("    quantized output (step {:.3g}): {} of {} values more than one step apart\n",
                 c.step, c.beyond_one_step, c.values);
  }
  for (const auto &c : v.outputs)
    if (!c.note.empty())
      fmt::print("  verify {}{}: note: {}\n", printable(c.name),
                 c.sizes.empty() ? "" : " [" + c.sizes + "]", printable(c.note));
  if (!v.ok()) {
    fmt::print(stderr,
               "torch2onnx: error: verification failed: ONNX Runtime's outputs differ from "
               "LibTorch's (model kept at {}, test data in {})\n",
               printable(r.output_path), printable(test_data_text(v)));
    return 1;
  }
  if (o.verbosity >= 1)
    fmt::print("  verified in ONNX Runtime ({:.2f} s); test data in {}\n", v.seconds,
               printable(test_data_text(v)));
  return 0;
}

// Prints the --expected-outputs lines; returns the exit status.
int print_expected(const ExportReport &r, const ExportOptions &o) {
  const auto &e = *r.expected;
  for (const auto &c : e.outputs) {
    if (o.verbosity < 1 && c.ok())
      continue;
    if (!c.problem.empty())
      fmt::print("  expected {}: FAIL: {}\n", c.name, c.problem);
    else
      fmt::print(
          "  expected {}: max abs error {:.3g}, max rel error {:.3g} (max |expected| {:.3g}, "
          "tolerance {:.3g}) {}\n",
          c.name, c.max_abs_error, c.max_rel_error, c.max_abs_ref, c.tolerance,
          c.ok() ? "ok" : "FAIL");
    if (c.problem.empty() && c.step > 0)
      fmt::print("    quantized output (step {:.3g}): {} of {} values more than one step apart\n",
                 c.step, c.beyond_one_step, c.values);
  }
  for (const auto &c : e.outputs)
    if (!c.note.empty())
      fmt::print("  expected {}: note: {}\n", c.name, c.note);
  if (!e.ok()) {
    fmt::print(stderr,
               "torch2onnx: error: ONNX Runtime's outputs differ from the expected outputs in {} "
               "(model kept at {})\n",
               e.file, r.output_path);
    return 1;
  }
  if (o.verbosity >= 1)
    fmt::print("  matches the expected outputs in {} ({:.2f} s)\n", e.file, e.seconds);
  return 0;
}

int print_result(const ExportReport &r, const Args &a) {
  print_details(r, a);
  if (a.o.verbosity >= 1)
    fmt::print("{}: opset {}, {} nodes, {} parameters ({}), {:.2f} s\n", printable(r.output_path),
               r.opset, r.stats.nodes, report::human_count(static_cast<double>(r.stats.parameters)),
               report::human_bytes(static_cast<double>(r.stats.parameter_bytes)), r.seconds);
  if (a.o.verbosity >= 1)
    for (const auto &f : r.functions)
      fmt::print("  function {}.{} ({}): {} call{}, {} nodes, {} inputs ({} weights)\n",
                 kFunctionDomain, f.name, f.module_type, f.calls.size(),
                 f.calls.size() == 1 ? "" : "s", f.nodes, f.activation_inputs + f.weight_inputs,
                 f.weight_inputs);
  int rc = r.verify ? print_verify(r, a.o) : 0;
  int rc_expected = r.expected ? print_expected(r, a.o) : 0;
  return std::max(rc, rc_expected);
}

// Runs the export; fills `result` or `failure` and returns the exit status.
int export_and_print(const Args &a, const std::string &out, std::optional<ExportReport> &result,
                     report::Failure &failure, ExportReport &partial) {
  const ExportOptions &o = a.o;
  auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  // On a terminal, one updating stderr line says what the export is doing (not with -q).
  ProgressLine line(o.verbosity >= 1);
  ExportOptions with_progress = o;
  Phase last_phase = Phase::None;
  std::string last_step;
  if (line.active())
    with_progress.progress = [&](const Progress &p) {
      // A new phase or verification step shows at once; counts at most 10 times a second.
      line.show(progress_text(p, elapsed()), p.phase != last_phase || p.step != last_step);
      last_phase = p.phase;
      last_step = p.step;
    };
  LogFn log = [&](const std::string &m) {
    if (o.verbosity < 2)
      return;
    line.clear();
    fmt::print(stderr, "torch2onnx: [{:6.2f} s] {}\n", elapsed(), m);
  };
  // A failed export leaves nothing behind and the earlier output as it was: the library moves its
  // files into place only when it succeeds (exporter/output_files.h).
  // The phase a failure happened in: the export's own record of it (builder/phase.h), not its
  // messages; empty when it failed before the first phase (the options).
  auto phase_now = [] { return std::string(phase_name(current_export_phase())); };
  try {
    result = export_model(with_progress, log, &partial);
    line.clear();
    return print_result(*result, a);
  } catch (const UsageError &e) {
    failure = {"usage", e.what(), e.hint(), phase_now(), e.node()};
  } catch (const Error &e) {
    failure = {"export", e.what(), e.hint(), phase_now(), e.node()};
  } catch (const std::exception &e) {
    // LibTorch's errors (c10::Error) carry a backtrace after their first line: not for users.
    failure = {"internal", first_line(e.what()), "", phase_now(), std::nullopt};
  } catch (...) {
    // `throw 42` in a converter plugin or a custom-op library: still one error, not terminate.
    failure = {"internal",
               "an exception that is not a std::exception was thrown (by a converter plugin or a "
               "custom-op library?)",
               "", phase_now(), std::nullopt};
  }
  line.clear();
  // LibTorch 1.13 reports a failed allocation as a c10::Error whose only mark is its text
  // ("DefaultCPUAllocator: can't allocate memory"; no exception type of its own): that text is
  // the one message read here, to say "out of memory" with a hint instead of an internal error.
  if (is_out_of_memory(failure.message) && failure.message.rfind("out of memory", 0) != 0) {
    const std::string &phase = failure.phase;
    Error oom = out_of_memory(phase.empty() ? "exporting" : "in phase '" + phase + "'");
    failure = {"export", fmt::format("{} ({})", oom.what(), first_line(failure.message)),
               oom.hint(), phase, std::nullopt};
  }
  if (failure.kind == "internal")
    fmt::print(stderr, "torch2onnx: internal error: {}\n", printable(failure.message, true));
  else
    print_error(failure.message, failure.hint);
  return failure.kind == "usage" ? 2 : 1;
}

void write_report(const Args &a, const std::string &out, const ExportReport *result,
                  const report::Failure *failure, double seconds, int &exit_code,
                  const ExportReport *partial = nullptr) {
  if (a.report.empty())
    return;
  report::Inputs in;
  in.options = &a.o;
  in.result = result;
  in.failure = failure;
  in.partial = partial;
  in.output_path = out;
  in.seconds = seconds;
  in.exit_code = exit_code;
  try {
    report::write(a.report, report::build(in));
  } catch (const Error &e) {
    print_error(e.what(), e.hint());
    if (exit_code == 0)
      exit_code = 1;
  } catch (const std::exception &e) {
    print_error(e.what(), "");
    if (exit_code == 0)
      exit_code = 1;
  }
  set_crash_report("", "", false); // the report of this run is written
}

// The report the crash handler writes if the process crashes from here on: a failure of kind
// "crash" whose message it completes with the signal and the step (builder/process.h).
void arm_crash_report(const Args &a, const std::string &out) {
  if (a.report.empty())
    return;
  report::Failure f{"crash", fmt::format("{} while {}", kCrashEvent, kCrashPhase),
                    "no output file was written or changed; please report it with the command "
                    "and the model",
                    ""};
  report::Inputs in;
  in.options = &a.o;
  in.failure = &f;
  in.output_path = out;
  in.exit_code = 1;
  try {
    set_crash_report(a.report, report::text(a.report, report::build(in)),
                     !report::is_markdown(a.report));
  } catch (const std::exception &) {
    // No crash report then; the normal one is still written.
  }
}

} // namespace

int run_export(int argc, char **argv) {
  auto t0 = std::chrono::steady_clock::now();
  CLI::App app{
      "torch2onnx: convert a TorchScript model (torch.jit.trace/script + save) to ONNX and "
      "prove it computes what PyTorch computes."};
  app.formatter(std::make_shared<Formatter>());
  app.footer(kExamples);
  Args a;
  add_flags(app, a);
  try {
    app.parse(argc, argv);
    if (a.verbose && a.quiet)
      throw CLI::ValidationError("-v/--verbose and -q/--quiet", "choose one");
  } catch (const CLI::ParseError &e) {
    if (e.get_exit_code() == 0)
      return app.exit(e); // --help, --version
    // Same form as every other error: one line naming the flag, one hint.
    print_error(e.what(), "see torch2onnx --help");
    return 2;
  }
  a.o.verbosity = a.quiet ? 0 : a.verbose ? 2 : 1;
  a.output_given = app.count("--output") > 0;
  a.o.verify = a.o.verify || a.o.locate;
  std::string out = a.o.output_path.empty() ? default_output_path(a.o.model_path) : a.o.output_path;
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  int rc = 0;
  if (auto bad = report_path_problem(a, out)) {
    print_error(bad->what(), bad->hint());
    return 2;
  }
  try {
    check_command_line(a);
  } catch (const Error &e) {
    print_error(e.what(), e.hint());
    report::Failure f{"usage", e.what(), e.hint(), ""};
    rc = 2;
    write_report(a, out, nullptr, &f, seconds(), rc);
    return rc;
  }
  std::optional<ExportReport> result;
  report::Failure failure;
  ExportReport partial;
  arm_crash_report(a, out);
  rc = export_and_print(a, out, result, failure, partial);
  write_report(a, out, result ? &*result : nullptr, result ? nullptr : &failure, seconds(), rc,
               &partial);
  return rc;
}

} // namespace torch2onnx
