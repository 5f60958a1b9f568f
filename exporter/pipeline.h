// The export steps after loading, shared by export_model and the converter tests (which start
// from TorchScript IR text instead of a file).
#pragma once

#include "builder/graph_builder.h"
#include "exporter/analysis/graph_inputs.h"
#include "exporter/frontend/recorder.h"
#include "exporter/frontend/walker.h"

#include <ATen/core/ivalue.h>
#include <memory>
#include <string>
#include <torch/csrc/jit/ir/ir.h>
#include <vector>

namespace torch2onnx {

struct Converted {
  std::unique_ptr<GraphBuilder> builder;
  ShapeRecord record; // includes LibTorch's outputs of the graph on the example inputs
  std::vector<std::string> input_names, output_names;
  std::vector<std::string> warnings;
  // The warnings that change what the model does (Walker::dropped_raises, example_branches).
  std::vector<std::string> dropped_raises, example_branches;
  std::vector<TensorInfo> output_infos;    // per output: dtype and dims (symbolic by name)
  std::vector<std::string> output_values;  // per output: the value it was made from
  std::map<std::string, size_t> op_counts; // how often each op was walked
  std::vector<WalkedValue> walked;         // top-level tensors and their ONNX values (--locate)
  double record_seconds = 0;               // running the graph in LibTorch to record shapes
  double convert_seconds = 0;              // walking the graph and building the ONNX nodes
  // Ops without a converter written as nodes of the registry's fallback domain (--fallback-domain).
  std::vector<UnsupportedOp> fallback_ops;
};

// Records shapes, checks every op has a converter, and converts. `input_names` names the graph's
// inputs (one per example input; their infos are the examples' static shapes); `output_names`
// may be empty (defaults "output", "output_N").
Converted convert_graph(const std::shared_ptr<torch::jit::Graph> &graph,
                        const std::vector<c10::IValue> &example_inputs,
                        const std::vector<std::string> &input_names, int opset,
                        const std::vector<std::string> &output_names);

// The same with declared inputs: symbolic dims are recorded at two sizes (see GraphInputs), and
// sizes the model baked in as constants are refused (exporter/analysis/baked_dims.h).
// `registry` (default Registry::global()) lets tests swap converters.
Converted convert_graph(const std::shared_ptr<torch::jit::Graph> &graph, const GraphInputs &inputs,
                        int opset, const std::vector<std::string> &output_names,
                        const Registry *registry = nullptr);

} // namespace torch2onnx
