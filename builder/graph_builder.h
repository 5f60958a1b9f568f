// The shape-aware ONNX graph builder. Converters add nodes through it; it validates each node
// against the ONNX schema of the target opset, names values and nodes readably, stores each
// constant once and serializes the model.
#pragma once

#include "builder/file_io.h"
#include "builder/types.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace onnx {
class ModelProto;
class GraphProto;
class NodeProto;
class TensorProto;
} // namespace onnx

namespace torch2onnx {

struct SerializeOptions {
  std::string producer_version;
  // Initializers at least this large go to a side file "<output>.data" when external data is on.
  bool external_data = false;
  size_t external_threshold = 256;
  bool run_checker = true;
  bool run_shape_inference = true;
};

// The type of a subgraph input or output (an If branch's or a Loop body's): a tensor of `dtype`, or
// a sequence of such tensors. The shape is written only when set (a loop-carried value may change
// shape between iterations, so callers usually leave it unset).
struct ValueType {
  DType dtype = DType::Undefined;
  bool sequence = false;
  std::optional<std::vector<Dim>> shape;
};

// A finished nested graph, ready to be an If/Loop attribute.
using Subgraph = std::shared_ptr<onnx::GraphProto>;

// Bytes the builder does not own: a weight in LibTorch's memory, written from there straight into
// the file or its external data (never copied). `owner` keeps the memory alive as long as the
// builder needs it.
struct BorrowedBytes {
  const char *data = nullptr;
  size_t size = 0;
  std::shared_ptr<const void> owner;
};

struct GraphStats {
  size_t nodes = 0;
  size_t parameters = 0;      // elements in initializers
  size_t parameter_bytes = 0; // bytes in initializers
};

class GraphBuilder {
public:
  explicit GraphBuilder(int opset, std::string graph_name = "torch2onnx");
  ~GraphBuilder();
  GraphBuilder(const GraphBuilder &) = delete;
  GraphBuilder &operator=(const GraphBuilder &) = delete;

  int opset() const { return opset_; }

  // Graph inputs and outputs.
  Val add_input(const std::string &name, const TensorInfo &info);
  void add_output(const Val &v, const std::string &name);
  std::vector<std::string> output_names() const;

  // Constants. Identical contents are stored once. Example: b.constant(TensorData::i64_vector({0,
  // -1}))
  Val constant(TensorData data, std::string_view hint = "const");
  Val const_i64(const std::vector<int64_t> &values) {
    return constant(TensorData::i64_vector(values));
  }
  Val const_i64_scalar(int64_t v) { return constant(TensorData::i64_scalar(v)); }
  Val const_scalar(DType t, double v) { return constant(TensorData::scalar(t, v)); }
  // A constant whose bytes stay where they are (a LibTorch weight): the initializer holds no copy;
  // its data is read from `bytes` by the rewrites and written from there into the file. Identical
  // contents are stored once, as with constant().
  Val constant_borrowed(DType dtype, std::vector<int64_t> dims, BorrowedBytes bytes,
                        std::string_view hint = "const");
  // The bytes of an initializer: its raw data, or the memory it borrows.
  std::string_view initializer_bytes(const onnx::TensorProto &init) const;
  // The constant contents of a value when it is an initializer, else nullptr.
  const TensorData *constant_data(const Val &v) const;

  // Adds one node; returns its outputs. Validates against the schema of `op_type` at the target
  // opset and throws Error naming the node on mismatch.
  // Example: auto y = b.op("Relu", {x})[0];
  std::vector<Val> op(std::string_view op_type, const std::vector<Val> &inputs,
                      const std::vector<Attr> &attrs = {}, int num_outputs = 1,
                      std::string_view domain = "");
  Val op1(std::string_view op_type, const std::vector<Val> &inputs,
          const std::vector<Attr> &attrs = {}) {
    return op(op_type, inputs, attrs, 1)[0];
  }

  // Adds a node with graph attributes (If's then_branch/else_branch, Loop's body).
  // Example: b.op_with_subgraphs("If", {cond}, {{"then_branch", t}, {"else_branch", e}}, 2);
  std::vector<Val> op_with_subgraphs(std::string_view op_type, const std::vector<Val> &inputs,
                                     const std::vector<std::pair<std::string, Subgraph>> &graphs,
                                     int num_outputs, const std::vector<Attr> &attrs = {});

  // Nested graphs. Between begin_subgraph() and end_subgraph(), op() adds nodes to the innermost
  // subgraph; names stay unique across the whole model and constants stay initializers of the
  // main graph (ONNX lets a subgraph read any value of its enclosing scopes by name).
  //   b.begin_subgraph("then");
  //   Val y = b.op1("Relu", {x});              // x from the outer graph
  //   Subgraph then_g = b.end_subgraph({y}, {ValueType{DType::Float}});
  void begin_subgraph(std::string_view name);
  Val add_subgraph_input(std::string_view hint, const ValueType &type);
  // Outputs not made inside the subgraph (outer values, constants) are copied in, so callers can
  // return any value.
  Subgraph end_subgraph(const std::vector<Val> &outputs, const std::vector<ValueType> &types);
  size_t subgraph_depth() const { return open_graphs_.size(); }

  // Shape and dtype knowledge.
  void set_info(const Val &v, const TensorInfo &info);
  bool has_info(const Val &v) const;
  const TensorInfo &info(const Val &v) const; // throws when unknown
  DType dtype(const Val &v) const { return info(v).dtype; }
  int64_t rank(const Val &v) const { return info(v).rank(); }

  // A value that travels with another under a role name, for converters that hold one PyTorch
  // value as several ONNX ones: e.g. a nested tensor is its padded form plus a mask of the valid
  // positions (aten_lib/transformer.cpp). companion() is an invalid Val when none was set.
  // Example: b.set_companion(y, "nested_valid", valid); Val m = b.companion(y, "nested_valid");
  void set_companion(const Val &v, const std::string &role, const Val &companion);
  Val companion(const Val &v, const std::string &role) const;

  // Node naming: nodes added while a scope is set are named "<scope>/<OpType>_<n>".
  void set_scope(std::string scope) { scope_ = std::move(scope); }
  const std::string &scope() const { return scope_; }
  // A fresh value name derived from `hint`.
  std::string fresh_name(std::string_view hint);

  GraphStats stats() const;
  size_t node_count() const;

  // After the walk, the export's steps run in this order (exporter/export.cpp: write_model):
  //   finish_graph(opts)   the header, the graph's inputs and outputs; nodes nothing reads go
  //   rewrite(step) ...    steps on the finished graph: the rewrites (builder/optimize.h) and
  //                        --functions (builder/functions.h); they read borrowed weights in place
  //   save(path, opts)     the ONNX checker, shape inference, the file
  // save() and serialize_to_string() run finish_graph() first when it has not run.
  void finish_graph(const SerializeOptions &opts);
  // Runs `step` on the finished model (after finish_graph(), before save()). While it runs, a
  // rewrite reads a borrowed initializer's bytes through ScopedInitializerBytes and may let one go.
  void rewrite(const std::function<void(onnx::ModelProto &)> &step);

  // Finishes the model: value infos for inputs/outputs, opset import, checker, shape inference,
  // then writes `path` atomically (temporary file in the same folder, fsync, rename). Returns
  // true when the weights went to the side file "<path>.data" (asked for, or over 2 GB).
  bool save(const std::string &path, const SerializeOptions &opts);
  // The model as it would be saved (after checks), for tests and in-memory use. Borrowed
  // initializers are copied into the model first.
  std::string serialize_to_string(const SerializeOptions &opts);

  // The model. Initializers made by constant_borrowed hold no data here (initializer_bytes has it).
  onnx::ModelProto &model();
  // Op types of the nodes added so far, in order (with the output Identity nodes once finished);
  // a node's subgraphs follow it.
  std::vector<std::string> model_op_types() const;

private:
  void finish(const SerializeOptions &opts);
  onnx::GraphProto *current_graph();
  std::vector<Val> add_node(std::string_view op_type, const std::vector<Val> &inputs,
                            const std::vector<Attr> &attrs,
                            const std::vector<std::pair<std::string, Subgraph>> &graphs,
                            int num_outputs, std::string_view domain);
  // The node in the form the target opset defines (builder/opset_forms.cpp), or nullopt when the
  // form given is already right.
  std::optional<std::vector<Val>> adapt_form(const std::string &op, const std::vector<Val> &inputs,
                                             const std::vector<Attr> &attrs, int num_outputs,
                                             std::string_view domain);
  std::optional<std::vector<Val>> adapt_bool_form(const std::string &op,
                                                  const std::vector<Val> &inputs,
                                                  const std::vector<Attr> &attrs, int num_outputs);
  std::optional<std::vector<Val>> adapt_form_below_13(const std::string &op,
                                                      const std::vector<Val> &inputs,
                                                      const std::vector<Attr> &attrs,
                                                      int num_outputs);
  // Softmax, LogSoftmax or Hardmax over `axis` in the opset-11 form, which coerces the input to
  // 2-D around the axis: a transpose moves any other axis last.
  std::vector<Val> softmax_below_13(const std::string &op, const std::vector<Val> &inputs,
                                    int64_t axis, int num_outputs);
  std::optional<std::vector<Val>> adapt_form_below_12(const std::string &op,
                                                      const std::vector<Val> &inputs,
                                                      const std::vector<Attr> &attrs,
                                                      int num_outputs);
  // Throws when the target opset cannot carry the subgraphs' values (lists below 13).
  void check_subgraph_form(std::string_view op_type,
                           const std::vector<std::pair<std::string, Subgraph>> &graphs) const;
  std::vector<Val> nll_loss_below_12(const std::vector<Val> &inputs, const std::vector<Attr> &attrs,
                                     int num_outputs);
  // Adds a node as given (no adapt_form), after checking it against the schema.
  std::vector<Val> op_impl(const std::string &op, const std::vector<Val> &inputs,
                           const std::vector<Attr> &attrs, int num_outputs) {
    return add_node_as_is(op, inputs, attrs, {}, num_outputs, "");
  }
  std::vector<Val> add_node_as_is(std::string_view op_type, const std::vector<Val> &inputs,
                                  const std::vector<Attr> &attrs,
                                  const std::vector<std::pair<std::string, Subgraph>> &graphs,
                                  int num_outputs, std::string_view domain);
  // Checks a node against the ONNX schema of the target opset; throws Error naming it.
  void verify_node(const onnx::NodeProto &node, const std::vector<Attr> &attrs) const;
  void remove_dead_nodes();
  // finish()'s steps: the model's header, graph inputs and outputs (each output an Identity);
  // letting go of borrowed weights the rewrites dropped; the ONNX checker and shape inference.
  void add_header_and_io(const SerializeOptions &opts);
  void release_dropped_borrowed();
  void check_and_infer(const SerializeOptions &opts);
  // Moves initializers of at least `threshold` bytes to "<path>.data"; false when none is.
  bool externalize(const std::string &path, size_t threshold);
  // Adds an initializer holding `raw` (or nothing, when `lent` is set) under a fresh name.
  Val add_initializer(DType dtype, const std::vector<int64_t> &dims, std::string &&raw,
                      const BorrowedBytes *lent, std::string key, std::string_view hint);
  // The existing constant with these contents, or an invalid Val.
  Val find_constant(const std::string &key, std::string_view bytes) const;
  // Writes the model to `fd` with borrowed initializers' bytes taken from their memory.
  bool write_with_borrowed(int fd);
  // Checker placeholders: borrowed initializers marked as external data while ONNX checks them.
  void mark_borrowed(bool on);
  // Copies borrowed bytes into the model (for serialize_to_string).
  void take_borrowed();

  int opset_;
  std::unique_ptr<onnx::ModelProto> model_;
  std::string scope_;
  std::unordered_map<std::string, int> name_counts_;
  std::unordered_map<std::string, TensorInfo> infos_;
  std::map<std::pair<std::string, std::string>, Val> companions_; // (value, role) -> companion
  std::unordered_map<std::string, int> constants_;                // value name -> initializer index
  mutable std::unordered_map<std::string, TensorData> constant_cache_; // filled by constant_data
  std::unordered_map<std::string, std::string> constant_by_hash_;      // content key -> value name
  std::unordered_map<std::string, BorrowedBytes> borrowed_;            // initializer -> its bytes
  std::vector<std::pair<std::string, TensorInfo>> inputs_;
  std::vector<std::pair<std::string, std::string>> outputs_; // (value, graph output name)
  bool finished_ = false;                                    // finish_graph ran
  bool checked_ = false; // finish ran: the checker and shape inference
  std::vector<std::unique_ptr<onnx::GraphProto>> open_graphs_; // innermost last
};

std::string to_string(const Attr &a);

// A domain other than ONNX's own (ai.onnx, ai.onnx.ml, training): e.g. a --fallback-domain. The
// builder checks no schema for its nodes.
bool is_custom_domain(const std::string &domain);
// Adds an opset import (version 1) for every custom domain a node of `m` (or of its subgraphs)
// uses and no import names yet; finish() calls it before the checker.
void import_custom_domains(onnx::ModelProto &m);

} // namespace torch2onnx

namespace torch2onnx {
// Writes one tensor as a serialized onnx::TensorProto (the ONNX model zoo's test-data format).
void save_tensor_proto(const std::string &path, const TensorData &data, const std::string &name);
} // namespace torch2onnx
