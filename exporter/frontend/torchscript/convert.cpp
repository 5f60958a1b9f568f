#include "exporter/frontend/torchscript/convert.h"

#include "aten_lib/converter.h"
#include "builder/progress.h"
#include "exporter/core/tensor_util.h"
#include "exporter/frontend/torchscript/record_graph.h"
#include "exporter/frontend/torchscript/walker.h"

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>
#include <chrono>

namespace torch2onnx {
namespace {

// Nodes the walker visits (those of nested blocks too), for the progress display.
uint64_t count_nodes(const torch::jit::Block *block) {
  uint64_t n = 0;
  for (const auto *node : block->nodes()) {
    ++n;
    for (const auto *b : node->blocks())
      n += count_nodes(b);
  }
  return n;
}

// Throws the list of ops with no converter at `opset`, unless --fallback-domain writes them as
// custom-domain nodes (then returned); complex operands never fall back: no custom op takes them.
std::vector<UnsupportedOp> check_supported(const Walker &walker, const torch::jit::Graph &graph,
                                           const Registry &registry, int opset) {
  auto unsupported = walker.find_unsupported(graph);
  bool complex = false;
  for (const auto &u : unsupported)
    complex = complex || u.complex;
  if (!unsupported.empty() && (registry.fallback_domain().empty() || complex))
    throw Error(format_unsupported(unsupported, opset),
                "see `torch2onnx ops` for what is supported; add converters with --converters "
                "LIB.so (docs/plugins.md), or write these ops as nodes of a custom domain with "
                "--fallback-domain NAME (docs/fallback.md); or file an issue with the op names");
  return unsupported;
}

} // namespace

Converted convert_graph(const std::shared_ptr<torch::jit::Graph> &graph,
                        const std::vector<c10::IValue> &example_inputs,
                        const std::vector<std::string> &input_names, int opset,
                        const std::vector<std::string> &output_names) {
  GraphInputs in;
  in.names = input_names;
  in.example = example_inputs;
  for (const auto &v : example_inputs) {
    T2O_CHECK(v.isTensor(), "only tensor inputs are supported");
    in.infos.push_back(info_of(v.toTensor()));
  }
  return convert_graph(graph, in, opset, output_names);
}

Converted convert_graph(const std::shared_ptr<torch::jit::Graph> &graph, const GraphInputs &inputs,
                        int opset, const std::vector<std::string> &output_names,
                        const Registry *custom_registry) {
  T2O_CHECK(opset >= kMinOpset && opset <= kMaxOpset, "opset {} is not supported",
            opset); // callers validate first; this guards library users
  T2O_CHECK(graph->inputs().size() == inputs.example.size(),
            "the graph has {} inputs but {} example inputs were given", graph->inputs().size(),
            inputs.example.size());
  at::NoGradGuard no_grad;
  Converted c;
  auto t0 = std::chrono::steady_clock::now();
  progress_phase(Phase::Record);
  c.record = record_graph(graph, inputs, c.warnings);
  auto t1 = std::chrono::steady_clock::now();
  c.record_seconds = std::chrono::duration<double>(t1 - t0).count();
  c.builder = std::make_unique<GraphBuilder>(opset);
  const Registry &registry = custom_registry ? *custom_registry : Registry::global();
  Walker walker(*c.builder, c.record, registry);
  walker.set_symbols(inputs.symbols);
  progress_phase(Phase::Convert, ProgressUnit::Nodes, count_nodes(graph->block()));
  c.fallback_ops = check_supported(walker, *graph, registry, opset); // --fallback-domain
  for (size_t i = 0; i < graph->inputs().size(); ++i) {
    const auto *v = graph->inputs()[i];
    T2O_CHECK(inputs.example[i].isTensor(),
              "graph input {} ('{}') is not a tensor; only tensor inputs are supported", i,
              inputs.names.at(i));
    Val in = c.builder->add_input(inputs.names.at(i), inputs.infos.at(i));
    c.record.infos[value_id(v)] = inputs.infos.at(i); // the declared (symbolic) dims win
    walker.bind_input(v, in);
    c.input_names.push_back(in.name);
  }
  walker.run(*graph);
  add_graph_outputs(walker.outputs(*graph), output_names, c);
  c.warnings.insert(c.warnings.end(), walker.warnings().begin(), walker.warnings().end());
  c.dropped_raises = walker.dropped_raises();
  c.example_branches = walker.example_branches();
  c.random_ops = walker.random_ops();
  c.op_counts = walker.op_counts();
  c.walked = walker.walked();
  c.walked_nodes = walker.walked_nodes();
  c.convert_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  return c;
}

} // namespace torch2onnx
