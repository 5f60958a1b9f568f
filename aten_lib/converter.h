// What an aten-op converter sees: typed arguments (tensor values or compile-time constants), the
// shapes/dtypes recorded for its outputs, and the builder. No LibTorch or torch::jit::Node here.
#pragma once

#include "builder/error.h"
#include "builder/graph_builder.h"
#include "builder/types.h"
#include "torch2onnx/settings.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace torch2onnx {

// One argument or result of an aten op.
struct Arg {
  enum class Kind { None, Tensor, Int, Float, Bool, String, List, Device, Other };
  Kind kind = Kind::None;
  Val tensor;             // Kind::Tensor
  int64_t i = 0;          // Kind::Int (also dtype / layout / memory-format enums)
  double f = 0;           // Kind::Float
  bool b = false;         // Kind::Bool
  std::string s;          // Kind::String, Kind::Device, Kind::Other (a description)
  std::vector<Arg> items; // Kind::List

  static Arg none() { return Arg{}; }
  static Arg of_tensor(Val v) {
    Arg a;
    a.kind = Kind::Tensor;
    a.tensor = std::move(v);
    return a;
  }
  static Arg of_int(int64_t v) {
    Arg a;
    a.kind = Kind::Int;
    a.i = v;
    return a;
  }
  static Arg of_float(double v) {
    Arg a;
    a.kind = Kind::Float;
    a.f = v;
    return a;
  }
  static Arg of_bool(bool v) {
    Arg a;
    a.kind = Kind::Bool;
    a.b = v;
    return a;
  }
  static Arg of_string(std::string v) {
    Arg a;
    a.kind = Kind::String;
    a.s = std::move(v);
    return a;
  }
  static Arg of_list(std::vector<Arg> v) {
    Arg a;
    a.kind = Kind::List;
    a.items = std::move(v);
    return a;
  }

  bool is_none() const { return kind == Kind::None; }
  bool is_tensor() const { return kind == Kind::Tensor; }
  bool is_number() const { return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool; }
  bool is_list() const { return kind == Kind::List; }

  // Checked accessors; each throws Error naming what it got instead.
  const Val &t() const;
  int64_t to_int() const;   // Int or Bool
  double to_double() const; // Int, Float or Bool
  bool to_bool() const;     // Bool or Int
  const std::string &str() const;
  // A list of constant ints; a single Int is accepted as a one-element list.
  std::vector<int64_t> to_ints() const;
  std::vector<double> to_doubles() const;
  const std::vector<Arg> &list() const;
  std::string describe() const; // for error messages: "tensor 'x'", "int 3", ...
};

class Registry;

// One argument of ConvertCtx::call, by its schema name.
// Example: {"normalized_shape", Arg::of_list({Arg::of_int(512)})}, {"input", x}
struct NamedArg {
  NamedArg(std::string n, Arg a) : name(std::move(n)), value(std::move(a)) {}
  NamedArg(std::string n, Val v) : name(std::move(n)), value(Arg::of_tensor(std::move(v))) {}
  std::string name;
  Arg value;
};

// Everything a converter gets for one aten node: its arguments by the names of the node's schema
// (any graph front end supplies them, see aten_lib/dispatch.h), the shapes/dtypes recorded for
// its outputs, the builder, and a way to call other converters.
//
//   // aten::group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None,
//   //                  float eps=1e-05, bool cudnn_enabled=True)
//   void aten_group_norm(ConvertCtx &c) {
//     Val x = c.tensor("input");
//     int64_t groups = c.arg<int64_t>("num_groups");
//     double eps = c.arg<double>("eps", 1e-5);
//     Val weight = c.tensor_or_none("weight");   // invalid Val for None
//     ...
//
// A name the schema does not have is an Error (the converter tests run every converter, so a
// misspelt name fails there); an argument the schema has but the node left out reads as None, so
// the default given to arg<T>(name, dflt) applies.
class ConvertCtx {
public:
  // `arg_names`: the schema's argument names, one per input in order (empty when the front end
  // knows none: then only positional access, in(i), works).
  ConvertCtx(GraphBuilder &b, std::string op, std::vector<Arg> inputs,
             std::vector<TensorInfo> output_infos, std::vector<std::string> arg_names = {});

  GraphBuilder &b;

  const std::string &op() const { return op_; }
  // The schema overload TorchScript resolved, e.g. "Tensor", "Scalar", "dim_IntList", "correction"
  // ("" for the default overload or when unknown). Converters serving several overloads whose
  // schemas differ branch on it (or on takes()).
  const std::string &overload() const { return overload_; }
  void set_overload(std::string o) { overload_ = std::move(o); }

  // ---- arguments by schema name ----

  // Whether this node's schema has an argument `name`. Example: aten::max.dim takes "dim",
  // aten::max (the reduction over everything) does not: if (c.takes("dim")) ...
  bool takes(std::string_view name) const { return find(name) >= 0; }
  // The argument `name` (None when the node left it out). Throws when the schema has no `name`.
  const Arg &arg(std::string_view name) const;
  // The argument as a T: int64_t, double, bool, std::string, std::vector<int64_t>,
  // std::vector<double>. Throws, naming the argument, when it is None or of another kind.
  // Example: int64_t groups = c.arg<int64_t>("num_groups");
  template <typename T> T arg(std::string_view name) const;
  // The same with the schema's default for None. Example: c.arg<double>("eps", 1e-5)
  template <typename T> T arg(std::string_view name, const T &dflt) const;
  // Whether the argument is given and not None. Example: if (c.has("bias")) ...
  bool has(std::string_view name) const { return !arg(name).is_none(); }
  // The tensor argument `name` (throws for None or a constant).
  const Val &tensor(std::string_view name) const;
  // The tensor, or an invalid Val for None (an optional weight or bias).
  // Example: Val bias = c.tensor_or_none("bias"); if (bias.valid()) ...
  Val tensor_or_none(std::string_view name) const { return has(name) ? tensor(name) : Val{}; }
  // The recorded dtype and shape of tensor argument `name`.
  const TensorInfo &info(std::string_view name) const { return b.info(tensor(name)); }
  // A constant int list (a single int reads as a one-element list). Example: c.ints("dim")
  std::vector<int64_t> ints(std::string_view name) const;
  // The same with a default for None. Example: c.ints("dim", {-2, -1})
  std::vector<int64_t> ints(std::string_view name, std::vector<int64_t> dflt) const;
  // The items of list argument `name` (Tensor[], int[] with runtime items, ...).
  const std::vector<Arg> &list(std::string_view name) const;
  // Every argument with its schema name, in schema order (to pass a node on, adjusted, to
  // another converter: see forward_real).
  std::vector<NamedArg> named_args() const;
  const std::vector<std::string> &arg_names() const { return names_; }
  // All arguments in schema order, for converters that treat each alike (--fallback-domain).
  const std::vector<Arg> &args() const { return in_; }

  // ---- positional access ----
  // Arguments by their index in the schema, as converters read them before names (plugin
  // interface 1): kept so that a plugin written so builds unchanged, and for a front end that
  // supplies no names. torch2onnx's converters read by name (ctest check:arg_names fails on a
  // positional read in aten_lib/).
  // Example: Val x = c.tensor(0); int64_t dim = c.int_or(1, -1);
  size_t num_inputs() const { return in_.size(); }
  // Input i; a missing trailing argument reads as None.
  const Arg &in(size_t i) const;
  bool has(size_t i) const { return !in(i).is_none(); }
  const Val &tensor(size_t i) const { return in(i).t(); }
  Val tensor_or_none(size_t i) const { return has(i) ? tensor(i) : Val{}; }
  const TensorInfo &info(size_t i) const { return b.info(tensor(i)); }
  int64_t int_or(size_t i, int64_t dflt) const { return has(i) ? in(i).to_int() : dflt; }
  double double_or(size_t i, double dflt) const { return has(i) ? in(i).to_double() : dflt; }
  bool bool_or(size_t i, bool dflt) const { return has(i) ? in(i).to_bool() : dflt; }
  std::string str_or(size_t i, const std::string &dflt) const {
    return has(i) ? in(i).str() : dflt;
  }
  std::vector<int64_t> ints_or(size_t i, std::vector<int64_t> dflt) const {
    return has(i) ? in(i).to_ints() : dflt;
  }

  // ---- outputs ----
  size_t num_outputs() const { return out_.size(); }
  // Shape/dtype LibTorch produced for output i on the example inputs (dtype Undefined when the
  // output is not a tensor).
  const TensorInfo &out_info(size_t i) const;
  void set_out(size_t i, Val v) { set_out(i, Arg::of_tensor(std::move(v))); }
  void set_out(size_t i, Arg a);
  const std::vector<Arg> &outputs() const { return out_; }

  // ---- other converters (aten_lib/dispatch.cpp) ----
  // The one way a converter uses another op's converter: looked up in the registry this node was
  // dispatched from (plugins included) at the builder's opset, and picked as the dispatcher picks
  // (the complex lowering when a complex value goes in or comes out). Arguments not passed read as
  // None (their schema defaults; takes() is false for them); ctest check:arg_names checks that the
  // names passed are the callee's. Returns its outputs, one per entry of `out_infos`.
  // Example: Val y = c.call("aten::gelu", {{"self", h}}, {info})[0].t();
  std::vector<Arg> call(const std::string &op, std::vector<NamedArg> args,
                        std::vector<TensorInfo> out_infos, const std::string &overload = "") const;
  // The same with the real converter of `op` even when a complex value is involved: for complex
  // lowerings that run the real op on the carried [..., 2] form (aten_lib/complex.cpp).
  std::vector<Arg> call_real(const std::string &op, std::vector<NamedArg> args,
                             std::vector<TensorInfo> out_infos,
                             const std::string &overload = "") const;
  // This node, converted by `op`'s converter instead (an alias: aten::subtract is aten::sub):
  // the same arguments, names, overload and outputs. Example: c.forward_to("aten::sub");
  void forward_to(const std::string &op);
  // This node's arguments, some adjusted (`args`: every one of named_args()), converted by the
  // real converter of `op`; its outputs become this node's.
  void forward_real(const std::string &op, std::vector<NamedArg> args);

  // The registry call() looks converters up in (set by the dispatcher; null: calls fail).
  const Registry *registry() const { return registry_; }
  void set_registry(const Registry *r) { registry_ = r; }
  // In a context made by call(): names the caller did not pass read as None.
  void set_partial_names(bool partial) { partial_names_ = partial; }

private:
  int find(std::string_view name) const;
  // What arg<T> returns, by T.
  int64_t int_arg(std::string_view name) const;
  double double_arg(std::string_view name) const;
  bool bool_arg(std::string_view name) const;
  std::string string_arg(std::string_view name) const;
  std::vector<double> doubles_arg(std::string_view name) const;

  std::string op_;
  std::string overload_;
  std::vector<Arg> in_;
  std::vector<std::string> names_;
  std::vector<TensorInfo> out_info_;
  std::vector<Arg> out_;
  const Registry *registry_ = nullptr;
  bool partial_names_ = false;
};

// arg<T> is defined here, calling non-template members: a plugin instantiates it itself, and
// links only to names of namespace torch2onnx, which the program loading it exports
// (cmake/plugin_host.symbols; a template's symbol starts with its return type).
template <typename T> T ConvertCtx::arg(std::string_view name) const {
  if constexpr (std::is_same_v<T, int64_t>)
    return int_arg(name);
  else if constexpr (std::is_same_v<T, double>)
    return double_arg(name);
  else if constexpr (std::is_same_v<T, bool>)
    return bool_arg(name);
  else if constexpr (std::is_same_v<T, std::string>)
    return string_arg(name);
  else if constexpr (std::is_same_v<T, std::vector<int64_t>>)
    return ints(name);
  else if constexpr (std::is_same_v<T, std::vector<double>>)
    return doubles_arg(name);
  else
    static_assert(!sizeof(T), "arg<T>: T is one of int64_t, double, bool, std::string, "
                              "std::vector<int64_t>, std::vector<double>");
}
template <typename T> T ConvertCtx::arg(std::string_view name, const T &dflt) const {
  return has(name) ? arg<T>(name) : dflt;
}

using ConverterFn = std::function<void(ConvertCtx &)>;

// How the graph front end handles an op it takes itself rather than through a converter
// (RegistryEntry::frontend): one handler of the TorchScript walker each, which binds them in its
// handler table (exporter/frontend/torchscript/walker_prim.cpp). The registry's frontend entries
// (aten_lib/frontend_ops.cpp) are the one list of those ops: the walker dispatches by them.
enum class FrontendHandler {
  None,
  Constant,    // prim::Constant
  Construct,   // list and tuple literals
  Dict,        // dict literals
  Unpack,      // list and tuple unpacking
  GetItem,     // indexing a list or tuple
  NumToTensor, // a number as a 0-d tensor
  SameValue,   // casts of the TorchScript type only
  Uninitialized,
  Dropped, // checks: exceptions and warnings
  GetAttr, // refused with a hint (a module attribute left after freezing)
  Len,
  Append,
  ListCopy,
  IsNone,
  ToList,
  ListMutation, // insert, _set_item, pop, Delete, reverse, clear
  ListConcat,
  DictMethod, // keys, values, items, get, `in` on a dict of known keys
  IsInstance, // isinstance on the value the walk holds
  If,
  Loop,
};

struct RegistryEntry {
  std::string op; // "aten::conv2d"
  int since_opset = 1;
  ConverterFn fn;
  std::vector<std::string> onnx_ops; // what it emits, for docs/operators.md and `ops`
  std::string family;                // file it lives in, e.g. "conv"
  // Handled by the graph front end itself (prim::If, list ops, ...), not by a converter: `fn` is
  // empty. Registered so `torch2onnx ops` and docs/operators.md list every op torch2onnx takes.
  bool frontend = false;
  // Called instead of `fn` when an input or output is a complex tensor (TensorInfo::complex);
  // empty: the op refuses complex operands (docs/complex.md).
  ConverterFn complex_fn;
  // The converter plugin (--converters LIB.so) it came from; empty for torch2onnx's own.
  std::string plugin;
  // A frontend entry: what the front end does with the op.
  FrontendHandler handler = FrontendHandler::None;
};

// Converters by aten op and opset. Lookup returns the newest entry at or below the target opset.
class Registry {
public:
  // Example: r.add("aten::relu", 13, aten_relu, {"Relu"});
  void add(const std::string &op, int since_opset, ConverterFn fn,
           std::vector<std::string> onnx_ops);
  // An op the graph front end handles itself with `handler` (aten_lib/frontend_ops.cpp), at
  // every opset. find() returns it too: callers check `entry->frontend`. An op is either a
  // frontend op or has converters, never both.
  // Example: r.add_frontend("prim::If", FrontendHandler::If, {"If"});
  void add_frontend(const std::string &op, FrontendHandler handler,
                    std::vector<std::string> onnx_ops);
  const RegistryEntry *find(const std::string &op, int opset) const;
  bool knows(const std::string &op) const { return by_op_.count(op) != 0; }
  // All entries, sorted by op then opset.
  std::vector<const RegistryEntry *> entries() const;
  void set_family(std::string family) { family_ = std::move(family); }
  // Registers `op` and its in-place twin `op_` with the same converter: the walker rebinds the
  // in-place result to self, so the functional conversion serves both.
  // Example: r.add_with_inplace("aten::relu", 13, aten_relu, {"Relu"});  // relu and relu_
  void add_with_inplace(const std::string &op, int since_opset, const ConverterFn &fn,
                        const std::vector<std::string> &onnx_ops);
  // Makes `fn` the converter of `op` for complex operands: set on each of op's entries, or op is
  // added (with `fn` for every operand) when it has none yet.
  // Example: r.add_complex("aten::mul", 13, complex_mul, {"Mul", "Sub", "Add"});
  void add_complex(const std::string &op, int since_opset, const ConverterFn &fn,
                   const std::vector<std::string> &onnx_ops);

  // The registry with every converter torch2onnx ships (built once).
  static const Registry &global();

  // Adds every entry of `from` (a converter plugin's registrations) labelled with the plugin's
  // path; an (op, opset) this registry already has is an Error naming both sources.
  void add_plugin_entries(const Registry &from, const std::string &plugin);
  // --fallback-domain: ops without a converter are written as nodes of this custom domain
  // (docs/fallback.md) instead of failing the export. Empty (the default): they fail it.
  void set_fallback_domain(std::string domain) { fallback_domain_ = std::move(domain); }
  const std::string &fallback_domain() const { return fallback_domain_; }

private:
  std::map<std::string, std::map<int, RegistryEntry>> by_op_;
  std::string family_;
  std::string fallback_domain_;
};

// The converter --fallback-domain uses for an op without one: writes the op as one node of
// `domain` (op type: the op's name without its namespace). Arguments of a tensor type (`tensor`
// set: Tensor, Tensor?, Tensor[]) become inputs in schema order (None: an omitted input); the
// others become attributes named after the schema's arguments (None: no attribute), plus the
// attribute torch_op = "aten::op.overload". Outputs take the recorded dtypes and shapes.
// Example: fallback_converter("org.example", "aten::foo", "", {{"self", true}, {"k", false}})
struct FallbackArg {
  std::string name;
  bool tensor = false;
};
ConverterFn fallback_converter(const std::string &domain, const std::string &op,
                               const std::string &overload, std::vector<FallbackArg> args);

// kMinOpset, kMaxOpset and kDefaultOpset (the opsets torch2onnx targets) are in
// torch2onnx/settings.h, with the other settings' defaults.

// Each family file <family>.cpp defines register_<family>_ops; registry.cpp calls them in order
// and labels each entry with the family name.
void register_activation_ops(Registry &r);
void register_elementwise_ops(Registry &r);
void register_conv_ops(Registry &r);
void register_pooling_ops(Registry &r);
void register_norm_ops(Registry &r);
void register_linalg_ops(Registry &r);
void register_shape_ops(Registry &r);
void register_reduce_ops(Registry &r);
void register_scalar_ops(Registry &r);
void register_indexing_ops(Registry &r);
void register_creation_ops(Registry &r);
void register_image_ops(Registry &r);
void register_antialias_ops(Registry &r);           // _upsample_{bilinear,bicubic}2d_aa
void register_grid_sampler_decomposed(Registry &r); // image's, below opset 16
void register_math_ops(Registry &r);
void register_loss_ops(Registry &r);
void register_loss_more_ops(Registry &r); // margin, regression and multi-label losses
void register_products_ops(Registry &r);  // inner, kron, multi_dot, vander, ...
void register_solve_ops(Registry &r);     // inverse, solve, Cholesky on static n
void register_lu_ops(Registry &r);        // LU factorization, its solves, slogdet
void register_rnn_ops(Registry &r);
void register_signal_ops(Registry &r);
void register_math_linalg_ops(Registry &r);
void register_select_ops(Registry &r);
void register_attention_ops(Registry &r);
void register_transformer_ops(Registry &r); // transformer fast paths, nested tensors
void register_aliases_ops(Registry &r);
void register_numeric_ops(Registry &r);     // copysign, hypot, gcd, frexp, ...: <math.h> functions
void register_layout_ops(Registry &r);      // hsplit, dstack, rot90, diag_embed, ...: NumPy layouts
void register_ranges_ops(Registry &r);      // range, logspace, tril_indices, windows, fftfreq
void register_placement_ops(Registry &r);   // put, index_reduce, fill_diagonal_, *_scatter
void register_number_ops(Registry &r);      // aten::add.num, ...: arithmetic on runtime numbers
void register_torchvision_ops(Registry &r); // torchvision::nms, torchvision::roi_align
void register_quantized_ops(Registry &r);   // quantize/dequantize, quantized:: (docs/quantized.md)
void register_fake_quantize_ops(Registry &r);       // fake quantization as QDQ pairs
void register_quantized_rnn_ops(Registry &r);       // dynamically quantized LSTM / GRU
void register_quantized_embedding_ops(Registry &r); // 8-bit embedding tables
void register_complex_ops(Registry &r);             // complex lowerings of other families' ops too
void register_frontend_ops(Registry &r);            // what the graph front end handles itself

} // namespace torch2onnx
