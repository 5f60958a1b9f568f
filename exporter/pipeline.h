// The export steps after loading, shared by export_model and the converter tests (which start
// from TorchScript IR text instead of a file).
#pragma once

#include <ATen/core/ivalue.h>
#include <torch/csrc/jit/ir/ir.h>

#include <memory>
#include <string>
#include <vector>

#include "builder/graph_builder.h"
#include "exporter/recorder.h"

namespace torch2onnx {

struct Converted {
  std::unique_ptr<GraphBuilder> builder;
  ShapeRecord record;  // includes LibTorch's outputs of the graph on the example inputs
  std::vector<std::string> input_names, output_names;
  std::vector<std::string> warnings;
  double record_seconds = 0;   // running the graph in LibTorch to record shapes
  double convert_seconds = 0;  // walking the graph and building the ONNX nodes
};

// Records shapes, checks every op has a converter, and converts. `input_names` and `dims` name
// the graph's inputs (one each); `output_names` may be empty (defaults "output", "output_N").
Converted convert_graph(const std::shared_ptr<torch::jit::Graph>& graph,
                        const std::vector<c10::IValue>& example_inputs,
                        const std::vector<std::string>& input_names, int opset,
                        const std::vector<std::string>& output_names);

// The graph's inputs: names, declared infos (symbolic dims by name) and the example values the
// model is recorded at. `alternate` (empty when every dim is static) holds the same inputs with
// every symbolic dim at another size, so the recorder can tell which dims are dynamic.
struct GraphInputs {
  std::vector<std::string> names;
  std::vector<TensorInfo> infos;
  std::vector<c10::IValue> example, alternate;
  std::vector<SymbolSizes> symbols;
};

Converted convert_graph(const std::shared_ptr<torch::jit::Graph>& graph, const GraphInputs& inputs,
                        int opset, const std::vector<std::string>& output_names);

// Flattens tuples/lists of tensors (in order) into a list of tensors; scalars become 0-d tensors.
std::vector<at::Tensor> flatten_tensors(const c10::IValue& v);

}  // namespace torch2onnx
