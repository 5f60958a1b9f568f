// Products beyond matmul: inner, vdot, kron, chain_matmul / linalg_multi_dot, linalg_matmul,
// linalg_vecdot, and the Vandermonde matrices (vander, linalg_vander).
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

#include <algorithm>

namespace torch2onnx {

namespace {

// Floats compute in float/double (half types in float); integers in int64, which MatMul and the
// reductions have kernels for.
DType compute_type(DType t) {
  if (t == DType::Double)
    return t;
  return is_floating(t) ? DType::Float : DType::Int64;
}

Val in_k(const ConvertCtx &c, const char *name, DType k) {
  return cast_to(c.b, c.tensor(name), k);
}

} // namespace

// inner(self, other): the sum over the last dims, [a..., k] x [b..., k] -> [a..., b...] (a product
// when either is 0-d). Both are flattened to matrices, multiplied and reshaped back.
void aten_inner(ConvertCtx &c) {
  DType k = compute_type(out_dtype(c));
  GraphBuilder &b = c.b;
  Val x = in_k(c, "self", k), y = in_k(c, "other", k);
  int64_t rx = rank_of(c, "self"), ry = rank_of(c, "other");
  if (rx == 0 || ry == 0) {
    set_result(c, op_t(b, k, "Mul", {x, y}));
    return;
  }
  // other's last dim moved first, then [k, B]: a Transpose feeding the MatMul directly would be
  // fused by ONNX Runtime into FusedMatMul, which has no float64 kernel.
  std::vector<int64_t> perm = {ry - 1};
  for (int64_t i = 0; i + 1 < ry; ++i)
    perm.push_back(i);
  Val x2 = op_t(b, k, "Flatten", {x}, {{"axis", rx - 1}});
  Val y2 = op_t(b, k, "Flatten", {transpose(b, y, perm)}, {{"axis", int64_t{1}}});
  Val m = op_t(b, k, "MatMul", {x2, y2});
  Val shape =
      b.op1("Concat", {dims_of(b, x, 0, rx - 1), dims_of(b, y, 0, ry - 1)}, {{"axis", int64_t{0}}});
  set_result(c, op_t(b, k, "Reshape", {m, shape}));
}

// vdot(self, other): dot of 1-D tensors (the conjugate of self is itself for real tensors).
void aten_vdot(ConvertCtx &c) {
  c.forward_to("aten::dot");
}

// linalg_matmul(self, other) is matmul.
void aten_linalg_matmul(ConvertCtx &c) {
  c.forward_to("aten::matmul");
}

// kron(self, other): both padded to the same rank r with leading 1s, interleaved as
// [a0, 1, a1, 1, ...] * [1, b0, 1, b1, ...] and reshaped to [a0 b0, a1 b1, ...].
void aten_kron(ConvertCtx &c) {
  DType k = compute_type(out_dtype(c));
  GraphBuilder &b = c.b;
  int64_t ra = rank_of(c, "self"), rb = rank_of(c, "other"), r = std::max(ra, rb);
  auto padded = [&](const char *name, int64_t rank) {
    Val v = in_k(c, name, k);
    return rank < r ? unsqueeze(b, v, int_range(0, r - rank)) : v;
  };
  Val a = padded("self", ra), o = padded("other", rb);
  if (r == 0) {
    set_result(c, op_t(b, k, "Mul", {a, o}));
    return;
  }
  std::vector<int64_t> odd, even;
  for (int64_t i = 0; i < r; ++i) {
    odd.push_back(2 * i + 1);
    even.push_back(2 * i);
  }
  Val prod = op_t(b, k, "Mul", {unsqueeze(b, a, odd), unsqueeze(b, o, even)});
  Val shape = b.op1("Mul", {shape_of(b, a), shape_of(b, o)});
  set_result(c, op_t(b, k, "Reshape", {prod, shape}));
}

// chain_matmul(Tensor[] matrices) / linalg_multi_dot(Tensor[] tensors): left to right (MatMul
// takes multi_dot's 1-D first and last operands as numpy does).
void aten_linalg_multi_dot(ConvertCtx &c) {
  DType k = compute_type(out_dtype(c));
  const auto &items = c.list(c.takes("matrices") ? "matrices" : "tensors");
  T2O_CHECK(!items.empty(), "{} needs at least one tensor", c.op());
  Val y = cast_to(c.b, items[0].t(), k);
  if (items.size() == 1)
    y = op_t(c.b, k, "Identity", {y});
  for (size_t i = 1; i < items.size(); ++i)
    y = op_t(c.b, k, "MatMul", {y, cast_to(c.b, items[i].t(), k)});
  set_result(c, y);
}

// linalg_vecdot(x, y, *, int dim=-1): sum(x * y, dim) on the broadcast operands.
void aten_linalg_vecdot(ConvertCtx &c) {
  DType k = compute_type(out_dtype(c));
  int64_t rank = std::max(rank_of(c, "x"), rank_of(c, "y"));
  int64_t dim = norm_axis(c.arg<int64_t>("dim", -1), rank);
  Val p = op_t(c.b, k, "Mul", {in_k(c, "x", k), in_k(c, "y", k)});
  set_result(c, op_t(c.b, k, "ReduceSum", {p, c.b.const_i64({dim})}, {{"keepdims", 0}}));
}

// vander(x, int? N=None, bool increasing=False): [n] -> [n, N], columns x^(N-1) ... x^0 (or
// increasing); linalg_vander(x, *, int? N=None): [..., n] -> [..., n, N], increasing. The
// powers are running products, as ATen's cumprod.
void aten_vander(ConvertCtx &c) {
  DType k = compute_type(out_dtype(c));
  GraphBuilder &b = c.b;
  int64_t rank = rank_of(c, "x");
  T2O_CHECK(rank >= 1, "{}: x must have at least one dim", c.op());
  int64_t n = c.has("N") ? c.arg<int64_t>("N") : static_dim(c, "x", rank - 1);
  T2O_CHECK(n > 0, "{}: N must be positive, got {}", c.op(), n);
  bool increasing = c.takes("increasing") ? c.arg<bool>("increasing", false) : true;
  Val x = unsqueeze(b, in_k(c, "x", k), {-1});
  std::vector<Val> cols = {op_t(b, k, "Expand", {scalar(b, k, 1), shape_of(b, x)})};
  for (int64_t j = 1; j < n; ++j)
    cols.push_back(j == 1 ? x : op_t(b, k, "Mul", {cols.back(), x}));
  if (!increasing)
    std::reverse(cols.begin(), cols.end());
  Val y = cols.size() == 1 ? cols[0] : op_t(b, k, "Concat", cols, {{"axis", int64_t{-1}}});
  set_result(c, y);
}

void register_products_ops(Registry &r) {
  r.add("aten::inner", 11, aten_inner,
        {"Mul", "Flatten", "MatMul", "Transpose", "Shape", "Slice", "Concat", "Reshape"});
  r.add("aten::vdot", 11, aten_vdot, {"MatMul"});
  r.add("aten::linalg_matmul", 11, aten_linalg_matmul, {"MatMul"});
  r.add("aten::kron", 11, aten_kron, {"Unsqueeze", "Mul", "Shape", "Reshape"});
  r.add("aten::chain_matmul", 11, aten_linalg_multi_dot, {"Identity", "MatMul"});
  r.add("aten::linalg_multi_dot", 11, aten_linalg_multi_dot, {"Identity", "MatMul"});
  r.add("aten::linalg_vecdot", 11, aten_linalg_vecdot, {"Mul", "ReduceSum"});
  r.add("aten::vander", 11, aten_vander, {"Unsqueeze", "Expand", "Shape", "Mul", "Concat"});
  r.add("aten::linalg_vander", 11, aten_vander, {"Unsqueeze", "Expand", "Shape", "Mul", "Concat"});
}

} // namespace torch2onnx
