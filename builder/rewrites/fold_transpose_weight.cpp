// fold-transpose-weight: a Transpose of an initializer that nothing else reads (the weight of an
// nn.Linear, written as Transpose + MatMul) becomes the transposed initializer, so ONNX Runtime
// does not transpose it at every load (or run). Exact: the same values, moved. A weight read
// elsewhere too (an embedding tied to the LM head: Gather and Transpose + MatMul) keeps its
// Transpose, so no weight is stored twice.
#include "builder/rewrites/rules.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace torch2onnx::rewrites {

namespace {

// The permutation of node i (its `perm`, or the reversal ONNX defaults to); empty when invalid.
std::vector<int64_t> permutation(const onnx::NodeProto &n, size_t rank) {
  std::vector<int64_t> perm;
  if (const auto *p = attr(n, "perm"))
    perm.assign(p->ints().begin(), p->ints().end());
  else
    for (size_t k = rank; k-- > 0;)
      perm.push_back(static_cast<int64_t>(k));
  std::vector<bool> seen(rank, false);
  if (perm.size() != rank)
    return {};
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(rank) || seen[static_cast<size_t>(p)])
      return {};
    seen[static_cast<size_t>(p)] = true;
  }
  return perm;
}

bool matches(const OptGraph &g, int i) {
  const auto &n = g.node(i);
  if (n.input_size() != 1 || n.output_size() != 1 || !can_forward_input(g, i))
    return false;
  const auto *t = g.initializer(n.input(0));
  if (!t || g.uses(n.input(0)) != 1 || element_size(t->data_type()) == 0)
    return false;
  size_t count = 1;
  for (int64_t d : t->dims())
    count *= static_cast<size_t>(d);
  auto bytes = g.raw_bytes(*t);
  return bytes.size() == count * element_size(t->data_type()) &&
         !permutation(n, static_cast<size_t>(t->dims_size())).empty();
}

void apply(OptGraph &g, int i) {
  const std::string weight = g.node(i).input(0);
  const auto *t = g.initializer(weight);
  std::vector<int64_t> perm = permutation(g.node(i), static_cast<size_t>(t->dims_size()));
  std::vector<int64_t> in_dims(t->dims().begin(), t->dims().end()), out_dims;
  for (int64_t p : perm)
    out_dims.push_back(in_dims[static_cast<size_t>(p)]);
  std::string out = transpose_bytes(g.raw_bytes(*t), in_dims, perm, element_size(t->data_type()));
  std::string name = g.add_initializer_raw(weight + "_t", out_dims, t->data_type(), std::move(out));
  g.replace_input(i, 0, name);
  forward_input(g, i);
  g.release_if_unused(weight);
}

// Matrices [rows, cols] of `T`, `count` of them one after another, each transposed: 16 x 16
// blocks, the output written in order within a block (3-4x the element-by-element walk on a
// Linear's weight).
template <typename T>
void transpose_matrices(const char *src, char *dst, size_t count, size_t rows, size_t cols) {
  constexpr size_t kBlock = 16;
  for (size_t m = 0; m < count; ++m) {
    const T *s = reinterpret_cast<const T *>(src) + m * rows * cols;
    T *d = reinterpret_cast<T *>(dst) + m * rows * cols;
    for (size_t r0 = 0; r0 < rows; r0 += kBlock)
      for (size_t c0 = 0; c0 < cols; c0 += kBlock) {
        const size_t r1 = std::min(rows, r0 + kBlock), c1 = std::min(cols, c0 + kBlock);
        for (size_t c = c0; c < c1; ++c)
          for (size_t r = r0; r < r1; ++r)
            d[c * rows + r] = s[r * cols + c];
      }
  }
}

} // namespace

std::string transpose_bytes_generic(std::string_view src, const std::vector<int64_t> &in_dims,
                                    const std::vector<int64_t> &perm, size_t es) {
  const size_t rank = in_dims.size();
  std::vector<int64_t> out_dims(rank);
  std::vector<size_t> in_strides(rank, 1);
  for (size_t k = rank; k-- > 1;)
    in_strides[k - 1] = in_strides[k] * static_cast<size_t>(in_dims[k]);
  for (size_t k = 0; k < rank; ++k)
    out_dims[k] = in_dims[static_cast<size_t>(perm[k])];
  std::string out(src.size(), '\0');
  // Walk the output in order; `at` counts the output index per dim, `from` the source offset.
  std::vector<int64_t> at(rank, 0);
  size_t from = 0;
  for (size_t o = 0; o * es < out.size(); ++o) {
    std::memcpy(&out[o * es], &src[from * es], es);
    for (size_t k = rank; k-- > 0;) {
      size_t step = in_strides[static_cast<size_t>(perm[k])];
      if (++at[k] < out_dims[k]) {
        from += step;
        break;
      }
      from -= step * static_cast<size_t>(at[k] - 1);
      at[k] = 0;
    }
  }
  return out;
}

std::string transpose_bytes(std::string_view src, const std::vector<int64_t> &dims,
                            const std::vector<int64_t> &perm, size_t es) {
  const size_t rank = dims.size();
  bool last_two = rank >= 2 && perm[rank - 1] == static_cast<int64_t>(rank - 2) &&
                  perm[rank - 2] == static_cast<int64_t>(rank - 1);
  for (size_t k = 0; k + 2 < rank && last_two; ++k)
    last_two = perm[k] == static_cast<int64_t>(k);
  if (!last_two || (es != 1 && es != 2 && es != 4 && es != 8))
    return transpose_bytes_generic(src, dims, perm, es);
  const size_t rows = static_cast<size_t>(dims[rank - 2]),
               cols = static_cast<size_t>(dims[rank - 1]);
  const size_t count = rows * cols == 0 ? 0 : src.size() / es / (rows * cols);
  std::string out(src.size(), '\0');
  switch (es) {
  case 1:
    transpose_matrices<uint8_t>(src.data(), out.data(), count, rows, cols);
    break;
  case 2:
    transpose_matrices<uint16_t>(src.data(), out.data(), count, rows, cols);
    break;
  case 4:
    transpose_matrices<uint32_t>(src.data(), out.data(), count, rows, cols);
    break;
  default:
    transpose_matrices<uint64_t>(src.data(), out.data(), count, rows, cols);
  }
  return out;
}

RewriteRule fold_transpose_weight_rule() {
  RewriteRule r;
  r.name = "fold-transpose-weight";
  r.target_op = "Transpose";
  r.matches = matches;
  r.apply = apply;
  return r;
}

} // namespace torch2onnx::rewrites
