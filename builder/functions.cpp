#include "builder/functions.h"

#include "builder/error.h"
#include "builder/provenance.h"
#include "builder/types.h"

#include <algorithm>
#include <functional>
#include <onnx/onnx_pb.h>
#include <queue>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace torch2onnx {

namespace {

// Every value name a node reads, its subgraphs' reads included (names defined inside a subgraph
// are filtered out by the caller, which knows the names of the main graph).
void node_reads(const onnx::NodeProto &n, std::vector<std::string> &out) {
  for (const auto &in : n.input())
    if (!in.empty())
      out.push_back(in);
  auto graph_reads = [&](const onnx::GraphProto &g) {
    for (const auto &sub : g.node())
      node_reads(sub, out);
    for (const auto &o : g.output())
      out.push_back(o.name());
  };
  for (const auto &a : n.attribute()) {
    if (a.has_g())
      graph_reads(a.g());
    for (const auto &g : a.graphs())
      graph_reads(g);
  }
}

// The outermost module in `instances` whose scope contains `scope` ("layer1.0.conv1" is in
// "layer1.0"), or "".
std::string call_instance(const std::string &scope,
                          const std::map<std::string, std::string> &instances) {
  if (scope.empty())
    return {};
  size_t pos = 0;
  while (true) {
    size_t dot = scope.find('.', pos);
    std::string prefix = scope.substr(0, dot);
    if (instances.count(prefix))
      return prefix;
    if (dot == std::string::npos)
      return {};
    pos = dot + 1;
  }
}

struct Group {
  std::string instance;
  std::vector<int> nodes; // main-graph node indices, in order
};

// Splits the main graph's nodes into module calls. A node continues the open call of its module
// unless the call's values reach it through a node outside the call (a second call of the same
// module instance, or a graph that would need the call twice): then it opens a new call. This
// keeps every call a node of an acyclic graph.
std::vector<Group> find_calls(const onnx::GraphProto &g,
                              const std::map<std::string, std::string> &instances,
                              const std::unordered_set<std::string> &main_names) {
  std::vector<Group> groups;
  std::map<std::string, int> open;                      // instance -> its current group
  std::unordered_map<std::string, int> producer;        // value -> group that produced it
  std::unordered_map<std::string, std::set<int>> reach; // value -> groups reaching it from outside
  for (int i = 0; i < g.node_size(); ++i) {
    const auto &n = g.node(i);
    std::string inst = call_instance(origin_of_node_name(n.name()).scope, instances);
    std::vector<std::string> reads;
    node_reads(n, reads);
    std::set<int> via_outside, direct;
    for (const auto &v : reads) {
      if (!main_names.count(v))
        continue;
      if (auto it = reach.find(v); it != reach.end())
        via_outside.insert(it->second.begin(), it->second.end());
      if (auto it = producer.find(v); it != producer.end())
        direct.insert(it->second);
    }
    int group = -1;
    if (!inst.empty()) {
      auto it = open.find(inst);
      if (it == open.end() || via_outside.count(it->second)) {
        groups.push_back(Group{inst, {}});
        open[inst] = static_cast<int>(groups.size()) - 1;
      }
      group = open[inst];
      groups[static_cast<size_t>(group)].nodes.push_back(i);
    }
    direct.erase(group);
    via_outside.insert(direct.begin(), direct.end());
    for (const auto &o : n.output()) {
      if (group >= 0)
        producer[o] = group;
      if (!via_outside.empty())
        reach[o] = via_outside;
    }
  }
  return groups;
}

// "layer1.0.conv1/aten::conv2d/Conv_3" in the call "layer1.0" -> "conv1/aten::conv2d/Conv_3".
std::string strip_instance(const std::string &name, const std::string &instance) {
  if (name.size() > instance.size() + 1 && name.compare(0, instance.size(), instance) == 0 &&
      (name[instance.size()] == '.' || name[instance.size()] == '/'))
    return name.substr(instance.size() + 1);
  return name;
}

// Renames values in a graph and its subgraphs. `rename` returns the new name, or the name itself.
template <typename F> void rename_graph(onnx::GraphProto &g, const F &rename);

template <typename F> void rename_node(onnx::NodeProto &n, const F &rename) {
  for (auto &in : *n.mutable_input())
    if (!in.empty())
      in = rename(in);
  for (auto &out : *n.mutable_output())
    if (!out.empty())
      out = rename(out);
  for (auto &a : *n.mutable_attribute()) {
    if (a.has_g())
      rename_graph(*a.mutable_g(), rename);
    for (auto &g : *a.mutable_graphs())
      rename_graph(g, rename);
  }
}

template <typename F> void rename_graph(onnx::GraphProto &g, const F &rename) {
  for (auto &vi : *g.mutable_input())
    vi.set_name(rename(vi.name()));
  for (auto &n : *g.mutable_node())
    rename_node(n, rename);
  for (auto &vi : *g.mutable_output())
    vi.set_name(rename(vi.name()));
  for (auto &vi : *g.mutable_value_info())
    vi.set_name(rename(vi.name()));
}

void clear_names(onnx::GraphProto &g) {
  g.clear_name();
  for (auto &n : *g.mutable_node()) {
    n.clear_name();
    for (auto &a : *n.mutable_attribute()) {
      if (a.has_g())
        clear_names(*a.mutable_g());
      for (auto &sub : *a.mutable_graphs())
        clear_names(sub);
    }
  }
}

// The body with every value renamed by order of appearance and no node names: equal keys mean
// the same computation.
std::string body_key(const onnx::FunctionProto &f) {
  onnx::FunctionProto c = f;
  c.clear_name();
  c.clear_domain();
  c.clear_doc_string();
  std::unordered_map<std::string, std::string> names;
  auto rename = [&](const std::string &v) -> std::string {
    auto [it, fresh] = names.emplace(v, "");
    if (fresh)
      it->second = "v" + std::to_string(names.size());
    return it->second;
  };
  for (auto &in : *c.mutable_input())
    in = rename(in);
  for (auto &n : *c.mutable_node()) {
    n.clear_name();
    rename_node(n, rename);
    for (auto &a : *n.mutable_attribute()) {
      if (a.has_g())
        clear_names(*a.mutable_g());
      for (auto &sub : *a.mutable_graphs())
        clear_names(sub);
    }
  }
  for (auto &out : *c.mutable_output())
    out = rename(out);
  std::string bytes;
  c.SerializeToString(&bytes);
  return bytes;
}

// Small constants go into the body (a shape, an axis, a scalar): they are part of what the body
// computes. Weights stay initializers of the main graph and are passed in. Only constants whose
// bytes are in the proto qualify (weights borrowed from LibTorch are never small ones).
bool is_body_constant(const onnx::TensorProto &t) {
  int64_t n = 1;
  for (auto d : t.dims())
    n *= d;
  if (n > 0 && t.raw_data().empty())
    return false;
  if (n <= 1)
    return true;
  return !is_floating(static_cast<DType>(t.data_type())) && n <= 64;
}

struct Call {
  onnx::FunctionProto body;
  std::vector<std::string> inputs, outputs; // the call's actual values
  size_t activations = 0, weights = 0;
};

// What make_call needs to know about the main graph.
struct GraphIndex {
  std::unordered_set<std::string> names; // inputs, initializers, node outputs
  std::unordered_map<std::string, const onnx::TensorProto *> inits;
  std::unordered_map<std::string, std::vector<int>> readers; // value -> nodes reading it
  std::unordered_map<std::string, int> producer;             // value -> node making it
  std::unordered_set<std::string> graph_outputs;
  // Values computed from initializers alone (a transposed weight, a cast constant). The rewrites'
  // common-subexpression pass may share one between calls: each body computes its own copy
  // instead of taking it from another call, so equal calls keep equal bodies.
  std::unordered_set<std::string> constant_values;
};

GraphIndex index_graph(const onnx::GraphProto &g) {
  GraphIndex x;
  for (const auto &in : g.input())
    x.names.insert(in.name());
  for (const auto &t : g.initializer()) {
    x.names.insert(t.name());
    x.inits[t.name()] = &t;
  }
  for (int i = 0; i < g.node_size(); ++i)
    for (const auto &o : g.node(i).output()) {
      x.names.insert(o);
      x.producer[o] = i;
    }
  for (int i = 0; i < g.node_size(); ++i) {
    const auto &n = g.node(i);
    std::vector<std::string> reads;
    node_reads(n, reads);
    bool constant = n.op_type() == "Constant" || !reads.empty();
    for (const auto &a : n.attribute())
      constant = constant && !a.has_g() && a.graphs_size() == 0;
    constant = constant && n.op_type().rfind("Random", 0) != 0;
    for (const auto &v : reads) {
      if (!x.names.count(v))
        continue;
      x.readers[v].push_back(i);
      constant = constant && (x.inits.count(v) || x.constant_values.count(v));
    }
    if (constant)
      x.constant_values.insert(n.output().begin(), n.output().end());
  }
  for (const auto &o : g.output())
    x.graph_outputs.insert(o.name());
  return x;
}

bool is_constant_node(const onnx::NodeProto &n, const GraphIndex &x) {
  bool constant = n.output_size() > 0;
  for (const auto &o : n.output())
    constant = constant && x.constant_values.count(o);
  return constant;
}

// The nodes of a call's body, in an order that does not depend on where the rewrites left
// constant nodes: each node computing a constant value (the call's own, or one it reads from
// elsewhere) comes right before the first node that needs it; the other nodes keep their order.
std::vector<int> body_nodes(const onnx::GraphProto &g, const Group &group, const GraphIndex &x) {
  std::unordered_set<int> taken;
  std::vector<int> order;
  std::function<void(const std::string &)> pull = [&](const std::string &v) {
    auto p = x.producer.find(v);
    if (x.inits.count(v) || !x.constant_values.count(v) || p == x.producer.end() ||
        !taken.insert(p->second).second)
      return;
    std::vector<std::string> reads;
    node_reads(g.node(p->second), reads);
    for (const auto &r : reads)
      pull(r);
    order.push_back(p->second);
  };
  for (int i : group.nodes) {
    if (is_constant_node(g.node(i), x))
      continue;
    std::vector<std::string> reads;
    node_reads(g.node(i), reads);
    for (const auto &v : reads)
      pull(v);
    order.push_back(i);
  }
  return order;
}

// What a call's body reads from outside, in first-read order: activations (computed values),
// weights (initializers passed in) and constants (small initializers copied into the body).
struct BodyReads {
  std::vector<std::string> activations, weights, constants;
};

BodyReads body_reads(const onnx::GraphProto &g, const std::vector<int> &nodes,
                     const std::unordered_set<std::string> &produced, const GraphIndex &x) {
  BodyReads r;
  std::unordered_set<std::string> seen;
  for (int i : nodes) {
    std::vector<std::string> reads;
    node_reads(g.node(i), reads);
    for (const auto &v : reads) {
      if (!x.names.count(v) || produced.count(v) || !seen.insert(v).second)
        continue;
      auto it = x.inits.find(v);
      if (it == x.inits.end())
        r.activations.push_back(v);
      else if (is_body_constant(*it->second))
        r.constants.push_back(v);
      else
        r.weights.push_back(v);
    }
  }
  return r;
}

// The FunctionProto of one call, and the values it reads and provides.
Call make_call(const onnx::GraphProto &g, const Group &group, const GraphIndex &x) {
  std::unordered_set<int> members(group.nodes.begin(), group.nodes.end());
  const std::vector<int> nodes = body_nodes(g, group, x);
  std::unordered_set<std::string> produced;
  std::vector<std::string> produced_order;
  for (int i : nodes)
    for (const auto &o : g.node(i).output())
      if (!o.empty() && produced.insert(o).second)
        produced_order.push_back(o);
  const BodyReads reads = body_reads(g, nodes, produced, x);
  const auto &activations = reads.activations, &weights = reads.weights,
             &constants = reads.constants;
  Call c;
  std::unordered_map<std::string, std::string> formal;
  std::unordered_set<std::string> used;
  auto unique = [&](std::string name) {
    std::string base = name;
    for (int k = 1; !used.insert(name).second; ++k)
      name = base + "_" + std::to_string(k);
    return name;
  };
  for (size_t k = 0; k < activations.size(); ++k) {
    formal[activations[k]] = unique(activations.size() == 1 ? "x" : "x_" + std::to_string(k));
    c.body.add_input(formal[activations[k]]);
    c.inputs.push_back(activations[k]);
  }
  for (const auto &w : weights) {
    formal[w] = unique(strip_instance(w, group.instance));
    c.body.add_input(formal[w]);
    c.inputs.push_back(w);
  }
  c.activations = activations.size();
  c.weights = weights.size();
  for (const auto &v : produced_order)
    formal[v] = unique(strip_instance(v, group.instance));
  for (const auto &k : constants) {
    formal[k] = unique(strip_instance(k, group.instance));
    auto *node = c.body.add_node();
    node->set_op_type("Constant");
    node->set_name(formal[k]);
    node->add_output(formal[k]);
    auto *a = node->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    *a->mutable_t() = *x.inits.at(k);
    a->mutable_t()->clear_name();
  }
  auto rename = [&](const std::string &v) {
    auto it = formal.find(v);
    return it == formal.end() ? v : it->second;
  };
  for (int i : nodes) {
    auto *node = c.body.add_node();
    *node = g.node(i);
    node->set_name(strip_instance(node->name(), group.instance));
    rename_node(*node, rename);
    if (!members.count(i))
      continue;
    for (const auto &o : g.node(i).output()) {
      // Constant values read outside are computed there from the main graph's copy.
      if (o.empty() || x.constant_values.count(o))
        continue;
      bool outside = x.graph_outputs.count(o) > 0;
      if (auto it = x.readers.find(o); it != x.readers.end())
        for (int r : it->second)
          outside = outside || !members.count(r);
      if (outside) {
        c.body.add_output(formal[o]);
        c.outputs.push_back(o);
      }
    }
  }
  return c;
}

// Removes nodes of the main graph whose outputs nothing reads (constant nodes a call copied into
// its body). One reverse pass.
void remove_unread_nodes(onnx::GraphProto &g) {
  std::unordered_set<std::string> needed;
  for (const auto &o : g.output())
    needed.insert(o.name());
  std::vector<bool> keep(static_cast<size_t>(g.node_size()), false);
  for (int i = g.node_size() - 1; i >= 0; --i) {
    bool used = false;
    for (const auto &o : g.node(i).output())
      used = used || needed.count(o);
    if (!used)
      continue;
    keep[static_cast<size_t>(i)] = true;
    std::vector<std::string> reads;
    node_reads(g.node(i), reads);
    needed.insert(reads.begin(), reads.end());
  }
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (int i = 0; i < g.node_size(); ++i)
    if (keep[static_cast<size_t>(i)])
      nodes.Add()->Swap(g.mutable_node(i));
  g.mutable_node()->Swap(&nodes);
}

// Orders the nodes so each comes after the producers of what it reads, keeping the given order
// where it already is; throws when no order exists.
void sort_nodes(onnx::GraphProto &g, const std::unordered_set<std::string> &main_names) {
  const int n = g.node_size();
  std::unordered_map<std::string, int> producer;
  for (int i = 0; i < n; ++i)
    for (const auto &o : g.node(i).output())
      producer[o] = i;
  std::vector<std::vector<int>> users(static_cast<size_t>(n));
  std::vector<int> pending(static_cast<size_t>(n), 0);
  for (int i = 0; i < n; ++i) {
    std::vector<std::string> reads;
    node_reads(g.node(i), reads);
    std::set<int> deps;
    for (const auto &v : reads)
      if (auto it = producer.find(v);
          it != producer.end() && main_names.count(v) && it->second != i)
        deps.insert(it->second);
    for (int d : deps)
      users[static_cast<size_t>(d)].push_back(i);
    pending[static_cast<size_t>(i)] = static_cast<int>(deps.size());
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < n; ++i)
    if (pending[static_cast<size_t>(i)] == 0)
      ready.push(i);
  std::vector<int> order;
  while (!ready.empty()) {
    int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (int u : users[static_cast<size_t>(i)])
      if (--pending[static_cast<size_t>(u)] == 0)
        ready.push(u);
  }
  T2O_CHECK(static_cast<int>(order.size()) == n,
            "--functions: the module calls cannot be separated from the graph around them (a "
            "value flows out of a call and back into it); leave that module type out of "
            "--functions");
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (int i : order)
    nodes.Add()->Swap(g.mutable_node(i));
  g.mutable_node()->Swap(&nodes);
}

// Initializers only bodies used (small constants now inside) and types of values now inside the
// bodies leave the main graph.
void drop_moved_values(onnx::GraphProto &g) {
  std::unordered_set<std::string> read;
  for (const auto &n : g.node()) {
    std::vector<std::string> reads;
    node_reads(n, reads);
    read.insert(reads.begin(), reads.end());
  }
  for (const auto &o : g.output())
    read.insert(o.name());
  google::protobuf::RepeatedPtrField<onnx::TensorProto> kept;
  for (auto &t : *g.mutable_initializer())
    if (read.count(t.name()))
      kept.Add()->Swap(&t);
  g.mutable_initializer()->Swap(&kept);
  std::unordered_set<std::string> present(read);
  for (const auto &n : g.node())
    present.insert(n.output().begin(), n.output().end());
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> infos;
  for (auto &vi : *g.mutable_value_info())
    if (present.count(vi.name()))
      infos.Add()->Swap(&vi);
  g.mutable_value_info()->Swap(&infos);
}

// Names the call's body after its module type ("_N" for later bodies of the same type), gives it
// the model's opset imports for the domains it uses, adds it to `model` and describes it.
LocalFunction add_function(onnx::ModelProto &model, Call &c, const std::string &type,
                           std::map<std::string, int> &names,
                           const std::map<std::string, int64_t> &imports) {
  int &uses = names[type];
  std::string name = uses == 0 ? type : type + "_" + std::to_string(uses);
  ++uses;
  c.body.set_name(name);
  c.body.set_domain(kFunctionDomain);
  std::set<std::string> domains{""};
  for (const auto &n : c.body.node())
    domains.insert(n.domain());
  for (const auto &d : domains) {
    auto *imp = c.body.add_opset_import();
    imp->set_domain(d);
    auto it = imports.find(d);
    imp->set_version(it != imports.end() ? it->second : 1);
  }
  LocalFunction f;
  f.name = name;
  f.module_type = type;
  f.activation_inputs = c.activations;
  f.weight_inputs = c.weights;
  f.outputs = c.outputs.size();
  f.nodes = static_cast<size_t>(c.body.node_size());
  *model.add_functions() = std::move(c.body);
  return f;
}

// The node calling function `f` for the module call `group`, named "<scope>/<type>" ("_N" when
// that name repeats).
onnx::NodeProto call_node(const LocalFunction &f, const Group &group, const std::string &type,
                          const Call &c, std::map<std::string, int> &node_names) {
  onnx::NodeProto call;
  call.set_op_type(f.name);
  call.set_domain(kFunctionDomain);
  std::string node_name = group.instance + "/" + type;
  int &k = node_names[node_name];
  call.set_name(k++ == 0 ? node_name : node_name + "_" + std::to_string(k - 1));
  for (const auto &v : c.inputs)
    call.add_input(v);
  for (const auto &v : c.outputs)
    call.add_output(v);
  return call;
}

// Removes the `replaced` nodes of `g` and puts each call node after the last node of its call.
void splice_calls(onnx::GraphProto &g, const std::unordered_set<int> &replaced,
                  std::unordered_map<int, onnx::NodeProto> &call_at) {
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (int i = 0; i < g.node_size(); ++i) {
    if (!replaced.count(i))
      nodes.Add()->Swap(g.mutable_node(i));
    if (auto it = call_at.find(i); it != call_at.end())
      *nodes.Add() = std::move(it->second);
  }
  g.mutable_node()->Swap(&nodes);
}

// Imports the functions' domain into the model unless it already is.
void import_function_domain(onnx::ModelProto &model) {
  bool imported = false;
  for (const auto &imp : model.opset_import())
    imported = imported || imp.domain() == kFunctionDomain;
  if (!imported) {
    auto *imp = model.add_opset_import();
    imp->set_domain(kFunctionDomain);
    imp->set_version(1);
  }
}

} // namespace

std::vector<LocalFunction> extract_functions(onnx::ModelProto &model,
                                             const std::map<std::string, std::string> &instances) {
  auto *g = model.mutable_graph();
  const GraphIndex index = index_graph(*g);
  std::vector<Group> groups = find_calls(*g, instances, index.names);
  if (groups.empty())
    return {};
  std::map<std::string, int64_t> imports;
  for (const auto &imp : model.opset_import())
    imports[imp.domain()] = imp.version();

  std::vector<LocalFunction> out;
  std::unordered_map<std::string, size_t> by_key;   // body key -> index in `out`
  std::map<std::string, int> names;                 // function name -> uses
  std::unordered_map<int, onnx::NodeProto> call_at; // last node of a call -> the call node
  std::unordered_set<int> replaced;
  std::map<std::string, int> node_names;
  for (const auto &group : groups) {
    const std::string &type = instances.at(group.instance);
    Call c = make_call(*g, group, index);
    if (c.outputs.empty())
      continue; // a module computing only constants (read from the main graph's copies)
    std::string key = type + '\n' + body_key(c.body);
    auto [it, fresh] = by_key.emplace(key, out.size());
    if (fresh)
      out.push_back(add_function(model, c, type, names, imports));
    LocalFunction &f = out[it->second];
    f.calls.push_back(group.instance);
    call_at[group.nodes.back()] = call_node(f, group, type, c, node_names);
    // A member computing a constant value stays in the main graph too when others read it
    // (removed below when nothing does).
    for (int i : group.nodes)
      if (!is_constant_node(g->node(i), index))
        replaced.insert(i);
  }
  if (out.empty())
    return {};
  splice_calls(*g, replaced, call_at);
  sort_nodes(*g, index.names);
  remove_unread_nodes(*g);
  drop_moved_values(*g);
  import_function_domain(model);
  return out;
}

} // namespace torch2onnx
