#include "builder/optimize.h"

#include <cmath>
#include <cstring>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <unordered_map>
#include <unordered_set>

namespace torch2onnx {

namespace {

using Graph = onnx::GraphProto;

void for_each_read(const onnx::NodeProto &n, const std::function<void(const std::string &)> &f) {
  for (const auto &in : n.input())
    if (!in.empty())
      f(in);
  for (const auto &a : n.attribute()) {
    if (a.has_g())
      for (const auto &sub : a.g().node())
        for_each_read(sub, f);
    for (const auto &g : a.graphs())
      for (const auto &sub : g.node())
        for_each_read(sub, f);
  }
}

bool has_subgraph(const onnx::NodeProto &n) {
  for (const auto &a : n.attribute())
    if (a.has_g() || a.graphs_size() > 0)
      return true;
  return false;
}

const onnx::AttributeProto *attr(const onnx::NodeProto &n, const std::string &name) {
  for (const auto &a : n.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

} // namespace

struct OptGraph::State {
  onnx::ModelProto &model;
  Graph *g;
  std::vector<bool> removed;
  std::unordered_map<std::string, int> producer;
  std::unordered_map<std::string, size_t> uses;
  std::unordered_set<std::string> outputs, inputs;
  std::unordered_map<std::string, int> init_index;
  std::unordered_map<std::string, onnx::TypeProto> types;
  mutable std::unordered_map<std::string, std::string> alias;
  std::unordered_set<std::string> names; // every value name, for fresh names
  std::unordered_map<std::string, std::unordered_map<std::string, int>> scratch;
  size_t fresh = 0;
  explicit State(onnx::ModelProto &m) : model(m), g(m.mutable_graph()) {}
};

OptGraph::OptGraph(onnx::ModelProto &model) : s_(std::make_unique<State>(model)) {
  auto &s = *s_;
  Graph &g = *s.g;
  s.removed.assign(static_cast<size_t>(g.node_size()), false);
  for (int i = 0; i < g.node_size(); ++i) {
    const auto &n = g.node(i);
    for (const auto &o : n.output())
      if (!o.empty()) {
        s.producer[o] = i;
        s.names.insert(o);
      }
    for_each_read(n, [&](const std::string &v) { ++s.uses[v]; });
  }
  for (const auto &o : g.output()) {
    s.outputs.insert(o.name());
    ++s.uses[o.name()];
  }
  for (const auto &in : g.input()) {
    s.inputs.insert(in.name());
    s.names.insert(in.name());
    s.types[in.name()] = in.type();
  }
  for (int i = 0; i < g.initializer_size(); ++i) {
    const auto &t = g.initializer(i);
    s.init_index[t.name()] = i;
    s.names.insert(t.name());
    onnx::TypeProto tp;
    auto *tt = tp.mutable_tensor_type();
    tt->set_elem_type(t.data_type());
    auto *sh = tt->mutable_shape();
    for (auto d : t.dims())
      sh->add_dim()->set_dim_value(d);
    s.types[t.name()] = tp;
  }
  // Value types from ONNX shape inference; the model's own value_info is restored afterwards.
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> saved = g.value_info();
  try {
    onnx::shape_inference::InferShapes(model);
  } catch (const std::exception &) {
    // Without inferred types the type-dependent rules just do not fire.
  }
  for (const auto &vi : g.value_info())
    s.types.emplace(vi.name(), vi.type());
  *g.mutable_value_info() = std::move(saved);
}

OptGraph::~OptGraph() = default;

onnx::NodeProto &OptGraph::node(int i) {
  return *s_->g->mutable_node(i);
}
int OptGraph::size() const {
  return s_->g->node_size();
}
bool OptGraph::removed(int i) const {
  return s_->removed[static_cast<size_t>(i)];
}

int OptGraph::producer(const std::string &value) const {
  auto it = s_->producer.find(value);
  return it == s_->producer.end() || s_->removed[static_cast<size_t>(it->second)] ? -1 : it->second;
}

size_t OptGraph::uses(const std::string &value) const {
  auto it = s_->uses.find(value);
  return it == s_->uses.end() ? 0 : it->second;
}

bool OptGraph::is_graph_output(const std::string &value) const {
  return s_->outputs.count(value) > 0;
}
bool OptGraph::is_graph_input(const std::string &value) const {
  return s_->inputs.count(value) > 0;
}

namespace {
thread_local const ScopedInitializerBytes *initializer_bytes_fn = nullptr;
} // namespace

ScopedInitializerBytes::ScopedInitializerBytes(
    InitializerBytesFn bytes, std::function<void(const onnx::TensorProto &)> release_fn)
    : previous_(initializer_bytes_fn), fn(std::move(bytes)), release(std::move(release_fn)) {
  initializer_bytes_fn = this;
}

ScopedInitializerBytes::~ScopedInitializerBytes() {
  initializer_bytes_fn = previous_;
}

std::string_view OptGraph::raw_bytes(const onnx::TensorProto &t) const {
  if (t.raw_data().empty() && initializer_bytes_fn)
    return initializer_bytes_fn->fn(t);
  return t.raw_data();
}

const onnx::TensorProto *OptGraph::initializer(const std::string &value) const {
  auto it = s_->init_index.find(value);
  return it == s_->init_index.end() ? nullptr : &s_->g->initializer(it->second);
}

bool OptGraph::float_values(const std::string &value, std::vector<float> &out) const {
  const auto *t = initializer(value);
  if (!t || t->data_type() != onnx::TensorProto::FLOAT ||
      t->data_location() == onnx::TensorProto::EXTERNAL)
    return false;
  const std::string_view raw = raw_bytes(*t);
  if (t->has_raw_data() || !raw.empty()) {
    out.resize(raw.size() / sizeof(float));
    if (!out.empty())
      std::memcpy(out.data(), raw.data(), out.size() * sizeof(float));
  } else {
    out.assign(t->float_data().begin(), t->float_data().end());
  }
  return true;
}

bool OptGraph::int_values(const std::string &value, std::vector<int64_t> &out) const {
  const auto *t = initializer(value);
  if (!t || t->data_type() != onnx::TensorProto::INT64 ||
      t->data_location() == onnx::TensorProto::EXTERNAL)
    return false;
  const std::string_view raw = raw_bytes(*t);
  if (t->has_raw_data() || !raw.empty()) {
    out.resize(raw.size() / sizeof(int64_t));
    if (!out.empty())
      std::memcpy(out.data(), raw.data(), out.size() * sizeof(int64_t));
  } else {
    out.assign(t->int64_data().begin(), t->int64_data().end());
  }
  return true;
}

int OptGraph::elem_type(const std::string &value) const {
  auto it = s_->types.find(value);
  if (it == s_->types.end() || !it->second.has_tensor_type())
    return 0;
  return it->second.tensor_type().elem_type();
}

bool OptGraph::static_shape(const std::string &value, std::vector<int64_t> &dims) const {
  auto it = s_->types.find(value);
  if (it == s_->types.end() || !it->second.has_tensor_type() ||
      !it->second.tensor_type().has_shape())
    return false;
  dims.clear();
  for (const auto &d : it->second.tensor_type().shape().dim()) {
    if (!d.has_dim_value())
      return false;
    dims.push_back(d.dim_value());
  }
  return true;
}

const float *OptGraph::float_data(const std::string &value, size_t &n) const {
  const auto *t = initializer(value);
  if (!t || t->data_type() != onnx::TensorProto::FLOAT)
    return nullptr;
  const std::string_view raw = raw_bytes(*t);
  if (raw.empty() && !t->has_raw_data())
    return nullptr;
  n = raw.size() / sizeof(float);
  return reinterpret_cast<const float *>(raw.data());
}

void OptGraph::release_if_unused(const std::string &value) {
  auto it = s_->init_index.find(value);
  if (it == s_->init_index.end() || uses(value) > 0)
    return;
  auto *t = s_->g->mutable_initializer(it->second);
  if (t->raw_data().empty() && initializer_bytes_fn && initializer_bytes_fn->release)
    initializer_bytes_fn->release(*t);
  std::string().swap(*t->mutable_raw_data());
}

std::string OptGraph::add_float_initializer(const std::string &hint,
                                            const std::vector<int64_t> &dims,
                                            const std::vector<float> &values) {
  return add_float_initializer_raw(
      hint, dims,
      std::string(reinterpret_cast<const char *>(values.data()), values.size() * sizeof(float)));
}

std::string OptGraph::add_float_initializer_raw(const std::string &hint,
                                                const std::vector<int64_t> &dims,
                                                std::string &&bytes) {
  auto &s = *s_;
  std::string name;
  do
    name = hint + "_" + std::to_string(++s.fresh);
  while (s.names.count(name));
  s.names.insert(name);
  auto *t = s.g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (auto d : dims)
    t->add_dims(d);
  t->set_raw_data(std::move(bytes));
  s.init_index[name] = s.g->initializer_size() - 1;
  s.types[name].mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  return name;
}

void OptGraph::remove(int i) {
  auto &s = *s_;
  if (s.removed[static_cast<size_t>(i)])
    return;
  s.removed[static_cast<size_t>(i)] = true;
  for_each_read(s.g->node(i), [&](const std::string &v) {
    auto it = s.uses.find(resolve(v));
    if (it != s.uses.end() && it->second > 0)
      --it->second;
  });
}

void OptGraph::alias(const std::string &from, const std::string &to) {
  auto &s = *s_;
  std::string target = resolve(to);
  if (target == from)
    return;
  s.alias[from] = target;
  s.uses[target] += uses(from);
  s.uses[from] = 0;
}

void OptGraph::rename_output(int i, int k, const std::string &name) {
  auto &s = *s_;
  auto *n = s.g->mutable_node(i);
  std::string old = n->output(k);
  s.producer.erase(old);
  n->set_output(k, name);
  s.producer[name] = i;
  s.names.insert(name);
  auto t = s.types.find(old);
  if (t != s.types.end())
    s.types[name] = t->second;
}

std::string OptGraph::resolve(const std::string &value) const {
  auto &alias = s_->alias;
  auto it = alias.find(value);
  if (it == alias.end())
    return value;
  std::string root = resolve(it->second);
  it->second = root; // path compression keeps chains of aliases linear overall
  return root;
}

void OptGraph::commit(OptimizeReport &report) {
  auto &s = *s_;
  Graph &g = *s.g;
  std::function<void(onnx::NodeProto &)> fix = [&](onnx::NodeProto &n) {
    for (auto &in : *n.mutable_input())
      if (!in.empty())
        in = resolve(in);
    for (auto &a : *n.mutable_attribute()) {
      if (a.has_g())
        for (auto &sub : *a.mutable_g()->mutable_node())
          fix(sub);
      for (auto &sg : *a.mutable_graphs())
        for (auto &sub : *sg.mutable_node())
          fix(sub);
    }
  };
  // Dead nodes after the rewrites (e.g. a Conv's old weights): one reverse pass.
  std::unordered_set<std::string> needed(s.outputs.begin(), s.outputs.end());
  for (int i = g.node_size() - 1; i >= 0; --i) {
    if (s.removed[static_cast<size_t>(i)])
      continue;
    auto &n = *g.mutable_node(i);
    fix(n);
    bool used = false;
    for (const auto &o : n.output())
      used = used || needed.count(o);
    if (!used) {
      s.removed[static_cast<size_t>(i)] = true;
      continue;
    }
    for_each_read(n, [&](const std::string &v) { needed.insert(v); });
  }
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (int i = 0; i < g.node_size(); ++i)
    if (!s.removed[static_cast<size_t>(i)])
      nodes.Add()->Swap(g.mutable_node(i));
  g.mutable_node()->Swap(&nodes);
  google::protobuf::RepeatedPtrField<onnx::TensorProto> inits;
  for (int i = 0; i < g.initializer_size(); ++i) {
    if (needed.count(g.initializer(i).name()))
      inits.Add()->Swap(g.mutable_initializer(i));
    else
      ++report.initializers_removed;
  }
  g.mutable_initializer()->Swap(&inits);
  s.init_index.clear();
  report.nodes_after = static_cast<size_t>(g.node_size());
}

// ---- rules ------------------------------------------------------------------------------------

namespace {

// Drops node i whose output 0 equals its input 0.
bool forward_input(OptGraph &g, int i) {
  const auto &n = g.node(i);
  if (n.input_size() < 1 || n.output_size() < 1 || g.is_graph_output(n.output(0)))
    return false;
  for (int k = 1; k < n.output_size(); ++k)
    if (!n.output(k).empty() && g.uses(n.output(k)) > 0)
      return false;
  std::string in = n.input(0), out = n.output(0);
  g.remove(i);
  g.alias(out, in);
  return true;
}

bool rule_identity(OptGraph &g, int i) {
  const auto &n = g.node(i);
  if (n.input_size() != 1 || n.output_size() != 1)
    return false;
  const std::string &in = n.input(0);
  const std::string &out = n.output(0);
  if (!g.is_graph_output(out))
    return forward_input(g, i);
  // An output Identity: let the producer write the output directly when nothing else needs its
  // value under the old name.
  int p = g.producer(in);
  if (p < 0 || g.uses(in) != 1 || g.is_graph_output(in) || has_subgraph(g.node(p)))
    return false;
  auto &prod = g.node(p);
  for (int k = 0; k < prod.output_size(); ++k)
    if (prod.output(k) == in) {
      std::string name = out;
      g.remove(i);
      g.rename_output(p, k, name);
      return true;
    }
  return false;
}

bool rule_noop_cast(OptGraph &g, int i) {
  const auto &n = g.node(i);
  const auto *to = attr(n, "to");
  int have = g.elem_type(n.input(0));
  if (!to || have == 0 || have != to->i())
    return false;
  return forward_input(g, i);
}

bool rule_noop_reshape(OptGraph &g, int i) {
  const auto &n = g.node(i);
  std::vector<int64_t> dims, target;
  if (n.input_size() != 2 || !g.static_shape(n.input(0), dims) || !g.int_values(n.input(1), target))
    return false;
  const auto *az = attr(n, "allowzero");
  bool allowzero = az && az->i() != 0;
  if (target.size() != dims.size())
    return false;
  int minus = -1;
  for (size_t k = 0; k < target.size(); ++k) {
    if (target[k] == 0 && !allowzero)
      target[k] = dims[k];
    if (target[k] == -1) {
      if (minus >= 0)
        return false;
      minus = static_cast<int>(k);
    }
  }
  if (minus >= 0) {
    int64_t total = 1, rest = 1;
    for (size_t k = 0; k < dims.size(); ++k) {
      total *= dims[k];
      if (static_cast<int>(k) != minus)
        rest *= target[k];
    }
    if (rest == 0)
      return false;
    target[static_cast<size_t>(minus)] = total / rest;
  }
  if (target != dims)
    return false;
  return forward_input(g, i);
}

bool rule_noop_expand(OptGraph &g, int i) {
  const auto &n = g.node(i);
  std::vector<int64_t> dims, shape;
  if (n.input_size() != 2 || !g.static_shape(n.input(0), dims) || !g.int_values(n.input(1), shape))
    return false;
  if (shape.size() > dims.size())
    return false; // adds dims
  for (size_t k = 0; k < shape.size(); ++k) {
    int64_t d = dims[dims.size() - shape.size() + k];
    if (shape[k] != 1 && shape[k] != d)
      return false; // broadcasts a dim
  }
  return forward_input(g, i);
}

bool rule_noop_transpose(OptGraph &g, int i) {
  const auto *perm = attr(g.node(i), "perm");
  if (!perm)
    return false;
  for (int k = 0; k < perm->ints_size(); ++k)
    if (perm->ints(k) != k)
      return false;
  return forward_input(g, i);
}

bool rule_noop_dropout(OptGraph &g, int i) {
  // Without a training_mode input (or with it absent) Dropout is the identity at inference.
  if (g.node(i).input_size() >= 3 && !g.node(i).input(2).empty())
    return false;
  return forward_input(g, i);
}

std::string cse_key(const onnx::NodeProto &n) {
  std::string key = n.domain() + "|" + n.op_type();
  for (const auto &in : n.input())
    key += "|" + in;
  for (const auto &a : n.attribute())
    key += "|" + a.SerializeAsString();
  return key;
}

bool rule_cse(OptGraph &g, int i) {
  static const std::unordered_set<std::string> random = {"RandomNormal",  "RandomNormalLike",
                                                         "RandomUniform", "RandomUniformLike",
                                                         "Multinomial",   "Bernoulli"};
  const auto &n = g.node(i);
  if (random.count(n.op_type()) || has_subgraph(n) || n.output_size() == 0)
    return false;
  for (const auto &o : n.output())
    if (g.is_graph_output(o))
      return false;
  std::string key = cse_key(n);
  auto &table = g.scratch("cse");
  auto [it, fresh] = table.emplace(key, i);
  if (fresh)
    return false;
  int j = it->second;
  // Another rule may have changed node j since (a Conv with a folded BatchNormalization).
  if (g.removed(j) || g.node(j).output_size() != n.output_size() || cse_key(g.node(j)) != key) {
    it->second = i;
    return false;
  }
  std::vector<std::pair<std::string, std::string>> pairs;
  for (int k = 0; k < n.output_size(); ++k)
    pairs.emplace_back(n.output(k), g.node(j).output(k));
  g.remove(i);
  for (const auto &[from, to] : pairs)
    if (!from.empty())
      g.alias(from, to);
  return true;
}

bool rule_fold_conv_batchnorm(OptGraph &g, int i) {
  const auto &bn = g.node(i);
  if (bn.output_size() != 1 || bn.input_size() != 5)
    return false;
  const auto *tm = attr(bn, "training_mode");
  if (tm && tm->i() != 0)
    return false;
  const std::string &x = bn.input(0);
  int p = g.producer(x);
  if (p < 0 || g.uses(x) != 1 || g.is_graph_output(x))
    return false;
  auto &conv = g.node(p);
  if (conv.op_type() != "Conv" || !conv.domain().empty() || conv.input_size() < 2)
    return false;
  std::vector<float> b, scale, shift, mean, var;
  size_t wn = 0;
  const float *w = g.float_data(conv.input(1), wn); // read in place: weights can be large
  if (!w)
    return false;
  const auto *wt = g.initializer(conv.input(1));
  if (wt->dims_size() < 1)
    return false;
  int64_t m = wt->dims(0);
  bool has_bias = conv.input_size() >= 3 && !conv.input(2).empty();
  if (has_bias && !g.float_values(conv.input(2), b))
    return false;
  if (!has_bias)
    b.assign(static_cast<size_t>(m), 0.0f);
  if (!g.float_values(bn.input(1), scale) || !g.float_values(bn.input(2), shift) ||
      !g.float_values(bn.input(3), mean) || !g.float_values(bn.input(4), var))
    return false;
  auto sm = static_cast<size_t>(m);
  if (m <= 0 || b.size() != sm || scale.size() != sm || shift.size() != sm || mean.size() != sm ||
      var.size() != sm || wn % sm != 0)
    return false;
  const auto *eps_attr = attr(bn, "epsilon");
  double eps = eps_attr ? eps_attr->f() : 1e-5;
  size_t per = wn / sm;
  std::string w2(wn * sizeof(float), '\0');
  auto *out_w = reinterpret_cast<float *>(w2.data());
  std::vector<float> b2(sm);
  for (size_t c = 0; c < sm; ++c) {
    double s = static_cast<double>(scale[c]) / std::sqrt(static_cast<double>(var[c]) + eps);
    for (size_t k = 0; k < per; ++k)
      out_w[c * per + k] = static_cast<float>(w[c * per + k] * s);
    b2[c] = static_cast<float>((static_cast<double>(b[c]) - mean[c]) * s + shift[c]);
  }
  std::vector<int64_t> wdims(wt->dims().begin(), wt->dims().end());
  std::string stem = conv.input(1);
  std::string old_w = stem, old_b = has_bias ? conv.input(2) : std::string();
  std::string wname = g.add_float_initializer_raw(stem + "_bnfold", wdims, std::move(w2));
  std::string bname = g.add_float_initializer(stem + "_bnfold_bias", {m}, b2);
  std::string out = bn.output(0);
  std::vector<std::string> bn_inputs(bn.input().begin(), bn.input().end());
  g.remove(i);
  auto &c = g.node(p); // re-fetch: adding initializers does not move nodes, but be explicit
  g.replace_input(p, 1, wname);
  if (c.input_size() >= 3)
    g.replace_input(p, 2, bname);
  else
    g.append_input(p, bname);
  g.rename_output(p, 0, out);
  // The old weights are usually read by this Conv only: free them now, not at the end, so the
  // peak memory holds one copy of the model's weights plus one layer.
  g.release_if_unused(old_w);
  if (!old_b.empty())
    g.release_if_unused(old_b);
  for (int k = 1; k < 5; ++k)
    g.release_if_unused(bn_inputs[static_cast<size_t>(k)]);
  return true;
}

} // namespace

std::unordered_map<std::string, int> &OptGraph::scratch(const std::string &name) {
  return s_->scratch[name];
}

void OptGraph::replace_input(int i, int k, const std::string &name) {
  auto *n = s_->g->mutable_node(i);
  auto it = s_->uses.find(resolve(n->input(k)));
  if (it != s_->uses.end() && it->second > 0)
    --it->second;
  n->set_input(k, name);
  ++s_->uses[name];
}

void OptGraph::append_input(int i, const std::string &name) {
  s_->g->mutable_node(i)->add_input(name);
  ++s_->uses[name];
}

const std::vector<RewriteRule> &default_rules() {
  static const std::vector<RewriteRule> rules = {
      {"identity", "Identity", rule_identity},
      {"noop-cast", "Cast", rule_noop_cast},
      {"noop-reshape", "Reshape", rule_noop_reshape},
      {"noop-reshape", "Expand", rule_noop_expand},
      {"noop-transpose", "Transpose", rule_noop_transpose},
      {"noop-dropout", "Dropout", rule_noop_dropout},
      {"fold-conv-batchnorm", "BatchNormalization", rule_fold_conv_batchnorm},
      {"cse", "*", rule_cse},
  };
  return rules;
}

OptimizeReport optimize_model(onnx::ModelProto &model, const std::vector<RewriteRule> &rules) {
  OptimizeReport report;
  OptGraph g(model);
  report.nodes_before = static_cast<size_t>(g.size());
  std::unordered_map<std::string, std::vector<const RewriteRule *>> by_op;
  std::vector<const RewriteRule *> any;
  for (const auto &r : rules)
    (r.target_op == "*" ? any : by_op[r.target_op]).push_back(&r);
  for (int i = 0; i < g.size(); ++i) {
    if (g.removed(i))
      continue;
    auto &n = g.node(i);
    if (!n.domain().empty() && n.domain() != "ai.onnx")
      continue;
    for (auto &in : *n.mutable_input())
      if (!in.empty())
        in = g.resolve(in);
    auto try_rules = [&](const std::vector<const RewriteRule *> &list) {
      for (const auto *r : list) {
        if (g.removed(i))
          return;
        if (r->apply(g, i))
          ++report.applied[r->name];
      }
    };
    auto it = by_op.find(n.op_type());
    if (it != by_op.end())
      try_rules(it->second);
    try_rules(any);
  }
  g.commit(report);
  return report;
}

} // namespace torch2onnx
