#include "builder/optimize.h"

#include "builder/error.h"

#include <algorithm>
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

// A rule with elem_types is not tried on a node whose first input has another known type.
bool handles_type(const RewriteRule &r, const OptGraph &g, int i) {
  if (r.elem_types.empty())
    return true;
  const auto &n = g.node(i);
  int t = n.input_size() > 0 && !n.input(0).empty() ? g.elem_type(n.input(0)) : 0;
  return t == 0 || std::find(r.elem_types.begin(), r.elem_types.end(), t) != r.elem_types.end();
}

} // namespace

struct OptGraph::State {
  onnx::ModelProto &model;
  Graph *g;
  std::vector<bool> removed;
  std::unordered_map<std::string, int> producer;
  std::unordered_map<std::string, size_t> uses;
  std::unordered_set<std::string> outputs;
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
const onnx::NodeProto &OptGraph::node(int i) const {
  return s_->g->node(i);
}
int OptGraph::opset() const {
  for (const auto &imp : s_->model.opset_import())
    if (imp.domain().empty() || imp.domain() == "ai.onnx")
      return static_cast<int>(imp.version());
  return 0;
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

std::string_view initializer_raw_bytes(const onnx::TensorProto &t) {
  if (t.raw_data().empty() && initializer_bytes_fn)
    return initializer_bytes_fn->fn(t);
  return t.raw_data();
}

void release_borrowed(const onnx::TensorProto &t) {
  if (initializer_bytes_fn && initializer_bytes_fn->release)
    initializer_bytes_fn->release(t);
}

std::string_view OptGraph::raw_bytes(const onnx::TensorProto &t) const {
  return initializer_raw_bytes(t);
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
  return add_initializer_raw(hint, dims, onnx::TensorProto::FLOAT, std::move(bytes));
}

std::string OptGraph::add_initializer_raw(const std::string &hint, const std::vector<int64_t> &dims,
                                          int data_type, std::string &&bytes) {
  auto &s = *s_;
  std::string name;
  do
    name = hint + "_" + std::to_string(++s.fresh);
  while (s.names.count(name));
  s.names.insert(name);
  auto *t = s.g->add_initializer();
  t->set_name(name);
  t->set_data_type(data_type);
  for (auto d : dims)
    t->add_dims(d);
  t->set_raw_data(std::move(bytes));
  s.init_index[name] = s.g->initializer_size() - 1;
  auto *tt = s.types[name].mutable_tensor_type();
  tt->set_elem_type(data_type);
  for (auto d : dims)
    tt->mutable_shape()->add_dim()->set_dim_value(d);
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

std::unordered_map<std::string, int> &OptGraph::scratch(const std::string &name) const {
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

void OptGraph::retype(int i, const std::string &op_type, int keep) {
  auto *n = s_->g->mutable_node(i);
  for (int k = keep; k < n->input_size(); ++k) {
    auto it = s_->uses.find(resolve(n->input(k)));
    if (it != s_->uses.end() && it->second > 0)
      --it->second;
  }
  if (keep < n->input_size())
    n->mutable_input()->DeleteSubrange(keep, n->input_size() - keep);
  n->set_op_type(op_type);
  n->clear_attribute();
}

void OptGraph::append_input(int i, const std::string &name) {
  s_->g->mutable_node(i)->add_input(name);
  ++s_->uses[name];
}

void check_rule_names(const std::vector<RewriteRule> &rules) {
  std::unordered_set<std::string> names;
  for (const auto &r : rules)
    T2O_CHECK(names.insert(r.name).second, "two rewrite rules are named '{}'", r.name);
}

void collect_names(const onnx::GraphProto &g, std::unordered_set<std::string> &values,
                   std::unordered_set<std::string> &nodes) {
  for (const auto &v : g.input())
    values.insert(v.name());
  for (const auto &t : g.initializer())
    values.insert(t.name());
  for (const auto &n : g.node()) {
    nodes.insert(n.name());
    for (const auto &o : n.output())
      values.insert(o);
    for (const auto &a : n.attribute()) {
      if (a.has_g())
        collect_names(a.g(), values, nodes);
      for (const auto &sub : a.graphs())
        collect_names(sub, values, nodes);
    }
  }
}

OptimizeReport optimize_model(onnx::ModelProto &model, const std::vector<RewriteRule> &rules) {
  check_rule_names(rules);
  OptimizeReport report;
  OptGraph g(model);
  report.nodes_before = static_cast<size_t>(g.size());
  std::unordered_map<std::string, std::vector<const RewriteRule *>> by_op;
  std::vector<const RewriteRule *> any;
  const int opset = g.opset();
  for (const auto &r : rules)
    if (opset >= r.min_opset && opset <= r.max_opset)
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
        if (!handles_type(*r, g, i) || !r->matches(g, i))
          continue;
        r->apply(g, i);
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
