// --locate: the first node whose ONNX value differs from LibTorch's. A temporary copy of the
// written model gets the value of every top-level node as an extra output; ONNX Runtime runs it
// once, the recorder runs the graph once keeping every value, and the values are compared in
// walk (topological) order with the tolerance of --verify.
#pragma once

#include "exporter/frontend/walker.h"
#include "exporter/verify/report.h"

#include <ATen/core/Tensor.h>
#include <memory>
#include <string>
#include <torch/csrc/jit/ir/ir.h>
#include <vector>

namespace torch2onnx {

struct LocateRun {
  std::string onnx_path; // the written model; the copy goes beside it (external data stays valid)
  std::vector<std::string> input_names, output_names; // the ONNX graph's
  std::vector<std::string> output_values;             // the values the outputs were made from
  std::vector<at::Tensor> inputs; // the ONNX inputs, which are also the graph's inputs
  std::string label;              // the data set's sizes, e.g. "batch=3"
  double rtol = 1e-4, atol = 1e-4;
};

// Values inside subgraphs are not compared; values the rewrites removed are skipped (counted in
// `skipped`). Throws Error when LibTorch or ONNX Runtime fails on the inputs.
Divergence locate_divergence(const std::shared_ptr<torch::jit::Graph> &graph,
                             const std::vector<WalkedValue> &walked, const LocateRun &run);

} // namespace torch2onnx
