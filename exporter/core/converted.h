// What converting a model's graph gives, whichever front end walked it: the ONNX graph being
// built, the shape record it was built from, names, warnings and the walked values --locate needs.
#pragma once

#include "builder/graph_builder.h"
#include "exporter/core/records.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace torch2onnx {

struct Converted {
  std::unique_ptr<GraphBuilder> builder;
  ShapeRecord record; // includes LibTorch's outputs of the graph on the example inputs
  std::vector<std::string> input_names, output_names;
  std::vector<std::string> warnings;
  // The warnings that change what the model does (Walker::dropped_raises, example_branches).
  std::vector<std::string> dropped_raises, example_branches;
  // Ops that draw random numbers, one notice each (the ONNX file draws its own).
  std::vector<std::string> random_ops;
  std::vector<TensorInfo> output_infos;    // per output: dtype and dims (symbolic by name)
  std::vector<std::string> output_values;  // per output: the value it was made from
  std::map<std::string, size_t> op_counts; // how often each op was walked
  std::vector<WalkedValue> walked;         // top-level tensors and their ONNX values (--locate)
  std::vector<WalkedNode> walked_nodes;    // the nodes they came from (WalkedValue::node)
  double record_seconds = 0;               // running the graph in LibTorch to record shapes
  double convert_seconds = 0;              // walking the graph and building the ONNX nodes
  // Ops without a converter written as nodes of the registry's fallback domain (--fallback-domain).
  std::vector<UnsupportedOp> fallback_ops;
};

// Adds the graph's outputs (`outs`: each ONNX value with a name hint, the dict key it came from
// or empty) to c.builder under `output_names`, or else default names: the hints when they are
// unique, else output / output_N; a name an input has gets _out. Fills c's output_* fields.
void add_graph_outputs(const std::vector<std::pair<Val, std::string>> &outs,
                       const std::vector<std::string> &output_names, Converted &c);

} // namespace torch2onnx
