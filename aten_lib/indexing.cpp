// Indexing ops that write or pick elements: aten::scatter*, index_put, index_add/copy/fill,
// masked_scatter/select, take, nonzero, sort/topk, one_hot, embedding(_bag), bucketize, and the
// reads select, index_select, gather, index (select_scatter, slice_scatter: placement.cpp).
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"
#include "aten_lib/quantized.h"

#include <algorithm>
#include <functional>
#include <limits>

namespace torch2onnx {

namespace {

// The neutral element of a reduction, for dtype t.
double neutral(const std::string &reduce, DType t) {
  if (reduce == "prod")
    return 1;
  bool f = is_floating(t);
  if (reduce == "amax")
    return f ? -std::numeric_limits<double>::infinity()
             : (t == DType::Int32 ? std::numeric_limits<int32_t>::min()
                                  : static_cast<double>(std::numeric_limits<int64_t>::min()));
  if (reduce == "amin")
    return f ? std::numeric_limits<double>::infinity()
             : (t == DType::Int32 ? std::numeric_limits<int32_t>::max()
                                  : static_cast<double>(std::numeric_limits<int64_t>::max()));
  return 0;
}

// scatter with a reduction, exact on every opset (ScatterElements reduces only from opset 16,
// and only add/mul before 18): a one-hot of the index along dim d selects, per target position,
// the src elements that land there; a Reduce* over the index dim combines them.
// `index` and `src` have the same shape, each dim at most self's.
Val scatter_dense(GraphBuilder &b, const Val &self, int64_t d, int64_t r, const Val &index,
                  const Val &src, const std::string &reduce, bool include_self, DType dt) {
  Val idx = cast_to(b, index, DType::Int64);
  Val positions = iota(b, dim_scalar(b, self, d));
  Val hot = b.op1("Equal", {unsqueeze(b, idx, {r}), positions}); // I + [S_d]
  Val srcu = unsqueeze(b, cast_to(b, src, dt), {r});
  bool mean = reduce == "mean";
  std::string red = mean ? "sum" : reduce;
  Val vals = b.op1("Where", {hot, srcu, b.const_scalar(dt, neutral(red, dt))});
  Val reduced;
  if (red == "sum") {
    reduced = b.op1("ReduceSum", {vals, b.const_i64({d})}, {{"keepdims", int64_t{0}}});
  } else {
    const char *op = red == "prod" ? "ReduceProd" : red == "amax" ? "ReduceMax" : "ReduceMin";
    T2O_CHECK(red == "prod" || red == "amax" || red == "amin",
              "scatter reduce='{}' is not supported (sum, prod, mean, amax, amin)", reduce);
    reduced = b.op1(op, {vals}, {{"axes", std::vector<int64_t>{d}}, {"keepdims", int64_t{0}}});
  }
  Val count = b.op1("ReduceSum", {cast_to(b, hot, DType::Int64), b.const_i64({d})},
                    {{"keepdims", int64_t{0}}});
  // The target axis came out last; move it back to d, then pad the other dims to self's.
  std::vector<int64_t> perm;
  for (int64_t k = 0; k < r; ++k)
    perm.push_back(k < d ? k : k == d ? r - 1 : k - 1);
  if (d != r - 1) {
    reduced = b.op1("Transpose", {reduced}, {{"perm", perm}});
    count = b.op1("Transpose", {count}, {{"perm", perm}});
  }
  Val pads = b.op1("Concat",
                   {b.const_i64(std::vector<int64_t>(r, 0)),
                    b.op1("Sub", {shape_of(b, self), shape_of(b, count)})},
                   {{"axis", int64_t{0}}});
  reduced = b.op1("Pad", {reduced, pads});
  count = b.op1("Pad", {count, pads});
  Val hit = b.op1("Greater", {count, b.const_i64_scalar(0)});
  Val s = cast_to(b, self, dt);
  Val combined;
  if (mean) {
    Val total = include_self ? b.op1("Add", {s, reduced}) : reduced;
    Val n = include_self ? b.op1("Add", {count, b.const_i64_scalar(1)}) : count;
    n = b.op1("Max", {n, b.const_i64_scalar(1)});
    if (is_floating(dt)) {
      combined = b.op1("Div", {total, cast_to(b, n, dt)});
    } else { // torch floors integer means
      Val q = b.op1("Div", {cast_to(b, total, DType::Double), cast_to(b, n, DType::Double)});
      combined = cast_to(b, b.op1("Floor", {q}), dt);
    }
  } else if (!include_self) {
    combined = reduced;
  } else {
    const char *op = red == "sum" ? "Add" : red == "prod" ? "Mul" : red == "amax" ? "Max" : "Min";
    combined = b.op1(op, {s, reduced});
  }
  return b.op1("Where", {hit, combined, s});
}

// src cut to index's shape (torch reads only that corner of src).
Val src_like_index(ConvertCtx &c, const Val &src, const Val &index) {
  const TensorInfo &si = c.b.info(src);
  const TensorInfo &ii = c.b.info(index);
  if (si.is_static() && ii.is_static() && si.sizes() == ii.sizes())
    return src;
  int64_t r = ii.rank();
  std::vector<int64_t> axes(r);
  for (int64_t k = 0; k < r; ++k)
    axes[k] = k;
  return c.b.op1("Slice", {src, c.b.const_i64(std::vector<int64_t>(r, 0)), shape_of(c.b, index),
                           c.b.const_i64(axes)});
}

// Shared by scatter / scatter_add / scatter_reduce: `src` is a tensor or a number.
// `native_reduction`: ScatterElements has a reduction attribute (opset 16+).
void emit_scatter(ConvertCtx &c, const Arg &src_arg, std::string reduce, bool include_self,
                  bool native_reduction) {
  GraphBuilder &b = c.b;
  DType dt = out_dtype(c);
  int64_t r = rank_of(c, "self");
  T2O_CHECK(r > 0, "{} on a 0-d tensor is not supported", c.op());
  int64_t d = norm_axis(c.arg<int64_t>("dim"), r);
  Val self = cast_to(b, c.tensor("self"), dt);
  Val index = c.tensor("index");
  Val src = src_arg.is_tensor() ? src_like_index(c, cast_to(b, src_arg.t(), dt), index)
                                : b.op1("Expand", {as_tensor(b, src_arg, dt), shape_of(b, index)});
  if (reduce == "add")
    reduce = "sum";
  if (reduce == "multiply")
    reduce = "prod";
  if (reduce.empty()) {
    c.set_out(0, b.op1("ScatterElements", {self, index, src}, {{"axis", d}}));
    return;
  }
  if (native_reduction && include_self && (reduce == "sum" || reduce == "prod")) {
    c.set_out(0, b.op1("ScatterElements", {self, index, src},
                       {{"axis", d}, {"reduction", reduce == "sum" ? "add" : "mul"}}));
    return;
  }
  c.set_out(0, scatter_dense(b, self, d, r, index, src, reduce, include_self, dt));
}

// index tensors of index/index_put on the leading dims, wrapped and stacked on a last axis:
// coords of shape B + [k].
Val stacked_coords(GraphBuilder &b, const Val &self, const std::vector<Val> &idx) {
  std::vector<Val> ints;
  for (size_t k = 0; k < idx.size(); ++k)
    ints.push_back(wrap_negative(b, cast_to(b, idx[k], DType::Int64),
                                 dim_scalar(b, self, static_cast<int64_t>(k))));
  if (ints.size() == 1) // one index tensor: nothing to broadcast or stack
    return unsqueeze(b, ints[0], {-1});
  Val sum = ints[0];
  for (size_t k = 1; k < ints.size(); ++k)
    sum = b.op1("Add", {sum, ints[k]});
  Val shape = shape_of(b, sum);
  std::vector<Val> parts;
  for (const Val &v : ints)
    parts.push_back(unsqueeze(b, b.op1("Expand", {v, shape}), {-1}));
  return b.op1("Concat", parts, {{"axis", int64_t{-1}}});
}

// scatter.src(Tensor self, int dim, Tensor index, Tensor src) / scatter.value(..., Scalar value)
// scatter.reduce(Tensor self, int dim, Tensor index, Tensor src, *, str reduce)
// scatter.value_reduce(Tensor self, int dim, Tensor index, Scalar value, *, str reduce)
// scatter_add(Tensor self, int dim, Tensor index, Tensor src)
// scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce,
//                    *, bool include_self=True)
// scatter's source (src, or value) and reduction ("" for none).
void emit_scatter_overload(ConvertCtx &c, bool native_reduction) {
  const Arg &src = c.arg(c.takes("src") ? "src" : "value");
  std::string reduce = c.takes("reduce") ? c.arg<std::string>("reduce", "") : "";
  emit_scatter(c, src, reduce, true, native_reduction);
}

} // namespace

// Opset 11-15 (no ScatterElements reduction): a sum/prod reduction is computed densely.
void aten_scatter(ConvertCtx &c) {
  emit_scatter_overload(c, false);
}
void aten_scatter_16(ConvertCtx &c) {
  emit_scatter_overload(c, true);
}

void aten_scatter_add(ConvertCtx &c) {
  emit_scatter(c, c.arg("src"), "sum", true, false);
}
void aten_scatter_add_16(ConvertCtx &c) {
  emit_scatter(c, c.arg("src"), "sum", true, true);
}

void aten_scatter_reduce(ConvertCtx &c) {
  emit_scatter(c, c.arg("src"), c.arg<std::string>("reduce"), c.arg<bool>("include_self", true),
               false);
}
void aten_scatter_reduce_16(ConvertCtx &c) {
  emit_scatter(c, c.arg("src"), c.arg<std::string>("reduce"), c.arg<bool>("include_self", true),
               true);
}

// index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False): one boolean
// mask or integer indices on consecutive dims, after any number of whole dims (None):
// x[mask] = v, x[i, j] += v, boxes[..., [0, 2]] -= pad, cache[:, :, pos] = k.
namespace {

// The index tensors of index_put's list and the dim the first one indexes (`start`: the Nones
// before it); they must be consecutive, with only Nones after them.
std::vector<Val> index_block(const ConvertCtx &c, int64_t &start) {
  const auto &list = c.list("indices");
  std::vector<Val> idx;
  start = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].is_none()) {
      if (idx.empty())
        ++start;
      continue;
    }
    T2O_CHECK(idx.size() + static_cast<size_t>(start) == i,
              "{}: index tensors separated by a whole dim (None at dim {}) are not supported",
              c.op(), static_cast<size_t>(start) + idx.size());
    idx.push_back(list[i].t());
  }
  T2O_CHECK(!idx.empty(), "{} without an index tensor", c.op());
  return idx;
}

// 0..n-1 with the block [from, from + len) moved to the front.
std::vector<int64_t> block_first(int64_t n, int64_t from, int64_t len) {
  std::vector<int64_t> perm;
  for (int64_t i = from; i < from + len; ++i)
    perm.push_back(i);
  for (int64_t i = 0; i < n; ++i)
    if (i < from || i >= from + len)
      perm.push_back(i);
  return perm;
}

std::vector<int64_t> inverse(const std::vector<int64_t> &perm) {
  std::vector<int64_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    inv[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  return inv;
}

// ScatterND with reduction=add for opsets 11-15: flatten the k indexed dims into one linear index,
// then scatter-add along it. `rest` holds the sizes of self's dims [k, r).
Val scatter_nd_add_decomposed(GraphBuilder &b, const Val &self, const Val &coords, const Val &upd,
                              const Val &rest, int64_t k, int64_t r, DType dt) {
  Val lin;
  for (int64_t j = 0; j < k; ++j) {
    Val cj = b.op1("Gather", {coords, b.const_i64_scalar(j)}, {{"axis", int64_t{-1}}});
    lin = j == 0 ? cj : b.op1("Add", {b.op1("Mul", {lin, dim_scalar(b, self, j)}), cj});
  }
  Val flat_shape = concat0(b, {b.const_i64({-1}), rest});
  Val self2 = b.op1("Reshape", {self, flat_shape});
  Val upd2 = b.op1("Reshape", {upd, flat_shape});
  int64_t r2 = r - k + 1;
  std::vector<int64_t> lin_shape(r2, 1);
  lin_shape[0] = -1;
  Val index2 = b.op1("Expand", {reshape(b, lin, lin_shape), shape_of(b, upd2)});
  Val out = scatter_dense(b, self2, 0, r2, index2, upd2, "sum", true, dt);
  return b.op1("Reshape", {out, shape_of(b, self)});
}

// `native_reduction`: ScatterND has a reduction attribute (opset 16+). Indices after `start`
// whole dims index the tensor transposed to put their dims first (the values transposed alike:
// PyTorch places the index's broadcast dims where the indexed dims were), then transposed back.
void emit_index_put(ConvertCtx &c, bool native_reduction) {
  GraphBuilder &b = c.b;
  DType dt = out_dtype(c);
  Val self = cast_to(b, c.tensor("self"), dt);
  int64_t r = rank_of(c, "self");
  int64_t start = 0;
  std::vector<Val> idx = index_block(c, start);
  Val values = cast_to(b, c.tensor("values"), dt);
  bool accumulate = c.arg<bool>("accumulate", false);
  DType it = b.dtype(idx[0]);
  bool mask = it == DType::Bool || it == DType::UInt8;
  T2O_CHECK(!mask || idx.size() == 1, "{} with a boolean mask and other indices is not supported",
            c.op());
  int64_t k = mask ? b.rank(idx[0]) : static_cast<int64_t>(idx.size()); // dims indexed
  int64_t nb = mask ? 1 : 0; // dims of the broadcast index (a mask: its count of true values)
  for (const Val &v : idx)
    nb = mask ? 1 : std::max(nb, b.rank(v));
  std::vector<int64_t> perm = block_first(r, start, k);
  Val lead, tail;
  if (start > 0) {
    lead = dims_of(b, self, 0, start);
    tail = dims_of(b, self, start + k, r);
    self = b.op1("Transpose", {self}, {{"perm", perm}});
  }
  Val coords = mask ? b.op1("Transpose", {b.op1("NonZero", {cast_to(b, idx[0], DType::Bool)})},
                            {{"perm", std::vector<int64_t>{1, 0}}})
                    : stacked_coords(b, self, idx);
  Val batch = b.op1("Slice", {shape_of(b, coords), b.const_i64({0}), b.const_i64({-1})});
  Val rest = dims_of(b, self, k, r);
  if (start > 0) {
    // The values as x[indices] has them ([lead, index dims, tail]), then the index dims first.
    values = b.op1("Expand", {values, start + k < r ? concat0(b, {lead, batch, tail})
                                                    : concat0(b, {lead, batch})});
    values = b.op1("Transpose", {values}, {{"perm", block_first(r - k + nb, start, nb)}});
  }
  Val upd = b.op1("Expand", {values, concat0(b, {batch, rest})});
  Val out;
  if (!accumulate)
    out = b.op1("ScatterND", {self, coords, upd});
  else if (native_reduction)
    out = b.op1("ScatterND", {self, coords, upd}, {{"reduction", "add"}});
  else
    out = scatter_nd_add_decomposed(b, self, coords, upd, rest, k, r, dt);
  if (start > 0)
    out = b.op1("Transpose", {out}, {{"perm", inverse(perm)}});
  c.set_out(0, out);
}

} // namespace

void aten_index_put(ConvertCtx &c) {
  emit_index_put(c, false);
}
void aten_index_put_16(ConvertCtx &c) {
  emit_index_put(c, true);
}

namespace {
// index (1-D, along dim d) spread over source's shape, for index_add / index_copy.
Val spread_index(GraphBuilder &b, const Val &self, const Val &index, const Val &source, int64_t d,
                 int64_t r) {
  Val idx = wrap_negative(b, cast_to(b, index, DType::Int64), dim_scalar(b, self, d));
  if (r == 0)
    return idx;
  return b.op1("Expand", {on_axis(b, idx, d, r), shape_of(b, source)});
}

// index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1)
// `native_reduction`: ScatterElements has a reduction attribute (opset 16+).
void emit_index_add(ConvertCtx &c, bool native_reduction) {
  GraphBuilder &b = c.b;
  DType dt = out_dtype(c);
  int64_t r = rank_of(c, "self");
  int64_t d = norm_axis(c.arg<int64_t>("dim"), r);
  Val self = cast_to(b, c.tensor("self"), dt);
  Val src = cast_to(b, c.tensor("source"), dt);
  const Arg &alpha = c.arg("alpha");
  if (c.has("alpha") && !(alpha.is_number() && alpha.to_double() == 1.0))
    src = b.op1("Mul", {src, as_tensor(b, alpha, dt)});
  Val index = spread_index(b, self, c.tensor("index"), src, d, r);
  if (native_reduction)
    c.set_out(0, b.op1("ScatterElements", {self, index, src}, {{"axis", d}, {"reduction", "add"}}));
  else
    c.set_out(0, scatter_dense(b, self, d, r, index, src, "sum", true, dt));
}

} // namespace

void aten_index_add(ConvertCtx &c) {
  emit_index_add(c, false);
}
void aten_index_add_16(ConvertCtx &c) {
  emit_index_add(c, true);
}

// index_copy(self, dim, index, source)
void aten_index_copy(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  DType dt = out_dtype(c);
  int64_t r = rank_of(c, "self");
  int64_t d = norm_axis(c.arg<int64_t>("dim"), r);
  Val self = cast_to(b, c.tensor("self"), dt);
  Val src = cast_to(b, c.tensor("source"), dt);
  Val index = spread_index(b, self, c.tensor("index"), src, d, r);
  c.set_out(0, b.op1("ScatterElements", {self, index, src}, {{"axis", d}}));
}

// index_fill(self, dim, index, value): a mask over dim d from the listed positions.
void aten_index_fill(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  DType dt = out_dtype(c);
  int64_t r = rank_of(c, "self");
  int64_t d = norm_axis(c.arg<int64_t>("dim"), r);
  Val self = cast_to(b, c.tensor("self"), dt);
  Val n = dim_scalar(b, self, d);
  Val idx = reshape(b, wrap_negative(b, cast_to(b, c.tensor("index"), DType::Int64), n), {1, -1});
  Val eq = cast_to(b, b.op1("Equal", {unsqueeze(b, iota(b, n), {1}), idx}), DType::Int64);
  Val hit = cast_to(
      b, b.op1("ReduceMax", {eq}, {{"axes", std::vector<int64_t>{1}}, {"keepdims", int64_t{0}}}),
      DType::Bool);
  if (r > 0)
    hit = on_axis(b, hit, d, r);
  Val value = as_tensor(b, c.arg("value"), dt);
  if (c.arg("value").is_tensor())
    value = reshape(b, value, {});
  c.set_out(0, b.op1("Where", {hit, value, self}));
}

// masked_scatter(self, mask, source): the k-th True position takes source.flatten()[k].
void aten_masked_scatter(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  DType dt = out_dtype(c);
  Val self = cast_to(b, c.tensor("self"), dt);
  Val mask = b.op1("Expand", {cast_to(b, c.tensor("mask"), DType::Bool), shape_of(b, self)});
  self = b.op1("Expand", {self, shape_of(b, mask)});
  Val flat_mask = reshape(b, mask, {-1});
  Val pos =
      op_t(b, DType::Int64, "CumSum", {cast_to(b, flat_mask, DType::Int64), b.const_i64_scalar(0)},
           {{"exclusive", int64_t{1}}});
  Val src = reshape(b, cast_to(b, c.tensor("source"), dt), {-1});
  pos = op_t(b, DType::Int64, "Min",
             {pos, b.op1("Sub", {b.op1("Size", {src}), b.const_i64_scalar(1)})});
  Val picked = b.op1("Gather", {src, pos}, {{"axis", int64_t{0}}});
  Val out = b.op1("Where", {flat_mask, picked, reshape(b, self, {-1})});
  c.set_out(0, b.op1("Reshape", {out, shape_of(b, mask)}));
}

// masked_select(self, mask): 1-D, data-dependent length.
void aten_masked_select(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  Val mask = cast_to(b, c.tensor("mask"), DType::Bool);
  Val x = b.op1("Expand", {c.tensor("self"), shape_of(b, mask)}); // Expand broadcasts both ways
  mask = b.op1("Expand", {mask, shape_of(b, x)});
  c.set_out(
      0, b.op1("Compress", {reshape(b, x, {-1}), reshape(b, mask, {-1})}, {{"axis", int64_t{0}}}));
}

void aten_take(ConvertCtx &c) {
  Val flat = reshape(c.b, c.tensor("self"), {-1});
  c.set_out(0, c.b.op1("Gather", {flat, c.tensor("index")}, {{"axis", int64_t{0}}}));
}

void aten_nonzero(ConvertCtx &c) {
  Val nz = c.b.op1("NonZero", {c.tensor("self")});
  c.set_out(0, c.b.op1("Transpose", {nz}, {{"perm", std::vector<int64_t>{1, 0}}}));
}

// nonzero_numpy: one 1-D index tensor per dim.
void aten_nonzero_numpy(ConvertCtx &c) {
  int64_t r = rank_of(c, "self");
  Val nz = c.b.op1("NonZero", {c.tensor("self")});
  std::vector<Arg> items;
  for (int64_t k = 0; k < r; ++k) {
    Val v = c.b.op1("Gather", {nz, c.b.const_i64_scalar(k)}, {{"axis", int64_t{0}}});
    c.b.set_info(v, TensorInfo{DType::Int64, std::vector<Dim>{Dim{}}});
    items.push_back(Arg::of_tensor(v));
  }
  c.set_out(0, Arg::of_list(std::move(items)));
}

namespace {
// TopK over dim d with k from a 0-d/1-element int64 (or the whole dim).
std::vector<Val> topk(ConvertCtx &c, const Val &x, int64_t d, const Val *k, bool largest) {
  GraphBuilder &b = c.b;
  Val kk = k ? reshape(b, cast_to(b, *k, DType::Int64), {1})
             : b.op1("Gather", {shape_of(b, x), b.const_i64({d})}, {{"axis", int64_t{0}}});
  DType dt = b.dtype(x);
  // ONNX Runtime's TopK has float/double/int32/int64 kernels only.
  DType kt = (dt == DType::Float || dt == DType::Double || dt == DType::Int32 || dt == DType::Int64)
                 ? dt
                 : (is_floating(dt) ? DType::Float : DType::Int64);
  auto outs = b.op("TopK", {cast_to(b, x, kt), kk},
                   {{"axis", d}, {"largest", largest}, {"sorted", int64_t{1}}}, 2);
  outs[0] = cast_to(b, outs[0], dt);
  return outs;
}

// sort(self, dim, descending) or sort.stable(self, stable, dim, descending).
std::pair<int64_t, bool> sort_args(const ConvertCtx &c, int64_t r) {
  int64_t d = c.arg<int64_t>("dim", -1);
  bool desc = c.arg<bool>("descending", false);
  return {norm_axis(d, r), desc};
}
} // namespace

void aten_sort(ConvertCtx &c) {
  int64_t r = rank_of(c, "self");
  if (r == 0) {
    c.set_out(0, c.tensor("self"));
    c.set_out(1, c.b.const_scalar(DType::Int64, 0));
    return;
  }
  auto [d, desc] = sort_args(c, r);
  auto outs = topk(c, c.tensor("self"), d, nullptr, desc);
  c.set_out(0, outs[0]);
  c.set_out(1, outs[1]);
}

void aten_argsort(ConvertCtx &c) {
  int64_t r = rank_of(c, "self");
  auto [d, desc] = sort_args(c, r);
  c.set_out(0, topk(c, c.tensor("self"), d, nullptr, desc)[1]);
}

// topk(self, k, dim, largest, sorted): always sorted (an unsorted order is unspecified anyway).
void aten_topk(ConvertCtx &c) {
  int64_t r = rank_of(c, "self");
  int64_t d = norm_axis(c.arg<int64_t>("dim", -1), r);
  bool largest = !c.has("largest") || c.arg<bool>("largest");
  Val k = as_tensor(c.b, c.arg("k"), DType::Int64);
  auto outs = topk(c, c.tensor("self"), d, &k, largest);
  c.set_out(0, outs[0]);
  c.set_out(1, outs[1]);
}

// one_hot(self, num_classes): -1 takes max(self) + 1.
void aten_one_hot(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  Val x = cast_to(b, c.tensor("self"), DType::Int64);
  int64_t n = c.arg<int64_t>("num_classes", -1);
  Val depth = n >= 0 ? b.const_i64_scalar(n)
                     : b.op1("Add", {b.op1("ReduceMax", {x}, {{"keepdims", int64_t{0}}}),
                                     b.const_i64_scalar(1)});
  Val eq = b.op1("Equal", {unsqueeze(b, x, {-1}), iota(b, depth)});
  c.set_out(0, cast_to(b, eq, DType::Int64));
}

void aten_embedding(ConvertCtx &c) {
  c.set_out(0,
            c.b.op1("Gather", {c.tensor("weight"), c.tensor("indices")}, {{"axis", int64_t{0}}}));
}

// embedding_renorm(Tensor self, Tensor indices, float max_norm, float norm_type): what
// F.embedding(max_norm=...) does to its weight first (in place, as embedding_renorm_): each row an
// index refers to whose norm exceeds max_norm is scaled by max_norm / (norm + 1e-7); other rows
// stay. The ONNX graph computes the renormed weight on every run from the stored weight, which
// matches PyTorch's in-place update because renorming twice changes nothing more.
void aten_embedding_renorm(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  Val w = c.tensor("self");
  DType t = b.dtype(w);
  double max_norm = c.arg<double>("max_norm"), p = c.arg<double>("norm_type");
  Val axis = b.const_i64({1});
  Val mag = b.op1("Abs", {w});
  Val norm;
  if (p == 2.0) {
    norm = b.op1("Sqrt", {b.op1("ReduceSum", {b.op1("Mul", {w, w}), axis})});
  } else if (p == 1.0) {
    norm = b.op1("ReduceSum", {mag, axis});
  } else {
    Val sum = b.op1("ReduceSum", {b.op1("Pow", {mag, scalar(b, t, p)}), axis});
    norm = b.op1("Pow", {sum, scalar(b, t, 1.0 / p)});
  }
  // used[i] = 1 for the rows some index names (a scatter of ones; repeats write the same 1).
  Val idx = reshape(b, cast_to(b, c.tensor("indices"), DType::Int64), {-1, 1});
  Val zeros = b.op1("Mul", {norm, scalar(b, t, 0)});
  Val ones = b.op1("Expand", {scalar(b, t, 1), b.op1("Shape", {idx})});
  Val used = b.op1("ScatterND", {zeros, idx, ones});
  Val over = b.op1("And", {b.op1("Greater", {used, scalar(b, t, 0)}),
                           b.op1("Greater", {norm, scalar(b, t, max_norm)})});
  Val scale = b.op1("Div", {scalar(b, t, max_norm), b.op1("Add", {norm, scalar(b, t, 1e-7)})});
  c.set_out(0, b.op1("Mul", {w, b.op1("Where", {over, scale, scalar(b, t, 1)})}));
}

EmbeddingBags embedding_bags(ConvertCtx &c, DType dt, int64_t mode, const Val &indices,
                             const Val &offsets_in, const std::function<Val(const Val &)> &rows) {
  GraphBuilder &b = c.b;
  T2O_CHECK(mode >= 0 && mode <= 2, "{}: unknown mode {}", c.op(), mode);
  bool last = c.arg<bool>("include_last_offset", false);
  int64_t padding_idx = c.takes("padding_idx") ? c.arg<int64_t>("padding_idx", -1) : -1;
  // aten gets 1-D indices (F.embedding_bag flattens 2-D ones and makes the offsets).
  T2O_CHECK(b.rank(indices) == 1, "{}: expected 1-D indices, got {}", c.op(),
            c.info("indices").str());
  Val idx_flat = indices;
  Val offsets = offsets_in;
  if (last)
    offsets = b.op1("Slice", {offsets, b.const_i64({0}), b.const_i64({-1}), b.const_i64({0})});
  Val nbags = b.op1("Size", {offsets});
  Val pos = iota(b, b.op1("Size", {idx_flat}));
  Val started = b.op1("GreaterOrEqual", {unsqueeze(b, pos, {1}), unsqueeze(b, offsets, {0})});
  Val bag_of =
      b.op1("Sub", {b.op1("ReduceSum", {cast_to(b, started, DType::Int64), b.const_i64({1})},
                          {{"keepdims", int64_t{0}}}),
                    b.const_i64_scalar(1)});
  // member[bag, i]: index i belongs to the bag and is not padding.
  Val member = b.op1("Equal", {unsqueeze(b, iota(b, nbags), {1}), unsqueeze(b, bag_of, {0})});
  if (padding_idx >= 0)
    member =
        b.op1("And", {member, b.op1("Not", {b.op1("Equal", {unsqueeze(b, idx_flat, {0}),
                                                            b.const_i64_scalar(padding_idx)})})});
  Val emb = cast_to(b, rows(idx_flat), dt); // [n, D]
  if (c.has("per_sample_weights")) {
    T2O_CHECK(mode == 0, "{}: per_sample_weights need mode='sum'", c.op());
    emb = b.op1(
        "Mul",
        {emb, unsqueeze(b, reshape(b, cast_to(b, c.tensor("per_sample_weights"), dt), {-1}), {1})});
  }
  Val count = b.op1("ReduceSum", {cast_to(b, member, DType::Int64), b.const_i64({1})},
                    {{"keepdims", int64_t{0}}});
  Val out;
  if (mode == 2) {
    Val m3 = unsqueeze(b, member, {2});
    Val masked =
        b.op1("Where", {m3, unsqueeze(b, emb, {0}), b.const_scalar(dt, neutral("amax", dt))});
    Val mx =
        b.op1("ReduceMax", {masked}, {{"axes", std::vector<int64_t>{1}}, {"keepdims", int64_t{0}}});
    Val empty = unsqueeze(b, b.op1("Equal", {count, b.const_i64_scalar(0)}), {1});
    out = b.op1("Where", {empty, b.const_scalar(dt, 0), mx});
  } else {
    out = b.op1("MatMul", {cast_to(b, member, dt), emb});
    if (mode == 1) {
      Val n = cast_to(b, b.op1("Max", {count, b.const_i64_scalar(1)}), dt);
      out = b.op1("Div", {out, unsqueeze(b, n, {1})});
    }
  }
  return {out, bag_of, count};
}

// embedding_bag / _embedding_bag(_forward_only)(weight, indices, offsets, scale_grad_by_freq,
// mode, sparse, per_sample_weights, include_last_offset[, padding_idx]). Only the first output
// (the bags) is exact; offset2bag and bag_size are computed, max_indices is zero.
void aten_embedding_bag(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  Val w = c.tensor("weight");
  Val indices = cast_to(b, c.tensor("indices"), DType::Int64);
  Val offsets = cast_to(b, c.tensor("offsets"), DType::Int64);
  int64_t mode = c.arg<int64_t>("mode", 0);
  EmbeddingBags r = embedding_bags(c, out_dtype(c), mode, indices, offsets, [&](const Val &idx) {
    return b.op1("Gather", {w, idx}, {{"axis", int64_t{0}}});
  });
  c.set_out(0, r.bags);
  c.set_out(1, r.bag_of);
  c.set_out(2, r.count);
  c.set_out(3, b.op1("Mul", {r.count, b.const_i64_scalar(0)}));
}

// bucketize(self, boundaries, out_int32, right): the number of boundaries below x (or <= x).
void aten_bucketize(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  Val bounds = c.tensor("boundaries");
  DType bt = b.dtype(bounds);
  DType k = is_floating(bt) || (c.arg("self").is_tensor() && is_floating(b.dtype(c.tensor("self"))))
                ? DType::Double
                : DType::Int64;
  Val x = as_tensor(b, c.arg("self"), k);
  bool right = c.arg<bool>("right", false);
  Val xu = unsqueeze(b, x, {-1});
  Val bb = cast_to(b, bounds, k);
  Val below = right ? b.op1("LessOrEqual", {bb, xu}) : b.op1("Less", {bb, xu});
  Val n = b.op1("ReduceSum", {cast_to(b, below, DType::Int64), b.const_i64({-1})},
                {{"keepdims", int64_t{0}}});
  c.set_out(0, cast_to(b, n, out_dtype(c)));
}

// ---- reading by index ------------------------------------------------------------------

void aten_select(ConvertCtx &c) {
  int64_t axis = norm_axis(c.arg<int64_t>("dim"), rank_of(c, "self"));
  Val idx = c.arg("index").is_tensor()
                ? reshape(c.b, cast_to(c.b, c.tensor("index"), DType::Int64), {})
                : c.b.const_i64_scalar(c.arg<int64_t>("index"));
  c.set_out(0, c.b.op1("Gather", {c.tensor("self"), idx}, {{"axis", axis}}));
}

void aten_index_select(ConvertCtx &c) {
  int64_t axis = norm_axis(c.arg<int64_t>("dim"), rank_of(c, "self"));
  Val idx = c.tensor("index");
  if (c.info("index").rank() == 0)
    idx = reshape(c.b, idx, {1});
  c.set_out(0, c.b.op1("Gather", {c.tensor("self"), idx}, {{"axis", axis}}));
}

void aten_gather(ConvertCtx &c) {
  int64_t axis = norm_axis(c.arg<int64_t>("dim"), rank_of(c, "self"));
  c.set_out(0, c.b.op1("GatherElements", {c.tensor("self"), c.tensor("index")}, {{"axis", axis}}));
}

namespace {
// x[..., i, j, ...] with several integer index tensors on dims `used`: the indexed dims moved
// first (when they are not already), the indices broadcast against each other and stacked on a
// new last axis for one GatherND. PyTorch puts the broadcast dims where the first indexed dim was
// when the indexed dims are adjacent (x[:, :, rows, cols] -> [B, H, *bcast, E]), else first.
Val gather_indexed(ConvertCtx &c, const std::vector<Arg> &idx, const std::vector<size_t> &used) {
  GraphBuilder &b = c.b;
  int64_t r = rank_of(c, "self");
  bool leading = true;
  for (size_t k = 0; k < used.size(); ++k)
    leading = leading && used[k] == k;
  Val self = c.tensor("self");
  if (!leading) {
    std::vector<int64_t> perm(used.begin(), used.end());
    for (int64_t d = 0; d < r; ++d)
      if (std::find(used.begin(), used.end(), static_cast<size_t>(d)) == used.end())
        perm.push_back(d);
    self = transpose(b, self, perm);
  }
  // Broadcast the indices against each other, then stack them on a new last axis.
  std::vector<Val> ints;
  int64_t m = 0; // the broadcast rank
  for (size_t k : used) {
    ints.push_back(cast_to(b, idx[k].t(), DType::Int64));
    int64_t rk = b.info(idx[k].t()).rank();
    T2O_CHECK(rk >= 0, "{} needs the rank of index tensor {}", c.op(), k);
    m = std::max(m, rk);
  }
  Val sum = ints[0];
  for (size_t k = 1; k < ints.size(); ++k)
    sum = b.op1("Add", {sum, ints[k]});
  Val shape = b.op1("Shape", {sum});
  std::vector<Val> parts;
  for (const Val &v : ints) {
    Val e = b.op1("Expand", {v, shape});
    parts.push_back(b.op1("Unsqueeze", {e, b.const_i64({-1})}));
  }
  Val coords = b.op1("Concat", parts, {{"axis", int64_t{-1}}});
  Val y = b.op1("GatherND", {self, coords}); // [*bcast, other dims in order]
  bool adjacent = used.back() - used.front() + 1 == used.size();
  int64_t p = static_cast<int64_t>(used.front());
  if (leading || !adjacent || p == 0)
    return y;
  std::vector<int64_t> back; // [*bcast, lead, tail] -> [lead, *bcast, tail]
  for (int64_t d = 0; d < p; ++d)
    back.push_back(m + d);
  for (int64_t d = 0; d < m; ++d)
    back.push_back(d);
  int64_t rest = r - static_cast<int64_t>(used.size()) - p;
  for (int64_t d = 0; d < rest; ++d)
    back.push_back(m + p + d);
  return transpose(b, y, back);
}
} // namespace

// index.Tensor (x[idx] with tensors). Supported: one integer index after leading Nones (Gather);
// one boolean mask as the only index, at dim 0 (NonZero + GatherND); several integer indices on
// any dims (gather_indexed).
void aten_index(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  const auto &idx = c.list("indices");
  std::vector<size_t> used;
  for (size_t i = 0; i < idx.size(); ++i)
    if (!idx[i].is_none())
      used.push_back(i);
  T2O_CHECK(!used.empty(), "{} without an index tensor", c.op());
  auto is_mask = [&](size_t i) {
    DType t = b.dtype(idx[i].t());
    return t == DType::Bool || t == DType::UInt8;
  };
  if (used.size() == 1 && !is_mask(used[0])) {
    int64_t axis = static_cast<int64_t>(used[0]);
    c.set_out(0, b.op1("Gather", {c.tensor("self"), idx[axis].t()}, {{"axis", axis}}));
    return;
  }
  if (used.size() == 1) {
    // A mask after d whole dims (x[:, keep] selects columns): a 1-D mask is a Gather of its true
    // positions on dim d; a k-D one gathers with its dims moved first, then puts the count of
    // true values back at dim d.
    auto d = static_cast<int64_t>(used[0]);
    const Val &m = idx[used[0]].t();
    Val nz = b.op1("NonZero", {cast_to(b, m, DType::Bool)});
    if (d > 0 && b.rank(m) == 1) {
      c.set_out(0, b.op1("Gather", {c.tensor("self"), reshape(b, nz, {-1})}, {{"axis", d}}));
      return;
    }
    Val coords = b.op1("Transpose", {nz}, {{"perm", std::vector<int64_t>{1, 0}}});
    int64_t r = rank_of(c, "self"), k = b.rank(m);
    Val self = d == 0 ? c.tensor("self") : transpose(b, c.tensor("self"), block_first(r, d, k));
    Val y = b.op1("GatherND", {self, coords}); // [count, lead, tail]
    c.set_out(0, d == 0 ? y : transpose(b, y, inverse(block_first(r - k + 1, d, 1))));
    return;
  }
  for (size_t k = 0; k < used.size(); ++k)
    T2O_CHECK(!is_mask(used[k]), "{} supports several index tensors only as integers, not masks",
              c.op());
  c.set_out(0, gather_indexed(c, idx, used));
}

void register_indexing_ops(Registry &r) {
  r.add("aten::select", 11, aten_select, {"Gather", "Reshape"});
  r.add("aten::index_select", 11, aten_index_select, {"Gather", "Reshape"});
  r.add("aten::gather", 11, aten_gather, {"GatherElements"});
  r.add("aten::index", 11, aten_index,
        {"Gather", "GatherND", "NonZero", "Add", "Concat", "Expand", "Shape", "Transpose",
         "Unsqueeze", "Reshape"});
  // Opset 16 gives ScatterElements and ScatterND a reduction attribute.
  r.add_with_inplace("aten::scatter", 11, aten_scatter,
                     {"ScatterElements", "Equal", "Where", "ReduceSum", "ReduceProd", "Pad", "Add",
                      "Cast", "Concat", "Expand", "Gather", "Greater", "Mul", "Range", "Shape",
                      "Slice", "Sub", "Transpose", "Unsqueeze"});
  r.add_with_inplace("aten::scatter", 16, aten_scatter_16,
                     {"ScatterElements", "Expand", "Shape", "Slice"});
  r.add_with_inplace("aten::scatter_add", 11, aten_scatter_add,
                     {"ScatterElements", "Equal", "Where", "ReduceSum", "Pad", "Add", "Cast",
                      "Concat", "Gather", "Greater", "Range", "Shape", "Sub", "Transpose",
                      "Unsqueeze"});
  r.add_with_inplace("aten::scatter_add", 16, aten_scatter_add_16, {"ScatterElements", "Expand"});
  const std::vector<std::string> scatter_reduce_ops = {
      "ScatterElements", "Equal",   "Where",     "ReduceSum", "ReduceProd", "ReduceMax",
      "ReduceMin",       "Pad",     "Add",       "Cast",      "Concat",     "Div",
      "Gather",          "Greater", "Max",       "Min",       "Mul",        "Range",
      "Shape",           "Sub",     "Transpose", "Unsqueeze"};
  r.add_with_inplace("aten::scatter_reduce", 11, aten_scatter_reduce, scatter_reduce_ops);
  r.add_with_inplace("aten::scatter_reduce", 16, aten_scatter_reduce_16, scatter_reduce_ops);
  for (const char *op : {"aten::index_put", "aten::_index_put_impl"}) {
    r.add_with_inplace(op, 11, aten_index_put,
                       {"ScatterND", "NonZero", "Expand", "ReduceSum", "Add",  "Cast",
                        "Concat",    "Equal",   "Gather", "Greater",   "Less", "Pad",
                        "Range",     "Reshape", "Shape",  "Slice",     "Sub",  "Transpose",
                        "Unsqueeze", "Where",   "Mul"});
    r.add_with_inplace(op, 16, aten_index_put_16,
                       {"ScatterND", "NonZero", "Expand", "Add", "Concat", "Gather", "Less",
                        "Shape", "Slice", "Transpose", "Unsqueeze", "Where"});
  }
  r.add_with_inplace("aten::index_add", 11, aten_index_add,
                     {"ScatterElements", "Equal", "Where", "ReduceSum", "Add", "Cast", "Concat",
                      "Expand", "Gather", "Greater", "Less", "Mul", "Pad", "Range", "Reshape",
                      "Shape", "Sub", "Transpose", "Unsqueeze"});
  r.add_with_inplace(
      "aten::index_add", 16, aten_index_add_16,
      {"ScatterElements", "Add", "Expand", "Gather", "Less", "Mul", "Reshape", "Shape", "Where"});
  r.add_with_inplace(
      "aten::index_copy", 11, aten_index_copy,
      {"ScatterElements", "Add", "Expand", "Gather", "Less", "Reshape", "Shape", "Where"});
  r.add_with_inplace("aten::index_fill", 11, aten_index_fill,
                     {"Equal", "ReduceMax", "Where", "Add", "Cast", "Gather", "Less", "Range",
                      "Reshape", "Shape", "Unsqueeze"});
  r.add_with_inplace("aten::masked_scatter", 11, aten_masked_scatter,
                     {"CumSum", "Gather", "Where", "Cast", "Expand", "Less", "Min", "Reshape",
                      "Shape", "Size", "Sub"});
  r.add("aten::masked_select", 11, aten_masked_select, {"Expand", "Compress", "Reshape", "Shape"});
  r.add("aten::take", 11, aten_take, {"Gather", "Reshape"});
  r.add("aten::nonzero", 11, aten_nonzero, {"NonZero", "Transpose"});
  r.add("aten::nonzero_numpy", 11, aten_nonzero_numpy, {"NonZero", "Gather"});
  r.add("aten::sort", 11, aten_sort, {"TopK", "Cast", "Gather", "Shape"});
  r.add("aten::argsort", 11, aten_argsort, {"TopK", "Cast", "Gather", "Shape"});
  r.add("aten::topk", 11, aten_topk, {"TopK", "Cast", "Reshape"});
  r.add("aten::one_hot", 11, aten_one_hot,
        {"Equal", "Range", "Cast", "Add", "ReduceMax", "Unsqueeze"});
  r.add("aten::embedding", 11, aten_embedding, {"Gather"});
  r.add_with_inplace("aten::embedding_renorm", 11, aten_embedding_renorm,
                     {"ReduceSum", "ScatterND", "Where", "Mul", "Abs", "Add", "And", "Div",
                      "Expand", "Greater", "Pow", "Reshape", "Shape", "Sqrt"});
  for (const char *op :
       {"aten::embedding_bag", "aten::_embedding_bag", "aten::_embedding_bag_forward_only"})
    r.add(op, 11, aten_embedding_bag,
          {"Gather",  "MatMul",         "ReduceMax", "Where", "And",       "Cast",  "Equal",
           "Greater", "GreaterOrEqual", "Mul",       "Not",   "Or",        "Range", "ReduceSum",
           "Reshape", "Size",           "Slice",     "Sub",   "Unsqueeze", "Div",   "Max"});
  r.add("aten::bucketize", 11, aten_bucketize,
        {"Less", "LessOrEqual", "ReduceSum", "Cast", "Equal", "Or", "Unsqueeze"});
}

} // namespace torch2onnx
