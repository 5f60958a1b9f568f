// Reductions: aten::sum, mean, amax, max, argmax, std, var, norm, logsumexp, all, any, cumsum.
// ReduceSum takes axes as an input from opset 13; the other Reduce* ops keep the `axes`
// attribute until opset 18, which is above the range we target.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace torch2onnx {

namespace {

// Normalised reduction axes; an absent or empty dim list means all dims (empty result).
std::vector<int64_t> reduce_axes(const ConvertCtx &c, const Arg &dims) {
  if (dims.is_none())
    return {};
  int64_t r = c.info(0).rank();
  T2O_CHECK(r >= 0, "{} needs the rank of its input, which is unknown", c.op());
  std::vector<int64_t> axes = dims.to_ints();
  for (auto &a : axes)
    a = norm_axis(a, r);
  return axes;
}

// One Reduce* node. Axes empty = all dims. A 0-d input has nothing to reduce.
Val reduce(GraphBuilder &b, const std::string &op, const Val &x, const std::vector<int64_t> &axes,
           bool keepdim) {
  if (b.has_info(x) && b.rank(x) == 0)
    return x;
  std::vector<Attr> attrs = {{"keepdims", keepdim}};
  if (op == "ReduceSum") {
    std::vector<Val> ins = {x};
    if (!axes.empty())
      ins.push_back(b.const_i64(axes));
    return b.op1(op, ins, attrs);
  }
  if (!axes.empty())
    attrs.push_back({"axes", axes});
  return b.op1(op, {x}, attrs);
}

// The dtype the reduction computes in: the output dtype (which reflects a dtype= argument and
// LibTorch's promotion of integer sums to int64).
Val input_as_out_dtype(ConvertCtx &c) {
  return cast_to(c.b, c.tensor(0), out_dtype(c));
}

// sum/mean/prod share the layout (self, dims?, keepdim, *, dtype) with a no-dim overload
// (self, *, dtype). prod.dim_int takes a single int.
void reduce_with_dtype(ConvertCtx &c, const std::string &op) {
  bool has_dims = c.num_inputs() >= 4;
  std::vector<int64_t> axes = has_dims ? reduce_axes(c, c.in(1)) : std::vector<int64_t>{};
  bool keepdim = has_dims && c.in(2).to_bool();
  c.set_out(0, reduce(c.b, op, input_as_out_dtype(c), axes, keepdim));
}

} // namespace

void aten_sum(ConvertCtx &c) {
  reduce_with_dtype(c, "ReduceSum");
}
void aten_mean(ConvertCtx &c) {
  reduce_with_dtype(c, "ReduceMean");
}
void aten_prod(ConvertCtx &c) {
  reduce_with_dtype(c, "ReduceProd");
}

void aten_logsumexp(ConvertCtx &c) {
  Val x = cast_to(c.b, c.tensor(0), out_dtype(c)); // integer inputs give floats in LibTorch
  c.set_out(0, reduce(c.b, "ReduceLogSumExp", x, reduce_axes(c, c.in(1)), c.bool_or(2, false)));
}

void aten_amax(ConvertCtx &c) {
  std::string op = c.op() == "aten::amax" ? "ReduceMax" : "ReduceMin";
  c.set_out(0, reduce(c.b, op, c.tensor(0), reduce_axes(c, c.in(1)), c.bool_or(2, false)));
}

// max(self) / max.dim(self, dim, keepdim) -> (values, indices) / max.other(self, other).
void aten_max(ConvertCtx &c) {
  bool is_max = c.op() == "aten::max";
  if (c.in(1).is_tensor()) { // elementwise, with LibTorch's type promotion
    DType dt = out_dtype(c);
    c.set_out(0, c.b.op1(is_max ? "Max" : "Min",
                         {cast_to(c.b, c.tensor(0), dt), cast_to(c.b, c.tensor(1), dt)}));
    return;
  }
  std::string op = is_max ? "ReduceMax" : "ReduceMin";
  if (c.num_inputs() == 1)
    return c.set_out(0, reduce(c.b, op, c.tensor(0), {}, false));
  std::vector<int64_t> axes = reduce_axes(c, c.in(1));
  bool keepdim = c.bool_or(2, false);
  if (c.info(0).rank() == 0) {
    c.set_out(0, c.tensor(0));
    c.set_out(1, c.b.const_i64_scalar(0));
    return;
  }
  c.set_out(0, reduce(c.b, op, c.tensor(0), axes, keepdim));
  c.set_out(1, c.b.op1(is_max ? "ArgMax" : "ArgMin", {c.tensor(0)},
                       {{"axis", axes[0]}, {"keepdims", keepdim}}));
}

// argmax(self, dim?, keepdim): no dim means the index into the flattened tensor.
void aten_argmax(ConvertCtx &c) {
  std::string op = c.op() == "aten::argmax" ? "ArgMax" : "ArgMin";
  bool keepdim = c.bool_or(2, false);
  int64_t r = c.info(0).rank();
  if (c.has(1) && r > 0) {
    int64_t axis = norm_axis(c.in(1).to_int(), r);
    c.set_out(0, c.b.op1(op, {c.tensor(0)}, {{"axis", axis}, {"keepdims", keepdim}}));
    return;
  }
  Val flat = reshape(c.b, c.tensor(0), {-1});
  Val idx = c.b.op1(op, {flat}, {{"axis", int64_t{0}}, {"keepdims", false}});
  if (keepdim && r > 0)
    idx = reshape(c.b, idx, std::vector<int64_t>(r, 1));
  c.set_out(0, idx);
}

// var/std: var(self, unbiased) / var.dim(self, dim, unbiased, keepdim) /
// var.correction(self, dim, *, correction, keepdim). .dim and .correction differ in the kind of
// argument 2 (bool vs int/None).
void aten_var(ConvertCtx &c) {
  bool is_std = c.op() == "aten::std";
  std::vector<int64_t> axes;
  double correction = 1;
  bool keepdim = false;
  if (c.num_inputs() == 2) {
    correction = c.in(1).to_bool() ? 1 : 0;
  } else {
    axes = reduce_axes(c, c.in(1));
    if (c.in(2).kind == Arg::Kind::Bool)
      correction = c.in(2).to_bool() ? 1 : 0;
    else if (c.has(2))
      correction = c.in(2).to_double();
    keepdim = c.bool_or(3, false);
  }
  GraphBuilder &b = c.b;
  DType dt = out_dtype(c);
  Val x = cast_to(b, c.tensor(0), dt);
  Val mean = reduce(b, "ReduceMean", x, axes, true);
  Val diff = b.op1("Sub", {x, mean});
  Val sq_sum = reduce(b, "ReduceSum", b.op1("Mul", {diff, diff}), axes, keepdim);
  // Element count per reduced slice: static when the shape is, else Size(x) / Size(mean).
  Val count;
  const TensorInfo &info = c.info(0);
  if (info.is_static()) {
    int64_t n = 1;
    auto sizes = info.sizes();
    for (size_t i = 0; i < sizes.size(); ++i)
      if (axes.empty() ||
          std::find(axes.begin(), axes.end(), static_cast<int64_t>(i)) != axes.end())
        n *= sizes[i];
    count = b.const_scalar(dt, static_cast<double>(n) - correction);
  } else {
    Val n = b.op1("Div", {b.op1("Size", {x}), b.op1("Size", {mean})});
    count = b.op1("Sub", {b.op1("Cast", {n}, {{"to", static_cast<int64_t>(dt)}}),
                          b.const_scalar(dt, correction)});
  }
  Val var = b.op1("Div", {sq_sum, count});
  c.set_out(0, is_std ? b.op1("Sqrt", {var}) : var);
}

// norm(self, p?, [dim, keepdim], [dtype]) and linalg_vector_norm(self, ord, dim?, keepdim, dtype).
void aten_norm(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  double p = c.double_or(1, 2.0);
  std::vector<int64_t> axes;
  bool keepdim = false;
  bool has_dim = c.in(2).is_list() || (c.op() == "aten::linalg_vector_norm" && c.has(2));
  if (has_dim) {
    axes = reduce_axes(c, c.in(2));
    keepdim = c.bool_or(3, false);
  }
  Val x = cast_to(b, c.tensor(0), out_dtype(c));
  Val y;
  if (p == 2.0) {
    y = reduce(b, "ReduceL2", x, axes, keepdim);
  } else if (p == 1.0) {
    y = reduce(b, "ReduceL1", x, axes, keepdim);
  } else if (std::isinf(p)) {
    y = reduce(b, p > 0 ? "ReduceMax" : "ReduceMin", b.op1("Abs", {x}), axes, keepdim);
  } else if (p == 0.0) {
    Val nz = b.op1("Not", {b.op1("Equal", {x, b.const_scalar(b.dtype(x), 0)})});
    y = reduce(b, "ReduceSum", cast_to(b, nz, b.dtype(x)), axes, keepdim);
  } else {
    DType dt = b.dtype(x);
    Val pw = b.op1("Pow", {b.op1("Abs", {x}), b.const_scalar(dt, p)});
    y = b.op1("Pow", {reduce(b, "ReduceSum", pw, axes, keepdim), b.const_scalar(dt, 1.0 / p)});
  }
  c.set_out(0, y);
}

// all/any: no boolean reductions in ONNX, so reduce 0/1 as int32 with Min/Max.
void aten_all(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  bool is_all = c.op() == "aten::all";
  std::vector<int64_t> axes;
  bool keepdim = false;
  if (c.num_inputs() >= 2) {
    axes = reduce_axes(c, c.in(1));
    keepdim = c.bool_or(2, false);
    if (c.in(1).is_none())
      axes.clear();
  }
  Val flags = cast_to(b, cast_to(b, c.tensor(0), DType::Bool), DType::Int32);
  Val red = reduce(b, is_all ? "ReduceMin" : "ReduceMax", flags, axes, keepdim);
  DType dt = out_dtype(c);
  c.set_out(0, cast_to(b, red, dt == DType::Undefined ? DType::Bool : dt));
}

void aten_cumsum(ConvertCtx &c) {
  int64_t axis = norm_axis(c.in(1).to_int(), c.info(0).rank());
  Val x = input_as_out_dtype(c);
  if (c.info(0).rank() == 0)
    return c.set_out(0, x);
  c.set_out(0, c.b.op1("CumSum", {x, c.b.const_i64_scalar(axis)}));
}

void register_reduce_ops(Registry &r) {
  r.add("aten::sum", 11, aten_sum, {"ReduceSum"});
  r.add("aten::mean", 11, aten_mean, {"ReduceMean"});
  r.add("aten::prod", 11, aten_prod, {"ReduceProd"});
  r.add("aten::amax", 11, aten_amax, {"ReduceMax"});
  r.add("aten::amin", 11, aten_amax, {"ReduceMin"});
  r.add("aten::max", 11, aten_max, {"ReduceMax", "ArgMax", "Max"});
  r.add("aten::min", 11, aten_max, {"ReduceMin", "ArgMin", "Min"});
  r.add("aten::argmax", 11, aten_argmax, {"ArgMax"});
  r.add("aten::argmin", 11, aten_argmax, {"ArgMin"});
  r.add("aten::var", 11, aten_var, {"ReduceMean", "ReduceSum", "Div"});
  r.add("aten::std", 11, aten_var, {"ReduceMean", "ReduceSum", "Div", "Sqrt"});
  r.add("aten::norm", 11, aten_norm, {"ReduceL2", "ReduceL1", "ReduceSum", "Pow"});
  r.add("aten::linalg_vector_norm", 11, aten_norm, {"ReduceL2", "ReduceL1", "ReduceSum", "Pow"});
  r.add("aten::logsumexp", 11, aten_logsumexp, {"ReduceLogSumExp"});
  r.add("aten::all", 11, aten_all, {"ReduceMin", "Cast"});
  r.add("aten::any", 11, aten_all, {"ReduceMax", "Cast"});
  r.add_with_inplace("aten::cumsum", 11, aten_cumsum, {"CumSum"});
}

} // namespace torch2onnx
