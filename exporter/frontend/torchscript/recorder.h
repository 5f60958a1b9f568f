// Runs a TorchScript graph once on example inputs and records every tensor value's dtype and
// shape (a ShapeRecord, exporter/core/records.h, by value_id): the shapes converters base their
// decisions on.
#pragma once

#include "builder/types.h"
#include "exporter/core/records.h"

#include <ATen/core/ivalue.h>
#include <torch/csrc/jit/ir/ir.h>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace torch2onnx {

// Values inside loop bodies are observed on every iteration: their dims that vary are unknown
// (Dim{}); values in branches that did not run (or loops that ran zero times) have no entry.
// Throws Error with LibTorch's reason when the model rejects the inputs; with `failure` given, it
// stores that reason there instead and returns what was observed before the failing node (no
// outputs), so a caller can tell where the run stopped.
//
// With `counts`, every op whose number of rows depends on the data (nonzero, one-argument where,
// masked_select, torchvision::nms, aten::index with a boolean mask: see has_data_dependent_rows)
// passes on fewer rows (Fewer: its first 2 of many, 1 of 2) or one more (More: a row of zeros,
// i.e. index 0), so a run at the example inputs shows which sizes follow those counts. unique's
// distinct values and counts (aten::_unique, _unique2, unique_dim, unique_consecutive) get one
// more in a More run only (fewer would leave its inverse indices pointing past them).
//
// With `values`, every tensor value's contents are kept too (a copy, taken when the node ran; in
// a loop body, the last iteration's): what --locate compares ONNX Runtime's values with.
enum class CountChange { None, Fewer, More };
ShapeRecord record_shapes(const std::shared_ptr<torch::jit::Graph> &graph,
                          const std::vector<c10::IValue> &inputs, std::string *failure = nullptr,
                          CountChange counts = CountChange::None, ValueTensors *values = nullptr);

// Whether the node (or any node of the block, nested blocks included) has an output whose number
// of rows depends on the values of its inputs, not only on their shapes. For a block, `example`
// (a record of it) tells whether an aten::index was given a boolean mask (x[mask]).
bool has_data_dependent_rows(const torch::jit::Node *n);
bool has_data_dependent_rows(const torch::jit::Block *block, const ShapeRecord &example);

} // namespace torch2onnx
