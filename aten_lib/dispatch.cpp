#include "aten_lib/dispatch.h"

#include <fmt/format.h>

namespace torch2onnx {

const RegistryEntry *find_converter(const Registry &registry, const std::string &op, int opset) {
  const RegistryEntry *entry = registry.find(op, opset);
  return entry && !entry->frontend ? entry : nullptr;
}

std::vector<Arg> call_converter(GraphBuilder &b, const RegistryEntry &entry,
                                const NodeContext &node, std::vector<Arg> args,
                                const std::vector<OutputSlot> &outputs) {
  T2O_CHECK(!entry.frontend && entry.fn, "internal error: {} has no converter to call", entry.op);
  std::vector<TensorInfo> infos;
  infos.reserve(outputs.size());
  for (const auto &o : outputs)
    infos.push_back(o.info);
  ConvertCtx ctx(b, entry.op, std::move(args), std::move(infos));
  ctx.set_overload(node.overload);
  entry.fn(ctx);
  // ConvertCtx::set_out rejects an output index past the node's; here: every output is bound.
  for (size_t i = 0; i < outputs.size(); ++i)
    T2O_CHECK(!ctx.outputs()[i].is_none() || outputs[i].may_be_none,
              "the {} converter did not produce output {} (%{})", entry.op, i,
              i < node.outputs.size() ? node.outputs[i] : "?");
  return ctx.outputs();
}

Error node_error(const NodeContext &node, const std::exception &e) {
  const auto *err = dynamic_cast<const Error *>(&e);
  std::string where = node.scope.empty() ? "<top level>" : node.scope;
  if (!node.source.empty())
    where += ", " + node.source;
  return Error(fmt::format("node #{} {} ({}) with inputs [{}]: {}", node.index, node.op, where,
                           fmt::join(node.inputs, ", "), e.what()),
               err ? err->hint() : std::string());
}

} // namespace torch2onnx
