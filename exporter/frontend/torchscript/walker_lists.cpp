// List ops: on lists whose length is known at export time (Bound::Kind::List, items may be
// runtime tensors) they are bookkeeping; on tensor lists built at run time (in a loop, an ONNX
// sequence) they become sequence ops. See docs/control_flow.md.
#include "aten_lib/helpers.h"
#include "exporter/frontend/torchscript/walker.h"

#include <algorithm>
#include <numeric>
#include <optional>

namespace torch2onnx {

using torch::jit::Node;
using torch::jit::Value;
using walker_detail::is_tensor_list;

// ---- lists of known length ------------------------------------------------------------------

bool Walker::handle_getitem(const Node *n) {
  using K = Bound::Kind;
  const Bound &src = lookup(n->input(0));
  // A runtime index into a list whose items are known: make it a sequence first.
  if (n->kind() == c10::aten::__getitem__ && src.kind == K::List && src.keys.empty() &&
      lookup(n->input(1)).kind == K::Tensor && is_tensor_list(n->input(0)->type())) {
    const TensorInfo *info = info_of_value(n->output());
    Val seq = to_sequence(src, info ? info->dtype : list_elem_dtype(n->input(0)));
    Bound out;
    out.kind = K::Tensor;
    out.tensor = b_.op1("SequenceAt", {seq, to_scalar_tensor(lookup(n->input(1)), DType::Int64)});
    bind(n->output(), out);
    return true;
  }
  if (src.kind != K::List)
    return false; // constant lists fold; strings go to converters
  const Bound &idx = lookup(n->input(1));
  if (!src.keys.empty()) {
    T2O_CHECK(idx.kind == K::Const && idx.constant.isString(),
              "dict key must be a constant string");
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
  if (i < 0)
    i += size;
  T2O_CHECK(i >= 0 && i < size, "list index {} out of range for {} items", idx.constant.toInt(),
            size);
  Bound item = current(src.items[static_cast<size_t>(i)]);
  bind(n->output(), item);
  return true;
}

bool Walker::handle_len(const Node *n) {
  // A constant list or a tensor's len folds; a tensor list built at run time is a sequence.
  const Bound &in = lookup(n->input(0));
  if (in.kind == Bound::Kind::Tensor && n->input(0)->type()->isSubtypeOf(*c10::TensorType::get())) {
    // len(x) of a tensor whose first dim is known only at run time (a static one folds).
    T2O_CHECK(!b_.has_info(in.tensor) || b_.rank(in.tensor) != 0, "len() of a 0-d tensor");
    Bound bd;
    bd.kind = Bound::Kind::Tensor;
    bd.tensor = b_.op1("Gather", {b_.op1("Shape", {in.tensor}), b_.const_i64_scalar(0)},
                       {{"axis", int64_t{0}}});
    b_.set_info(bd.tensor, TensorInfo{DType::Int64, std::vector<Dim>{}});
    bind(n->output(), bd);
    return true;
  }
  if (in.kind != Bound::Kind::List)
    return false;
  Bound bd;
  bd.kind = Bound::Kind::Const;
  bd.constant = c10::IValue(static_cast<int64_t>(lookup(n->input(0)).items.size()));
  bind(n->output(), bd);
  return true;
}

bool Walker::handle_append(const Node *n) {
  using K = Bound::Kind;
  Bound list = lookup(n->input(0));
  Bound item = lookup(n->input(1));
  Bound out;
  if (list.kind == K::Seq) {
    Arg a = to_arg(item, n->input(1));
    T2O_CHECK(a.is_tensor(), "appending {} to a tensor list", a.describe());
    Val v = a.t();
    if (list.seq_dtype != DType::Undefined && b_.has_info(v))
      v = cast_to(b_, v, list.seq_dtype);
    out = list;
    out.tensor = b_.op1("SequenceInsert", {list.tensor, v});
  } else {
    out.kind = K::List;
    if (list.kind == K::List) {
      out.items = list.items;
    } else {
      T2O_CHECK(list.kind == K::Const && list.constant.isList(), "append to a non-list value");
      for (const auto &e : list.constant.toListRef()) {
        Bound eb;
        eb.kind = K::Const;
        eb.constant = e;
        out.items.push_back(eb);
      }
    }
    out.items.push_back(item);
  }
  // append changes the list in place: later readers of the input see the new list.
  env_[n->input(0)] = out;
  bind(n->output(), out);
  return true;
}

bool Walker::handle_list_copy(const Node *n) {
  // list(xs) of a runtime list is the same list; of a constant it folds.
  if (n->inputs().size() != 1 || lookup(n->input(0)).kind == Bound::Kind::Const)
    return false;
  Bound copy = lookup(n->input(0));
  bind(n->output(), copy);
  return true;
}

bool Walker::handle_is_none(const Node *n) {
  using K = Bound::Kind;
  const Bound &a = lookup(n->input(0));
  const Bound &b = lookup(n->input(1));
  auto is_none = [](const Bound &x) { return x.kind == K::Const && x.constant.isNone(); };
  if (a.kind == K::Const && b.kind == K::Const)
    return false; // folds
  Bound out;
  // An Optional tensor None on some runs: its flag says at run time.
  const Bound *maybe = a.some_flag.valid() && is_none(b)   ? &a
                       : b.some_flag.valid() && is_none(a) ? &b
                                                           : nullptr;
  if (maybe) {
    out.kind = K::Tensor;
    out.tensor =
        n->kind() == c10::aten::__isnot__ ? maybe->some_flag : b_.op1("Not", {maybe->some_flag});
    b_.set_info(out.tensor, TensorInfo{DType::Bool, std::vector<Dim>{}});
    bind(n->output(), out);
    return true;
  }
  out.kind = K::Const;
  if (!is_none(a) && !is_none(b)) {
    // `a is b` between two runtime tensors (nn.MultiheadAttention asks `query is key` to pick its
    // fast path): the same TorchScript value, or the same ONNX value (an op that returned its
    // input, as PyTorch's no-op .to()/.contiguous() return self), is the same object; tensors
    // computed apart are different objects.
    if (a.kind != K::Tensor || b.kind != K::Tensor)
      return false;
    const bool same = n->input(0) == n->input(1) || a.tensor == b.tensor;
    out.constant = c10::IValue(same == (n->kind() == c10::aten::__is__));
    bind(n->output(), out);
    return true;
  }
  // `x is None` with x a runtime value: known at export time, it is not None.
  out.constant = c10::IValue(n->kind() == c10::aten::__isnot__);
  bind(n->output(), out);
  return true;
}

bool Walker::handle_tolist(const Node *n) {
  using K = Bound::Kind;
  const Bound &x = lookup(n->input(0));
  if (x.kind != K::Tensor)
    return false; // a constant folds
  const TensorInfo info = b_.info(x.tensor);
  T2O_CHECK(info.shape && info.shape->size() == 1,
            "tolist() of a runtime tensor is supported for 1-d tensors only (this one has rank {})",
            info.shape ? std::to_string(info.shape->size()) : std::string("unknown"));
  // The items are Python numbers: runtime ints are int64 0-d tensors, floats double, as .item().
  DType dt = is_floating(info.dtype)     ? DType::Double
             : info.dtype == DType::Bool ? DType::Bool
                                         : DType::Int64;
  Val v = cast_to(b_, x.tensor, dt);
  const Dim &len = (*info.shape)[0];
  Bound out;
  if (len.is_static()) { // a list of known length: one 0-d item each
    out.kind = K::List;
    for (int64_t i = 0; i < len.value; ++i) {
      Bound item;
      item.kind = K::Tensor;
      item.tensor = b_.op1("Gather", {v, b_.const_i64_scalar(i)}, {{"axis", int64_t{0}}});
      b_.set_info(item.tensor, TensorInfo{dt, std::vector<Dim>{}});
      out.items.push_back(item);
    }
  } else { // its length is known at run time only (e.g. bincount's): an ONNX sequence
    out.kind = K::Seq;
    out.seq_dtype = dt;
    out.tensor = b_.op1("SplitToSequence", {v}, {{"axis", int64_t{0}}, {"keepdims", int64_t{0}}});
  }
  bind(n->output(), out);
  return true;
}

// torch.split(x, sizes) with sizes a list known at run time only (tolist() of a tensor of unknown
// length): SplitToSequence by the stacked sizes gives the pieces as an ONNX sequence.
bool Walker::try_split_by_sequence(const Node *n) {
  using K = Bound::Kind;
  if ((n->kind() != c10::aten::split && n->kind() != c10::aten::split_with_sizes) ||
      n->inputs().size() < 3)
    return false;
  auto it = env_.find(n->input(1));
  if (it == env_.end() || it->second.kind != K::Seq)
    return false;
  const Bound &x = lookup(n->input(0));
  const Bound &dim = lookup(n->input(2));
  T2O_CHECK(x.kind == K::Tensor, "torch.split of a constant by sizes known at run time");
  T2O_CHECK(dim.kind == K::Const && dim.constant.isInt(), "the dim of {} must be a constant",
            n->kind().toQualString());
  const TensorInfo info = b_.info(x.tensor);
  T2O_CHECK(info.shape.has_value(), "torch.split needs the rank of its input");
  int64_t axis = dim.constant.toInt();
  if (axis < 0)
    axis += static_cast<int64_t>(info.shape->size());
  Val sizes = b_.op1("ConcatFromSequence", {it->second.tensor},
                     {{"axis", int64_t{0}}, {"new_axis", int64_t{1}}});
  Bound out;
  out.kind = K::Seq;
  out.seq_dtype = info.dtype;
  out.tensor =
      b_.op1("SplitToSequence", {x.tensor, cast_to(b_, sizes, DType::Int64)}, {{"axis", axis}});
  bind(n->output(), out);
  return true;
}

namespace {

// The items of a list of known length: a List, or a constant list split into constant items.
std::vector<Walker::Bound> known_items(const Walker::Bound &list) {
  if (list.kind == Walker::Bound::Kind::List)
    return list.items;
  std::vector<Walker::Bound> out;
  for (const auto &e : list.constant.toListRef()) {
    Walker::Bound eb;
    eb.kind = Walker::Bound::Kind::Const;
    eb.constant = e;
    out.push_back(eb);
  }
  return out;
}

int64_t const_index(const Walker::Bound &idx, const char *op) {
  T2O_CHECK(idx.kind == Walker::Bound::Kind::Const && idx.constant.isInt(),
            "{}: the index into a list of known length must be a constant int", op);
  return idx.constant.toInt();
}

// Python's rules: a negative index counts from the end; out of range is an error.
size_t item_index(int64_t i, size_t size, const char *op) {
  int64_t n = static_cast<int64_t>(size);
  int64_t j = i < 0 ? i + n : i;
  T2O_CHECK(j >= 0 && j < n, "{}: list index {} out of range for {} items", op, i, n);
  return static_cast<size_t>(j);
}

} // namespace

bool Walker::handle_list_mutation(const Node *n) {
  using K = Bound::Kind;
  const char *op = n->kind().toQualString();
  const Bound list = lookup(n->input(0));
  static const c10::Symbol kReverse = c10::Symbol::fromQualString("aten::reverse");
  static const c10::Symbol kClear = c10::Symbol::fromQualString("aten::clear");
  const bool reorder = n->kind() == kReverse || n->kind() == kClear;
  if (list.kind == K::Seq)
    return !reorder && mutate_sequence(n, list);
  if (list.kind != K::List && !(list.kind == K::Const && list.constant.isList()))
    return false; // a dict given as a constant: left to the converters (none: reported)
  Bound out;
  out.kind = K::List;
  out.keys = list.keys;
  out.items = known_items(list);
  auto kind = n->kind();
  const bool dict = !out.keys.empty() || n->input(0)->type()->kind() == c10::TypeKind::DictType;
  if (kind == c10::aten::_set_item && dict) { // d[key] = value
    const Bound &key = lookup(n->input(1));
    T2O_CHECK(key.kind == K::Const && key.constant.isString(),
              "dict key must be a constant string");
    auto it = std::find(out.keys.begin(), out.keys.end(), key.constant.toStringRef());
    if (it == out.keys.end()) {
      out.keys.push_back(key.constant.toStringRef());
      out.items.push_back(lookup(n->input(2)));
    } else {
      out.items[static_cast<size_t>(it - out.keys.begin())] = lookup(n->input(2));
    }
  } else if (kind == c10::aten::insert) { // Python clamps the position into [0, len]
    int64_t size = static_cast<int64_t>(out.items.size());
    int64_t i = const_index(lookup(n->input(1)), op);
    i = std::min(std::max(i < 0 ? i + size : i, int64_t{0}), size);
    out.items.insert(out.items.begin() + i, lookup(n->input(2)));
  } else if (kind == c10::aten::_set_item) {
    size_t i = item_index(const_index(lookup(n->input(1)), op), out.items.size(), op);
    out.items[i] = lookup(n->input(2));
  } else if (kind == kReverse) {
    std::reverse(out.items.begin(), out.items.end());
  } else if (kind == kClear) {
    out.items.clear();
    out.keys.clear();
  } else { // pop (index -1 by default) and Delete
    T2O_CHECK(out.keys.empty(), "{} on a dict is not supported", op);
    int64_t at = n->inputs().size() > 1 ? const_index(lookup(n->input(1)), op) : -1;
    size_t i = item_index(at, out.items.size(), op);
    Bound item = out.items[i];
    out.items.erase(out.items.begin() + static_cast<std::ptrdiff_t>(i));
    if (kind == c10::aten::pop)
      bind(n->output(), item);
  }
  // The list changes in place: later readers of the input see the new list.
  env_[n->input(0)] = out;
  if (kind == c10::aten::_set_item && n->outputs().size() == 1)
    bind(n->output(), out);
  return true;
}

// a + b, a += b (aten::add_) and a.extend(b) on lists: concatenation (Tacotron2's decoder
// collects frames with `mel_outputs += [mel_output]`). Lists of known length join their items; a
// tensor list built at run time (a sequence) gets the other list's tensors inserted.
// aten::slice.t(t[] l, int? start=None, int? end=None, int step=1): a list whose length is known
// at export time (its items may be runtime values: x.size()[2:] with symbolic dims, as scripted
// nn.GroupNorm computes) sliced by constant bounds, with Python's rules for negative and
// out-of-range bounds.
bool Walker::handle_list_slice(const Node *n) {
  if (n->inputs().size() != 4 || lookup(n->input(0)).kind != Bound::Kind::List)
    return false;
  std::optional<int64_t> b[3];
  for (size_t i = 0; i < 3; ++i) {
    const Bound &v = lookup(n->input(i + 1));
    if (v.kind != Bound::Kind::Const || !(v.constant.isNone() || v.constant.isInt()))
      return false;
    if (v.constant.isInt())
      b[i] = v.constant.toInt();
  }
  const std::vector<Bound> &items = lookup(n->input(0)).items;
  const auto len = static_cast<int64_t>(items.size());
  const int64_t step = b[2].value_or(1);
  T2O_CHECK(step > 0, "a list slice with step {} is not supported", step);
  auto at = [&](const std::optional<int64_t> &v, int64_t absent) {
    return v ? std::clamp<int64_t>(*v < 0 ? *v + len : *v, 0, len) : absent;
  };
  Bound out;
  out.kind = Bound::Kind::List;
  for (int64_t i = at(b[0], 0); i < at(b[1], len); i += step)
    out.items.push_back(items[static_cast<size_t>(i)]);
  bind(n->output(), out);
  return true;
}

// a == b / a != b on two lists of numbers with items known only at run time (sizes: scripted
// `x.size() != w.size()`, as F.embedding_bag checks per_sample_weights): lists of other lengths
// differ; otherwise every pair of items is compared and the answers are anded.
bool Walker::handle_list_compare(const Node *n) {
  using K = Bound::Kind;
  if (n->inputs().size() != 2 || n->input(0)->type()->kind() != c10::TypeKind::ListType ||
      n->input(1)->type()->kind() != c10::TypeKind::ListType)
    return false;
  auto items_of = [&](const Bound &bd, std::vector<Bound> &out) {
    if (bd.kind == K::List) {
      out = bd.items;
      return true;
    }
    if (bd.kind != K::Const || !bd.constant.isList())
      return false;
    for (const auto &v : bd.constant.toListRef()) {
      Bound item;
      item.kind = K::Const;
      item.constant = v;
      out.push_back(item);
    }
    return true;
  };
  std::vector<Bound> a, b;
  if (!items_of(lookup(n->input(0)), a) || !items_of(lookup(n->input(1)), b))
    return false;
  const bool ne = n->kind() == c10::aten::ne;
  Bound out;
  out.kind = K::Const;
  out.constant = c10::IValue(ne);
  if (a.size() == b.size()) {
    auto elem = n->input(0)->type()->cast<c10::ListType>()->getElementType();
    DType t = number_dtype(elem) == DType::Undefined ? DType::Int64 : number_dtype(elem);
    Val all = b_.constant(TensorData::boolean({true}, {}));
    for (size_t i = 0; i < a.size(); ++i)
      all = b_.op1("And", {all, b_.op1("Equal", {to_scalar_tensor(current(a[i]), t),
                                                 to_scalar_tensor(current(b[i]), t)})});
    out.kind = K::Tensor;
    out.tensor = ne ? b_.op1("Not", {all}) : all;
    b_.set_info(out.tensor, TensorInfo{DType::Bool, std::vector<Dim>{}});
  }
  bind(n->output(), out);
  return true;
}

// [x] * n and n * [x] (aten::mul.left_t / right_t) on a list of tensors or of runtime numbers:
// the items repeated n times (n must be known at export time; constant lists fold).
bool Walker::handle_list_repeat(const Node *n) {
  using K = Bound::Kind;
  if (n->inputs().size() != 2)
    return false;
  size_t li = n->input(0)->type()->kind() == c10::TypeKind::ListType ? 0 : 1;
  if (n->input(li)->type()->kind() != c10::TypeKind::ListType)
    return false;
  const Bound &list = lookup(n->input(li));
  const Bound &times = lookup(n->input(1 - li));
  if (list.kind != K::List)
    return false;
  T2O_CHECK(times.kind == K::Const && times.constant.isInt(),
            "repeating a list ([x] * n) a number of times known only at run time is not supported");
  Bound out;
  out.kind = K::List;
  for (int64_t k = 0; k < times.constant.toInt(); ++k)
    out.items.insert(out.items.end(), list.items.begin(), list.items.end());
  bind(n->output(), out);
  return true;
}

bool Walker::handle_list_concat(const Node *n) {
  using K = Bound::Kind;
  if (n->input(0)->type()->kind() != c10::TypeKind::ListType)
    return false; // tensors and numbers: the converters
  const Bound list = lookup(n->input(0));
  const Bound more = lookup(n->input(1));
  if (list.kind == K::Const && more.kind == K::Const)
    return false; // folds
  const char *op = n->kind().toQualString();
  auto tensor_of = [&](const Bound &item, DType dtype) {
    Arg a = to_arg(item, n->input(1));
    T2O_CHECK(a.is_tensor(), "{}: putting {} into a tensor list", op, a.describe());
    Val v = a.t();
    return dtype != DType::Undefined && b_.has_info(v) ? cast_to(b_, v, dtype) : v;
  };
  Bound out;
  if (list.kind == K::Seq) {
    T2O_CHECK(more.kind != K::Seq,
              "{}: joining two tensor lists built at run time is not supported; append the "
              "items one at a time",
              op);
    out = list;
    for (const Bound &item : known_items(more))
      out.tensor = b_.op1("SequenceInsert", {out.tensor, tensor_of(item, list.seq_dtype)});
  } else if (more.kind == K::Seq) {
    // [known items] + runtime list: the known items go in front, in order.
    out = more;
    std::vector<Bound> front = known_items(list);
    for (size_t i = 0; i < front.size(); ++i)
      out.tensor = b_.op1("SequenceInsert", {out.tensor, tensor_of(front[i], more.seq_dtype),
                                             b_.const_i64_scalar(static_cast<int64_t>(i))});
  } else {
    out.kind = K::List;
    out.items = known_items(list);
    for (const Bound &item : known_items(more))
      out.items.push_back(item);
  }
  // add_ and extend change the list in place: later readers of the input see the new list.
  if (n->kind() != c10::aten::add)
    env_[n->input(0)] = out;
  if (n->outputs().size() == 1)
    bind(n->output(), out);
  return true;
}

bool Walker::mutate_sequence(const Node *n, const Bound &seq) {
  using K = Bound::Kind;
  auto kind = n->kind();
  auto item = [&](size_t input) {
    Arg a = to_arg(lookup(n->input(input)), n->input(input));
    T2O_CHECK(a.is_tensor(), "{}: putting {} into a tensor list", n->kind().toQualString(),
              a.describe());
    Val v = a.t();
    if (seq.seq_dtype != DType::Undefined && b_.has_info(v))
      v = cast_to(b_, v, seq.seq_dtype);
    return v;
  };
  // ONNX counts a negative position from the end like Python; _set_item erases first, so its
  // position must not move: it is made non-negative against the length before the erase.
  auto position = [&](size_t input) {
    if (n->inputs().size() <= input)
      return b_.const_i64_scalar(-1);
    return to_scalar_tensor(lookup(n->input(input)), DType::Int64);
  };
  Bound out = seq;
  if (kind == c10::aten::insert) {
    out.tensor = b_.op1("SequenceInsert", {seq.tensor, item(2), position(1)});
  } else if (kind == c10::aten::_set_item) {
    Val i = position(1);
    Val len = b_.op1("SequenceLength", {seq.tensor});
    Val neg = b_.op1("Less", {i, b_.const_i64_scalar(0)});
    i = b_.op1("Where", {neg, b_.op1("Add", {i, len}), i});
    Val erased = b_.op1("SequenceErase", {seq.tensor, i});
    out.tensor = b_.op1("SequenceInsert", {erased, item(2), i});
    if (n->outputs().size() == 1)
      bind(n->output(), out);
  } else { // pop, Delete
    Val i = position(1);
    if (kind == c10::aten::pop) {
      Bound popped;
      popped.kind = K::Tensor;
      popped.tensor = b_.op1("SequenceAt", {seq.tensor, i});
      bind(n->output(), popped);
    }
    out.tensor = b_.op1("SequenceErase", {seq.tensor, i});
  }
  env_[n->input(0)] = out;
  return true;
}

// ---- lists built at run time (ONNX sequences) -----------------------------------------------

bool Walker::try_sequence_op(const Node *n) {
  using K = Bound::Kind;
  if (n->inputs().empty())
    return false;
  if (try_split_by_sequence(n))
    return true;
  auto it = env_.find(n->input(0));
  if (it == env_.end() || it->second.kind != K::Seq)
    return false;
  auto kind = n->kind();
  // These take a runtime list as it is (their handlers know sequences).
  if (kind == c10::aten::append || kind == c10::aten::list || kind == c10::aten::__is__ ||
      kind == c10::aten::__isnot__ || kind == c10::aten::insert || kind == c10::aten::_set_item ||
      kind == c10::aten::pop || kind == c10::aten::Delete || kind == c10::aten::add ||
      kind == c10::aten::add_ || kind == c10::Symbol::fromQualString("aten::extend") ||
      kind == c10::prim::isinstance) // from the list's static type (pad_sequence's check)
    return false;
  const Bound seq = it->second;
  Bound out;
  out.kind = K::Tensor;
  if (kind == c10::aten::len) {
    out.tensor = b_.op1("SequenceLength", {seq.tensor});
    b_.set_info(out.tensor, TensorInfo{DType::Int64, std::vector<Dim>{}});
  } else if (kind == c10::aten::__getitem__) {
    out.tensor =
        b_.op1("SequenceAt", {seq.tensor, to_scalar_tensor(lookup(n->input(1)), DType::Int64)});
  } else if (kind == c10::aten::stack || kind == c10::aten::cat) {
    const Bound &dim = lookup(n->input(1));
    T2O_CHECK(dim.kind == K::Const && dim.constant.isInt(), "the dim of {} must be a constant",
              kind.toQualString());
    out.tensor = b_.op1(
        "ConcatFromSequence", {seq.tensor},
        {{"axis", dim.constant.toInt()}, {"new_axis", int64_t{kind == c10::aten::stack ? 1 : 0}}});
    runtime_axes_[out.tensor.name] = {dim.constant.toInt()}; // the list's length decides it
  } else if (kind == c10::aten::pad_sequence) {
    pad_runtime_sequence(n, seq);
    return true;
  } else if (kind == c10::prim::ListUnpack) {
    for (size_t i = 0; i < n->outputs().size(); ++i) {
      Bound item;
      item.kind = K::Tensor;
      item.tensor =
          b_.op1("SequenceAt", {seq.tensor, b_.const_i64_scalar(static_cast<int64_t>(i))});
      bind(n->outputs()[i], item);
    }
    return true;
  } else {
    throw Error(
        fmt::format("{} on a list built at run time (an ONNX sequence) is not supported",
                    kind.toQualString()),
        "use len, indexing, append, insert, pop, del, torch.stack or torch.cat on such lists");
  }
  bind(n->output(), out);
  return true;
}

// pad_sequence(sequences, batch_first, padding_value) on a list built at run time (a length
// regulator's repeat_interleave per utterance): one Loop over the sequence finds the longest
// length, a second pads each element at the end of dim 0 (Concat with a block of padding_value)
// and stacks them as its scan output, [n, longest, *]; transposed to [longest, n, *] unless
// batch_first.
void Walker::pad_runtime_sequence(const Node *n, const Bound &seq) {
  const Bound &first = lookup(n->input(1));
  const Bound &value = lookup(n->input(2));
  T2O_CHECK(first.kind == Bound::Kind::Const && first.constant.isBool() &&
                value.kind == Bound::Kind::Const &&
                (value.constant.isDouble() || value.constant.isInt()),
            "aten::pad_sequence on a list built at run time needs constant batch_first and "
            "padding_value");
  const DType t = seq.seq_dtype == DType::Undefined ? DType::Float : seq.seq_dtype;
  const ValueType index{DType::Int64, false, std::vector<Dim>{}};
  const ValueType flag{DType::Bool, false, std::vector<Dim>{}};
  Val count = b_.op1("SequenceLength", {seq.tensor});
  Val go = b_.constant(TensorData::boolean({true}, {}));
  auto element = [&](const Val &i) {
    Val e = b_.op1("SequenceAt", {seq.tensor, i});
    b_.set_info(e, TensorInfo{t, std::nullopt});
    Val shape = b_.op1("Shape", {e});
    return std::make_pair(e, shape);
  };
  auto length = [&](const Val &shape) {
    return b_.op1("Gather", {shape, b_.const_i64_scalar(0)}, {{"axis", int64_t{0}}});
  };
  b_.begin_subgraph("pad_sequence_longest");
  Val i = b_.add_subgraph_input("i", index);
  Val cond = b_.add_subgraph_input("cond", flag);
  Val most = b_.add_subgraph_input("longest", index);
  Val grown = b_.op1("Max", {most, length(element(i).second)});
  Subgraph longest_body =
      b_.end_subgraph({cond, grown}, {ValueType{DType::Bool}, ValueType{DType::Int64}});
  Val longest = b_.op_with_subgraphs("Loop", {count, go, b_.const_i64_scalar(0)},
                                     {{"body", longest_body}}, 1)[0];
  b_.set_info(longest, TensorInfo{DType::Int64, std::vector<Dim>{}});
  b_.begin_subgraph("pad_sequence_pad");
  Val j = b_.add_subgraph_input("i", index);
  Val cond2 = b_.add_subgraph_input("cond", flag);
  auto [e, shape] = element(j);
  Val missing = unsqueeze(b_, b_.op1("Sub", {longest, length(shape)}), {0});
  Val rest = b_.op1("Slice", {shape, b_.const_i64({1}), b_.const_i64({INT64_MAX})});
  Val fill = b_.op1("Expand", {scalar(b_, t, value.constant.toDouble()),
                               b_.op1("Concat", {missing, rest}, {{"axis", int64_t{0}}})});
  Val padded = b_.op1("Concat", {e, fill}, {{"axis", int64_t{0}}});
  Subgraph pad_body = b_.end_subgraph({cond2, padded}, {ValueType{DType::Bool}, ValueType{t}});
  Val stacked = b_.op_with_subgraphs("Loop", {count, go}, {{"body", pad_body}}, 1)[0];
  const TensorInfo *recorded = info_of_value(n->output());
  T2O_CHECK(recorded && recorded->shape,
            "aten::pad_sequence on a list built at run time: the rank of its result is unknown");
  const int64_t rank = recorded->rank();
  b_.set_info(stacked, TensorInfo{t, std::vector<Dim>(static_cast<size_t>(rank), Dim{})});
  Bound out;
  out.kind = Bound::Kind::Tensor;
  out.tensor = stacked;
  if (!first.constant.toBool()) {
    std::vector<int64_t> perm(static_cast<size_t>(rank));
    std::iota(perm.begin(), perm.end(), 0);
    std::swap(perm[0], perm[1]);
    out.tensor = b_.op1("Transpose", {stacked}, {{"perm", perm}});
  }
  runtime_axes_[out.tensor.name] = {0, 1}; // the count and the longest length
  bind(n->output(), out);
}

DType Walker::list_elem_dtype(const Value *list) const {
  for (const auto &use : list->uses()) {
    const Node *u = use.user;
    if (u->kind() == c10::aten::append && u->inputs().size() > 1)
      if (const TensorInfo *info = info_of_value(u->input(1)))
        return info->dtype;
    if ((u->kind() == c10::aten::stack || u->kind() == c10::aten::cat) && u->outputs().size() == 1)
      if (const TensorInfo *info = info_of_value(u->output()))
        return info->dtype;
  }
  return DType::Float;
}

Val Walker::to_sequence(const Bound &bd, DType dtype) {
  if (bd.kind == Bound::Kind::Seq)
    return bd.tensor;
  std::vector<Bound> items;
  if (bd.kind == Bound::Kind::List) {
    items = bd.items;
  } else {
    T2O_CHECK(bd.kind == Bound::Kind::Const && bd.constant.isList(), "expected a list of tensors");
    for (const auto &e : bd.constant.toListRef()) {
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
  for (const auto &it : items) {
    Arg a = to_arg(it, nullptr);
    T2O_CHECK(a.is_tensor(), "a tensor list item is {}", a.describe());
    Val v = a.t();
    if (b_.has_info(v))
      v = cast_to(b_, v, dtype);
    vals.push_back(v);
  }
  return b_.op1("SequenceConstruct", vals);
}

// ---- dicts and types --------------------------------------------------------------------------

bool Walker::handle_dict_method(const Node *n) {
  using K = Bound::Kind;
  const Bound &d = lookup(n->input(0));
  // A dict the walk holds item by item (its keys strings); a constant dict folds instead.
  if (d.kind != K::List || n->input(0)->type()->kind() != c10::TypeKind::DictType ||
      d.keys.size() != d.items.size())
    return false;
  auto key_bound = [](const std::string &k) {
    Bound b;
    b.kind = K::Const;
    b.constant = c10::IValue(k);
    return b;
  };
  const std::string op = n->kind().toQualString();
  Bound out;
  out.kind = K::List;
  if (op == "aten::keys") {
    for (const auto &k : d.keys)
      out.items.push_back(key_bound(k));
  } else if (op == "aten::values") {
    out.items = d.items;
  } else if (op == "aten::items") {
    for (size_t i = 0; i < d.keys.size(); ++i) {
      Bound pair;
      pair.kind = K::List;
      pair.items = {key_bound(d.keys[i]), d.items[i]};
      out.items.push_back(std::move(pair));
    }
  } else { // `k in d`, d.get(k), d.get(k, default): the key must be known
    const Bound &key = lookup(n->input(1));
    if (key.kind != K::Const || !key.constant.isString())
      return false;
    auto it = std::find(d.keys.begin(), d.keys.end(), key.constant.toStringRef());
    bool found = it != d.keys.end();
    if (op == "aten::__contains__") {
      out = Bound();
      out.kind = K::Const;
      out.constant = c10::IValue(found);
    } else if (found) {
      out = current(d.items[static_cast<size_t>(it - d.keys.begin())]);
    } else if (n->inputs().size() > 2) {
      out = lookup(n->input(2));
    } else {
      out = Bound();
      out.kind = K::Const; // d.get(k) of a missing key: None
    }
  }
  bind(n->output(), out);
  return true;
}

namespace {
// The type of what a value holds, when the walk knows it: its static type, or for a Union,
// Optional or Any the one the bound value has. Null when it cannot tell.
c10::TypePtr held_type(const Walker::Bound &b, const c10::TypePtr &declared) {
  using K = Walker::Bound::Kind;
  switch (b.kind) {
  case K::Tensor:
    return c10::TensorType::get();
  case K::Const:
    return b.constant.isNone() ? c10::NoneType::get() : b.constant.type();
  case K::List:
  case K::Seq: {
    auto kind = declared->kind();
    if (kind == c10::TypeKind::ListType || kind == c10::TypeKind::TupleType ||
        kind == c10::TypeKind::DictType)
      return declared;
    c10::TypePtr found;
    for (const auto &t : declared->containedTypes()) // Optional[List[T]], Union[..., List[T]]
      if (t->kind() == c10::TypeKind::ListType || t->kind() == c10::TypeKind::TupleType ||
          t->kind() == c10::TypeKind::DictType) {
        if (found)
          return nullptr; // two container types in the union: cannot tell which
        found = t;
      }
    return found;
  }
  default:
    return nullptr;
  }
}
} // namespace

bool Walker::handle_isinstance(const Node *n) {
  c10::TypePtr held = held_type(lookup(n->input(0)), n->input(0)->type());
  if (!held || !n->hasAttribute(c10::attr::types))
    return false;
  bool match = false;
  for (const auto &t : n->tys(c10::attr::types))
    match = match || held->isSubtypeOf(*t);
  Bound out;
  out.kind = Bound::Kind::Const;
  out.constant = c10::IValue(match);
  bind(n->output(), out);
  return true;
}

} // namespace torch2onnx
