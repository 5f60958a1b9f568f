// The walker's handler table (one method per FrontendHandler; which node kinds each takes is the
// registry's list of frontend ops, aten_lib/frontend_ops.cpp) and the handlers for prim:: values:
// constants, containers of known length, type casts, dropped checks.
#include "exporter/core/tensor_util.h"
#include "exporter/frontend/torchscript/walker.h"

#include <torch/csrc/jit/ir/constants.h>
#include <unordered_map>

namespace torch2onnx {

using torch::jit::Node;
using torch::jit::Value;

const std::vector<Walker::Handler> &Walker::handler_table() {
  using H = FrontendHandler;
  static const std::vector<Handler> table = {
      // prim:: values (this file)
      {H::Constant, &Walker::handle_constant, Scan::Handled},
      {H::Construct, &Walker::handle_construct, Scan::ConstIfConst},
      {H::Dict, &Walker::handle_dict, Scan::Handled},
      {H::Unpack, &Walker::handle_unpack, Scan::ConstIfConst},
      {H::NumToTensor, &Walker::handle_num_to_tensor, Scan::Handled},
      {H::SameValue, &Walker::handle_same_value, Scan::Handled},
      {H::Uninitialized, &Walker::handle_uninitialized, Scan::Handled},
      {H::Dropped, &Walker::handle_dropped, Scan::Handled},
      {H::GetAttr, &Walker::handle_get_attr, Scan::Handled},
      // lists (walker_lists.cpp)
      {H::GetItem, &Walker::handle_getitem, Scan::Handled},
      {H::Len, &Walker::handle_len, Scan::OnLists},
      {H::Append, &Walker::handle_append, Scan::Handled},
      {H::ListCopy, &Walker::handle_list_copy, Scan::Handled},
      {H::IsNone, &Walker::handle_is_none, Scan::Handled},
      {H::ToList, &Walker::handle_tolist, Scan::Handled},
      {H::ListMutation, &Walker::handle_list_mutation, Scan::Handled},
      {H::ListConcat, &Walker::handle_list_concat, Scan::Handled},
      {H::DictMethod, &Walker::handle_dict_method, Scan::OnLists},
      {H::IsInstance, &Walker::handle_isinstance, Scan::Handled},
      // control flow (walker_control_flow.cpp)
      {H::If, &Walker::handle_if, Scan::Blocks},
      {H::Loop, &Walker::handle_loop, Scan::Blocks},
  };
  return table;
}

const Walker::Handler *Walker::handler_of(FrontendHandler which) {
  for (const Handler &h : handler_table())
    if (h.which == which)
      return &h;
  return nullptr;
}

const Walker::Handler *Walker::find_handler(const Node *n) const {
  auto it = handlers_.find(n->kind());
  if (it != handlers_.end())
    return it->second;
  // The registry's frontend entry for the kind, if any, names the handler.
  const RegistryEntry *e = registry_.find(n->kind().toQualString(), kMinOpset);
  const Handler *h = e && e->frontend ? handler_of(e->handler) : nullptr;
  T2O_CHECK(!e || !e->frontend || h, "internal error: the walker has no handler for {}", e->op);
  handlers_.emplace(n->kind(), h);
  return h;
}

bool Walker::handles(FrontendHandler which) {
  return handler_of(which) != nullptr;
}

bool Walker::handle_constant(const Node *n) {
  Bound bd;
  bd.kind = Bound::Kind::Const;
  bd.constant = n->output()->type()->kind() == c10::TypeKind::NoneType
                    ? c10::IValue()
                    : *torch::jit::toIValue(n->output());
  bind(n->output(), bd);
  return true;
}

bool Walker::handle_construct(const Node *n) {
  bool all_const = true, holds_lists = false;
  for (const Value *in : n->inputs()) {
    all_const = all_const && lookup(in).kind == Bound::Kind::Const;
    holds_lists = holds_lists || in->type()->kind() == c10::TypeKind::ListType;
  }
  // A list of constants folds to one constant; a tuple stays a List of its items. Lists of lists
  // do not fold: the inner lists may still be appended to.
  if (all_const && !holds_lists && n->kind() == c10::prim::ListConstruct &&
      walker_detail::is_foldable(n))
    return try_fold(n);
  Bound bd;
  bd.kind = Bound::Kind::List;
  for (const Value *in : n->inputs()) {
    bd.items.push_back(lookup(in));
    if (in->type()->kind() == c10::TypeKind::ListType)
      bd.items.back().list_origin = in;
  }
  bind(n->output(), bd);
  return true;
}

Walker::Bound Walker::current(const Bound &item) const {
  if (!item.list_origin)
    return item;
  auto it = env_.find(item.list_origin);
  if (it == env_.end() || it->second.kind == Bound::Kind::Unset)
    return item;
  Bound now = it->second;
  now.list_origin = item.list_origin;
  return now;
}

bool Walker::handle_dict(const Node *n) {
  Bound bd;
  bd.kind = Bound::Kind::List;
  for (size_t i = 0; i + 1 < n->inputs().size(); i += 2) {
    const Bound &key = lookup(n->inputs()[i]);
    T2O_CHECK(key.kind == Bound::Kind::Const && key.constant.isString(),
              "only dicts with constant string keys are supported");
    bd.keys.push_back(key.constant.toStringRef());
    bd.items.push_back(lookup(n->inputs()[i + 1]));
  }
  bind(n->output(), bd);
  return true;
}

bool Walker::handle_unpack(const Node *n) {
  const Bound &src = lookup(n->input(0));
  if (src.kind == Bound::Kind::List) {
    T2O_CHECK(src.items.size() == n->outputs().size(), "unpacking {} items into {} values",
              src.items.size(), n->outputs().size());
    Bound copy = src;
    for (size_t i = 0; i < n->outputs().size(); ++i)
      bind(n->outputs()[i], current(copy.items[i]));
    return true;
  }
  T2O_CHECK(src.kind == Bound::Kind::Const, "cannot unpack a non-list value");
  auto elems = src.constant.isList() ? src.constant.toListRef().vec()
                                     : src.constant.toTupleRef().elements().vec();
  T2O_CHECK(elems.size() == n->outputs().size(), "unpacking {} items into {} values", elems.size(),
            n->outputs().size());
  for (size_t i = 0; i < elems.size(); ++i) {
    Bound bd;
    bd.kind = Bound::Kind::Const;
    bd.constant = elems[i];
    bind(n->outputs()[i], bd);
  }
  return true;
}

bool Walker::handle_num_to_tensor(const Node *n) {
  // A runtime number already is a 0-d tensor; a constant one folds to a constant tensor.
  const Bound &src = lookup(n->input(0));
  if (src.kind == Bound::Kind::Const)
    return try_fold(n);
  bind(n->output(), src);
  return true;
}

bool Walker::handle_same_value(const Node *n) {
  // unchecked_cast changes only the TorchScript type; detach only autograd, which ONNX lacks.
  // Casting an Optional to its tensor (in the branch `is not None` guards) drops its flag.
  Bound out = lookup(n->input(0));
  if (!n->output()->type()->cast<c10::OptionalType>())
    out.some_flag = Val{};
  bind(n->output(), out);
  return true;
}

bool Walker::handle_uninitialized(const Node *n) {
  // A value a path that raises, breaks or continues leaves unset: it is never read, but a branch
  // or loop that passes it along needs a value of its type. A number of that type (0, 0.0,
  // false) stands in for an int, float or bool; anything else is None, marked uninitialized
  // (Walker::pack gives an If or loop a placeholder tensor for it).
  Bound bd;
  bd.kind = Bound::Kind::Const;
  const c10::TypePtr &type = n->output()->type();
  if (type->kind() == c10::TypeKind::IntType)
    bd.constant = int64_t{0};
  else if (type->kind() == c10::TypeKind::FloatType)
    bd.constant = 0.0;
  else if (type->kind() == c10::TypeKind::BoolType)
    bd.constant = false;
  else
    bd.uninitialized = true;
  bind(n->output(), bd);
  return true;
}

bool Walker::handle_dropped(const Node *n) {
  std::string msg =
      fmt::format("dropped {} at {}", n->kind().toQualString(), walker_detail::place_of(n));
  if (n->kind() == c10::prim::RaiseException)
    warn_changed(dropped_raises_, std::move(msg));
  else
    warnings_.push_back(std::move(msg));
  return true;
}

void Walker::warn_changed(std::vector<std::string> &list, std::string msg) {
  list.push_back(msg);
  warnings_.push_back(std::move(msg));
}

bool Walker::handle_get_attr(const Node *) {
  throw Error("the graph still reads a module attribute after freezing",
              "make the attribute a constant or a local variable in forward");
}

} // namespace torch2onnx
