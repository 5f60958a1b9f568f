// The public C++ API (include/torch2onnx/torch2onnx.h) over the exporter's own types.
#include "torch2onnx/torch2onnx.h"

#include "builder/error.h"
#include "exporter/export.h"
#include "exporter/export_module.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <set>

#ifndef T2O_VERSION
#define T2O_VERSION "0.1.0"
#endif

namespace torch2onnx {

namespace {

ExportOptions options_of(const ExportSettings &s, const std::string &output_path) {
  ExportOptions o;
  static_cast<Settings &>(o) = s;  // every shared setting, as given
  o.verify = o.verify || o.locate; // as the CLI: --locate implies --verify
  o.output_path = output_path;
  o.verbosity = s.log ? 2 : 0;
  return o;
}

// The --input spec of one example value: a tensor's dtype and sizes with the symbolic dims
// dynamic_dims gives under `key`, or a list / tuple of such (nested for a KV cache's tuple of
// (key, value) pairs), whose tensors are keyed `key`_j, `key`_j_k, or a Dict[str, Tensor], whose
// tensors are keyed `key`_<dict key>.
InputSpec spec_of(const c10::IValue &v, const std::string &key, const ExportSettings &s,
                  std::set<std::string> &used) {
  InputSpec spec;
  if (v.isGenericDict()) { // Dict[str, Tensor]: one input per key, `key`_<dict key>
    spec.kind = InputSpec::Kind::Dict;
    for (const auto &kv : v.toGenericDict()) {
      T2O_CHECK(kv.key().isString(), "example argument '{}' is a dict with a non-str key", key);
      const std::string k = kv.key().toStringRef();
      spec.elements.push_back(spec_of(kv.value(), key + "_" + k, s, used));
      spec.elements.back().name = k;
    }
    return spec;
  }
  if (v.isTuple() || v.isList()) {
    spec.kind = InputSpec::Kind::Sequence;
    auto elems = v.isTuple() ? v.toTupleRef().elements().vec() : v.toListRef().vec();
    for (size_t j = 0; j < elems.size(); ++j)
      spec.elements.push_back(spec_of(elems[j], fmt::format("{}_{}", key, j), s, used));
    return spec;
  }
  T2O_CHECK(v.isTensor(), "example argument '{}' is a {}, not a tensor or a tuple or list of them",
            key, v.tagKind());
  const at::Tensor &t = v.toTensor();
  T2O_CHECK(t.defined(), "example argument '{}' is an undefined tensor", key);
  spec.dtype = example_dtype(t);
  for (int64_t d : t.sizes())
    spec.dims.push_back(Dim{d, ""});
  auto it = s.dynamic_dims.find(key);
  if (it == s.dynamic_dims.end())
    return spec;
  used.insert(key);
  for (const auto &[axis, symbol] : it->second) {
    int64_t rank = static_cast<int64_t>(spec.dims.size());
    int64_t a = axis < 0 ? axis + rank : axis;
    T2O_CHECK(a >= 0 && a < rank, "dynamic_dims: input '{}' has {} dims, no dim {}", key, rank,
              axis);
    T2O_CHECK(!symbol.empty(), "dynamic_dims: dim {} of input '{}' has an empty name", axis, key);
    spec.dims[a].symbol = symbol;
  }
  return spec;
}

// One --input spec per example argument: the name (input_names), the dtype and sizes, and the
// symbolic dims of dynamic_dims. The values themselves are the example.
std::vector<InputSpec> specs_of(const std::vector<c10::IValue> &args, const ExportSettings &s,
                                const std::vector<std::string> &arg_names) {
  T2O_CHECK(s.input_names.empty() || s.input_names.size() == args.size(),
            "{} input names for {} example arguments", s.input_names.size(), args.size());
  std::set<std::string> used;
  std::vector<InputSpec> specs;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string name = s.input_names.empty() ? "" : s.input_names[i];
    const std::string key = !name.empty()          ? name
                            : i < arg_names.size() ? arg_names[i]
                                                   : fmt::format("input_{}", i);
    InputSpec spec = spec_of(args[i], key, s, used);
    spec.name = name;
    specs.push_back(std::move(spec));
  }
  for (const auto &[name, dims] : s.dynamic_dims)
    T2O_CHECK(used.count(name), "dynamic_dims names '{}', which is not an input (inputs: {})", name,
              fmt::join(s.input_names.empty() ? arg_names : s.input_names, ", "));
  return specs;
}

ExportResult result_of(const ExportReport &r) {
  ExportResult out;
  out.output_path = r.output_path;
  out.opset = r.opset;
  out.nodes = static_cast<int64_t>(r.stats.nodes);
  out.parameters = static_cast<int64_t>(r.stats.parameters);
  out.input_names = r.input_names;
  out.output_names = r.output_names;
  out.notices = r.notices;
  out.warnings = r.warnings;
  out.seconds = r.seconds;
  for (const auto &f : r.functions)
    out.functions.push_back(
        FunctionResult{f.name, f.module_type, f.calls, static_cast<int64_t>(f.nodes)});
  if (r.verify) {
    out.verified = true;
    out.verify_ok = true;
    for (const auto &c : r.verify->outputs) {
      OutputResult o;
      o.name = c.name;
      o.sizes = c.sizes;
      o.ok = c.ok();
      o.max_abs_error = c.max_abs_error;
      o.tolerance = c.tolerance;
      o.problem = c.problem;
      out.verify_ok = out.verify_ok && o.ok;
      out.outputs.push_back(std::move(o));
    }
  }
  return out;
}

std::vector<std::string> forward_arg_names(const torch::jit::Module &module) {
  std::vector<std::string> names;
  auto method = module.find_method("forward");
  if (!method)
    return names;
  const auto &args = method->function().getSchema().arguments();
  for (size_t i = 1; i < args.size(); ++i)
    names.push_back(args[i].name());
  return names;
}

} // namespace

ExportResult export_module(const torch::jit::Module &module, const std::vector<at::Tensor> &args,
                           const std::string &output_path, const ExportSettings &settings) {
  return export_module_values(module, std::vector<c10::IValue>(args.begin(), args.end()),
                              output_path, settings);
}

ExportResult export_module_values(const torch::jit::Module &module,
                                  const std::vector<c10::IValue> &args,
                                  const std::string &output_path, const ExportSettings &settings) {
  ExportOptions o = options_of(settings, output_path);
  o.inputs = specs_of(args, settings, forward_arg_names(module));
  return result_of(torch2onnx::export_module(module, args, o, settings.log));
}

ExportResult export_file(const std::string &model_path, const std::string &output_path,
                         const std::vector<std::string> &input_specs,
                         const ExportSettings &settings) {
  T2O_CHECK(settings.input_names.empty() && settings.dynamic_dims.empty(),
            "export_file takes input names and symbolic dims from the input specs "
            "(\"x:f32[batch=1,3,224,224]\"), not from input_names or dynamic_dims");
  ExportOptions o = options_of(settings, output_path);
  o.model_path = model_path;
  for (const auto &spec : input_specs)
    o.inputs.push_back(parse_input_spec(spec));
  resolve_dim_names(o.inputs);
  return result_of(export_model(o, settings.log));
}

std::string version() {
  return T2O_VERSION;
}

} // namespace torch2onnx
