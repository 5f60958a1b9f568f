// What an aten-op converter sees: typed arguments (tensor values or compile-time constants), the
// shapes/dtypes recorded for its outputs, and the builder. No LibTorch or torch::jit::Node here.
#pragma once

#include "builder/error.h"
#include "builder/graph_builder.h"
#include "builder/types.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
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

// Everything a converter gets for one aten node.
class ConvertCtx {
public:
  ConvertCtx(GraphBuilder &b, std::string op, std::vector<Arg> inputs,
             std::vector<TensorInfo> output_infos)
      : b(b), op_(std::move(op)), in_(std::move(inputs)), out_info_(std::move(output_infos)),
        out_(out_info_.size()) {}

  GraphBuilder &b;

  const std::string &op() const { return op_; }
  // The schema overload TorchScript resolved, e.g. "Tensor", "Scalar", "dim_IntList", "correction"
  // ("" for the default overload or when unknown). Prefer it to guessing from argument kinds.
  const std::string &overload() const { return overload_; }
  void set_overload(std::string o) { overload_ = std::move(o); }
  size_t num_inputs() const { return in_.size(); }
  size_t num_outputs() const { return out_.size(); }
  // Input i; a missing trailing argument reads as None.
  const Arg &in(size_t i) const;
  bool has(size_t i) const { return i < in_.size() && !in_[i].is_none(); }
  // Shorthands: the tensor at input i, its recorded info.
  const Val &tensor(size_t i) const { return in(i).t(); }

  // Optional arguments by name, with the schema's default when the argument is None or missing,
  // so a converter reads like the aten schema. Example: int64_t dim = c.int_or(kDim, -1);
  int64_t int_or(size_t i, int64_t dflt) const { return has(i) ? in(i).to_int() : dflt; }
  double double_or(size_t i, double dflt) const { return has(i) ? in(i).to_double() : dflt; }
  bool bool_or(size_t i, bool dflt) const { return has(i) ? in(i).to_bool() : dflt; }
  // Example: std::string mode = c.str_or(kMode, "nearest");
  std::string str_or(size_t i, const std::string &dflt) const {
    return has(i) ? in(i).str() : dflt;
  }
  // Example: auto dims = c.ints_or(kDim, {-2, -1});
  std::vector<int64_t> ints_or(size_t i, std::vector<int64_t> dflt) const {
    return has(i) ? in(i).to_ints() : dflt;
  }
  // The tensor at input i, or an empty Val for None (an optional weight or bias).
  // Example: Val bias = c.tensor_or_none(kBias); if (bias.valid()) ...
  Val tensor_or_none(size_t i) const { return has(i) ? tensor(i) : Val{}; }
  const TensorInfo &info(size_t i) const { return b.info(tensor(i)); }
  // Shape/dtype LibTorch produced for output i on the example inputs (dtype Undefined when the
  // output is not a tensor).
  const TensorInfo &out_info(size_t i) const;

  void set_out(size_t i, Val v) { set_out(i, Arg::of_tensor(std::move(v))); }
  void set_out(size_t i, Arg a);
  const std::vector<Arg> &outputs() const { return out_; }

private:
  std::string op_;
  std::string overload_;
  std::vector<Arg> in_;
  std::vector<TensorInfo> out_info_;
  std::vector<Arg> out_;
};

using ConverterFn = std::function<void(ConvertCtx &)>;

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
};

// Converters by aten op and opset. Lookup returns the newest entry at or below the target opset.
class Registry {
public:
  // Example: r.add("aten::relu", 13, aten_relu, {"Relu"});
  void add(const std::string &op, int since_opset, ConverterFn fn,
           std::vector<std::string> onnx_ops);
  // An op the graph front end handles itself (aten_lib/frontend_ops.cpp). find() returns it too:
  // callers check `entry->frontend`. Example: r.add_frontend("prim::If", {"If"});
  void add_frontend(const std::string &op, std::vector<std::string> onnx_ops);
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

// Lowest and highest opset torch2onnx targets.
constexpr int kMinOpset = 11;
constexpr int kMaxOpset = 21;
constexpr int kDefaultOpset = 17;

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
void register_math_ops(Registry &r);
void register_loss_ops(Registry &r);
void register_rnn_ops(Registry &r);
void register_signal_ops(Registry &r);
void register_math_linalg_ops(Registry &r);
void register_select_ops(Registry &r);
void register_attention_ops(Registry &r);
void register_transformer_ops(Registry &r); // transformer fast paths, nested tensors
void register_aliases_ops(Registry &r);
void register_number_ops(Registry &r);      // aten::add.num, ...: arithmetic on runtime numbers
void register_torchvision_ops(Registry &r); // torchvision::nms, torchvision::roi_align
void register_complex_ops(Registry &r);     // complex lowerings of other families' ops too
void register_frontend_ops(Registry &r);    // what the graph front end handles itself

} // namespace torch2onnx
