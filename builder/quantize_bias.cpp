// --quantized-bias int32: float biases of quantized Conv/Gemm as int32 DequantizeLinear
// (quantize_bias.h).
#include "builder/quantize_bias.h"

#include "builder/optimize.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <onnx/onnx_pb.h>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace torch2onnx {

namespace {

using onnx::TensorProto;

int64_t elements(const TensorProto &t) {
  int64_t n = 1;
  for (int64_t d : t.dims())
    n *= d;
  return n;
}

// A float32 initializer's values; false when `t` is not one or holds no data.
bool float_values(const TensorProto &t, std::vector<float> &out) {
  if (t.data_type() != TensorProto::FLOAT)
    return false;
  auto n = static_cast<size_t>(elements(t));
  if (t.float_data_size() > 0) {
    out.assign(t.float_data().begin(), t.float_data().end());
    return out.size() == n;
  }
  std::string_view raw = initializer_raw_bytes(t);
  if (raw.size() != n * sizeof(float))
    return false;
  out.resize(n);
  std::memcpy(out.data(), raw.data(), raw.size());
  return true;
}

int64_t int_attr(const onnx::NodeProto &n, const char *name, int64_t fallback) {
  for (const auto &a : n.attribute())
    if (a.name() == name)
      return a.i();
  return fallback;
}
float float_attr(const onnx::NodeProto &n, const char *name, float fallback) {
  for (const auto &a : n.attribute())
    if (a.name() == name)
      return a.f();
  return fallback;
}

// What the rewrite of one Conv/Gemm needs.
struct Candidate {
  std::vector<float> bias, scale; // scale: sx * sw, one value or one per output channel
};

class BiasQuantizer {
public:
  explicit BiasQuantizer(onnx::ModelProto &m) : g_(*m.mutable_graph()) {
    for (int i = 0; i < g_.initializer_size(); ++i)
      init_[g_.initializer(i).name()] = i;
    for (int i = 0; i < g_.node_size(); ++i)
      for (const auto &o : g_.node(i).output())
        producer_[o] = i;
    // Values and node names in one set (fresh() makes both), subgraphs' included.
    std::unordered_set<std::string> nodes;
    collect_names(g_, names_, nodes);
    names_.insert(nodes.begin(), nodes.end());
  }
  BiasQuantizationReport run();

private:
  const TensorProto *initializer(const std::string &v) const {
    auto it = init_.find(v);
    return it == init_.end() ? nullptr : &g_.initializer(it->second);
  }
  // The DequantizeLinear node producing `v`, or null.
  const onnx::NodeProto *dequantize_of(const std::string &v) const {
    auto it = producer_.find(v);
    if (it == producer_.end())
      return nullptr;
    const auto &n = g_.node(it->second);
    return n.op_type() == "DequantizeLinear" && n.domain().empty() && n.input_size() >= 2 ? &n
                                                                                          : nullptr;
  }
  bool weight_scales(const onnx::NodeProto &n, std::vector<float> &sw, int64_t &m) const;
  bool candidate(const onnx::NodeProto &n, Candidate &c) const;
  onnx::NodeProto bias_dequantize(const onnx::NodeProto &n, const Candidate &c);
  std::string fresh(const std::string &hint);

  onnx::GraphProto &g_;
  std::unordered_map<std::string, int> init_, producer_;
  std::unordered_set<std::string> names_;
};

std::string BiasQuantizer::fresh(const std::string &hint) {
  std::string name = hint;
  for (int k = 1; names_.count(name); ++k)
    name = hint + "_" + std::to_string(k);
  names_.insert(name);
  return name;
}

// The weight's scales (one, or one per output channel) and its output-channel count `m`.
bool BiasQuantizer::weight_scales(const onnx::NodeProto &n, std::vector<float> &sw,
                                  int64_t &m) const {
  const onnx::NodeProto *dq = dequantize_of(n.input(1));
  const TensorProto *w = dq ? initializer(dq->input(0)) : nullptr;
  const TensorProto *s = dq ? initializer(dq->input(1)) : nullptr;
  if (!w || !s || (w->data_type() != TensorProto::INT8 && w->data_type() != TensorProto::UINT8) ||
      w->dims_size() < 2 || !float_values(*s, sw) || sw.empty())
    return false;
  bool gemm = n.op_type() == "Gemm";
  int64_t out_axis = gemm && int_attr(n, "transB", 0) == 0 ? 1 : 0;
  if (gemm && w->dims_size() != 2)
    return false;
  m = w->dims(static_cast<int>(out_axis));
  if (sw.size() == 1)
    return true;
  int64_t axis = int_attr(*dq, "axis", 1);
  if (axis < 0)
    axis += w->dims_size();
  return axis == out_axis && static_cast<int64_t>(sw.size()) == m;
}

bool BiasQuantizer::candidate(const onnx::NodeProto &n, Candidate &c) const {
  if (n.input_size() < 3 || n.input(2).empty())
    return false;
  if (n.op_type() == "Gemm" && (float_attr(n, "alpha", 1.0F) != 1.0F ||
                                float_attr(n, "beta", 1.0F) != 1.0F || int_attr(n, "transA", 0)))
    return false;
  const onnx::NodeProto *xq = dequantize_of(n.input(0));
  const TensorProto *xs = xq ? initializer(xq->input(1)) : nullptr;
  std::vector<float> sx, sw;
  int64_t m = 0;
  if (!xs || !float_values(*xs, sx) || sx.size() != 1 || !weight_scales(n, sw, m))
    return false;
  const TensorProto *b = initializer(n.input(2));
  if (!b || b->dims_size() != 1 || b->dims(0) != m || !float_values(*b, c.bias))
    return false;
  c.scale.resize(sw.size());
  for (size_t k = 0; k < sw.size(); ++k) {
    c.scale[k] = sx[0] * sw[k]; // float32, as runtimes compute it
    if (!(c.scale[k] > 0) || !std::isfinite(c.scale[k]))
      return false;
  }
  return true;
}

// round(b / s) half to even, saturated to int32.
int32_t quantize(float b, float s) {
  double q = std::nearbyint(static_cast<double>(b) / static_cast<double>(s));
  constexpr double lo = std::numeric_limits<int32_t>::min(),
                   hi = std::numeric_limits<int32_t>::max();
  return static_cast<int32_t>(std::isnan(q) ? 0.0 : std::fmin(std::fmax(q, lo), hi));
}

// The int32 bias of node `n` (its initializers added) and the DequantizeLinear reading it.
onnx::NodeProto BiasQuantizer::bias_dequantize(const onnx::NodeProto &n, const Candidate &c) {
  const std::string &stem = n.input(2);
  std::string ints(c.bias.size() * sizeof(int32_t), '\0');
  for (size_t k = 0; k < c.bias.size(); ++k) {
    int32_t q = quantize(c.bias[k], c.scale[c.scale.size() == 1 ? 0 : k]);
    std::memcpy(&ints[k * sizeof(int32_t)], &q, sizeof q);
  }
  TensorProto &qb = *g_.add_initializer();
  qb.set_name(fresh(stem + "_int32"));
  qb.set_data_type(TensorProto::INT32);
  qb.add_dims(static_cast<int64_t>(c.bias.size()));
  qb.set_raw_data(std::move(ints));
  TensorProto &qs = *g_.add_initializer();
  qs.set_name(fresh(stem + "_int32_scale"));
  qs.set_data_type(TensorProto::FLOAT);
  if (c.scale.size() > 1)
    qs.add_dims(static_cast<int64_t>(c.scale.size()));
  qs.set_raw_data(
      std::string(reinterpret_cast<const char *>(c.scale.data()), c.scale.size() * sizeof(float)));
  onnx::NodeProto dq;
  dq.set_op_type("DequantizeLinear");
  dq.set_name(fresh(n.name() + "/bias/DequantizeLinear"));
  dq.add_input(qb.name());
  dq.add_input(qs.name());
  dq.add_output(fresh(stem + "_dequantized"));
  if (c.scale.size() > 1) {
    auto &axis = *dq.add_attribute();
    axis.set_name("axis");
    axis.set_type(onnx::AttributeProto::INT);
    axis.set_i(0);
  }
  return dq;
}

// Every value the nodes of `g` and its subgraphs read, and its outputs.
void collect_reads(const onnx::GraphProto &g, std::unordered_set<std::string> &read) {
  for (const auto &n : g.node()) {
    for (const auto &in : n.input())
      read.insert(in);
    for (const auto &a : n.attribute()) {
      if (a.has_g())
        collect_reads(a.g(), read);
      for (const auto &sub : a.graphs())
        collect_reads(sub, read);
    }
  }
  for (const auto &o : g.output())
    read.insert(o.name());
}

BiasQuantizationReport BiasQuantizer::run() {
  BiasQuantizationReport r;
  // The DequantizeLinear of each rewritten node's bias, by the node's index (the nodes are moved
  // into the new order only once every pattern was read).
  std::unordered_map<int, onnx::NodeProto> bias_nodes;
  std::unordered_set<std::string> replaced; // float biases some node no longer reads
  for (int i = 0; i < g_.node_size(); ++i) {
    onnx::NodeProto &n = *g_.mutable_node(i);
    bool target = (n.op_type() == "Conv" || n.op_type() == "Gemm") && n.domain().empty() &&
                  n.input_size() >= 2 && dequantize_of(n.input(1));
    Candidate c;
    if (target && !candidate(n, c))
      ++r.skipped;
    if (!target || c.bias.empty())
      continue;
    replaced.insert(n.input(2));
    bias_nodes[i] = bias_dequantize(n, c);
    n.set_input(2, bias_nodes[i].output(0));
    ++r.biases;
  }
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  nodes.Reserve(g_.node_size() + static_cast<int>(bias_nodes.size()));
  for (int i = 0; i < g_.node_size(); ++i) {
    auto it = bias_nodes.find(i);
    if (it != bias_nodes.end())
      nodes.Add()->Swap(&it->second);
    nodes.Add()->Swap(g_.mutable_node(i));
  }
  g_.mutable_node()->Swap(&nodes);
  // Float biases nothing reads any more (a bias shared by several nodes goes with its last).
  std::unordered_set<std::string> read;
  collect_reads(g_, read);
  auto *inits = g_.mutable_initializer();
  for (int i = inits->size() - 1; i >= 0; --i)
    if (replaced.count(inits->Get(i).name()) && !read.count(inits->Get(i).name()))
      inits->DeleteSubrange(i, 1);
  return r;
}

} // namespace

BiasQuantizationReport quantize_biases(onnx::ModelProto &model) {
  return BiasQuantizer(model).run();
}

} // namespace torch2onnx
