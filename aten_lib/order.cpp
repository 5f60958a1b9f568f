// Order statistics: median, nanmedian, kthvalue, mode, quantile, nanquantile, searchsorted,
// histogram, histogramdd, unique_dim_consecutive. Sorting is a full ascending TopK (ONNX TopK
// breaks ties by the lower index, as a stable sort); NaNs sort last, as in LibTorch.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"
#include "aten_lib/promotion.h"

#include <cmath>
#include <limits>

namespace torch2onnx {

namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

Val is_nan(GraphBuilder &b, const Val &x) {
  return op_t(b, DType::Bool, "IsNaN", {x});
}
Val bool_op(GraphBuilder &b, const char *op, const std::vector<Val> &ins) {
  return op_t(b, DType::Bool, op, ins);
}

// A dtype ONNX Runtime's TopK sorts (float, double, int32, int64).
DType sort_dtype(DType t) {
  if (t == DType::Float || t == DType::Double || t == DType::Int32 || t == DType::Int64)
    return t;
  return is_floating(t) ? DType::Float : DType::Int64;
}

struct Sorted {
  Val values, indices; // values in x's dtype, NaNs as +inf
};

// x sorted ascending along d, NaN as +inf (so after every number).
Sorted sort_up(GraphBuilder &b, const Val &x, int64_t d) {
  DType t = b.dtype(x);
  DType k = sort_dtype(t);
  Val v = cast_to(b, x, k);
  if (is_floating(k))
    v = op_t(b, k, "Where", {is_nan(b, v), scalar(b, k, kInf), v});
  Val n = b.op1("Gather", {shape_of(b, x), b.const_i64({d})}, {{"axis", int64_t{0}}});
  auto outs =
      b.op("TopK", {v, n}, {{"axis", d}, {"largest", int64_t{0}}, {"sorted", int64_t{1}}}, 2);
  return {cast_to(b, outs[0], t), outs[1]};
}

Val order_reduce(GraphBuilder &b, const char *op, const Val &x, int64_t axis, bool keepdim) {
  return b.op1(op, {x}, {{"axes", std::vector<int64_t>{axis}}, {"keepdims", int64_t{keepdim}}});
}

Val reduce_sum(GraphBuilder &b, const Val &x, int64_t axis, bool keepdim) {
  return b.op1("ReduceSum", {x, b.const_i64({axis})}, {{"keepdims", int64_t{keepdim}}});
}

// The input and dim of a (self, dim, keepdim) selection; no dim (median(self)) flattens.
struct Along {
  Val x;
  int64_t d = 0;
  bool keepdim = false;
  bool flat = false;
};

Along along(ConvertCtx &c) {
  Along a;
  int64_t r = rank_of(c, "self");
  a.flat = !c.takes("dim") || r == 0;
  a.x = a.flat ? reshape(c.b, c.tensor("self"), {-1}) : c.tensor("self");
  a.d = a.flat ? 0 : norm_axis(c.arg<int64_t>("dim", -1), r);
  a.keepdim = c.takes("keepdim") && c.arg<bool>("keepdim", false);
  return a;
}

// Sets (values, indices) from keepdim-shaped selections along a.d.
void set_selected(ConvertCtx &c, const Along &a, Val v, Val i) {
  if (a.flat) {
    std::vector<int64_t> shape =
        a.keepdim ? std::vector<int64_t>(rank_of(c, "self"), 1) : std::vector<int64_t>{};
    v = reshape(c.b, v, shape);
    i = reshape(c.b, i, shape);
  } else if (!a.keepdim) {
    v = squeeze(c.b, v, {a.d});
    i = squeeze(c.b, i, {a.d});
  }
  c.set_out(0, v);
  if (c.num_outputs() > 1)
    c.set_out(1, i);
}

// Element `pos` (a [1] int64 or a keepdim-shaped tensor of positions) of each sorted slice.
void select_sorted(ConvertCtx &c, const Along &a, const Sorted &s, const Val &pos, bool per_slice,
                   const Val &nan_where) {
  GraphBuilder &b = c.b;
  const char *op = per_slice ? "GatherElements" : "Gather";
  Val v = op_t(b, b.dtype(s.values), op, {s.values, pos}, {{"axis", a.d}});
  Val i = op_t(b, DType::Int64, op, {s.indices, pos}, {{"axis", a.d}});
  if (nan_where.valid())
    v = b.op1("Where", {nan_where, scalar(b, b.dtype(v), kNaN), v});
  set_selected(c, a, v, i);
}

} // namespace

// median(self) / median.dim(self, dim, keepdim): the lower of the two middle values; a slice
// with a NaN gives NaN. nanmedian: the median of the non-NaN values (NaN when all are NaN).
void aten_median(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  Along a = along(c);
  Sorted s = sort_up(b, a.x, a.d);
  bool fl = is_floating(b.dtype(a.x));
  Val one = b.const_i64({1}), two = b.const_i64({2});
  if (c.op() == "aten::nanmedian" && fl) {
    Val valid = cast_to(b, bool_op(b, "Not", {is_nan(b, a.x)}), DType::Int64);
    Val n = reduce_sum(b, valid, a.d, true);
    Val pos = b.op1("Max", {b.op1("Div", {b.op1("Sub", {n, one}), two}), b.const_i64({0})});
    Val none = bool_op(b, "Equal", {n, b.const_i64({0})});
    return select_sorted(c, a, s, pos, true, none);
  }
  Val n = b.op1("Gather", {shape_of(b, a.x), b.const_i64({a.d})}, {{"axis", int64_t{0}}});
  Val pos = b.op1("Div", {b.op1("Sub", {n, one}), two});
  Val any_nan;
  if (fl) {
    Val nan = cast_to(b, is_nan(b, a.x), DType::Float);
    any_nan = cast_to(b, order_reduce(b, "ReduceMax", nan, a.d, true), DType::Bool);
  }
  select_sorted(c, a, s, pos, false, any_nan);
}

// kthvalue(self, k, dim, keepdim): the k-th smallest value and its index.
void aten_kthvalue(ConvertCtx &c) {
  Along a = along(c);
  Sorted s = sort_up(c.b, a.x, a.d);
  select_sorted(c, a, s, c.b.const_i64({c.arg<int64_t>("k") - 1}), false, Val{});
}

// mode(self, dim, keepdim): the most frequent value (the smallest of equally frequent ones) and
// the last index holding it, from the [n, n] equality table of each slice.
void aten_mode(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  Along a = along(c);
  DType t = b.dtype(a.x);
  DType k = sort_dtype(t == DType::Bool ? DType::Int32 : t);
  Val x = cast_to(b, a.x, k);
  Val eq = bool_op(b, "Equal", {unsqueeze(b, x, {a.d + 1}), unsqueeze(b, x, {a.d})});
  Val count = reduce_sum(b, cast_to(b, eq, DType::Int64), a.d + 1, false);
  Val most = bool_op(b, "Equal", {count, order_reduce(b, "ReduceMax", count, a.d, true)});
  Val cand = op_t(b, k, "Where", {most, x, order_reduce(b, "ReduceMax", x, a.d, true)});
  Val v = order_reduce(b, "ReduceMin", cand, a.d, true);
  Val n = b.op1("Gather", {shape_of(b, a.x), b.const_i64_scalar(a.d)}, {{"axis", int64_t{0}}});
  int64_t r = b.rank(a.x);
  std::vector<int64_t> shape(r, 1);
  shape[a.d] = -1;
  Val pos = reshape(b, iota(b, n), shape); // 0, 1, ... along d
  Val hit = bool_op(b, "Equal", {x, v});
  Val i =
      order_reduce(b, "ReduceMax",
                   op_t(b, DType::Int64, "Where", {hit, pos, b.const_i64_scalar(-1)}), a.d, true);
  set_selected(c, a, cast_to(b, v, t), i);
}

namespace {

// The q argument: a float, a 0-d tensor or a 1-D tensor of quantiles (`vec`).
Val quantiles(ConvertCtx &c, DType t, bool &vec) {
  const Arg &q = c.arg("q");
  vec = q.is_tensor() && c.info("q").rank() == 1;
  return q.is_tensor() ? cast_to(c.b, q.t(), t) : scalar(c.b, t, q.to_double());
}

// Interpolates between the sorted values below and above each (fractional) rank.
Val interpolate(ConvertCtx &c, const Val &sorted, const Val &rank, int64_t axis) {
  GraphBuilder &b = c.b;
  DType t = b.dtype(sorted);
  std::string how = c.arg<std::string>("interpolation", "linear");
  auto at = [&](const Val &r) {
    return op_t(b, t, "GatherElements", {sorted, cast_to(b, r, DType::Int64)}, {{"axis", axis}});
  };
  Val lo = op_t(b, t, "Floor", {rank}), hi = op_t(b, t, "Ceil", {rank});
  if (how == "lower")
    return at(lo);
  if (how == "higher")
    return at(hi);
  if (how == "nearest")
    return at(op_t(b, t, "Round", {rank})); // half to even, as LibTorch's round
  T2O_CHECK(how == "linear" || how == "midpoint", "{}: unknown interpolation '{}'", c.op(), how);
  Val w = how == "linear" ? b.op1("Sub", {rank, lo}) : scalar(b, t, 0.5);
  Val below = at(lo);
  return b.op1("Add", {below, b.op1("Mul", {w, b.op1("Sub", {at(hi), below})})});
}

} // namespace

// quantile(self, q, dim?, keepdim, *, interpolation) and nanquantile: q = 1-D puts the
// quantiles first in the result. A slice with a NaN gives NaN (nanquantile: skips NaNs; NaN when
// all are).
void aten_quantile(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  DType t = float_compute(out_dtype(c));
  int64_t r = rank_of(c, "self");
  bool flat = !c.has("dim") || r == 0;
  int64_t d = flat ? 0 : norm_axis(c.arg<int64_t>("dim"), r);
  Val x = cast_to(b, c.tensor("self"), t);
  if (flat)
    x = reshape(b, x, {-1});
  Val sorted = sort_up(b, x, d).values;
  Val nn = reduce_sum(b, cast_to(b, bool_op(b, "Not", {is_nan(b, x)}), t), d, true);
  Val n =
      cast_to(b, b.op1("Gather", {shape_of(b, x), b.const_i64({d})}, {{"axis", int64_t{0}}}), t);
  bool skip = c.op() == "aten::nanquantile";
  Val bad = skip ? bool_op(b, "Equal", {nn, scalar(b, t, 0)}) : bool_op(b, "Less", {nn, n});
  bool vec = false;
  Val q = quantiles(c, t, vec);
  int64_t xr = flat ? 1 : r;
  Val first = b.op1("Slice", {sorted, b.const_i64({0}), b.const_i64({1}), b.const_i64({d})});
  Val shape = shape_of(b, first);
  int64_t axis = d;
  if (vec) {
    std::vector<int64_t> qs(xr + 1, 1);
    qs[0] = -1;
    q = reshape(b, q, qs);
    Val m = b.op1("Shape", {c.tensor("q")});
    shape = b.op1("Concat", {m, shape}, {{"axis", int64_t{0}}});
    sorted = op_t(b, t, "Expand",
                  {unsqueeze(b, sorted, {0}),
                   b.op1("Concat", {m, shape_of(b, sorted)}, {{"axis", int64_t{0}}})});
    axis = d + 1;
  }
  Val cnt = skip ? nn : n;
  Val rank = b.op1("Mul", {q, b.op1("Sub", {cnt, scalar(b, t, 1)})});
  rank = op_t(b, t, "Expand", {op_t(b, t, "Max", {rank, scalar(b, t, 0)}), shape});
  Val y = interpolate(c, sorted, rank, axis);
  y = b.op1("Where", {bad, scalar(b, t, kNaN), y});
  bool keepdim = c.arg<bool>("keepdim", false);
  if (flat) {
    std::vector<int64_t> s = keepdim ? std::vector<int64_t>(r, 1) : std::vector<int64_t>{};
    if (vec)
      s.insert(s.begin(), -1);
    y = reshape(b, y, s);
  } else if (!keepdim) {
    y = squeeze(b, y, {axis});
  }
  set_result(c, y);
}

// searchsorted(sorted_sequence, self, *, out_int32, right, side, sorter): the number of
// sequence elements < v (<= v for right/side="right") in the last dim.
void aten_searchsorted(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  Val seq = c.tensor("sorted_sequence");
  if (c.has("sorter"))
    seq = op_t(b, b.dtype(seq), "GatherElements",
               {seq, cast_to(b, c.tensor("sorter"), DType::Int64)}, {{"axis", int64_t{-1}}});
  DType t = sort_dtype(b.dtype(seq));
  seq = cast_to(b, seq, t);
  Val v = as_tensor(b, c.arg("self"), t);
  bool right =
      c.arg<bool>("right", false) || (c.has("side") && c.arg<std::string>("side") == "right");
  int64_t sr = c.info("sorted_sequence").rank();
  T2O_CHECK(sr >= 1, "searchsorted needs a sorted sequence of rank >= 1");
  if (sr > 1)
    seq = unsqueeze(b, seq, {-2}); // [..., 1, M] against values [..., K, 1]
  Val vv = unsqueeze(b, v, {-1});
  Val hit =
      right ? bool_op(b, "Not", {bool_op(b, "Greater", {seq, vv})}) : bool_op(b, "Less", {seq, vv});
  DType ot = c.arg<bool>("out_int32", false) ? DType::Int32 : DType::Int64;
  c.set_out(0, cast_to(b, reduce_sum(b, cast_to(b, hit, DType::Int64), -1, false), ot));
}

// unique_dim_consecutive(self, dim, return_inverse, return_counts): unique_consecutive along dim.
void aten_unique_dim_consecutive(ConvertCtx &c) {
  auto outs = c.call("aten::unique_consecutive",
                     {{"self", c.tensor("self")},
                      {"return_inverse", c.arg("return_inverse")},
                      {"return_counts", c.arg("return_counts")},
                      {"dim", c.arg("dim")}},
                     {c.out_info(0), c.out_info(1), c.out_info(2)});
  for (size_t i = 0; i < 3; ++i)
    c.set_out(i, outs[i]);
}

namespace {

// linspace(lo, hi, bins + 1) computed as LibTorch's linspace does (the first half of the points
// from lo, the rest back from hi). Without a range, lo and hi are the data's minimum and maximum;
// equal ends widen by 0.5 either way.
Val linear_edges(GraphBuilder &b, const Val &col, int64_t bins, const double *range) {
  DType t = b.dtype(col);
  Val lo, hi;
  if (range) {
    double l = range[0], h = range[1];
    if (l == h) {
      l -= 0.5;
      h += 0.5;
    }
    lo = scalar(b, t, l);
    hi = scalar(b, t, h);
  } else {
    lo = b.op1("ReduceMin", {col}, {{"keepdims", int64_t{0}}});
    hi = b.op1("ReduceMax", {col}, {{"keepdims", int64_t{0}}});
    Val same = bool_op(b, "Equal", {lo, hi});
    lo = b.op1("Where", {same, b.op1("Sub", {lo, scalar(b, t, 0.5)}), lo});
    hi = b.op1("Where", {same, b.op1("Add", {hi, scalar(b, t, 0.5)}), hi});
  }
  Val step = b.op1("Div", {b.op1("Sub", {hi, lo}), scalar(b, t, static_cast<double>(bins))});
  Val idx = cast_to(b, b.const_i64(int_range(0, bins + 1)), t);
  Val from_lo = b.op1("Add", {lo, b.op1("Mul", {step, idx})});
  Val back = b.op1("Sub", {scalar(b, t, static_cast<double>(bins)), idx});
  Val from_hi = b.op1("Sub", {hi, b.op1("Mul", {step, back})});
  std::vector<bool> first(static_cast<size_t>(bins + 1));
  for (int64_t i = 0; i <= bins; ++i)
    first[i] = i < (bins + 1) / 2;
  Val mask = b.constant(TensorData::boolean(first, {bins + 1}), "first_half");
  return b.op1("Where", {mask, from_lo, from_hi});
}

struct Binned {
  Val bin;   // [N] int64: the bin of each value
  Val valid; // [N] bool: inside [first edge, last edge] and not NaN
};

// The bin of each value of col [N] between `edges` ([bins + 1]): edges[i] <= x < edges[i + 1],
// the last bin closed.
Binned bin_values(GraphBuilder &b, const Val &col, const Val &edges, int64_t bins) {
  auto edge = [&](int64_t from, int64_t to) {
    return b.op1("Slice", {edges, b.const_i64({from}), b.const_i64({to})});
  };
  Val x = unsqueeze(b, col, {1});
  Val at_or_above = bool_op(b, "Not", {bool_op(b, "Less", {x, edge(1, bins)})});
  Val bin = reduce_sum(b, cast_to(b, at_or_above, DType::Int64), 1, false);
  Val out = bool_op(
      b, "Or",
      {bool_op(b, "Less", {col, edge(0, 1)}), bool_op(b, "Greater", {col, edge(bins, bins + 1)})});
  Val valid = bool_op(b, "Not", {bool_op(b, "Or", {out, is_nan(b, col)})});
  return {bin, valid};
}

// histogramdd over the columns of x [N, D]: one edge tensor per dim (given, or bins[k] equal
// bins), counts (weighted) in a [bins...] grid, divided by the total and the bin volumes for
// density.
void histogram_nd(ConvertCtx &c, const Val &x, int64_t dims, bool list_out) {
  GraphBuilder &b = c.b;
  DType t = b.dtype(x);
  const Arg &bins_arg = c.arg("bins");
  std::vector<double> range = c.takes("range") && c.has("range")
                                  ? c.arg<std::vector<double>>("range")
                                  : std::vector<double>{};
  std::vector<Val> edges;
  std::vector<int64_t> counts;
  Val flat_bin, valid;
  for (int64_t k = 0; k < dims; ++k) {
    Val col =
        reshape(b, op_t(b, t, "Gather", {x, b.const_i64_scalar(k)}, {{"axis", int64_t{1}}}), {-1});
    const Arg *given = bins_arg.is_tensor()                                   ? &bins_arg
                       : bins_arg.is_list() && bins_arg.list()[0].is_tensor() ? &bins_arg.list()[k]
                                                                              : nullptr;
    int64_t n = 0;
    Val e;
    if (given) {
      e = reshape(b, cast_to(b, given->t(), t), {-1});
      n = static_size(b.info(given->t()), 0, c.op()) - 1;
    } else {
      std::vector<int64_t> all = bins_arg.to_ints();
      n = all.size() == 1 ? all[0] : all[k];
      e = linear_edges(b, col, n, range.empty() ? nullptr : &range[2 * k]);
    }
    Binned bv = bin_values(b, col, e, n);
    flat_bin = flat_bin.valid()
                   ? b.op1("Add", {b.op1("Mul", {flat_bin, b.const_i64_scalar(n)}), bv.bin})
                   : bv.bin;
    valid = valid.valid() ? bool_op(b, "And", {valid, bv.valid}) : bv.valid;
    edges.push_back(e);
    counts.push_back(n);
  }
  int64_t total = 1;
  for (int64_t n : counts)
    total *= n;
  Val hot =
      bool_op(b, "And",
              {bool_op(b, "Equal", {unsqueeze(b, flat_bin, {1}), b.const_i64(int_range(0, total))}),
               unsqueeze(b, valid, {1})});
  Val w = cast_to(b, hot, t);
  if (c.has("weight"))
    w = b.op1("Mul", {w, unsqueeze(b, reshape(b, cast_to(b, c.tensor("weight"), t), {-1}), {1})});
  Val hist = reshape(b, reduce_sum(b, w, 0, false), counts);
  if (c.arg<bool>("density", false)) {
    hist = b.op1("Div", {hist, b.op1("ReduceSum", {hist}, {{"keepdims", int64_t{0}}})});
    for (int64_t k = 0; k < dims; ++k) {
      Val width =
          b.op1("Sub", {b.op1("Slice", {edges[k], b.const_i64({1}), b.const_i64({INT64_MAX})}),
                        b.op1("Slice", {edges[k], b.const_i64({0}), b.const_i64({-1})})});
      std::vector<int64_t> shape(dims, 1);
      shape[k] = -1;
      hist = b.op1("Div", {hist, reshape(b, width, shape)});
    }
  }
  c.set_out(0, hist);
  if (!list_out)
    return c.set_out(1, edges[0]);
  std::vector<Arg> items;
  for (const Val &e : edges)
    items.push_back(Arg::of_tensor(e));
  c.set_out(1, Arg::of_list(std::move(items)));
}

} // namespace

// histogram.bin_ct(self, bins, *, range, weight, density) / histogram.bins_tensor(self, bins, *,
// weight, density) -> (hist, bin_edges): of the flattened input.
void aten_histogram(ConvertCtx &c) {
  histogram_nd(c, reshape(c.b, c.tensor("self"), {-1, 1}), 1, false);
}

// histogramdd(self [..., D], bins, range, weight, density) -> (hist, bin_edges[]).
void aten_histogramdd(ConvertCtx &c) {
  int64_t r = rank_of(c, "self");
  int64_t dims = static_dim(c, "self", r - 1);
  histogram_nd(c, reshape(c.b, c.tensor("self"), {-1, dims}), dims, true);
}

void register_order_ops(Registry &r) {
  const std::vector<std::string> sort_ops{"TopK", "Where", "IsNaN", "Shape", "Gather", "Cast"};
  auto with = [&](std::vector<std::string> more) {
    more.insert(more.begin(), sort_ops.begin(), sort_ops.end());
    return more;
  };
  r.add("aten::median", 11, aten_median, with({"ReduceMax", "Sub", "Div", "Reshape", "Squeeze"}));
  r.add("aten::nanmedian", 11, aten_median,
        with({"ReduceMax", "ReduceSum", "Not", "Sub", "Div", "Max", "Greater", "Equal",
              "GatherElements", "Reshape", "Squeeze"}));
  r.add("aten::kthvalue", 11, aten_kthvalue, with({"Reshape", "Squeeze"}));
  r.add("aten::mode", 11, aten_mode,
        with({"Unsqueeze", "Equal", "ReduceSum", "ReduceMax", "ReduceMin", "Range", "Reshape",
              "Squeeze"}));
  const std::vector<std::string> quantile_ops = with(
      {"ReduceSum", "Not", "Less", "Equal", "Slice", "Reshape", "Concat", "Expand", "Unsqueeze",
       "Mul", "Sub", "Max", "Floor", "Ceil", "Round", "GatherElements", "Add", "Squeeze"});
  r.add("aten::quantile", 11, aten_quantile, quantile_ops);
  r.add("aten::nanquantile", 11, aten_quantile, quantile_ops);
  r.add("aten::searchsorted", 11, aten_searchsorted,
        {"GatherElements", "Cast", "Unsqueeze", "Less", "Greater", "Not", "ReduceSum"});
  r.add("aten::unique_dim_consecutive", 11, aten_unique_dim_consecutive,
        {"Transpose", "Reshape", "Shape", "Gather", "Slice", "Equal", "Not", "Cast", "ReduceMax",
         "Concat", "Compress", "CumSum", "Sub", "NonZero"});
  const std::vector<std::string> histogram_ops{
      "Reshape", "Gather",    "ReduceMin", "ReduceMax", "Equal", "Where",     "Sub",
      "Add",     "Div",       "Mul",       "Cast",      "Slice", "Unsqueeze", "Less",
      "Not",     "ReduceSum", "Greater",   "Or",        "IsNaN", "And"};
  r.add("aten::histogram", 11, aten_histogram, histogram_ops);
  r.add("aten::histogramdd", 11, aten_histogramdd, histogram_ops);
}

} // namespace torch2onnx
