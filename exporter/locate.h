// --locate: the first node whose ONNX value differs from LibTorch's. A temporary copy of the
// written model gets the value of every top-level node as an extra output; ONNX Runtime runs it
// once, the front end computes every value once (SourceGraph::values_on), and the values are
// compared in walk (topological) order with the tolerance of --verify.
#pragma once

#include "exporter/core/records.h"
#include "exporter/frontend/source_graph.h"
#include "exporter/verify/report.h"

#include <ATen/core/Tensor.h>
#include <string>
#include <vector>

namespace torch2onnx {

struct LocateRun {
  std::string onnx_path; // the written model; the copy goes beside it (external data stays valid)
  std::vector<std::string> input_names, output_names; // the ONNX graph's
  std::vector<std::string> output_values;             // the values the outputs were made from
  std::vector<at::Tensor> inputs; // the ONNX inputs, which are also the graph's inputs
  std::string label;              // the data set's sizes, e.g. "batch=3"
  double rtol = 1e-4, atol = 1e-4;
  // The graph's inputs when they differ from the ONNX inputs' dtypes (VerifyRun::source_inputs;
  // empty: `inputs`).
  std::vector<at::Tensor> source_inputs;
};

// Values inside subgraphs are not compared; values the rewrites removed are skipped (counted in
// `skipped`). Throws Error when LibTorch or ONNX Runtime fails on the inputs.
// `graph` gives the source framework's values (SourceGraph::values_on), `walked` and `nodes` the
// ONNX values they became (Converted::walked, walked_nodes).
Divergence locate_divergence(const SourceGraph &graph, const std::vector<WalkedValue> &walked,
                             const std::vector<WalkedNode> &nodes, const LocateRun &run);

} // namespace torch2onnx
