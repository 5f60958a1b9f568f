// Reductions and scans without a single ONNX counterpart: cumprod, cummax/cummin, count_nonzero,
// diff, nansum/nanmean, trace, dist, renorm, norm_except_dim, cov/corrcoef and the trapezoid
// rules. Scans along a dim use an [n, n] prefix mask (aten_lib/helpers.h prefix_mask), as
// aten::logcumsumexp does: exact, with no log/exp round trip.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"
#include "aten_lib/promotion.h"

#include <cmath>
#include <limits>

namespace torch2onnx {

namespace {

// A dtype ONNX Runtime reduces (ReduceProd/Max/Min: int32, int64, float, double).
DType reduce_dtype(DType t) {
  if (t == DType::Float || t == DType::Double || t == DType::Int32 || t == DType::Int64)
    return t;
  return is_floating(t) ? DType::Float : DType::Int64;
}

// The smallest value of dtype t (-inf for floats).
double lowest(DType t) {
  if (is_floating(t))
    return -std::numeric_limits<double>::infinity();
  return t == DType::Int64 ? static_cast<double>(std::numeric_limits<int64_t>::min())
                           : static_cast<double>(std::numeric_limits<int32_t>::min());
}

struct Scan {
  Val rows;  // x unsqueezed at dim: [..., 1 (i), n (j), ...]
  Val mask;  // prefix_mask
  Val pos;   // prefix_positions
  int64_t d; // the dim
  int64_t r; // the rank
};

// The prefix layout of tensor `x` (argument "self") along argument "dim".
Scan scan_of(ConvertCtx &c, const Val &x) {
  const TensorInfo &info = c.info("self");
  int64_t r = rank_of(c, "self");
  int64_t d = norm_axis(c.arg<int64_t>("dim"), r);
  T2O_CHECK(info.shape.has_value(), "{} needs the input rank", c.op());
  return {unsqueeze(c.b, x, {d}), prefix_mask(c.b, x, d, r), prefix_positions(c.b, x, d, r), d, r};
}

Val stats_reduce(GraphBuilder &b, const char *op, const Val &x, std::vector<int64_t> axes,
                 bool keepdim) {
  std::vector<Attr> attrs = {{"keepdims", int64_t{keepdim}}};
  if (!axes.empty())
    attrs.push_back({"axes", axes});
  return b.op1(op, {x}, attrs);
}

Val reduce_sum(GraphBuilder &b, const Val &x, const std::vector<int64_t> &axes, bool keepdim) {
  std::vector<Val> ins = {x};
  if (!axes.empty())
    ins.push_back(b.const_i64(axes));
  return b.op1("ReduceSum", ins, {{"keepdims", int64_t{keepdim}}});
}

// Normalised dims of argument `name` (None or [] = every dim: empty result).
std::vector<int64_t> dims_arg(const ConvertCtx &c, std::string_view name) {
  std::vector<int64_t> axes = c.ints(name, {});
  int64_t r = rank_of(c, "self");
  for (auto &a : axes)
    a = norm_axis(a, r);
  return axes;
}

// The p-norm of x over `axes` (empty: all), as LibTorch's vector norm.
Val pnorm(GraphBuilder &b, const Val &x, double p, const std::vector<int64_t> &axes, bool keepdim) {
  DType t = b.dtype(x);
  if (p == 2.0)
    return stats_reduce(b, "ReduceL2", x, axes, keepdim);
  if (p == 1.0)
    return stats_reduce(b, "ReduceL1", x, axes, keepdim);
  Val ax = b.op1("Abs", {x});
  if (std::isinf(p))
    return stats_reduce(b, p > 0 ? "ReduceMax" : "ReduceMin", ax, axes, keepdim);
  if (p == 0.0) {
    Val nz = b.op1("Not", {b.op1("Equal", {x, b.const_scalar(t, 0)})});
    return reduce_sum(b, cast_to(b, nz, t), axes, keepdim);
  }
  Val pw = b.op1("Pow", {ax, b.const_scalar(t, p)});
  return b.op1("Pow", {reduce_sum(b, pw, axes, keepdim), b.const_scalar(t, 1.0 / p)});
}

} // namespace

// cumprod(self, dim, *, dtype): out[i] = prod(x[0..i]) as a ReduceProd over the masked triangle.
void aten_cumprod(ConvertCtx &c) {
  DType t = out_dtype(c);
  DType k = reduce_dtype(t);
  Val x = cast_to(c.b, c.tensor("self"), k);
  if (rank_of(c, "self") == 0)
    return set_result(c, x);
  Scan s = scan_of(c, x);
  Val masked = op_t(c.b, k, "Where", {s.mask, scalar(c.b, k, 1), s.rows});
  Val y = stats_reduce(c.b, "ReduceProd", masked, {s.d + 1}, false);
  set_result(c, y);
}

// cummax/cummin(self, dim) -> (values, indices): the index is the last one holding the value.
void aten_cummax(ConvertCtx &c) {
  bool is_max = c.op() == "aten::cummax";
  DType t = c.info("self").dtype;
  DType k = reduce_dtype(t == DType::Bool ? DType::Int32 : t);
  Val x = cast_to(c.b, c.tensor("self"), k);
  if (rank_of(c, "self") == 0) {
    c.set_out(0, c.tensor("self"));
    c.set_out(1, c.b.const_i64_scalar(0));
    return;
  }
  Scan s = scan_of(c, x);
  // Masked-out entries must never win: -inf/+inf, or for integers the overall min/max.
  Val fill = is_floating(k)
                 ? scalar(c.b, k, is_max ? lowest(k) : -lowest(k))
                 : c.b.op1(is_max ? "ReduceMin" : "ReduceMax", {x}, {{"keepdims", int64_t{0}}});
  Val masked = op_t(c.b, k, "Where", {s.mask, fill, s.rows});
  Val v = stats_reduce(c.b, is_max ? "ReduceMax" : "ReduceMin", masked, {s.d + 1}, true);
  Val hit =
      op_t(c.b, DType::Bool, "And",
           {op_t(c.b, DType::Bool, "Equal", {masked, v}), op_t(c.b, DType::Bool, "Not", {s.mask})});
  Val idx = op_t(c.b, DType::Int64, "Where", {hit, s.pos, c.b.const_i64_scalar(-1)});
  c.set_out(0, cast_to(c.b, squeeze(c.b, v, {s.d + 1}), t));
  c.set_out(1, stats_reduce(c.b, "ReduceMax", idx, {s.d + 1}, false));
}

// count_nonzero(self, dim?) / count_nonzero.dim_IntList(self, dim[]) -> int64.
void aten_count_nonzero(ConvertCtx &c) {
  Val x = c.tensor("self");
  Val nz = op_t(c.b, DType::Bool, "Not",
                {op_t(c.b, DType::Bool, "Equal", {x, c.b.const_scalar(c.b.dtype(x), 0)})});
  Val n = cast_to(c.b, nz, DType::Int64);
  if (rank_of(c, "self") == 0)
    return c.set_out(0, n);
  c.set_out(0, reduce_sum(c.b, n, dims_arg(c, "dim"), false));
}

// diff(self, n, dim, prepend?, append?): n times x[1:] - x[:-1] (xor for bool) along dim.
void aten_diff(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  int64_t r = rank_of(c, "self");
  int64_t d = norm_axis(c.arg<int64_t>("dim", -1), r);
  DType t = c.info("self").dtype;
  std::vector<Val> parts;
  if (c.has("prepend"))
    parts.push_back(cast_to(b, c.tensor("prepend"), t));
  parts.push_back(c.tensor("self"));
  if (c.has("append"))
    parts.push_back(cast_to(b, c.tensor("append"), t));
  Val x = parts.size() == 1 ? parts[0] : b.op1("Concat", parts, {{"axis", d}});
  auto part = [&](const Val &v, int64_t from, int64_t to) {
    return b.op1("Slice", {v, b.const_i64({from}), b.const_i64({to}), b.const_i64({d})});
  };
  for (int64_t i = 0; i < c.arg<int64_t>("n", 1); ++i)
    x = b.op1(t == DType::Bool ? "Xor" : "Sub", {part(x, 1, INT64_MAX), part(x, 0, -1)});
  c.set_out(0, x);
}

// nansum(self, dim?, keepdim, *, dtype): NaNs count as 0.
void aten_nansum(ConvertCtx &c) {
  DType t = out_dtype(c);
  Val x = cast_to(c.b, c.tensor("self"), t);
  if (is_floating(t))
    x = op_t(c.b, t, "Where", {op_t(c.b, DType::Bool, "IsNaN", {x}), scalar(c.b, t, 0), x});
  if (rank_of(c, "self") == 0)
    return c.set_out(0, x);
  c.set_out(0, reduce_sum(c.b, x, dims_arg(c, "dim"), c.arg<bool>("keepdim", false)));
}

// nanmean(self, dim?, keepdim, *, dtype): the mean of the non-NaN elements.
void aten_nanmean(ConvertCtx &c) {
  DType t = out_dtype(c);
  Val x = cast_to(c.b, c.tensor("self"), t);
  if (rank_of(c, "self") == 0)
    return c.set_out(0, x);
  Val nan = op_t(c.b, DType::Bool, "IsNaN", {x});
  Val zeroed = op_t(c.b, t, "Where", {nan, scalar(c.b, t, 0), x});
  std::vector<int64_t> axes = dims_arg(c, "dim");
  bool keepdim = c.arg<bool>("keepdim", false);
  Val count = reduce_sum(c.b, cast_to(c.b, op_t(c.b, DType::Bool, "Not", {nan}), t), axes, keepdim);
  c.set_out(0, c.b.op1("Div", {reduce_sum(c.b, zeroed, axes, keepdim), count}));
}

// trace(self): the sum of the main diagonal of a matrix (int64 for integer inputs).
void aten_trace(ConvertCtx &c) {
  T2O_CHECK(rank_of(c, "self") == 2, "trace expects a matrix, got {}", c.info("self").str());
  int64_t rows = static_dim(c, "self", 0), cols = static_dim(c, "self", 1);
  std::vector<int64_t> idx;
  for (int64_t i = 0; i < std::min(rows, cols); ++i)
    idx.push_back(i * (cols + 1));
  DType t = out_dtype(c);
  Val flat = reshape(c.b, cast_to(c.b, c.tensor("self"), t), {-1});
  Val diag = c.b.op1("Gather", {flat, c.b.const_i64(idx)}, {{"axis", int64_t{0}}});
  c.set_out(0, reduce_sum(c.b, diag, {0}, false));
}

// dist(self, other, p): the p-norm of self - other.
void aten_dist(ConvertCtx &c) {
  DType t = float_compute(out_dtype(c));
  Val d =
      op_t(c.b, t, "Sub", {cast_to(c.b, c.tensor("self"), t), cast_to(c.b, c.tensor("other"), t)});
  set_result(c, pnorm(c.b, d, c.arg<double>("p", 2.0), {}, false));
}

// renorm(self, p, dim, maxnorm): each slice along dim whose p-norm exceeds maxnorm is scaled to
// maxnorm (by maxnorm / (norm + 1e-7), as LibTorch).
void aten_renorm(ConvertCtx &c) {
  DType t = float_compute(out_dtype(c));
  Val x = cast_to(c.b, c.tensor("self"), t);
  int64_t r = rank_of(c, "self");
  int64_t d = norm_axis(c.arg<int64_t>("dim"), r);
  std::vector<int64_t> axes;
  for (int64_t a = 0; a < r; ++a)
    if (a != d)
      axes.push_back(a);
  Val norm =
      axes.empty() ? op_t(c.b, t, "Abs", {x}) : pnorm(c.b, x, c.arg<double>("p"), axes, true);
  if (axes.empty() && c.arg<double>("p") == 0.0)
    norm =
        cast_to(c.b, op_t(c.b, DType::Bool, "Not", {c.b.op1("Equal", {x, scalar(c.b, t, 0)})}), t);
  Val maxnorm = scalar(c.b, t, c.arg<double>("maxnorm"));
  Val scale = c.b.op1("Div", {maxnorm, c.b.op1("Add", {norm, scalar(c.b, t, 1e-7)})});
  Val over = op_t(c.b, DType::Bool, "Greater", {norm, maxnorm});
  Val factor = op_t(c.b, t, "Where", {over, scale, scalar(c.b, t, 1)});
  set_result(c, c.b.op1("Mul", {x, factor}));
}

// norm_except_dim(v, pow, dim): the norm over every dim but `dim`, kept as size-1 dims; dim -1
// is the norm of the whole tensor (0-d), as in LibTorch.
void aten_norm_except_dim(ConvertCtx &c) {
  DType t = float_compute(out_dtype(c));
  Val v = cast_to(c.b, c.tensor("v"), t);
  int64_t r = c.info("v").rank();
  T2O_CHECK(r >= 0, "norm_except_dim needs the rank of its input");
  double p = static_cast<double>(c.arg<int64_t>("pow", 2));
  int64_t dim = c.arg<int64_t>("dim", 0);
  if (dim == -1)
    return set_result(c, pnorm(c.b, v, p, {}, false));
  std::vector<int64_t> axes;
  for (int64_t a = 0; a < r; ++a)
    if (a != dim)
      axes.push_back(a);
  set_result(c, axes.empty() ? op_t(c.b, t, "Abs", {v}) : pnorm(c.b, v, p, axes, true));
}

namespace {

// y[1:] + y[:-1] along d, and the slices' difference of x (or nothing) for the trapezoid rules.
Val pair_sums(GraphBuilder &b, const Val &y, int64_t d) {
  auto part = [&](int64_t from, int64_t to) {
    return b.op1("Slice", {y, b.const_i64({from}), b.const_i64({to}), b.const_i64({d})});
  };
  return b.op1("Add", {part(1, INT64_MAX), part(0, -1)});
}

// The spacing between samples: diff(x) along d (a 1-D x is laid along d), or the scalar dx.
Val spacing(ConvertCtx &c, DType t, int64_t d, int64_t r) {
  if (!c.takes("x")) {
    double dx = c.arg<double>("dx", 1.0);
    return scalar(c.b, t, dx);
  }
  Val x = cast_to(c.b, c.tensor("x"), t);
  int64_t xd = d;
  if (c.info("x").rank() == 1 && r != 1) {
    std::vector<int64_t> shape(r, 1);
    shape[d] = -1;
    x = reshape(c.b, x, shape);
  }
  auto part = [&](int64_t from, int64_t to) {
    return c.b.op1("Slice", {x, c.b.const_i64({from}), c.b.const_i64({to}), c.b.const_i64({xd})});
  };
  return c.b.op1("Sub", {part(1, INT64_MAX), part(0, -1)});
}

// The areas of the trapezoids between neighbouring samples along `dim`.
Val trapezoids(ConvertCtx &c, DType t, int64_t &d) {
  int64_t r = c.info("y").rank();
  T2O_CHECK(r >= 1, "{} needs a tensor of rank >= 1", c.op());
  d = norm_axis(c.arg<int64_t>("dim", -1), r);
  Val y = cast_to(c.b, c.tensor("y"), t);
  Val area = c.b.op1("Mul", {pair_sums(c.b, y, d), spacing(c, t, d, r)});
  return c.b.op1("Div", {area, scalar(c.b, t, 2)});
}

} // namespace

// trapezoid(y, x, *, dim) / trapezoid.dx(y, *, dx, dim) and trapz: the trapezoid rule.
void aten_trapezoid(ConvertCtx &c) {
  DType t = float_compute(out_dtype(c));
  int64_t d = 0;
  Val a = trapezoids(c, t, d);
  set_result(c, reduce_sum(c.b, a, {d}, false));
}

// cumulative_trapezoid: the running sums of the trapezoid areas.
void aten_cumulative_trapezoid(ConvertCtx &c) {
  DType t = float_compute(out_dtype(c));
  int64_t d = 0;
  Val a = trapezoids(c, t, d);
  set_result(c, c.b.op1("CumSum", {a, c.b.const_i64_scalar(d)}));
}

namespace {

// cov of a [vars, obs] matrix (a 1-D input is one variable) as LibTorch computes it:
// weights w = fweights * aweights, avg = sum(x w) / sum(w), norm = sum(w) - correction *
// (aweights ? sum(w aweights) / sum(w) : 1), clamped at 0; cov = (x - avg) (x - avg)^T w / norm.
Val covariance(ConvertCtx &c, const Val &x2, DType t) {
  GraphBuilder &b = c.b;
  bool has_f = c.takes("fweights") && c.has("fweights");
  bool has_a = c.takes("aweights") && c.has("aweights");
  Val w;
  if (has_f)
    w = cast_to(b, c.tensor("fweights"), t);
  if (has_a)
    w = w.valid() ? b.op1("Mul", {w, cast_to(b, c.tensor("aweights"), t)})
                  : cast_to(b, c.tensor("aweights"), t);
  double corr = c.takes("correction") ? static_cast<double>(c.arg<int64_t>("correction", 1)) : 1;
  Val avg, wsum;
  if (w.valid()) {
    wsum = reduce_sum(b, w, {0}, false);
    avg = b.op1("Div", {reduce_sum(b, b.op1("Mul", {x2, w}), {1}, true), wsum});
  } else {
    avg = stats_reduce(b, "ReduceMean", x2, {1}, true);
    wsum = cast_to(b, dim_scalar(b, x2, 1), t);
  }
  Val norm;
  if (has_a) {
    Val aw = reduce_sum(b, b.op1("Mul", {w, cast_to(b, c.tensor("aweights"), t)}), {0}, false);
    norm = b.op1("Sub", {wsum, b.op1("Mul", {scalar(b, t, corr), b.op1("Div", {aw, wsum})})});
  } else {
    norm = b.op1("Sub", {wsum, scalar(b, t, corr)});
  }
  norm = b.op1("Max", {norm, scalar(b, t, 0)});
  Val xm = b.op1("Sub", {x2, avg});
  Val xw = w.valid() ? b.op1("Mul", {xm, w}) : xm;
  Val prod = b.op1("MatMul", {xm, transpose(b, xw, {1, 0})});
  return b.op1("Div", {prod, norm});
}

Val as_matrix(ConvertCtx &c, DType t) {
  int64_t r = rank_of(c, "self");
  T2O_CHECK(r <= 2, "{} expects a tensor of at most 2 dims, got {}", c.op(), c.info("self").str());
  Val x = cast_to(c.b, c.tensor("self"), t);
  return r == 2 ? x : reshape(c.b, x, {1, -1});
}

} // namespace

// cov(self, *, correction, fweights?, aweights?): 2-D [vars, obs] gives [vars, vars]; a single
// variable gives a 0-d result.
void aten_cov(ConvertCtx &c) {
  DType t = float_compute(out_dtype(c));
  Val cv = covariance(c, as_matrix(c, t), t);
  set_result(c,
             rank_of(c, "self") == 2 && static_dim(c, "self", 0) != 1 ? cv : reshape(c.b, cv, {}));
}

// corrcoef(self): cov normalised by the standard deviations, clipped to [-1, 1].
void aten_corrcoef(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  DType t = float_compute(out_dtype(c));
  Val cv = covariance(c, as_matrix(c, t), t);
  bool single = rank_of(c, "self") < 2 || static_dim(c, "self", 0) == 1;
  if (single)
    return set_result(c, reshape(b, b.op1("Div", {cv, cv}), {}));
  int64_t n = static_dim(c, "self", 0);
  std::vector<bool> eye(static_cast<size_t>(n * n));
  for (int64_t i = 0; i < n; ++i)
    eye[i * n + i] = true;
  Val e = b.constant(TensorData::boolean(eye, {n, n}), "eye");
  Val diag = reduce_sum(b, op_t(b, t, "Where", {e, cv, scalar(b, t, 0)}), {1}, false);
  Val sd = b.op1("Sqrt", {diag});
  Val r = b.op1("Div", {b.op1("Div", {cv, unsqueeze(b, sd, {1})}), unsqueeze(b, sd, {0})});
  set_result(c, b.op1("Clip", {r, scalar(b, t, -1), scalar(b, t, 1)}));
}

void register_statistics_ops(Registry &r) {
  r.add_with_inplace("aten::cumprod", 11, aten_cumprod,
                     {"Where", "ReduceProd", "Unsqueeze", "Cast", "Shape", "Gather", "Range",
                      "Greater", "Reshape"});
  r.add("aten::cummax", 11, aten_cummax,
        {"Where", "ReduceMax", "ReduceMin", "Unsqueeze", "Squeeze", "Equal", "And", "Not", "Cast",
         "Shape", "Gather", "Range", "Greater", "Reshape"});
  r.add("aten::cummin", 11, aten_cummax,
        {"Where", "ReduceMin", "ReduceMax", "Unsqueeze", "Squeeze", "Equal", "And", "Not", "Cast",
         "Shape", "Gather", "Range", "Greater", "Reshape"});
  r.add("aten::count_nonzero", 11, aten_count_nonzero, {"Equal", "Not", "Cast", "ReduceSum"});
  r.add("aten::diff", 11, aten_diff, {"Slice", "Sub", "Xor", "Concat", "Cast"});
  r.add("aten::nansum", 11, aten_nansum, {"IsNaN", "Where", "ReduceSum", "Cast"});
  r.add("aten::nanmean", 11, aten_nanmean, {"IsNaN", "Where", "ReduceSum", "Not", "Div", "Cast"});
  r.add("aten::trace", 11, aten_trace, {"Reshape", "Gather", "ReduceSum", "Cast"});
  r.add("aten::dist", 11, aten_dist,
        {"Sub", "ReduceL2", "ReduceL1", "ReduceMax", "ReduceMin", "ReduceSum", "Abs", "Pow",
         "Equal", "Not", "Cast"});
  r.add_with_inplace("aten::renorm", 11, aten_renorm,
                     {"ReduceL2", "ReduceL1", "ReduceMax", "ReduceMin", "ReduceSum", "Abs", "Pow",
                      "Equal", "Not", "Cast", "Div", "Add", "Greater", "Where", "Mul"});
  r.add("aten::norm_except_dim", 11, aten_norm_except_dim,
        {"ReduceL2", "ReduceL1", "ReduceMax", "ReduceMin", "ReduceSum", "Abs", "Pow", "Equal",
         "Not", "Cast"});
  const std::vector<std::string> trapezoid_ops{"Slice", "Add",       "Sub",     "Mul",
                                               "Div",   "ReduceSum", "Reshape", "Cast"};
  r.add("aten::trapezoid", 11, aten_trapezoid, trapezoid_ops);
  r.add("aten::trapz", 11, aten_trapezoid, trapezoid_ops);
  r.add("aten::cumulative_trapezoid", 11, aten_cumulative_trapezoid,
        {"Slice", "Add", "Sub", "Mul", "Div", "CumSum", "Reshape", "Cast"});
  r.add("aten::cov", 11, aten_cov,
        {"ReduceSum", "ReduceMean", "Mul", "Div", "Sub", "Max", "MatMul", "Transpose", "Reshape",
         "Shape", "Gather", "Cast"});
  r.add("aten::corrcoef", 11, aten_corrcoef,
        {"ReduceSum", "ReduceMean", "Mul", "Div", "Sub", "Max", "MatMul", "Transpose", "Reshape",
         "Shape", "Gather", "Cast", "Where", "Sqrt", "Unsqueeze", "Clip"});
}

} // namespace torch2onnx
