// Merging shape records of the same graph taken at different inputs: which dims follow the
// symbolic input dims, and which follow a data-dependent count (nonzero, nms, ...). Works on the
// neutral records (exporter/core/records.h) of any front end.
#pragma once

#include "exporter/analysis/graph_inputs.h"
#include "exporter/core/records.h"

#include <string>
#include <vector>

namespace torch2onnx {

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
