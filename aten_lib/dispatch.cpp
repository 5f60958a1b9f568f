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

std::vector<Arg> call_converter(GraphBuilder &b, const Registry &registry,
                                const RegistryEntry &entry, const NodeContext &node,
                                std::vector<Arg> args, const std::vector<OutputSlot> &outputs) {
  T2O_CHECK(!entry.frontend && entry.fn, "internal error: {} has no converter to call", entry.op);
  const ConverterFn &fn = pick_converter(b, entry, node, args, outputs);
  std::vector<TensorInfo> infos;
  infos.reserve(outputs.size());
  for (const auto &o : outputs)
    infos.push_back(o.info);
  ConvertCtx ctx(b, entry.op, std::move(args), std::move(infos), node.arg_names);
  ctx.set_overload(node.overload);
  ctx.set_registry(&registry);
  fn(ctx);
  // ConvertCtx::set_out rejects an output index past the node's; here: every output is bound.
  for (size_t i = 0; i < outputs.size(); ++i)
    T2O_CHECK(!ctx.outputs()[i].is_none() || outputs[i].may_be_none,
              "the {} converter did not produce output {} (%{})", entry.op, i,
              i < node.outputs.size() ? node.outputs[i] : "?");
  return ctx.outputs();
}

// ---- ConvertCtx: calling other converters ---------------------------------------------------

namespace {

enum class Pick { LikeDispatch, Real };

// Runs op's converter from c's registry on `args` for outputs `infos`. `partial`: names the
// caller did not pass read as None (scripts/check_arg_names.py checks the names passed).
std::vector<Arg> call_from(const ConvertCtx &c, const std::string &op, std::vector<NamedArg> args,
                           std::vector<TensorInfo> infos, const std::string &overload, Pick pick,
                           bool partial) {
  T2O_CHECK(c.registry(), "internal error: {} calls the converter of {} without a registry", c.op(),
            op);
  const RegistryEntry *entry = find_converter(*c.registry(), op, c.b.opset());
  T2O_CHECK(entry, "internal error: {} calls {}, which has no converter at opset {}", c.op(), op,
            c.b.opset());
  std::vector<Arg> values;
  std::vector<std::string> names;
  for (auto &a : args) {
    names.push_back(a.name);
    values.push_back(std::move(a.value));
  }
  NodeContext node;
  node.op = op;
  node.overload = overload;
  std::vector<OutputSlot> slots;
  for (const auto &info : infos)
    slots.push_back(OutputSlot{info, true});
  const ConverterFn &fn =
      pick == Pick::Real ? entry->fn : pick_converter(c.b, *entry, node, values, slots);
  T2O_CHECK(fn, "internal error: {} has no converter to call", op);
  ConvertCtx inner(c.b, op, std::move(values), std::move(infos), std::move(names));
  inner.set_overload(overload);
  inner.set_registry(c.registry());
  inner.set_partial_names(partial);
  fn(inner);
  return inner.outputs();
}

std::vector<TensorInfo> out_infos(const ConvertCtx &c) {
  std::vector<TensorInfo> infos;
  for (size_t i = 0; i < c.num_outputs(); ++i)
    infos.push_back(c.out_info(i));
  return infos;
}

} // namespace

std::vector<Arg> ConvertCtx::call(const std::string &op, std::vector<NamedArg> args,
                                  std::vector<TensorInfo> out_infos,
                                  const std::string &overload) const {
  return call_from(*this, op, std::move(args), std::move(out_infos), overload, Pick::LikeDispatch,
                   true);
}

std::vector<Arg> ConvertCtx::call_real(const std::string &op, std::vector<NamedArg> args,
                                       std::vector<TensorInfo> out_infos,
                                       const std::string &overload) const {
  return call_from(*this, op, std::move(args), std::move(out_infos), overload, Pick::Real, true);
}

void ConvertCtx::forward_to(const std::string &op) {
  std::vector<Arg> outs =
      call_from(*this, op, named_args(), out_infos(*this), overload(), Pick::LikeDispatch, false);
  for (size_t i = 0; i < outs.size(); ++i)
    set_out(i, std::move(outs[i]));
}

void ConvertCtx::forward_real(const std::string &op, std::vector<NamedArg> args) {
  std::vector<Arg> outs =
      call_from(*this, op, std::move(args), out_infos(*this), overload(), Pick::Real, false);
  for (size_t i = 0; i < outs.size(); ++i)
    set_out(i, std::move(outs[i]));
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
