// The records a front end hands the rest of the export, in terms of no front end: values by id,
// each value's recorded dtype and shape, and which nodes' values the ONNX graph carries. The
// TorchScript front end (exporter/frontend/torchscript/) fills them from torch::jit graphs; the
// analyses (exporter/analysis/), --verify and --locate read only these.
#pragma once

#include "aten_lib/converter.h"
#include "builder/types.h"

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace torch2onnx {

// A value of the front end's graph, unique within it (TorchScript: Value::unique()).
using ValueId = uint64_t;
// A subgraph of the front end's graph (an If branch), as the front end identifies it.
using BlockKey = uintptr_t;

// Where a node comes from, for names and messages.
struct NodeWhere {
  std::string scope;  // module path, e.g. "layer1.0.conv1"; empty at top level
  std::string source; // "file.py:12" when the model kept debug info
};

// Every tensor value's dtype and shape as a run of the model on example inputs gave them (or as
// the front end knows them otherwise), and the run's outputs: what converters decide on.
struct ShapeRecord {
  std::unordered_map<ValueId, TensorInfo> infos;
  std::vector<c10::IValue> outputs; // the graph's outputs on the example inputs
  // The blocks of If nodes that ran at least once (a branch that never ran is absent).
  std::unordered_set<BlockKey> ran;

  const TensorInfo *find(ValueId v) const {
    auto it = infos.find(v);
    return it == infos.end() ? nullptr : &it->second;
  }
};

// Every value's contents on some inputs, by id: what --locate compares ONNX Runtime's values with.
using ValueTensors = std::unordered_map<ValueId, at::Tensor>;

// A node of the main graph whose tensors the ONNX graph carries (--locate names it).
struct WalkedNode {
  std::string op; // e.g. "aten::conv2d"
  NodeWhere where;
};

// A tensor a top-level node produced and the ONNX value that carries it: what --locate compares
// with the front end's value. Kept cheap: every export records one per top-level tensor.
struct WalkedValue {
  ValueId value = 0;
  size_t node = 0;                          // its node, in Converted::walked_nodes
  size_t index = 0;                         // the node's position in the walk (topological order)
  const RegistryEntry *converter = nullptr; // null when the walker handled the node itself
  std::string onnx;                         // the ONNX value's name
};

// An op with no converter at the target opset, with where it is used.
struct UnsupportedOp {
  std::string op;
  std::vector<std::string> places; // "layer1.0.act (model.py:12)", one per use, first few
  size_t uses = 0;
  int available_from = 0; // >0 when a converter exists at a newer opset
  // The op has a converter, but not one for the complex values it gets here ("aten::sin on
  // complex tensors"): no custom domain (--fallback-domain) takes such operands either.
  bool complex = false;
};

// The message for a list of unsupported ops: one line per op with where it is used.
std::string format_unsupported(const std::vector<UnsupportedOp> &ops, int opset);

} // namespace torch2onnx
