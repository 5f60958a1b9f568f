// LU-based linear algebra on small static matrices: slogdet, the LU factorization and its
// unpacking and solves, tensorinv / tensorsolve, Householder products and the condition number.
// The factorization is aten::_linalg_det's (math_linalg.cpp: partial pivoting as LAPACK getrf,
// 1-based int32 pivots), unrolled over the static matrix size n (solve.h).
#include "aten_lib/helpers.h"
#include "aten_lib/solve.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace torch2onnx {

namespace {

struct Lu {
  Val lu;     // [..., n, n]: L below the diagonal (unit diagonal implied), U on and above it
  Val pivots; // [..., n] int32, 1-based: row i was swapped with row pivots[i] - 1, in order
};

// The LU factorization of x^T (x: [..., n, n], dtype k, the shape of `shape_of`) by
// _linalg_det's converter, which factors the transpose of what it gets, as LibTorch does.
Lu lu_of_transpose(const ConvertCtx &c, DType k, const Val &x, const TensorInfo &shape_of) {
  if (!c.b.has_info(x)) { // a transpose made here: _linalg_det reads its shape
    TensorInfo info = shape_of;
    info.dtype = k;
    c.b.set_info(x, info);
  }
  TensorInfo det{k, std::nullopt}, lu{k, std::nullopt}, piv{DType::Int32, std::nullopt};
  auto out = c.call("aten::_linalg_det", {{"A", x}}, {det, lu, piv});
  return {out[1].t(), out[2].t()};
}

// The LU factorization of a, square tensor argument "A" in dtype k.
Lu lu_factor(const ConvertCtx &c, DType k, const Val &a) {
  return lu_of_transpose(c, k, swap_last(c.b, a, rank_of(c, "A")), c.info("A"));
}

// Pivots as 0-based int64.
Val zero_based(GraphBuilder &b, const Val &pivots) {
  return b.op1("Sub", {cast_to(b, pivots, DType::Int64), b.const_i64_scalar(1)});
}

// The index vector [..., n] that swaps entries i and p ([..., 1]).
Val swap_index(GraphBuilder &b, const Val &p, int64_t i, int64_t n) {
  Val iota_n = b.const_i64(int_range(0, n)), ks = b.const_i64_scalar(i);
  return b.op1("Where", {b.op1("Equal", {iota_n, ks}), p,
                         b.op1("Where", {b.op1("Equal", {iota_n, p}), ks, iota_n})});
}

// The row swaps of 0-based pivots applied to the rows of x ([..., n, m], batch dims including
// the pivots'): P^T x in order, P x in reverse.
Val swap_rows(GraphBuilder &b, Val x, const Val &piv0, int64_t n, bool reverse) {
  for (int64_t t = 0; t < n; ++t) {
    int64_t i = reverse ? n - 1 - t : t;
    Val sw = swap_index(b, slice_axis(b, piv0, i, i + 1, -1), i, n);
    Val index = b.op1("Expand", {unsqueeze(b, sw, {-1}), shape_of(b, x)});
    x = b.op1("GatherElements", {x, index}, {{"axis", int64_t{-2}}});
  }
  return x;
}

// 1 or -1: the parity of the row swaps.
Val swap_sign(GraphBuilder &b, DType k, const Val &pivots, int64_t n) {
  std::vector<int64_t> one_based(static_cast<size_t>(n));
  std::iota(one_based.begin(), one_based.end(), 1);
  Val moved =
      b.op1("Not", {b.op1("Equal", {cast_to(b, pivots, DType::Int64), b.const_i64(one_based)})});
  Val swaps = b.op1("ReduceSum", {cast_to(b, moved, DType::Int64), b.const_i64({-1})},
                    {{"keepdims", int64_t{0}}});
  Val odd = cast_to(b, b.op1("Mod", {swaps, b.const_i64_scalar(2)}), k);
  return b.op1("Sub", {scalar(b, k, 1), b.op1("Mul", {scalar(b, k, 2), odd})});
}

Val tri_mask(GraphBuilder &b, int64_t n, const char *cmp) {
  std::vector<int64_t> ids = int_range(0, n);
  return b.op1(cmp, {b.constant(TensorData::i64(ids, {n, 1})), b.const_i64(ids)});
}

} // namespace

// slogdet(self) / linalg_slogdet(A) -> (sign, logabsdet): from the LU factorization,
// sum(log|U_ii|) and prod(sign(U_ii)) times the parity of the row swaps (0 and -inf when
// singular, as LibTorch).
void aten_linalg_slogdet(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  const char *name = c.takes("A") ? "A" : "self";
  DType k = solve_type(c);
  int64_t n = square_size(c, name);
  Val a = cast_to(b, c.tensor(name), k);
  Lu f = lu_of_transpose(c, k, a, c.info(name)); // det(a^T) = det(a)
  Val diag =
      b.op1("ReduceSum",
            {b.op1("Where", {tri_mask(b, n, "Equal"), f.lu, scalar(b, k, 0)}), b.const_i64({-1})},
            {{"keepdims", int64_t{0}}});
  Val sign = b.op1("ReduceProd", {b.op1("Sign", {diag})},
                   {{"axes", std::vector<int64_t>{-1}}, {"keepdims", int64_t{0}}});
  set_result(c, b.op1("Mul", {sign, swap_sign(b, k, f.pivots, n)}), 0);
  Val logs = b.op1("Log", {b.op1("Abs", {diag})});
  set_result(c, b.op1("ReduceSum", {logs, b.const_i64({-1})}, {{"keepdims", int64_t{0}}}), 1);
}

// linalg_lu_factor(A, *, bool pivot=True) -> (LU, pivots); linalg_lu_factor_ex also -> info.
void aten_linalg_lu_factor(ConvertCtx &c) {
  T2O_CHECK(c.arg<bool>("pivot", true),
            "{} with pivot=False is not supported (LibTorch has it on CUDA only)", c.op());
  DType k = solve_type(c);
  int64_t rank = rank_of(c, "A");
  square_size(c, "A");
  Val a = cast_to(c.b, c.tensor("A"), k);
  Lu f = lu_factor(c, k, a);
  set_result(c, f.lu, 0);
  c.set_out(1, f.pivots);
  if (c.num_outputs() > 2)
    c.set_out(2, zero_info(c.b, a, rank));
}

namespace {

// P, L, U of A = P L U from the packed factors (outputs 0, 1, 2). P[r, c] = 1 where the row
// swaps put row r of A at row c.
void set_plu(ConvertCtx &c, DType k, const Lu &f, int64_t n, bool data, bool pivots) {
  GraphBuilder &b = c.b;
  if (pivots) {
    Val piv0 = zero_based(b, f.pivots);
    Val perm = b.op1("Expand", {b.const_i64(int_range(0, n)), shape_of(b, piv0)});
    for (int64_t i = 0; i < n; ++i)
      perm = b.op1("GatherElements", {perm, swap_index(b, slice_axis(b, piv0, i, i + 1, -1), i, n)},
                   {{"axis", int64_t{-1}}});
    std::vector<int64_t> ids = int_range(0, n);
    Val p = b.op1("Equal", {unsqueeze(b, perm, {-2}), b.constant(TensorData::i64(ids, {n, 1}))});
    set_result(c, cast_to(b, p, k), 0);
  }
  if (data) {
    Val zero = scalar(b, k, 0);
    Val strict = b.op1("Where", {tri_mask(b, n, "Greater"), f.lu, zero});
    Val eye = cast_to(b, tri_mask(b, n, "Equal"), k);
    set_result(c, b.op1("Add", {strict, eye}), 1);
    set_result(c, b.op1("Where", {tri_mask(b, n, "LessOrEqual"), f.lu, zero}), 2);
  }
  for (size_t i = 0; i < 3; ++i) // left out: empty, as LibTorch
    if (!c.outputs()[i].is_tensor()) {
      TensorData d;
      d.dtype = c.out_info(i).dtype;
      d.dims = {0};
      c.set_out(i, b.constant(d, "empty"));
    }
}

} // namespace

// linalg_lu(A, *, bool pivot=True) -> (P, L, U)
void aten_linalg_lu(ConvertCtx &c) {
  T2O_CHECK(c.arg<bool>("pivot", true),
            "{} with pivot=False is not supported (LibTorch has it on CUDA only)", c.op());
  DType k = solve_type(c);
  int64_t n = square_size(c, "A");
  set_plu(c, k, lu_factor(c, k, cast_to(c.b, c.tensor("A"), k)), n, true, true);
}

// lu_unpack(LU_data, LU_pivots, bool unpack_data=True, bool unpack_pivots=True) -> (P, L, U)
void aten_lu_unpack(ConvertCtx &c) {
  DType k = solve_type(c);
  int64_t n = square_size(c, "LU_data");
  Lu f{cast_to(c.b, c.tensor("LU_data"), k), c.tensor("LU_pivots")};
  set_plu(c, k, f, n, c.arg<bool>("unpack_data", true), c.arg<bool>("unpack_pivots", true));
}

namespace {

// A^-1 B (adjoint: A^T^-1 B) for A = P L U given packed; rhs [..., n, m] with the batch dims of
// the result.
Val lu_solve(GraphBuilder &b, const Val &lu, const Val &piv0, Val rhs, int64_t n, int64_t rank,
             bool adjoint) {
  if (!adjoint) {
    rhs = swap_rows(b, rhs, piv0, n, false);
    return triangular(b, lu, triangular(b, lu, rhs, n, true, true), n, false, false);
  }
  Val t = swap_last(b, lu, rank); // A^T = U^T L^T P^T
  Val y = triangular(b, t, triangular(b, t, rhs, n, true, false), n, false, true);
  return swap_rows(b, y, piv0, n, true);
}

} // namespace

// lu_solve(self, LU_data, LU_pivots): A X = self for A = P L U.
void aten_lu_solve(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  DType k = solve_type(c);
  int64_t n = square_size(c, "LU_data"), rank = rank_of(c, "LU_data");
  Val lu = cast_to(b, c.tensor("LU_data"), k);
  Val rhs = with_batch_of(b, cast_to(b, c.tensor("self"), k), lu, rank);
  set_result(c, lu_solve(b, lu, zero_based(b, c.tensor("LU_pivots")), rhs, n, rank, false));
}

// linalg_lu_solve(LU, pivots, B, *, bool left=True, bool adjoint=False): A X = B, A^H X = B,
// X A = B (A^T X^T = B^T) or X A^H = B (A X^T = B^T).
void aten_linalg_lu_solve(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  DType k = solve_type(c);
  int64_t n = square_size(c, "LU"), rank = rank_of(c, "LU"), rb = rank_of(c, "B");
  bool left = c.arg<bool>("left", true), adjoint = c.arg<bool>("adjoint", false);
  Val lu = cast_to(b, c.tensor("LU"), k), rhs = cast_to(b, c.tensor("B"), k);
  if (!left)
    rhs = swap_last(b, rhs, rb);
  rhs = with_batch_of(b, rhs, lu, rank);
  Val x = lu_solve(b, lu, zero_based(b, c.tensor("pivots")), rhs, n, rank, adjoint != !left);
  set_result(c, left ? x : swap_last(b, x, std::max(rank, rb)));
}

namespace {

// Q x, Q^T x, x Q or x Q^T for Q = H_0 H_1 ... H_(k-1), H_i = I - tau_i v_i v_i^T,
// v_i = (0, ..., 0, 1, a[i+1:, i]): the Householder reflectors LAPACK's geqrf packs in
// a ([..., m, >= k]) and tau ([..., k]).
Val apply_reflectors(GraphBuilder &b, DType k, const Val &a, const Val &tau, Val x, int64_t m,
                     int64_t reflectors, int64_t rank, bool left, bool trans) {
  Val rows = b.constant(TensorData::i64(int_range(0, m), {m, 1}));
  bool forward = left == trans; // H_0 applied first
  for (int64_t t = 0; t < reflectors; ++t) {
    int64_t i = forward ? t : reflectors - 1 - t;
    Val ks = b.const_i64_scalar(i);
    Val v = b.op1("Where", {b.op1("Greater", {rows, ks}), slice_axis(b, a, i, i + 1, -1),
                            cast_to(b, b.op1("Equal", {rows, ks}), k)}); // [..., m, 1]
    Val ti = unsqueeze(b, slice_axis(b, tau, i, i + 1, -1), {-1});       // [..., 1, 1]
    // v (v^T x) or (x v) v^T, the outer products as broadcast Mul: no Transpose feeds a MatMul,
    // which ONNX Runtime would fuse into FusedMatMul (no float64 kernel).
    Val update =
        left ? b.op1("Mul", {v, b.op1("ReduceSum", {b.op1("Mul", {v, x}), b.const_i64({-2})},
                                      {{"keepdims", int64_t{1}}})})
             : b.op1("Mul", {b.op1("MatMul", {x, v}), swap_last(b, v, rank)});
    x = b.op1("Sub", {x, b.op1("Mul", {ti, update})});
  }
  return x;
}

} // namespace

// linalg_householder_product(input [..., m, n], tau [..., k]) / orgqr(self, input2): the first
// n columns of Q.
void aten_linalg_householder_product(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  DType k = solve_type(c);
  const char *in = c.takes("input") ? "input" : "self", *tn = c.takes("tau") ? "tau" : "input2";
  int64_t rank = rank_of(c, in);
  int64_t m = static_dim(c, in, rank - 2), n = static_dim(c, in, rank - 1);
  int64_t reflectors = static_dim(c, tn, rank_of(c, tn) - 1);
  std::vector<float> eye(static_cast<size_t>(m * n), 0.f);
  for (int64_t i = 0; i < std::min(m, n); ++i)
    eye[static_cast<size_t>(i * n + i)] = 1.f;
  Val q = cast_to(b, b.constant(TensorData::f32(eye, {m, n}), "eye"), k);
  set_result(c, apply_reflectors(b, k, cast_to(b, c.tensor(in), k), cast_to(b, c.tensor(tn), k), q,
                                 m, reflectors, rank, true, false));
}

// ormqr(self, input2, input3, bool left=True, bool transpose=False): input3 multiplied by the Q
// of geqrf's (self, input2), from the left or right, transposed or not.
void aten_ormqr(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  DType k = solve_type(c);
  int64_t rank = rank_of(c, "self");
  int64_t m = static_dim(c, "self", rank - 2);
  int64_t reflectors = static_dim(c, "input2", rank_of(c, "input2") - 1);
  Val x = apply_reflectors(b, k, cast_to(b, c.tensor("self"), k), cast_to(b, c.tensor("input2"), k),
                           cast_to(b, c.tensor("input3"), k), m, reflectors, rank,
                           c.arg<bool>("left", true), c.arg<bool>("transpose", false));
  set_result(c, x);
}

void register_lu_ops(Registry &r) {
  // What _linalg_det's factorization emits (aten_lib/math_linalg.cpp).
  const std::vector<std::string> lu = {"ArgMax",
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
                                       "Unsqueeze"};
  auto with = [&](std::vector<std::string> more) {
    more.insert(more.end(), lu.begin(), lu.end());
    return more;
  };
  for (const char *op : {"aten::slogdet", "aten::linalg_slogdet"})
    r.add(op, 11, aten_linalg_slogdet, with({"Sign", "Log"}));
  for (const char *op : {"aten::linalg_lu_factor", "aten::linalg_lu_factor_ex"})
    r.add(op, 11, aten_linalg_lu_factor, with({"ConstantOfShape"}));
  r.add("aten::linalg_lu", 11, aten_linalg_lu, with({"LessOrEqual", "Less"}));
  r.add("aten::lu_unpack", 11, aten_lu_unpack,
        {"Sub", "Cast", "Expand", "Shape", "Slice", "Equal", "Where", "GatherElements", "Unsqueeze",
         "Greater", "Add", "LessOrEqual", "Less", "Or"});
  const std::vector<std::string> solve = {
      "Sub",   "Cast",           "Slice",  "Equal",  "Where",  "Unsqueeze", "Expand",
      "Shape", "GatherElements", "Gather", "Concat", "MatMul", "Div",       "Transpose"};
  r.add("aten::lu_solve", 11, aten_lu_solve, solve);
  r.add("aten::linalg_lu_solve", 11, aten_linalg_lu_solve, solve);
  const std::vector<std::string> reflect = {"ReduceSum", "Cast",  "Greater",   "Slice",
                                            "Equal",     "Where", "Unsqueeze", "Transpose",
                                            "MatMul",    "Mul",   "Sub"};
  r.add("aten::linalg_householder_product", 11, aten_linalg_householder_product, reflect);
  r.add("aten::orgqr", 11, aten_linalg_householder_product, reflect);
  r.add("aten::ormqr", 11, aten_ormqr, reflect);
}

} // namespace torch2onnx
