// What the TorchScript front end reads off torch::jit graphs for the neutral records
// (exporter/core/records.h): a value's id, a subgraph's key, a node's scope and source line.
#pragma once

#include "exporter/core/records.h"

#include <map>
#include <string>
#include <torch/csrc/jit/ir/ir.h>

namespace torch2onnx {

// A value's id in the records: LibTorch's number for it, unique within its graph (blocks
// included). Example: record.find(value_id(n->output())).
inline ValueId value_id(const torch::jit::Value *v) {
  return static_cast<ValueId>(v->unique());
}
// A block's key in ShapeRecord::ran (an If branch that ran).
inline BlockKey block_key(const torch::jit::Block *b) {
  return reinterpret_cast<BlockKey>(b);
}

NodeWhere where_of(const torch::jit::Node *n);
// The class of every module some node of `graph` ran in, by module scope (as where_of names it):
// e.g. {"layer1": "Sequential", "layer1.0": "BasicBlock", "layer1.0.conv1": "Conv2d"}. The root
// module (scope "") is left out.
std::map<std::string, std::string> module_types(const torch::jit::Graph &graph);

} // namespace torch2onnx
