// The TorchScript front end's conversion of a prepared graph: record shapes (record_graph.h),
// check every op has a converter, walk (walker.h). Used by TorchScriptGraph (source_graph.h)
// and by the converter tests, which start from TorchScript IR text instead of a file.
#pragma once

#include "builder/graph_builder.h"
#include "exporter/analysis/graph_inputs.h"
#include "exporter/core/converted.h"
#include "exporter/frontend/torchscript/recorder.h"
#include "exporter/frontend/torchscript/walker.h"

#include <ATen/core/ivalue.h>
#include <memory>
#include <string>
#include <torch/csrc/jit/ir/ir.h>
#include <vector>

namespace torch2onnx {

// Records shapes, checks every op has a converter, and converts. `input_names` names the graph's
// inputs (one per example input; their infos are the examples' static shapes); `output_names`
// may be empty (defaults "output", "output_N").
Converted convert_graph(const std::shared_ptr<torch::jit::Graph> &graph,
                        const std::vector<c10::IValue> &example_inputs,
                        const std::vector<std::string> &input_names, int opset,
                        const std::vector<std::string> &output_names);

// The same with declared inputs: symbolic dims are recorded at two sizes (see GraphInputs), and
// sizes the model baked in as constants are refused (exporter/frontend/torchscript/baked_dims.h).
// `registry` (default Registry::global()) lets tests swap converters.
Converted convert_graph(const std::shared_ptr<torch::jit::Graph> &graph, const GraphInputs &inputs,
                        int opset, const std::vector<std::string> &output_names,
                        const Registry *registry = nullptr);

} // namespace torch2onnx
