// fold-conv-batchnorm: an inference BatchNormalization whose input is a Conv's output (read by
// nothing else), with constant float32 weights and statistics, is folded into the Conv: new
// weights W * s and bias (b - mean) * s + shift, s = scale / sqrt(var + eps). The old weights are
// freed at once, so the peak holds one copy of the model's weights plus one layer.
#include "builder/rewrites/rules.h"

#include <cmath>

namespace torch2onnx::rewrites {

namespace {

// What the fold reads; `w` points into the Conv's weight initializer (not copied).
struct FoldInputs {
  int conv = -1;
  const float *w = nullptr;
  size_t wn = 0;
  int64_t m = 0; // output channels
  bool has_bias = false;
  std::vector<float> b, scale, shift, mean, var;
};

bool read_statistics(const OptGraph &g, const onnx::NodeProto &bn, FoldInputs &f) {
  const auto &conv = g.node(f.conv);
  f.has_bias = conv.input_size() >= 3 && !conv.input(2).empty();
  if (f.has_bias && !g.float_values(conv.input(2), f.b))
    return false;
  if (!f.has_bias)
    f.b.assign(static_cast<size_t>(f.m), 0.0f);
  if (!g.float_values(bn.input(1), f.scale) || !g.float_values(bn.input(2), f.shift) ||
      !g.float_values(bn.input(3), f.mean) || !g.float_values(bn.input(4), f.var))
    return false;
  auto sm = static_cast<size_t>(f.m);
  return f.m > 0 && f.b.size() == sm && f.scale.size() == sm && f.shift.size() == sm &&
         f.mean.size() == sm && f.var.size() == sm && f.wn % sm == 0;
}

// Checks the pattern and reads its constants; false when node i cannot be folded.
bool read_fold(const OptGraph &g, int i, FoldInputs &f) {
  const auto &bn = g.node(i);
  if (bn.output_size() != 1 || bn.input_size() != 5)
    return false;
  const auto *tm = attr(bn, "training_mode");
  if (tm && tm->i() != 0)
    return false;
  const std::string &x = bn.input(0);
  f.conv = g.producer(x);
  if (f.conv < 0 || g.uses(x) != 1 || g.is_graph_output(x))
    return false;
  const auto &conv = g.node(f.conv);
  if (conv.op_type() != "Conv" || !conv.domain().empty() || conv.input_size() < 2)
    return false;
  f.w = g.float_data(conv.input(1), f.wn); // read in place: weights can be large
  if (!f.w)
    return false;
  const auto *wt = g.initializer(conv.input(1));
  if (wt->dims_size() < 1)
    return false;
  f.m = wt->dims(0);
  return read_statistics(g, bn, f);
}

bool matches(const OptGraph &g, int i) {
  FoldInputs f;
  return read_fold(g, i, f);
}

void apply(OptGraph &g, int i) {
  FoldInputs f;
  read_fold(g, i, f);
  const auto &bn = g.node(i);
  const auto *eps_attr = attr(bn, "epsilon");
  double eps = eps_attr ? eps_attr->f() : 1e-5;
  auto sm = static_cast<size_t>(f.m);
  size_t per = f.wn / sm;
  std::string w2(f.wn * sizeof(float), '\0');
  auto *out_w = reinterpret_cast<float *>(w2.data());
  std::vector<float> b2(sm);
  for (size_t c = 0; c < sm; ++c) {
    double s = static_cast<double>(f.scale[c]) / std::sqrt(static_cast<double>(f.var[c]) + eps);
    for (size_t k = 0; k < per; ++k)
      out_w[c * per + k] = static_cast<float>(f.w[c * per + k] * s);
    b2[c] = static_cast<float>((static_cast<double>(f.b[c]) - f.mean[c]) * s + f.shift[c]);
  }
  const auto &conv = g.node(f.conv);
  const auto *wt = g.initializer(conv.input(1));
  std::vector<int64_t> wdims(wt->dims().begin(), wt->dims().end());
  std::string stem = conv.input(1);
  std::string old_b = f.has_bias ? conv.input(2) : std::string();
  std::string wname = g.add_float_initializer_raw(stem + "_bnfold", wdims, std::move(w2));
  std::string bname = g.add_float_initializer(stem + "_bnfold_bias", {f.m}, b2);
  std::string out = bn.output(0);
  std::vector<std::string> bn_inputs(bn.input().begin(), bn.input().end());
  g.remove(i);
  g.replace_input(f.conv, 1, wname);
  if (g.node(f.conv).input_size() >= 3)
    g.replace_input(f.conv, 2, bname);
  else
    g.append_input(f.conv, bname);
  g.rename_output(f.conv, 0, out);
  // The old weights are usually read by this Conv only: free them now, not at the end.
  g.release_if_unused(stem);
  if (!old_b.empty())
    g.release_if_unused(old_b);
  for (size_t k = 1; k < 5; ++k)
    g.release_if_unused(bn_inputs[k]);
}

} // namespace

RewriteRule fold_conv_batchnorm_rule() {
  RewriteRule r;
  r.name = "fold-conv-batchnorm";
  r.target_op = "BatchNormalization";
  r.elem_types = {onnx::TensorProto::FLOAT};
  r.matches = matches;
  r.apply = apply;
  return r;
}

} // namespace torch2onnx::rewrites
