#include "exporter/locate.h"

#include "builder/error.h"
#include "builder/process.h"
#include "exporter/core/tensor_util.h"
#include "exporter/verify/verify.h"

#include <ATen/ATen.h>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <onnx/onnx_pb.h>
#include <unistd.h>
#include <unordered_map>
#include <unordered_set>

namespace torch2onnx {

namespace fs = std::filesystem;

namespace {

onnx::ModelProto read_model(const std::string &path) {
  onnx::ModelProto m;
  std::ifstream f(path, std::ios::binary);
  T2O_CHECK(f && m.ParseFromIstream(&f), "--locate cannot read back '{}'", path);
  return m;
}

// The range of a tensor's finite values (0, 0 when it has none).
std::pair<double, double> finite_range(const at::Tensor &t) {
  at::Tensor d = (t.is_quantized() ? t.dequantize() : t.detach()).to(at::kDouble).flatten();
  d = d.masked_select(at::isfinite(d));
  if (d.numel() == 0)
    return {0, 0};
  return {d.min().item<double>(), d.max().item<double>()};
}

// The comparison of one intermediate value; nullopt when the two cannot be compared (another
// layout, e.g. a complex tensor carried as real pairs).
std::optional<OutputCheck> compare_value(const std::string &name, at::Tensor torch_value,
                                         const at::Tensor &onnx_value, const LocateRun &run) {
  if (torch_value.is_complex())
    return std::nullopt;
  double step = 0;                  // a quantized value: compared within its steps, as outputs are
  if (torch_value.is_quantized()) { // carried as its real values (docs/quantized.md)
    if (torch_value.qscheme() == at::kPerTensorAffine)
      step = torch_value.q_scale();
    torch_value = torch_value.dequantize();
  }
  if (torch_value.sizes() != onnx_value.sizes()) {
    if (torch_value.numel() != onnx_value.numel())
      return std::nullopt;
    torch_value = torch_value.reshape(onnx_value.sizes()); // a number as [1], ...
  }
  OutputCheck c =
      compare_outputs({name}, {torch_value}, {onnx_value}, run.rtol, run.atol, {step}).at(0);
  if (c.problem.rfind("dtype differs", 0) == 0)
    c.problem.clear(); // an intermediate may be carried in another dtype (i64 sizes, u8 masks)
  return c;
}

// Adds each walked value that still exists in `g` as an extra output; returns, per walked value,
// the ONNX value to compare ("" to skip).
std::vector<std::string> expose_walked_values(onnx::GraphProto &g,
                                              const std::vector<WalkedValue> &walked,
                                              const LocateRun &run) {
  std::unordered_set<std::string> produced, outputs;
  for (const auto &n : g.node())
    for (const auto &o : n.output())
      produced.insert(o);
  for (const auto &o : g.output())
    outputs.insert(o.name());
  std::unordered_map<std::string, const onnx::ValueInfoProto *> infos;
  for (const auto &vi : g.value_info())
    infos[vi.name()] = &vi;
  std::unordered_map<std::string, std::string> output_of; // a value the rewrites renamed
  for (size_t i = 0; i < run.output_values.size() && i < run.output_names.size(); ++i)
    output_of[run.output_values[i]] = run.output_names[i];
  std::vector<std::string> names;
  for (const auto &w : walked) {
    std::string name = produced.count(w.onnx) ? w.onnx : "";
    if (name.empty() && output_of.count(w.onnx))
      name = output_of[w.onnx];
    names.push_back(name);
    if (name.empty() || outputs.count(name))
      continue;
    auto *out = g.add_output();
    if (auto it = infos.find(name); it != infos.end())
      *out = *it->second;
    else
      out->set_name(name);
    outputs.insert(name);
  }
  return names;
}

// Runs `model` (the written one with extra outputs) in ONNX Runtime from a temporary copy beside
// the written file; returns its outputs by name.
std::unordered_map<std::string, at::Tensor> run_exposed_model(const onnx::ModelProto &model,
                                                              const LocateRun &run) {
  // Beside the model (its external data is found from there), with a short name: the model's
  // name may already be as long as a file name can be.
  static std::atomic<int> copies{0}; // threads of one process export at once (the Python API)
  std::string copy = (fs::path(run.onnx_path).parent_path() /
                      fmt::format(".locate{}-{}.tmp.onnx", ::getpid(), copies++))
                         .string();
  TempFileGuard remove_on_signal(copy, /*is_dir=*/false);
  struct Remove {
    std::string p;
    ~Remove() {
      std::error_code ec;
      fs::remove(p, ec);
    }
  } remove{copy};
  {
    std::ofstream f(copy, std::ios::binary);
    T2O_CHECK(f && model.SerializeToOstream(&f), "--locate cannot write '{}'", copy);
  }
  std::vector<at::Tensor> ort = run_onnxruntime(copy, run.input_names, run.inputs);
  const onnx::GraphProto &g = model.graph();
  std::unordered_map<std::string, at::Tensor> by_name;
  for (int i = 0; i < g.output_size() && i < static_cast<int>(ort.size()); ++i)
    by_name[g.output(i).name()] = ort[static_cast<size_t>(i)];
  return by_name;
}

// Fills `d` with the walked value `w` whose ONNX value `name` differs (`c`) from LibTorch's.
void record_divergence(Divergence &d, const WalkedValue &w, const WalkedNode &node,
                       const std::string &name, const OutputCheck &c, const at::Tensor &torch_value,
                       const at::Tensor &onnx_value) {
  d.found = true;
  d.index = w.index;
  d.op = node.op;
  d.scope = node.where.scope;
  d.source = node.where.source;
  if (const RegistryEntry *e = w.converter)
    d.converter = fmt::format("{} ({}, since opset {})", e->op, e->family, e->since_opset);
  d.onnx_value = name;
  d.check = c;
  std::tie(d.torch_min, d.torch_max) = finite_range(torch_value);
  std::tie(d.onnx_min, d.onnx_max) = finite_range(onnx_value);
}

} // namespace

Divergence locate_divergence(const SourceGraph &graph, const std::vector<WalkedValue> &walked,
                             const std::vector<WalkedNode> &nodes, const LocateRun &run) {
  auto t0 = std::chrono::steady_clock::now();
  Divergence d;
  d.sizes = run.label;
  ValueTensors torch_values =
      graph.values_on(run.source_inputs.empty() ? run.inputs : run.source_inputs);
  // ONNX: the written model with each walked value that still exists as an extra output.
  onnx::ModelProto model = read_model(run.onnx_path);
  std::vector<std::string> names = expose_walked_values(*model.mutable_graph(), walked, run);
  std::unordered_map<std::string, at::Tensor> by_name = run_exposed_model(model, run);
  for (size_t i = 0; i < walked.size(); ++i) {
    const WalkedValue &w = walked[i];
    auto tv = torch_values.find(w.value);
    auto ov = by_name.find(names[i]);
    std::optional<OutputCheck> c;
    if (!names[i].empty() && tv != torch_values.end() && ov != by_name.end())
      c = compare_value(names[i], tv->second, ov->second, run);
    if (!c) {
      ++d.skipped;
      continue;
    }
    ++d.compared;
    if (c->ok())
      continue;
    record_divergence(d, w, nodes.at(w.node), names[i], *c, tv->second, ov->second);
    break;
  }
  if (!d.found)
    d.note =
        fmt::format("every value compared is within tolerance ({} compared, {} not comparable: "
                    "inside subgraphs, removed by the rewrites or in another layout), so the "
                    "outputs differ through a value not compared, or through an in-place write "
                    "(x[...] += ..., .mul_() on a view, out=) that reached LibTorch's tensor and "
                    "not the export's; please report it with the model",
                    d.compared, d.skipped);
  d.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return d;
}

} // namespace torch2onnx
