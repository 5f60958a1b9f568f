// Reductions: aten::sum, mean, amax, max, argmax, std, var, norm, logsumexp, all, any, cumsum.
// Converters write ReduceSum with its axes as an input and the other Reduce* ops with the `axes`
// attribute; the builder writes each in the form of the target opset (axes attributes below 13,
// inputs from 18: builder/opset_forms.cpp).
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
  int64_t r = c.info("self").rank();
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

// ReduceMax/ReduceMin of x; 8-bit integers below opset 12 (which ReduceMax/Min take from there)
// are reduced in int32 and cast back (uint8 images: img.amax(-1)).
Val reduce_extreme(GraphBuilder &b, const std::string &op, const Val &x,
                   const std::vector<int64_t> &axes, bool keepdim) {
  DType t = b.has_info(x) ? b.dtype(x) : DType::Float;
  if (b.opset() >= 12 || (t != DType::UInt8 && t != DType::Int8))
    return reduce(b, op, x, axes, keepdim);
  return cast_to(b, reduce(b, op, cast_to(b, x, DType::Int32), axes, keepdim), t);
}

// The dtype the reduction computes in: the output dtype (which reflects a dtype= argument and
// LibTorch's promotion of integer sums to int64).
Val input_as_out_dtype(ConvertCtx &c) {
  return cast_to(c.b, c.tensor("self"), out_dtype(c));
}

// sum/mean/prod share the layout (self, dim?, keepdim, *, dtype) with a no-dim overload
// (self, *, dtype). prod.dim_int takes a single int.
void reduce_with_dtype(ConvertCtx &c, const std::string &op) {
  bool has_dims = c.takes("dim");
  std::vector<int64_t> axes = has_dims ? reduce_axes(c, c.arg("dim")) : std::vector<int64_t>{};
  bool keepdim = has_dims && c.arg<bool>("keepdim");
  c.set_out(0, reduce(c.b, op, input_as_out_dtype(c), axes, keepdim));
}

} // namespace

void aten_sum(ConvertCtx &c) {
  reduce_with_dtype(c, "ReduceSum");
}
// mean: ReduceMean, except over a dim that may be empty (0 at export, or a data-dependent count
// like scores[scores > t].mean()): sum / count there, NaN for no elements as in LibTorch (ONNX
// Runtime's ReduceMean of nothing is 0).
void aten_mean(ConvertCtx &c) {
  const TensorInfo &info = c.info("self");
  bool has_dims = c.takes("dim");
  std::vector<int64_t> axes = has_dims ? reduce_axes(c, c.arg("dim")) : std::vector<int64_t>{};
  bool maybe_empty = false;
  for (int64_t i = 0; info.shape && i < info.rank(); ++i) {
    const Dim &d = (*info.shape)[static_cast<size_t>(i)];
    bool reduced = axes.empty() || std::find(axes.begin(), axes.end(), i) != axes.end();
    maybe_empty =
        maybe_empty ||
        (reduced && ((d.is_static() && d.value == 0) || (!d.is_static() && d.symbol.empty())));
  }
  if (!maybe_empty || info.rank() == 0)
    return reduce_with_dtype(c, "ReduceMean");
  GraphBuilder &b = c.b;
  bool keepdim = has_dims && c.arg<bool>("keepdim");
  Val x = input_as_out_dtype(c);
  DType t = out_dtype(c);
  Val kept = reduce(b, "ReduceSum", x, axes, true);
  // In float: a non-reduced dim of 0 makes both sizes 0 (an empty result; no integer 0 / 0).
  Val count =
      b.op1("Div", {cast_to(b, b.op1("Size", {x}), t), cast_to(b, b.op1("Size", {kept}), t)});
  Val sum = keepdim ? kept : reduce(b, "ReduceSum", x, axes, false);
  c.set_out(0, b.op1("Div", {sum, count}));
}
void aten_prod(ConvertCtx &c) {
  reduce_with_dtype(c, "ReduceProd");
}

void aten_logsumexp(ConvertCtx &c) {
  Val x = cast_to(c.b, c.tensor("self"), out_dtype(c)); // integer inputs give floats in LibTorch
  c.set_out(0, reduce(c.b, "ReduceLogSumExp", x, reduce_axes(c, c.arg("dim")),
                      c.arg<bool>("keepdim", false)));
}

void aten_amax(ConvertCtx &c) {
  std::string op = c.op() == "aten::amax" ? "ReduceMax" : "ReduceMin";
  c.set_out(0, reduce_extreme(c.b, op, c.tensor("self"), reduce_axes(c, c.arg("dim")),
                              c.arg<bool>("keepdim", false)));
}

// max(self) / max.dim(self, dim, keepdim) -> (values, indices) / max.other(self, other).
void aten_max(ConvertCtx &c) {
  bool is_max = c.op() == "aten::max";
  if (c.takes("other")) { // elementwise, with LibTorch's type promotion
    DType dt = out_dtype(c);
    // Max/Min take integers from opset 12: below, in double (exact below 2^53).
    DType k = c.b.opset() < 12 && !is_floating(dt) ? DType::Double : dt;
    Val y = c.b.op1(is_max ? "Max" : "Min",
                    {cast_to(c.b, c.tensor("self"), k), cast_to(c.b, c.tensor("other"), k)});
    c.set_out(0, cast_to(c.b, y, dt));
    return;
  }
  std::string op = is_max ? "ReduceMax" : "ReduceMin";
  if (!c.takes("dim"))
    return c.set_out(0, reduce_extreme(c.b, op, c.tensor("self"), {}, false));
  std::vector<int64_t> axes = reduce_axes(c, c.arg("dim"));
  bool keepdim = c.arg<bool>("keepdim", false);
  if (c.info("self").rank() == 0) {
    c.set_out(0, c.tensor("self"));
    c.set_out(1, c.b.const_i64_scalar(0));
    return;
  }
  c.set_out(0, reduce_extreme(c.b, op, c.tensor("self"), axes, keepdim));
  c.set_out(1, c.b.op1(is_max ? "ArgMax" : "ArgMin", {c.tensor("self")},
                       {{"axis", axes[0]}, {"keepdims", keepdim}}));
}

// argmax(self, dim?, keepdim): no dim means the index into the flattened tensor.
void aten_argmax(ConvertCtx &c) {
  std::string op = c.op() == "aten::argmax" ? "ArgMax" : "ArgMin";
  bool keepdim = c.arg<bool>("keepdim", false);
  int64_t r = c.info("self").rank();
  if (c.has("dim") && r > 0) {
    int64_t axis = norm_axis(c.arg<int64_t>("dim"), r);
    c.set_out(0, c.b.op1(op, {c.tensor("self")}, {{"axis", axis}, {"keepdims", keepdim}}));
    return;
  }
  Val flat = reshape(c.b, c.tensor("self"), {-1});
  Val idx = c.b.op1(op, {flat}, {{"axis", int64_t{0}}, {"keepdims", false}});
  if (keepdim && r > 0)
    idx = reshape(c.b, idx, std::vector<int64_t>(r, 1));
  c.set_out(0, idx);
}

// var/std: var(self, unbiased) / var.dim(self, dim, unbiased, keepdim) /
// var.correction(self, dim, *, correction, keepdim).
void aten_var(ConvertCtx &c) {
  bool is_std = c.op() == "aten::std";
  std::vector<int64_t> axes;
  double correction = 1;
  bool keepdim = false;
  if (c.takes("dim")) {
    axes = reduce_axes(c, c.arg("dim"));
    keepdim = c.arg<bool>("keepdim", false);
  }
  if (c.takes("unbiased"))
    correction = c.arg<bool>("unbiased") ? 1 : 0;
  else if (c.has("correction"))
    correction = c.arg<double>("correction");
  GraphBuilder &b = c.b;
  DType dt = out_dtype(c);
  Val x = cast_to(b, c.tensor("self"), dt);
  Val mean = reduce(b, "ReduceMean", x, axes, true);
  Val diff = b.op1("Sub", {x, mean});
  Val sq_sum = reduce(b, "ReduceSum", b.op1("Mul", {diff, diff}), axes, keepdim);
  double static_count = -1;
  // Element count per reduced slice less the correction, at least 0 (LibTorch: a correction past
  // the count gives inf): static when the shape is, else Size(x) / Size(mean).
  Val count;
  const TensorInfo &info = c.info("self");
  if (info.is_static()) {
    int64_t n = 1;
    auto sizes = info.sizes();
    for (size_t i = 0; i < sizes.size(); ++i)
      if (axes.empty() ||
          std::find(axes.begin(), axes.end(), static_cast<int64_t>(i)) != axes.end())
        n *= sizes[i];
    static_count = std::max(static_cast<double>(n) - correction, 0.0);
    count = b.const_scalar(dt, static_count);
  } else {
    Val n = b.op1("Div", {b.op1("Size", {x}), b.op1("Size", {mean})});
    count = b.op1("Sub", {b.op1("Cast", {n}, {{"to", static_cast<int64_t>(dt)}}),
                          b.const_scalar(dt, correction)});
    count = b.op1("Max", {count, b.const_scalar(dt, 0)});
  }
  // std where the count may be 0: sqrt(ss) / sqrt(count) (ONNX Runtime's Sqrt of inf is NaN,
  // LibTorch's std is inf there).
  if (is_std && (!info.is_static() || static_count == 0)) {
    c.set_out(0, b.op1("Div", {b.op1("Sqrt", {sq_sum}), b.op1("Sqrt", {count})}));
    return;
  }
  Val var = b.op1("Div", {sq_sum, count});
  c.set_out(0, is_std ? b.op1("Sqrt", {var}) : var);
}

// norm(self, p?, [dim, keepdim], [dtype]) and linalg_vector_norm(self, ord, dim?, keepdim, dtype).
void aten_norm(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  bool linalg = c.op() == "aten::linalg_vector_norm";
  double p = c.arg<double>(linalg ? "ord" : "p", 2.0);
  std::vector<int64_t> axes;
  bool keepdim = false;
  bool has_dim = c.takes("dim") && (c.arg("dim").is_list() || (linalg && c.has("dim")));
  if (has_dim) {
    axes = reduce_axes(c, c.arg("dim"));
    keepdim = c.arg<bool>("keepdim", false);
  }
  Val x = cast_to(b, c.tensor("self"), out_dtype(c));
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
  if (c.takes("dim")) {
    axes = reduce_axes(c, c.arg("dim"));
    keepdim = c.arg<bool>("keepdim", false);
  }
  Val flags = cast_to(b, cast_to(b, c.tensor("self"), DType::Bool), DType::Int32);
  Val red = reduce(b, is_all ? "ReduceMin" : "ReduceMax", flags, axes, keepdim);
  DType dt = out_dtype(c);
  c.set_out(0, cast_to(b, red, dt == DType::Undefined ? DType::Bool : dt));
}

void aten_cumsum(ConvertCtx &c) {
  int64_t axis = norm_axis(c.arg<int64_t>("dim"), c.info("self").rank());
  Val x = input_as_out_dtype(c);
  if (c.info("self").rank() == 0)
    return c.set_out(0, x);
  c.set_out(0, c.b.op1("CumSum", {x, c.b.const_i64_scalar(axis)}));
}

void register_reduce_ops(Registry &r) {
  r.add("aten::sum", 11, aten_sum, {"ReduceSum", "Cast"});
  r.add("aten::mean", 11, aten_mean, {"ReduceMean", "Cast", "ReduceSum", "Size", "Div"});
  r.add("aten::prod", 11, aten_prod, {"ReduceProd"});
  r.add("aten::amax", 11, aten_amax, {"ReduceMax", "Cast"});
  r.add("aten::amin", 11, aten_amax, {"ReduceMin", "Cast"});
  r.add("aten::max", 11, aten_max, {"ReduceMax", "ArgMax", "Max", "Cast"});
  r.add("aten::min", 11, aten_max, {"ReduceMin", "ArgMin", "Min", "Cast"});
  r.add("aten::argmax", 11, aten_argmax, {"ArgMax", "Reshape"});
  r.add("aten::argmin", 11, aten_argmax, {"ArgMin"});
  r.add("aten::var", 11, aten_var,
        {"ReduceMean", "ReduceSum", "Div", "Mul", "Sub", "Max", "Size", "Cast"});
  r.add("aten::std", 11, aten_var,
        {"ReduceMean", "ReduceSum", "Div", "Sqrt", "Mul", "Sub", "Max", "Size", "Cast"});
  r.add("aten::norm", 11, aten_norm,
        {"ReduceL2", "ReduceL1", "ReduceSum", "Pow", "Abs", "Cast", "Equal", "Not"});
  r.add("aten::linalg_vector_norm", 11, aten_norm, {"ReduceL2", "ReduceL1", "ReduceSum", "Pow"});
  r.add("aten::logsumexp", 11, aten_logsumexp, {"ReduceLogSumExp"});
  r.add("aten::all", 11, aten_all, {"ReduceMin", "Cast"});
  r.add("aten::any", 11, aten_all, {"ReduceMax", "Cast"});
  r.add_with_inplace("aten::cumsum", 11, aten_cumsum, {"CumSum", "Cast"});
}

} // namespace torch2onnx
