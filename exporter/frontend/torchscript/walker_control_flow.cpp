// Control flow: prim::If on a constant condition converts the branch taken, on a runtime one
// becomes an ONNX If; prim::Loop becomes an ONNX Loop (or is unrolled when its trip count is a
// small constant). Values crossing a subgraph boundary are packed into ONNX values (tuples
// flattened, numbers as 0-d tensors, tensor lists as sequences). See docs/control_flow.md.
#include "aten_lib/helpers.h"
#include "exporter/core/tensor_util.h"
#include "exporter/frontend/torchscript/walker.h"

#include <ATen/ATen.h>
#include <algorithm>
#include <limits>
#include <string>
#include <torch/csrc/jit/runtime/operator.h>
#include <unordered_set>

namespace torch2onnx {

using torch::jit::Block;
using torch::jit::Node;
using torch::jit::Value;
using walker_detail::is_tensor_list;

namespace {

// Loops with a constant trip count up to this many iterations, whose body has at most
// kMaxUnrollNodes nodes and always continues, are unrolled: every iteration then sees its index
// as a constant, so indexing and sizes fold, and no Loop node is needed.
constexpr int64_t kMaxUnrollTrips = 16;
constexpr size_t kMaxUnrollNodes = 200;

size_t count_nodes(const Block *b) {
  size_t n = 0;
  for (const Node *node : b->nodes()) {
    if (node->kind() == c10::prim::Constant)
      continue;
    ++n;
    for (const Block *sub : node->blocks())
      n += count_nodes(sub);
  }
  return n;
}

// True when v is defined inside one of n's blocks (at any depth).
bool defined_inside(const Value *v, const Node *n) {
  for (const Block *b = v->node()->owningBlock(); b != nullptr;) {
    const Node *owner = b->owningNode();
    if (owner == n)
      return true;
    b = owner ? owner->owningBlock() : nullptr;
  }
  return false;
}

bool mutates_first_input(const Node *n) {
  static const std::unordered_set<std::string> list_ops = {
      "aten::append", "aten::insert", "aten::_set_item", "aten::clear",
      "aten::pop",    "aten::Delete", "aten::extend"};
  std::string op = n->kind().toQualString();
  if (list_ops.count(op))
    return true;
  if (n->inputs().empty() || op.rfind("aten::", 0) != 0)
    return false;
  std::string name = op.substr(6);
  return name.size() > 1 && name.back() == '_' && name.substr(name.size() - 2) != "__" &&
         name.front() != '_';
}

// The tensor an in-place op changes: its first input, or, for a view made by a chain of view
// ops (`out[:, i] = v` is select then copy_), the tensor the views were taken of, which
// write_back updates.
const Value *mutated_base(const Node *n) {
  const Value *v = n->input(0);
  while (walker_detail::is_view_op(v->node()))
    v = v->node()->input(0);
  return v;
}

void collect_mutations(const Block *b, const Node *owner, std::vector<const Value *> &out) {
  for (const Node *n : b->nodes()) {
    const Value *base = mutates_first_input(n) ? mutated_base(n) : nullptr;
    if (base && !defined_inside(base, owner) &&
        std::find(out.begin(), out.end(), base) == out.end())
      out.push_back(base);
    for (const Block *sub : n->blocks())
      collect_mutations(sub, owner, out);
  }
}

// Whether pack() can turn a value of this type into ONNX values (If outputs, loop state).
bool can_carry(const c10::TypePtr &type) {
  if (auto tt = type->cast<c10::TupleType>())
    return std::all_of(tt->elements().begin(), tt->elements().end(), can_carry);
  if (auto ot = type->cast<c10::OptionalType>())
    return can_carry(ot->getElementType());
  if (auto dt = type->cast<c10::DictType>())
    return can_carry(dt->getValueType());
  return type->kind() == c10::TypeKind::NoneType || is_tensor_list(type) ||
         number_dtype(type) != DType::Undefined || type->isSubtypeOf(*c10::TensorType::get());
}

bool same_dtype_or_unknown(DType a, DType b) {
  return a == DType::Undefined || b == DType::Undefined || a == b;
}

// The infos of a Loop's results the recorder may not have seen (a loop in a branch the example
// did not take): the dims the initial value and the body's result agree on, others unknown.
std::vector<TensorInfo> loop_result_infos(const GraphBuilder &b, const std::vector<Val> &init,
                                          const std::vector<Val> &vals,
                                          const std::vector<ValueType> &types) {
  std::vector<TensorInfo> out;
  for (size_t j = 0; j < types.size(); ++j) {
    TensorInfo info{types[j].dtype, std::nullopt};
    const TensorInfo *a = b.has_info(init[j]) ? &b.info(init[j]) : nullptr;
    const TensorInfo *z = j < vals.size() && b.has_info(vals[j]) ? &b.info(vals[j]) : nullptr;
    if (!types[j].sequence && a && z && a->shape && z->shape &&
        a->shape->size() == z->shape->size()) {
      info.shape = a->shape;
      for (size_t k = 0; k < info.shape->size(); ++k) {
        const Dim &x = (*a->shape)[k], &y = (*z->shape)[k];
        if (x.value != y.value || x.symbol != y.symbol || (!x.is_static() && x.symbol.empty()))
          (*info.shape)[k] = Dim{};
      }
    }
    out.push_back(info);
  }
  return out;
}

// The types of an If branch's results with the shapes its values have (for the other branch's
// placeholders), where known.
std::vector<ValueType> with_ranks(const GraphBuilder &b, std::vector<ValueType> types,
                                  const std::vector<Val> &vals) {
  for (size_t j = 0; j < types.size(); ++j)
    if (!types[j].sequence && !types[j].shape && b.has_info(vals[j]) && b.info(vals[j]).shape)
      types[j].shape = std::vector<Dim>(b.info(vals[j]).shape->size(), Dim::known(1));
  return types;
}

// Whether an If's then-branch gives None (a constant) for an output its else-branch sets.
bool then_gives_none(const Node *n, const std::vector<bool> &shared) {
  auto none = [](const Value *v) { return v->type()->kind() == c10::TypeKind::NoneType; };
  for (size_t i = 0; i < shared.size(); ++i)
    if (!shared[i] && none(n->blocks()[0]->outputs()[i]) && !none(n->blocks()[1]->outputs()[i]))
      return true;
  return false;
}

// Whether a loop body's result `out` is always its input `in` unchanged: the same value, a
// prim::unchecked_cast of it (TorchScript's Optional refinement), or an If whose every branch
// gives one of those (`if s is not None: ... s ...` keeps s as it is).
bool passes_through(const Value *out, const Value *in) {
  if (out == in)
    return true;
  const Node *n = out->node();
  if (n->kind() == c10::prim::unchecked_cast)
    return passes_through(n->input(0), in);
  if (n->kind() != c10::prim::If)
    return false;
  size_t k = 0;
  while (k < n->outputs().size() && n->outputs()[k] != out)
    ++k;
  for (const Block *b : n->blocks())
    if (!passes_through(b->outputs()[k], in))
      return false;
  return true;
}

// For each loop-carried value of a Loop body: whether the body gives it back unchanged.
std::vector<bool> unchanged_carried(const Block *body) {
  std::vector<bool> same;
  for (size_t i = 1; i < body->outputs().size(); ++i)
    same.push_back(passes_through(body->outputs()[i], body->inputs()[i]));
  return same;
}

// Whether an Optional value can be None at run time as the program is written: a None constant,
// or an If or loop-carried value one of whose sources can be (followed through nested ifs and
// loop bodies). Optional values from anywhere else (arguments, attributes) are known at export.
bool may_be_none(const Value *v, std::unordered_set<const Value *> &seen) {
  if (v->type()->kind() == c10::TypeKind::NoneType)
    return true;
  if (!v->type()->cast<c10::OptionalType>() || !seen.insert(v).second)
    return false;
  const Node *n = v->node();
  const size_t k = v->offset();
  if (n->kind() == c10::prim::Constant)
    return torch::jit::toIValue(v)->isNone();
  if (n->kind() == c10::prim::If)
    return may_be_none(n->blocks()[0]->outputs()[k], seen) ||
           may_be_none(n->blocks()[1]->outputs()[k], seen);
  if (n->kind() == c10::prim::Loop)
    return may_be_none(n->input(k + 2), seen) ||
           may_be_none(n->blocks()[0]->outputs()[k + 1], seen);
  const Node *owner = n->kind() == c10::prim::Param ? n->owningBlock()->owningNode() : nullptr;
  if (owner && owner->kind() == c10::prim::Loop && k >= 1) // a loop body's carried input
    return may_be_none(owner->output(k - 1), seen);
  return false;
}

// An If or loop output of type Optional[Tensor] that can be None: carried as a flag + a tensor.
bool carries_none_flag(const Value *origin, const c10::OptionalType &type) {
  std::unordered_set<const Value *> seen;
  return origin && type.getElementType()->isSubtypeOf(*c10::TensorType::get()) &&
         may_be_none(origin, seen);
}

} // namespace

std::vector<const Value *> Walker::outer_mutations(const Node *n) const {
  std::vector<const Value *> out;
  for (const Block *b : n->blocks())
    collect_mutations(b, n, out);
  return out;
}

// ---- values across subgraph boundaries ------------------------------------------------------

Val Walker::to_scalar_tensor(const Bound &bd, DType dtype) {
  if (bd.kind == Bound::Kind::Const) {
    const c10::IValue &iv = bd.constant;
    if (iv.isInt() && dtype == DType::Int64)
      return b_.const_i64_scalar(iv.toInt());
    if (iv.isInt() || iv.isDouble() || iv.isBool()) {
      double v = iv.isInt()      ? static_cast<double>(iv.toInt())
                 : iv.isDouble() ? iv.toDouble()
                                 : iv.toBool();
      return b_.const_scalar(dtype, v);
    }
    T2O_CHECK(iv.isTensor(), "expected a number, got a {}", iv.tagKind());
    Val t = materialize(iv.toTensor(), "const");
    return reshape(b_, cast_to(b_, t, dtype), {});
  }
  T2O_CHECK(bd.kind == Bound::Kind::Tensor, "expected a number or a tensor");
  Val t = bd.tensor;
  if (!b_.has_info(t)) {
    t = b_.op1("Cast", {t}, {{"to", static_cast<int64_t>(dtype)}});
    b_.set_info(t, TensorInfo{dtype, std::nullopt});
  } else {
    t = cast_to(b_, t, dtype);
  }
  if (!b_.has_info(t) || b_.rank(t) != 0)
    t = reshape(b_, t, {});
  b_.set_info(t, TensorInfo{dtype, std::vector<Dim>{}});
  return t;
}

// A dict an If carries (with the same keys on both paths): its values, in key order; the keys
// go to if_dict_keys_ (recorded by the then-branch, checked by the else-branch).
void Walker::pack_dict(const Bound &bd, const c10::DictType &dt, std::vector<Val> &vals,
                       std::vector<ValueType> &types, const std::vector<ValueType> *want) {
  T2O_CHECK(bd.kind == Bound::Kind::List && bd.keys.size() == bd.items.size(),
            "a {} whose keys are not known at export time cannot be an If output",
            dt.annotation_str());
  DictKeys &k = *if_dict_keys_;
  if (!k.checking) {
    k.lists.push_back(bd.keys);
  } else {
    T2O_CHECK(k.next < k.lists.size() && k.lists[k.next] == bd.keys,
              "a dict has the keys [{}] on one path of an if and [{}] on the other",
              k.next < k.lists.size() ? fmt::format("{}", fmt::join(k.lists[k.next], ", "))
                                      : std::string(),
              fmt::format("{}", fmt::join(bd.keys, ", ")));
    ++k.next;
  }
  for (const Bound &item : bd.items)
    pack(item, dt.getValueType(), nullptr, vals, types, want);
}

// A tensor an If branch or a loop passes on where TorchScript left it unset (the path that returns
// early in torchvision's CenterCrop): never read, so any value of the right dtype and rank does:
// one zero of the dtype the other branch gives (or the recorded one, else float), shaped
// [1, ..., 1] at the recorded rank (else 0-d).
Val Walker::uninitialized_placeholder(const Value *origin, const ValueType *want) {
  DType dt = want ? want->dtype : DType::Undefined;
  int64_t rank = want && want->shape ? static_cast<int64_t>(want->shape->size()) : -1;
  if (const TensorInfo *info = origin ? info_of_value(origin) : nullptr) {
    if (dt == DType::Undefined)
      dt = info->dtype;
    if (rank < 0)
      rank = info->rank();
  }
  TensorData zero = TensorData::scalar(dt == DType::Undefined ? DType::Float : dt, 0);
  zero.dims.assign(static_cast<size_t>(std::max<int64_t>(rank, 0)), 1);
  Val v = b_.constant(zero, "uninitialized");
  placeholders_.insert(v.name);
  return v;
}

void Walker::pack(const Bound &bd, const c10::TypePtr &type, const Value *origin,
                  std::vector<Val> &vals, std::vector<ValueType> &types,
                  const std::vector<ValueType> *want) {
  auto wanted = [&]() -> const ValueType * {
    return want && vals.size() < want->size() ? &(*want)[vals.size()] : nullptr;
  };
  if (auto tt = type->cast<c10::TupleType>()) {
    std::vector<Bound> items = bd.items;
    if (bd.kind == Bound::Kind::Const && bd.constant.isTuple()) {
      items.clear();
      for (const auto &e : bd.constant.toTupleRef().elements()) {
        Bound eb;
        eb.kind = Bound::Kind::Const;
        eb.constant = e;
        items.push_back(eb);
      }
    }
    T2O_CHECK(items.size() == tt->elements().size(), "a tuple of {} items where {} are expected",
              items.size(), tt->elements().size());
    for (size_t i = 0; i < items.size(); ++i)
      pack(items[i], tt->elements()[i], nullptr, vals, types, want);
    return;
  }
  if (auto dt = type->cast<c10::DictType>(); dt && if_dict_keys_) {
    pack_dict(bd, *dt, vals, types, want);
    return;
  }
  if (auto ot = type->cast<c10::OptionalType>()) {
    pack_optional(bd, *ot, origin, vals, types, want);
    return;
  }
  if (type->kind() == c10::TypeKind::NoneType)
    return;
  if (is_tensor_list(type)) {
    const ValueType *w = wanted();
    DType dt = w                                                                 ? w->dtype
               : bd.kind == Bound::Kind::Seq && bd.seq_dtype != DType::Undefined ? bd.seq_dtype
               : origin ? list_elem_dtype(origin)
                        : DType::Float;
    vals.push_back(to_sequence(bd, dt));
    types.push_back(ValueType{dt, true, std::nullopt});
    return;
  }
  DType num = number_dtype(type);
  if (num != DType::Undefined) {
    vals.push_back(to_scalar_tensor(bd, num));
    types.push_back(ValueType{num, false, std::nullopt});
    return;
  }
  if (!type->isSubtypeOf(*c10::TensorType::get()))
    throw Error(
        fmt::format("a value of type {} cannot be an If output or a loop-carried value",
                    type->annotation_str()),
        type->cast<c10::DictType>()
            ? "a loop cannot carry a dict: set its entries after the loop, or carry tensors"
            : "ONNX If outputs and loop state are tensors, tensor lists, numbers and tuples of "
              "them; compute this value outside the if or loop");
  if (bd.uninitialized) {
    vals.push_back(uninitialized_placeholder(origin, wanted()));
    types.push_back(ValueType{b_.dtype(vals.back()), false, std::nullopt});
    return;
  }
  Arg a = to_arg(bd, origin);
  T2O_CHECK(a.is_tensor(), "expected a tensor, got {}", a.describe());
  Val v = a.t();
  const ValueType *w = wanted();
  DType dt = w ? w->dtype : b_.has_info(v) ? b_.dtype(v) : DType::Undefined;
  if (dt == DType::Undefined && origin)
    if (const TensorInfo *info = info_of_value(origin))
      dt = info->dtype;
  if (w && b_.has_info(v) && !same_dtype_or_unknown(b_.dtype(v), dt))
    v = cast_to(b_, v, dt);
  vals.push_back(v);
  types.push_back(ValueType{dt, false, std::nullopt});
}

// An Optional value: as its element type; one that is None on some path (carries_none_flag), its
// flag (false where None), then the tensor (a placeholder where None, of the dtype and rank the
// other path gives).
void Walker::pack_optional(const Bound &bd, const c10::OptionalType &type, const Value *origin,
                           std::vector<Val> &vals, std::vector<ValueType> &types,
                           const std::vector<ValueType> *want) {
  const bool none = bd.kind == Bound::Kind::Const && bd.constant.isNone();
  if (!carries_none_flag(origin, type)) {
    T2O_CHECK(!none && !bd.some_flag.valid(),
              "an Optional value is None on one path of the control flow and not on another",
              "give it a value on every path (e.g. a zero tensor instead of None)");
    pack(bd, type.getElementType(), origin, vals, types, want);
    return;
  }
  Val flag = bd.some_flag.valid() ? bd.some_flag : b_.const_scalar(DType::Bool, none ? 0 : 1);
  vals.push_back(flag);
  types.push_back(ValueType{DType::Bool, false, std::vector<Dim>{}});
  Bound item = bd;
  item.some_flag = Val{};
  if (none) {
    item = Bound{};
    item.kind = Bound::Kind::Const;
    item.uninitialized = true;
  }
  pack(item, type.getElementType(), origin, vals, types, want);
}

Walker::Bound Walker::unpack(const c10::TypePtr &type, const std::vector<Val> &vals, size_t &pos,
                             const Value *origin) {
  Bound bd;
  if (auto tt = type->cast<c10::TupleType>()) {
    bd.kind = Bound::Kind::List;
    for (const auto &e : tt->elements())
      bd.items.push_back(unpack(e, vals, pos, nullptr));
    return bd;
  }
  if (auto ot = type->cast<c10::OptionalType>()) {
    if (!carries_none_flag(origin, *ot))
      return unpack(ot->getElementType(), vals, pos, origin);
    T2O_CHECK(pos < vals.size(), "internal error: too few values to unpack");
    Val flag = vals[pos++];
    b_.set_info(flag, TensorInfo{DType::Bool, std::vector<Dim>{}});
    Bound item = unpack(ot->getElementType(), vals, pos, origin);
    item.some_flag = flag;
    return item;
  }
  if (auto dt = type->cast<c10::DictType>(); dt && if_dict_keys_) {
    DictKeys &k = *if_dict_keys_;
    T2O_CHECK(k.next < k.lists.size(), "internal error: a dict without keys to unpack");
    bd.kind = Bound::Kind::List;
    bd.keys = k.lists[k.next++];
    for (size_t i = 0; i < bd.keys.size(); ++i)
      bd.items.push_back(unpack(dt->getValueType(), vals, pos, nullptr));
    return bd;
  }
  if (type->kind() == c10::TypeKind::NoneType) {
    bd.kind = Bound::Kind::Const;
    return bd;
  }
  T2O_CHECK(pos < vals.size(), "internal error: too few values to unpack");
  const Val &v = vals[pos++];
  if (is_tensor_list(type)) {
    bd.kind = Bound::Kind::Seq;
    bd.tensor = v;
    bd.seq_dtype = origin ? list_elem_dtype(origin) : DType::Undefined;
    return bd;
  }
  bd.kind = Bound::Kind::Tensor;
  bd.tensor = v;
  DType num = number_dtype(type);
  if (num != DType::Undefined)
    b_.set_info(v, TensorInfo{num, std::vector<Dim>{}});
  return bd;
}

// ---- prim::If -------------------------------------------------------------------------------

bool Walker::handle_if(const Node *n) {
  const Block *blocks[2] = {n->blocks()[0], n->blocks()[1]};
  // `if <check>: raise ...` with nothing computed: the check's inputs were skipped
  // (only_feeds_checks), and the if goes too.
  if (is_check_if(n, 0) && only_feeds_checks(n->input(0)->node())) {
    if (block_raises(blocks[0]) || block_raises(blocks[1]))
      warn_changed(dropped_raises_,
                   fmt::format("dropped a check that raises an exception at {}",
                               where_of(n).source.empty() ? "?" : where_of(n).source));
    return true;
  }
  const Bound &cond = lookup(n->input(0));
  if (cond.kind != Bound::Kind::Const) {
    convert_if(n);
    return true;
  }
  // A condition known at export time: only the branch taken is converted.
  const Block *taken = blocks[cond.constant.toBool() ? 0 : 1];
  run_block(taken);
  bind_taken_branch(n, taken);
  return true;
}

// An If whose branch is decided at export time gives the taken branch's values; one that is a
// view there (`last = y[:, -1] if y.dim() == 3 else y[-1]`) is that view, so an in-place op on it
// writes back to y, and it is rederived with the branch's value when y changes.
void Walker::bind_taken_branch(const Node *n, const Block *taken) {
  for (size_t i = 0; i < n->outputs().size(); ++i) {
    const Value *v = taken->outputs()[i];
    bind(n->outputs()[i], lookup(v));
    auto it = view_of_.find(v);
    if (it == view_of_.end())
      continue;
    view_of_[n->outputs()[i]] = it->second;
    inplace_aliases_[v].push_back(n->outputs()[i]);
  }
}

// A runtime condition: an ONNX If whose branches are subgraphs, or, when one branch raises, the
// other branch alone.

// An if one of whose branches raises: the exception is dropped (like the other
// prim::RaiseException), assuming the model is used only on inputs it accepts, so the other
// branch is the one that runs. False when neither raises.
bool Walker::take_non_raising_branch(const Node *n) {
  const Block *blocks[2] = {n->blocks()[0], n->blocks()[1]};
  bool raises[2] = {block_raises(blocks[0]), block_raises(blocks[1])};
  if (!raises[0] && !raises[1])
    return false;
  T2O_CHECK(!(raises[0] && raises[1]), "both branches of this if raise an exception");
  const Block *taken = blocks[raises[0] ? 1 : 0];
  warn_changed(dropped_raises_, fmt::format("dropped the branch that raises an exception at {}",
                                            where_of(n).source.empty() ? n->kind().toQualString()
                                                                       : where_of(n).source));
  run_block(taken);
  bind_taken_branch(n, taken);
  return true;
}

// The shapes an If output (or loop result) has on its two paths, for weaken_branch_dims. A
// placeholder (a path where the value is unset or None, never read) takes the other path's shape;
// an output whose rank the builder does not know gets the rank both paths agree on.
void Walker::note_branch_shapes(const Val &out, const Val &then_val, const Val &else_val) {
  std::array<TensorInfo, 2> shapes;
  if (b_.has_info(then_val))
    shapes[0] = b_.info(then_val);
  if (b_.has_info(else_val))
    shapes[1] = b_.info(else_val);
  if (placeholders_.count(then_val.name))
    shapes[0] = shapes[1];
  if (placeholders_.count(else_val.name))
    shapes[1] = shapes[0];
  branch_shapes_[out.name] = shapes;
  const bool same_rank =
      shapes[0].shape && shapes[1].shape && shapes[0].shape->size() == shapes[1].shape->size();
  if (same_rank && b_.has_info(out) && !b_.info(out).shape) {
    TensorInfo info = b_.info(out);
    info.shape = std::vector<Dim>(shapes[0].shape->size());
    b_.set_info(out, info);
  }
}

void Walker::convert_if(const Node *n) {
  const Block *blocks[2] = {n->blocks()[0], n->blocks()[1]};
  if (take_non_raising_branch(n))
    return;
  if (take_recorded_branch(n))
    return;
  Val cond = to_scalar_tensor(lookup(n->input(0)), DType::Bool);
  auto mutated = outer_mutations(n);
  // Outputs that are the same value on both paths (pooled constants, outer values) need no
  // ONNX output.
  std::vector<bool> shared(n->outputs().size());
  for (size_t i = 0; i < shared.size(); ++i)
    shared[i] = blocks[0]->outputs()[i] == blocks[1]->outputs()[i];
  Env saved = env_;
  Subgraph graphs[2];
  std::vector<ValueType> first_types; // of the branch converted first
  size_t count = 0;
  std::vector<Val> branch_vals[2];
  std::vector<Bound> branch_bounds[2]; // each block's outputs
  DictKeys dict_keys;
  struct Restore {
    DictKeys *&slot, *saved;
    ~Restore() { slot = saved; }
  } restore{if_dict_keys_, if_dict_keys_};
  // The branch that gives a None converts second, so its placeholder takes the other's dtype.
  const int first = then_gives_none(n, shared) ? 1 : 0;
  for (int step = 0; step < 2; ++step) {
    const int k = step == 0 ? first : 1 - first;
    b_.begin_subgraph(k == 0 ? "then" : "else");
    run_block(blocks[k]);
    dict_keys.checking = step == 1;
    dict_keys.next = 0;
    if_dict_keys_ = &dict_keys; // after the branch: its own ifs set and restore theirs
    std::vector<Val> vals;
    std::vector<ValueType> types;
    const std::vector<ValueType> *want = step == 1 ? &first_types : nullptr;
    for (size_t i = 0; i < n->outputs().size(); ++i)
      if (!shared[i])
        pack(lookup(blocks[k]->outputs()[i]), n->outputs()[i]->type(), n->outputs()[i], vals, types,
             want);
    for (const Value *m : mutated)
      pack(lookup(m), m->type(), m, vals, types, want);
    T2O_CHECK(step == 0 || vals.size() == count,
              "the branches of this if give {} and {} values; their types must match", count,
              vals.size());
    T2O_CHECK(step == 0 || dict_keys.next == dict_keys.lists.size(),
              "the branches of this if give {} and {} dicts", dict_keys.lists.size(),
              dict_keys.next);
    if_dict_keys_ = restore.saved;
    count = vals.size();
    branch_vals[k] = vals;
    for (const Value *o : blocks[k]->outputs())
      branch_bounds[k].push_back(lookup(o));
    graphs[k] = b_.end_subgraph(vals, types);
    if (step == 0)
      first_types = with_ranks(b_, types, vals); // the placeholders of the other branch: alike
    env_ = saved;
  }
  for (size_t i = 0; i < n->outputs().size(); ++i)
    if (shared[i])
      bind(n->outputs()[i], lookup(blocks[0]->outputs()[i]));
  if (count == 0)
    return; // nothing observable happens in either branch
  auto outs =
      b_.op_with_subgraphs("If", {cond}, {{"then_branch", graphs[0]}, {"else_branch", graphs[1]}},
                           static_cast<int>(count));
  note_if_outputs(outs, first_types, branch_vals);
  size_t pos = 0;
  dict_keys.next = 0;
  if_dict_keys_ = &dict_keys;
  for (size_t i = 0; i < n->outputs().size(); ++i)
    if (!shared[i])
      bind(n->outputs()[i], unpack(n->outputs()[i]->type(), outs, pos, n->outputs()[i]));
  for (const Value *m : mutated)
    bind(m, unpack(m->type(), outs, pos, m));
  for (const Value *m : mutated) // views of it read after the if: of its new value
    rederive_views(m, n, {});
  keep_view_outputs(n);
  bind_same_constants(n, branch_bounds);
}

// The If's outputs: their dtypes where the builder has none, and the shapes of both paths.
void Walker::note_if_outputs(const std::vector<Val> &outs, const std::vector<ValueType> &types,
                             const std::vector<Val> (&branch_vals)[2]) {
  for (size_t j = 0; j < outs.size(); ++j) {
    if (!b_.has_info(outs[j]) && !types[j].sequence)
      b_.set_info(outs[j], TensorInfo{types[j].dtype, std::nullopt});
    note_branch_shapes(outs[j], branch_vals[0][j], branch_vals[1][j]);
  }
}

// An output both branches give as the same constant (TorchScript's early-return flag, false on
// both paths when the inner return's condition folded) is that constant after the if, so what
// it decides folds too (the ONNX If keeps an output no one reads).
void Walker::bind_same_constants(const Node *n, const std::vector<Bound> (&bounds)[2]) {
  for (size_t i = 0; i < n->outputs().size() && i < bounds[0].size() && i < bounds[1].size(); ++i) {
    const Bound &a = bounds[0][i], &b = bounds[1][i];
    if (a.kind != Bound::Kind::Const || b.kind != Bound::Kind::Const)
      continue;
    const c10::IValue &x = a.constant, &y = b.constant;
    const bool same = (x.isBool() && y.isBool() && x.toBool() == y.toBool()) ||
                      (x.isInt() && y.isInt() && x.toInt() == y.toInt()) ||
                      (x.isDouble() && y.isDouble() && x.toDouble() == y.toDouble()) ||
                      (x.isString() && y.isString() && x.toStringRef() == y.toStringRef());
    if (same)
      bind(n->outputs()[i], a);
  }
}

// An If output that is, in both branches, the same view changed in place (`v = y[:, 0]; if c:
// v += 10`: TorchScript makes the new v an output of the If) is that view too: a later in-place
// op on it writes back to y.
void Walker::keep_view_outputs(const Node *n) {
  auto root = [](const Value *v) {
    while (mutates_first_input(v->node()))
      v = v->node()->input(0);
    return v;
  };
  for (size_t i = 0; i < n->outputs().size(); ++i) {
    const Value *a = root(n->blocks()[0]->outputs()[i]);
    const Value *b = root(n->blocks()[1]->outputs()[i]);
    auto it = view_of_.find(a);
    if (a == b && it != view_of_.end())
      view_of_[n->outputs()[i]] = it->second;
  }
}

// An if on a runtime condition whose results cannot be ONNX values (a string, a device, an
// object: e.g. nn.TransformerEncoder's reason for not taking its fast path, which depends on
// whether the padding mask is left-aligned): the branch the example inputs took is converted,
// with a warning, as no ONNX If can choose between such values.
bool Walker::take_recorded_branch(const Node *n) {
  const c10::TypePtr *bad = nullptr;
  for (const Value *out : n->outputs())
    if (!can_carry(out->type())) {
      bad = &out->type();
      break;
    }
  if (bad == nullptr)
    return false;
  const bool ran[2] = {record_.ran.count(block_key(n->blocks()[0])) > 0,
                       record_.ran.count(block_key(n->blocks()[1])) > 0};
  std::string source = where_of(n).source.empty() ? "?" : where_of(n).source;
  if (ran[0] == ran[1])
    throw Error(fmt::format("a value of type {} cannot be an If output, and the condition depends "
                            "on input values ({})",
                            (*bad)->annotation_str(),
                            ran[0] ? "the example inputs took both branches"
                                   : "the example inputs reached neither branch"),
                "give example values that take the branch you deploy (--input-data), or compute "
                "the condition from shapes or constants");
  const Block *taken = n->blocks()[ran[0] ? 0 : 1];
  warn_changed(
      example_branches_,
      fmt::format(
          "the if at {} gives a {}, which an ONNX If cannot carry, on a condition that depends on "
          "input values: exported the {} branch, which the example inputs took; inputs taking the "
          "other branch are computed as if they took this one",
          source, (*bad)->annotation_str(), ran[0] ? "then" : "else"));
  run_block(taken);
  bind_taken_branch(n, taken);
  return true;
}

// ---- prim::Loop -----------------------------------------------------------------------------

bool Walker::try_unroll(const Node *n) {
  const Bound &trip = lookup(n->input(0));
  const Bound &cond = lookup(n->input(1));
  if (trip.kind != Bound::Kind::Const || !trip.constant.isInt())
    return false;
  if (cond.kind != Bound::Kind::Const || !cond.constant.isBool())
    return false;
  const Block *body = n->blocks()[0];
  int64_t trips = cond.constant.toBool() ? std::max<int64_t>(trip.constant.toInt(), 0) : 0;
  size_t carried = n->outputs().size();
  std::vector<Bound> state;
  for (size_t i = 0; i < carried; ++i)
    state.push_back(lookup(n->input(i + 2)));
  if (trips > 0) {
    // Only loops that always run to the trip count (for i in range(n)): a constant true
    // condition at the end of the body.
    const Value *go = body->outputs()[0];
    auto iv = go->node()->kind() == c10::prim::Constant ? torch::jit::toIValue(go) : c10::nullopt;
    if (!iv || !iv->isBool() || !iv->toBool())
      return false;
    if (trips > kMaxUnrollTrips || count_nodes(body) > kMaxUnrollNodes)
      return false;
  }
  for (int64_t k = 0; k < trips; ++k) {
    Bound index;
    index.kind = Bound::Kind::Const;
    index.constant = c10::IValue(k);
    bind(body->inputs()[0], index);
    for (size_t i = 0; i < carried; ++i)
      bind(body->inputs()[i + 1], state[i]);
    run_block(body);
    for (size_t i = 0; i < carried; ++i)
      state[i] = lookup(body->outputs()[i + 1]);
  }
  for (size_t i = 0; i < carried; ++i)
    bind(n->outputs()[i], state[i]);
  return true;
}

std::pair<Val, Val> Walker::loop_bounds(const Node *n) {
  // Trip count and condition: omitted when unbounded / constant true (a while loop).
  const Bound &trip = lookup(n->input(0));
  Val max_trip;
  if (!(trip.kind == Bound::Kind::Const && trip.constant.isInt() &&
        trip.constant.toInt() == std::numeric_limits<int64_t>::max()))
    max_trip = to_scalar_tensor(trip, DType::Int64);
  const Bound &cond0 = lookup(n->input(1));
  Val cond;
  if (!(cond0.kind == Bound::Kind::Const && cond0.constant.isBool() && cond0.constant.toBool()))
    cond = to_scalar_tensor(cond0, DType::Bool);
  return {max_trip, cond};
}

namespace {
// A carried tensor the recorder did not see (the loop ran zero times): its initial info.
void initial_infos(GraphBuilder &b, const std::vector<Val> &ins, const std::vector<Val> &init,
                   const std::vector<ValueType> &types) {
  for (size_t j = 0; j < ins.size(); ++j)
    if (!types[j].sequence && !b.has_info(ins[j]) && b.has_info(init[j]))
      b.set_info(ins[j], b.info(init[j]));
}
} // namespace

void Walker::set_loop_result_infos(const std::vector<Val> &results,
                                   const std::vector<ValueType> &types,
                                   const std::vector<TensorInfo> &infos,
                                   const std::vector<Val> &init, const std::vector<Val> &body) {
  for (size_t j = 0; j < results.size(); ++j)
    if (!types[j].sequence) {
      b_.set_info(results[j], infos[j]);
      note_branch_shapes(results[j], init[j], body[j]); // zero iterations, or some
    }
}

bool Walker::handle_loop(const Node *n) {
  if (try_unroll(n))
    return true;
  const Block *body = n->blocks()[0];
  size_t carried = n->outputs().size();
  auto mutated = outer_mutations(n);
  auto [max_trip, cond] = loop_bounds(n);
  // Not carried: a value the body passes on unchanged (an Optional only tested inside).
  std::vector<bool> same = unchanged_carried(body);
  std::vector<Val> init;
  std::vector<ValueType> types;
  for (size_t i = 0; i < carried; ++i)
    if (!same[i])
      pack(lookup(n->input(i + 2)), body->inputs()[i + 1]->type(), n->outputs()[i], init, types,
           nullptr);
  for (const Value *m : mutated)
    pack(lookup(m), m->type(), m, init, types, nullptr);
  if (init.empty()) {
    for (size_t i = 0; i < carried; ++i)
      bind(n->outputs()[i], lookup(n->input(i + 2)));
    warnings_.push_back(fmt::format("dropped a loop without results at {}",
                                    where_of(n).source.empty() ? "?" : where_of(n).source));
    return true;
  }
  Env saved = env_;
  b_.begin_subgraph("loop_body");
  Val iter = b_.add_subgraph_input("iter", ValueType{DType::Int64, false, std::vector<Dim>{}});
  b_.add_subgraph_input("cond_in", ValueType{DType::Bool, false, std::vector<Dim>{}});
  std::vector<Val> ins;
  for (const auto &t : types)
    ins.push_back(b_.add_subgraph_input("carried", ValueType{t.dtype, t.sequence, std::nullopt}));
  Bound index;
  index.kind = Bound::Kind::Tensor;
  index.tensor = iter;
  bind(body->inputs()[0], index);
  size_t pos = 0;
  for (size_t i = 0; i < carried; ++i)
    bind(body->inputs()[i + 1],
         same[i] ? lookup(n->input(i + 2))
                 : unpack(body->inputs()[i + 1]->type(), ins, pos, n->outputs()[i]));
  for (const Value *m : mutated) { // views of it taken before the loop: of the carried value
    bind(m, unpack(m->type(), ins, pos, m));
    rederive_views(m, n, {});
  }
  initial_infos(b_, ins, init, types);
  run_block(body);
  std::vector<Val> outs = {to_scalar_tensor(lookup(body->outputs()[0]), DType::Bool)};
  std::vector<ValueType> out_types = {ValueType{DType::Bool, false, std::nullopt}};
  std::vector<Val> vals;
  std::vector<ValueType> vtypes;
  for (size_t i = 0; i < carried; ++i)
    if (!same[i])
      pack(lookup(body->outputs()[i + 1]), body->inputs()[i + 1]->type(), n->outputs()[i], vals,
           vtypes, &types);
  for (const Value *m : mutated)
    pack(lookup(m), m->type(), m, vals, vtypes, &types);
  T2O_CHECK(vals.size() == types.size(), "the loop body gives {} values for {} loop-carried ones",
            vals.size(), types.size());
  outs.insert(outs.end(), vals.begin(), vals.end());
  out_types.insert(out_types.end(), types.begin(), types.end());
  std::vector<TensorInfo> result_infos = loop_result_infos(b_, init, vals, types);
  Subgraph g = b_.end_subgraph(outs, out_types);
  env_ = saved;

  std::vector<Val> inputs = {max_trip, cond};
  inputs.insert(inputs.end(), init.begin(), init.end());
  auto results = b_.op_with_subgraphs("Loop", inputs, {{"body", g}}, static_cast<int>(init.size()));
  set_loop_result_infos(results, types, result_infos, init, vals);
  pos = 0;
  for (size_t i = 0; i < carried; ++i)
    bind(n->outputs()[i], same[i] ? lookup(n->input(i + 2))
                                  : unpack(n->outputs()[i]->type(), results, pos, n->outputs()[i]));
  for (const Value *m : mutated) { // views of it read after the loop: of its final value
    bind(m, unpack(m->type(), results, pos, m));
    rederive_views(m, n, {});
  }
  return true;
}

} // namespace torch2onnx
