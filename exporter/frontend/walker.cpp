#include "exporter/frontend/walker.h"

#include <ATen/ATen.h>
#include <torch/csrc/jit/runtime/operator.h>

#include <set>
#include <unordered_set>

#include "exporter/frontend/torch_util.h"

namespace torch2onnx {

namespace {

using torch::jit::Node;
using torch::jit::Value;

// Ops that read only a tensor's metadata: with a static recorded shape they fold to constants.
const std::unordered_set<std::string>& metadata_ops() {
  static const std::unordered_set<std::string> ops = {
      "aten::size",  "aten::dim",    "prim::dtype",   "prim::device", "aten::numel",
      "prim::layout", "aten::is_floating_point", "prim::is_cuda", "aten::len", "prim::is_quantized",
      "aten::is_complex"};
  return ops;
}

// prim:: nodes (and list helpers) the walker handles itself.
const std::unordered_set<std::string>& walker_ops() {
  static const std::unordered_set<std::string> ops = {
      "prim::Constant",     "prim::ListConstruct", "prim::ListUnpack",      "prim::TupleConstruct",
      "prim::TupleUnpack",  "prim::NumToTensor",   "prim::unchecked_cast",  "prim::Uninitialized",
      "prim::RaiseException", "aten::warn",        "prim::If",              "aten::__getitem__",
      "prim::TupleIndex",   "prim::GetAttr",       "prim::DictConstruct",   "aten::detach",
      "prim::Loop",         "aten::append",        "aten::__is__",          "aten::__isnot__",
      "aten::list"};
  return ops;
}

bool is_foldable(const Node* n) {
  if (!n->blocks().empty() || n->hasSideEffects() || n->isNondeterministic()) return false;
  if (n->kind() == c10::prim::GetAttr || n->kind() == c10::prim::CallMethod ||
      n->kind() == c10::prim::CallFunction)
    return false;
  return n->maybeOperator() != nullptr;
}

bool is_inplace(const std::string& op) {
  auto pos = op.find("::");
  std::string name = pos == std::string::npos ? op : op.substr(pos + 2);
  return name.size() > 1 && name.back() == '_' && name.substr(name.size() - 2) != "__" &&
         name.front() != '_';
}

// Ops whose output aliases its first input and whose mutation write_back can scatter back.
bool is_view_op(const Node* n) {
  static const std::unordered_set<std::string> ops = {"aten::slice", "aten::select", "aten::view",
                                                      "aten::unsqueeze", "aten::squeeze",
                                                      "aten::narrow"};
  if (!ops.count(n->kind().toQualString()) || n->outputs().size() != 1 || n->inputs().empty() ||
      !n->input(0)->type()->isSubtypeOf(*c10::TensorType::get()))
    return false;
  // view(dtype) reinterprets the bytes: reshaping back would be wrong, so it is not tracked.
  return n->kind() != c10::aten::view ||
         (n->inputs().size() == 2 && n->input(1)->type()->cast<c10::ListType>() != nullptr);
}

bool is_tensor_type(const Value* v) { return v->type()->isSubtypeOf(*c10::TensorType::get()); }


std::string place_of(const Node* n) {
  NodeWhere w = where_of(n);
  std::string scope = w.scope.empty() ? "<top>" : w.scope;
  return w.source.empty() ? scope : fmt::format("{} ({})", scope, w.source);
}

// Metadata that does not depend on the sizes (dtype, device, rank): folds even when some dims
// are dynamic, as long as the rank is known.
bool foldable_metadata(const std::string& op, const TensorInfo* info) {
  static const std::unordered_set<std::string> size_free = {
      "aten::dim",   "prim::dtype", "prim::device", "prim::layout",      "aten::is_floating_point",
      "prim::is_cuda", "aten::is_complex", "prim::is_quantized"};
  return info && (info->is_static() || (info->has_rank() && size_free.count(op)));
}

at::Tensor meta_tensor(const TensorInfo& info) {
  std::vector<int64_t> sizes;
  for (const Dim& d : *info.shape) sizes.push_back(d.is_static() ? d.value : 1);
  return at::empty(sizes, at::TensorOptions().dtype(to_scalar_type(info.dtype)).device(at::kMeta));
}

}  // namespace

std::string format_unsupported(const std::vector<UnsupportedOp>& ops, int opset) {
  std::string msg = fmt::format("{} op{} ha{} no converter at opset {}:", ops.size(),
                                ops.size() == 1 ? "" : "s", ops.size() == 1 ? "s" : "ve", opset);
  for (const auto& u : ops) {
    msg += fmt::format("\n  {} ({} use{}): {}", u.op, u.uses, u.uses == 1 ? "" : "s",
                       fmt::join(u.places, "; "));
    if (u.places.size() < u.uses) msg += fmt::format("; ... {} more", u.uses - u.places.size());
    if (u.available_from > 0) msg += fmt::format(" [supported from opset {}: use --opset {}]",
                                                 u.available_from, u.available_from);
  }
  return msg;
}

Walker::Walker(GraphBuilder& b, const ShapeRecord& record, const Registry& registry)
    : b_(b), record_(record), registry_(registry) {}

// ---- pre-scan -------------------------------------------------------------------------------

std::vector<UnsupportedOp> Walker::find_unsupported(const torch::jit::Graph& graph) const {
  std::unordered_set<const Value*> consts;
  std::map<std::string, UnsupportedOp> found;
  std::function<void(const torch::jit::Block*)> scan = [&](const torch::jit::Block* block) {
    for (const Node* n : block->nodes()) {
      if (only_feeds_checks(n)) continue;
      std::string op = n->kind().toQualString();
      bool all_const = true;
      for (const Value* in : n->inputs()) all_const = all_const && consts.count(in);
      bool metadata_static = false;
      if (metadata_ops().count(op) && !n->inputs().empty()) {
        const TensorInfo* info = record_.find(n->inputs()[0]);
        metadata_static = foldable_metadata(op, info);
      }
      if (n->kind() == c10::prim::Constant || metadata_static ||
          (all_const && is_foldable(n) && !walker_ops().count(op))) {
        for (const Value* o : n->outputs()) consts.insert(o);
        continue;
      }
      if (n->kind() == c10::prim::If || n->kind() == c10::prim::Loop) {
        // Both branches must be convertible (a constant condition picks one; a runtime one
        // becomes an ONNX If); a branch that raises is dropped, so it is not scanned.
        for (const auto* sub : n->blocks())
          if (!block_raises(sub)) scan(sub);
        continue;
      }
      if (walker_ops().count(op)) {
        if ((n->kind() == c10::prim::ListConstruct || n->kind() == c10::prim::TupleConstruct ||
             n->kind() == c10::prim::ListUnpack || n->kind() == c10::prim::TupleUnpack) &&
            all_const)
          for (const Value* o : n->outputs()) consts.insert(o);
        continue;
      }
      if (registry_.find(converter_key(n), b_.opset()) || registry_.find(op, b_.opset())) continue;
      op = converter_key(n);
      auto& u = found[op];
      u.op = op;
      ++u.uses;
      if (u.places.size() < 3) u.places.push_back(place_of(n));
      for (const auto* e : registry_.entries())
        if (e->op == op && (u.available_from == 0 || e->since_opset < u.available_from))
          u.available_from = e->since_opset;
    }
  };
  scan(graph.block());
  std::vector<UnsupportedOp> out;
  for (auto& [op, u] : found) out.push_back(std::move(u));
  return out;
}

// ---- environment ----------------------------------------------------------------------------

const Walker::Bound& Walker::lookup(const Value* v) const {
  auto it = env_.find(v);
  T2O_CHECK(it != env_.end() && it->second.kind != Bound::Kind::Unset,
            "internal error: value %{} is used before it is defined", v->debugName());
  return it->second;
}

void Walker::bind(const Value* v, Bound bound) {
  if (bound.kind == Bound::Kind::Tensor) {
    if (const TensorInfo* info = info_of_value(v)) b_.set_info(bound.tensor, *info);
  }
  env_[v] = std::move(bound);
}

void Walker::bind_input(const Value* v, const Val& val) {
  Bound bd;
  bd.kind = Bound::Kind::Tensor;
  bd.tensor = val;
  env_[v] = bd;
}

Val Walker::materialize(const at::Tensor& t, const std::string& hint) {
  const void* key = t.unsafeGetTensorImpl();
  auto it = materialized_.find(key);
  if (it != materialized_.end()) return it->second.second;
  std::string name = hint;
  if (name.rfind("self.", 0) == 0) name = name.substr(5);
  // Debug names of plain temporaries are numbers ("123"); give constants a readable stem.
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = "const";
  Val v = b_.constant(to_tensor_data(t), name);
  materialized_.emplace(key, std::make_pair(t, v));
  return v;
}

Arg Walker::to_arg(const Bound& bd, const Value* origin) {
  switch (bd.kind) {
    case Bound::Kind::Tensor: return Arg::of_tensor(bd.tensor);
    case Bound::Kind::List: {
      std::vector<Arg> items;
      for (const auto& it : bd.items) items.push_back(to_arg(it, origin));
      return Arg::of_list(std::move(items));
    }
    case Bound::Kind::Unset: return Arg::none();
    case Bound::Kind::Seq:
      throw Error(fmt::format("%{} is a list built at run time (an ONNX sequence); only "
                              "len, indexing, append, torch.stack and torch.cat take one",
                              origin ? origin->debugName() : "?"),
                  "stack the list into a tensor first (torch.stack), or make its length fixed");
    case Bound::Kind::Const: break;
  }
  const c10::IValue& iv = bd.constant;
  if (iv.isNone()) return Arg::none();
  if (iv.isTensor()) {
    const at::Tensor& t = iv.toTensor();
    if (!t.defined()) return Arg::none();
    return Arg::of_tensor(materialize(t, origin ? origin->debugName() : "const"));
  }
  if (iv.isInt()) return Arg::of_int(iv.toInt());
  if (iv.isDouble()) return Arg::of_float(iv.toDouble());
  if (iv.isBool()) return Arg::of_bool(iv.toBool());
  if (iv.isString()) return Arg::of_string(iv.toStringRef());
  if (iv.isDevice()) {
    Arg a;
    a.kind = Arg::Kind::Device;
    a.s = iv.toDevice().str();
    return a;
  }
  if (iv.isList() || iv.isTuple()) {
    std::vector<Arg> items;
    auto elems = iv.isList() ? iv.toListRef().vec() : iv.toTupleRef().elements().vec();
    for (const auto& e : elems) {
      Bound eb;
      eb.kind = Bound::Kind::Const;
      eb.constant = e;
      items.push_back(to_arg(eb, origin));
    }
    return Arg::of_list(std::move(items));
  }
  Arg a;
  a.kind = Arg::Kind::Other;
  a.s = iv.tagKind();
  return a;
}

Walker::Bound Walker::from_arg(const Arg& a, const Value* v) {
  Bound bd;
  switch (a.kind) {
    case Arg::Kind::Tensor:
      bd.kind = Bound::Kind::Tensor;
      bd.tensor = a.tensor;
      return bd;
    case Arg::Kind::List: {
      bool all_const = true;
      for (const auto& it : a.items) all_const = all_const && it.is_number();
      if (!all_const || a.items.empty()) {
        bd.kind = Bound::Kind::List;
        for (const auto& it : a.items) bd.items.push_back(from_arg(it, nullptr));
        return bd;
      }
      bd.kind = Bound::Kind::Const;
      if (a.items[0].kind == Arg::Kind::Float)
        bd.constant = c10::IValue(a.to_doubles());
      else
        bd.constant = c10::IValue(a.to_ints());
      return bd;
    }
    case Arg::Kind::Int: bd.constant = c10::IValue(a.i); break;
    case Arg::Kind::Float: bd.constant = c10::IValue(a.f); break;
    case Arg::Kind::Bool: bd.constant = c10::IValue(a.b); break;
    case Arg::Kind::String: bd.constant = c10::IValue(a.s); break;
    case Arg::Kind::None: bd.constant = c10::IValue(); break;
    default:
      throw Error(fmt::format("converter produced an unsupported result ({}) for %{}", a.describe(),
                              v ? v->debugName() : "?"));
  }
  bd.kind = Bound::Kind::Const;
  return bd;
}

// ---- conversion -----------------------------------------------------------------------------

void Walker::run(const torch::jit::Graph& graph) {
  node_index_ = 0;
  run_block(graph.block());
}

void Walker::run_block(const torch::jit::Block* block) {
  for (const Node* n : block->nodes()) {
    if (only_feeds_checks(n)) continue;
    run_node(n, node_index_++);
  }
}

std::string Walker::describe_inputs(const Node* n) const {
  std::vector<std::string> parts;
  for (const Value* in : n->inputs()) {
    auto it = env_.find(in);
    std::string desc = "%" + in->debugName();
    if (it != env_.end()) {
      const Bound& bd = it->second;
      if (bd.kind == Bound::Kind::Tensor && b_.has_info(bd.tensor))
        desc += ": " + b_.info(bd.tensor).str();
      else if (bd.kind == Bound::Kind::Const && !bd.constant.isTensor())
        desc += fmt::format(" = {}", [&] {
          std::ostringstream os;
          os << bd.constant;
          return os.str();
        }());
    }
    parts.push_back(desc);
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

void Walker::run_node(const Node* n, size_t index) {
  std::string op = n->kind().toQualString();
  NodeWhere where = where_of(n);
  b_.set_scope(where.scope.empty() ? op : fmt::format("{}/{}", where.scope, op));
  try {
    if (is_view_op(n)) view_of_[n->output()] = n;
    if (try_control_flow(n)) return;
    if (try_handle_prim(n)) return;
    if (try_fold(n)) return;
    const RegistryEntry* entry = registry_.find(converter_key(n), b_.opset());
    if (!entry) entry = registry_.find(op, b_.opset());
    if (!entry)
      throw Error(fmt::format("{} has no converter at opset {}", op, b_.opset()),
                  "see `torch2onnx ops` for the supported ops");
    convert(n, *entry);
  } catch (const std::exception& e) {
    const auto* err = dynamic_cast<const Error*>(&e);
    std::string where_text = where.scope.empty() ? "<top level>" : where.scope;
    if (!where.source.empty()) where_text += ", " + where.source;
    throw Error(fmt::format("node #{} {} ({}) with inputs [{}]: {}", index, op, where_text,
                            describe_inputs(n), e.what()),
                err ? err->hint() : std::string());
  }
}

bool Walker::try_handle_prim(const Node* n) {
  using K = Bound::Kind;
  auto kind = n->kind();
  if (kind == c10::prim::Constant) {
    Bound bd;
    bd.kind = K::Const;
    bd.constant = n->output()->type()->kind() == c10::TypeKind::NoneType
                      ? c10::IValue()
                      : *torch::jit::toIValue(n->output());
    bind(n->output(), bd);
    return true;
  }
  if (kind == c10::prim::ListConstruct || kind == c10::prim::TupleConstruct) {
    bool all_const = true;
    for (const Value* in : n->inputs()) all_const = all_const && lookup(in).kind == K::Const;
    if (all_const && kind == c10::prim::ListConstruct && is_foldable(n)) return try_fold(n);
    Bound bd;
    bd.kind = K::List;
    for (const Value* in : n->inputs()) bd.items.push_back(lookup(in));
    bind(n->output(), bd);
    return true;
  }
  if (kind == c10::prim::DictConstruct) {
    Bound bd;
    bd.kind = K::List;
    for (size_t i = 0; i + 1 < n->inputs().size(); i += 2) {
      const Bound& key = lookup(n->inputs()[i]);
      T2O_CHECK(key.kind == K::Const && key.constant.isString(),
                "only dicts with constant string keys are supported");
      bd.keys.push_back(key.constant.toStringRef());
      bd.items.push_back(lookup(n->inputs()[i + 1]));
    }
    bind(n->output(), bd);
    return true;
  }
  if (kind == c10::prim::ListUnpack || kind == c10::prim::TupleUnpack) {
    const Bound& src = lookup(n->input(0));
    if (src.kind == K::List) {
      T2O_CHECK(src.items.size() == n->outputs().size(), "unpacking {} items into {} values",
                src.items.size(), n->outputs().size());
      Bound copy = src;
      for (size_t i = 0; i < n->outputs().size(); ++i) bind(n->outputs()[i], copy.items[i]);
      return true;
    }
    T2O_CHECK(src.kind == K::Const, "cannot unpack a non-list value");
    auto elems = src.constant.isList() ? src.constant.toListRef().vec()
                                       : src.constant.toTupleRef().elements().vec();
    T2O_CHECK(elems.size() == n->outputs().size(), "unpacking {} items into {} values", elems.size(),
              n->outputs().size());
    for (size_t i = 0; i < elems.size(); ++i) {
      Bound bd;
      bd.kind = K::Const;
      bd.constant = elems[i];
      bind(n->outputs()[i], bd);
    }
    return true;
  }
  if (kind == c10::aten::__getitem__ || kind == c10::prim::TupleIndex) {
    const Bound& src = lookup(n->input(0));
    if (src.kind != K::List) return false;  // constant lists fold; strings go to converters
    const Bound& idx = lookup(n->input(1));
    if (!src.keys.empty()) {
      T2O_CHECK(idx.kind == K::Const && idx.constant.isString(), "dict key must be a constant string");
      for (size_t k = 0; k < src.keys.size(); ++k)
        if (src.keys[k] == idx.constant.toStringRef()) {
          Bound item = src.items[k];
          bind(n->output(), item);
          return true;
        }
      throw Error(fmt::format("the dict has no key '{}'", idx.constant.toStringRef()));
    }
    T2O_CHECK(idx.kind == K::Const && idx.constant.isInt(), "list index must be a constant int");
    int64_t i = idx.constant.toInt();
    int64_t size = static_cast<int64_t>(src.items.size());
    if (i < 0) i += size;
    T2O_CHECK(i >= 0 && i < size, "list index {} out of range for {} items", idx.constant.toInt(), size);
    Bound item = src.items[static_cast<size_t>(i)];
    bind(n->output(), item);
    return true;
  }
  if (kind == c10::aten::len && lookup(n->input(0)).kind == K::List) {
    Bound bd;
    bd.kind = K::Const;
    bd.constant = c10::IValue(static_cast<int64_t>(lookup(n->input(0)).items.size()));
    bind(n->output(), bd);
    return true;
  }
  if (kind == c10::prim::NumToTensor) {
    const Bound& src = lookup(n->input(0));
    if (src.kind == K::Const) return try_fold(n);
    bind(n->output(), src);
    return true;
  }
  if (kind == c10::prim::unchecked_cast || kind == c10::aten::detach) {
    bind(n->output(), lookup(n->input(0)));
    return true;
  }
  if (kind == c10::prim::Uninitialized) {
    Bound bd;
    bd.kind = K::Const;
    bind(n->output(), bd);
    return true;
  }
  if (kind == c10::prim::RaiseException || kind == c10::aten::warn) {
    warnings_.push_back(fmt::format("dropped {} at {}", kind.toQualString(), place_of(n)));
    return true;
  }
  if (kind == c10::prim::GetAttr)
    throw Error("the graph still reads a module attribute after freezing",
                "make the attribute a constant or a local variable in forward");
  if (kind == c10::prim::If) {
    const Bound& cond = lookup(n->input(0));
    if (cond.kind != K::Const) {
      convert_if(n);
      return true;
    }
    const torch::jit::Block* taken = n->blocks()[cond.constant.toBool() ? 0 : 1];
    run_block(taken);
    for (size_t i = 0; i < n->outputs().size(); ++i) bind(n->outputs()[i], lookup(taken->outputs()[i]));
    return true;
  }
  if (metadata_ops().count(kind.toQualString()) && !n->inputs().empty()) {
    const Bound& src = lookup(n->input(0));
    const TensorInfo* info = src.kind == K::Tensor ? record_.find(n->input(0)) : nullptr;
    if (src.kind == K::Tensor && foldable_metadata(kind.toQualString(), info)) {
      torch::jit::Stack stack;
      stack.emplace_back(meta_tensor(*info));
      for (size_t i = 1; i < n->inputs().size(); ++i) {
        const Bound& bd = lookup(n->inputs()[i]);
        T2O_CHECK(bd.kind == K::Const, "{} argument {} must be a constant", kind.toQualString(), i);
        stack.push_back(bd.constant);
      }
      n->getOperation()(stack);
      for (size_t i = 0; i < n->outputs().size(); ++i) {
        Bound bd;
        bd.kind = K::Const;
        bd.constant = stack[i];
        if (bd.constant.isDevice()) bd.constant = c10::IValue(c10::Device(c10::kCPU));
        bind(n->outputs()[i], bd);
      }
      return true;
    }
  }
  return false;
}

namespace {
// A list of constant numbers (prim::ListConstruct of constants is a List, not folded) as an
// IValue of its TorchScript type, so ops on it (e.g. size lists compared with !=) can fold.
bool as_constant(const Walker::Bound& bd, const c10::TypePtr& type, c10::IValue& out) {
  using K = Walker::Bound::Kind;
  if (bd.kind == K::Const) {
    out = bd.constant;
    return true;
  }
  auto lt = type->cast<c10::ListType>();
  if (bd.kind != K::List || !bd.keys.empty() || !lt) return false;
  auto elem = lt->getElementType()->kind();
  for (const auto& it : bd.items)
    if (it.kind != K::Const) return false;
  if (elem == c10::TypeKind::IntType) {
    std::vector<int64_t> v;
    for (const auto& it : bd.items) {
      if (!it.constant.isInt()) return false;
      v.push_back(it.constant.toInt());
    }
    out = c10::IValue(v);
    return true;
  }
  if (elem == c10::TypeKind::FloatType) {
    std::vector<double> v;
    for (const auto& it : bd.items) {
      if (!it.constant.isDouble()) return false;
      v.push_back(it.constant.toDouble());
    }
    out = c10::IValue(v);
    return true;
  }
  if (elem == c10::TypeKind::TensorType) {  // e.g. torch.stack of shape values (detection models)
    c10::List<at::Tensor> v;
    for (const auto& it : bd.items) {
      if (!it.constant.isTensor()) return false;
      v.push_back(it.constant.toTensor());
    }
    out = c10::IValue(v);
    return true;
  }
  return false;
}
}  // namespace

bool Walker::try_fold(const Node* n) {
  if (!is_foldable(n)) return false;
  torch::jit::Stack stack;
  bool from_lists = false;
  for (const Value* in : n->inputs()) {
    c10::IValue iv;
    if (!as_constant(lookup(in), in->type(), iv)) return false;
    // A list of constant tensors folds like the tensors themselves (no larger result).
    from_lists = from_lists || (lookup(in).kind != Bound::Kind::Const && !iv.isTensorList());
    stack.push_back(std::move(iv));
  }
  // Size lists fold only into numbers (e.g. `h.size() != expected`); ops that make tensors from
  // them (zeros, ones) stay ONNX ops rather than becoming possibly large initializers.
  if (from_lists)
    for (const Value* o : n->outputs())
      if (is_tensor_type(o)) return false;
  // An in-place op folded on a constant tensor changes it: an initializer made from it earlier
  // holds the old contents, so later uses must make a new one (e.g. `offset += n` in a loop).
  if (is_inplace(n->kind().toQualString()) && !stack.empty() && stack[0].isTensor())
    materialized_.erase(stack[0].toTensor().unsafeGetTensorImpl());
  try {
    n->getOperation()(stack);
  } catch (const std::exception& e) {
    std::string msg = e.what();
    auto cut = msg.find("\nException raised from");
    throw Error(fmt::format("evaluating this constant expression failed in LibTorch: {}",
                            cut == std::string::npos ? msg : msg.substr(0, cut)));
  }
  T2O_CHECK(stack.size() == n->outputs().size(), "constant evaluation returned {} values for {}",
            stack.size(), n->outputs().size());
  for (size_t i = 0; i < stack.size(); ++i) {
    Bound bd;
    bd.kind = Bound::Kind::Const;
    bd.constant = std::move(stack[i]);
    bind(n->outputs()[i], std::move(bd));
  }
  return true;
}

void Walker::convert(const Node* n, const RegistryEntry& entry) {
  std::vector<Arg> args;
  args.reserve(n->inputs().size());
  for (const Value* in : n->inputs()) args.push_back(to_arg(lookup(in), in));
  infer_missing(n);
  std::vector<TensorInfo> out_infos;
  for (const Value* o : n->outputs()) {
    const TensorInfo* info = info_of_value(o);
    DType num = number_dtype(o->type());
    out_infos.push_back(info ? *info
                        : num != DType::Undefined ? TensorInfo{num, std::vector<Dim>{}}
                                                  : TensorInfo{});
  }
  ConvertCtx ctx(b_, entry.op, std::move(args), std::move(out_infos));
  if (const auto* schema = n->maybeSchema()) ctx.set_overload(schema->overload_name());
  entry.fn(ctx);
  for (size_t i = 0; i < n->outputs().size(); ++i) {
    const Arg& a = ctx.outputs()[i];
    const Value* o = n->outputs()[i];
    bool may_be_none = o->type()->kind() == c10::TypeKind::NoneType ||
                       o->type()->kind() == c10::TypeKind::OptionalType;
    T2O_CHECK(!a.is_none() || may_be_none, "the {} converter did not produce output {} (%{})",
              entry.op, i, o->debugName());
    if (a.is_tensor() && is_tensor_type(o) && !info_of_value(o) && !b_.has_info(a.tensor))
      warnings_.push_back(fmt::format("no shape recorded for %{}", o->debugName()));
    // A number computed at run time is a 0-d tensor.
    if (a.is_tensor() && !b_.has_info(a.tensor) && number_dtype(o->type()) != DType::Undefined)
      b_.set_info(a.tensor, TensorInfo{number_dtype(o->type()), std::vector<Dim>{}});
    bind(o, from_arg(a, o));
  }
  // An in-place op also updates its first input for the nodes that follow.
  if (is_inplace(entry.op) && !n->inputs().empty() && !n->outputs().empty()) {
    env_[n->inputs()[0]] = env_[n->outputs()[0]];
    write_back(n->inputs()[0]);
  }
}

void Walker::write_back(const Value* view) {
  // Constant bases need nothing: a folded view shares the base's storage, so an in-place op
  // folded on it already changed the base. Only converted (ONNX) in-place results are scattered.
  for (auto it = view_of_.find(view); it != view_of_.end(); it = view_of_.find(view)) {
    const Node* vn = it->second;
    const Value* base = vn->input(0);
    std::string op = vn->kind().toQualString();
    std::vector<Arg> args = {to_arg(lookup(base), base), to_arg(lookup(view), view)};
    std::string scatter;
    if (op == "aten::slice") {
      scatter = "aten::slice_scatter";
      for (size_t i = 1; i < vn->inputs().size(); ++i)
        args.push_back(to_arg(lookup(vn->input(i)), vn->input(i)));
    } else if (op == "aten::select") {
      scatter = "aten::select_scatter";
      for (size_t i = 1; i < vn->inputs().size(); ++i)
        args.push_back(to_arg(lookup(vn->input(i)), vn->input(i)));
    } else if (op == "aten::narrow") {
      const Bound& start = lookup(vn->input(2));
      const Bound& length = lookup(vn->input(3));
      T2O_CHECK(start.kind == Bound::Kind::Const && start.constant.isInt() &&
                    length.kind == Bound::Kind::Const && length.constant.isInt(),
                "an in-place op on aten::narrow with a runtime start or length is not supported");
      scatter = "aten::slice_scatter";
      args.push_back(to_arg(lookup(vn->input(1)), vn->input(1)));
      args.push_back(Arg::of_int(start.constant.toInt()));
      args.push_back(Arg::of_int(start.constant.toInt() + length.constant.toInt()));
      args.push_back(Arg::of_int(1));
    }
    Bound out;
    out.kind = Bound::Kind::Tensor;
    if (scatter.empty()) {
      // view/unsqueeze/squeeze keep every element in order: reshape back to the base's shape.
      Val base_val = args[0].t();
      out.tensor = b_.op1("Reshape", {args[1].t(), b_.op1("Shape", {base_val})});
    } else {
      const RegistryEntry* entry = registry_.find(scatter, b_.opset());
      T2O_CHECK(entry, "{} has no converter at opset {}", scatter, b_.opset());
      const TensorInfo* info = record_.find(base);
      ConvertCtx ctx(b_, entry->op, std::move(args), {info ? *info : TensorInfo{}});
      entry->fn(ctx);
      out.tensor = ctx.outputs()[0].t();
    }
    bind(base, out);
    view = base;
  }
}

void Walker::flatten(const Bound& bd, const Value* v, const std::string& hint,
                     std::vector<std::pair<Val, std::string>>& out) {
  switch (bd.kind) {
    case Bound::Kind::Tensor: out.emplace_back(bd.tensor, hint); return;
    case Bound::Kind::List:
      for (size_t i = 0; i < bd.items.size(); ++i)
        flatten(bd.items[i], nullptr, i < bd.keys.size() ? bd.keys[i] : std::string(), out);
      return;
    case Bound::Kind::Unset: throw Error("a graph output is never computed");
    case Bound::Kind::Seq:
      throw Error(fmt::format("graph output %{} is a list built at run time", v ? v->debugName() : "?"),
                  "return torch.stack(list) (or torch.cat) instead of the list");
    case Bound::Kind::Const: break;
  }
  const c10::IValue& iv = bd.constant;
  if (iv.isTensor()) {
    out.emplace_back(materialize(iv.toTensor(), "const_output"), hint);
  } else if (iv.isList() || iv.isTuple()) {
    auto elems = iv.isList() ? iv.toListRef().vec() : iv.toTupleRef().elements().vec();
    for (const auto& e : elems) {
      Bound eb;
      eb.kind = Bound::Kind::Const;
      eb.constant = e;
      flatten(eb, nullptr, std::string(), out);
    }
  } else if (iv.isInt() || iv.isDouble() || iv.isBool()) {
    at::Tensor t = iv.isInt() ? at::scalar_tensor(iv.toInt(), at::kLong)
                   : iv.isDouble() ? at::scalar_tensor(iv.toDouble(), at::kDouble)
                                   : at::scalar_tensor(iv.toBool(), at::kBool);
    out.emplace_back(b_.constant(to_tensor_data(t), "const_output"), hint);
  } else {
    throw Error(fmt::format("graph output %{} is a {}, not a tensor", v ? v->debugName() : "?",
                            iv.tagKind()),
                "return tensors (or tuples/lists/dicts of tensors) from forward");
  }
}

std::vector<std::pair<Val, std::string>> Walker::outputs(const torch::jit::Graph& graph) {
  std::vector<std::pair<Val, std::string>> out;
  for (const Value* v : graph.outputs()) flatten(lookup(v), v, std::string(), out);
  return out;
}

}  // namespace torch2onnx
