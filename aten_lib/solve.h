// Building blocks of the unrolled linear algebra (solve.cpp, lu.cpp): ONNX has no solve, inverse
// or factorization operators (only Det), so these run Gauss-Jordan elimination, substitution and
// Cholesky on the static size n of the matrices, batched over any leading dims.
#pragma once

#include "aten_lib/converter.h"

#include <string_view>

namespace torch2onnx {

// float or double (half types in float): the dtype the elimination runs in.
DType solve_type(const ConvertCtx &c);

// The static size n of the square matrices [..., n, n] in tensor argument `name`. Throws, naming
// the op, when the rank is below 2, the matrices are not square or n is dynamic.
// Example: square_size(c, "A") == 3 for a [B, 3, 3] input.
int64_t square_size(const ConvertCtx &c, std::string_view name);

// x with its last two dims swapped. Example: swap_last(b, a, 3) for [B, n, m] -> [B, m, n].
Val swap_last(GraphBuilder &b, const Val &x, int64_t rank);

// Elements [start, end) of x along `axis`. Example: slice_axis(b, m, 2, 3, -1): column 2.
Val slice_axis(GraphBuilder &b, const Val &x, int64_t start, int64_t end, int64_t axis);

// The n x n identity of dtype k (Float, Double or Int64), expanded to the shape of `like` ([..., n,
// n]).
Val identity_like(GraphBuilder &b, DType k, const Val &like, int64_t n);

// x ([..., r, c]) expanded so its batch dims broadcast with those of `other` (of rank
// other_rank). Example: with_batch_of(b, rhs, a, 3) gives rhs the batch dims of a as well.
Val with_batch_of(GraphBuilder &b, const Val &x, const Val &other, int64_t other_rank);

// A^-1 B by Gauss-Jordan elimination with partial pivoting. a: [..., n, n]; rhs: [..., n, m]
// with the same batch dims. Example: gauss_jordan(b, k, a, identity_like(b, k, a, n), n).
Val gauss_jordan(GraphBuilder &b, DType k, const Val &a, const Val &rhs, int64_t n);

// A^-1 B for triangular A, by substitution reading only A's lower (or upper) triangle, the
// diagonal taken as ones when `unit`. rhs: [..., n, m] with the batch dims of the result.
Val triangular(GraphBuilder &b, const Val &a, const Val &rhs, int64_t n, bool lower, bool unit);

// The int32 zeros of the batch dims of a ([..., n, n]): the `info` output of the *_ex ops, which
// report no failure (ONNX has no way to report one).
Val zero_info(GraphBuilder &b, const Val &a, int64_t rank);

} // namespace torch2onnx
