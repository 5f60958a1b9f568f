#include "exporter/export.h"

#include "aten_lib/converter.h"
#include "aten_lib/plugins.h"
#include "builder/float16.h"
#include "builder/process.h"
#include "builder/progress.h"
#include "builder/provenance.h"
#include "builder/quantize_bias.h"
#include "exporter/analysis/graph_inputs.h"
#include "exporter/core/tensor_util.h"
#include "exporter/export_module.h"
#include "exporter/forward_args.h"
#include "exporter/frontend/input_data.h"
#include "exporter/frontend/torchscript/bind_inputs.h"
#include "exporter/frontend/torchscript/loader.h"
#include "exporter/frontend/torchscript/reference.h"
#include "exporter/frontend/torchscript/source_graph.h"
#include "exporter/locate.h"
#include "exporter/output_files.h"
#include "exporter/verify/expected.h"
#include "exporter/verify/verify.h"

#include <ATen/core/grad_mode.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <filesystem>
#include <set>
#include <sys/stat.h>

#ifndef T2O_VERSION
#define T2O_VERSION "0.1.0"
#endif

namespace torch2onnx {

namespace fs = std::filesystem;

namespace {

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void validate(const ExportOptions &o, const std::string &out) {
  o.validate();
  check_option_conflicts(o);
  std::error_code ec;
  if (fs::exists(o.model_path, ec) && fs::exists(out, ec) && fs::equivalent(o.model_path, out, ec))
    throw Error(fmt::format("the output path '{}' is the model file itself", out),
                "choose another -o path; torch2onnx never overwrites its input");
  fs::path dir = fs::path(out).has_parent_path() ? fs::path(out).parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec))
    throw Error(fmt::format("the output folder '{}' does not exist", dir.string()),
                "create it first or choose another -o path");
  if (fs::is_directory(out, ec))
    throw Error(fmt::format("the output path '{}' is a directory", out),
                "give a file name with -o");
  // Every file read is a regular file (a FIFO would block, a device never end; a missing one is
  // reported by its reader), and no path written is one of them (docs/security.md, "Files").
  auto present = [&](const std::string &p) {
    return !p.empty() && fs::exists(p, ec) && !fs::is_directory(p, ec);
  };
  if (present(o.model_path))
    check_regular_file(o.model_path, "model file");
  for (const auto &f : o.input_data)
    if (present(f))
      check_regular_file(f, "--input-data file");
  for (const auto &f : o.libraries)
    if (present(f))
      check_shared_library(f, "--load-library");
  for (const auto &f : o.converters)
    if (present(f))
      check_shared_library(f, "converter plugin");
  if (o.dtype == "bf16" && !o.expected_outputs.empty())
    throw UsageError("--dtype bf16 cannot be checked with --expected-outputs: ONNX Runtime's CPU "
                     "provider has no bfloat16 kernels for most ops",
                     "leave out --expected-outputs, or use --dtype f16");
  check_path_conflicts(export_reads(o), export_writes(o, out));
  if (o.verify)
    check_test_data_sets(out);
}

// --fallback-domain wrote these ops as custom-domain nodes: a notice that always shows, the
// report's list, and no verification (ONNX Runtime has no kernels for that domain).
void note_fallback(const Converted &c, const ExportOptions &o, ExportReport &r) {
  r.fallback_domain = o.fallback_domain;
  std::vector<std::string> names;
  for (const auto &u : c.fallback_ops) {
    r.fallback_ops.push_back(ExportReport::FallbackOp{u.op, u.uses, u.places});
    names.push_back(u.op);
  }
  r.notices.push_back(fmt::format(
      "{}\n  written as nodes of the custom domain '{}' (--fallback-domain): the ONNX file runs "
      "only where that domain is implemented",
      format_unsupported(c.fallback_ops, o.opset), o.fallback_domain));
  if (o.verify)
    throw Error(fmt::format("--verify cannot run this model in ONNX Runtime: {} {} written as "
                            "nodes of the custom domain '{}' (--fallback-domain), which ONNX "
                            "Runtime does not implement",
                            fmt::join(names, ", "), names.size() == 1 ? "is" : "are",
                            o.fallback_domain),
                "export without --verify, or convert those ops to ONNX with a converter plugin "
                "(--converters LIB.so, docs/plugins.md)");
}

std::vector<std::pair<std::string, int64_t>> sizes_of(const std::vector<SymbolSizes> &symbols,
                                                      bool alternate) {
  std::vector<std::pair<std::string, int64_t>> out;
  for (const auto &s : symbols)
    out.emplace_back(s.name, alternate ? s.alternate : s.example);
  return out;
}

std::string sizes_text(const std::vector<std::pair<std::string, int64_t>> &sizes) {
  std::vector<std::string> parts;
  for (const auto &[n, v] : sizes)
    parts.push_back(fmt::format("{}={}", n, v));
  return fmt::format("{}", fmt::join(parts, ","));
}

} // namespace

std::string default_output_path(const std::string &model_path) {
  fs::path p(model_path);
  return p.replace_extension(".onnx").string();
}

namespace {

// The module calls --functions asks for: module scope -> class name. Throws Error when a name is
// the class of no module the model runs, listing the classes it has.
std::map<std::string, std::string> function_instances(const SourceGraph &graph,
                                                      const std::vector<std::string> &types) {
  std::map<std::string, std::string> all = graph.module_types(), chosen;
  std::set<std::string> wanted(types.begin(), types.end()), present;
  for (const auto &[scope, type] : all) {
    present.insert(type);
    if (wanted.count(type))
      chosen.emplace(scope, type);
  }
  std::vector<std::string> missing;
  for (const auto &t : types)
    if (!present.count(t))
      missing.push_back(t);
  if (!missing.empty())
    throw Error(fmt::format("--functions {}: the model has no module of {} class; its module "
                            "classes are: {}",
                            fmt::join(missing, ","), missing.size() == 1 ? "this" : "these",
                            present.empty() ? std::string("none (forward calls no submodule)")
                                            : fmt::format("{}", fmt::join(present, ", "))),
                "give class names as Python spells them (type(module).__name__), e.g. "
                "--functions BasicBlock; the top-level module itself cannot be a function");
  return chosen;
}

// --dtype f16/bf16: the float32 graph made float16 (bfloat16), its float inputs declared as their
// --input specs say (builder/float16.h).
void convert_dtype(onnx::ModelProto &model, const ExportOptions &o, ExportReport &r) {
  FloatConversion fc;
  const DType low = o.dtype == "bf16" ? DType::BFloat16 : DType::Float16;
  fc.to = static_cast<int>(low);
  for (size_t k = 0; k < r.inputs.size() && k < r.input_names.size(); ++k)
    if (r.inputs[k].is_tensor() && r.inputs[k].dtype == low)
      fc.low_inputs.insert(r.input_names[k]);
  convert_float_type(model, fc);
}

// --quantized-bias int32: the quantized Convs' and Gemms' biases as int32
// (builder/quantize_bias.h), with a notice saying how many.
void write_int32_biases(onnx::ModelProto &model, ExportReport &r) {
  BiasQuantizationReport q = quantize_biases(model);
  std::string skipped =
      q.skipped ? fmt::format("; {} kept float (input not quantized per tensor, or no constant "
                              "float bias)",
                              q.skipped)
                : "";
  r.notices.push_back(
      fmt::format("--quantized-bias int32: {} bias{} of quantized Conv/Gemm written as int32{}",
                  q.biases, q.biases == 1 ? "" : "es", skipped));
}

// Writes the ONNX file (optimized unless --no-optimize; module calls made functions with
// --functions), filling the report's optimize and serialize times and its notice about external
// data.
void write_model(const Converted &c, const ExportOptions &o,
                 const std::map<std::string, std::string> &function_calls, const std::string &path,
                 ExportReport &r) {
  auto t = std::chrono::steady_clock::now();
  SerializeOptions so;
  so.producer_version = T2O_VERSION;
  so.external_data = o.external_data;
  GraphBuilder &b = *c.builder;
  progress_phase(Phase::Optimize);
  b.finish_graph(so);
  // The steps on the finished graph (GraphBuilder::rewrite). The rewrites run on the flat graph;
  // the calls are cut out of the rewritten graph, so function bodies are rewritten too.
  auto t_opt = std::chrono::steady_clock::now();
  if (o.optimize)
    b.rewrite([&](onnx::ModelProto &model) { r.optimized = optimize_model(model); });
  if (o.quantized_bias == "int32")
    b.rewrite([&](onnx::ModelProto &model) { write_int32_biases(model, r); });
  if (o.dtype != "f32")
    b.rewrite([&](onnx::ModelProto &model) { convert_dtype(model, o, r); });
  if (!function_calls.empty())
    b.rewrite(
        [&](onnx::ModelProto &model) { r.functions = extract_functions(model, function_calls); });
  if (o.optimize || !function_calls.empty() || o.dtype != "f32" || o.quantized_bias == "int32")
    r.phases.optimize = since(t_opt);
  if (b.save(path, so))
    r.notices.push_back(
        fmt::format("weights written to {}.data (ONNX external data){}; keep it beside the model",
                    r.output_path,
                    o.external_data ? "" : " because the model is over 2 GB, the protobuf limit"));
  r.phases.serialize = since(t) - r.phases.optimize;
}

// Checks the exporter dropped (a scripted `raise`) and branches fixed by the example values change
// what the model does: say so always, not only under -v.
void notice_changed_behaviour(const Converted &c, ExportReport &r) {
  // A branch chosen by the example's values (an if whose results ONNX cannot carry) is a notice.
  r.notices.insert(r.notices.end(), c.example_branches.begin(), c.example_branches.end());
  r.notices.insert(r.notices.end(), c.random_ops.begin(), c.random_ops.end());
  size_t n = c.dropped_raises.size();
  if (n == 0)
    return;
  const std::string &first = c.dropped_raises.front();
  r.notices.push_back(fmt::format(
      "{} check{} that raise{} an exception {} not in the ONNX model ({}{}): inputs the model "
      "would refuse give a result instead of an error",
      n, n == 1 ? "" : "s", n == 1 ? "s" : "", n == 1 ? "is" : "are", first, n > 1 ? ", ..." : ""));
}

struct FileId {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const FileId &o) const { return dev == o.dev && ino == o.ino; }
};

FileId file_id(const std::string &path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return {};
  return {st.st_dev, st.st_ino};
}

// --verify loads the file from disk: make sure it is still the one this process wrote.
void check_same_file(const std::string &path, const FileId &written) {
  if (file_id(path) == written)
    return;
  throw Error(fmt::format("'{}' was replaced or removed by another process while it was being "
                          "verified; the verdict would be about that file, not this export",
                          path),
              "give each export its own -o path when several run at once");
}

// Per output, its quantization step when it is quantized (compare_outputs), else 0.
std::vector<double> output_steps(const Converted &c) {
  std::vector<double> steps;
  for (const auto &info : c.output_infos)
    steps.push_back(info.quant ? info.quant->scale : 0.0);
  return steps;
}

// One run per data set: the example sizes, the second recording sizes and --verify-dims.
std::vector<VerifyRun> verify_runs(const ExportOptions &o, const ForwardCall &call,
                                   const GraphInputs &gi, const Converted &c, StagedOutput &staged,
                                   std::vector<at::Tensor> *example_outputs) {
  std::vector<std::vector<std::pair<std::string, int64_t>>> size_sets = {{}};
  if (!gi.symbols.empty())
    size_sets.push_back(sizes_of(gi.symbols, true));
  if (!o.verify_dims.empty())
    size_sets.push_back(o.verify_dims);
  std::vector<VerifyRun> runs;
  for (size_t k = 0; k < size_sets.size(); ++k) {
    VerifyRun run;
    run.onnx_path = staged.model_path();
    run.input_names = c.input_names;
    run.output_names = c.output_names;
    std::vector<at::Tensor> recorded;
    if (k == 0) {
      for (const auto &in : gi.example)
        recorded.push_back(in.toTensor());
    } else {
      recorded = flat_inputs_at(call, o.seed + 100 + k, size_sets[k]);
    }
    // x:f16 inputs with --dtype f16: ONNX Runtime gets them rounded to float16, LibTorch the same
    // values in float32 (record_low_inputs_in_f32).
    run.inputs = declared_inputs(call, recorded, run.source_inputs);
    run.torch_args = call.torch_args(run.source_inputs.empty() ? run.inputs : run.source_inputs);
    run.label = sizes_text(k == 0 ? sizes_of(gi.symbols, false) : size_sets[k]);
    run.test_data_dir = staged.test_data_dir(k); // moved to stem/test_data_set_k on success
    run.rtol = o.verify_rtol();
    run.atol = o.verify_atol();
    run.output_steps = output_steps(c);
    if (k == 0)
      run.onnxruntime_outputs = example_outputs;
    runs.push_back(std::move(run));
  }
  return runs;
}

// LibTorch's answers for each run. For a model file, a process of its own loads the file with
// LibTorch's own load: the reference never shares the tensors the export used.
std::vector<std::vector<at::Tensor>> libtorch_outputs(const LoadedModel &m, const ExportOptions &o,
                                                      const std::vector<VerifyRun> &runs,
                                                      const LogFn &log) {
  ReferenceModel reference;
  reference.path = m.source_path;
  reference.libraries = o.libraries;
  reference.module = m.module;
  reference.written_attributes = m.resolved_attributes;
  reference.written_attributes.insert(reference.written_attributes.end(),
                                      m.assigned_attributes.begin(), m.assigned_attributes.end());
  std::vector<std::vector<c10::IValue>> args;
  std::vector<std::string> labels;
  for (const auto &run : runs) {
    args.push_back(run.torch_args.empty()
                       ? std::vector<c10::IValue>(run.inputs.begin(), run.inputs.end())
                       : run.torch_args);
    labels.push_back(run.label);
  }
  if (log)
    log(m.source_path.empty()
            ? "verifying: running the model in LibTorch"
            : "verifying: running the model in LibTorch (its own process, LibTorch's own load)");
  progress_phase(Phase::Verify, ProgressUnit::Steps, 1 + runs.size());
  progress_step("LibTorch runs the model");
  return reference_outputs(reference, args, labels);
}

// --locate (or a failed verdict): searches the first node whose ONNX value differs, on the first
// of `sets`; a search that cannot run leaves a note instead of failing the export.
void locate_after_verify(const SourceGraph *source, const ExportOptions &o, const Converted &c,
                         const VerifyReport &v, const std::vector<LocateRun> &sets,
                         const LogFn &log, ExportReport &r) {
  if ((v.ok() && !o.locate) || sets.empty() || !source)
    return;
  if (log)
    log("locating the first node whose ONNX value differs from LibTorch's");
  progress_phase(Phase::Verify, ProgressUnit::None, 0, "locating the first diverging node");
  try {
    r.divergence = locate_divergence(*source, c.walked, c.walked_nodes, sets.front());
  } catch (const Error &e) {
    // The verdict stands without the search: say why it could not run instead of failing.
    r.divergence = Divergence();
    r.divergence->sizes = sets.front().label;
    r.divergence->note = fmt::format("the search could not run: {}", e.what());
  }
}

// Verifies the written file at the example sizes, the second recording sizes and --verify-dims,
// each a test-data set beside the output (test_data_set_N).
// `example_outputs` (may be null) receives ONNX Runtime's outputs at the example inputs.
VerifyReport verify_export(const LoadedModel &m, const SourceGraph *source, const ExportOptions &o,
                           const ForwardCall &call, const GraphInputs &gi, const Converted &c,
                           StagedOutput &staged, const LogFn &log, ExportReport &r,
                           std::vector<at::Tensor> *example_outputs) {
  const std::string &path = staged.model_path();
  auto tv = std::chrono::steady_clock::now();
  VerifyReport v;
  v.onnxruntime_version = onnxruntime_version();
  std::vector<VerifyRun> runs = verify_runs(o, call, gi, c, staged, example_outputs);
  v.test_data_dir = (fs::path(staged.final_test_data_folder()) / "test_data_set_0").string();
  std::vector<std::vector<at::Tensor>> torch_outputs = libtorch_outputs(m, o, runs, log);
  const FileId written = file_id(path);
  std::vector<LocateRun> sets; // per data set: what --locate would search on
  size_t failing = 0;
  for (size_t k = 0; k < runs.size(); ++k) {
    const VerifyRun &run = runs[k];
    progress_step(runs.size() == 1
                      ? std::string("ONNX Runtime runs the model")
                      : fmt::format("ONNX Runtime, data set {} of {}", k + 1, runs.size()));
    auto checks = verify_run(run, torch_outputs.at(k), log);
    check_same_file(path, written);
    bool ok = true;
    for (auto &ch : checks) {
      ok = ok && ch.ok();
      v.outputs.push_back(std::move(ch));
    }
    LocateRun lr{path,       c.input_names, c.output_names,  c.output_values,
                 run.inputs, run.label,     o.verify_rtol(), o.verify_atol()};
    lr.source_inputs = run.source_inputs;
    // The first failing set is searched (or the first set, with --locate).
    if (!ok && failing++ == 0)
      sets.insert(sets.begin(), lr);
    else
      sets.push_back(lr);
  }
  v.seconds = since(tv);
  locate_after_verify(source, o, c, v, sets, log, r);
  return v;
}

// --expected-outputs: the file's outputs, read before the export so a bad file fails it early.
// They belong to the example inputs, so every ONNX input must come from --input-data.
std::optional<ExpectedOutputs> read_expected(const ExportOptions &o, const ForwardCall &call) {
  if (o.expected_outputs.empty())
    return std::nullopt;
  for (size_t k = 0; k < call.flat_data.size(); ++k)
    if (!call.flat_data[k].defined())
      throw UsageError(fmt::format("--expected-outputs needs the example inputs the outputs were "
                                   "computed from, but input '{}' has no --input-data value",
                                   call.flat_specs[k].name),
                       "give every forward argument's value with --input-data");
  return read_expected_outputs(o.expected_outputs);
}

// Sets the running phase's time when the export fails inside it, so the report of a failed export
// says how long each step took until then.
class PhaseClock {
public:
  explicit PhaseClock(ExportReport &r) : r_(r), t_start_(now()), t_(t_start_) {}
  // Starts `slot` (the previous phase is done and holds its own time).
  void start(double *slot) {
    slot_ = slot;
    t_ = now();
  }
  void done() { slot_ = nullptr; }
  ~PhaseClock() {
    if (std::uncaught_exceptions() > exceptions_ && slot_) {
      *slot_ = since(t_);
      r_.seconds = since(t_start_);
    }
  }
  std::chrono::steady_clock::time_point begin() const { return t_start_; }

private:
  static std::chrono::steady_clock::time_point now() { return std::chrono::steady_clock::now(); }
  ExportReport &r_;
  std::chrono::steady_clock::time_point t_start_, t_;
  double *slot_ = nullptr;
  int exceptions_ = std::uncaught_exceptions();
};

// The op table of the report: how often each op was walked, and the ONNX ops named after it.
std::map<std::string, ExportReport::OpUse> op_table(const Converted &c) {
  std::map<std::string, ExportReport::OpUse> ops;
  for (const auto &[op, n] : c.op_counts)
    ops[op].count = n;
  for (const auto &[op, types] : onnx_ops_by_origin(c.builder->model()))
    ops[op].onnx = types;
  return ops;
}

} // namespace

namespace {

void write_and_verify(LoadedModel &m, const SourceGraph *source, const Converted &c,
                      const ExportOptions &o, const ForwardCall &call, const GraphInputs &gi,
                      const std::map<std::string, std::string> &function_calls,
                      const std::optional<ExpectedOutputs> &expected, StagedOutput &staged,
                      const LogFn &log, ExportReport &r, PhaseClock &clock);

// The load's times and notices in the report (module attributes freezing kept among them).
void note_loaded(const LoadedModel &m, ExportReport &r) {
  r.phases.load = m.load_seconds;
  r.phases.prepare = m.prepare_seconds;
  r.notices = m.warnings;
  if (!m.resolved_attributes.empty())
    r.notices.push_back(fmt::format(
        "forward reads module attribute{} {} that freezing kept (forward writes into {}, like a "
        "cache); the ONNX model starts from the saved value{} at every call",
        m.resolved_attributes.size() == 1 ? "" : "s", fmt::join(m.resolved_attributes, ", "),
        m.resolved_attributes.size() == 1 ? "it" : "them",
        m.resolved_attributes.size() == 1 ? "" : "s"));
}

// The export of a loaded (or in-memory) model into `r`, with example values per forward argument
// (from --input-data or the API's tensors; nullopt where random values are made).
void export_loaded(LoadedModel &m, const std::vector<std::optional<c10::IValue>> &data,
                   const ExportOptions &o, const Registry *registry, const LogFn &log,
                   ExportReport &r, PhaseClock &clock) {
  auto say = [&](const std::string &msg) {
    if (log)
      log(msg);
  };
  note_loaded(m, r);
  ForwardCall call = bind_forward({m.arg_names, m.arg_types, m.arg_defaults}, o.inputs, data);
  const std::vector<InputSpec> declared_specs = call.flat_specs; // x:f16 stays f16 in the report
  record_low_inputs_in_f32(call, o.dtype == "f16"    ? DType::Float16
                                 : o.dtype == "bf16" ? DType::BFloat16
                                                     : DType::Undefined);
  bind_graph_inputs(m.graph, call.bindings);
  // From here on the export sees the graph through the front-end seam (source_graph.h).
  std::unique_ptr<SourceGraph> source = std::make_unique<TorchScriptGraph>(std::move(m.graph));
  if (!call.constants.empty())
    r.warnings.push_back(fmt::format("forward's arguments fixed as constants in the ONNX model: {}",
                                     fmt::join(call.constants, ", ")));
  std::map<std::string, std::string> function_calls;
  if (!o.functions.empty())
    function_calls = function_instances(*source, o.functions);
  GraphInputs gi = graph_inputs(call, o.seed, o.verify_dims);
  std::optional<ExpectedOutputs> expected = read_expected(o, call);
  r.inputs = declared_specs;
  r.constants = call.constants;

  say("recording shapes on the example inputs and converting");
  set_phase("recording shapes (LibTorch runs the model) and converting");
  clock.start(&r.phases.convert); // recording and converting, when it fails
  Converted c = source->convert(gi, o.opset, o.output_names, registry);
  clock.done();
  if (!c.fallback_ops.empty())
    note_fallback(c, o, r);
  say(fmt::format("converted: {} ONNX nodes", c.builder->node_count()));
  r.phases.record = c.record_seconds;
  r.phases.convert = c.convert_seconds;
  r.input_names = c.input_names;
  r.output_names = c.output_names;
  r.output_infos = c.output_infos;
  r.warnings.insert(r.warnings.end(), c.warnings.begin(), c.warnings.end());
  notice_changed_behaviour(c, r);
  if (m.weight_warnings.valid()) {
    std::vector<std::string> nan = m.weight_warnings.get();
    r.notices.insert(r.notices.begin(), nan.begin(), nan.end());
  }
  // The weights now live in the ONNX graph; LibTorch's copies are not needed for writing it, nor
  // for --verify of a model file (its reference loads the file anew).
  if (!o.verify || !m.source_path.empty())
    m.module = torch::jit::Module();
  if (!o.verify)
    source.reset();

  if (m.check_weights)
    m.check_weights();
  if (m.recheck_weights)
    m.recheck_weights();
  say(fmt::format("writing {}", r.output_path));
  set_phase("writing the ONNX file");
  clock.start(&r.phases.serialize);
  // Written aside and moved into place only at the end: a failure from here on (also while
  // verifying) leaves the earlier output as it was.
  StagedOutput staged(r.output_path);
  try {
    write_and_verify(m, source.get(), c, o, call, gi, function_calls, expected, staged, log, r,
                     clock);
  } catch (const UsageError &) {
    throw;
  } catch (const Error &e) {
    // Said of the output's path, not of the private folder it was written in.
    if (e.node())
      throw Error(staged.public_text(e.what()), e.hint(), *e.node());
    throw Error(staged.public_text(e.what()), e.hint());
  }
  set_phase("moving the written files into place");
  staged.commit();
}

// Writes the ONNX file into `staged` and, with --verify, verifies it there (export_loaded).
void write_and_verify(LoadedModel &m, const SourceGraph *source, const Converted &c,
                      const ExportOptions &o, const ForwardCall &call, const GraphInputs &gi,
                      const std::map<std::string, std::string> &function_calls,
                      const std::optional<ExpectedOutputs> &expected, StagedOutput &staged,
                      const LogFn &log, ExportReport &r, PhaseClock &clock) {
  write_model(c, o, function_calls, staged.model_path(), r);
  clock.done();
  if (log)
    log("written");
  for (const auto &type : o.functions)
    if (std::none_of(r.functions.begin(), r.functions.end(),
                     [&](const LocalFunction &f) { return f.module_type == type; }))
      r.notices.push_back(
          fmt::format("--functions {}: no call of it is left in the ONNX graph (its "
                      "calls write no ONNX node, or sit inside another function)",
                      type));
  r.stats = c.builder->stats();
  r.ops = op_table(c);
  r.seconds = since(clock.begin());

  set_phase("verifying (LibTorch and ONNX Runtime run the model)");
  // With --expected-outputs, ONNX Runtime's outputs at the example (the --input-data) are
  // compared with the file's too: verification's run, or one of their own without --verify.
  std::optional<std::vector<at::Tensor>> ort_example;
  if (expected)
    ort_example.emplace();
  if (o.verify)
    r.verify = verify_export(m, source, o, call, gi, c, staged, log, r,
                             ort_example ? &*ort_example : nullptr);
  if (expected) {
    set_phase("checking --expected-outputs (ONNX Runtime runs the model)");
    if (log)
      log(fmt::format("checking ONNX Runtime's outputs against {}", o.expected_outputs));
    r.expected = check_expected_outputs(
        *expected, staged.model_path(), c.input_names, call.flat_data, c.output_names,
        o.verify_rtol(), o.verify_atol(), o.verify ? &*ort_example : nullptr, output_steps(c));
  }
}

// What both entry points do before they have a model: check the options against the output
// path, load the custom-op libraries and the converter plugins. Returns the registry to convert
// with when plugins or a fallback domain extend the default one (null: use o.registry).
std::unique_ptr<Registry> begin_export(const ExportOptions &o, const std::string &output_path,
                                       ExportReport &r) {
  r.output_path = output_path;
  r.opset = o.opset;
  validate(o, r.output_path);
  for (const auto &lib : o.libraries)
    load_op_library(lib);
  return registry_with_plugins(o.registry, o.converters, o.fallback_domain);
}

} // namespace

namespace {
// LibTorch's warnings (TORCH_WARN, e.g. "scatter_reduce() is in beta ...") raised on the thread
// of an export while it runs the model: once each into the report's notices, instead of glog
// lines on stderr. LibTorch has one process-wide handler, so one router (never destroyed, set
// once) sends each warning to the collector of its thread's export, or on to the handler that
// was there before (warnings of other threads, or outside an export).
class LibTorchWarnings;
thread_local LibTorchWarnings *t_collector = nullptr;

class WarningRouter : public c10::WarningHandler {
public:
  static void install() {
    static WarningRouter *router = [] {
      auto *w = new WarningRouter;
      w->previous_ = c10::Warning::get_warning_handler();
      c10::Warning::set_warning_handler(w);
      return w;
    }();
    (void)router;
  }
  void process(const c10::SourceLocation &where, const std::string &msg,
               const bool verbatim) override;

private:
  c10::WarningHandler *previous_ = nullptr;
};

class LibTorchWarnings {
public:
  explicit LibTorchWarnings(ExportReport &r) : r_(r), outer_(t_collector) {
    WarningRouter::install();
    t_collector = this;
  }
  ~LibTorchWarnings() { t_collector = outer_; }
  LibTorchWarnings(const LibTorchWarnings &) = delete;
  LibTorchWarnings &operator=(const LibTorchWarnings &) = delete;
  void add(const std::string &msg) {
    if (std::find(seen_.begin(), seen_.end(), msg) == seen_.end())
      seen_.push_back(msg);
  }
  // Into the report (before it is returned).
  void flush() {
    for (const auto &m : seen_)
      r_.notices.push_back(fmt::format("LibTorch warned while running the model: {}", m));
    seen_.clear();
  }

private:
  ExportReport &r_;
  LibTorchWarnings *outer_;
  std::vector<std::string> seen_;
};

void WarningRouter::process(const c10::SourceLocation &where, const std::string &msg,
                            const bool verbatim) {
  if (t_collector)
    t_collector->add(msg);
  else if (previous_)
    previous_->process(where, msg, verbatim);
}
} // namespace

ExportReport export_model(const ExportOptions &o, const LogFn &log, ExportReport *progress) {
  ExportReport local;
  ExportReport &r = progress ? *progress : local;
  r = ExportReport();
  LibTorchWarnings libtorch_warnings(r);
  ProgressScope shown(o.progress);
  progress_phase(Phase::None); // a failure in begin_export (the options) is in no phase
  PhaseClock clock(r);
  clock.start(&r.phases.load);
  auto registry =
      begin_export(o, o.output_path.empty() ? default_output_path(o.model_path) : o.output_path, r);
  progress_phase(Phase::Load);
  if (log)
    log(fmt::format("loading {}", o.model_path));
  set_phase("loading the model (LibTorch)");
  // The weights' checksums are checked on another thread while the model is recorded and
  // converted; a damaged weight is reported before anything is written, and explains a failure.
  LoadedModel m = load_model(o.model_path, /*defer_weight_check=*/true);
  clock.done();
  try {
    auto data = load_input_data(o.input_data, m.arg_names);
    export_loaded(m, data, o, registry ? registry.get() : o.registry, log, r, clock);
  } catch (...) {
    m.check_weights();
    throw;
  }
  libtorch_warnings.flush();
  return r;
}

DType example_dtype(const at::Tensor &t) {
  auto refuse = [&] {
    return Error(fmt::format("an example tensor has dtype {}, which ONNX inputs cannot take",
                             c10::toString(t.scalar_type())),
                 "give float, integer or bool tensors");
  };
  if (t.is_complex())
    throw refuse();
  try {
    return to_dtype(t.scalar_type());
  } catch (const Error &) {
    throw refuse();
  }
}

ExportReport export_module(const torch::jit::Module &module, const std::vector<c10::IValue> &args,
                           const ExportOptions &o, const LogFn &log) {
  ExportReport r;
  LibTorchWarnings libtorch_warnings(r);
  PhaseClock clock(r);
  ProgressScope shown(o.progress);
  progress_phase(Phase::None);
  T2O_CHECK(!o.output_path.empty(), "no output path given for the ONNX file");
  auto registry = begin_export(o, o.output_path, r);
  progress_phase(Phase::Prepare);
  set_phase("preparing the model (LibTorch)");
  // The export runs the module in eval mode (as torch.onnx.export does) and gives it back in the
  // mode it came in. Freezing works on a copy: the caller's weights are not touched.
  torch::jit::Module handle = module;
  struct TrainingFlag {
    torch::jit::Module &m;
    bool was;
    ~TrainingFlag() { m.train(was); }
  } flag{handle, handle.is_training()};
  clock.start(&r.phases.prepare);
  LoadedModel m = prepare_module(handle, o.model_path.empty() ? "<module>" : o.model_path);
  clock.done();
  T2O_CHECK(args.size() <= m.arg_names.size(),
            "{} example arguments given, but forward takes {} ({})", args.size(),
            m.arg_names.size(), fmt::join(m.arg_names, ", "));
  std::vector<std::optional<c10::IValue>> data(m.arg_names.size());
  for (size_t i = 0; i < args.size(); ++i)
    if (!args[i].isNone() || o.inputs.size() <= i)
      data[i] = args[i];
  export_loaded(m, data, o, registry ? registry.get() : o.registry, log, r, clock);
  libtorch_warnings.flush();
  return r;
}

} // namespace torch2onnx
