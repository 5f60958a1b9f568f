#include "builder/rewrites/rules.h"

namespace torch2onnx {

namespace rewrites {

const onnx::AttributeProto *attr(const onnx::NodeProto &n, const std::string &name) {
  for (const auto &a : n.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

size_t element_size(int type) {
  switch (type) {
  case onnx::TensorProto::DOUBLE:
  case onnx::TensorProto::INT64:
  case onnx::TensorProto::UINT64:
    return 8;
  case onnx::TensorProto::FLOAT:
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::UINT32:
    return 4;
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
  case onnx::TensorProto::INT16:
  case onnx::TensorProto::UINT16:
    return 2;
  case onnx::TensorProto::INT8:
  case onnx::TensorProto::UINT8:
  case onnx::TensorProto::BOOL:
    return 1;
  default:
    return 0;
  }
}

bool has_subgraph(const onnx::NodeProto &n) {
  for (const auto &a : n.attribute())
    if (a.has_g() || a.graphs_size() > 0)
      return true;
  return false;
}

bool can_forward_input(const OptGraph &g, int i) {
  const auto &n = g.node(i);
  if (n.input_size() < 1 || n.output_size() < 1 || g.is_graph_output(n.output(0)))
    return false;
  for (int k = 1; k < n.output_size(); ++k)
    if (!n.output(k).empty() && g.uses(n.output(k)) > 0)
      return false;
  return true;
}

void forward_input(OptGraph &g, int i) {
  const auto &n = g.node(i);
  std::string in = n.input(0), out = n.output(0);
  g.remove(i);
  g.alias(out, in);
}

int only_producer(const OptGraph &g, const std::string &value, const char *op) {
  int p = g.producer(value);
  if (p < 0 || g.uses(value) != 1 || g.is_graph_output(value))
    return -1;
  const auto &n = g.node(p);
  return n.op_type() == op && n.domain().empty() ? p : -1;
}

bool read_matmul_weight(const OptGraph &g, int matmul, const float *&w, size_t &wn, int64_t &k,
                        int64_t &n) {
  const auto &mm = g.node(matmul);
  if (mm.input_size() != 2 || g.uses(mm.input(1)) != 1)
    return false;
  const auto *wt = g.initializer(mm.input(1));
  if (!wt || wt->dims_size() != 2)
    return false;
  k = wt->dims(0);
  n = wt->dims(1);
  w = g.float_data(mm.input(1), wn);
  return w && wn == static_cast<size_t>(k * n);
}

void scale_matmul_columns(OptGraph &g, int matmul, const float *w, int64_t k, int64_t n,
                          const std::vector<double> &scale, const std::string &suffix) {
  auto rows = static_cast<size_t>(k), cols = static_cast<size_t>(n);
  std::string bytes(rows * cols * sizeof(float), '\0');
  auto *out = reinterpret_cast<float *>(bytes.data());
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c)
      out[r * cols + c] = static_cast<float>(w[r * cols + c] * scale[c]);
  std::string stem = g.node(matmul).input(1);
  g.replace_input(matmul, 1, g.add_float_initializer_raw(stem + suffix, {k, n}, std::move(bytes)));
  g.release_if_unused(stem);
}

} // namespace rewrites

const std::vector<RewriteRule> &default_rules() {
  using namespace rewrites;
  static const std::vector<RewriteRule> rules = [] {
    std::vector<RewriteRule> r = {identity_rule(),
                                  noop_cast_rule(),
                                  noop_reshape_rule(),
                                  noop_expand_rule(),
                                  noop_transpose_rule(),
                                  noop_dropout_rule(),
                                  noop_index_wrap_rule(),
                                  fold_constants_rule(),
                                  fold_reshape_chain_rule(),
                                  fold_conv_batchnorm_rule(),
                                  fold_transpose_weight_rule(),
                                  fold_matmul_batchnorm_rule(),
                                  fold_matmul_scale_rule(),
                                  cse_rule()};
    check_rule_names(r);
    return r;
  }();
  return rules;
}

} // namespace torch2onnx
