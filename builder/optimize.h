// Graph rewrites on a finished ONNX model: small rules (target op -> condition -> apply) run in
// one forward pass over the nodes, so the cost is linear in the node count. Each rule is a file
// of builder/rewrites/ (docs/performance.md lists what each buys); default_rules() lists them in
// the order they are tried. The export runs them as a step of its own (exporter/export.cpp:
// GraphBuilder::rewrite), between the walk and the checker.
//
// clang-format off
//   rule                 target               what it removes or folds
//   identity             Identity             the node (an output Identity renames its producer's output)
//   noop-cast            Cast                 a Cast to the type the value already has
//   noop-reshape         Reshape              a Reshape to the shape the value already has
//   noop-expand          Expand               an Expand that broadcasts nothing
//   noop-transpose       Transpose            a Transpose with the identity permutation
//   noop-dropout         Dropout              inference Dropout (no training_mode input)
//   noop-index-wrap      Where                the wrap of negative indices of an index that
//                                             cannot be negative (from NonZero, ArgMax, TopK ...)
//   fold-constants       Cast, Reshape, ...   a node of initializers only (Cast, Reshape, Squeeze,
//                                             Unsqueeze, Flatten, ConstantOfShape, Range): its value
//   fold-reshape-chain   Reshape              a Reshape of a Reshape (Flatten, Squeeze, Unsqueeze)
//                                             nothing else reads: one Reshape of the first input
//   fold-conv-batchnorm  BatchNormalization   a BatchNormalization after a Conv with constant
//                                             float32 weights, folded into the Conv's
//   fold-transpose-weight Transpose           a Transpose of an initializer nothing else reads,
//                                             which becomes the transposed initializer
//   fold-matmul-batchnorm BatchNormalization  a BatchNormalization over a MatMul's output features
//                                             (a Linear + BatchNorm1d), folded into its weight
//   fold-matmul-scale    Mul                  a Mul by per-feature constants after a MatMul with a
//                                             constant weight (layer scale), folded into it
//   cse                  every node           a second node with the same op, inputs and
//                                             attributes (never random ops or subgraphs)
// clang-format on
//
// A new rule: a file under builder/rewrites/ defining `RewriteRule <name>_rule()` (declared in
// builder/rewrites/rules.h), one line in default_rules(), a test in tests/test_optimize.cpp.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace onnx {
class GraphProto;
class ModelProto;
class NodeProto;
class TensorProto;
} // namespace onnx

namespace torch2onnx {

class OptGraph;

struct RewriteRule {
  std::string name;      // unique among the rules run together (optimize_model checks)
  std::string target_op; // the op type the rule is tried on; "*": every node
  // The default-domain opsets the rule is right for (the model's opset_import).
  int min_opset = 1;
  int max_opset = 1 << 30;
  // Element types (onnx::TensorProto::DataType) of the node's first input the rule handles;
  // empty: any. A node whose first input has a known type that is not listed is not tried.
  std::vector<int> elem_types;
  // The condition: true when the rewrite applies to the node. It reads the graph and never
  // changes it (it may remember nodes in OptGraph::scratch).
  std::function<bool(const OptGraph &g, int node)> matches;
  // The rewrite, run only right after `matches` said yes for the same node.
  std::function<void(OptGraph &g, int node)> apply;
};

// The default rules, in the order they are tried on each node.
const std::vector<RewriteRule> &default_rules();
// Throws Error when two rules share a name (their counts would mix in the report).
void check_rule_names(const std::vector<RewriteRule> &rules);

struct OptimizeReport {
  size_t nodes_before = 0, nodes_after = 0;
  size_t initializers_removed = 0;
  std::map<std::string, size_t> applied; // rule name -> times applied
};

// Where rewrites find the bytes of an initializer that holds none in the proto (a weight the
// GraphBuilder borrows from LibTorch, written straight from there). While one is alive,
// optimize_model on this thread reads initializers through it; GraphBuilder::save sets it.
using InitializerBytesFn = std::function<std::string_view(const onnx::TensorProto &)>;
class ScopedInitializerBytes {
public:
  // `release` (optional) lets a borrowed initializer's memory go when no node reads it any more.
  explicit ScopedInitializerBytes(InitializerBytesFn fn,
                                  std::function<void(const onnx::TensorProto &)> release = {});
  ~ScopedInitializerBytes();
  ScopedInitializerBytes(const ScopedInitializerBytes &) = delete;
  ScopedInitializerBytes &operator=(const ScopedInitializerBytes &) = delete;

private:
  const ScopedInitializerBytes *previous_;

public:
  InitializerBytesFn fn;
  std::function<void(const onnx::TensorProto &)> release;
};

// An initializer's bytes: its raw data, or, when it holds none, what the ScopedInitializerBytes
// alive on this thread gives (a borrowed weight). Empty when neither has any.
std::string_view initializer_raw_bytes(const onnx::TensorProto &t);
// Lets a borrowed initializer's memory go (the ScopedInitializerBytes' release), e.g. once its
// values were converted into bytes of its own (builder/float16.h). Nothing when none is alive.
void release_borrowed(const onnx::TensorProto &t);

// Every value name (inputs, initializers, node outputs) and node name of `g` and its subgraphs,
// for passes that make fresh names (builder/float16.cpp, builder/quantize_bias.cpp).
void collect_names(const onnx::GraphProto &g, std::unordered_set<std::string> &values,
                   std::unordered_set<std::string> &nodes);

// Runs `rules` over the main graph of `model` (subgraphs are read, not rewritten), then removes
// nodes and initializers nothing reads. Uses ONNX shape inference for value types; the model's
// value_info is left as it was.
OptimizeReport optimize_model(onnx::ModelProto &model,
                              const std::vector<RewriteRule> &rules = default_rules());

// The view of the graph rules work on. Removing a node and aliasing its outputs to other values
// is O(1); names are resolved once at the end.
class OptGraph {
public:
  explicit OptGraph(onnx::ModelProto &model);
  ~OptGraph();

  onnx::NodeProto &node(int i);
  const onnx::NodeProto &node(int i) const;
  int size() const;
  // The model's default-domain opset.
  int opset() const;
  bool removed(int i) const;

  // The node producing `value`, or -1 (graph input, initializer, unknown).
  int producer(const std::string &value) const;
  // How many node inputs (including reads inside subgraphs) and graph outputs use `value`.
  size_t uses(const std::string &value) const;
  bool is_graph_output(const std::string &value) const;
  // The initializer named `value`, or nullptr.
  const onnx::TensorProto *initializer(const std::string &value) const;
  // A float32 initializer's values (raw or float_data); false when it is not one.
  bool float_values(const std::string &value, std::vector<float> &out) const;
  // An int64 initializer's values; false when it is not one.
  bool int_values(const std::string &value, std::vector<int64_t> &out) const;
  // Element type (onnx::TensorProto::DataType) and static shape from inputs, initializers and
  // shape inference; elem 0 / false when unknown.
  int elem_type(const std::string &value) const;
  bool static_shape(const std::string &value, std::vector<int64_t> &dims) const;

  // An initializer's raw bytes (borrowed ones included), or an empty view.
  std::string_view raw_bytes(const onnx::TensorProto &t) const;
  // A float32 initializer's values in place (raw data only), or nullptr; `n` gets the count.
  const float *float_data(const std::string &value, size_t &n) const;
  // Adds a float32 initializer with a fresh name derived from `hint`; returns the name.
  std::string add_float_initializer(const std::string &hint, const std::vector<int64_t> &dims,
                                    const std::vector<float> &values);
  // Same, taking the little-endian bytes (moved in, not copied).
  std::string add_float_initializer_raw(const std::string &hint, const std::vector<int64_t> &dims,
                                        std::string &&bytes);
  // Same for any element type (onnx::TensorProto::DataType).
  std::string add_initializer_raw(const std::string &hint, const std::vector<int64_t> &dims,
                                  int data_type, std::string &&bytes);
  // Frees an initializer's data now when nothing reads it any more (it is dropped at commit).
  void release_if_unused(const std::string &value);
  // Removes node i (its inputs lose one use each).
  void remove(int i);
  // Every use of `from` now reads `to` instead (`from` must not be a graph output).
  void alias(const std::string &from, const std::string &to);
  // Renames node i's output k to `name` (a value nothing else defines).
  void rename_output(int i, int k, const std::string &name);
  // Node i's input k now reads `name`; or one more input.
  void replace_input(int i, int k, const std::string &name);
  void append_input(int i, const std::string &name);
  // Node i becomes an `op_type` node (same domain and outputs) of its first `keep` inputs and no
  // attributes; the inputs dropped lose a use. Example: fold-matmul-batchnorm turns a
  // BatchNormalization into the Add of its folded bias: g.retype(i, "Add", 1); g.append_input(..).
  void retype(int i, const std::string &op_type, int keep);
  // Per-run scratch tables for rules that remember nodes (e.g. cse).
  // A rule's memo, not part of the graph: conditions may fill it.
  std::unordered_map<std::string, int> &scratch(const std::string &name) const;
  // The name `value` resolves to after aliasing.
  std::string resolve(const std::string &value) const;

  // Applies aliases everywhere, drops removed nodes and unused initializers.
  void commit(OptimizeReport &report);

private:
  struct State;
  std::unique_ptr<State> s_;
};

} // namespace torch2onnx
