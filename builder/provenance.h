// Where an ONNX node torch2onnx wrote came from. The builder names every node
// "<module scope>/<aten op>/<OpType>[_N]" (GraphBuilder::set_scope): the name is the record, so
// files carry provenance without extra fields. `torch2onnx show` and the --report op table read
// it back.
#pragma once

#include <cstddef>
#include <map>
#include <string>

namespace onnx {
class ModelProto;
} // namespace onnx

namespace torch2onnx {

struct NodeOrigin {
  std::string op;    // "aten::conv2d"; empty when the name does not say (another exporter's file)
  std::string scope; // module path, e.g. "layer1.0.conv1" ("" at top level)
};

// Example: origin_of_node_name("layer1.0/aten::relu/Relu_3") == {"aten::relu", "layer1.0"};
// origin_of_node_name("Conv_12").op is empty.
NodeOrigin origin_of_node_name(const std::string &node_name);

// For each aten op (or prim:: op the walker converts), the ONNX op types of the nodes that carry
// its name and how many there are, over the main graph, every subgraph and every local
// function's body (once per body). Nodes without an
// origin (e.g. the output Identities) are left out.
// Example: {"aten::linear": {"Gemm": 1}, "aten::flatten": {"Shape": 1, "Slice": 2, ...}}
std::map<std::string, std::map<std::string, size_t>>
onnx_ops_by_origin(const onnx::ModelProto &model);

} // namespace torch2onnx
