#include "exporter/frontend/torchscript/jit_util.h"

#include <fmt/format.h>
#include <torch/csrc/jit/ir/scope.h>

namespace torch2onnx {

NodeWhere where_of(const torch::jit::Node *n) {
  NodeWhere w;
  if (auto cs = n->callstack()) {
    std::vector<std::string> parts;
    for (const auto &entry : (*cs)->vec()) {
      const auto &mi = std::get<2>(entry);
      if (mi && !mi->instance_name().empty())
        parts.push_back(mi->instance_name());
    }
    // The outermost entry is the root module ("self"): drop it.
    if (!parts.empty() && parts.front() == "self")
      parts.erase(parts.begin());
    w.scope = fmt::format("{}", fmt::join(parts, "."));
  }
  const auto &range = n->sourceRange();
  auto orig = range.findSourceRangeThatGenerated();
  auto loc = orig ? orig->file_line_col() : range.file_line_col();
  // A range without a file (graphs made from IR text, nodes a pass created) has no place to name:
  // leave it empty rather than print "(:0)".
  if (loc && !std::get<0>(*loc).empty() && std::get<1>(*loc) > 0)
    w.source = fmt::format("{}:{}", std::get<0>(*loc), std::get<1>(*loc));
  return w;
}

namespace {
void collect_module_types(const torch::jit::Block *block, std::map<std::string, std::string> &out) {
  for (const torch::jit::Node *n : block->nodes()) {
    for (const torch::jit::Block *sub : n->blocks())
      collect_module_types(sub, out);
    auto cs = n->callstack();
    if (!cs)
      continue;
    // The same walk as where_of: entries without an instance name add no scope part.
    std::string scope;
    bool root = true;
    for (const auto &entry : (*cs)->vec()) {
      const auto &mi = std::get<2>(entry);
      if (!mi || mi->instance_name().empty())
        continue;
      if (root && mi->instance_name() == "self") {
        root = false;
        continue;
      }
      root = false;
      scope = scope.empty() ? mi->instance_name() : scope + "." + mi->instance_name();
      auto type = mi->class_type();
      if (type && type->name() && !out.count(scope))
        out[scope] = type->name()->name();
    }
  }
}
} // namespace

std::map<std::string, std::string> module_types(const torch::jit::Graph &graph) {
  std::map<std::string, std::string> out;
  collect_module_types(graph.block(), out);
  return out;
}

} // namespace torch2onnx
