// The graph walker: one pass over a prepared TorchScript graph, mapping each torch value to an
// ONNX value or a compile-time constant, handling prim:: nodes, list ops and control flow itself
// (its handler table) and dispatching the rest to the converter registry (aten_lib/dispatch.h).
//
// walker.cpp: the walk, the pre-scan, the value environment, folding and converter calls
// walker_values.cpp: bindings as converter arguments and back (to_arg / from_arg), outputs
// walker_prim.cpp: the handler table and the prim:: value handlers
// walker_lists.cpp: list ops, on lists of known length and on ONNX sequences
// walker_control_flow.cpp: prim::If and prim::Loop, and values across subgraph boundaries
#pragma once

#include "aten_lib/converter.h"
#include "exporter/analysis/graph_inputs.h"
#include "exporter/core/records.h"
#include "exporter/frontend/torchscript/jit_util.h"
#include "exporter/frontend/torchscript/recorder.h"

#include <ATen/core/ivalue.h>
#include <array>
#include <map>
#include <string>
#include <torch/csrc/jit/ir/ir.h>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace torch2onnx {

// int, float and bool values computed at run time are 0-d tensors of these dtypes (Undefined for
// other types).
DType number_dtype(const c10::TypePtr &t);
// True when a block raises (prim::RaiseException at its top level): such a branch is dropped.
bool block_raises(const torch::jit::Block *block);

struct PlaceholderSizes; // walker.cpp: infer_missing's placeholder sizes

class Walker {
public:
  Walker(GraphBuilder &b, const ShapeRecord &record, const Registry &registry);
  // The two sizes each symbolic input dim was recorded at (infer_missing's placeholders).
  void set_symbols(std::vector<SymbolSizes> symbols) { symbols_ = std::move(symbols); }

  // Every node that would need a converter the registry lacks at the builder's opset.
  std::vector<UnsupportedOp> find_unsupported(const torch::jit::Graph &graph) const;

  void bind_input(const torch::jit::Value *v, const Val &val);
  // Converts every node of the graph; throws Error naming the node on failure.
  void run(const torch::jit::Graph &graph);
  // The graph's outputs flattened to tensors (tuples, lists and dicts in order), constants
  // materialized; each with a name hint (the dict key it came from, else empty).
  std::vector<std::pair<Val, std::string>> outputs(const torch::jit::Graph &graph);

  const std::vector<std::string> &warnings() const { return warnings_; }
  // The warnings that say the ONNX model behaves differently, which the export shows also without
  // -v: checks that raise an exception, dropped; ifs converted as the example inputs took them.
  const std::vector<std::string> &dropped_raises() const { return dropped_raises_; }
  const std::vector<std::string> &example_branches() const { return example_branches_; }
  const std::vector<std::string> &random_ops() const { return random_ops_; }
  // How often each op was walked (prim::Constant left out), e.g. {"aten::conv2d": 3}.
  const std::map<std::string, size_t> &op_counts() const { return op_counts_; }
  // The tensors of the main graph's nodes, in walk order, with the ONNX values they became.
  const std::vector<WalkedValue> &walked() const { return walked_; }
  // The nodes those values came from (WalkedValue::node indexes this).
  const std::vector<WalkedNode> &walked_nodes() const { return walked_nodes_; }

  // Whether the walker has a handler for `which` (its handler table). Which node kinds it handles
  // itself is the registry's list of frontend entries (aten_lib/frontend_ops.cpp), each naming its
  // handler; a node kind whose entry names a handler the walker lacks is an internal error.
  static bool handles(FrontendHandler which);

  struct Bound {
    // List: a list/tuple/dict whose length is known at export time (items may be runtime
    // tensors). Seq: a tensor list built at run time (in a loop), an ONNX sequence in `tensor`.
    enum class Kind { Unset, Const, Tensor, List, Seq } kind = Kind::Unset;
    c10::IValue constant;
    Val tensor;
    std::vector<Bound> items;
    std::vector<std::string> keys;      // a dict: one key per item
    DType seq_dtype = DType::Undefined; // Seq: the element dtype
    // An item of a List that is itself a list: the TorchScript value it was made from. Python
    // lists are shared, so appends to that value later (`masks = [a, b]`, then `a.append(m)`)
    // show through the outer list; reading the item looks the value up again (Walker::current).
    const torch::jit::Value *list_origin = nullptr;
    // prim::Uninitialized of a tensor type: a value only a path that returns early, breaks or
    // raises leaves unset (never read); an If or loop passing it on gets a placeholder.
    bool uninitialized = false;
    // An Optional[Tensor] that is None on some runs (`mask = None; if seq > 1: mask = ...` on a
    // runtime condition): a bool 0-d tensor, true where it is set; `tensor` is then a placeholder
    // on the runs where it is None. Only `is None`, `is not None` and the unchecked_cast in the
    // branch they guard read it (Walker::pack_optional).
    Val some_flag;
  };
  using Env = std::unordered_map<const torch::jit::Value *, Bound>;

private:
  // One row of the handler table (walker_prim.cpp). `handle` returns false to leave the node to
  // constant folding and the converters (e.g. __getitem__ on a constant list, which folds).
  // `scan` says what find_unsupported does with the node.
  enum class Scan {
    Handled,      // nothing to check
    ConstIfConst, // handled; its outputs are constants when its inputs are
    Blocks,       // control flow: check the nodes of its blocks (a raising block is dropped)
    OnLists,      // handled when input 0 is a list; otherwise like any other op
  };
  struct Handler {
    FrontendHandler which;
    bool (Walker::*handle)(const torch::jit::Node *);
    Scan scan;
  };
  static const std::vector<Handler> &handler_table();
  static const Handler *handler_of(FrontendHandler which);
  // The handler of n's kind (its registry entry is a frontend entry), or nullptr.
  const Handler *find_handler(const torch::jit::Node *n) const;

  // ---- the walk (walker.cpp) ----
  void run_block(const torch::jit::Block *block);
  void run_node(const torch::jit::Node *n, size_t index, const NodeWhere &where);
  // Provenance bookkeeping after a node was walked: op_counts_ and walked_.
  void note_walked(const torch::jit::Node *n, size_t index, const NodeWhere &where);
  bool fold_metadata(const torch::jit::Node *n);
  bool try_fold(const torch::jit::Node *n);
  void convert(const torch::jit::Node *n, const RegistryEntry &entry);
  // --fallback-domain (Registry::fallback_domain): the converter writing `n`'s op as a node of
  // that domain, made from its schema once per overload (aten_lib/converter.h
  // fallback_converter).
  const RegistryEntry &fallback_entry(const torch::jit::Node *n);
  // After an in-place op on a view (x[a:b] = v, x[:, i].fill_(v)), rebinds the view's base (and
  // its base, up the chain) to the base with the view's new contents scattered in.
  // Returns the tensor changed last (the root of the chain of views), for write_list_item.
  const torch::jit::Value *write_back(const torch::jit::Value *view,
                                      const torch::jit::Node *at = nullptr);
  void keep_view_outputs(const torch::jit::Node *n);
  void rederive_views(const torch::jit::Value *base, const torch::jit::Node *at,
                      const std::unordered_set<const torch::jit::Value *> &fresh);
  std::vector<int64_t> inverse_permutation(const torch::jit::Node *vn,
                                           const torch::jit::Value *base);
  void check_untracked_view_write(const torch::jit::Node *n,
                                  const torch::jit::Value *written) const;
  std::vector<std::pair<size_t, size_t>> written_inputs(const torch::jit::Node *n,
                                                        bool inplace) const;
  void apply_write(const torch::jit::Node *n, const torch::jit::Value *target,
                   const torch::jit::Value *result);
  void write_list_item(const torch::jit::Value *target);
  static const torch::jit::Value *inplace_source(const torch::jit::Value *v);
  const torch::jit::Value *view_root(const torch::jit::Value *v) const;
  void check_view_from_if(const torch::jit::Node *n, const torch::jit::Value *v) const;
  void check_untracked_producer(const torch::jit::Node *n, const torch::jit::Value *v) const;
  void check_untracked_views_of(const torch::jit::Node *n, const torch::jit::Value *base) const;
  // Shape/dtype of an unrecorded value (in a branch that did not run): LibTorch runs the node on
  // placeholder inputs of the known shapes. Keeps what it learns in inferred_.
  void infer_missing(const torch::jit::Node *n);
  struct PlaceholderRun {
    PlaceholderSizes *sizes;
    bool guessed = false;  // a runtime number was replaced by a placeholder
    bool symbolic = false; // an input has symbolic dims: a second run tells which dims follow
  };
  // A zero placeholder for a value in infer_missing's run (false when its shape is unknown).
  bool placeholder_value(const Bound &bd, const c10::TypePtr &type, PlaceholderRun &r,
                         c10::IValue &out);
  const TensorInfo *info_of_value(const torch::jit::Value *v) const;
  std::string converter_key(const torch::jit::Node *n) const;
  // Whether LibTorch gave the node a complex input or output (which needs a complex lowering).
  bool touches_complex(const torch::jit::Node *n) const;
  // True for a node computing numbers only used to decide whether to raise an exception (e.g.
  // `if h.size() != expected: raise`): the check is dropped, so the node is skipped.
  bool only_feeds_checks(const torch::jit::Node *n) const;
  bool is_check_if(const torch::jit::Node *u, size_t offset) const;

  const Bound &lookup(const torch::jit::Value *v) const;
  // Dims of `info` (recorded for the output `v` of a runtime If or Loop) that a branch (the
  // loop's initial value or its body's result) gives another size: every recording took the same
  // path, so their sizes there are not the output's; and v's runtime_axes_.
  void weaken_branch_dims(const Val &v, TensorInfo &info) const;
  void note_branch_shapes(const Val &out, const Val &then_val, const Val &else_val);
  void set_loop_result_infos(const std::vector<Val> &results, const std::vector<ValueType> &types,
                             const std::vector<TensorInfo> &infos, const std::vector<Val> &init,
                             const std::vector<Val> &body);
  void bind(const torch::jit::Value *v, Bound b);
  std::string describe_input(const torch::jit::Value *v) const;

  // ---- values and converter arguments (walker_values.cpp) ----
  Arg to_arg(const Bound &b, const torch::jit::Value *origin);
  Bound from_arg(const Arg &a, const torch::jit::Value *v);
  Val materialize(const at::Tensor &t, const std::string &hint);
  // A quantized constant: its integers as an initializer and a DequantizeLinear (per-channel
  // from opset 13). docs/quantized.md.
  Val quantized_constant(const at::Tensor &t, const std::string &name);
  // A quantized conv's or linear's packed parameters (a LibTorch custom-class object) as the
  // list converters read (aten_lib/quantized.h), unpacked with LibTorch's own quantized:: ops.
  static bool is_packed_params(const c10::IValue &iv);
  Arg packed_params_arg(const c10::IValue &iv, const torch::jit::Value *origin);
  // An 8-bit embedding table (EmbeddingPackedParamsBase) as aten_lib/quantized.h's list: its
  // uint8 rows, a float scale and bias per row.
  Arg embedding_table_arg(const c10::IValue &iv, const std::string &hint);
  void flatten(const Bound &b, const torch::jit::Value *v, const std::string &hint,
               std::vector<std::pair<Val, std::string>> &out);

  // ---- prim:: values (walker_prim.cpp) ----
  bool handle_constant(const torch::jit::Node *n);
  bool handle_construct(const torch::jit::Node *n);
  bool handle_dict(const torch::jit::Node *n);
  bool handle_unpack(const torch::jit::Node *n);
  bool handle_num_to_tensor(const torch::jit::Node *n);
  bool handle_same_value(const torch::jit::Node *n);
  bool handle_uninitialized(const torch::jit::Node *n);
  bool handle_dropped(const torch::jit::Node *n);
  bool handle_get_attr(const torch::jit::Node *n);

  // ---- lists (walker_lists.cpp) ----
  bool handle_getitem(const torch::jit::Node *n);
  bool handle_len(const torch::jit::Node *n);
  bool handle_append(const torch::jit::Node *n);
  bool handle_list_copy(const torch::jit::Node *n);
  bool handle_is_none(const torch::jit::Node *n);
  bool handle_tolist(const torch::jit::Node *n);
  // insert, _set_item, pop, Delete: edit the list in place (a sequence op on a runtime list).
  bool handle_list_mutation(const torch::jit::Node *n);
  bool handle_list_concat(const torch::jit::Node *n);
  bool handle_list_slice(const torch::jit::Node *n);
  bool handle_list_compare(const torch::jit::Node *n);
  bool handle_list_repeat(const torch::jit::Node *n);
  bool handle_dict_method(const torch::jit::Node *n);
  bool handle_isinstance(const torch::jit::Node *n);
  Bound current(const Bound &item) const;
  bool mutate_sequence(const torch::jit::Node *n, const Bound &seq);
  // A node whose input 0 is a list built at run time (an ONNX sequence): len, indexing,
  // unpacking, stack and cat become sequence ops; other ops are refused. False when input 0 is
  // not such a list (or the op takes one as it is: append, list, is / is not).
  bool try_sequence_op(const torch::jit::Node *n);
  void pad_runtime_sequence(const torch::jit::Node *n, const Bound &seq);
  bool try_split_by_sequence(const torch::jit::Node *n);
  Val to_sequence(const Bound &bd, DType dtype);
  DType list_elem_dtype(const torch::jit::Value *list) const;

  // ---- control flow (walker_control_flow.cpp) ----
  bool handle_if(const torch::jit::Node *n);
  bool handle_loop(const torch::jit::Node *n);
  // A Loop's max trip count and condition inputs (empty when unbounded / constant true).
  std::pair<Val, Val> loop_bounds(const torch::jit::Node *n);
  void convert_if(const torch::jit::Node *n);
  bool take_recorded_branch(const torch::jit::Node *n);
  bool try_unroll(const torch::jit::Node *n);
  // Values defined outside `n` that nodes inside its blocks modify (list appends, in-place ops):
  // they become extra If outputs / loop-carried values.
  std::vector<const torch::jit::Value *> outer_mutations(const torch::jit::Node *n) const;
  // What an If or loop carries for a tensor TorchScript left uninitialized on this path.
  Val uninitialized_placeholder(const torch::jit::Value *origin, const ValueType *want);
  // A value as the ONNX values that carry it across a subgraph boundary (flattened tuples;
  // numbers as 0-d tensors; tensor lists as sequences), shaped by its TorchScript type.
  void pack(const Bound &bd, const c10::TypePtr &type, const torch::jit::Value *origin,
            std::vector<Val> &vals, std::vector<ValueType> &types,
            const std::vector<ValueType> *want);
  Bound unpack(const c10::TypePtr &type, const std::vector<Val> &vals, size_t &pos,
               const torch::jit::Value *origin);
  void pack_dict(const Bound &bd, const c10::DictType &type, std::vector<Val> &vals,
                 std::vector<ValueType> &types, const std::vector<ValueType> *want);
  void pack_optional(const Bound &bd, const c10::OptionalType &type,
                     const torch::jit::Value *origin, std::vector<Val> &vals,
                     std::vector<ValueType> &types, const std::vector<ValueType> *want);
  bool take_non_raising_branch(const torch::jit::Node *n);
  void bind_taken_branch(const torch::jit::Node *n, const torch::jit::Block *taken);
  void note_if_outputs(const std::vector<Val> &outs, const std::vector<ValueType> &types,
                       const std::vector<Val> (&branch_vals)[2]);
  void bind_same_constants(const torch::jit::Node *n, const std::vector<Bound> (&bounds)[2]);
  // The keys of the dicts an If carries (its outputs and the dicts its branches change), in the
  // order pack meets them: the then-branch records them, the else-branch must give the same
  // ones, unpack rebuilds the dicts with them. Null outside an If (a loop cannot carry a dict).
  struct DictKeys {
    std::vector<std::vector<std::string>> lists;
    size_t next = 0;
    bool checking = false;
  };
  DictKeys *if_dict_keys_ = nullptr;
  Val to_scalar_tensor(const Bound &bd, DType dtype);

  GraphBuilder &b_;
  const ShapeRecord &record_;
  const Registry &registry_;
  Env env_;
  // Initializers made from constant tensors, by tensor. The tensor is kept alive with its entry:
  // otherwise a folded temporary freed in one unrolled loop iteration could hand its address to
  // another tensor in the next, which would then get the first one's initializer.
  std::unordered_map<const void *, std::pair<at::Tensor, Val>> materialized_;
  // Values made by a view op (slice, select, view, ...) -> that node, for write_back.
  std::unordered_map<const torch::jit::Value *, const torch::jit::Node *> view_of_;
  // Tensors a view was taken of (rederive_views runs after an in-place op on one), and the
  // outputs of in-place ops by the tensor they changed (a trace reads `y2 = y.add_(1)` after).
  std::unordered_set<const torch::jit::Value *> viewed_;
  std::unordered_map<const torch::jit::Value *, std::vector<const torch::jit::Value *>>
      inplace_aliases_;
  std::unordered_map<const torch::jit::Value *, TensorInfo> inferred_;
  // The shapes the two branches of a runtime If give each of its outputs (by ONNX value name):
  // a dim the recording saw static is unknown when a branch says otherwise (Walker::bind).
  std::unordered_map<std::string, std::array<TensorInfo, 2>> branch_shapes_;
  // The placeholders uninitialized_placeholder made (values no path reads).
  std::unordered_set<std::string> placeholders_;
  // Axes of a value (by ONNX value name) whose size only the run decides, whatever the
  // recordings saw: a list built in a loop, stacked (its length is the trip count).
  std::unordered_map<std::string, std::vector<int64_t>> runtime_axes_;
  std::vector<SymbolSizes> symbols_; // the sizes each symbolic dim was recorded at
  mutable std::unordered_map<const torch::jit::Node *, bool> feeds_checks_;
  std::vector<std::string> warnings_;
  std::vector<std::string> dropped_raises_, example_branches_; // also in warnings_
  std::vector<std::string> random_ops_;                        // also in warnings_
  // Adds `msg` to warnings_ and to `list` (dropped_raises_ or example_branches_).
  void warn_changed(std::vector<std::string> &list, std::string msg);
  size_t node_index_ = 0;
  std::map<std::string, size_t> op_counts_;
  std::vector<WalkedValue> walked_;
  std::vector<WalkedNode> walked_nodes_;
  std::pair<const torch::jit::Node *, const RegistryEntry *> last_converted_{nullptr, nullptr};
  std::map<std::string, RegistryEntry> fallback_entries_; // by schema
  // find_handler's answers by node kind (nullptr: no handler).
  mutable std::unordered_map<c10::Symbol, const Handler *> handlers_;
};

// Helpers the walker's files share (walker.cpp).
namespace walker_detail {
bool is_foldable(const torch::jit::Node *n);
bool is_tensor_type(const torch::jit::Value *v);
bool is_tensor_list(const c10::TypePtr &t);
// Ops whose output aliases its first input and whose mutation write_back can scatter back
// (slice, select, narrow, view with sizes, unsqueeze, squeeze).
bool is_view_op(const torch::jit::Node *n);
bool is_untracked_view_op(const torch::jit::Node *n);
// "layer1.0.act (model.py:12)": where a node is, for warnings.
std::string place_of(const torch::jit::Node *n);
} // namespace walker_detail

} // namespace torch2onnx
