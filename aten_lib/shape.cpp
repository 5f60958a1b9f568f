// Shape and layout ops: aten::view, reshape, permute, cat, split, slice, expand, pad, ...
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>

namespace torch2onnx {

namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

// A 1-element int64 tensor from an Int constant or a runtime 0-d/1-element tensor.
Val int_1d(GraphBuilder &b, const Arg &a) {
  return int_list_tensor(b, Arg::of_list({a}));
}

// Emits Split (sizes as an input; the builder writes the target opset's form) and records each
// piece's info: LibTorch records no shapes for the items of a Tensor[] result.
std::vector<Val> split_pieces(GraphBuilder &b, const Val &x, int64_t axis,
                              const std::vector<int64_t> &sizes) {
  std::vector<Val> outs = sizes.size() == 1
                              ? std::vector<Val>{x}
                              : b.op("Split", {x, b.const_i64(sizes)}, {{"axis", axis}},
                                     static_cast<int>(sizes.size()));
  const TensorInfo &in = b.info(x);
  for (size_t k = 0; k < outs.size() && sizes.size() > 1; ++k) {
    TensorInfo info = in;
    if (info.shape)
      (*info.shape)[axis] = Dim::known(sizes[k]);
    b.set_info(outs[k], info);
  }
  return outs;
}

Arg tensor_list(const std::vector<Val> &vals) {
  std::vector<Arg> items;
  for (const auto &v : vals)
    items.push_back(Arg::of_tensor(v));
  return Arg::of_list(std::move(items));
}

Val slice(GraphBuilder &b, const Val &x, const Val &start, const Val &end, int64_t axis,
          int64_t step = 1) {
  return b.op1("Slice", {x, start, end, b.const_i64({axis}), b.const_i64({step})});
}

} // namespace

void aten_identity(ConvertCtx &c) {
  c.set_out(0, c.tensor("self"));
}

void aten_flatten(ConvertCtx &c) {
  int64_t r = rank_of(c, "self");
  if (r == 0) {
    c.set_out(0, reshape(c.b, c.tensor("self"), {1}));
    return;
  }
  int64_t s = norm_axis(c.arg<int64_t>("start_dim", 0), r);
  int64_t e = norm_axis(c.arg<int64_t>("end_dim", -1), r);
  if (s == e)
    return c.set_out(0, c.tensor("self"));
  if (c.out_info(0).is_static())
    return c.set_out(0, reshape(c.b, c.tensor("self"), c.out_info(0).sizes()));
  // Dynamic sizes: the leading and trailing dims from the runtime shape, the merged one as the
  // product of dims s..e. (Not 0 and -1: with no elements, e.g. no detection, Reshape cannot
  // infer a -1 beside a 0, while torch's flatten gives [0, 4] for [0, 1, 4].)
  Val shape = c.b.op1("Shape", {c.tensor("self")});
  std::vector<Val> parts;
  if (s > 0)
    parts.push_back(slice(c.b, shape, c.b.const_i64({0}), c.b.const_i64({s}), 0));
  parts.push_back(c.b.op1("ReduceProd",
                          {slice(c.b, shape, c.b.const_i64({s}), c.b.const_i64({e + 1}), 0)},
                          {{"axes", std::vector<int64_t>{0}}, {"keepdims", int64_t{1}}}));
  if (e + 1 < r)
    parts.push_back(slice(c.b, shape, c.b.const_i64({e + 1}), c.b.const_i64({r}), 0));
  Val target = parts.size() == 1 ? parts[0] : c.b.op1("Concat", parts, {{"axis", int64_t{0}}});
  c.set_out(0, c.b.op1("Reshape", {c.tensor("self"), target}));
}

// view / reshape / _unsafe_view: the size list may hold -1 and, with dynamic shapes, tensors.
// view(self, size) / reshape(self, shape) / _unsafe_view(self, size).
void aten_view(ConvertCtx &c) {
  // view.dtype(self, ScalarType) reinterprets bits; ONNX has no equivalent.
  T2O_CHECK(!c.takes("dtype"), "{} with a dtype argument (bit reinterpretation) is not supported",
            c.op());
  const Arg &size = c.arg(c.takes("shape") ? "shape" : "size");
  T2O_CHECK(size.is_list(), "{} with a dtype argument (bit reinterpretation) is not supported",
            c.op());
  // A size of 0 makes an empty tensor; in an ONNX Reshape a 0 would copy the input's dim.
  bool empty = std::any_of(size.items.begin(), size.items.end(),
                           [](const Arg &it) { return !it.is_tensor() && it.to_int() == 0; });
  if (empty) {
    TensorData zero = TensorData::scalar(c.b.dtype(c.tensor("self")), 0);
    zero.dims = {1};
    c.set_out(0, c.b.op1("ConstantOfShape", {int_list_tensor(c.b, size)}, {{"value", zero}}));
    return;
  }
  c.set_out(0, c.b.op1("Reshape", {c.tensor("self"), out_shape(c, size)}));
}

void aten_view_as(ConvertCtx &c) {
  Val shape = c.info("other").is_static() ? c.b.const_i64(c.info("other").sizes())
                                          : c.b.op1("Shape", {c.tensor("other")});
  c.set_out(0, c.b.op1("Reshape", {c.tensor("self"), shape}));
}

void aten_permute(ConvertCtx &c) {
  int64_t r = rank_of(c, "self");
  std::vector<int64_t> perm = c.ints("dims");
  for (auto &p : perm)
    p = norm_axis(p, r);
  c.set_out(0, transpose(c.b, c.tensor("self"), perm));
}

void aten_transpose(ConvertCtx &c) {
  int64_t r = rank_of(c, "self");
  if (r < 2)
    return c.set_out(0, c.tensor("self"));
  std::vector<int64_t> perm(r);
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[norm_axis(c.arg<int64_t>("dim0"), r)], perm[norm_axis(c.arg<int64_t>("dim1"), r)]);
  c.set_out(0, transpose(c.b, c.tensor("self"), perm));
}

void aten_t(ConvertCtx &c) {
  if (rank_of(c, "self") < 2)
    return c.set_out(0, c.tensor("self"));
  c.set_out(0, transpose(c.b, c.tensor("self"), {1, 0}));
}

void aten_movedim(ConvertCtx &c) {
  int64_t r = rank_of(c, "self");
  std::vector<int64_t> src = c.ints("source"), dst = c.ints("destination");
  T2O_CHECK(src.size() == dst.size(), "movedim got {} source and {} destination dims", src.size(),
            dst.size());
  std::vector<int64_t> perm(r, -1);
  std::vector<bool> used(r, false);
  for (size_t i = 0; i < src.size(); ++i) {
    perm[norm_axis(dst[i], r)] = norm_axis(src[i], r);
    used[norm_axis(src[i], r)] = true;
  }
  int64_t next = 0;
  for (auto &p : perm) {
    if (p >= 0)
      continue;
    while (used[next])
      ++next;
    p = next++;
  }
  c.set_out(0, transpose(c.b, c.tensor("self"), perm));
}

// cat / concat: LibTorch skips legacy empty 1-D inputs and promotes dtypes.
void aten_cat(ConvertCtx &c) {
  DType dt = out_dtype(c);
  int64_t r = c.out_info(0).rank();
  std::vector<Val> parts;
  for (const auto &it : c.list("tensors")) {
    const TensorInfo &info = c.b.info(it.t());
    if (info.rank() == 1 && r != 1 && info.shape->at(0).is_static() && info.shape->at(0).value == 0)
      continue;
    if (r < 0)
      r = info.rank();
    parts.push_back(cast_to(c.b, it.t(), dt));
  }
  T2O_CHECK(!parts.empty(), "{} of only empty tensors is not supported", c.op());
  if (parts.size() == 1)
    return c.set_out(0, parts[0]);
  int64_t axis = norm_axis(c.arg<int64_t>("dim", 0), r);
  c.set_out(0, c.b.op1("Concat", parts, {{"axis", axis}}));
}

void aten_stack(ConvertCtx &c) {
  DType dt = out_dtype(c);
  int64_t axis = norm_axis(c.arg<int64_t>("dim", 0), c.out_info(0).rank());
  std::vector<Val> parts;
  for (const auto &it : c.list("tensors"))
    parts.push_back(unsqueeze(c.b, cast_to(c.b, it.t(), dt), {axis}));
  if (parts.size() == 1)
    return c.set_out(0, parts[0]);
  c.set_out(0, c.b.op1("Concat", parts, {{"axis", axis}}));
}

// hstack(tensors): cat on dim 1, or dim 0 for 1-D tensors; vstack(tensors): 1-D tensors become
// rows, then cat on dim 0 (LLaMA builds its cached-prefix causal mask with hstack).
void aten_hstack(ConvertCtx &c) {
  int64_t r = c.out_info(0).rank();
  c.set_out(0, c.call("aten::cat",
                      {{"tensors", c.arg("tensors")}, {"dim", Arg::of_int(r == 1 ? 0 : 1)}},
                      {c.out_info(0)})[0]);
}

void aten_vstack(ConvertCtx &c) {
  std::vector<Arg> rows;
  for (const auto &it : c.list("tensors"))
    rows.push_back(c.b.rank(it.t()) == 1 ? Arg::of_tensor(unsqueeze(c.b, it.t(), {0})) : it);
  c.set_out(0, c.call("aten::cat", {{"tensors", Arg::of_list(rows)}, {"dim", Arg::of_int(0)}},
                      {c.out_info(0)})[0]);
}

// split.Tensor(self, int split_size, dim), split.sizes(self, int[] split_size, dim),
// split(self, int[] split_sizes, dim), split_with_sizes(self, int[] split_sizes, dim).
void aten_split(ConvertCtx &c) {
  int64_t r = rank_of(c, "self");
  int64_t axis = norm_axis(c.arg<int64_t>("dim", 0), r);
  const Arg &split = c.arg(c.takes("split_size") ? "split_size" : "split_sizes");
  std::vector<int64_t> sizes;
  if (split.is_list()) {
    bool dynamic = false;
    for (const Arg &a : split.list())
      dynamic = dynamic || a.is_tensor();
    if (dynamic) {
      // Sizes computed at run time (e.g. torchvision's boxes_per_image, which follow the number
      // of detections): ONNX Split takes them as a tensor; one piece is the whole input.
      const auto &items = split.list();
      if (items.size() == 1)
        return c.set_out(0, tensor_list({c.tensor("self")}));
      std::vector<Val> outs = c.b.op("Split", {c.tensor("self"), int_list_tensor(c.b, split)},
                                     {{"axis", axis}}, static_cast<int>(items.size()));
      for (auto &o : outs) {
        TensorInfo info = c.info("self");
        if (info.shape)
          (*info.shape)[axis] = Dim{};
        c.b.set_info(o, info);
      }
      return c.set_out(0, tensor_list(outs));
    }
    sizes = split.to_ints();
  } else {
    int64_t n = static_dim(c, "self", axis), step = split.to_int();
    T2O_CHECK(step > 0, "split size must be positive, got {}", step);
    for (int64_t done = 0; done < n || (n == 0 && sizes.empty()); done += step)
      sizes.push_back(std::min(step, n - done));
  }
  c.set_out(0, tensor_list(split_pieces(c.b, c.tensor("self"), axis, sizes)));
}

namespace {
bool static_axis(const ConvertCtx &c, int64_t axis) {
  const TensorInfo &info = c.info("self");
  return info.shape && (*info.shape)[static_cast<size_t>(axis)].is_static();
}

// `count` pieces of x along `axis`, whose size n is known only at run time: piece k is
// [start(k), start(k + 1)) with start(k) = k * step + min(k, extra), clamped to n (chunk: step =
// ceil(n / count), extra = 0; tensor_split: step = n / count, extra = n % count).
Arg runtime_pieces(GraphBuilder &b, const Val &x, int64_t axis, int64_t count, bool chunk) {
  Val n = dims_of(b, x, axis, axis + 1);
  Val k = b.const_i64({count});
  Val step =
      chunk ? b.op1("Div", {b.op1("Add", {n, b.const_i64({count - 1})}), k}) : b.op1("Div", {n, k});
  Val extra = chunk ? b.const_i64({0}) : b.op1("Mod", {n, k});
  auto imin = [&](const Val &u, const Val &v) { // int64 Min arrives in opset 12
    return b.op1("Where", {b.op1("Less", {u, v}), u, v});
  };
  auto start = [&](int64_t i) {
    Val at = b.op1("Add", {b.op1("Mul", {step, b.const_i64({i})}), imin(extra, b.const_i64({i}))});
    return imin(at, n);
  };
  std::vector<Val> pieces;
  Val from = b.const_i64({0});
  for (int64_t i = 0; i < count; ++i) {
    Val to = i + 1 == count ? n : start(i + 1);
    pieces.push_back(b.op1("Slice", {x, from, to, b.const_i64({axis})}));
    if (b.has_info(x) && b.info(x).shape) {
      TensorInfo info = b.info(x);
      (*info.shape)[static_cast<size_t>(axis)] = Dim{};
      b.set_info(pieces.back(), info);
    }
    from = to;
  }
  return tensor_list(pieces);
}
} // namespace

// chunk(self, chunks, dim); on a dim known only at run time (classifier-free guidance's
// `eps_cond, eps_uncond = out.chunk(2)` on a symbolic batch) `chunks` pieces, the last ones empty
// when the dim is too short for all of them (where LibTorch gives fewer).
void aten_chunk(ConvertCtx &c) {
  int64_t axis = norm_axis(c.arg<int64_t>("dim", 0), rank_of(c, "self"));
  int64_t chunks = c.arg<int64_t>("chunks");
  T2O_CHECK(chunks > 0, "chunk count must be positive, got {}", chunks);
  if (!static_axis(c, axis))
    return c.set_out(0, runtime_pieces(c.b, c.tensor("self"), axis, chunks, true));
  int64_t n = static_dim(c, "self", axis);
  int64_t step = (n + chunks - 1) / chunks;
  std::vector<int64_t> sizes;
  for (int64_t done = 0; done < n; done += step)
    sizes.push_back(std::min(step, n - done));
  if (sizes.empty())
    sizes.push_back(0);
  c.set_out(0, tensor_list(split_pieces(c.b, c.tensor("self"), axis, sizes)));
}

// tensor_split.sections(self, int sections, dim), .indices(self, int[] indices, dim),
// .tensor_indices_or_sections(self, Tensor tensor_indices_or_sections, dim).
void aten_tensor_split(ConvertCtx &c) {
  const Arg &spec = c.arg(c.takes("sections")  ? "sections"
                          : c.takes("indices") ? "indices"
                                               : "tensor_indices_or_sections");
  T2O_CHECK(!spec.is_tensor(), "tensor_split with a tensor of indices is not supported");
  int64_t axis = norm_axis(c.arg<int64_t>("dim", 0), rank_of(c, "self"));
  if (!spec.is_list() && !static_axis(c, axis)) {
    T2O_CHECK(spec.to_int() > 0, "tensor_split needs a positive section count, got {}",
              spec.to_int());
    return c.set_out(0, runtime_pieces(c.b, c.tensor("self"), axis, spec.to_int(), false));
  }
  int64_t n = static_dim(c, "self", axis);
  std::vector<int64_t> sizes;
  if (spec.is_list()) {
    int64_t prev = 0;
    for (int64_t idx : spec.to_ints()) {
      int64_t at = std::clamp(idx < 0 ? idx + n : idx, prev, n);
      sizes.push_back(at - prev);
      prev = at;
    }
    sizes.push_back(n - prev);
  } else {
    int64_t sections = spec.to_int();
    T2O_CHECK(sections > 0, "tensor_split needs a positive section count, got {}", sections);
    for (int64_t k = 0; k < sections; ++k)
      sizes.push_back(n / sections + (k < n % sections ? 1 : 0));
  }
  c.set_out(0, tensor_list(split_pieces(c.b, c.tensor("self"), axis, sizes)));
}

void aten_unbind(ConvertCtx &c) {
  int64_t axis = norm_axis(c.arg<int64_t>("dim", 0), rank_of(c, "self"));
  int64_t n = static_dim(c, "self", axis);
  std::vector<Val> outs;
  for (const Val &piece : split_pieces(c.b, c.tensor("self"), axis, std::vector<int64_t>(n, 1)))
    outs.push_back(squeeze(c.b, piece, {axis}));
  c.set_out(0, tensor_list(outs));
}

// squeeze(): all size-1 dims; squeeze.dim / squeeze.dims: only those listed that have size 1.
void aten_squeeze(ConvertCtx &c) {
  const TensorInfo &info = c.info("self");
  int64_t r = rank_of(c, "self");
  if (r == 0)
    return c.set_out(0, c.tensor("self"));
  bool dims = c.takes("dim") && c.has("dim");
  std::vector<int64_t> candidates;
  if (dims) {
    for (auto d : c.ints("dim"))
      candidates.push_back(norm_axis(d, r));
  } else {
    candidates.resize(r);
    std::iota(candidates.begin(), candidates.end(), 0);
  }
  std::vector<int64_t> axes;
  for (auto a : candidates) {
    const Dim &d = (*info.shape)[a];
    if (d.is_static() && d.value == 1)
      axes.push_back(a);
    T2O_CHECK(d.is_static() || dims, "squeeze() without dims needs static sizes, got {}",
              info.str());
  }
  if (axes.empty())
    return c.set_out(0, c.tensor("self"));
  c.set_out(0, squeeze(c.b, c.tensor("self"), axes));
}

void aten_unsqueeze(ConvertCtx &c) {
  int64_t r = rank_of(c, "self");
  c.set_out(0, unsqueeze(c.b, c.tensor("self"), {norm_axis(c.arg<int64_t>("dim"), r + 1)}));
}

// expand: -1 keeps a dim; Expand broadcasts, so 1 does the same there.
void aten_expand(ConvertCtx &c) {
  std::vector<Arg> items = c.list("size");
  for (auto &it : items)
    if (!it.is_tensor() && it.to_int() == -1)
      it = Arg::of_int(1);
  c.set_out(0, c.b.op1("Expand", {c.tensor("self"), int_list_tensor(c.b, Arg::of_list(items))}));
}

void aten_expand_as(ConvertCtx &c) {
  Val shape = c.info("other").is_static() ? c.b.const_i64(c.info("other").sizes())
                                          : c.b.op1("Shape", {c.tensor("other")});
  c.set_out(0, c.b.op1("Expand", {c.tensor("self"), shape}));
}

// repeat(self, repeats) / tile(self, dims): Tile needs one repeat per dim; extra repeats add
// leading dims. A repeat known only at run time (x.size(0) of another tensor: PointNet's
// eye(k).view(1, k * k).repeat(batch, 1)) makes the repeats a tensor.
void aten_repeat(ConvertCtx &c) {
  const Arg &list = c.arg(c.takes("repeats") ? "repeats" : "dims");
  T2O_CHECK(list.is_list(), "{}: the repeats must be a list of ints, got {}", c.op(),
            list.describe());
  int64_t r = rank_of(c, "self");
  Val x = c.tensor("self");
  int64_t n = static_cast<int64_t>(list.items.size());
  T2O_CHECK(n >= r || c.op() == "aten::tile", "repeat got {} repeats for a rank-{} tensor", n, r);
  std::vector<int64_t> ones(static_cast<size_t>(std::max<int64_t>(r - n, 0)), 1);
  bool constant = std::none_of(list.items.begin(), list.items.end(),
                               [](const Arg &a) { return a.is_tensor(); });
  Val reps;
  if (constant) {
    std::vector<int64_t> v = list.to_ints();
    v.insert(v.begin(), ones.begin(), ones.end());
    reps = c.b.const_i64(v);
  } else {
    reps = int_list_tensor(c.b, list);
    if (!ones.empty())
      reps = concat0(c.b, {c.b.const_i64(ones), reps});
  }
  if (n > r) {
    std::vector<int64_t> lead(n - r);
    std::iota(lead.begin(), lead.end(), 0);
    x = unsqueeze(c.b, x, lead);
  }
  c.set_out(0, c.b.op1("Tile", {x, reps}));
}

void aten_slice(ConvertCtx &c) {
  const TensorInfo &info = c.info("self");
  int64_t r = rank_of(c, "self");
  int64_t axis = norm_axis(c.arg<int64_t>("dim", 0), r);
  int64_t step = c.arg<int64_t>("step", 1);
  T2O_CHECK(step > 0, "slice step must be positive, got {}", step);
  bool const_bounds = !c.arg("start").is_tensor() && !c.arg("end").is_tensor();
  int64_t start = c.has("start") && !c.arg("start").is_tensor() ? c.arg<int64_t>("start") : 0;
  int64_t end = c.has("end") && !c.arg("end").is_tensor() ? c.arg<int64_t>("end") : kInt64Max;
  // x[:, :] in scripted code slices every dim fully; skip the no-op.
  if (const_bounds && step == 1 && start == 0 && (*info.shape)[axis].is_static() &&
      end >= (*info.shape)[axis].value)
    return c.set_out(0, c.tensor("self"));
  Val s = c.arg("start").is_tensor() ? int_1d(c.b, c.arg("start")) : c.b.const_i64({start});
  Val e = c.arg("end").is_tensor() ? int_1d(c.b, c.arg("end")) : c.b.const_i64({end});
  c.set_out(0, slice(c.b, c.tensor("self"), s, e, axis, step));
}

void aten_narrow(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  int64_t axis = norm_axis(c.arg<int64_t>("dim"), rank_of(c, "self"));
  const Arg &start = c.arg("start"), &length = c.arg("length");
  if (!start.is_tensor() && !length.is_tensor() && start.to_int() >= 0) {
    c.set_out(0, slice(b, c.tensor("self"), b.const_i64({start.to_int()}),
                       b.const_i64({start.to_int() + length.to_int()}), axis));
    return;
  }
  // A start or length known at run time (pe.narrow(0, 0, x.size(1))), or a negative start
  // (counting from the end of the dim).
  Val s = start.is_tensor() ? int_1d(b, start) : b.const_i64({start.to_int()});
  if (start.is_tensor() || start.to_int() < 0)
    s = wrap_negative(b, s, reshape(b, dim_scalar(b, c.tensor("self"), axis), {1}));
  Val len = length.is_tensor() ? int_1d(b, length) : b.const_i64({length.to_int()});
  c.set_out(0, slice(b, c.tensor("self"), s, b.op1("Add", {s, len}), axis));
}

void aten_flip(ConvertCtx &c) {
  int64_t r = rank_of(c, "self");
  std::vector<int64_t> axes = c.ints("dims");
  if (axes.empty())
    return c.set_out(0, c.tensor("self"));
  for (auto &a : axes)
    a = norm_axis(a, r);
  size_t n = axes.size();
  c.set_out(0, c.b.op1("Slice", {c.tensor("self"), c.b.const_i64(std::vector<int64_t>(n, -1)),
                                 c.b.const_i64(std::vector<int64_t>(n, kInt64Min)),
                                 c.b.const_i64(axes), c.b.const_i64(std::vector<int64_t>(n, -1))}));
}

// roll: the last `shift` elements move to the front; no dims rolls the flattened tensor.
void aten_roll(ConvertCtx &c) {
  std::vector<int64_t> shifts = c.ints("shifts");
  std::vector<int64_t> dims = c.ints("dims", {});
  Val x = c.tensor("self");
  TensorInfo info = c.info("self");
  bool flat = dims.empty();
  if (flat) {
    T2O_CHECK(shifts.size() == 1, "roll without dims takes one shift, got {}", shifts.size());
    x = reshape(c.b, x, {-1});
    if (!c.b.has_info(x) || !c.b.info(x).has_rank()) { // flattening runtime sizes: one dim
      info = TensorInfo{info.dtype, std::vector<Dim>{Dim{}}};
      c.b.set_info(x, info);
    }
    info = c.b.info(x);
    dims = {0};
  }
  T2O_CHECK(shifts.size() == dims.size(), "roll got {} shifts for {} dims", shifts.size(),
            dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t axis = norm_axis(dims[i], info.rank());
    if (!(*info.shape)[static_cast<size_t>(axis)].is_static()) {
      // A size known at run time: the shift modulo it (Mod with fmod 0 takes the divisor's
      // sign, as Python's %; Max keeps an empty dim from dividing by 0), then the same cut.
      Val n = dim_scalar(c.b, x, axis);
      Val s = c.b.op1(
          "Mod", {c.b.const_i64_scalar(shifts[i]), c.b.op1("Max", {n, c.b.const_i64_scalar(1)})},
          {{"fmod", int64_t{0}}});
      Val cut = unsqueeze(c.b, c.b.op1("Sub", {n, s}), {0});
      Val tail = slice(c.b, x, cut, c.b.const_i64({INT64_MAX}), axis);
      Val head = slice(c.b, x, c.b.const_i64({0}), cut, axis);
      x = c.b.op1("Concat", {tail, head}, {{"axis", axis}});
      c.b.set_info(x, info);
      continue;
    }
    int64_t n = static_size(info, axis, c.op());
    int64_t s = n == 0 ? 0 : ((shifts[i] % n) + n) % n;
    if (s == 0)
      continue;
    Val tail = slice(c.b, x, c.b.const_i64({n - s}), c.b.const_i64({n}), axis);
    Val head = slice(c.b, x, c.b.const_i64({0}), c.b.const_i64({n - s}), axis);
    x = c.b.op1("Concat", {tail, head}, {{"axis", axis}});
    c.b.set_info(x, info);
  }
  if (flat)
    x = c.b.op1("Reshape", {x, c.b.op1("Shape", {c.tensor("self")})});
  c.set_out(0, x);
}

// dropout and friends are the identity in inference (train=False).
void aten_dropout(ConvertCtx &c) {
  bool train = c.arg<bool>("train", false);
  double p = c.arg<double>("p", 0.0);
  T2O_CHECK(!train || p == 0.0,
            "{} in training mode (train=True, p={}) is not supported; export "
            "the model in eval mode",
            c.op(), p);
  c.set_out(0, c.tensor(c.takes("input") ? "input" : "self")); // dropout_ names it self
}

// All overloads of aten::to and type_as: only the dtype matters for ONNX.
void aten_to(ConvertCtx &c) {
  DType dt = c.out_info(0).dtype;
  c.set_out(0, dt == DType::Undefined ? c.tensor("self") : cast_to(c.b, c.tensor("self"), dt));
}

namespace {
// torch pads list (last dim first, begin/end pairs) to ONNX pads (all begins, then all ends).
std::vector<int64_t> onnx_pads(const std::vector<int64_t> &pad, int64_t rank) {
  T2O_CHECK(pad.size() % 2 == 0 && static_cast<int64_t>(pad.size()) <= 2 * rank,
            "pad list of length {} does not fit a rank-{} tensor", pad.size(), rank);
  std::vector<int64_t> out(2 * rank, 0);
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    int64_t dim = rank - 1 - static_cast<int64_t>(i);
    out[dim] = pad[2 * i];
    out[rank + dim] = pad[2 * i + 1];
  }
  return out;
}

// onnx_pads of a pad list with amounts known only at run time (F.pad(x, [0, n - x.size(-1)]),
// "pad to a multiple of the hop"): the pairs reversed to dim order, begins then ends, zeros for
// the leading dims the list leaves out.
Val runtime_onnx_pads(GraphBuilder &b, const Arg &list, int64_t rank) {
  int64_t k = static_cast<int64_t>(list.items.size()) / 2;
  T2O_CHECK(list.items.size() % 2 == 0 && k <= rank,
            "pad list of length {} does not fit a rank-{} tensor", list.items.size(), rank);
  std::vector<int64_t> reversed;
  for (int64_t i = k - 1; i >= 0; --i)
    reversed.push_back(i);
  Val pairs = reshape(b, int_list_tensor(b, list), {k, 2});
  pairs = b.op1("Gather", {pairs, b.const_i64(reversed)}, {{"axis", int64_t{0}}}); // dim order
  Val rows = transpose(b, pairs, {1, 0});                                          // [2, k]
  if (k < rank)
    rows = b.op1(
        "Concat",
        {b.constant(TensorData::i64(std::vector<int64_t>(2 * (rank - k), 0), {2, rank - k})), rows},
        {{"axis", int64_t{1}}});
  return reshape(b, rows, {2 * rank});
}

// pad / constant_pad_nd name the list pad, reflection_pad* / replication_pad* padding.
Val pad_node(ConvertCtx &c, const std::string &mode, const Arg *value) {
  const Arg &list = c.arg(c.takes("pad") ? "pad" : "padding");
  Val pads = list.is_list() && has_runtime_items(list)
                 ? runtime_onnx_pads(c.b, list, rank_of(c, "self"))
                 : c.b.const_i64(
                       onnx_pads(c.ints(c.takes("pad") ? "pad" : "padding"), rank_of(c, "self")));
  std::vector<Val> ins = {c.tensor("self"), pads};
  if (value && !value->is_none())
    ins.push_back(as_tensor(c.b, *value, c.b.dtype(c.tensor("self"))));
  return c.b.op1("Pad", ins, {{"mode", mode}});
}

// Circular padding (ONNX Pad has 'wrap' only from opset 19), one dim at a time as PyTorch does:
// a negative pad first crops that side, then the core gets its last `l` entries prepended and its
// first `r` appended.
Val circular_pad(ConvertCtx &c, const Val &input, const std::vector<int64_t> &pad) {
  int64_t rank = rank_of(c, "self");
  std::vector<int64_t> pads = onnx_pads(pad, rank);
  Val x = input;
  auto slice = [&](const Val &v, int64_t d, int64_t from, int64_t to) {
    return c.b.op1("Slice", {v, c.b.const_i64({from}), c.b.const_i64({to}), c.b.const_i64({d})});
  };
  for (int64_t d = 0; d < rank; ++d) {
    int64_t l = pads[d], r = pads[rank + d];
    if (l == 0 && r == 0)
      continue;
    if (l < 0 || r < 0)
      x = slice(x, d, std::max<int64_t>(-l, 0), r < 0 ? r : INT64_MAX);
    std::vector<Val> parts;
    if (l > 0)
      parts.push_back(slice(x, d, -l, INT64_MAX));
    parts.push_back(x);
    if (r > 0)
      parts.push_back(slice(x, d, 0, r));
    if (parts.size() > 1)
      x = c.b.op1("Concat", parts, {{"axis", d}});
  }
  return x;
}
} // namespace

// _pad_circular(Tensor self, SymInt[] pad): F.pad(mode='circular').
void aten__pad_circular(ConvertCtx &c) {
  c.set_out(0, circular_pad(c, c.tensor("self"), c.ints("pad")));
}

void aten_constant_pad_nd(ConvertCtx &c) {
  c.set_out(0, pad_node(c, "constant", &c.arg("value")));
}
void aten_reflection_pad(ConvertCtx &c) {
  c.set_out(0, pad_node(c, "reflect", nullptr));
}
void aten_replication_pad(ConvertCtx &c) {
  c.set_out(0, pad_node(c, "edge", nullptr));
}

void aten_pad(ConvertCtx &c) {
  std::string mode = c.arg<std::string>("mode", "constant");
  if (mode == "constant")
    return c.set_out(0, pad_node(c, "constant", &c.arg("value")));
  if (mode == "reflect")
    return c.set_out(0, pad_node(c, "reflect", nullptr));
  if (mode == "replicate")
    return c.set_out(0, pad_node(c, "edge", nullptr));
  if (mode == "circular")
    return c.set_out(0, circular_pad(c, c.tensor("self"), c.ints("pad")));
  throw Error(
      fmt::format("pad mode '{}' is not supported (ONNX has 'wrap' only from opset 19)", mode));
}

// meshgrid: output k holds input k along one axis, broadcast over the others. 'xy' indexing
// swaps the roles of the first two inputs.
void aten_meshgrid(ConvertCtx &c) {
  const auto &ins = c.list("tensors");
  std::string indexing = c.takes("indexing") ? c.arg<std::string>("indexing", "ij") : "ij";
  T2O_CHECK(indexing == "ij" || indexing == "xy", "meshgrid indexing '{}' is not supported",
            indexing);
  int64_t n = static_cast<int64_t>(ins.size());
  std::vector<int64_t> pos(n);
  std::iota(pos.begin(), pos.end(), 0);
  if (indexing == "xy" && n >= 2)
    std::swap(pos[0], pos[1]);
  std::vector<Val> flat(n);
  std::vector<Dim> dims(n);
  for (int64_t k = 0; k < n; ++k) {
    flat[k] = reshape(c.b, ins[k].t(), {-1});
    const TensorInfo &info = c.b.info(ins[k].t());
    dims[pos[k]] = info.is_static() ? Dim::known(info.rank() == 0 ? 1 : info.sizes()[0]) : Dim{};
  }
  std::vector<Val> shape_parts(n);
  for (int64_t k = 0; k < n; ++k)
    shape_parts[pos[k]] = c.b.op1("Shape", {flat[k]});
  Val shape = c.b.op1("Concat", shape_parts, {{"axis", int64_t{0}}});
  std::vector<Val> outs;
  for (int64_t k = 0; k < n; ++k) {
    std::vector<int64_t> target(n, 1);
    target[pos[k]] = -1;
    Val y = c.b.op1("Expand", {reshape(c.b, flat[k], target), shape});
    TensorInfo info;
    info.dtype = c.b.dtype(ins[k].t());
    info.shape = dims;
    c.b.set_info(y, info);
    outs.push_back(y);
  }
  c.set_out(0, tensor_list(outs));
}

void register_shape_ops(Registry &r) {
  r.add("aten::flatten", 11, aten_flatten, {"Reshape", "Shape", "Slice", "ReduceProd", "Concat"});
  r.add("aten::view", 11, aten_view, {"Reshape", "Concat", "ConstantOfShape"});
  // Shape: also the walker's write-back through a reshaping view (reshaped to its base's shape).
  r.add("aten::reshape", 11, aten_view, {"Reshape", "Concat", "ConstantOfShape", "Shape"});
  r.add("aten::_unsafe_view", 11, aten_view, {"Reshape", "Concat", "ConstantOfShape"});
  r.add("aten::view_as", 11, aten_view_as, {"Reshape"});
  r.add("aten::reshape_as", 11, aten_view_as, {"Reshape"});
  r.add("aten::permute", 11, aten_permute, {"Transpose"});
  r.add_with_inplace("aten::transpose", 11, aten_transpose, {"Transpose"});
  r.add_with_inplace("aten::t", 11, aten_t, {"Transpose"});
  r.add("aten::movedim", 11, aten_movedim, {"Transpose"});
  r.add("aten::moveaxis", 11, aten_movedim, {"Transpose"});
  r.add("aten::contiguous", 11, aten_identity, {});
  r.add("aten::clone", 11, aten_identity, {});
  // Device moves: the ONNX model has no device (aten::to(device) is aten::to's Cast, a no-op).
  r.add("aten::cpu", 11, aten_identity, {});
  r.add("aten::cuda", 11, aten_identity, {});
  r.add("aten::cat", 11, aten_cat, {"Concat", "Cast", "ConcatFromSequence"});
  r.add("aten::concat", 11, aten_cat, {"Concat"});
  r.add("aten::concatenate", 11, aten_cat, {"Concat"});
  r.add("aten::stack", 11, aten_stack, {"Unsqueeze", "Concat", "ConcatFromSequence"});
  r.add("aten::hstack", 11, aten_hstack, {"Concat"});
  r.add("aten::vstack", 11, aten_vstack, {"Unsqueeze", "Concat"});
  r.add("aten::split", 11, aten_split,
        {"Split", "Cast", "Concat", "ConcatFromSequence", "Reshape", "SplitToSequence"});
  r.add("aten::split_with_sizes", 11, aten_split, {"Split"});
  r.add("aten::chunk", 11, aten_chunk,
        {"Split", "Slice", "Shape", "Add", "Div", "Mod", "Mul", "Less", "Where"});
  r.add("aten::tensor_split", 11, aten_tensor_split,
        {"Split", "Slice", "Shape", "Add", "Div", "Mod", "Mul", "Less", "Where"});
  r.add("aten::unbind", 11, aten_unbind, {"Split", "Squeeze"});
  r.add_with_inplace("aten::squeeze", 11, aten_squeeze, {"Squeeze"});
  r.add_with_inplace("aten::unsqueeze", 11, aten_unsqueeze, {"Unsqueeze"});
  r.add("aten::expand", 11, aten_expand, {"Expand"});
  r.add("aten::expand_as", 11, aten_expand_as, {"Expand"});
  r.add("aten::repeat", 11, aten_repeat, {"Tile", "Unsqueeze", "Concat", "Reshape", "Cast"});
  r.add("aten::tile", 11, aten_repeat, {"Tile", "Concat", "Reshape", "Cast"});
  r.add("aten::slice", 11, aten_slice, {"Slice", "Concat", "Reshape"});
  r.add("aten::narrow", 11, aten_narrow,
        {"Slice", "Add", "Concat", "Reshape", "Less", "Where", "Shape", "Gather"});
  r.add("aten::flip", 11, aten_flip, {"Slice"});
  r.add("aten::roll", 11, aten_roll,
        {"Slice", "Concat", "Reshape", "Shape", "Gather", "Mod", "Max", "Sub", "Unsqueeze",
         "Greater", "Where"});
  for (const char *op : {"aten::dropout", "aten::dropout_", "aten::feature_dropout",
                         "aten::feature_dropout_", "aten::alpha_dropout", "aten::alpha_dropout_",
                         "aten::feature_alpha_dropout", "aten::feature_alpha_dropout_"})
    r.add(op, 11, aten_dropout, {});
  r.add("aten::to", 11, aten_to, {"Cast"});
  r.add("aten::type_as", 11, aten_to, {"Cast"});
  r.add("aten::pad", 11, aten_pad,
        {"Pad", "Slice", "Concat", "Reshape", "Gather", "Transpose", "Cast", "Unsqueeze"});
  r.add("aten::_pad_circular", 11, aten__pad_circular, {"Slice", "Concat"});
  r.add("aten::constant_pad_nd", 11, aten_constant_pad_nd,
        {"Pad", "Concat", "Reshape", "Gather", "Transpose", "Cast", "Unsqueeze"});
  for (const char *op :
       {"aten::reflection_pad1d", "aten::reflection_pad2d", "aten::reflection_pad3d"})
    r.add(op, 11, aten_reflection_pad,
          {"Pad", "Concat", "Reshape", "Gather", "Transpose", "Cast", "Unsqueeze"});
  for (const char *op :
       {"aten::replication_pad1d", "aten::replication_pad2d", "aten::replication_pad3d"})
    r.add(op, 11, aten_replication_pad,
          {"Pad", "Concat", "Reshape", "Gather", "Transpose", "Cast", "Unsqueeze"});
  r.add("aten::meshgrid", 11, aten_meshgrid, {"Reshape", "Expand", "Concat", "Shape"});
}

} // namespace torch2onnx
