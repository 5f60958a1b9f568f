// fold-matmul-scale: a Mul by a constant that scales a MatMul's output features — ConvNeXt's and
// CaiT's layer scale `gamma * linear(x)`, a Linear followed by `* 0.5` — is folded into the
// MatMul's constant float32 weight W [K, N] (and the Linear's bias Add, a constant [N], between
// the two): W[:, c] * s[c], b[c] * s[c]. The constant is a scalar or has N elements along one
// axis: the last, or the one a Transpose between makes of it (ConvNeXt's `gamma [C, 1, 1] *
// permute(linear(x))`); the Mul's output has the shape of its other input (it broadcasts nothing).
// Exact up to float rounding, like fold-conv-batchnorm; ONNX Runtime has no fusion for it, so the
// Mul otherwise runs over the whole activation. A weight something else reads (tied) is left alone.
#include "builder/rewrites/rules.h"

namespace torch2onnx::rewrites {

namespace {

struct Fold {
  int matmul = -1, add = -1; // add: the Linear's bias Add, or -1
  int scale_at = -1;         // the Mul's input holding the scales (0 or 1)
  const float *w = nullptr;
  size_t wn = 0;
  int64_t k = 0, n = 0;
  std::vector<float> bias, scale; // scale: one value, or n
};

// Reads the Mul's constant operand (either input) as per-feature scales; `other` gets the input
// the scales multiply and `axis` the axis of `other` they run along (-1: a single value).
bool read_scale(const OptGraph &g, int i, Fold &f, std::string &other, int &axis) {
  const auto &mul = g.node(i);
  if (mul.input_size() != 2 || mul.output_size() != 1 || g.is_graph_output(mul.output(0)))
    return false;
  for (int s = 0; s < 2; ++s) {
    const auto *t = g.initializer(mul.input(s));
    if (!t || !g.float_values(mul.input(s), f.scale))
      continue;
    other = mul.input(1 - s);
    f.scale_at = s;
    std::vector<int64_t> in_shape, out_shape;
    // The Mul must broadcast nothing onto the MatMul's output (same shape in and out).
    if (!g.static_shape(other, in_shape) || !g.static_shape(mul.output(0), out_shape) ||
        in_shape != out_shape || t->dims_size() > static_cast<int>(in_shape.size()))
      return false;
    int rank = static_cast<int>(in_shape.size()), offset = rank - t->dims_size();
    axis = -1;
    for (int d = 0; d < t->dims_size(); ++d) {
      if (t->dims(d) == 1)
        continue;
      if (axis >= 0)
        return false; // scales along two axes
      axis = d + offset;
    }
    return true;
  }
  return false;
}

bool read_fold(const OptGraph &g, int i, Fold &f) {
  std::string x;
  int axis = -1;
  if (!read_scale(g, i, f, x, axis))
    return false;
  // A Transpose between (ConvNeXt: the block's Linear, then permute back to NCHW, then the
  // layer scale [C, 1, 1]): the scales run along its input's axis perm[axis].
  int transpose = only_producer(g, x, "Transpose");
  std::vector<int64_t> shape;
  if (transpose >= 0) {
    const auto *perm = attr(g.node(transpose), "perm");
    if (!perm || axis >= perm->ints_size())
      return false;
    if (axis >= 0)
      axis = static_cast<int>(perm->ints(axis));
    x = g.node(transpose).input(0);
  }
  if (!g.static_shape(x, shape) || (axis >= 0 && axis != static_cast<int>(shape.size()) - 1))
    return false;
  f.add = only_producer(g, x, "Add");
  if (f.add >= 0) {
    const auto &add = g.node(f.add);
    if (add.input_size() != 2 || !g.float_values(add.input(1), f.bias))
      return false;
    x = add.input(0);
  }
  f.matmul = only_producer(g, x, "MatMul");
  if (f.matmul < 0 || !read_matmul_weight(g, f.matmul, f.w, f.wn, f.k, f.n))
    return false;
  auto sn = static_cast<size_t>(f.n);
  if (f.add >= 0) { // the bias runs along the last axis: [N], [1, N], ...
    const auto *b = g.initializer(g.node(f.add).input(1));
    if (f.bias.size() != sn || b->dims_size() < 1 || b->dims(b->dims_size() - 1) != f.n)
      return false;
  }
  return f.scale.size() == sn || f.scale.size() == 1;
}

bool matches(const OptGraph &g, int i) {
  Fold f;
  return read_fold(g, i, f);
}

void apply(OptGraph &g, int i) {
  Fold f;
  read_fold(g, i, f);
  auto sn = static_cast<size_t>(f.n);
  std::vector<double> col(sn);
  for (size_t c = 0; c < sn; ++c)
    col[c] = f.scale.size() == 1 ? f.scale[0] : f.scale[c];
  scale_matmul_columns(g, f.matmul, f.w, f.k, f.n, col, "_scaled");
  if (f.add >= 0) {
    std::vector<float> b2(sn);
    for (size_t c = 0; c < sn; ++c)
      b2[c] = static_cast<float>(f.bias[c] * col[c]); // the float product, rounded once
    std::string old_b = g.node(f.add).input(1);
    g.replace_input(f.add, 1, g.add_float_initializer(old_b + "_scaled", {f.n}, b2));
    g.release_if_unused(old_b);
  }
  // The Mul goes: its readers read its other input (the MatMul's, the bias Add's or the
  // Transpose's output).
  const auto &mul = g.node(i);
  std::string in = mul.input(1 - f.scale_at), scale = mul.input(f.scale_at), out = mul.output(0);
  g.remove(i);
  g.alias(out, in);
  g.release_if_unused(scale);
}

} // namespace

RewriteRule fold_matmul_scale_rule() {
  RewriteRule r;
  r.name = "fold-matmul-scale";
  r.target_op = "Mul";
  r.elem_types = {onnx::TensorProto::FLOAT};
  r.matches = matches;
  r.apply = apply;
  return r;
}

} // namespace torch2onnx::rewrites
