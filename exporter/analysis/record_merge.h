// Merging shape records of the same graph taken at different inputs: which dims follow the
// symbolic input dims, and which follow a data-dependent count (nonzero, nms, ...).
#pragma once

#include "exporter/analysis/graph_inputs.h"
#include "exporter/frontend/recorder.h"

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

// Sizes that follow a data-dependent count (NonZero's number of rows...) are not sizes at all:
// static dims of `example` that differ in `shrunk` (a run with changed counts at the same inputs)
// become unknown. Without this, e.g. the number of detections seen at the example image would be
// written into the ONNX file as a constant.
void merge_data_dependent(ShapeRecord &example, const ShapeRecord &shrunk);

// Merges a record at the example sizes with one at alternate sizes: dims equal in both stay
// concrete; dims that differ become symbolic, named after the input symbol whose two sizes they
// match (e.g. "batch"), or unnamed when they are some other expression of the symbols.
void merge_dynamic(ShapeRecord &example, const ShapeRecord &alternate,
                   const std::vector<SymbolSizes> &symbols);

} // namespace torch2onnx
