// The seam between a front end and the rest of the export: what the export asks of a model's
// graph once its front end has loaded it and fixed its inputs. The TorchScript front end
// implements it (exporter/frontend/torchscript/source_graph.h); docs/architecture.md says how a
// torch.export front end would.
//
// Everything behind it is the front end's: how the graph is held, how shapes are found (a run of
// the model, or metadata the graph carries), how nodes reach the converters (aten_lib/dispatch.h
// call_converter with a NodeContext: op, overload, schema argument names, scope, source). What
// comes back is neutral (exporter/core/): a Converted with its ShapeRecord and walked values, by
// ValueId, which the export, --verify and --locate read without knowing the front end.
#pragma once

#include "aten_lib/converter.h"
#include "exporter/analysis/graph_inputs.h"
#include "exporter/core/converted.h"
#include "exporter/core/records.h"

#include <ATen/core/Tensor.h>
#include <map>
#include <string>
#include <vector>

namespace torch2onnx {

class SourceGraph {
public:
  virtual ~SourceGraph() = default;

  // Converts the graph to ONNX at `opset` on `inputs` (their example values, and their alternate
  // sizes for symbolic dims): records or reads each value's dtype and shape, reports every op
  // without a converter at once (Error), walks the graph through `registry` (nullptr: the global
  // one) and names the outputs `output_names` (empty: defaults). Throws Error naming the node
  // that failed.
  virtual Converted convert(const GraphInputs &inputs, int opset,
                            const std::vector<std::string> &output_names,
                            const Registry *registry) const = 0;

  // Every value of the graph as the source framework computes it on `inputs` (one tensor per
  // graph input), by the ids Converted::walked uses: what --locate compares ONNX Runtime's values
  // with. Throws Error when the framework fails on the inputs.
  virtual ValueTensors values_on(const std::vector<at::Tensor> &inputs) const = 0;

  // The class of every module some node ran in, by module scope ("layer1.0" -> "BasicBlock"):
  // what --functions chooses from. The top-level module is left out.
  virtual std::map<std::string, std::string> module_types() const = 0;
};

} // namespace torch2onnx
