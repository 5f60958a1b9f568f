#include "exporter/export.h"

#include <chrono>
#include <ATen/core/grad_mode.h>

#include <filesystem>

#include "aten_lib/converter.h"
#include "exporter/loader.h"
#include "exporter/pipeline.h"
#include "exporter/verify.h"

#ifndef T2O_VERSION
#define T2O_VERSION "0.1.0"
#endif

namespace torch2onnx {

namespace fs = std::filesystem;

namespace {

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void validate(const ExportOptions& o, const std::string& out) {
  if (o.opset < kMinOpset || o.opset > kMaxOpset)
    throw Error(fmt::format("--opset {} is not supported", o.opset),
                fmt::format("choose an opset from {} to {}", kMinOpset, kMaxOpset));
  if (o.rtol < 0 || o.atol < 0) throw Error("--rtol and --atol must not be negative");
  std::error_code ec;
  if (fs::exists(o.model_path, ec) && fs::exists(out, ec) && fs::equivalent(o.model_path, out, ec))
    throw Error(fmt::format("the output path '{}' is the model file itself", out),
                "choose another -o path; torch2onnx never overwrites its input");
  fs::path dir = fs::path(out).has_parent_path() ? fs::path(out).parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec))
    throw Error(fmt::format("the output folder '{}' does not exist", dir.string()),
                "create it first or choose another -o path");
  if (fs::is_directory(out, ec))
    throw Error(fmt::format("the output path '{}' is a directory", out), "give a file name with -o");
  for (const auto& s : o.inputs)
    for (const auto& d : s.dims)
      if (!d.symbol.empty())
        throw Error(fmt::format("input '{}': symbolic dimension '{}' is not supported yet", s.str(),
                                d.symbol),
                    "give concrete sizes for now, e.g. x:f32[1,3,224,224]");
}

}  // namespace

std::string default_output_path(const std::string& model_path) {
  fs::path p(model_path);
  return p.replace_extension(".onnx").string();
}

ExportReport export_model(const ExportOptions& o, const LogFn& log) {
  auto say = [&](const std::string& m) {
    if (log) log(m);
  };
  auto t_start = std::chrono::steady_clock::now();
  ExportReport r;
  r.output_path = o.output_path.empty() ? default_output_path(o.model_path) : o.output_path;
  r.opset = o.opset;
  validate(o, r.output_path);

  for (const auto& lib : o.libraries) load_op_library(lib);
  auto t = std::chrono::steady_clock::now();
  say(fmt::format("loading {}", o.model_path));
  LoadedModel m = load_model(o.model_path);
  r.phases.load = since(t);

  if (o.inputs.size() != m.arg_names.size()) {
    throw Error(fmt::format("forward({}) takes {} input{} but {} --input spec{} given",
                            fmt::join(m.arg_names, ", "), m.arg_names.size(),
                            m.arg_names.size() == 1 ? "" : "s", o.inputs.size(),
                            o.inputs.size() == 1 ? " was" : "s were"),
                "give one --input SPEC per forward argument, in order, e.g. --input x:f32[1,3,224,224]");
  }
  std::vector<std::string> names;
  for (size_t i = 0; i < o.inputs.size(); ++i)
    names.push_back(o.inputs[i].name.empty() ? m.arg_names[i] : o.inputs[i].name);
  auto example = make_example_inputs(o.inputs, o.seed);
  std::vector<c10::IValue> ivals(example.begin(), example.end());

  t = std::chrono::steady_clock::now();
  say("recording shapes on the example inputs and converting");
  Converted c = convert_graph(m.graph, ivals, names, o.opset, o.output_names);
  say(fmt::format("converted: {} ONNX nodes", c.builder->node_count()));
  r.phases.convert = since(t);
  r.input_names = c.input_names;
  r.output_names = c.output_names;
  r.warnings = c.warnings;

  t = std::chrono::steady_clock::now();
  say(fmt::format("writing {}", r.output_path));
  SerializeOptions so;
  so.producer_version = T2O_VERSION;
  c.builder->save(r.output_path, so);
  r.phases.serialize = since(t);
  say("written");
  r.stats = c.builder->stats();
  r.seconds = since(t_start);

  if (o.verify) {
    auto tv = std::chrono::steady_clock::now();
    VerifyReport v;
    say("verifying: running the model in LibTorch");
    std::vector<at::Tensor> expected;
    try {
      at::NoGradGuard no_grad;
      std::vector<c10::IValue> fresh;  // the model may modify its inputs in place
      for (const auto& t : example) fresh.emplace_back(t.clone());
      expected = flatten_tensors(m.module.forward(fresh));
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      throw Error(fmt::format("the model failed in LibTorch: {}", e.what()));
    }
    fs::path stem = fs::path(r.output_path).replace_extension("");
    v.test_data_dir = (stem / "test_data_set_0").string();
    write_test_data(v.test_data_dir, c.input_names, example, c.output_names, expected);
    say("verifying: running the ONNX model in ONNX Runtime");
    auto actual = run_onnxruntime(r.output_path, c.input_names, example);
    v.outputs = compare_outputs(c.output_names, expected, actual, o.rtol, o.atol);
    if (actual.size() != expected.size()) {
      OutputCheck extra;
      extra.name = "(outputs)";
      extra.problem = fmt::format("LibTorch returned {} outputs, ONNX Runtime {}", expected.size(),
                                  actual.size());
      v.outputs.push_back(extra);
    }
    v.seconds = since(tv);
    r.verify = v;
  }
  return r;
}

}  // namespace torch2onnx
