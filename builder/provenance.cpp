#include "builder/provenance.h"

#include <onnx/onnx_pb.h>

namespace torch2onnx {

NodeOrigin origin_of_node_name(const std::string &node_name) {
  // The last segment is "<OpType>[_N]"; the op is the last segment before it that names an
  // operator ("ns::name"); what precedes the op is the scope.
  size_t last = node_name.rfind('/');
  if (last == std::string::npos)
    return {};
  size_t end = last;
  while (end > 0) {
    size_t start = node_name.rfind('/', end - 1);
    size_t from = start == std::string::npos ? 0 : start + 1;
    std::string seg = node_name.substr(from, end - from);
    size_t colons = seg.find("::");
    if (colons != std::string::npos && colons > 0 && colons + 2 < seg.size())
      return {seg, from == 0 ? std::string() : node_name.substr(0, from - 1)};
    if (start == std::string::npos)
      break;
    end = start;
  }
  return {};
}

namespace {

void count_graph(const onnx::GraphProto &g,
                 std::map<std::string, std::map<std::string, size_t>> &out) {
  for (const auto &n : g.node()) {
    NodeOrigin o = origin_of_node_name(n.name());
    if (!o.op.empty())
      ++out[o.op][n.op_type()];
    for (const auto &a : n.attribute()) {
      if (a.has_g())
        count_graph(a.g(), out);
      for (const auto &sub : a.graphs())
        count_graph(sub, out);
    }
  }
}

} // namespace

std::map<std::string, std::map<std::string, size_t>>
onnx_ops_by_origin(const onnx::ModelProto &model) {
  std::map<std::string, std::map<std::string, size_t>> out;
  count_graph(model.graph(), out);
  // Local functions (--functions) hold the nodes of module calls: each body counts once.
  for (const auto &f : model.functions()) {
    onnx::GraphProto body;
    *body.mutable_node() = f.node();
    count_graph(body, out);
  }
  return out;
}

} // namespace torch2onnx
