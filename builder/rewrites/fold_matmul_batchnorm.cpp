// fold-matmul-batchnorm: an inference BatchNormalization over the output features of a MatMul
// with a constant float32 weight W [K, N] — what a Linear followed by BatchNorm1d gives, e.g.
// LeViT's `bn(linear(x).flatten(0, 1)).reshape_as(...)` — is folded into the weight: W * s and a
// bias (b - mean) * s + shift, s = scale / sqrt(var + eps). Between the two there may be the
// Linear's bias Add (a constant [N]) and a Reshape to [rows, N] (the BatchNormalization's input is
// 2-D, so its channels are the MatMul's last dim). Exact up to float rounding, like
// fold-conv-batchnorm; and ONNX Runtime's own MatMulBnFusion, which turns such a pair into a Gemm
// that refuses a rank-3 input, has nothing left to fuse. A weight something else reads (tied) is
// left alone.
#include "builder/rewrites/rules.h"

#include <cmath>

namespace torch2onnx::rewrites {

namespace {

struct Fold {
  int matmul = -1, add = -1; // add: the Linear's bias Add, or -1
  const float *w = nullptr;
  size_t wn = 0;
  int64_t k = 0, n = 0;
  std::vector<float> bias, scale, shift, mean, var;
};

// Whether node `r` (a Reshape) makes [rows, n] of a tensor whose last dim is n.
bool reshape_to_rows(const OptGraph &g, int r, int64_t n) {
  const auto &node = g.node(r);
  std::vector<int64_t> shape;
  if (node.input_size() < 2 || !g.int_values(node.input(1), shape) || shape.size() != 2)
    return false;
  const auto *allowzero = attr(node, "allowzero");
  return shape[1] == n && shape[0] != 0 && !(allowzero && allowzero->i() != 0);
}

bool read_fold(const OptGraph &g, int i, Fold &f) {
  const auto &bn = g.node(i);
  const auto *tm = attr(bn, "training_mode");
  if (bn.output_size() != 1 || bn.input_size() != 5 || (tm && tm->i() != 0))
    return false;
  bool output = g.is_graph_output(bn.output(0));
  std::vector<int64_t> in_shape;
  std::string x = bn.input(0);
  int reshape = only_producer(g, x, "Reshape");
  if (reshape >= 0)
    x = g.node(reshape).input(0);
  else if (!g.static_shape(x, in_shape) || in_shape.size() != 2)
    return false; // without a Reshape, the MatMul's output itself must be 2-D
  f.add = only_producer(g, x, "Add");
  if (f.add >= 0) {
    const auto &add = g.node(f.add);
    // (a graph output cannot be forwarded to the Add: the BatchNormalization must stay a node)
    if (add.input_size() != 2 || output || !g.float_values(add.input(1), f.bias))
      return false;
    x = add.input(0);
  }
  f.matmul = only_producer(g, x, "MatMul");
  if (f.matmul < 0 || !read_matmul_weight(g, f.matmul, f.w, f.wn, f.k, f.n))
    return false;
  if (reshape >= 0 && !reshape_to_rows(g, reshape, f.n))
    return false;
  auto sn = static_cast<size_t>(f.n);
  if (f.add < 0)
    f.bias.assign(sn, 0.0f);
  return f.bias.size() == sn && g.float_values(bn.input(1), f.scale) && f.scale.size() == sn &&
         g.float_values(bn.input(2), f.shift) && f.shift.size() == sn &&
         g.float_values(bn.input(3), f.mean) && f.mean.size() == sn &&
         g.float_values(bn.input(4), f.var) && f.var.size() == sn;
}

bool matches(const OptGraph &g, int i) {
  Fold f;
  return read_fold(g, i, f);
}

void apply(OptGraph &g, int i) {
  Fold f;
  read_fold(g, i, f);
  const auto *eps_attr = attr(g.node(i), "epsilon");
  double eps = eps_attr ? eps_attr->f() : 1e-5;
  auto sn = static_cast<size_t>(f.n);
  std::vector<double> s(sn);
  std::vector<float> b2(sn);
  for (size_t c = 0; c < sn; ++c) {
    s[c] = static_cast<double>(f.scale[c]) / std::sqrt(static_cast<double>(f.var[c]) + eps);
    b2[c] = static_cast<float>((static_cast<double>(f.bias[c]) - f.mean[c]) * s[c] + f.shift[c]);
  }
  std::string stem = g.node(f.matmul).input(1);
  scale_matmul_columns(g, f.matmul, f.w, f.k, f.n, s, "_bnfold");
  std::string bname = g.add_float_initializer(stem + "_bnfold_bias", {f.n}, b2);
  std::vector<std::string> stats(g.node(i).input().begin() + 1, g.node(i).input().end());
  if (f.add >= 0) {
    // The Linear's bias becomes the folded one; the BatchNormalization goes.
    std::string old_b = g.node(f.add).input(1);
    g.replace_input(f.add, 1, bname);
    g.release_if_unused(old_b);
    forward_input(g, i);
  } else {
    // No bias to fold into: the BatchNormalization becomes the Add of the folded bias.
    g.retype(i, "Add", 1);
    g.append_input(i, bname);
  }
  for (const auto &v : stats)
    g.release_if_unused(v);
}

} // namespace

RewriteRule fold_matmul_batchnorm_rule() {
  RewriteRule r;
  r.name = "fold-matmul-batchnorm";
  r.target_op = "BatchNormalization";
  r.elem_types = {onnx::TensorProto::FLOAT};
  r.matches = matches;
  r.apply = apply;
  return r;
}

} // namespace torch2onnx::rewrites
