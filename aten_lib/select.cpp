// Ops that pick, count or compare elements: aten::diagonal, tril/triu, unique*, histc, bincount,
// repeat_interleave, unflatten, unfold, as_strided, equal/isclose/allclose, aminmax,
// std_mean/var_mean.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

#include <algorithm>
#include <cmath>

namespace torch2onnx {

namespace {

Val reduce_attr(GraphBuilder &b, const char *op, const Val &x, const std::vector<int64_t> &axes,
                bool keep) {
  std::vector<Attr> attrs{{"keepdims", keep}};
  if (!axes.empty())
    attrs.emplace_back("axes", axes);
  return b.op1(op, {x}, attrs);
}

// A Python bool result as a 0-d bool tensor: LibTorch records no shape for a bool, and graph
// outputs need one.
Val bool_scalar(GraphBuilder &b, const Val &v) {
  Val out = b.op1("Cast", {v}, {{"to", static_cast<int64_t>(DType::Bool)}});
  b.set_info(out, TensorInfo{DType::Bool, std::vector<Dim>{}});
  return out;
}

} // namespace

namespace {

// The diagonal of `self` over dims (d1, d2) at `off`, as the flat positions in the layout where
// the two dims go last and are flattened: constants for static sizes; for sizes known at run time
// (a [batch, batch] similarity matrix) i0 * cols + j0 + k * (cols + 1), k < min(rows - i0,
// cols - j0).
struct DiagonalLayout {
  std::vector<int64_t> perm; // self's dims: the others in order, then d1, d2
  Val pos;                   // 1-D int64
};

DiagonalLayout diagonal_layout(ConvertCtx &c, const Val &self, int64_t off, int64_t d1,
                               int64_t d2) {
  GraphBuilder &b = c.b;
  const int64_t r = b.rank(self);
  T2O_CHECK(d1 != d2, "{}: dim1 and dim2 are both {}", c.op(), d1);
  DiagonalLayout out;
  for (int64_t k = 0; k < r; ++k)
    if (k != d1 && k != d2)
      out.perm.push_back(k);
  out.perm.push_back(d1);
  out.perm.push_back(d2);
  const TensorInfo &info = b.info(self);
  const int64_t i0 = std::max<int64_t>(0, -off), j0 = std::max<int64_t>(0, off);
  if ((*info.shape)[d1].is_static() && (*info.shape)[d2].is_static()) {
    const int64_t rows = (*info.shape)[d1].value, cols = (*info.shape)[d2].value;
    std::vector<int64_t> pos;
    for (int64_t i = i0, j = j0; i < rows && j < cols; ++i, ++j)
      pos.push_back(i * cols + j);
    out.pos = b.const_i64(pos);
    return out;
  }
  Val rows = dim_scalar(b, self, d1), cols = dim_scalar(b, self, d2);
  Val left[2] = {b.op1("Sub", {rows, b.const_i64_scalar(i0)}),
                 b.op1("Sub", {cols, b.const_i64_scalar(j0)})};
  for (const Val &v : left) // the builder's opset-11 Min of integers needs their dtype
    b.set_info(v, TensorInfo{DType::Int64, std::vector<Dim>{}});
  Val count = b.op1("Min", {left[0], left[1]});
  count = b.op1("Max", {count, b.const_i64_scalar(0)});
  Val step = b.op1("Add", {cols, b.const_i64_scalar(1)});
  Val first = b.op1("Add", {b.op1("Mul", {cols, b.const_i64_scalar(i0)}), b.const_i64_scalar(j0)});
  out.pos = b.op1("Add", {b.op1("Mul", {iota(b, count), step}), first});
  return out;
}

// The layout's tensor: self transposed and its last two dims flattened.
Val diagonal_flat(GraphBuilder &b, const Val &self, const DiagonalLayout &l) {
  std::vector<int64_t> flat(l.perm.size() - 2, 0);
  flat.push_back(-1);
  return reshape(b, transpose(b, self, l.perm), flat);
}

} // namespace

// diagonal(self, offset, dim1, dim2): the two dims go last, then one Gather of the flat
// positions of the diagonal (diagonal_layout).
void aten_diagonal(ConvertCtx &c) {
  const Val self = c.tensor("self");
  const int64_t r = rank_of(c, "self");
  DiagonalLayout l =
      diagonal_layout(c, self, c.arg<int64_t>("offset", 0), norm_axis(c.arg<int64_t>("dim1", 0), r),
                      norm_axis(c.arg<int64_t>("dim2", 1), r));
  c.set_out(0, c.b.op1("Gather", {diagonal_flat(c.b, self, l), l.pos}, {{"axis", r - 2}}));
}

// diagonal_scatter(self, src, offset, dim1, dim2): src (shaped as self.diagonal(...)) written on
// that diagonal: a ScatterElements of src into the flat layout at the diagonal's positions, then
// the layout undone. Also what an in-place op on x.diagonal() writes back (walker write_back).
void aten_diagonal_scatter(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  const DType t = out_dtype(c);
  const Val self = cast_to(b, c.tensor("self"), t);
  const int64_t r = rank_of(c, "self");
  DiagonalLayout l =
      diagonal_layout(c, self, c.arg<int64_t>("offset", 0), norm_axis(c.arg<int64_t>("dim1", 0), r),
                      norm_axis(c.arg<int64_t>("dim2", 1), r));
  Val moved = transpose(b, self, l.perm);
  Val flat = diagonal_flat(b, self, l);
  Val src = cast_to(b, c.tensor("src"), t);
  Val idx = b.op1("Expand", {l.pos, shape_of(b, src)});
  Val put = b.op1("ScatterElements", {flat, idx, src}, {{"axis", r - 2}});
  std::vector<int64_t> back(static_cast<size_t>(r));
  for (int64_t k = 0; k < r; ++k)
    back[static_cast<size_t>(l.perm[static_cast<size_t>(k)])] = k;
  c.set_out(0, transpose(b, b.op1("Reshape", {put, shape_of(b, moved)}), back));
}

namespace {
// The `diagonal` argument as a 0-d int64: a constant, or a value known at run time (a causal mask
// offset by a KV cache's length: triu(ones(T, S), diagonal=S - T + 1)).
Val diagonal_arg(ConvertCtx &c) {
  if (!c.has("diagonal"))
    return c.b.const_i64_scalar(0);
  const Arg &a = c.arg("diagonal");
  if (!a.is_tensor())
    return c.b.const_i64_scalar(c.arg<int64_t>("diagonal"));
  return reshape(c.b, cast_to(c.b, a.t(), DType::Int64), {});
}

// tril/triu by a mask from row/column positions: works on every opset and dtype. ONNX Runtime's
// Where has kernels for few dtypes before opset 16: a bool tensor is kept by And, and other
// dtypes without a kernel go through float32 or int32 (exactly) and back.
void emit_tri(ConvertCtx &c, bool upper) {
  GraphBuilder &b = c.b;
  int64_t r = rank_of(c, "self");
  T2O_CHECK(r >= 2, "{} needs at least 2 dims, got {}", c.op(), c.info("self").str());
  Val x = c.tensor("self");
  Val rows = unsqueeze(b, iota(b, dim_scalar(b, x, r - 2)), {1});
  Val cols = unsqueeze(b, iota(b, dim_scalar(b, x, r - 1)), {0});
  Val diff = b.op1("Sub", {cols, rows}); // j - i
  Val kk = diagonal_arg(c);
  Val keep = upper ? b.op1("GreaterOrEqual", {diff, kk}) : b.op1("LessOrEqual", {diff, kk});
  DType t = b.dtype(x);
  if (t == DType::Bool) {
    c.set_out(0, b.op1("And", {keep, x}));
    return;
  }
  bool kernel = t == DType::Float || t == DType::Double || t == DType::Int32 || t == DType::Int64 ||
                t == DType::UInt8;
  DType via = kernel ? t : is_floating(t) ? DType::Float : DType::Int32;
  Val y = b.op1("Where", {keep, cast_to(b, x, via), b.const_scalar(via, 0)});
  c.set_out(0, cast_to(b, y, t));
}

// Trilu (opset 14) where ONNX Runtime has a kernel for the dtype.
void emit_trilu(ConvertCtx &c, bool upper) {
  DType t = c.b.dtype(c.tensor("self"));
  if (t != DType::Float && t != DType::Double && t != DType::Int64 && t != DType::Bool)
    return emit_tri(c, upper);
  std::vector<Val> in{c.tensor("self")};
  if (c.has("diagonal"))
    in.push_back(diagonal_arg(c));
  c.set_out(0, c.b.op1("Trilu", in, {{"upper", upper}}));
}
} // namespace

void aten_tril(ConvertCtx &c) {
  emit_tri(c, false);
}
void aten_triu(ConvertCtx &c) {
  emit_tri(c, true);
}
void aten_tril_14(ConvertCtx &c) {
  emit_trilu(c, false);
}
void aten_triu_14(ConvertCtx &c) {
  emit_trilu(c, true);
}

namespace {
// ONNX Unique (always sorted): outputs values, inverse, counts. ONNX Runtime has float/double/
// int64/int8 kernels.
std::vector<Val> unique(GraphBuilder &b, const Val &x, std::optional<int64_t> axis) {
  DType t = b.dtype(x);
  DType k = t == DType::Float || t == DType::Double || t == DType::Int64 || t == DType::Int8
                ? t
                : (is_floating(t) ? DType::Float : DType::Int64);
  std::vector<Attr> attrs{{"sorted", int64_t{1}}};
  if (axis)
    attrs.emplace_back("axis", *axis);
  auto outs = b.op("Unique", {cast_to(b, x, k)}, attrs, 4);
  if (!axis) // 1-D, as many as the data says (for a branch the example run did not take)
    for (auto [i, dt] : {std::pair<size_t, DType>{0, k}, {2, DType::Int64}, {3, DType::Int64}})
      if (!b.has_info(outs[i]))
        b.set_info(outs[i], TensorInfo{dt, std::vector<Dim>{Dim{}}});
  return {k == t ? outs[0] : cast_to(b, outs[0], t), outs[2], outs[3]};
}
} // namespace

// _unique(self, sorted, return_inverse) / _unique2(self, sorted, return_inverse, return_counts):
// flattened; the inverse takes self's shape.
void aten_unique(ConvertCtx &c) {
  auto outs = unique(c.b, c.tensor("self"), std::nullopt);
  c.set_out(0, outs[0]);
  c.set_out(1, c.b.op1("Reshape", {outs[1], shape_of(c.b, c.tensor("self"))}));
  if (c.num_outputs() > 2)
    c.set_out(2, outs[2]);
}

// unique_dim(self, dim, sorted, return_inverse, return_counts)
void aten_unique_dim(ConvertCtx &c) {
  int64_t d = norm_axis(c.arg<int64_t>("dim"), rank_of(c, "self"));
  auto outs = unique(c.b, c.tensor("self"), d);
  for (size_t i = 0; i < 3; ++i)
    c.set_out(i, outs[i]);
}

// unique_consecutive(self, return_inverse, return_counts, dim): a run starts where a slice
// differs from the one before it.
void aten_unique_consecutive(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  Val x = c.tensor("self");
  int64_t r = rank_of(c, "self");
  bool flat = !c.has("dim");
  int64_t d = flat ? 0 : norm_axis(c.arg<int64_t>("dim"), r);
  Val rows; // [n, rest]
  if (flat) {
    rows = reshape(b, x, {-1, 1});
  } else {
    std::vector<int64_t> perm{d};
    for (int64_t k = 0; k < r; ++k)
      if (k != d)
        perm.push_back(k);
    rows = reshape(b, transpose(b, x, perm), {0, -1});
  }
  Val n = dim_scalar(b, rows, 0);
  auto part = [&](int64_t from, int64_t to) {
    return b.op1("Slice", {rows, b.const_i64({from}), b.const_i64({to}), b.const_i64({0})});
  };
  Val differs = b.op1("Not", {b.op1("Equal", {part(1, INT64_MAX), part(0, -1)})});
  Val any = b.op1("ReduceMax", {cast_to(b, differs, DType::Int32)},
                  {{"axes", std::vector<int64_t>{1}}, {"keepdims", int64_t{0}}});
  Val starts_mask =
      b.op1("Concat", {b.constant(TensorData::boolean({true}, {1})), cast_to(b, any, DType::Bool)},
            {{"axis", int64_t{0}}});
  Val flat_x = flat ? reshape(b, x, {-1}) : x;
  c.set_out(0, b.op1("Compress", {flat_x, starts_mask}, {{"axis", d}}));
  Val inverse =
      b.op1("Sub", {b.op1("CumSum", {cast_to(b, starts_mask, DType::Int64), b.const_i64_scalar(0)}),
                    b.const_i64_scalar(1)});
  c.set_out(1, flat ? b.op1("Reshape", {inverse, shape_of(b, x)}) : inverse);
  Val starts = reshape(b, b.op1("NonZero", {starts_mask}), {-1});
  Val ends = b.op1(
      "Concat",
      {b.op1("Slice", {starts, b.const_i64({1}), b.const_i64({INT64_MAX})}), reshape(b, n, {1})},
      {{"axis", int64_t{0}}});
  c.set_out(2, b.op1("Sub", {ends, starts}));
}

// histc(self, bins, min, max): equal-width bins; min == max takes the data's range.
void aten_histc(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  DType dt = out_dtype(c);
  int64_t bins = c.arg<int64_t>("bins", 100);
  double lo_v = c.arg<double>("min", 0), hi_v = c.arg<double>("max", 0);
  Val x = reshape(b, cast_to(b, c.tensor("self"), dt), {-1});
  Val lo, hi;
  if (lo_v == hi_v) {
    lo = b.op1("ReduceMin", {x}, {{"keepdims", int64_t{0}}});
    hi = b.op1("ReduceMax", {x}, {{"keepdims", int64_t{0}}});
    Val same = b.op1("Equal", {lo, hi});
    lo = b.op1("Where", {same, b.op1("Sub", {lo, b.const_scalar(dt, 1)}), lo});
    hi = b.op1("Where", {same, b.op1("Add", {hi, b.const_scalar(dt, 1)}), hi});
  } else {
    lo = b.const_scalar(dt, lo_v);
    hi = b.const_scalar(dt, hi_v);
  }
  // Same arithmetic order as LibTorch's CPU kernel: (x - lo) / (hi - lo) * bins, truncated (a
  // value on a bin edge lands where float rounding puts it there too).
  Val pos = b.op1("Mul", {b.op1("Div", {b.op1("Sub", {x, lo}), b.op1("Sub", {hi, lo})}),
                          b.const_scalar(dt, bins)});
  Val bin = b.op1("Min", {cast_to(b, pos, DType::Int64), b.const_i64_scalar(bins - 1)});
  Val inside = b.op1("And", {b.op1("GreaterOrEqual", {x, lo}), b.op1("LessOrEqual", {x, hi})});
  bin = b.op1("Where", {inside, bin, b.const_i64_scalar(-1)});
  Val hot = b.op1("Equal", {unsqueeze(b, bin, {1}), b.const_i64([&] {
                              std::vector<int64_t> v(bins);
                              for (int64_t i = 0; i < bins; ++i)
                                v[i] = i;
                              return v;
                            }())});
  Val counts = b.op1("ReduceSum", {cast_to(b, hot, DType::Int64), b.const_i64({0})},
                     {{"keepdims", int64_t{0}}});
  c.set_out(0, cast_to(b, counts, dt));
}

// bincount(self, weights, minlength)
void aten_bincount(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  DType dt = out_dtype(c);
  Val x = cast_to(b, c.tensor("self"), DType::Int64);
  // minlength may be a size known only at run time (bincount(idx, minlength=x.size(0))).
  const Arg &ml = c.arg("minlength");
  Val minlength = ml.is_tensor() ? reshape(b, cast_to(b, ml.t(), DType::Int64), {})
                                 : b.const_i64_scalar(c.arg<int64_t>("minlength", 0));
  Val len = b.op1("Max", {b.op1("Add", {b.op1("ReduceMax", {x}, {{"keepdims", int64_t{0}}}),
                                        b.const_i64_scalar(1)}),
                          minlength});
  Val hot = b.op1("Equal", {unsqueeze(b, x, {1}), iota(b, len)});
  DType k = is_floating(dt) ? DType::Double : DType::Int64;
  Val vals = cast_to(b, hot, k);
  if (c.has("weights"))
    vals = b.op1("Mul", {vals, unsqueeze(b, cast_to(b, c.tensor("weights"), k), {1})});
  c.set_out(
      0, cast_to(b, b.op1("ReduceSum", {vals, b.const_i64({0})}, {{"keepdims", int64_t{0}}}), dt));
}

namespace {
// repeat_interleave(repeats): position p of the result holds the i with
// cumsum[i-1] <= p < cumsum[i], i.e. the number of cumsums <= p.
Val repeat_index(GraphBuilder &b, const Val &repeats) {
  Val rep = reshape(b, cast_to(b, repeats, DType::Int64), {-1});
  Val cum = b.op1("CumSum", {rep, b.const_i64_scalar(0)});
  Val total = b.op1("ReduceSum", {rep, b.const_i64({0})}, {{"keepdims", int64_t{0}}});
  Val le = b.op1("LessOrEqual", {unsqueeze(b, cum, {0}), unsqueeze(b, iota(b, total), {1})});
  return b.op1("ReduceSum", {cast_to(b, le, DType::Int64), b.const_i64({1})},
               {{"keepdims", int64_t{0}}});
}
} // namespace

// repeat_interleave.Tensor(repeats) / .self_Tensor(self, repeats, dim) / .self_int(...).
void aten_repeat_interleave(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  if (c.overload() == "Tensor") {
    c.set_out(0, repeat_index(b, c.tensor("repeats")));
    return;
  }
  Val x = c.tensor("self");
  int64_t d = 0;
  if (c.has("dim")) {
    d = norm_axis(c.arg<int64_t>("dim"), rank_of(c, "self"));
  } else {
    x = reshape(b, x, {-1});
  }
  Val n = dim_scalar(b, x, d);
  Val index;
  if (c.arg("repeats").is_tensor()) {
    Val rep = b.op1("Expand", {reshape(b, cast_to(b, c.tensor("repeats"), DType::Int64), {-1}),
                               reshape(b, n, {1})});
    index = repeat_index(b, rep);
  } else {
    Val k = b.const_i64_scalar(c.arg<int64_t>("repeats"));
    index = b.op1("Div", {iota(b, b.op1("Mul", {n, k})), k});
  }
  c.set_out(0, b.op1("Gather", {x, index}, {{"axis", d}}));
}

// unflatten(self, dim, sizes)
void aten_unflatten(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  int64_t r = rank_of(c, "self");
  int64_t d = norm_axis(c.arg<int64_t>("dim"), r);
  Val shape =
      c.out_info(0).is_static()
          ? b.const_i64(c.out_info(0).sizes())
          : concat0(b, {dims_of(b, c.tensor("self"), 0, d), int_list_tensor(b, c.arg("sizes")),
                        dims_of(b, c.tensor("self"), d + 1, r)});
  c.set_out(0, b.op1("Reshape", {c.tensor("self"), shape}));
}

// unfold(self, dimension, size, step): windows along dim d, window elements on a new last dim.
void aten_unfold(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  int64_t r = rank_of(c, "self");
  Val x = c.tensor("self");
  if (r == 0)
    x = reshape(b, x, {1});
  int64_t rr = std::max<int64_t>(r, 1);
  int64_t d = norm_axis(c.arg<int64_t>("dimension"), rr);
  int64_t size = c.arg<int64_t>("size"), step = c.arg<int64_t>("step");
  Val n = dim_scalar(b, x, d);
  Val count = b.op1(
      "Add", {b.op1("Div", {b.op1("Sub", {n, b.const_i64_scalar(size)}), b.const_i64_scalar(step)}),
              b.const_i64_scalar(1)});
  Val starts = b.op1("Mul", {iota(b, count), b.const_i64_scalar(step)});
  std::vector<int64_t> offs(size);
  for (int64_t i = 0; i < size; ++i)
    offs[i] = i;
  Val idx = b.op1("Add", {unsqueeze(b, starts, {1}), b.const_i64(offs)}); // [count, size]
  Val g = b.op1("Gather", {x, idx}, {{"axis", d}});                       // ..., count, size, ...
  std::vector<int64_t> perm;
  for (int64_t k = 0; k <= rr; ++k)
    if (k != d + 1)
      perm.push_back(k);
  perm.push_back(d + 1);
  c.set_out(0, transpose(b, g, perm));
}

// view_copy(self, size) / view_copy.dtype(self, dtype)
void aten_view_copy(ConvertCtx &c) {
  T2O_CHECK(c.takes("size") && c.arg("size").is_list(),
            "{} with a dtype argument (bit reinterpretation) is not supported", c.op());
  c.set_out(0, c.b.op1("Reshape", {c.tensor("self"), out_shape(c, c.arg("size"))}));
}

// as_strided with sizes (or strides, offset) known only at run time (framing a waveform of
// symbolic length: w.as_strided((1 + (T - 400) // 160, 400), (160, 1))): the flat positions are
// offset + sum over k of Range(0, size[k]) * stride[k] on axis k, broadcast, then one Gather.
void as_strided_runtime(ConvertCtx &c, const Arg &offset_arg) {
  GraphBuilder &b = c.b;
  const Arg &size = c.arg("size");
  T2O_CHECK(size.kind == Arg::Kind::List, "{}: the number of sizes must be known at export",
            c.op());
  const int64_t n = static_cast<int64_t>(size.items.size());
  Val sizes = int_list_tensor(b, size), strides = int_list_tensor(b, c.arg("stride"));
  Val pos = offset_arg.kind == Arg::Kind::Tensor
                ? reshape(b, cast_to(b, offset_arg.tensor, DType::Int64), {})
                : b.const_i64_scalar(offset_arg.kind == Arg::Kind::Int ? offset_arg.i : 0);
  for (int64_t k = 0; k < n; ++k) {
    auto item = [&](const Val &list) {
      return b.op1("Gather", {list, b.const_i64_scalar(k)}, {{"axis", int64_t{0}}});
    };
    Val steps = b.op1("Mul", {iota(b, item(sizes)), item(strides)});
    pos = b.op1("Add", {pos, on_axis(b, steps, k, n)});
  }
  c.set_out(0, b.op1("Gather", {reshape(b, c.tensor("self"), {-1}), pos}, {{"axis", int64_t{0}}}));
}

// as_strided(self, size, stride, storage_offset) on a contiguous self: a Gather of the flat
// positions. A view of a non-contiguous tensor would read other storage; that is not expressible.
void aten_as_strided(ConvertCtx &c) {
  const Arg offset_arg = c.takes("storage_offset") ? c.arg("storage_offset") : Arg::none();
  if (has_runtime_items(c.arg("size")) || has_runtime_items(c.arg("stride")) ||
      offset_arg.kind == Arg::Kind::Tensor)
    return as_strided_runtime(c, offset_arg);
  std::vector<int64_t> size = c.ints("size"), stride = c.ints("stride");
  int64_t offset = c.arg<int64_t>("storage_offset", 0);
  T2O_CHECK(size.size() == stride.size(), "{}: {} sizes but {} strides", c.op(), size.size(),
            stride.size());
  std::vector<int64_t> pos{offset};
  for (size_t k = 0; k < size.size(); ++k) {
    std::vector<int64_t> next;
    for (int64_t p : pos)
      for (int64_t i = 0; i < size[k]; ++i)
        next.push_back(p + i * stride[k]);
    pos = std::move(next);
  }
  Val idx = c.b.constant(TensorData::i64(pos, size));
  c.set_out(0,
            c.b.op1("Gather", {reshape(c.b, c.tensor("self"), {-1}), idx}, {{"axis", int64_t{0}}}));
}

// equal(self, other) -> bool: same shape and all elements equal.
void aten_equal(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  const TensorInfo &a = c.info("self"), &o = c.info("other");
  if (a.is_static() && o.is_static() && a.sizes() != o.sizes()) {
    c.set_out(0, b.constant(TensorData::boolean({false}, {}))); // the builder knows its shape
    return;
  }
  DType t = b.dtype(c.tensor("self"));
  Val y = cast_to(b, c.tensor("other"), t);
  Val x = c.tensor("self");
  if (t == DType::Bool || !is_floating(t)) {
    x = cast_to(b, x, DType::Int64);
    y = cast_to(b, y, DType::Int64);
  }
  // A trailing 1 keeps the ReduceMin defined on empty tensors; shapes must match too.
  Val one = b.constant(TensorData::i64({1}, {1}));
  std::vector<Val> parts{cast_to(b, reshape(b, b.op1("Equal", {x, y}), {-1}), DType::Int64), one};
  if (a.rank() == o.rank() && !(a.is_static() && o.is_static()))
    parts.push_back(cast_to(b, b.op1("Equal", {shape_of(b, x), shape_of(b, y)}), DType::Int64));
  T2O_CHECK(a.rank() == o.rank() || (a.is_static() && o.is_static()),
            "{}: inputs of different rank with dynamic shapes", c.op());
  Val all = b.op1("ReduceMin", {b.op1("Concat", parts, {{"axis", int64_t{0}}})},
                  {{"keepdims", int64_t{0}}});
  c.set_out(0, bool_scalar(b, all));
}

namespace {
Val isclose(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  DType t = b.dtype(c.tensor("self"));
  DType k = is_floating(t) ? t : DType::Double;
  if (k == DType::BFloat16 || k == DType::Float16)
    k = DType::Float;
  Val x = cast_to(b, c.tensor("self"), k), y = cast_to(b, c.tensor("other"), k);
  double rtol = c.arg<double>("rtol", 1e-5), atol = c.arg<double>("atol", 1e-8);
  bool equal_nan = c.arg<bool>("equal_nan", false);
  // As LibTorch: equal, or a finite error within atol + |rtol * other|.
  Val tol = b.op1(
      "Add", {b.const_scalar(k, atol), b.op1("Abs", {b.op1("Mul", {b.const_scalar(k, rtol), y})})});
  Val err = b.op1("Abs", {b.op1("Sub", {x, y})});
  Val finite = b.op1("Less", {err, b.const_scalar(k, INFINITY)});
  Val close = b.op1("And", {finite, b.op1("LessOrEqual", {err, tol})});
  close = b.op1("Or", {close, b.op1("Equal", {x, y})});
  if (equal_nan)
    close = b.op1("Or", {close, b.op1("And", {b.op1("IsNaN", {x}), b.op1("IsNaN", {y})})});
  return close;
}
} // namespace

void aten_isclose(ConvertCtx &c) {
  c.set_out(0, isclose(c));
}

void aten_allclose(ConvertCtx &c) {
  Val close = cast_to(c.b, isclose(c), DType::Int32);
  Val all = c.b.op1("ReduceMin", {close}, {{"keepdims", int64_t{0}}});
  c.set_out(0, bool_scalar(c.b, all));
}

// aminmax(self, dim, keepdim)
void aten_aminmax(ConvertCtx &c) {
  int64_t r = rank_of(c, "self");
  std::vector<int64_t> axes;
  if (c.has("dim"))
    axes = {norm_axis(c.arg<int64_t>("dim"), r)};
  bool keep = c.arg<bool>("keepdim", false);
  Val x = c.tensor("self");
  if (r == 0) {
    c.set_out(0, x);
    c.set_out(1, x);
    return;
  }
  c.set_out(0, reduce_attr(c.b, "ReduceMin", x, axes, keep));
  c.set_out(1, reduce_attr(c.b, "ReduceMax", x, axes, keep));
}

namespace {
// std_mean / var_mean: (self, unbiased) | .dim(self, dim, unbiased, keepdim) |
// .correction(self, dim, correction, keepdim).
void emit_var_mean(ConvertCtx &c, bool take_sqrt) {
  GraphBuilder &b = c.b;
  int64_t r = rank_of(c, "self");
  DType dt = out_dtype(c, 1);
  Val x = cast_to(b, c.tensor("self"), dt);
  std::vector<int64_t> axes;
  double correction = 1;
  bool keep = false;
  if (c.takes("dim")) {
    if (c.has("dim"))
      axes = c.ints("dim");
    keep = c.arg<bool>("keepdim", false);
  }
  if (c.takes("correction"))
    correction = c.arg<double>("correction", 1);
  else
    correction = c.arg<bool>("unbiased", true) ? 1 : 0;
  if (axes.empty())
    for (int64_t k = 0; k < r; ++k)
      axes.push_back(k);
  for (auto &a : axes)
    a = norm_axis(a, r);
  Val mean = reduce_attr(b, "ReduceMean", x, axes, true);
  Val dev = b.op1("Sub", {x, mean});
  Val ss = b.op1("ReduceSum", {b.op1("Mul", {dev, dev}), b.const_i64(axes)}, {{"keepdims", keep}});
  Val n = cast_to(b, b.op1("Div", {b.op1("Size", {x}), b.op1("Size", {mean})}), dt);
  Val var = b.op1("Div", {ss, b.op1("Max", {b.op1("Sub", {n, b.const_scalar(dt, correction)}),
                                            b.const_scalar(dt, 0)})});
  c.set_out(0, take_sqrt ? b.op1("Sqrt", {var}) : var);
  c.set_out(1, keep ? mean : reduce_attr(b, "ReduceMean", x, axes, false));
}
} // namespace

void aten_std_mean(ConvertCtx &c) {
  emit_var_mean(c, true);
}
void aten_var_mean(ConvertCtx &c) {
  emit_var_mean(c, false);
}

void register_select_ops(Registry &r) {
  // Less / Greater + Where: opset 11's Min / Max of int64 sizes (builder/opset_forms.cpp).
  const std::vector<std::string> diagonal_ops{"Transpose", "Reshape", "Gather", "Shape", "Min",
                                              "Max",       "Sub",     "Add",    "Mul",   "Range",
                                              "Less",      "Greater", "Where"};
  r.add("aten::diagonal", 11, aten_diagonal, diagonal_ops);
  r.add("aten::diagonal_copy", 11, aten_diagonal, diagonal_ops);
  std::vector<std::string> scatter_ops = diagonal_ops;
  scatter_ops.insert(scatter_ops.end(), {"Expand", "ScatterElements", "Cast"});
  r.add("aten::diagonal_scatter", 11, aten_diagonal_scatter, scatter_ops);
  r.add_with_inplace("aten::tril", 11, aten_tril,
                     {"And", "Cast", "Reshape", "Range", "Where", "Equal", "Gather", "Less",
                      "LessOrEqual", "Or", "Shape", "Sub", "Unsqueeze"});
  r.add_with_inplace("aten::triu", 11, aten_triu,
                     {"And", "Cast", "Reshape", "Range", "Where", "Equal", "Gather", "Greater",
                      "GreaterOrEqual", "Or", "Shape", "Sub", "Unsqueeze"});
  r.add_with_inplace("aten::tril", 14, aten_tril_14,
                     {"Trilu", "Range", "Where", "And", "Cast", "Reshape", "Gather", "LessOrEqual",
                      "Shape", "Sub", "Unsqueeze"});
  r.add_with_inplace("aten::triu", 14, aten_triu_14,
                     {"And", "Cast", "Reshape", "Trilu", "Range", "Where", "Gather",
                      "GreaterOrEqual", "Shape", "Sub", "Unsqueeze"});
  r.add("aten::_unique", 11, aten_unique, {"Unique", "Reshape", "Shape"});
  r.add("aten::_unique2", 11, aten_unique, {"Unique", "Reshape", "Shape"});
  r.add("aten::unique_dim", 11, aten_unique_dim, {"Unique"});
  r.add("aten::unique_consecutive", 11, aten_unique_consecutive,
        {"Equal", "ReduceMax", "Compress", "CumSum", "NonZero", "Cast", "Concat", "Gather", "Not",
         "Reshape", "Shape", "Slice", "Sub", "Transpose"});
  r.add("aten::histc", 11, aten_histc,
        {"Equal", "ReduceSum", "Add", "And", "Cast", "Div", "Greater", "GreaterOrEqual", "Less",
         "LessOrEqual", "Min", "Mul", "Or", "ReduceMax", "ReduceMin", "Reshape", "Sub", "Unsqueeze",
         "Where"});
  r.add("aten::bincount", 11, aten_bincount,
        {"Equal", "ReduceSum", "Add", "Cast", "Greater", "Max", "Mul", "Range", "ReduceMax",
         "Unsqueeze", "Where", "Reshape"});
  r.add("aten::repeat_interleave", 11, aten_repeat_interleave,
        {"CumSum", "Gather", "Cast", "Div", "Equal", "Expand", "Less", "LessOrEqual", "Mul", "Or",
         "Range", "ReduceSum", "Reshape", "Shape", "Unsqueeze"});
  r.add("aten::unflatten", 11, aten_unflatten, {"Reshape"});
  r.add("aten::unfold", 11, aten_unfold,
        {"Gather", "Transpose", "Add", "Div", "Mul", "Range", "Shape", "Sub", "Unsqueeze"});
  r.add("aten::view_copy", 11, aten_view_copy, {"Reshape"});
  r.add_with_inplace("aten::as_strided", 11, aten_as_strided,
                     {"Gather", "Reshape", "Range", "Mul", "Add", "Cast", "Concat", "Unsqueeze"});
  r.add("aten::equal", 11, aten_equal, {"Equal", "ReduceMin", "Cast", "Concat", "Reshape"});
  r.add("aten::isclose", 11, aten_isclose,
        {"Abs", "LessOrEqual", "Or", "Add", "And", "Equal", "IsNaN", "Less", "Mul", "Sub"});
  r.add("aten::allclose", 11, aten_allclose,
        {"Abs", "LessOrEqual", "ReduceMin", "Add", "And", "Cast", "Equal", "Less", "Mul", "Or",
         "Sub"});
  r.add("aten::aminmax", 11, aten_aminmax, {"ReduceMin", "ReduceMax"});
  r.add("aten::std_mean", 11, aten_std_mean,
        {"ReduceMean", "ReduceSum", "Sqrt", "Cast", "Div", "Max", "Mul", "Size", "Sub"});
  r.add("aten::var_mean", 11, aten_var_mean,
        {"ReduceMean", "ReduceSum", "Cast", "Div", "Max", "Mul", "Size", "Sub"});
}

} // namespace torch2onnx
