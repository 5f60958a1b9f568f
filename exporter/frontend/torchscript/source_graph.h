// The TorchScript front end behind the seam (exporter/frontend/source_graph.h): a prepared
// torch::jit graph (loader.h) with its inputs fixed (bind_inputs.h).
#pragma once

#include "exporter/frontend/source_graph.h"

#include <memory>
#include <torch/csrc/jit/ir/ir.h>

namespace torch2onnx {

class TorchScriptGraph : public SourceGraph {
public:
  explicit TorchScriptGraph(std::shared_ptr<torch::jit::Graph> graph) : graph_(std::move(graph)) {}

  Converted convert(const GraphInputs &inputs, int opset,
                    const std::vector<std::string> &output_names,
                    const Registry *registry) const override;
  ValueTensors values_on(const std::vector<at::Tensor> &inputs) const override;
  std::map<std::string, std::string> module_types() const override;

  const std::shared_ptr<torch::jit::Graph> &graph() const { return graph_; }

private:
  std::shared_ptr<torch::jit::Graph> graph_;
};

} // namespace torch2onnx
