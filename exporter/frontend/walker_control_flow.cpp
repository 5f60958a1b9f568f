// Data-dependent control flow: prim::If on a runtime condition becomes an ONNX If, prim::Loop an
// ONNX Loop (or is unrolled when its trip count is a small constant), tensor lists built at run
// time become ONNX sequences, and the list ops on them sequence ops. See docs/control_flow.md.
#include <ATen/ATen.h>
#include <torch/csrc/jit/runtime/operator.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <unordered_set>

#include "aten_lib/helpers.h"
#include "exporter/frontend/torch_util.h"
#include "exporter/frontend/walker.h"

namespace torch2onnx {

using torch::jit::Block;
using torch::jit::Node;
using torch::jit::Value;

namespace {

// Loops with a constant trip count up to this many iterations, whose body has at most
// kMaxUnrollNodes nodes and always continues, are unrolled: every iteration then sees its index
// as a constant, so indexing and sizes fold, and no Loop node is needed.
constexpr int64_t kMaxUnrollTrips = 16;
constexpr size_t kMaxUnrollNodes = 200;

size_t count_nodes(const Block* b) {
  size_t n = 0;
  for (const Node* node : b->nodes()) {
    if (node->kind() == c10::prim::Constant) continue;
    ++n;
    for (const Block* sub : node->blocks()) n += count_nodes(sub);
  }
  return n;
}

bool is_number_type(const c10::TypePtr& t) {
  return number_dtype(t) != DType::Undefined || t->kind() == c10::TypeKind::NumberType;
}

bool is_tensor_list(const c10::TypePtr& t) {
  auto lt = t->cast<c10::ListType>();
  return lt && lt->getElementType()->isSubtypeOf(*c10::TensorType::get());
}

// True when v is defined inside one of n's blocks (at any depth).
bool defined_inside(const Value* v, const Node* n) {
  for (const Block* b = v->node()->owningBlock(); b != nullptr;) {
    const Node* owner = b->owningNode();
    if (owner == n) return true;
    b = owner ? owner->owningBlock() : nullptr;
  }
  return false;
}

bool mutates_first_input(const Node* n) {
  static const std::unordered_set<std::string> list_ops = {"aten::append", "aten::insert",
                                                           "aten::_set_item", "aten::clear"};
  std::string op = n->kind().toQualString();
  if (list_ops.count(op)) return true;
  if (n->inputs().empty() || op.rfind("aten::", 0) != 0) return false;
  std::string name = op.substr(6);
  return name.size() > 1 && name.back() == '_' && name.substr(name.size() - 2) != "__" &&
         name.front() != '_';
}

void collect_mutations(const Block* b, const Node* owner, std::vector<const Value*>& out) {
  for (const Node* n : b->nodes()) {
    if (mutates_first_input(n) && !defined_inside(n->input(0), owner) &&
        std::find(out.begin(), out.end(), n->input(0)) == out.end())
      out.push_back(n->input(0));
    for (const Block* sub : n->blocks()) collect_mutations(sub, owner, out);
  }
}

bool same_dtype_or_unknown(DType a, DType b) {
  return a == DType::Undefined || b == DType::Undefined || a == b;
}

}  // namespace

DType number_dtype(const c10::TypePtr& t) {
  switch (t->kind()) {
    case c10::TypeKind::IntType: return DType::Int64;
    case c10::TypeKind::FloatType: return DType::Double;
    case c10::TypeKind::BoolType: return DType::Bool;
    default: return DType::Undefined;
  }
}

bool block_raises(const Block* block) {
  for (const Node* n : block->nodes())
    if (n->kind() == c10::prim::RaiseException) return true;
  return false;
}

std::string Walker::converter_key(const Node* n) const {
  // Overloads on plain numbers (aten::add.int, aten::lt.float, aten::Bool.int, ...) have their
  // own converters, registered as "<op>.num": the tensor converter of the same op does not fit.
  std::string op = n->kind().toQualString();
  if (n->inputs().empty() || n->outputs().size() != 1) return op;
  for (const Value* v : n->inputs())
    if (!is_number_type(v->type())) return op;
  if (!is_number_type(n->output()->type())) return op;
  return op + ".num";
}

bool Walker::only_feeds_checks(const Node* n) const {
  auto it = feeds_checks_.find(n);
  if (it != feeds_checks_.end()) return it->second;
  bool skip = !n->outputs().empty() && n->blocks().empty() && !n->hasSideEffects() &&
              n->kind() != c10::prim::Constant;
  for (const Value* o : n->outputs()) {
    if (!skip) break;
    skip = !o->type()->isSubtypeOf(*c10::TensorType::get()) && o->hasUses();
    for (const auto& use : o->uses()) {
      const Node* u = use.user;
      bool check = u->kind() == c10::prim::If && use.offset == 0 &&
                   (block_raises(u->blocks()[0]) || block_raises(u->blocks()[1])) &&
                   u->outputs().empty();
      skip = skip && (check || only_feeds_checks(u));
    }
  }
  feeds_checks_[n] = skip;
  return skip;
}

const TensorInfo* Walker::info_of_value(const Value* v) const {
  if (const TensorInfo* info = record_.find(v)) return info;
  auto it = inferred_.find(v);
  return it == inferred_.end() ? nullptr : &it->second;
}

std::vector<const Value*> Walker::outer_mutations(const Node* n) const {
  std::vector<const Value*> out;
  for (const Block* b : n->blocks()) collect_mutations(b, n, out);
  return out;
}

// ---- values across subgraph boundaries ------------------------------------------------------

Val Walker::to_scalar_tensor(const Bound& bd, DType dtype) {
  if (bd.kind == Bound::Kind::Const) {
    const c10::IValue& iv = bd.constant;
    if (iv.isInt() && dtype == DType::Int64) return b_.const_i64_scalar(iv.toInt());
    if (iv.isInt() || iv.isDouble() || iv.isBool()) {
      double v = iv.isInt() ? static_cast<double>(iv.toInt()) : iv.isDouble() ? iv.toDouble()
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
  if (!b_.has_info(t) || b_.rank(t) != 0) t = reshape(b_, t, {});
  b_.set_info(t, TensorInfo{dtype, std::vector<Dim>{}});
  return t;
}

DType Walker::list_elem_dtype(const Value* list) const {
  for (const auto& use : list->uses()) {
    const Node* u = use.user;
    if (u->kind() == c10::aten::append && u->inputs().size() > 1)
      if (const TensorInfo* info = info_of_value(u->input(1))) return info->dtype;
    if ((u->kind() == c10::aten::stack || u->kind() == c10::aten::cat) && u->outputs().size() == 1)
      if (const TensorInfo* info = info_of_value(u->output())) return info->dtype;
  }
  return DType::Float;
}

Val Walker::to_sequence(const Bound& bd, DType dtype) {
  if (bd.kind == Bound::Kind::Seq) return bd.tensor;
  std::vector<Bound> items;
  if (bd.kind == Bound::Kind::List) {
    items = bd.items;
  } else {
    T2O_CHECK(bd.kind == Bound::Kind::Const && bd.constant.isList(),
              "expected a list of tensors");
    for (const auto& e : bd.constant.toListRef()) {
      Bound eb;
      eb.kind = Bound::Kind::Const;
      eb.constant = e;
      items.push_back(eb);
    }
  }
  if (items.empty()) {
    Val s = b_.op1("SequenceEmpty", {}, {{"dtype", static_cast<int64_t>(dtype)}});
    return s;
  }
  std::vector<Val> vals;
  for (const auto& it : items) {
    Arg a = to_arg(it, nullptr);
    T2O_CHECK(a.is_tensor(), "a tensor list item is {}", a.describe());
    Val v = a.t();
    if (b_.has_info(v)) v = cast_to(b_, v, dtype);
    vals.push_back(v);
  }
  return b_.op1("SequenceConstruct", vals);
}

void Walker::pack(const Bound& bd, const c10::TypePtr& type, const Value* origin,
                  std::vector<Val>& vals, std::vector<ValueType>& types,
                  const std::vector<ValueType>* want) {
  auto wanted = [&]() -> const ValueType* {
    return want && vals.size() < want->size() ? &(*want)[vals.size()] : nullptr;
  };
  if (auto tt = type->cast<c10::TupleType>()) {
    std::vector<Bound> items = bd.items;
    if (bd.kind == Bound::Kind::Const && bd.constant.isTuple()) {
      items.clear();
      for (const auto& e : bd.constant.toTupleRef().elements()) {
        Bound eb;
        eb.kind = Bound::Kind::Const;
        eb.constant = e;
        items.push_back(eb);
      }
    }
    T2O_CHECK(items.size() == tt->elements().size(), "a tuple of {} items where {} are expected",
              items.size(), tt->elements().size());
    for (size_t i = 0; i < items.size(); ++i) pack(items[i], tt->elements()[i], nullptr, vals, types, want);
    return;
  }
  if (auto ot = type->cast<c10::OptionalType>()) {
    T2O_CHECK(!(bd.kind == Bound::Kind::Const && bd.constant.isNone()),
              "an Optional value is None on one path of the control flow and not on another",
              "give it a value on every path (e.g. a zero tensor instead of None)");
    pack(bd, ot->getElementType(), origin, vals, types, want);
    return;
  }
  if (type->kind() == c10::TypeKind::NoneType) return;
  if (is_tensor_list(type)) {
    const ValueType* w = wanted();
    DType dt = w ? w->dtype : bd.kind == Bound::Kind::Seq && bd.seq_dtype != DType::Undefined
                                  ? bd.seq_dtype
                                  : origin ? list_elem_dtype(origin) : DType::Float;
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
  T2O_CHECK(type->isSubtypeOf(*c10::TensorType::get()),
            "a value of type {} cannot be an If output or a loop-carried value",
            type->annotation_str());
  Arg a = to_arg(bd, origin);
  T2O_CHECK(a.is_tensor(), "expected a tensor, got {}", a.describe());
  Val v = a.t();
  const ValueType* w = wanted();
  DType dt = w ? w->dtype : b_.has_info(v) ? b_.dtype(v) : DType::Undefined;
  if (dt == DType::Undefined && origin)
    if (const TensorInfo* info = info_of_value(origin)) dt = info->dtype;
  if (w && b_.has_info(v) && !same_dtype_or_unknown(b_.dtype(v), dt)) v = cast_to(b_, v, dt);
  vals.push_back(v);
  types.push_back(ValueType{dt, false, std::nullopt});
}

Walker::Bound Walker::unpack(const c10::TypePtr& type, const std::vector<Val>& vals, size_t& pos,
                             const Value* origin) {
  Bound bd;
  if (auto tt = type->cast<c10::TupleType>()) {
    bd.kind = Bound::Kind::List;
    for (const auto& e : tt->elements()) bd.items.push_back(unpack(e, vals, pos, nullptr));
    return bd;
  }
  if (auto ot = type->cast<c10::OptionalType>()) return unpack(ot->getElementType(), vals, pos, origin);
  if (type->kind() == c10::TypeKind::NoneType) {
    bd.kind = Bound::Kind::Const;
    return bd;
  }
  T2O_CHECK(pos < vals.size(), "internal error: too few values to unpack");
  const Val& v = vals[pos++];
  if (is_tensor_list(type)) {
    bd.kind = Bound::Kind::Seq;
    bd.tensor = v;
    bd.seq_dtype = origin ? list_elem_dtype(origin) : DType::Undefined;
    return bd;
  }
  bd.kind = Bound::Kind::Tensor;
  bd.tensor = v;
  DType num = number_dtype(type);
  if (num != DType::Undefined) b_.set_info(v, TensorInfo{num, std::vector<Dim>{}});
  return bd;
}

// ---- prim::If -------------------------------------------------------------------------------

void Walker::convert_if(const Node* n) {
  const Block* blocks[2] = {n->blocks()[0], n->blocks()[1]};
  bool raises[2] = {block_raises(blocks[0]), block_raises(blocks[1])};
  if (raises[0] || raises[1]) {
    T2O_CHECK(!(raises[0] && raises[1]), "both branches of this if raise an exception");
    // The exception is dropped (like the other prim::RaiseException): assume the model is used
    // only on inputs it accepts, so the other branch is the one that runs.
    const Block* taken = blocks[raises[0] ? 1 : 0];
    warnings_.push_back(fmt::format("dropped the branch that raises an exception at {}",
                                    where_of(n).source.empty() ? n->kind().toQualString()
                                                               : where_of(n).source));
    run_block(taken);
    for (size_t i = 0; i < n->outputs().size(); ++i) {
      Bound out = lookup(taken->outputs()[i]);
      bind(n->outputs()[i], out);
    }
    return;
  }
  Val cond = to_scalar_tensor(lookup(n->input(0)), DType::Bool);
  auto mutated = outer_mutations(n);
  // Outputs that are the same value on both paths (pooled constants, outer values) need no
  // ONNX output.
  std::vector<bool> shared(n->outputs().size());
  for (size_t i = 0; i < shared.size(); ++i)
    shared[i] = blocks[0]->outputs()[i] == blocks[1]->outputs()[i];
  Env saved = env_;
  Subgraph graphs[2];
  std::vector<ValueType> then_types;
  size_t count = 0;
  for (int k = 0; k < 2; ++k) {
    b_.begin_subgraph(k == 0 ? "then" : "else");
    run_block(blocks[k]);
    std::vector<Val> vals;
    std::vector<ValueType> types;
    const std::vector<ValueType>* want = k == 1 ? &then_types : nullptr;
    for (size_t i = 0; i < n->outputs().size(); ++i)
      if (!shared[i])
        pack(lookup(blocks[k]->outputs()[i]), n->outputs()[i]->type(), n->outputs()[i], vals, types,
             want);
    for (const Value* m : mutated) pack(lookup(m), m->type(), m, vals, types, want);
    T2O_CHECK(k == 0 || vals.size() == count,
              "the branches of this if give {} and {} values; their types must match", count,
              vals.size());
    count = vals.size();
    graphs[k] = b_.end_subgraph(vals, types);
    if (k == 0) then_types = types;
    env_ = saved;
  }
  for (size_t i = 0; i < n->outputs().size(); ++i)
    if (shared[i]) {
      Bound out = lookup(blocks[0]->outputs()[i]);
      bind(n->outputs()[i], out);
    }
  if (count == 0) return;  // nothing observable happens in either branch
  auto outs = b_.op_with_subgraphs("If", {cond}, {{"then_branch", graphs[0]}, {"else_branch", graphs[1]}},
                                   static_cast<int>(count));
  for (size_t j = 0; j < outs.size(); ++j)
    if (!b_.has_info(outs[j]) && !then_types[j].sequence)
      b_.set_info(outs[j], TensorInfo{then_types[j].dtype, std::nullopt});
  size_t pos = 0;
  for (size_t i = 0; i < n->outputs().size(); ++i)
    if (!shared[i]) bind(n->outputs()[i], unpack(n->outputs()[i]->type(), outs, pos, n->outputs()[i]));
  for (const Value* m : mutated) bind(m, unpack(m->type(), outs, pos, m));
}

// ---- prim::Loop -----------------------------------------------------------------------------

bool Walker::try_unroll(const Node* n) {
  const Bound& trip = lookup(n->input(0));
  const Bound& cond = lookup(n->input(1));
  if (trip.kind != Bound::Kind::Const || !trip.constant.isInt()) return false;
  if (cond.kind != Bound::Kind::Const || !cond.constant.isBool()) return false;
  const Block* body = n->blocks()[0];
  int64_t trips = cond.constant.toBool() ? std::max<int64_t>(trip.constant.toInt(), 0) : 0;
  size_t carried = n->outputs().size();
  std::vector<Bound> state;
  for (size_t i = 0; i < carried; ++i) state.push_back(lookup(n->input(i + 2)));
  if (trips > 0) {
    // Only loops that always run to the trip count (for i in range(n)): a constant true
    // condition at the end of the body.
    const Value* go = body->outputs()[0];
    auto iv = go->node()->kind() == c10::prim::Constant ? torch::jit::toIValue(go) : c10::nullopt;
    if (!iv || !iv->isBool() || !iv->toBool()) return false;
    if (trips > kMaxUnrollTrips || count_nodes(body) > kMaxUnrollNodes) return false;
  }
  for (int64_t k = 0; k < trips; ++k) {
    Bound index;
    index.kind = Bound::Kind::Const;
    index.constant = c10::IValue(k);
    bind(body->inputs()[0], index);
    for (size_t i = 0; i < carried; ++i) bind(body->inputs()[i + 1], state[i]);
    run_block(body);
    for (size_t i = 0; i < carried; ++i) state[i] = lookup(body->outputs()[i + 1]);
  }
  for (size_t i = 0; i < carried; ++i) bind(n->outputs()[i], state[i]);
  return true;
}

void Walker::convert_loop(const Node* n) {
  if (try_unroll(n)) return;
  const Block* body = n->blocks()[0];
  size_t carried = n->outputs().size();
  auto mutated = outer_mutations(n);
  // Trip count and condition: omitted when unbounded / constant true (a while loop).
  const Bound& trip = lookup(n->input(0));
  Val max_trip;
  if (!(trip.kind == Bound::Kind::Const && trip.constant.isInt() &&
        trip.constant.toInt() == std::numeric_limits<int64_t>::max()))
    max_trip = to_scalar_tensor(trip, DType::Int64);
  const Bound& cond0 = lookup(n->input(1));
  Val cond;
  if (!(cond0.kind == Bound::Kind::Const && cond0.constant.isBool() && cond0.constant.toBool()))
    cond = to_scalar_tensor(cond0, DType::Bool);
  std::vector<Val> init;
  std::vector<ValueType> types;
  for (size_t i = 0; i < carried; ++i)
    pack(lookup(n->input(i + 2)), body->inputs()[i + 1]->type(), n->outputs()[i], init, types,
         nullptr);
  for (const Value* m : mutated) pack(lookup(m), m->type(), m, init, types, nullptr);
  if (init.empty()) {
    warnings_.push_back(fmt::format("dropped a loop without results at {}",
                                    where_of(n).source.empty() ? "?" : where_of(n).source));
    return;
  }

  Env saved = env_;
  b_.begin_subgraph("loop_body");
  Val iter = b_.add_subgraph_input("iter", ValueType{DType::Int64, false, std::vector<Dim>{}});
  b_.add_subgraph_input("cond_in", ValueType{DType::Bool, false, std::vector<Dim>{}});
  std::vector<Val> ins;
  for (const auto& t : types) ins.push_back(b_.add_subgraph_input("carried", ValueType{t.dtype, t.sequence, std::nullopt}));
  Bound index;
  index.kind = Bound::Kind::Tensor;
  index.tensor = iter;
  bind(body->inputs()[0], index);
  size_t pos = 0;
  for (size_t i = 0; i < carried; ++i)
    bind(body->inputs()[i + 1], unpack(body->inputs()[i + 1]->type(), ins, pos, n->outputs()[i]));
  for (const Value* m : mutated) bind(m, unpack(m->type(), ins, pos, m));
  // A carried tensor the recorder did not see (the loop ran zero times): its initial info.
  for (size_t j = 0; j < ins.size(); ++j)
    if (!types[j].sequence && !b_.has_info(ins[j]) && b_.has_info(init[j]))
      b_.set_info(ins[j], b_.info(init[j]));
  run_block(body);
  std::vector<Val> outs = {to_scalar_tensor(lookup(body->outputs()[0]), DType::Bool)};
  std::vector<ValueType> out_types = {ValueType{DType::Bool, false, std::nullopt}};
  std::vector<Val> vals;
  std::vector<ValueType> vtypes;
  for (size_t i = 0; i < carried; ++i)
    pack(lookup(body->outputs()[i + 1]), body->outputs()[i + 1]->type(), n->outputs()[i], vals,
         vtypes, &types);
  for (const Value* m : mutated) pack(lookup(m), m->type(), m, vals, vtypes, &types);
  T2O_CHECK(vals.size() == types.size(), "the loop body gives {} values for {} loop-carried ones",
            vals.size(), types.size());
  outs.insert(outs.end(), vals.begin(), vals.end());
  out_types.insert(out_types.end(), types.begin(), types.end());
  Subgraph g = b_.end_subgraph(outs, out_types);
  env_ = saved;

  std::vector<Val> inputs = {max_trip, cond};
  inputs.insert(inputs.end(), init.begin(), init.end());
  auto results = b_.op_with_subgraphs("Loop", inputs, {{"body", g}}, static_cast<int>(init.size()));
  for (size_t j = 0; j < results.size(); ++j)
    if (!types[j].sequence) b_.set_info(results[j], TensorInfo{types[j].dtype, std::nullopt});
  pos = 0;
  for (size_t i = 0; i < carried; ++i)
    bind(n->outputs()[i], unpack(n->outputs()[i]->type(), results, pos, n->outputs()[i]));
  for (const Value* m : mutated) bind(m, unpack(m->type(), results, pos, m));
}

// ---- lists ----------------------------------------------------------------------------------

bool Walker::try_control_flow(const Node* n) {
  if (n->kind() == c10::prim::If && n->outputs().empty() &&
      (block_raises(n->blocks()[0]) || block_raises(n->blocks()[1])) &&
      only_feeds_checks(n->input(0)->node())) {
    warnings_.push_back(fmt::format("dropped a check that raises an exception at {}",
                                    where_of(n).source.empty() ? "?" : where_of(n).source));
    return true;
  }
  if (n->kind() == c10::prim::Loop) {
    convert_loop(n);
    return true;
  }
  return try_list_op(n);
}

bool Walker::try_list_op(const Node* n) {
  using K = Bound::Kind;
  auto kind = n->kind();
  if (kind == c10::aten::__is__ || kind == c10::aten::__isnot__) {
    const Bound& a = lookup(n->input(0));
    const Bound& b = lookup(n->input(1));
    auto is_none = [](const Bound& x) { return x.kind == K::Const && x.constant.isNone(); };
    if (a.kind == K::Const && b.kind == K::Const) return false;  // folds
    if (!is_none(a) && !is_none(b)) return false;
    Bound out;
    out.kind = K::Const;
    out.constant = c10::IValue(kind == c10::aten::__isnot__);
    bind(n->output(), out);
    return true;
  }
  if (kind == c10::aten::list && n->inputs().size() == 1 && lookup(n->input(0)).kind != K::Const) {
    Bound copy = lookup(n->input(0));
    bind(n->output(), copy);
    return true;
  }
  if (kind == c10::aten::append) {
    Bound list = lookup(n->input(0));
    Bound item = lookup(n->input(1));
    Bound out;
    if (list.kind == K::Seq) {
      Arg a = to_arg(item, n->input(1));
      T2O_CHECK(a.is_tensor(), "appending {} to a tensor list", a.describe());
      Val v = a.t();
      if (list.seq_dtype != DType::Undefined && b_.has_info(v)) v = cast_to(b_, v, list.seq_dtype);
      out = list;
      out.tensor = b_.op1("SequenceInsert", {list.tensor, v});
    } else {
      out.kind = K::List;
      if (list.kind == K::List) {
        out.items = list.items;
      } else {
        T2O_CHECK(list.kind == K::Const && list.constant.isList(), "append to a non-list value");
        for (const auto& e : list.constant.toListRef()) {
          Bound eb;
          eb.kind = K::Const;
          eb.constant = e;
          out.items.push_back(eb);
        }
      }
      out.items.push_back(item);
    }
    env_[n->input(0)] = out;
    bind(n->output(), out);
    return true;
  }
  if (n->inputs().empty() || lookup(n->input(0)).kind != K::Seq) {
    // A runtime index into a list whose items are known: make it a sequence first.
    if (kind == c10::aten::__getitem__ && lookup(n->input(0)).kind == K::List &&
        lookup(n->input(0)).keys.empty() && lookup(n->input(1)).kind == K::Tensor &&
        is_tensor_list(n->input(0)->type())) {
      const TensorInfo* info = info_of_value(n->output());
      Val seq = to_sequence(lookup(n->input(0)), info ? info->dtype : list_elem_dtype(n->input(0)));
      Bound out;
      out.kind = K::Tensor;
      out.tensor = b_.op1("SequenceAt", {seq, to_scalar_tensor(lookup(n->input(1)), DType::Int64)});
      bind(n->output(), out);
      return true;
    }
    return false;
  }
  const Bound seq = lookup(n->input(0));
  Bound out;
  out.kind = K::Tensor;
  if (kind == c10::aten::len) {
    out.tensor = b_.op1("SequenceLength", {seq.tensor});
    b_.set_info(out.tensor, TensorInfo{DType::Int64, std::vector<Dim>{}});
  } else if (kind == c10::aten::__getitem__) {
    out.tensor = b_.op1("SequenceAt", {seq.tensor, to_scalar_tensor(lookup(n->input(1)), DType::Int64)});
  } else if (kind == c10::aten::stack || kind == c10::aten::cat) {
    const Bound& dim = lookup(n->input(1));
    T2O_CHECK(dim.kind == K::Const && dim.constant.isInt(), "the dim of {} must be a constant",
              kind.toQualString());
    out.tensor = b_.op1("ConcatFromSequence", {seq.tensor},
                        {{"axis", dim.constant.toInt()},
                         {"new_axis", int64_t{kind == c10::aten::stack ? 1 : 0}}});
  } else if (kind == c10::prim::ListUnpack) {
    for (size_t i = 0; i < n->outputs().size(); ++i) {
      Bound item;
      item.kind = K::Tensor;
      item.tensor = b_.op1("SequenceAt", {seq.tensor, b_.const_i64_scalar(static_cast<int64_t>(i))});
      bind(n->outputs()[i], item);
    }
    return true;
  } else {
    throw Error(fmt::format("{} on a list built at run time (an ONNX sequence) is not supported",
                            kind.toQualString()),
                "use len, indexing, append, torch.stack or torch.cat on such lists");
  }
  bind(n->output(), out);
  return true;
}

// ---- shapes of values the recorder did not see ----------------------------------------------

void Walker::infer_missing(const Node* n) {
  bool needed = false;
  for (const Value* o : n->outputs())
    needed = needed || (o->type()->isSubtypeOf(*c10::TensorType::get()) && !info_of_value(o));
  if (!needed || !n->blocks().empty() || n->maybeOperator() == nullptr) return;
  bool guessed = false;  // a runtime number was replaced by a placeholder
  std::function<bool(const Bound&, const c10::TypePtr&, c10::IValue&)> placeholder =
      [&](const Bound& bd, const c10::TypePtr& type, c10::IValue& out) -> bool {
    switch (bd.kind) {
      case Bound::Kind::Const: out = bd.constant; return true;
      case Bound::Kind::Tensor: {
        DType num = number_dtype(type);
        if (num != DType::Undefined) {
          guessed = true;
          out = num == DType::Int64 ? c10::IValue(int64_t{0})
                : num == DType::Double ? c10::IValue(0.0) : c10::IValue(false);
          return true;
        }
        if (!b_.has_info(bd.tensor) || !b_.info(bd.tensor).is_static()) return false;
        const TensorInfo& info = b_.info(bd.tensor);
        out = at::zeros(info.sizes(), at::TensorOptions().dtype(to_scalar_type(info.dtype)));
        return true;
      }
      case Bound::Kind::List: {
        auto lt = type->cast<c10::ListType>();
        if (!lt || !lt->getElementType()->isSubtypeOf(*c10::TensorType::get())) return false;
        c10::List<at::Tensor> list;
        for (const auto& it : bd.items) {
          c10::IValue v;
          if (!placeholder(it, lt->getElementType(), v) || !v.isTensor()) return false;
          list.push_back(v.toTensor());
        }
        out = list;
        return true;
      }
      default: return false;
    }
  };
  torch::jit::Stack stack;
  for (const Value* in : n->inputs()) {
    c10::IValue v;
    if (!placeholder(lookup(in), in->type(), v)) return;
    stack.push_back(std::move(v));
  }
  try {
    n->getOperation()(stack);
  } catch (const std::exception&) {
    return;  // unknown shape; a converter that needs it says so
  }
  for (size_t i = 0; i < n->outputs().size() && i < stack.size(); ++i) {
    const Value* o = n->outputs()[i];
    if (!stack[i].isTensor() || info_of_value(o)) continue;
    try {
      TensorInfo info = info_of(stack[i].toTensor());
      if (guessed && info.shape)
        for (auto& d : *info.shape) d = Dim{};  // sizes may depend on the placeholder number
      inferred_[o] = info;
    } catch (const Error&) {
    }
  }
}

}  // namespace torch2onnx
