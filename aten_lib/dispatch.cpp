#include "aten_lib/dispatch.h"

#include <fmt/format.h>

namespace torch2onnx {

const RegistryEntry *find_converter(const Registry &registry, const std::string &op, int opset) {
  const RegistryEntry *entry = registry.find(op, opset);
  return entry && !entry->frontend ? entry : nullptr;
}

namespace {

// The first complex tensor among `a` (list items included), or nullptr.
const Arg *complex_arg(const GraphBuilder &b, const Arg &a) {
  if (a.is_tensor())
    return b.has_info(a.tensor) && b.info(a.tensor).complex ? &a : nullptr;
  for (const auto &it : a.items)
    if (const Arg *c = complex_arg(b, it))
      return c;
  return nullptr;
}

// The converter to call: entry.fn, or entry.complex_fn when a complex value goes in or comes out
// (ONNX has no complex type: such values are real [..., 2] tensors only complex-aware converters
// may read, since any other would treat the (real, imaginary) pair as data).
const ConverterFn &pick_converter(const GraphBuilder &b, const RegistryEntry &entry,
                                  const NodeContext &node, const std::vector<Arg> &args,
                                  const std::vector<OutputSlot> &outputs) {
  std::string which;
  for (size_t i = 0; i < args.size() && which.empty(); ++i)
    if (const Arg *c = complex_arg(b, args[i]))
      which = fmt::format("its input {} ({}) is", i, b.info(c->tensor).str());
  for (size_t i = 0; i < outputs.size() && which.empty(); ++i)
    if (outputs[i].info.complex)
      which =
          fmt::format("its output {} (%{}) is", i, i < node.outputs.size() ? node.outputs[i] : "?");
  if (which.empty())
    return entry.fn;
  if (!entry.complex_fn)
    throw Error(fmt::format("{} does not support complex tensors: {} complex (torch2onnx carries "
                            "complex values as real tensors with a trailing dimension of 2, and "
                            "only some ops have a complex lowering)",
                            entry.op, which),
                "see docs/complex.md for the ops that take complex tensors; compute this step "
                "on torch.view_as_real(x) (or x.real / x.imag) instead");
  return entry.complex_fn;
}

} // namespace

std::vector<Arg> call_converter(GraphBuilder &b, const RegistryEntry &entry,
                                const NodeContext &node, std::vector<Arg> args,
                                const std::vector<OutputSlot> &outputs) {
  T2O_CHECK(!entry.frontend && entry.fn, "internal error: {} has no converter to call", entry.op);
  const ConverterFn &fn = pick_converter(b, entry, node, args, outputs);
  std::vector<TensorInfo> infos;
  infos.reserve(outputs.size());
  for (const auto &o : outputs)
    infos.push_back(o.info);
  ConvertCtx ctx(b, entry.op, std::move(args), std::move(infos));
  ctx.set_overload(node.overload);
  fn(ctx);
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
  // Inside an If or Loop the inner node fails first: its node stays the one the error names.
  ErrorNode at = err && err->node() ? *err->node() : ErrorNode{node.index,  node.op,     node.scope,
                                                               node.source, node.inputs, e.what()};
  return Error(fmt::format("node #{} {} ({}) with inputs [{}]: {}", node.index, node.op, where,
                           fmt::join(node.inputs, ", "), e.what()),
               err ? err->hint() : std::string(), std::move(at));
}

} // namespace torch2onnx
