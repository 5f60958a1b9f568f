// The walk itself: the pre-scan for unsupported ops, one node at a time through the handler
// table, metadata and constant folding, and converter calls through aten_lib/dispatch.h.
#include "exporter/frontend/torchscript/walker.h"

#include "aten_lib/dispatch.h"
#include "aten_lib/quantized.h"
#include "builder/progress.h"
#include "exporter/core/tensor_util.h"

#include <ATen/ATen.h>
#include <functional>
#include <map>
#include <sstream>
#include <torch/csrc/jit/runtime/operator.h>
#include <unordered_set>

namespace torch2onnx {

using torch::jit::Node;
using torch::jit::Value;
using walker_detail::is_foldable;
using walker_detail::is_tensor_type;
using walker_detail::is_view_op;
using walker_detail::place_of;

namespace {

// Ops that read only a tensor's metadata: with a static recorded shape they fold to constants.
const std::unordered_set<std::string> &metadata_ops() {
  static const std::unordered_set<std::string> ops = {"aten::size",
                                                      "aten::dim",
                                                      "prim::dtype",
                                                      "prim::device",
                                                      "aten::numel",
                                                      "prim::layout",
                                                      "aten::is_floating_point",
                                                      "prim::is_cuda",
                                                      "aten::len",
                                                      "prim::is_quantized",
                                                      "aten::is_complex"};
  return ops;
}

bool is_inplace(const std::string &op) {
  auto pos = op.find("::");
  std::string name = pos == std::string::npos ? op : op.substr(pos + 2);
  return name.size() > 1 && name.back() == '_' && name.substr(name.size() - 2) != "__" &&
         name.front() != '_';
}

bool is_number_type(const c10::TypePtr &t) {
  return number_dtype(t) != DType::Undefined || t->kind() == c10::TypeKind::NumberType;
}

// Metadata that does not depend on the sizes (dtype, device, rank): folds even when some dims
// are dynamic, as long as the rank is known.
bool size_free_metadata(const std::string &op) {
  static const std::unordered_set<std::string> size_free = {"aten::dim",
                                                            "prim::dtype",
                                                            "prim::device",
                                                            "prim::layout",
                                                            "aten::is_floating_point",
                                                            "prim::is_cuda",
                                                            "aten::is_complex",
                                                            "prim::is_quantized"};
  return size_free.count(op) > 0;
}

bool foldable_metadata(const std::string &op, const TensorInfo *info) {
  if (!info)
    return false;
  // Only aten::dim of the size-free ones reads the rank; the others need the dtype alone.
  bool rank_free = size_free_metadata(op) && op != "aten::dim" && info->dtype != DType::Undefined;
  return info->is_static() || (info->has_rank() && size_free_metadata(op)) || rank_free;
}

// An op on strings or devices and no tensors (len(msg), str(device), "..." .format(...)): those
// are never ONNX values, so the op folds when the walk reaches it (e.g. the "why not the fast
// path" message of a scripted nn.TransformerEncoder, built in branches that fold) or the walk
// stops there with an error naming it.
bool on_strings(const Node *n) {
  bool any = false;
  for (const Value *in : n->inputs()) {
    auto k = in->type()->kind();
    if (in->type()->isSubtypeOf(*c10::TensorType::get()) || k == c10::TypeKind::ListType)
      return false;
    any = any || k == c10::TypeKind::StringType || k == c10::TypeKind::DeviceObjType;
  }
  return any;
}

at::Tensor meta_tensor(const TensorInfo &info) {
  std::vector<int64_t> sizes; // rank unknown: 0-d (only ops that read no rank get here)
  if (info.shape)
    for (const Dim &d : *info.shape)
      sizes.push_back(d.is_static() ? d.value : 1);
  if (info.quant) { // prim::dtype and prim::is_quantized see the quantized tensor
    static const std::map<DType, c10::ScalarType> qtypes = {
        {DType::UInt8, c10::kQUInt8}, {DType::Int8, c10::kQInt8}, {DType::Int32, c10::kQInt32}};
    return at::_empty_affine_quantized(sizes,
                                       at::TensorOptions().dtype(qtypes.at(info.quant->storage)),
                                       info.quant->scale, info.quant->zero_point);
  }
  return at::empty(sizes, at::TensorOptions().dtype(to_scalar_type(info.dtype)).device(at::kMeta));
}

// A list of constant numbers (prim::ListConstruct of constants is a List, not folded) as an
// IValue of its TorchScript type, so ops on it (e.g. size lists compared with !=) can fold.
bool as_constant(const Walker::Bound &bd, const c10::TypePtr &type, c10::IValue &out) {
  using K = Walker::Bound::Kind;
  if (bd.kind == K::Const) {
    out = bd.constant;
    return true;
  }
  auto lt = type->cast<c10::ListType>();
  if (bd.kind != K::List || !bd.keys.empty() || !lt)
    return false;
  auto elem = lt->getElementType()->kind();
  for (const auto &it : bd.items)
    if (it.kind != K::Const)
      return false;
  if (elem == c10::TypeKind::IntType) {
    std::vector<int64_t> v;
    for (const auto &it : bd.items) {
      if (!it.constant.isInt())
        return false;
      v.push_back(it.constant.toInt());
    }
    out = c10::IValue(v);
    return true;
  }
  if (elem == c10::TypeKind::FloatType) {
    std::vector<double> v;
    for (const auto &it : bd.items) {
      if (!it.constant.isDouble())
        return false;
      v.push_back(it.constant.toDouble());
    }
    out = c10::IValue(v);
    return true;
  }
  if (elem == c10::TypeKind::BoolType) { // e.g. all([...]) in nn.TransformerEncoder's checks
    c10::List<bool> v;
    for (const auto &it : bd.items) {
      if (!it.constant.isBool())
        return false;
      v.push_back(it.constant.toBool());
    }
    out = c10::IValue(v);
    return true;
  }
  if (elem == c10::TypeKind::TensorType) { // e.g. torch.stack of shape values (detection models)
    c10::List<at::Tensor> v;
    for (const auto &it : bd.items) {
      if (!it.constant.isTensor())
        return false;
      v.push_back(it.constant.toTensor());
    }
    out = c10::IValue(v);
    return true;
  }
  return false;
}

} // namespace

namespace walker_detail {

// Ops whose output aliases its first input and whose mutation write_back can scatter back.
// reshape/flatten/view_as/reshape_as alias a contiguous input (what models write into).
bool is_view_op(const Node *n) {
  static const std::unordered_set<std::string> ops = {
      "aten::slice",     "aten::select",  "aten::view",    "aten::unsqueeze", "aten::squeeze",
      "aten::narrow",    "aten::reshape", "aten::flatten", "aten::view_as",   "aten::reshape_as",
      "aten::transpose", "aten::permute", "aten::t",       "aten::diagonal"};
  if (!ops.count(n->kind().toQualString()) || n->outputs().size() != 1 || n->inputs().empty() ||
      !n->input(0)->type()->isSubtypeOf(*c10::TensorType::get()))
    return false;
  // view(dtype) reinterprets the bytes: reshaping back would be wrong, so it is not tracked.
  return n->kind() != c10::aten::view ||
         (n->inputs().size() == 2 && n->input(1)->type()->cast<c10::ListType>() != nullptr);
}

// Ops whose outputs alias their input but whose writes write_back cannot carry to it (a write
// into one of them is refused when the input is read afterwards, not silently dropped).
bool is_untracked_view_op(const Node *n) {
  static const std::unordered_set<std::string> ops = {"aten::unbind",
                                                      "aten::split",
                                                      "aten::split_with_sizes",
                                                      "aten::chunk",
                                                      "aten::tensor_split",
                                                      "aten::expand",
                                                      "aten::expand_as",
                                                      "aten::movedim",
                                                      "aten::moveaxis",
                                                      "aten::swapaxes",
                                                      "aten::swapdims",
                                                      "aten::unfold",
                                                      "aten::as_strided",
                                                      "aten::unflatten",
                                                      "aten::view_as_real",
                                                      "aten::real",
                                                      "aten::imag",
                                                      "aten::mT",
                                                      "aten::mH",
                                                      "aten::adjoint",
                                                      "aten::T",
                                                      "aten::H",
                                                      "aten::ravel",
                                                      "aten::contiguous",
                                                      "aten::numpy_T",
                                                      "aten::matrix_H",
                                                      "aten::hsplit",
                                                      "aten::vsplit",
                                                      "aten::dsplit",
                                                      "aten::broadcast_to",
                                                      "aten::view_as_complex",
                                                      "aten::unsafe_split",
                                                      "aten::unsafe_chunk"};
  return ops.count(n->kind().toQualString()) > 0;
}

bool is_foldable(const Node *n) {
  if (!n->blocks().empty() || n->hasSideEffects() || n->isNondeterministic())
    return false;
  if (n->kind() == c10::prim::GetAttr || n->kind() == c10::prim::CallMethod ||
      n->kind() == c10::prim::CallFunction)
    return false;
  return n->maybeOperator() != nullptr;
}

bool is_tensor_type(const Value *v) {
  return v->type()->isSubtypeOf(*c10::TensorType::get());
}

bool is_tensor_list(const c10::TypePtr &t) {
  auto lt = t->cast<c10::ListType>();
  return lt && lt->getElementType()->isSubtypeOf(*c10::TensorType::get());
}

std::string place_of(const Node *n) {
  NodeWhere w = where_of(n);
  std::string scope = w.scope.empty() ? "<top>" : w.scope;
  return w.source.empty() ? scope : fmt::format("{} ({})", scope, w.source);
}

} // namespace walker_detail

DType number_dtype(const c10::TypePtr &t) {
  switch (t->kind()) {
  case c10::TypeKind::IntType:
    return DType::Int64;
  case c10::TypeKind::FloatType:
    return DType::Double;
  case c10::TypeKind::BoolType:
    return DType::Bool;
  default:
    return DType::Undefined;
  }
}

bool block_raises(const torch::jit::Block *block) {
  for (const Node *n : block->nodes())
    if (n->kind() == c10::prim::RaiseException)
      return true;
  return false;
}

Walker::Walker(GraphBuilder &b, const ShapeRecord &record, const Registry &registry)
    : b_(b), record_(record), registry_(registry) {}

// ---- pre-scan -------------------------------------------------------------------------------

bool Walker::touches_complex(const Node *n) const {
  auto complex = [&](const Value *v) {
    const TensorInfo *info = record_.find(value_id(v));
    return info && (info->dtype == DType::Complex64 || info->dtype == DType::Complex128);
  };
  for (const Value *v : n->inputs())
    if (complex(v))
      return true;
  for (const Value *v : n->outputs())
    if (complex(v))
      return true;
  return false;
}

std::vector<UnsupportedOp> Walker::find_unsupported(const torch::jit::Graph &graph) const {
  std::unordered_set<const Value *> consts;
  std::map<std::string, UnsupportedOp> found;
  auto has_converter = [&](const std::string &op) {
    return find_converter(registry_, op, b_.opset()) != nullptr;
  };
  std::function<void(const torch::jit::Block *)> scan = [&](const torch::jit::Block *block) {
    for (const Node *n : block->nodes()) {
      if (only_feeds_checks(n))
        continue;
      std::string op = n->kind().toQualString();
      const Handler *h = find_handler(n);
      bool all_const = true;
      for (const Value *in : n->inputs())
        all_const = all_const && consts.count(in);
      bool metadata_static = false;
      // A tensor in a branch the example run did not take has no record (or one without a
      // rank: computed in one recording only): its dtype and rank still come from the graph
      // being built when the walk gets there (fold_metadata).
      if (metadata_ops().count(op) && !n->inputs().empty()) {
        const TensorInfo *rec = record_.find(value_id(n->inputs()[0]));
        metadata_static = foldable_metadata(op, rec) ||
                          (size_free_metadata(op) && is_tensor_type(n->inputs()[0]));
      }
      if (n->kind() == c10::prim::Constant || metadata_static ||
          (all_const && is_foldable(n) && (!h || h->scan == Scan::OnLists)) ||
          ((!h || h->scan == Scan::OnLists) && on_strings(n))) {
        for (const Value *o : n->outputs())
          consts.insert(o);
        continue;
      }
      if (h && h->scan == Scan::Blocks) {
        // Both branches must be convertible (a constant condition picks one; a runtime one
        // becomes an ONNX If); a branch that raises is dropped, so it is not scanned.
        for (const auto *sub : n->blocks())
          if (!block_raises(sub))
            scan(sub);
        continue;
      }
      if (h &&
          (h->scan != Scan::OnLists || n->input(0)->type()->kind() == c10::TypeKind::ListType ||
           n->input(0)->type()->kind() == c10::TypeKind::DictType ||
           (n->kind() == c10::aten::len &&
            n->input(0)->type()->isSubtypeOf(*c10::TensorType::get())))) {
        if (h->scan == Scan::ConstIfConst && all_const)
          for (const Value *o : n->outputs())
            consts.insert(o);
        continue;
      }
      const RegistryEntry *e = find_converter(registry_, converter_key(n), b_.opset());
      if (!e)
        e = find_converter(registry_, op, b_.opset());
      if (e && (e->complex_fn || !touches_complex(n)))
        continue;
      // A converter that cannot take the complex values LibTorch produced here is as missing
      // as none (aten_lib/dispatch.cpp would refuse it during the walk).
      op = e ? e->op + " on complex tensors" : converter_key(n);
      auto &u = found[op];
      u.op = op;
      u.complex = e != nullptr;
      ++u.uses;
      if (u.places.size() < 3)
        u.places.push_back(place_of(n));
      for (const auto *e : registry_.entries())
        if (e->op == op && !e->frontend &&
            (u.available_from == 0 || e->since_opset < u.available_from))
          u.available_from = e->since_opset;
    }
  };
  scan(graph.block());
  std::vector<UnsupportedOp> out;
  for (auto &[op, u] : found)
    out.push_back(std::move(u));
  return out;
}

// ---- environment ----------------------------------------------------------------------------

const Walker::Bound &Walker::lookup(const Value *v) const {
  auto it = env_.find(v);
  T2O_CHECK(it != env_.end() && it->second.kind != Bound::Kind::Unset,
            "internal error: value %{} is used before it is defined", v->debugName());
  return it->second;
}

void Walker::bind(const Value *v, Bound bound) {
  if (bound.kind == Bound::Kind::Tensor) {
    const TensorInfo *info = info_of_value(v);
    // Recorded without a rank (computed in one recording only) says less than what the builder
    // knows of a value bound again (a branch that passes its input through): keep that.
    if (info && !info->has_rank() && b_.has_info(bound.tensor) && b_.info(bound.tensor).has_rank())
      info = nullptr;
    if (info) {
      TensorInfo next = complex_as_real(*info); // complex: real [..., 2]
      // The same ONNX value bound again as a float tensor (aten::dequantize): its values are
      // still on its quantization grid, which --verify's tolerance reads (docs/quantized.md).
      if (!next.quant && next.dtype == DType::Float && b_.has_info(bound.tensor))
        next.quant = b_.info(bound.tensor).quant;
      weaken_branch_dims(bound.tensor, next);
      b_.set_info(bound.tensor, next);
    }
  }
  env_[v] = std::move(bound);
}

void Walker::weaken_branch_dims(const Val &v, TensorInfo &info) const {
  if (!info.shape)
    return;
  auto rt = runtime_axes_.find(v.name);
  if (rt != runtime_axes_.end())
    for (int64_t axis : rt->second) {
      auto rank = static_cast<int64_t>(info.shape->size());
      if (axis < 0)
        axis += rank;
      if (axis >= 0 && axis < rank)
        (*info.shape)[static_cast<size_t>(axis)] = Dim{};
    }
  auto it = branch_shapes_.find(v.name);
  if (it == branch_shapes_.end())
    return;
  for (size_t d = 0; d < info.shape->size(); ++d) {
    Dim &dim = (*info.shape)[d];
    for (const TensorInfo &branch : it->second) {
      if (!dim.is_static() || !branch.shape || branch.shape->size() != info.shape->size())
        continue;
      const Dim &bd = (*branch.shape)[d];
      bool known = bd.is_static() || !bd.symbol.empty();
      if (known && !(bd.is_static() && bd.value == dim.value))
        dim = Dim{};
    }
  }
}

void Walker::bind_input(const Value *v, const Val &val) {
  Bound bd;
  bd.kind = Bound::Kind::Tensor;
  bd.tensor = val;
  env_[v] = bd;
}

const TensorInfo *Walker::info_of_value(const Value *v) const {
  const TensorInfo *recorded = record_.find(value_id(v));
  if (recorded && recorded->has_rank())
    return recorded;
  // Not recorded, or recorded without a rank (computed in one recording run only, e.g. in a
  // branch the other run did not take): what infer_missing found, if anything.
  auto it = inferred_.find(v);
  return it != inferred_.end() ? &it->second : recorded;
}

std::string Walker::converter_key(const Node *n) const {
  // Overloads on plain numbers (aten::add.int, aten::lt.float, aten::Bool.int, ...) have their
  // own converters, registered as "<op>.num": the tensor converter of the same op does not fit.
  // Python's list methods on a list of numbers giving a number (sum(xs), min(xs), xs.index(v),
  // xs.count(v), v in xs) are registered as "<op>.list".
  std::string op = n->kind().toQualString();
  if (n->inputs().empty() || n->outputs().size() != 1 || !is_number_type(n->output()->type()))
    return op;
  auto list = n->input(0)->type()->cast<c10::ListType>();
  bool number_list = list && is_number_type(list->getElementType());
  for (size_t i = number_list ? 1 : 0; i < n->inputs().size(); ++i)
    if (!is_number_type(n->input(i)->type()))
      return op;
  return op + (number_list ? ".list" : ".num");
}

// An if that computes nothing and only raises or warns on one path (`if target.size() !=
// input.size(): warnings.warn(...)` in F.mse_loss), seen from its input `offset`.
bool Walker::is_check_if(const Node *u, size_t offset) const {
  if (u->kind() != c10::prim::If || offset != 0 || !u->outputs().empty())
    return false;
  if (block_raises(u->blocks()[0]) || block_raises(u->blocks()[1]))
    return true;
  for (const torch::jit::Block *b : u->blocks())
    for (const Node *m : b->nodes())
      if (m->kind() != c10::aten::warn && m->kind() != c10::prim::Constant && !only_feeds_checks(m))
        return false;
  return true;
}

bool Walker::only_feeds_checks(const Node *n) const {
  auto it = feeds_checks_.find(n);
  if (it != feeds_checks_.end())
    return it->second;
  bool skip = !n->outputs().empty() && n->blocks().empty() && !n->hasSideEffects() &&
              n->kind() != c10::prim::Constant;
  for (const Value *o : n->outputs()) {
    if (!skip)
      break;
    skip = !o->type()->isSubtypeOf(*c10::TensorType::get()) && o->hasUses();
    for (const auto &use : o->uses()) {
      const Node *u = use.user;
      bool check = u->kind() == c10::aten::warn || is_check_if(u, use.offset);
      skip = skip && (check || only_feeds_checks(u));
    }
  }
  feeds_checks_[n] = skip;
  return skip;
}

// ---- conversion -----------------------------------------------------------------------------

void Walker::run(const torch::jit::Graph &graph) {
  node_index_ = 0;
  run_block(graph.block());
}

void Walker::run_block(const torch::jit::Block *block) {
  // A subgraph's nodes set their own scopes; the node that owns it (an If, a Loop) is added after
  // them and must be named after itself, not after its last inner node.
  const std::string owner_scope = b_.scope();
  for (const Node *n : block->nodes()) {
    progress_advance(1);
    if (only_feeds_checks(n))
      continue;
    size_t index = node_index_++;
    NodeWhere where = where_of(n);
    run_node(n, index, where);
    note_walked(n, index, where);
  }
  b_.set_scope(owner_scope);
}

void Walker::note_walked(const Node *n, size_t index, const NodeWhere &where) {
  if (n->kind() == c10::prim::Constant)
    return;
  ++op_counts_[n->kind().toQualString()];
  // Values inside subgraphs (and unrolled loop bodies) are not values of the main ONNX graph.
  if (n->owningBlock() != n->owningGraph()->block() || b_.subgraph_depth() != 0)
    return;
  const RegistryEntry *entry = last_converted_.first == n ? last_converted_.second : nullptr;
  bool noted = false;
  for (const Value *o : n->outputs()) {
    auto it = env_.find(o);
    if (it == env_.end() || it->second.kind != Bound::Kind::Tensor || !is_tensor_type(o))
      continue;
    if (!noted)
      walked_nodes_.push_back(WalkedNode{n->kind().toQualString(), where});
    noted = true;
    walked_.push_back(
        WalkedValue{value_id(o), walked_nodes_.size() - 1, index, entry, it->second.tensor.name});
  }
}

namespace {
// A constant argument for an error message: numbers and strings as they are, tensors (also in
// lists, e.g. an RNN's weights) by dtype and shape, and at most about 120 characters.
std::string constant_text(const c10::IValue &v) {
  std::string text;
  if (v.isTensor()) {
    const at::Tensor &t = v.toTensor();
    std::vector<int64_t> sizes = t.sizes().vec();
    text = fmt::format("tensor {}[{}]", c10::toString(t.scalar_type()), fmt::join(sizes, ","));
  } else if (v.isList() || v.isTuple()) {
    std::vector<c10::IValue> items =
        v.isList() ? v.toListRef().vec() : v.toTupleRef().elements().vec();
    std::vector<std::string> parts;
    for (size_t i = 0; i < items.size() && i < 6; ++i)
      parts.push_back(constant_text(items[i]));
    if (items.size() > 6)
      parts.push_back(fmt::format("... {} items", items.size()));
    text = fmt::format(v.isList() ? "[{}]" : "({})", fmt::join(parts, ", "));
  } else {
    std::ostringstream os;
    os << v;
    text = os.str();
  }
  return text.size() > 120 ? text.substr(0, 117) + "..." : text;
}
} // namespace

std::string Walker::describe_input(const Value *in) const {
  auto it = env_.find(in);
  std::string desc = "%" + in->debugName();
  if (it == env_.end())
    return desc;
  const Bound &bd = it->second;
  if (bd.kind == Bound::Kind::Tensor && b_.has_info(bd.tensor)) {
    desc += ": " + b_.info(bd.tensor).str();
  } else if (bd.kind == Bound::Kind::Const && !bd.constant.isTensor()) {
    desc += " = " + constant_text(bd.constant);
  }
  return desc;
}

void Walker::run_node(const Node *n, size_t index, const NodeWhere &where) {
  std::string op = n->kind().toQualString();
  b_.set_scope(where.scope.empty() ? op : fmt::format("{}/{}", where.scope, op));
  try {
    if (is_view_op(n)) {
      view_of_[n->output()] = n;
      viewed_.insert(n->input(0));
    }
    if (try_sequence_op(n))
      return;
    // list + list and list += list: aten::add / add_ also name tensor converters, so they are
    // not in the handler table (whose ops are front-end only); extend is.
    if ((n->kind() == c10::aten::add || n->kind() == c10::aten::add_) && handle_list_concat(n))
      return;
    if (n->kind() == c10::aten::slice && handle_list_slice(n)) // x.size()[2:]
      return;
    // List operands only (tensor mul/eq/ne go on to the converters): a constant list folds.
    auto on_list = [&](size_t i) {
      return n->inputs().size() > i && n->input(i)->type()->kind() == c10::TypeKind::ListType;
    };
    if (n->kind() == c10::aten::mul && (on_list(0) || on_list(1)) &&
        (try_fold(n) || handle_list_repeat(n))) // [x] * 2
      return;
    if ((n->kind() == c10::aten::eq || n->kind() == c10::aten::ne) && on_list(0) &&
        (try_fold(n) || handle_list_compare(n))) // x.size() != w.size()
      return;
    if (const Handler *h = find_handler(n))
      if ((this->*h->handle)(n))
        return;
    if (fold_metadata(n))
      return;
    if (try_fold(n))
      return;
    const RegistryEntry *entry = find_converter(registry_, converter_key(n), b_.opset());
    if (!entry)
      entry = find_converter(registry_, op, b_.opset());
    if (!entry && !registry_.fallback_domain().empty() && !touches_complex(n))
      entry = &fallback_entry(n);
    if (!entry)
      throw Error(fmt::format("{} has no converter at opset {}", op, b_.opset()),
                  "see `torch2onnx ops` for the supported ops");
    convert(n, *entry);
  } catch (const std::exception &e) {
    NodeContext node;
    node.index = index;
    node.op = op;
    node.scope = where.scope;
    node.source = where.source;
    for (const Value *in : n->inputs())
      node.inputs.push_back(describe_input(in));
    throw node_error(node, e);
  }
}

bool Walker::fold_metadata(const Node *n) {
  std::string op = n->kind().toQualString();
  if (!metadata_ops().count(op) || n->inputs().empty())
    return false;
  const Bound &src = lookup(n->input(0));
  const TensorInfo *info =
      src.kind == Bound::Kind::Tensor ? record_.find(value_id(n->input(0))) : nullptr;
  // Not recorded (a branch the example run did not take, e.g. the slow path of a scripted
  // nn.MultiheadAttention when the run took the fast one), or recorded without a rank (in one
  // recording only): what the builder knows of the value.
  if (info && !info->has_rank())
    info = nullptr;
  TensorInfo weakened; // a runtime if's output: sizes its branches contradict are not folded
  if (info && (branch_shapes_.count(src.tensor.name) || runtime_axes_.count(src.tensor.name))) {
    weakened = *info;
    weaken_branch_dims(src.tensor, weakened);
    info = &weakened;
  }
  if (!info && src.kind == Bound::Kind::Tensor && size_free_metadata(op) &&
      b_.has_info(src.tensor) && !b_.info(src.tensor).complex)
    info = &b_.info(src.tensor);
  if (src.kind != Bound::Kind::Tensor || !foldable_metadata(op, info))
    return false;
  torch::jit::Stack stack;
  stack.emplace_back(meta_tensor(*info));
  for (size_t i = 1; i < n->inputs().size(); ++i) {
    const Bound &bd = lookup(n->inputs()[i]);
    T2O_CHECK(bd.kind == Bound::Kind::Const, "{} argument {} must be a constant", op, i);
    stack.push_back(bd.constant);
  }
  n->getOperation()(stack);
  for (size_t i = 0; i < n->outputs().size(); ++i) {
    Bound bd;
    bd.kind = Bound::Kind::Const;
    bd.constant = stack[i];
    if (bd.constant.isDevice())
      bd.constant = c10::IValue(c10::Device(c10::kCPU));
    bind(n->outputs()[i], bd);
  }
  return true;
}

bool Walker::try_fold(const Node *n) {
  if (!is_foldable(n))
    return false;
  torch::jit::Stack stack;
  bool from_lists = false;
  for (const Value *in : n->inputs()) {
    c10::IValue iv;
    if (!as_constant(lookup(in), in->type(), iv))
      return false;
    // A list of constant tensors folds like the tensors themselves (no larger result).
    from_lists = from_lists || (lookup(in).kind != Bound::Kind::Const && !iv.isTensorList());
    stack.push_back(std::move(iv));
  }
  // Vararg ops (aten::format) read their input count from the stack, as the interpreter pushes it.
  if (const auto *schema = n->maybeSchema(); schema && schema->is_vararg())
    stack.emplace_back(static_cast<int64_t>(n->inputs().size()));
  // Size lists fold only into numbers (e.g. `h.size() != expected`); ops that make tensors from
  // them (zeros, ones) stay ONNX ops rather than becoming possibly large initializers.
  if (from_lists)
    for (const Value *o : n->outputs())
      if (is_tensor_type(o))
        return false;
  // An in-place op folded on a constant tensor changes it: an initializer made from it earlier
  // holds the old contents, so later uses must make a new one (e.g. `offset += n` in a loop).
  if (is_inplace(n->kind().toQualString()) && !stack.empty() && stack[0].isTensor())
    materialized_.erase(stack[0].toTensor().unsafeGetTensorImpl());
  // A list or dict method that changes its argument (xs.reverse(), xs.sort(), d.update(e)) runs
  // on a copy, which then is that value from here on: the walk's value of a list made of items
  // (or shared with a constant) would otherwise never see the change.
  std::vector<std::pair<const Value *, c10::IValue>> written;
  if (const auto *schema = n->maybeSchema())
    for (size_t i = 0; i < schema->arguments().size() && i < stack.size(); ++i) {
      const auto *alias = schema->arguments()[i].alias_info();
      if (!alias || !alias->isWrite() || stack[i].isTensor())
        continue;
      if (stack[i].isList())
        stack[i] = c10::IValue(stack[i].toList().copy());
      else if (stack[i].isGenericDict())
        stack[i] = c10::IValue(stack[i].toGenericDict().copy());
      else
        return false; // some other mutable value: leave it to a converter (or the error)
      written.emplace_back(n->input(i), stack[i]);
    }
  try {
    n->getOperation()(stack);
  } catch (const std::exception &e) {
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
  for (auto &[value, changed] : written) {
    Bound bd;
    bd.kind = Bound::Kind::Const;
    bd.constant = std::move(changed); // the copy the op changed (it shares the list's storage)
    env_[value] = std::move(bd);
  }
  return true;
}

namespace {
// Ops that draw random numbers (torch.randn_like in a diffusion step, sampling from logits).
bool draws_random(const std::string &op) {
  for (const char *prefix : {"aten::rand", "aten::normal", "aten::bernoulli", "aten::multinomial",
                             "aten::poisson", "aten::uniform", "aten::exponential_",
                             "aten::geometric_", "aten::cauchy_", "aten::log_normal_"})
    if (op.rfind(prefix, 0) == 0)
      return true;
  return false;
}
} // namespace

void Walker::convert(const Node *n, const RegistryEntry &entry) {
  last_converted_ = {n, &entry};
  if (draws_random(n->kind().toQualString())) {
    std::string w = fmt::format(
        "the model draws random numbers ({} at {}): the ONNX file draws its own, so outputs that "
        "depend on them differ from LibTorch's in --verify and --expected-outputs",
        n->kind().toQualString(), where_of(n).source.empty() ? "?" : where_of(n).source);
    if (std::find(random_ops_.begin(), random_ops_.end(), w) == random_ops_.end())
      warn_changed(random_ops_, w);
  }
  std::vector<Arg> args;
  args.reserve(n->inputs().size());
  for (const Value *in : n->inputs())
    args.push_back(to_arg(lookup(in), in));
  infer_missing(n);
  NodeContext node;
  node.op = entry.op;
  if (const auto *schema = n->maybeSchema()) {
    node.overload = schema->overload_name();
    for (const auto &a : schema->arguments())
      node.arg_names.push_back(a.name());
  }
  std::vector<OutputSlot> slots;
  for (const Value *o : n->outputs()) {
    const TensorInfo *info = info_of_value(o);
    DType num = number_dtype(o->type());
    OutputSlot slot;
    slot.info = info                      ? complex_as_real(*info)
                : num != DType::Undefined ? TensorInfo{num, std::vector<Dim>{}}
                                          : TensorInfo{};
    // Optional outputs, and tensors LibTorch left undefined in the recording (no info, e.g. the
    // attention weights of _native_multi_head_attention without need_weights).
    slot.may_be_none = o->type()->kind() == c10::TypeKind::NoneType ||
                       o->type()->kind() == c10::TypeKind::OptionalType ||
                       (info == nullptr && o->type()->kind() == c10::TypeKind::TensorType);
    slots.push_back(std::move(slot));
    node.outputs.push_back(o->debugName());
  }
  std::vector<Arg> results = call_converter(b_, registry_, entry, node, std::move(args), slots);
  for (size_t i = 0; i < n->outputs().size(); ++i) {
    const Arg &a = results[i];
    const Value *o = n->outputs()[i];
    if (a.is_tensor() && is_tensor_type(o) && !info_of_value(o) && !b_.has_info(a.tensor))
      warnings_.push_back(fmt::format("no shape recorded for %{}", o->debugName()));
    // A number computed at run time is a 0-d tensor.
    if (a.is_tensor() && !b_.has_info(a.tensor) && number_dtype(o->type()) != DType::Undefined)
      b_.set_info(a.tensor, TensorInfo{number_dtype(o->type()), std::vector<Dim>{}});
    // A quantized result: rounded to the parameters LibTorch gave it (docs/quantized.md).
    const TensorInfo *info = info_of_value(o);
    if (a.is_tensor() && info && info->quant) {
      Val q = requantize(b_, a.tensor, *info->quant);
      b_.set_info(q, *info);
      bind(o, from_arg(Arg::of_tensor(q), o));
      continue;
    }
    bind(o, from_arg(a, o));
  }
  for (auto [in, out] : written_inputs(n, is_inplace(entry.op)))
    apply_write(n, n->input(in), n->output(out));
}

// The tensors an op writes, as (input, output) positions: an in-place op its first input (its
// result); an out= overload each out argument (torch.add(a, b, out=y[1]): the result in order).
std::vector<std::pair<size_t, size_t>> Walker::written_inputs(const Node *n, bool inplace) const {
  if (n->inputs().empty() || n->outputs().empty())
    return {};
  if (inplace)
    return {{0, 0}};
  std::vector<std::pair<size_t, size_t>> out;
  if (const auto *schema = n->maybeSchema())
    for (size_t i = 0; i < schema->arguments().size() && i < n->inputs().size(); ++i)
      if (schema->arguments()[i].is_out() && out.size() < n->outputs().size() &&
          is_tensor_type(n->input(i)))
        out.emplace_back(i, out.size());
  return out;
}

// `target` now holds `result` for the nodes that follow, and a tensor it is a view of is written
// back. When it is the result of earlier in-place ops (a trace's y[..., :2].mul_(2).sub_(1)), it
// is the tensor they changed, which changes too: the first one's input is written back.
void Walker::apply_write(const Node *n, const Value *target, const Value *result) {
  check_untracked_view_write(n, target);
  for (;;) {
    env_[target] = env_[result];
    inplace_aliases_[target].push_back(result);
    const Value *source = inplace_source(target);
    if (!source)
      break;
    target = source;
  }
  write_list_item(write_back(target, n));
}

// The tensor an earlier in-place op changed when `v` is its result (`v = y.mul_(2)`), else null.
const Value *Walker::inplace_source(const Value *v) {
  const Node *p = v->node();
  if (p->outputs().size() != 1 || p->inputs().empty() || !is_inplace(p->kind().toQualString()) ||
      !is_tensor_type(p->input(0)))
    return nullptr;
  return p->input(0);
}

// The tensor `v` is a view of through the chain of tracked views (itself if it is none).
const Value *Walker::view_root(const Value *v) const {
  for (auto it = view_of_.find(v); it != view_of_.end(); it = view_of_.find(v))
    v = it->second->input(0);
  return v;
}

// A tensor taken out of a list of known items (`for p in past: p[:, 0] = k`, `a, b = pair`) and
// changed in place: the list holds that tensor, so its item is the new value.
void Walker::write_list_item(const Value *target) {
  const Node *g = target->node();
  const bool getitem = g->kind() == c10::aten::__getitem__ && g->inputs().size() == 2;
  if (!getitem && g->kind() != c10::prim::ListUnpack)
    return;
  auto it = env_.find(g->input(0));
  if (it == env_.end() || it->second.kind != Bound::Kind::List || !it->second.keys.empty())
    return;
  int64_t i = static_cast<int64_t>(target->offset());
  if (getitem) {
    const Bound &idx = lookup(g->input(1));
    if (idx.kind != Bound::Kind::Const || !idx.constant.isInt())
      return;
    i = idx.constant.toInt();
  }
  auto &items = it->second.items;
  if (i < 0)
    i += static_cast<int64_t>(items.size());
  if (i < 0 || i >= static_cast<int64_t>(items.size()))
    return;
  Bound now = env_[target];
  now.list_origin = items[static_cast<size_t>(i)].list_origin;
  items[static_cast<size_t>(i)] = now;
  // A list made of other values (the loader's [past[0], past[1]] for `for p in past`): the value
  // the item came from is that tensor too, and so on up.
  const Node *made = g->input(0)->node();
  if (made->kind() == c10::prim::ListConstruct && static_cast<size_t>(i) < made->inputs().size()) {
    const Value *source = made->input(static_cast<size_t>(i));
    if (source != target && env_.count(source) && is_tensor_type(source)) {
      env_[source] = env_[target];
      write_list_item(source);
    }
  }
}

namespace {

// True when `v` is read by a node after `n` or inside it (a Loop or If body).
bool read_after(const Value *v, const Node *n) {
  for (const auto &use : v->uses()) {
    const Node *u = use.user;
    if (u == n)
      continue;
    for (const Node *a = u; a; a = a->owningBlock() ? a->owningBlock()->owningNode() : nullptr)
      if (a == n)
        return true;
    if (u->isAfter(n))
      return true;
  }
  return false;
}

} // namespace

// Views of `base` taken before it changed (`first = c[:, 0]; c[:, 0] = 0; return first`; a row
// of a buffer taken before a loop that writes it) see the change in PyTorch: each one read after
// `at` is converted again from the new base, then its own views. `fresh` views are already
// up to date (the chain write_back went up), but their views are not.
void Walker::rederive_views(const Value *base, const Node *at,
                            const std::unordered_set<const Value *> &fresh) {
  // The views of each tensor, in graph order, from one pass over view_of_ (which holds every view
  // converted so far; a walk per level would rescan it at each in-place op).
  std::unordered_map<const Value *, std::vector<std::pair<const Value *, const Node *>>> kids;
  for (const auto &[v, vn] : view_of_)
    if (env_.count(v))
      kids[vn->input(0)].emplace_back(v, vn);
  for (auto &[parent, views] : kids)
    std::sort(views.begin(), views.end(), [](const auto &x, const auto &y) {
      return x.second->isBefore(y.second) ||
             (x.second == y.second && x.first->unique() < y.first->unique());
    });
  // The outputs of earlier in-place ops on v read after `at` (a trace's `z2 = z.mul_(3)`): the
  // same tensor as v.
  auto aliases_read = [&](const Value *v) {
    std::vector<const Value *> out;
    auto it = inplace_aliases_.find(v);
    if (it != inplace_aliases_.end())
      for (const Value *a : it->second)
        if ((at->outputs().empty() || a != at->outputs()[0]) && read_after(a, at))
          out.push_back(a);
    return out;
  };
  // Needed when it, an alias of it, or a view of it (y[:] of y[:, 1]) is read after `at`.
  std::function<bool(const Value *)> needed = [&](const Value *v) {
    if (read_after(v, at) || !aliases_read(v).empty())
      return true;
    auto it = kids.find(v);
    return it != kids.end() && std::any_of(it->second.begin(), it->second.end(),
                                           [&](const auto &w) { return needed(w.first); });
  };
  std::function<void(const Value *)> visit = [&](const Value *parent) {
    auto it = kids.find(parent);
    if (it == kids.end())
      return;
    for (const auto &[v, vn] : it->second) {
      if (!fresh.count(v)) {
        if (!needed(v))
          continue;
        try {
          run_node(vn, node_index_, where_of(vn));
        } catch (const Error &) {
          continue; // left as it was
        }
      }
      for (const Value *a : aliases_read(v))
        env_[a] = env_[v];
      visit(v);
    }
  };
  for (const Value *a : aliases_read(base))
    env_[a] = env_[base];
  visit(base);
}

const RegistryEntry &Walker::fallback_entry(const Node *n) {
  const auto *schema = n->maybeSchema();
  std::string op = n->kind().toQualString();
  std::string key = schema ? fmt::format("{}.{}", op, schema->overload_name()) : op;
  auto it = fallback_entries_.find(key);
  if (it != fallback_entries_.end())
    return it->second;
  // Tensor, Tensor? and Tensor[] arguments are inputs; the rest attributes.
  auto tensor_like = [](const c10::TypePtr &t) {
    auto lt = t->cast<c10::ListType>();
    const c10::TypePtr &elem = lt ? lt->getElementType() : t;
    return elem->isSubtypeOf(*c10::OptionalType::ofTensor());
  };
  std::vector<FallbackArg> args;
  std::string overload;
  if (schema) {
    overload = schema->overload_name();
    for (const auto &a : schema->arguments())
      args.push_back(FallbackArg{a.name(), tensor_like(a.type())});
  } else {
    for (size_t i = 0; i < n->inputs().size(); ++i)
      args.push_back(FallbackArg{fmt::format("arg{}", i), tensor_like(n->input(i)->type())});
  }
  const std::string &domain = registry_.fallback_domain();
  RegistryEntry e;
  e.op = op;
  e.since_opset = kMinOpset;
  e.fn = fallback_converter(domain, op, overload, std::move(args));
  e.onnx_ops = {fmt::format("{}:{}", domain, op.substr(op.rfind(':') + 1))};
  e.family = "fallback";
  return fallback_entries_.emplace(key, std::move(e)).first->second;
}

// The permutation that undoes transpose/permute/t node `vn` of `base`.
std::vector<int64_t> Walker::inverse_permutation(const Node *vn, const Value *base) {
  Val bv = lookup(base).tensor;
  int64_t rank = b_.has_info(bv) ? b_.rank(bv) : -1;
  T2O_CHECK(rank >= 0, "an in-place op on {} of a tensor of unknown rank is not supported",
            vn->kind().toQualString());
  std::vector<int64_t> perm(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i)
    perm[i] = i;
  auto int_at = [&](size_t i) {
    const Bound &bd = lookup(vn->input(i));
    T2O_CHECK(bd.kind == Bound::Kind::Const && bd.constant.isInt(),
              "an in-place op on {} with runtime dims is not supported", vn->kind().toQualString());
    return (bd.constant.toInt() % rank + rank) % rank;
  };
  if (vn->kind() == c10::aten::t && rank == 2) {
    std::swap(perm[0], perm[1]);
  } else if (vn->kind() == c10::aten::transpose) {
    std::swap(perm[int_at(1)], perm[int_at(2)]);
  } else if (vn->kind() == c10::aten::permute) {
    const Bound &bd = lookup(vn->input(1));
    T2O_CHECK(bd.kind == Bound::Kind::Const && bd.constant.isIntList(),
              "an in-place op on aten::permute with runtime dims is not supported");
    auto dims = bd.constant.toIntVector();
    for (size_t i = 0; i < dims.size() && rank > 0; ++i)
      perm[(dims[i] % rank + rank) % rank] = static_cast<int64_t>(i);
  }
  return perm;
}

// An in-place op `n` changing `base`, which an untracked view (chunk, split, expand, ...) was
// taken of before, the view read afterwards: PyTorch's view sees the change, the export's would
// not. Refused, naming both ops.
void Walker::check_untracked_views_of(const Node *n, const Value *base) const {
  auto read_later = [&](const Value *v) {
    return std::any_of(v->uses().begin(), v->uses().end(),
                       [&](const auto &u) { return u.user->isAfter(n); });
  };
  for (const auto &use : base->uses()) {
    const Node *p = use.user;
    if (p == n || !p->isBefore(n) || use.offset != 0)
      continue;
    // A view of a view (bias[:, None].expand(...)): rederived views are, their untracked views not.
    if (walker_detail::is_view_op(p)) {
      check_untracked_views_of(n, p->output());
      continue;
    }
    if (!walker_detail::is_untracked_view_op(p))
      continue;
    bool stale = false;
    for (const Value *o : p->outputs()) {
      stale = stale || read_later(o);
      for (const auto &u : o->uses()) // the elements of chunk / split / unbind
        if (u.user->kind() == c10::prim::ListUnpack || u.user->kind() == c10::aten::__getitem__)
          for (const Value *e : u.user->outputs())
            stale = stale || read_later(e);
    }
    if (stale)
      throw Error(fmt::format("{} changes %{} in place, but {} ({}) took a view of it before that "
                              "is read afterwards: the view would not see the change",
                              n->kind().toQualString(), base->debugName(), p->kind().toQualString(),
                              place_of(p)),
                  "apply the in-place op before taking the view, or use the out-of-place op "
                  "(torch.sigmoid(x) rather than x.sigmoid_())");
  }
}

// An in-place op on a view write_back cannot carry back (an element of unbind/split/chunk, an
// expand, a diagonal, ...) whose base is read afterwards: PyTorch changes the base, the export
// would not. Refused, naming both ops.
void Walker::check_untracked_view_write(const Node *n, const Value *written) const {
  // The tensor written and each one it is a view of (y[:, :] = 0 writes y) or an earlier in-place
  // op's result on (y.mul_(2).sub_(1)), up to one an untracked view made.
  for (const Value *v = written;;) {
    check_untracked_views_of(n, v);
    check_untracked_producer(n, v);
    check_view_from_if(n, v);
    auto it = view_of_.find(v);
    const Value *source = inplace_source(v);
    if (it != view_of_.end())
      v = it->second->input(0);
    else if (source)
      v = source;
    else
      break;
  }
}

// `v`, which `n` writes in place, the output of an If on a runtime condition that is a view on
// one of its paths (`row = y[:, -1] if flag else y[:, 0]`): an ONNX If gives a new value, so the
// write could not reach the tensor viewed; refused when that tensor is read after `n`.
void Walker::check_view_from_if(const Node *n, const Value *v) const {
  const Node *p = v->node();
  if (p->kind() != c10::prim::If || view_of_.count(v))
    return;
  for (const torch::jit::Block *b : p->blocks()) {
    const Value *branch = b->outputs()[v->offset()];
    if (!view_of_.count(branch))
      continue;
    const Value *base = view_root(branch);
    for (const auto &use : base->uses())
      if (use.user != n && use.user->isAfter(n))
        throw Error(fmt::format("{} writes into %{}, which an if on a run-time condition ({}) "
                                "picks, a view of %{} on one path: the write would not reach "
                                "%{}, which is read afterwards",
                                n->kind().toQualString(), v->debugName(), place_of(p),
                                base->debugName(), base->debugName()),
                    "write through the view in each branch (if flag: y[:, -1].zero_() else: "
                    "y[:, 0].zero_()), or use torch.where to build the result");
  }
}

// `v`, which `n` writes in place, made by an untracked view op (movedim, expand, an element of
// chunk): refused when the tensor viewed is read after `n`.
void Walker::check_untracked_producer(const Node *n, const Value *v) const {
  const Node *p = v->node();
  if ((p->kind() == c10::prim::ListUnpack || p->kind() == c10::aten::__getitem__) &&
      !p->inputs().empty())
    p = p->input(0)->node();
  if (!walker_detail::is_untracked_view_op(p) || p->inputs().empty())
    return;
  // The tensor viewed, or one it is a view of (y.unsqueeze(0).expand(...)), read afterwards.
  auto read_later = [&](const Value *b) {
    return std::any_of(b->uses().begin(), b->uses().end(), [&](const auto &use) {
      return use.user != p && use.user != n && use.user->isAfter(n);
    });
  };
  const Value *base = p->input(0);
  while (!read_later(base)) {
    auto it = view_of_.find(base);
    if (it == view_of_.end())
      return;
    base = it->second->input(0);
  }
  throw Error(
      fmt::format("{} writes into the output of {} ({}), a view of %{} that is read "
                  "afterwards: writes through {} are not carried back to the tensor it views",
                  n->kind().toQualString(), p->kind().toQualString(), place_of(p),
                  base->debugName(), p->kind().toQualString()),
      "write into the tensor through indexing instead (e.g. b[:, 0].clamp_(0, w) rather "
      "than unbinding it), or build the result out of place (torch.stack / torch.cat)");
}

const Value *Walker::write_back(const Value *view, const Node *at) {
  // Constant bases need nothing: a folded view shares the base's storage, so an in-place op
  // folded on it already changed the base. Only converted (ONNX) in-place results are scattered.
  std::unordered_set<const Value *> chain = {view};
  for (auto it = view_of_.find(view); it != view_of_.end(); it = view_of_.find(view)) {
    const Node *vn = it->second;
    const Value *base = vn->input(0);
    std::string op = vn->kind().toQualString();
    std::vector<Arg> args = {to_arg(lookup(base), base), to_arg(lookup(view), view)};
    std::string scatter;
    if (op == "aten::slice" || op == "aten::select" || op == "aten::diagonal") {
      scatter = op + "_scatter";
      for (size_t i = 1; i < vn->inputs().size(); ++i)
        args.push_back(to_arg(lookup(vn->input(i)), vn->input(i)));
    } else if (op == "aten::transpose" || op == "aten::permute" || op == "aten::t") {
      scatter = "transpose"; // written below: the inverse permutation
    } else if (op == "aten::narrow") {
      const Bound &start = lookup(vn->input(2));
      const Bound &length = lookup(vn->input(3));
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
    // The write-back's nodes belong to the op that writes them (the scatter, or the view op
    // undone), not to the in-place op: its module scope with that op's name.
    std::string scope = b_.scope();
    std::string module =
        scope.find('/') == std::string::npos ? "" : scope.substr(0, scope.rfind('/'));
    std::string writer = scatter.empty() ? "aten::reshape" : scatter == "transpose" ? op : scatter;
    b_.set_scope(module.empty() ? writer : module + "/" + writer);
    if (scatter.empty()) {
      // view/unsqueeze/squeeze keep every element in order: reshape back to the base's shape.
      Val base_val = args[0].t();
      out.tensor = b_.op1("Reshape", {args[1].t(), b_.op1("Shape", {base_val})});
    } else if (scatter == "transpose") {
      out.tensor = b_.op1("Transpose", {args[1].t()}, {{"perm", inverse_permutation(vn, base)}});
    } else {
      const RegistryEntry *entry = find_converter(registry_, scatter, b_.opset());
      T2O_CHECK(entry, "{} has no converter at opset {}", scatter, b_.opset());
      const TensorInfo *info = record_.find(value_id(base));
      NodeContext node;
      node.op = scatter;
      node.outputs = {base->debugName()};
      // self and src, then the view's own arguments after self (slice: dim, start, end, step;
      // select: dim, index), which the scatter names alike.
      node.arg_names = scatter == "aten::select_scatter"
                           ? std::vector<std::string>{"self", "src", "dim", "index"}
                       : scatter == "aten::diagonal_scatter"
                           ? std::vector<std::string>{"self", "src", "offset", "dim1", "dim2"}
                           : std::vector<std::string>{"self", "src", "dim", "start", "end", "step"};
      out.tensor =
          call_converter(b_, registry_, *entry, node, std::move(args),
                         {OutputSlot{info ? complex_as_real(*info) : TensorInfo{}, false}})[0]
              .t();
    }
    b_.set_scope(scope);
    bind(base, out);
    view = base;
    chain.insert(base);
  }
  // Views taken of what changed before it changed (`z = y[:, 1]; y.add_(1); return z`; when the
  // write came through a view, of every tensor up the chain) see the change.
  if (at && (chain.size() > 1 || viewed_.count(view)))
    rederive_views(view, at, chain);
  return view;
}

// ---- shapes of values the recorder did not see ----------------------------------------------

// Placeholder sizes for infer_missing's runs: a static dim's size; a symbolic dim's two recorded
// sizes (the example's in run 0, the alternate in run 1); an unknown dim (a data-dependent count)
// 8, then 12.
struct PlaceholderSizes {
  const std::vector<SymbolSizes> *symbols = nullptr;
  int run = 0;

  int64_t size(const Dim &d) const {
    if (d.is_static())
      return d.value;
    for (const auto &s : *symbols)
      if (!d.symbol.empty() && s.name == d.symbol)
        return run == 0 ? s.example : s.alternate;
    return run == 0 ? 8 : 12;
  }

  // An output seen in both runs: dims equal in both are static, a dim that is a symbol's size in
  // both runs is that symbol, other dims unknown (as the recorder merges its two runs).
  TensorInfo merge(TensorInfo a, const TensorInfo &b) const {
    if (!a.shape || !b.shape || a.shape->size() != b.shape->size())
      return TensorInfo{a.dtype, std::nullopt, a.complex, a.quant};
    for (size_t k = 0; k < a.shape->size(); ++k) {
      Dim &d = (*a.shape)[k];
      int64_t other = (*b.shape)[k].value;
      if (d.value == other && d.value != 0) // 0 rows may come from the zero placeholders' values
        continue;
      Dim merged{};
      int matches = 0; // two symbols at the same two sizes: which one is unknown
      for (const auto &s : *symbols)
        if (s.example == d.value && s.alternate == other) {
          merged = Dim::named(s.name);
          ++matches;
        }
      d = matches == 1 ? merged : Dim{};
    }
    return a;
  }
};

bool Walker::placeholder_value(const Bound &bd, const c10::TypePtr &type, PlaceholderRun &r,
                               c10::IValue &out) {
  switch (bd.kind) {
  case Bound::Kind::Const:
    out = bd.constant;
    return true;
  case Bound::Kind::Tensor: {
    DType num = number_dtype(type);
    if (num != DType::Undefined) {
      r.guessed = true;
      out = num == DType::Int64    ? c10::IValue(int64_t{0})
            : num == DType::Double ? c10::IValue(0.0)
                                   : c10::IValue(false);
      return true;
    }
    if (!b_.has_info(bd.tensor) || !b_.info(bd.tensor).has_rank())
      return false;
    const TensorInfo &info = b_.info(bd.tensor);
    std::vector<int64_t> sizes;
    for (const Dim &d : *info.shape) {
      sizes.push_back(r.sizes->size(d));
      r.symbolic = r.symbolic || !d.is_static();
    }
    out = at::zeros(sizes, at::TensorOptions().dtype(to_scalar_type(info.dtype)));
    if (info.complex) // carried as real [..., 2]: LibTorch wants the complex tensor
      out = at::view_as_complex(out.toTensor());
    return true;
  }
  case Bound::Kind::List: {
    auto lt = type->cast<c10::ListType>();
    if (!lt)
      return false;
    const c10::TypePtr &elem = lt->getElementType();
    // An int list with items known at run time only (F.pad(x, [0, 0, 0, 56 - h])): those items
    // 0, the sizes they give then unknown (the output's rank is what the walk needs).
    if (elem->kind() == c10::TypeKind::IntType) {
      c10::List<int64_t> ints;
      for (const auto &it : bd.items) {
        bool known = it.kind == Bound::Kind::Const && it.constant.isInt();
        r.guessed = r.guessed || !known;
        ints.push_back(known ? it.constant.toInt() : 0);
      }
      out = c10::IValue(ints);
      return true;
    }
    bool optional = elem->isSubtypeOf(*c10::OptionalType::ofTensor()) &&
                    !elem->isSubtypeOf(*c10::TensorType::get()); // aten::index's indices
    if (!optional && !elem->isSubtypeOf(*c10::TensorType::get()))
      return false;
    c10::List<at::Tensor> list;
    c10::List<c10::optional<at::Tensor>> optionals;
    for (const auto &it : bd.items) {
      c10::IValue v;
      if (optional && it.kind == Bound::Kind::Const && it.constant.isNone()) {
        optionals.push_back(c10::nullopt);
        continue;
      }
      if (!placeholder_value(it, c10::TensorType::get(), r, v) || !v.isTensor())
        return false;
      list.push_back(v.toTensor());
      optionals.push_back(v.toTensor());
    }
    out = optional ? c10::IValue(optionals) : c10::IValue(list);
    return true;
  }
  default:
    return false;
  }
}

// Runs the node's LibTorch operation on placeholder inputs of the known shapes; with symbolic
// dims twice (at the example sizes and at others) to tell which output dims follow them.
void Walker::infer_missing(const Node *n) {
  bool needed = false;
  for (const Value *o : n->outputs()) {
    const TensorInfo *info = info_of_value(o);
    needed =
        needed || (o->type()->isSubtypeOf(*c10::TensorType::get()) && (!info || !info->has_rank()));
  }
  if (!needed || !n->blocks().empty() || n->maybeOperator() == nullptr)
    return;
  PlaceholderSizes sizes{&symbols_};
  PlaceholderRun r{&sizes};
  std::vector<std::vector<TensorInfo>> runs;
  for (sizes.run = 0; sizes.run < (r.symbolic ? 2 : 1); ++sizes.run) {
    torch::jit::Stack stack;
    for (const Value *in : n->inputs()) {
      c10::IValue v;
      if (!placeholder_value(lookup(in), in->type(), r, v))
        return;
      stack.push_back(std::move(v));
    }
    try {
      n->getOperation()(stack);
    } catch (const std::exception &) {
      return; // unknown shape; a converter that needs it says so
    }
    std::vector<TensorInfo> infos(n->outputs().size());
    for (size_t i = 0; i < infos.size() && i < stack.size(); ++i)
      try {
        if (stack[i].isTensor())
          infos[i] = info_of(stack[i].toTensor());
      } catch (const Error &) {
      }
    runs.push_back(std::move(infos));
  }
  for (size_t i = 0; i < n->outputs().size(); ++i) {
    const Value *o = n->outputs()[i];
    const TensorInfo *known = info_of_value(o);
    if (runs[0][i].dtype == DType::Undefined || (known && known->has_rank()))
      continue;
    TensorInfo info = runs.size() > 1 ? sizes.merge(runs[0][i], runs[1][i]) : runs[0][i];
    if ((r.guessed || has_data_dependent_rows(n)) && info.shape)
      for (auto &d : *info.shape)
        d = Dim{}; // sizes may depend on the placeholder number
    inferred_[o] = info;
  }
}

} // namespace torch2onnx
