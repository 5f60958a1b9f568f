// Linear-algebra helpers beyond matmul: cross, tensordot, cdist, norms, det, addmv/addr/addbmm,
// bilinear, weight norm and the transposing views (mT, mH, numpy_T).
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

#include <cmath>
#include <limits>
#include <numeric>
#include <string>

namespace torch2onnx {

namespace {

// Floats compute in float/double (half types in float); integers in int64, which MatMul, Einsum
// and the reductions all have kernels for.
DType compute_type(DType t) {
  if (t == DType::Double)
    return t;
  if (is_floating(t))
    return DType::Float;
  return DType::Int64;
}

Val reduce(GraphBuilder &b, DType k, const char *op, const Val &x, std::vector<int64_t> axes,
           bool keep) {
  if (std::string(op) == "ReduceSum")
    return op_t(b, k, op, {x, b.const_i64(axes)}, {{"keepdims", keep ? 1 : 0}});
  return op_t(b, k, op, {x}, {{"axes", axes}, {"keepdims", keep ? 1 : 0}});
}

// The p-norm of x over `axes` (torch.linalg.vector_norm semantics for p = +-inf, 0, 1, 2, other).
Val vector_norm(GraphBuilder &b, DType k, const Val &x, double p, const std::vector<int64_t> &axes,
                bool keep) {
  Val ax = op_t(b, k, "Abs", {x});
  if (std::isinf(p))
    return reduce(b, k, p > 0 ? "ReduceMax" : "ReduceMin", ax, axes, keep);
  if (p == 0) {
    Val nz = op_t(b, DType::Bool, "Not", {op_t(b, DType::Bool, "Equal", {x, scalar(b, k, 0)})});
    return reduce(b, k, "ReduceSum", cast_to(b, nz, k), axes, keep);
  }
  if (p == 1)
    return reduce(b, k, "ReduceSum", ax, axes, keep);
  if (p == 2)
    return op_t(b, k, "Sqrt", {reduce(b, k, "ReduceSum", op_t(b, k, "Mul", {x, x}), axes, keep)});
  Val s = reduce(b, k, "ReduceSum", op_t(b, k, "Pow", {ax, scalar(b, k, p)}), axes, keep);
  return op_t(b, k, "Pow", {s, scalar(b, k, 1.0 / p)});
}

// Matrix norms over the axes (d0 rows, d1 columns): 'fro', and the max/min absolute column
// (ord +-1) or row (ord +-inf) sums. Spectral and nuclear norms need an SVD, which ONNX lacks.
Val matrix_norm(GraphBuilder &b, DType k, const Val &x, const std::string &ord, double p,
                int64_t d0, int64_t d1, bool keep) {
  Val r;
  if (ord == "fro") {
    r = vector_norm(b, k, x, 2, {d0, d1}, true);
  } else {
    T2O_CHECK(ord.empty(), "matrix norm ord='{}' is not supported ('fro'; 'nuc' needs an SVD)",
              ord);
    T2O_CHECK(std::abs(p) == 1 || std::isinf(p),
              "matrix norm ord={} is not supported (1, -1, inf, -inf, 'fro'; 2/-2 need an SVD)", p);
    int64_t sum_axis = std::abs(p) == 1 ? d0 : d1, pick_axis = std::abs(p) == 1 ? d1 : d0;
    Val s = reduce(b, k, "ReduceSum", op_t(b, k, "Abs", {x}), {sum_axis}, true);
    r = reduce(b, k, p > 0 ? "ReduceMax" : "ReduceMin", s, {pick_axis}, true);
  }
  return keep ? r : squeeze(b, r, {d0, d1});
}

std::vector<int64_t> all_axes(int64_t rank) {
  std::vector<int64_t> v(static_cast<size_t>(rank));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

std::vector<int64_t> norm_axes(std::vector<int64_t> axes, int64_t rank) {
  for (auto &a : axes)
    a = norm_axis(a, rank);
  return axes;
}

} // namespace

// cross(a, b) = a[[1,2,0]] * b[[2,0,1]] - a[[2,0,1]] * b[[1,2,0]] along dim.
void aten_cross(ConvertCtx &c) {
  const TensorInfo &out = c.out_info(0);
  int64_t rank = out.rank();
  T2O_CHECK(rank > 0, "{} needs the output rank", c.op());
  int64_t dim;
  if (c.has("dim")) {
    dim = norm_axis(c.arg<int64_t>("dim"), rank);
  } else if (c.op() == "aten::linalg_cross") {
    dim = rank - 1;
  } else { // deprecated default: the first dim of size 3
    dim = -1;
    for (int64_t i = 0; i < rank && dim < 0; ++i)
      if ((*out.shape)[i].value == 3)
        dim = i;
    T2O_CHECK(dim >= 0, "cross without dim needs a dim of size 3, got {}", out.str());
  }
  DType k = compute_type(out_dtype(c));
  auto pick = [&](const char *name, std::vector<int64_t> idx) {
    Val v = cast_to(c.b, c.tensor(name), k);
    int64_t axis = dim - (rank - rank_of(c, name));
    return op_t(c.b, k, "Gather", {v, c.b.const_i64(idx)}, {{"axis", axis}});
  };
  Val l = op_t(c.b, k, "Mul", {pick("self", {1, 2, 0}), pick("other", {2, 0, 1})});
  Val r = op_t(c.b, k, "Mul", {pick("self", {2, 0, 1}), pick("other", {1, 2, 0})});
  set_result(c, op_t(c.b, k, "Sub", {l, r}));
}

// tensordot as one Einsum: contracted dims share letters, free dims keep their order.
void aten_tensordot(ConvertCtx &c) {
  int64_t ra = rank_of(c, "self"), rb = rank_of(c, "other");
  auto da = norm_axes(c.ints("dims_self"), ra), db = norm_axes(c.ints("dims_other"), rb);
  T2O_CHECK(da.size() == db.size(), "tensordot got {} and {} dims to contract", da.size(),
            db.size());
  T2O_CHECK(ra + rb <= 52, "tensordot supports at most 52 dims in total");
  auto letter = [](int64_t i) { return static_cast<char>(i < 26 ? 'a' + i : 'A' + i - 26); };
  std::string sa, sb, so;
  for (int64_t i = 0; i < ra; ++i)
    sa += letter(i);
  for (int64_t i = 0; i < rb; ++i)
    sb += letter(ra + i);
  for (size_t i = 0; i < da.size(); ++i)
    sb[db[i]] = sa[da[i]];
  for (int64_t i = 0; i < ra; ++i)
    if (std::find(da.begin(), da.end(), i) == da.end())
      so += sa[i];
  for (int64_t i = 0; i < rb; ++i)
    if (std::find(db.begin(), db.end(), i) == db.end())
      so += sb[i];
  DType k = compute_type(out_dtype(c));
  Val a = cast_to(c.b, c.tensor("self"), k), b = cast_to(c.b, c.tensor("other"), k);
  set_result(c, op_t(c.b, k, "Einsum", {a, b}, {{"equation", sa + "," + sb + "->" + so}}));
}

// cdist: the p-norm of every row difference, [.., P, M] x [.., R, M] -> [.., P, R].
void aten_cdist(ConvertCtx &c) {
  DType k = compute_type(out_dtype(c));
  double p = c.arg<double>("p", 2.0);
  Val a = unsqueeze(c.b, cast_to(c.b, c.tensor("x1"), k), {-2});
  Val b = unsqueeze(c.b, cast_to(c.b, c.tensor("x2"), k), {-3});
  Val d = op_t(c.b, k, "Sub", {a, b});
  int64_t rank = std::max(rank_of(c, "x1"), rank_of(c, "x2")) + 1;
  set_result(c, vector_norm(c.b, k, d, p, {rank - 1}, false));
}

// pairwise_distance = norm(x1 - x2 + eps, p) over the last dim.
void aten_pairwise_distance(ConvertCtx &c) {
  DType k = compute_type(out_dtype(c));
  double p = c.arg<double>("p", 2.0), eps = c.arg<double>("eps", 1e-6);
  bool keep = c.arg<bool>("keepdim", false);
  Val d = op_t(c.b, k, "Sub", {cast_to(c.b, c.tensor("x1"), k), cast_to(c.b, c.tensor("x2"), k)});
  d = op_t(c.b, k, "Add", {d, scalar(c.b, k, eps)});
  int64_t rank = std::max(rank_of(c, "x1"), rank_of(c, "x2"));
  T2O_CHECK(rank > 0, "pairwise_distance of 0-d tensors is not supported");
  set_result(c, vector_norm(c.b, k, d, p, {rank - 1}, keep));
}

// sum((x1 / max(|x1|, eps)) * (x2 / max(|x2|, eps)), dim) on the broadcast inputs, as ATen does.
void aten_cosine_similarity(ConvertCtx &c) {
  DType k = compute_type(out_dtype(c));
  Val a = cast_to(c.b, c.tensor("x1"), k), b = cast_to(c.b, c.tensor("x2"), k);
  // Expand broadcasts both ways, so expanding to each other's shape gives the common shape.
  a = op_t(c.b, k, "Expand", {a, c.b.op1("Shape", {b})});
  b = op_t(c.b, k, "Expand", {b, c.b.op1("Shape", {a})});
  int64_t rank = std::max(rank_of(c, "x1"), rank_of(c, "x2"));
  int64_t dim = norm_axis(c.arg<int64_t>("dim", 1), rank);
  Val eps = scalar(c.b, k, c.arg<double>("eps", 1e-8));
  auto unit = [&](const Val &v) {
    Val n = op_t(c.b, k, "Max", {vector_norm(c.b, k, v, 2, {dim}, true), eps});
    return op_t(c.b, k, "Div", {v, n});
  };
  set_result(c, reduce(c.b, k, "ReduceSum", op_t(c.b, k, "Mul", {unit(a), unit(b)}), {dim}, false));
}

// det(Tensor self) / linalg_det(Tensor A)
void aten_det(ConvertCtx &c) {
  DType k = compute_type(out_dtype(c));
  Val x = c.tensor(c.takes("A") ? "A" : "self");
  set_result(c, op_t(c.b, k, "Det", {cast_to(c.b, x, k)}));
}

// _linalg_det(Tensor A) -> (Tensor result, Tensor LU, Tensor pivots): the determinant with the
// LU factorization of A^T it comes from (LAPACK getrf: partial pivoting, L unit-lower and U packed
// in one matrix, 1-based int32 pivots). For a static n the elimination is unrolled: step k swaps in
// the row of the largest |A[i, k]| (i >= k), stores the multipliers below the diagonal and updates
// the trailing block; det = prod(diag(U)) * (-1)^(row swaps). The builder drops the LU nodes when
// only the determinant is used.
void aten__linalg_det(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  DType k = compute_type(out_dtype(c));
  Val a = cast_to(b, c.tensor("A"), k);
  int64_t rank = rank_of(c, "A");
  T2O_CHECK(rank >= 2, "{}: expected a matrix or a batch of matrices, got {}", c.op(),
            c.info("A").str());
  int64_t n = static_dim(c, "A", rank - 1);
  // LibTorch factors A^T (det(A^T) = det(A), and its column-major LAPACK call needs no copy), so
  // its LU and pivots are those of the transpose.
  std::vector<int64_t> perm_t = int_range(0, rank);
  std::swap(perm_t[rank - 1], perm_t[rank - 2]);
  a = transpose(b, a, perm_t);
  std::vector<int64_t> ids = int_range(0, n);
  Val rows = b.constant(TensorData::i64(ids, {n, 1})),
      cols = b.constant(TensorData::i64(ids, {1, n}));
  Val iota_n = b.const_i64(ids);
  Val zero = scalar(b, k, 0);
  std::vector<Val> pivots;
  Val swaps = b.const_i64_scalar(0);
  for (int64_t s = 0; s < n; ++s) {
    Val ks = b.const_i64_scalar(s);
    auto col = [&](const Val &m) { // [..., n, 1]
      return b.op1("Slice", {m, b.const_i64({s}), b.const_i64({s + 1}), b.const_i64({-1})});
    };
    // Pivot: the first row >= s with the largest magnitude in column s.
    Val mag = squeeze(b, b.op1("Abs", {col(a)}), {-1});
    mag = b.op1("Where", {b.op1("GreaterOrEqual", {iota_n, ks}), mag, scalar(b, k, -1)});
    Val p = b.op1("ArgMax", {mag}, {{"axis", int64_t{-1}}, {"keepdims", int64_t{1}}}); // [..., 1]
    pivots.push_back(p);
    swaps = b.op1("Add", {swaps, b.op1("Cast", {b.op1("Not", {b.op1("Equal", {p, ks})})},
                                       {{"to", static_cast<int64_t>(DType::Int64)}})});
    Val perm = b.op1("Where", {b.op1("Equal", {iota_n, ks}), p,
                               b.op1("Where", {b.op1("Equal", {iota_n, p}), ks, iota_n})});
    Val index = b.op1("Expand", {unsqueeze(b, perm, {-1}), b.op1("Shape", {a})});
    a = b.op1("GatherElements", {a, index}, {{"axis", rank - 2}});
    Val row = b.op1("Slice", {a, b.const_i64({s}), b.const_i64({s + 1}), b.const_i64({-2})});
    Val pivot = col(row); // [..., 1, 1]
    Val below = b.op1("Greater", {rows, ks});
    // A zero pivot means the column is zero from s down: no scaling, as getrf.
    Val safe = b.op1("Where", {b.op1("Equal", {pivot, zero}), scalar(b, k, 1), pivot});
    Val f = b.op1("Where", {below, b.op1("Div", {col(a), safe}), zero});
    Val right = b.op1("Where", {b.op1("Greater", {cols, ks}), row, zero});
    a = b.op1("Sub", {a, b.op1("Mul", {f, right})});
    a = b.op1("Where", {b.op1("And", {below, b.op1("Equal", {cols, ks})}), f, a});
  }
  Val eye = b.op1("Equal", {rows, cols});
  Val diag = b.op1("ReduceSum", {b.op1("Where", {eye, a, zero}), b.const_i64({-1})},
                   {{"keepdims", int64_t{0}}});
  Val prod =
      b.op1("ReduceProd", {diag}, {{"axes", std::vector<int64_t>{-1}}, {"keepdims", int64_t{0}}});
  Val odd = b.op1("Mod", {swaps, b.const_i64_scalar(2)});
  Val sign = b.op1(
      "Sub",
      {scalar(b, k, 1),
       b.op1("Mul", {scalar(b, k, 2), b.op1("Cast", {odd}, {{"to", static_cast<int64_t>(k)}})})});
  set_result(c, b.op1("Mul", {prod, squeeze(b, sign, {-1})}), 0);
  set_result(c, a, 1);
  Val piv = b.op1("Add", {b.op1("Concat", pivots, {{"axis", int64_t{-1}}}), b.const_i64_scalar(1)});
  c.set_out(2, cast_to(b, piv, DType::Int32));
}

// log(det): -inf for singular, nan for a negative determinant, as torch.logdet.
void aten_logdet(ConvertCtx &c) {
  DType k = compute_type(out_dtype(c));
  Val d = op_t(c.b, k, "Det", {cast_to(c.b, c.tensor("self"), k)});
  set_result(c, op_t(c.b, k, "Log", {d}));
}

// linalg_norm(x, ord=None, dim=None, keepdim, dtype) and the ord_str overload.
void aten_linalg_norm(ConvertCtx &c) {
  DType k = compute_type(out_dtype(c));
  Val x = cast_to(c.b, c.tensor("self"), k);
  int64_t rank = rank_of(c, "self");
  bool keep = c.arg<bool>("keepdim", false);
  std::vector<int64_t> dims =
      c.has("dim") ? norm_axes(c.ints("dim"), rank) : std::vector<int64_t>{};
  bool str_ord = c.arg("ord").kind == Arg::Kind::String;
  if (!c.has("ord")) { // 2-norm of the flattened input (or of the given dims)
    set_result(c, vector_norm(c.b, k, x, 2, dims.empty() ? all_axes(rank) : dims, keep));
    return;
  }
  if (dims.empty()) {
    T2O_CHECK(rank == 1 || rank == 2, "linalg_norm with ord and no dim needs a 1-D or 2-D input");
    dims = all_axes(rank);
  }
  if (dims.size() == 1 && !str_ord) {
    set_result(c, vector_norm(c.b, k, x, c.arg<double>("ord"), dims, keep));
    return;
  }
  T2O_CHECK(dims.size() == 2, "linalg_norm needs 1 or 2 dims, got {}", dims.size());
  std::string ord = str_ord ? c.arg<std::string>("ord") : "";
  set_result(
      c, matrix_norm(c.b, k, x, ord, str_ord ? 0 : c.arg<double>("ord"), dims[0], dims[1], keep));
}

// linalg_matrix_norm(A, ord, dim=[-2,-1], keepdim, dtype), numeric or string ord.
void aten_linalg_matrix_norm(ConvertCtx &c) {
  DType k = compute_type(out_dtype(c));
  Val x = cast_to(c.b, c.tensor("self"), k);
  int64_t rank = rank_of(c, "self");
  auto dims = norm_axes(c.ints("dim", {-2, -1}), rank);
  T2O_CHECK(dims.size() == 2, "linalg_matrix_norm needs 2 dims, got {}", dims.size());
  bool keep = c.arg<bool>("keepdim", false);
  bool str_ord = !c.has("ord") || c.arg("ord").kind == Arg::Kind::String;
  std::string ord = !c.has("ord") ? "fro" : str_ord ? c.arg<std::string>("ord") : "";
  set_result(
      c, matrix_norm(c.b, k, x, ord, str_ord ? 0 : c.arg<double>("ord"), dims[0], dims[1], keep));
}

// frobenius_norm(Tensor self) / frobenius_norm.dim(Tensor self, int[1] dim, bool keepdim=False)
void aten_frobenius_norm(ConvertCtx &c) {
  DType k = compute_type(out_dtype(c));
  int64_t rank = rank_of(c, "self");
  bool dim = c.takes("dim");
  auto dims = dim && c.has("dim") ? norm_axes(c.ints("dim"), rank) : std::vector<int64_t>{};
  if (dims.empty())
    dims = all_axes(rank);
  bool keep = dim && c.arg<bool>("keepdim", false);
  set_result(c, vector_norm(c.b, k, cast_to(c.b, c.tensor("self"), k), 2, dims, keep));
}

namespace {

// beta * self + alpha * prod; beta == 0 ignores self (nan and inf there do not propagate).
Val beta_alpha(ConvertCtx &c, DType k, const Val &prod) {
  double beta = c.arg<double>("beta", 1.0), alpha = c.arg<double>("alpha", 1.0);
  Val r = alpha == 1.0 ? prod : op_t(c.b, k, "Mul", {prod, scalar(c.b, k, alpha)});
  if (beta == 0.0)
    return r; // self only broadcasts to the product's shape
  Val s = cast_to(c.b, c.tensor("self"), k);
  if (beta != 1.0)
    s = op_t(c.b, k, "Mul", {s, scalar(c.b, k, beta)});
  return op_t(c.b, k, "Add", {s, r});
}

} // namespace

void aten_addmv(ConvertCtx &c) {
  DType k = compute_type(out_dtype(c));
  Val mv =
      op_t(c.b, k, "MatMul", {cast_to(c.b, c.tensor("mat"), k), cast_to(c.b, c.tensor("vec"), k)});
  set_result(c, beta_alpha(c, k, mv));
}

void aten_addr(ConvertCtx &c) {
  DType k = compute_type(out_dtype(c));
  Val u = unsqueeze(c.b, cast_to(c.b, c.tensor("vec1"), k), {1});
  Val v = unsqueeze(c.b, cast_to(c.b, c.tensor("vec2"), k), {0});
  set_result(c, beta_alpha(c, k, op_t(c.b, k, "Mul", {u, v})));
}

void aten_addbmm(ConvertCtx &c) {
  DType k = compute_type(out_dtype(c));
  Val bmm = op_t(c.b, k, "MatMul",
                 {cast_to(c.b, c.tensor("batch1"), k), cast_to(c.b, c.tensor("batch2"), k)});
  set_result(c, beta_alpha(c, k, reduce(c.b, k, "ReduceSum", bmm, {0}, false)));
}

// y[.., o] = x1[.., i] W[o, i, j] x2[.., j] + b[o]
void aten_bilinear(ConvertCtx &c) {
  DType k = compute_type(out_dtype(c));
  int64_t r1 = rank_of(c, "input1"), r2 = rank_of(c, "input2");
  T2O_CHECK(r1 == r2 && r1 >= 1 && r1 <= 20, "bilinear needs inputs of equal rank, got {} and {}",
            r1, r2);
  std::string batch;
  for (int64_t i = 0; i + 1 < r1; ++i)
    batch += static_cast<char>('a' + i);
  std::string eq = batch + "x," + "zxy," + batch + "y->" + batch + "z";
  Val y = op_t(c.b, k, "Einsum",
               {cast_to(c.b, c.tensor("input1"), k), cast_to(c.b, c.tensor("weight"), k),
                cast_to(c.b, c.tensor("input2"), k)},
               {{"equation", eq}});
  if (c.has("bias"))
    y = op_t(c.b, k, "Add", {y, cast_to(c.b, c.tensor("bias"), k)});
  set_result(c, y);
}

// v * g / ||v||, the norm over every dim but `dim` (over all dims for dim == -1).
void aten__weight_norm(ConvertCtx &c) {
  DType k = compute_type(out_dtype(c));
  Val v = cast_to(c.b, c.tensor("v"), k), g = cast_to(c.b, c.tensor("g"), k);
  int64_t rank = rank_of(c, "v");
  int64_t dim = c.arg<int64_t>("dim", 0);
  std::vector<int64_t> axes;
  for (int64_t i = 0; i < rank; ++i)
    if (dim == -1 || i != norm_axis(dim, rank))
      axes.push_back(i);
  Val n = vector_norm(c.b, k, v, 2, axes, dim != -1);
  set_result(c, op_t(c.b, k, "Mul", {v, op_t(c.b, k, "Div", {g, n})}));
}

namespace {

// Always a Transpose node (also for an identity perm), unlike the helpers' transpose().
void set_transposed(ConvertCtx &c, const std::vector<int64_t> &perm) {
  c.set_out(0, c.b.op1("Transpose", {c.tensor("self")}, {{"perm", perm}}));
}

} // namespace

// The last two dims swapped (mH: conjugate too, the identity for real tensors).
void aten_mT(ConvertCtx &c) {
  DType t = c.info("self").dtype;
  T2O_CHECK(t != DType::Complex64 && t != DType::Complex128,
            "{} on complex tensors is not supported (ONNX has no complex dtype)", c.op());
  int64_t rank = rank_of(c, "self");
  T2O_CHECK(rank >= 2, "{} needs at least 2 dims, got {}", c.op(), rank);
  auto perm = all_axes(rank);
  std::swap(perm[rank - 1], perm[rank - 2]);
  set_transposed(c, perm);
}

void aten_numpy_T(ConvertCtx &c) {
  auto perm = all_axes(rank_of(c, "self"));
  std::reverse(perm.begin(), perm.end());
  set_transposed(c, perm);
}

void register_math_linalg_ops(Registry &r) {
  r.add("aten::cross", 11, aten_cross, {"Gather", "Mul", "Sub"});
  r.add("aten::linalg_cross", 11, aten_cross, {"Gather", "Mul", "Sub"});
  r.add("aten::tensordot", 12, aten_tensordot, {"Einsum"});
  r.add("aten::cdist", 11, aten_cdist,
        {"Sub", "ReduceSum", "Sqrt", "Abs", "Cast", "Equal", "Mul", "Not", "Pow", "ReduceMax",
         "Unsqueeze"});
  r.add("aten::pairwise_distance", 11, aten_pairwise_distance,
        {"Sub", "ReduceSum", "Sqrt", "Abs", "Add", "Mul"});
  r.add("aten::cosine_similarity", 11, aten_cosine_similarity,
        {"ReduceSum", "Sqrt", "Div", "Abs", "Expand", "Max", "Mul", "Shape"});
  r.add("aten::det", 11, aten_det, {"Det"});
  r.add("aten::linalg_det", 11, aten_det, {"Det"});
  r.add("aten::_linalg_det", 11, aten__linalg_det,
        {"ArgMax",
         "GatherElements",
         "Div",
         "Sub",
         "Where",
         "ReduceProd",
         "Abs",
         "Add",
         "And",
         "Cast",
         "Concat",
         "Equal",
         "Expand",
         "Greater",
         "GreaterOrEqual",
         "Mod",
         "Mul",
         "Not",
         "Or",
         "ReduceSum",
         "Shape",
         "Slice",
         "Squeeze",
         "Transpose",
         "Unsqueeze"});
  r.add("aten::logdet", 11, aten_logdet, {"Det", "Log"});
  r.add("aten::linalg_norm", 11, aten_linalg_norm,
        {"ReduceSum", "ReduceMax", "Sqrt", "Abs", "Cast", "Equal", "Mul", "Not", "Pow", "ReduceMin",
         "Squeeze"});
  r.add("aten::linalg_matrix_norm", 11, aten_linalg_matrix_norm,
        {"ReduceSum", "ReduceMax", "Sqrt", "Abs", "Cast", "Mul", "Squeeze"});
  r.add("aten::frobenius_norm", 11, aten_frobenius_norm, {"ReduceSum", "Sqrt", "Abs", "Mul"});
  r.add_with_inplace("aten::addmv", 11, aten_addmv, {"MatMul", "Add", "Mul"});
  r.add_with_inplace("aten::addr", 11, aten_addr, {"Mul", "Add", "Unsqueeze"});
  r.add_with_inplace("aten::addbmm", 11, aten_addbmm, {"MatMul", "ReduceSum", "Add", "Mul"});
  r.add("aten::bilinear", 12, aten_bilinear, {"Einsum", "Add"});
  r.add("aten::_weight_norm", 11, aten__weight_norm, {"ReduceSum", "Sqrt", "Div", "Mul", "Abs"});
  r.add("aten::mT", 11, aten_mT, {"Transpose"});
  r.add("aten::mH", 11, aten_mT, {"Transpose"});
  r.add("aten::numpy_T", 11, aten_numpy_T, {"Transpose"});
}

} // namespace torch2onnx
