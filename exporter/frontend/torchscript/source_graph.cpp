#include "exporter/frontend/torchscript/source_graph.h"

#include "exporter/frontend/torchscript/convert.h"
#include "exporter/frontend/torchscript/jit_util.h"
#include "exporter/frontend/torchscript/recorder.h"

#include <ATen/core/grad_mode.h>

namespace torch2onnx {

Converted TorchScriptGraph::convert(const GraphInputs &inputs, int opset,
                                    const std::vector<std::string> &output_names,
                                    const Registry *registry) const {
  return convert_graph(graph_, inputs, opset, output_names, registry);
}

ValueTensors TorchScriptGraph::values_on(const std::vector<at::Tensor> &inputs) const {
  ValueTensors values;
  at::NoGradGuard no_grad;
  std::vector<c10::IValue> ins(inputs.begin(), inputs.end());
  record_shapes(graph_, ins, nullptr, CountChange::None, &values);
  return values;
}

std::map<std::string, std::string> TorchScriptGraph::module_types() const {
  return torch2onnx::module_types(*graph_);
}

} // namespace torch2onnx
