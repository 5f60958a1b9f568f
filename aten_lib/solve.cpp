// Linear algebra ONNX can express on small static matrices: inverse, solve, Cholesky, triangular
// and Cholesky solves, matrix powers and the matrix exponential. ONNX has no solve or
// factorization operator, so each is unrolled over the static matrix size n (solve.h); batch dims
// may be dynamic.
#include "aten_lib/solve.h"

#include "aten_lib/helpers.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace torch2onnx {

// ---- building blocks (solve.h) ----------------------------------------------------------------

DType solve_type(const ConvertCtx &c) {
  return out_dtype(c) == DType::Double ? DType::Double : DType::Float;
}

int64_t square_size(const ConvertCtx &c, std::string_view name) {
  const TensorInfo &info = c.info(name);
  int64_t rank = info.rank();
  T2O_CHECK(rank >= 2, "{}: expected a matrix or a batch of matrices, got {}", c.op(), info.str());
  const Dim &rows = (*info.shape)[rank - 2], &cols = (*info.shape)[rank - 1];
  if (!rows.is_static() || !cols.is_static())
    throw Error(fmt::format("{} needs a static matrix size, got {}: torch2onnx unrolls the "
                            "elimination over the rows (ONNX has no solve or factorization)",
                            c.op(), info.str()),
                "export with fixed matrix sizes (the batch dims may stay dynamic)");
  T2O_CHECK(rows.value == cols.value, "{}: expected square matrices, got {}", c.op(), info.str());
  return rows.value;
}

Val swap_last(GraphBuilder &b, const Val &x, int64_t rank) {
  std::vector<int64_t> perm = int_range(0, rank);
  std::swap(perm[rank - 1], perm[rank - 2]);
  return transpose(b, x, perm);
}

Val slice_axis(GraphBuilder &b, const Val &x, int64_t start, int64_t end, int64_t axis) {
  return b.op1("Slice", {x, b.const_i64({start}), b.const_i64({end}), b.const_i64({axis})});
}

Val identity_like(GraphBuilder &b, DType k, const Val &like, int64_t n) {
  std::vector<int64_t> eye(static_cast<size_t>(n * n), 0);
  for (int64_t i = 0; i < n; ++i)
    eye[static_cast<size_t>(i * n + i)] = 1;
  TensorData d = TensorData::i64(eye, {n, n});
  if (k == DType::Float)
    d = TensorData::f32(std::vector<float>(eye.begin(), eye.end()), {n, n});
  else if (k == DType::Double)
    d = TensorData::f64(std::vector<double>(eye.begin(), eye.end()), {n, n});
  Val e = b.constant(d, "eye");
  return op_t(b, k, "Expand", {e, shape_of(b, like)});
}

Val with_batch_of(GraphBuilder &b, const Val &x, const Val &other, int64_t other_rank) {
  Val shape = b.op1("Concat", {dims_of(b, other, 0, other_rank - 2), b.const_i64({1, 1})},
                    {{"axis", int64_t{0}}});
  return b.op1("Expand", {x, shape});
}

Val gauss_jordan(GraphBuilder &b, DType k, const Val &a, const Val &rhs, int64_t n) {
  Val m = b.op1("Concat", {a, rhs}, {{"axis", int64_t{-1}}}); // [..., n, n + r]
  std::vector<int64_t> ids = int_range(0, n);
  Val iota_n = b.const_i64(ids), rows = b.constant(TensorData::i64(ids, {n, 1}));
  for (int64_t s = 0; s < n; ++s) {
    Val ks = b.const_i64_scalar(s);
    // Pivot: the first row >= s with the largest magnitude in column s, swapped into row s.
    Val mag = squeeze(b, b.op1("Abs", {slice_axis(b, m, s, s + 1, -1)}), {-1});
    mag = b.op1("Where", {b.op1("GreaterOrEqual", {iota_n, ks}), mag, scalar(b, k, -1)});
    Val p = b.op1("ArgMax", {mag}, {{"axis", int64_t{-1}}, {"keepdims", int64_t{1}}});
    Val perm = b.op1("Where", {b.op1("Equal", {iota_n, ks}), p,
                               b.op1("Where", {b.op1("Equal", {iota_n, p}), ks, iota_n})});
    Val index = b.op1("Expand", {unsqueeze(b, perm, {-1}), shape_of(b, m)});
    m = b.op1("GatherElements", {m, index}, {{"axis", int64_t{-2}}});
    // Row s divided by the pivot; every other row loses its multiple of it.
    Val row = slice_axis(b, m, s, s + 1, -2);
    Val unit_row = b.op1("Div", {row, slice_axis(b, row, s, s + 1, -1)});
    Val col = slice_axis(b, m, s, s + 1, -1);
    m = b.op1("Where", {b.op1("Equal", {rows, ks}), unit_row,
                        b.op1("Sub", {m, b.op1("Mul", {col, unit_row})})});
  }
  return b.op1("Slice", {m, b.const_i64({n}), b.const_i64({INT64_MAX}), b.const_i64({-1})});
}

Val triangular(GraphBuilder &b, const Val &a, const Val &rhs, int64_t n, bool lower, bool unit) {
  std::vector<Val> xs(static_cast<size_t>(n));
  std::vector<int64_t> done;
  for (int64_t t = 0; t < n; ++t) {
    int64_t i = lower ? t : n - 1 - t;
    Val x = slice_axis(b, rhs, i, i + 1, -2); // [..., 1, m]
    Val arow = slice_axis(b, a, i, i + 1, -2);
    if (!done.empty()) {
      Val coef = b.op1("Gather", {arow, b.const_i64(done)}, {{"axis", int64_t{-1}}});
      std::vector<Val> solved;
      for (int64_t j : done)
        solved.push_back(xs[static_cast<size_t>(j)]);
      Val xd = solved.size() == 1 ? solved[0] : b.op1("Concat", solved, {{"axis", int64_t{-2}}});
      x = b.op1("Sub", {x, b.op1("MatMul", {coef, xd})});
    }
    if (!unit)
      x = b.op1("Div", {x, slice_axis(b, arow, i, i + 1, -1)});
    xs[static_cast<size_t>(i)] = x;
    done.push_back(i);
  }
  return n == 1 ? xs[0] : b.op1("Concat", xs, {{"axis", int64_t{-2}}});
}

Val zero_info(GraphBuilder &b, const Val &a, int64_t rank) {
  TensorData v = TensorData::scalar(DType::Int32, 0);
  v.dims = {1};
  return b.op1("ConstantOfShape", {dims_of(b, a, 0, rank - 2)}, {{"value", v}});
}

// ---- converters -------------------------------------------------------------------------------

namespace {

// The lower Cholesky factor of a [..., n, n], a column at a time:
// L[:, j] = (A[:, j] - L L[j, :]^T) / sqrt(that at row j), zero above the diagonal.
Val cholesky_lower(GraphBuilder &b, DType k, const Val &a, int64_t n) {
  std::vector<int64_t> ids = int_range(0, n);
  Val rows = b.constant(TensorData::i64(ids, {n, 1})), cols = b.const_i64(ids);
  Val l;
  for (int64_t j = 0; j < n; ++j) {
    Val v = slice_axis(b, a, j, j + 1, -1); // [..., n, 1]
    if (j > 0) { // L L[j, :]^T as a broadcast product: ONNX Runtime fuses Transpose + MatMul
      // into FusedMatMul, which has no float64 kernel
      Val prod = b.op1("Mul", {l, slice_axis(b, l, j, j + 1, -2)});
      v = b.op1("Sub",
                {v, b.op1("ReduceSum", {prod, b.const_i64({-1})}, {{"keepdims", int64_t{1}}})});
    }
    Val d = b.op1("Sqrt", {slice_axis(b, v, j, j + 1, -2)});
    Val ks = b.const_i64_scalar(j);
    Val col = b.op1("Where",
                    {b.op1("GreaterOrEqual", {rows, ks}), b.op1("Div", {v, d}), scalar(b, k, 0)});
    Val term = b.op1("Mul", {col, cast_to(b, b.op1("Equal", {cols, ks}), k)});
    l = j == 0 ? term : b.op1("Add", {l, term});
  }
  return l;
}

// The info output (1) of the *_ex ops, when the node has it.
void set_info(ConvertCtx &c, const Val &a, int64_t rank, size_t i = 1) {
  if (c.num_outputs() > i)
    c.set_out(i, zero_info(c.b, a, rank));
}

// A^-1 B with B a matrix or (vector_case) a vector, as linalg_solve reads it.
Val solve_general(ConvertCtx &c, DType k, int64_t n) {
  GraphBuilder &b = c.b;
  int64_t ra = rank_of(c, "A"), rb = rank_of(c, "B");
  Val a = cast_to(b, c.tensor("A"), k), rhs = cast_to(b, c.tensor("B"), k);
  const auto &as = *c.info("A").shape, &bs = *c.info("B").shape;
  bool vector_case = rb == 1;
  if (rb == ra - 1) {
    vector_case = true;
    for (int64_t i = 0; i < rb; ++i)
      vector_case =
          vector_case && as[i].is_static() && bs[i].is_static() && as[i].value == bs[i].value;
  }
  bool left = c.arg<bool>("left", true);
  if (!left)
    a = swap_last(b, a, ra);
  if (vector_case)
    rhs = unsqueeze(b, rhs, {-1});
  else if (!left)
    rhs = swap_last(b, rhs, rb);
  int64_t rr = vector_case ? rb + 1 : rb;
  Val a2 = with_batch_of(b, a, rhs, rr), r2 = with_batch_of(b, rhs, a, ra);
  Val x = gauss_jordan(b, k, a2, r2, n);
  if (vector_case)
    return squeeze(b, x, {-1});
  return left ? x : swap_last(b, x, std::max(ra, rb));
}

} // namespace

// inverse(Tensor self) / linalg_inv(Tensor A) / linalg_inv_ex(A, *, check_errors) -> (inverse,
// info)
void aten_linalg_inv(ConvertCtx &c) {
  const char *name = c.takes("A") ? "A" : "self";
  DType k = solve_type(c);
  int64_t n = square_size(c, name), rank = rank_of(c, name);
  Val a = cast_to(c.b, c.tensor(name), k);
  set_result(c, gauss_jordan(c.b, k, a, identity_like(c.b, k, a, n), n));
  set_info(c, a, rank);
}

// linalg_solve(A, B, *, bool left=True) / linalg_solve_ex(..., check_errors) -> (result, info)
void aten_linalg_solve(ConvertCtx &c) {
  DType k = solve_type(c);
  int64_t n = square_size(c, "A");
  set_result(c, solve_general(c, k, n));
  set_info(c, c.tensor("A"), rank_of(c, "A"));
}

// cholesky(self, bool upper=False) / linalg_cholesky(self, *, upper) / linalg_cholesky_ex(self,
// *, upper, check_errors) -> (L, info): the factor of a symmetric positive-definite matrix, read
// from its lower triangle.
void aten_linalg_cholesky(ConvertCtx &c) {
  DType k = solve_type(c);
  int64_t n = square_size(c, "self"), rank = rank_of(c, "self");
  Val l = cholesky_lower(c.b, k, cast_to(c.b, c.tensor("self"), k), n);
  set_result(c, c.arg<bool>("upper", false) ? swap_last(c.b, l, rank) : l);
  set_info(c, c.tensor("self"), rank);
}

// triangular_solve(self, A, bool upper=True, bool transpose=False, bool unitriangular=False)
// -> (solution, cloned_coefficient): A X = self (A^T X = self when transpose).
void aten_triangular_solve(ConvertCtx &c) {
  DType k = solve_type(c);
  GraphBuilder &b = c.b;
  int64_t n = square_size(c, "A"), ra = rank_of(c, "A"), rb = rank_of(c, "self");
  bool upper = c.arg<bool>("upper", true), trans = c.arg<bool>("transpose", false);
  Val a = cast_to(b, c.tensor("A"), k);
  Val rhs = with_batch_of(b, cast_to(b, c.tensor("self"), k), a, ra);
  Val x = triangular(b, trans ? swap_last(b, a, ra) : a, rhs, n, upper == trans,
                     c.arg<bool>("unitriangular", false));
  set_result(c, x);
  set_result(c, with_batch_of(b, a, rhs, std::max(ra, rb)), 1);
}

// linalg_solve_triangular(self, B, *, bool upper, bool left=True, bool unitriangular=False):
// self X = B, or X self = B.
void aten_linalg_solve_triangular(ConvertCtx &c) {
  DType k = solve_type(c);
  GraphBuilder &b = c.b;
  int64_t n = square_size(c, "self"), ra = rank_of(c, "self"), rb = rank_of(c, "B");
  bool upper = c.arg<bool>("upper"), left = c.arg<bool>("left", true);
  Val a = cast_to(b, c.tensor("self"), k), rhs = cast_to(b, c.tensor("B"), k);
  if (!left) {
    a = swap_last(b, a, ra);
    rhs = swap_last(b, rhs, rb);
  }
  Val x = triangular(b, a, with_batch_of(b, rhs, a, ra), n, left != upper,
                     c.arg<bool>("unitriangular", false));
  set_result(c, left ? x : swap_last(b, x, std::max(ra, rb)));
}

namespace {

// (L L^T)^-1 B, or (U^T U)^-1 B: two triangular solves.
Val cholesky_solve(GraphBuilder &b, DType k, const Val &l, const Val &rhs, int64_t n, int64_t rank,
                   bool upper) {
  Val lower = upper ? swap_last(b, l, rank) : l;
  Val y = triangular(b, lower, rhs, n, true, false);
  return triangular(b, swap_last(b, lower, rank), y, n, false, false);
}

} // namespace

// cholesky_solve(self, input2, bool upper=False): (input2 input2^T)^-1 self (upper: U^T U).
void aten_cholesky_solve(ConvertCtx &c) {
  DType k = solve_type(c);
  int64_t n = square_size(c, "input2"), rank = rank_of(c, "input2");
  Val l = cast_to(c.b, c.tensor("input2"), k);
  Val rhs = with_batch_of(c.b, cast_to(c.b, c.tensor("self"), k), l, rank);
  set_result(c, cholesky_solve(c.b, k, l, rhs, n, rank, c.arg<bool>("upper", false)));
}

// cholesky_inverse(self, bool upper=False): (L L^T)^-1 from its Cholesky factor.
void aten_cholesky_inverse(ConvertCtx &c) {
  DType k = solve_type(c);
  int64_t n = square_size(c, "self"), rank = rank_of(c, "self");
  Val l = cast_to(c.b, c.tensor("self"), k);
  set_result(c, cholesky_solve(c.b, k, l, identity_like(c.b, k, l, n), n, rank,
                               c.arg<bool>("upper", false)));
}

// matrix_power(self, int n) / linalg_matrix_power: repeated squaring; the inverse's power for
// n < 0, the identity for n == 0.
void aten_matrix_power(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  int64_t size = square_size(c, "self"), e = c.arg<int64_t>("n");
  DType t = out_dtype(c);
  DType k = e < 0 ? solve_type(c) : (is_floating(t) ? solve_type(c) : DType::Int64);
  Val a = cast_to(b, c.tensor("self"), k);
  if (e == 0) {
    set_result(c, identity_like(b, k, a, size));
    return;
  }
  if (e < 0) {
    a = gauss_jordan(b, k, a, identity_like(b, k, a, size), size);
    e = -e;
  }
  Val result;
  for (Val p = a; e > 0; e >>= 1) {
    if (e & 1)
      result = result.valid() ? b.op1("MatMul", {result, p}) : p;
    if (e > 1)
      p = b.op1("MatMul", {p, p});
  }
  set_result(c, result.name == a.name ? b.op1("Identity", {a}) : result);
}

// matrix_exp(self) / linalg_matrix_exp: scaling and squaring. With s = ceil(log2 |A|_inf)
// clamped to [0, 20] (computed at run time), exp(A) = T(A / 2^s)^(2^s), T a degree-18 Taylor
// polynomial (error below 1e-17 for a norm of at most 1); the 20 squarings are unrolled, each
// applied only while its index is below s.
void aten_matrix_exp(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  DType k = solve_type(c);
  int64_t n = square_size(c, "self");
  constexpr int kMaxSquarings = 20, kDegree = 18;
  Val a = cast_to(b, c.tensor("self"), k);
  Val rows = op_t(b, k, "ReduceSum", {op_t(b, k, "Abs", {a}), b.const_i64({-1})},
                  {{"keepdims", int64_t{1}}});
  Val norm = op_t(b, k, "ReduceMax", {rows}, {{"axes", std::vector<int64_t>{-2}}, {"keepdims", 1}});
  Val s = op_t(b, k, "Ceil",
               {op_t(b, k, "Div", {op_t(b, k, "Log", {norm}), scalar(b, k, std::log(2.0))})});
  s = op_t(b, k, "Min", {op_t(b, k, "Max", {s, scalar(b, k, 0)}), scalar(b, k, kMaxSquarings)});
  Val x = op_t(b, k, "Div", {a, op_t(b, k, "Pow", {scalar(b, k, 2), s})});
  Val eye = identity_like(b, k, a, n);
  Val p = eye;
  for (int j = kDegree; j >= 1; --j) // Horner: I + X/j (I + X/(j+1) (...))
    p = op_t(b, k, "Add",
             {eye, op_t(b, k, "Div", {op_t(b, k, "MatMul", {x, p}), scalar(b, k, j)})});
  for (int i = 0; i < kMaxSquarings; ++i)
    p = op_t(b, k, "Where",
             {op_t(b, DType::Bool, "Less", {scalar(b, k, i), s}), op_t(b, k, "MatMul", {p, p}), p});
  set_result(c, p);
}

namespace {

// The static sizes of tensor argument `name` (the tensor ops reshape to matrices).
std::vector<int64_t> static_sizes(const ConvertCtx &c, std::string_view name) {
  const TensorInfo &info = c.info(name);
  T2O_CHECK(info.has_rank() && info.is_static(), "{} needs static sizes, got {}", c.op(),
            info.str());
  return info.sizes();
}

int64_t product(const std::vector<int64_t> &v, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to; ++i)
    p *= v[i];
  return p;
}

} // namespace

// linalg_tensorinv(self, int ind=2): self as a [prod(shape[:ind]), prod(shape[ind:])] matrix,
// inverted and shaped shape[ind:] + shape[:ind].
void aten_linalg_tensorinv(ConvertCtx &c) {
  DType k = solve_type(c);
  auto sizes = static_sizes(c, "self");
  auto ind = static_cast<size_t>(c.arg<int64_t>("ind", 2));
  T2O_CHECK(ind > 0 && ind <= sizes.size(), "{}: ind must be in [1, {}], got {}", c.op(),
            sizes.size(), ind);
  int64_t n = product(sizes, 0, ind);
  T2O_CHECK(n == product(sizes, ind, sizes.size()),
            "{}: the product of the first ind dims must equal that of the others", c.op());
  Val m = reshape(c.b, cast_to(c.b, c.tensor("self"), k), {n, n});
  Val inv = gauss_jordan(c.b, k, m, identity_like(c.b, k, m, n), n);
  std::vector<int64_t> shape(sizes.begin() + static_cast<std::ptrdiff_t>(ind), sizes.end());
  shape.insert(shape.end(), sizes.begin(), sizes.begin() + static_cast<std::ptrdiff_t>(ind));
  set_result(c, reshape(c.b, inv, shape));
}

// linalg_tensorsolve(self, other, int[]? dims=None): x with tensordot(self, x, x.ndim) == other;
// self (its `dims` moved last) as a [other.numel(), prod(rest)] matrix.
void aten_linalg_tensorsolve(ConvertCtx &c) {
  DType k = solve_type(c);
  auto sa = static_sizes(c, "self"), sb = static_sizes(c, "other");
  auto rank = static_cast<int64_t>(sa.size());
  Val a = cast_to(c.b, c.tensor("self"), k);
  if (c.has("dims")) {
    std::vector<int64_t> moved, perm;
    for (int64_t d : c.ints("dims"))
      moved.push_back(norm_axis(d, rank));
    for (int64_t i = 0; i < rank; ++i)
      if (std::find(moved.begin(), moved.end(), i) == moved.end())
        perm.push_back(i);
    perm.insert(perm.end(), moved.begin(), moved.end());
    a = transpose(c.b, a, perm);
    std::vector<int64_t> permuted;
    for (int64_t p : perm)
      permuted.push_back(sa[static_cast<size_t>(p)]);
    sa = permuted;
  }
  T2O_CHECK(sb.size() <= sa.size(), "{}: other has more dims than self", c.op());
  int64_t rows = product(sb, 0, sb.size()), n = product(sa, sb.size(), sa.size());
  T2O_CHECK(rows == n, "{}: self must be square when reshaped (got {} x {})", c.op(), rows, n);
  Val x = gauss_jordan(c.b, k, reshape(c.b, a, {n, n}),
                       reshape(c.b, cast_to(c.b, c.tensor("other"), k), {n, 1}), n);
  set_result(c, reshape(c.b, x,
                        std::vector<int64_t>(sa.begin() + static_cast<std::ptrdiff_t>(sb.size()),
                                             sa.end())));
}

namespace {

// The matrix norms linalg_cond takes without singular values: 'fro' and +-1 (column sums),
// +-inf (row sums).
Val cond_norm(GraphBuilder &b, DType k, const Val &x, const std::string &ord, double p) {
  if (ord == "fro")
    return op_t(b, k, "Sqrt",
                {op_t(b, k, "ReduceSum", {op_t(b, k, "Mul", {x, x}), b.const_i64({-2, -1})},
                      {{"keepdims", int64_t{0}}})});
  Val s =
      op_t(b, k, "ReduceSum", {op_t(b, k, "Abs", {x}), b.const_i64({std::abs(p) == 1 ? -2 : -1})},
           {{"keepdims", int64_t{0}}});
  return op_t(b, k, p > 0 ? "ReduceMax" : "ReduceMin", {s},
              {{"axes", std::vector<int64_t>{-1}}, {"keepdims", int64_t{0}}});
}

} // namespace

// linalg_cond(self, Scalar? p=None) / linalg_cond.p_str(self, str p): |A| |A^-1| for the norms
// that need no singular values (p = 1, -1, inf, -inf, 'fro').
void aten_linalg_cond(ConvertCtx &c) {
  bool str = c.has("p") && c.arg("p").kind == Arg::Kind::String;
  std::string ord = str ? c.arg<std::string>("p") : "";
  double p = str || !c.has("p") ? 2 : c.arg<double>("p");
  if (!(ord == "fro" || (!str && (std::abs(p) == 1 || std::isinf(p)))))
    throw Error(fmt::format("{} with p={} needs singular values (an SVD), which ONNX lacks", c.op(),
                            str          ? "'" + ord + "'"
                            : c.has("p") ? fmt::format("{}", p)
                                         : "None"),
                "use p=1, -1, inf, -inf or 'fro', or compute the condition number outside the "
                "model");
  DType k = solve_type(c);
  int64_t n = square_size(c, "self");
  Val a = cast_to(c.b, c.tensor("self"), k);
  Val inv = gauss_jordan(c.b, k, a, identity_like(c.b, k, a, n), n);
  set_result(c,
             op_t(c.b, k, "Mul", {cond_norm(c.b, k, a, ord, p), cond_norm(c.b, k, inv, ord, p)}));
}

void register_solve_ops(Registry &r) {
  const std::vector<std::string> gauss = {
      "Concat", "Abs",    "Squeeze", "Slice",     "GreaterOrEqual", "Greater", "Or",
      "Where",  "ArgMax", "Equal",   "Unsqueeze", "Expand",         "Shape",   "GatherElements",
      "Div",    "Sub",    "Mul",     "Cast"};
  auto with = [&](std::vector<std::string> more) {
    more.insert(more.end(), gauss.begin(), gauss.end());
    return more;
  };
  for (const char *op : {"aten::inverse", "aten::linalg_inv", "aten::linalg_inv_ex"})
    r.add(op, 11, aten_linalg_inv, with({"ConstantOfShape"}));
  for (const char *op : {"aten::linalg_solve", "aten::linalg_solve_ex"})
    r.add(op, 11, aten_linalg_solve, with({"Transpose", "ConstantOfShape"}));
  for (const char *op : {"aten::cholesky", "aten::linalg_cholesky", "aten::linalg_cholesky_ex"})
    r.add(op, 11, aten_linalg_cholesky,
          {"Slice", "Sub", "ReduceSum", "Transpose", "Sqrt", "GreaterOrEqual", "Greater", "Or",
           "Div", "Where", "Equal", "Cast", "Mul", "Add", "ConstantOfShape", "Shape"});
  const std::vector<std::string> subst = {"Slice", "Gather",    "Concat", "Sub",   "MatMul",
                                          "Div",   "Transpose", "Expand", "Shape", "Cast"};
  r.add("aten::triangular_solve", 11, aten_triangular_solve, subst);
  r.add("aten::linalg_solve_triangular", 11, aten_linalg_solve_triangular, subst);
  r.add("aten::cholesky_solve", 11, aten_cholesky_solve, subst);
  r.add("aten::cholesky_inverse", 11, aten_cholesky_inverse, subst);
  for (const char *op : {"aten::matrix_power", "aten::linalg_matrix_power"})
    r.add(op, 11, aten_matrix_power, with({"MatMul", "Identity"}));
  for (const char *op : {"aten::matrix_exp", "aten::linalg_matrix_exp"})
    r.add(op, 11, aten_matrix_exp,
          {"Abs", "ReduceSum", "ReduceMax", "Log", "Div", "Ceil", "Max", "Min", "Pow", "Cast",
           "Expand", "Shape", "MatMul", "Add", "Less", "Where"});
  r.add("aten::linalg_tensorinv", 11, aten_linalg_tensorinv, with({"Reshape"}));
  r.add("aten::linalg_tensorsolve", 11, aten_linalg_tensorsolve, with({"Reshape", "Transpose"}));
  r.add("aten::linalg_cond", 11, aten_linalg_cond,
        with({"Sqrt", "ReduceSum", "ReduceMax", "ReduceMin"}));
}

} // namespace torch2onnx
