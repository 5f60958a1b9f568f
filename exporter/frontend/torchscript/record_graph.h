// The record a TorchScript graph is converted from: the recorder's runs at the example inputs,
// at the alternate sizes and with changed data-dependent counts, merged by the analyses.
#pragma once

#include "exporter/analysis/graph_inputs.h"
#include "exporter/core/records.h"

#include <memory>
#include <string>
#include <torch/csrc/jit/ir/ir.h>
#include <vector>

namespace torch2onnx {

// The record a graph is converted from: LibTorch's run at the example inputs, with dims that
// follow a symbolic input dim named after it (a second run at the alternate sizes) and dims that
// follow a data-dependent count unknown (runs with those counts changed). Throws Error listing
// the sizes a trace baked in as constants (check_baked_dims); a failed count-changing run only
// adds a warning to `warnings`.
ShapeRecord record_graph(const std::shared_ptr<torch::jit::Graph> &graph, const GraphInputs &inputs,
                         std::vector<std::string> &warnings);

} // namespace torch2onnx
