#include "aten_lib/converter.h"

#include <algorithm>

namespace torch2onnx {

// ---- Arg ------------------------------------------------------------------------------------

std::string Arg::describe() const {
  switch (kind) {
  case Kind::None:
    return "None";
  case Kind::Tensor:
    return fmt::format("tensor '{}'", tensor.name);
  case Kind::Int:
    return fmt::format("int {}", i);
  case Kind::Float:
    return fmt::format("float {}", f);
  case Kind::Bool:
    return b ? "bool True" : "bool False";
  case Kind::String:
    return fmt::format("string '{}'", s);
  case Kind::List:
    return fmt::format("list of {} items", items.size());
  case Kind::Device:
    return fmt::format("device {}", s);
  case Kind::Other:
    return s;
  }
  return "?";
}

const Val &Arg::t() const {
  T2O_CHECK(kind == Kind::Tensor, "expected a tensor argument, got {}", describe());
  return tensor;
}

int64_t Arg::to_int() const {
  if (kind == Kind::Int)
    return i;
  if (kind == Kind::Bool)
    return b ? 1 : 0;
  throw Error(fmt::format("expected a constant int argument, got {}", describe()),
              "the value must be known at export time (a dynamic size is not supported here)");
}

double Arg::to_double() const {
  if (kind == Kind::Float)
    return f;
  if (kind == Kind::Int)
    return static_cast<double>(i);
  if (kind == Kind::Bool)
    return b ? 1.0 : 0.0;
  throw Error(fmt::format("expected a constant number argument, got {}", describe()));
}

bool Arg::to_bool() const {
  if (kind == Kind::Bool)
    return b;
  if (kind == Kind::Int)
    return i != 0;
  throw Error(fmt::format("expected a constant bool argument, got {}", describe()));
}

const std::string &Arg::str() const {
  T2O_CHECK(kind == Kind::String, "expected a constant string argument, got {}", describe());
  return s;
}

std::vector<int64_t> Arg::to_ints() const {
  if (kind == Kind::Int || kind == Kind::Bool)
    return {to_int()};
  T2O_CHECK(kind == Kind::List, "expected a list of ints, got {}", describe());
  std::vector<int64_t> out;
  out.reserve(items.size());
  for (const auto &it : items)
    out.push_back(it.to_int());
  return out;
}

std::vector<double> Arg::to_doubles() const {
  if (is_number())
    return {to_double()};
  T2O_CHECK(kind == Kind::List, "expected a list of numbers, got {}", describe());
  std::vector<double> out;
  for (const auto &it : items)
    out.push_back(it.to_double());
  return out;
}

const std::vector<Arg> &Arg::list() const {
  T2O_CHECK(kind == Kind::List, "expected a list argument, got {}", describe());
  return items;
}

// ---- ConvertCtx -----------------------------------------------------------------------------

ConvertCtx::ConvertCtx(GraphBuilder &b, std::string op, std::vector<Arg> inputs,
                       std::vector<TensorInfo> output_infos, std::vector<std::string> arg_names)
    : b(b), op_(std::move(op)), in_(std::move(inputs)), names_(std::move(arg_names)),
      out_info_(std::move(output_infos)), out_(out_info_.size()) {}

int ConvertCtx::find(std::string_view name) const {
  for (size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name)
      return static_cast<int>(i);
  return -1;
}

const Arg &ConvertCtx::arg(std::string_view name) const {
  static const Arg kNone;
  int i = find(name);
  if (i >= 0)
    return in(static_cast<size_t>(i));
  if (partial_names_)
    return kNone;
  std::string which = overload_.empty() ? op_ : op_ + "." + overload_;
  if (names_.empty())
    throw Error(fmt::format("internal error: the converter of {} reads the argument '{}', but "
                            "the graph front end gave no argument names for the node",
                            which, name));
  throw Error(fmt::format("internal error: the converter of {} reads the argument '{}', which "
                          "its schema does not have (arguments: {})",
                          which, name, fmt::join(names_, ", ")));
}

namespace {

// Runs `get` on argument `name`, naming the argument in the Error it may throw.
template <typename F> decltype(auto) named(const ConvertCtx &c, std::string_view name, F get) {
  const Arg &a = c.arg(name);
  try {
    return get(a);
  } catch (const Error &e) {
    throw Error(fmt::format("argument '{}': {}", name, e.what()), e.hint());
  }
}

} // namespace

int64_t ConvertCtx::int_arg(std::string_view name) const {
  return named(*this, name, [](const Arg &a) { return a.to_int(); });
}
double ConvertCtx::double_arg(std::string_view name) const {
  return named(*this, name, [](const Arg &a) { return a.to_double(); });
}
bool ConvertCtx::bool_arg(std::string_view name) const {
  return named(*this, name, [](const Arg &a) { return a.to_bool(); });
}
std::string ConvertCtx::string_arg(std::string_view name) const {
  return named(*this, name, [](const Arg &a) { return a.str(); });
}
std::vector<double> ConvertCtx::doubles_arg(std::string_view name) const {
  return named(*this, name, [](const Arg &a) { return a.to_doubles(); });
}

std::vector<int64_t> ConvertCtx::ints(std::string_view name) const {
  return named(*this, name, [](const Arg &a) { return a.to_ints(); });
}

std::vector<int64_t> ConvertCtx::ints(std::string_view name, std::vector<int64_t> dflt) const {
  return has(name) ? ints(name) : dflt;
}

const Val &ConvertCtx::tensor(std::string_view name) const {
  return named(*this, name, [](const Arg &a) -> const Val & { return a.t(); });
}

const std::vector<Arg> &ConvertCtx::list(std::string_view name) const {
  return named(*this, name, [](const Arg &a) -> const std::vector<Arg> & { return a.list(); });
}

std::vector<NamedArg> ConvertCtx::named_args() const {
  std::vector<NamedArg> out;
  for (size_t i = 0; i < names_.size(); ++i)
    out.emplace_back(names_[i], in(i));
  return out;
}

const Arg &ConvertCtx::in(size_t i) const {
  static const Arg kNone;
  return i < in_.size() ? in_[i] : kNone;
}

const TensorInfo &ConvertCtx::out_info(size_t i) const {
  T2O_CHECK(i < out_info_.size(), "{} has no output {}", op_, i);
  return out_info_[i];
}

void ConvertCtx::set_out(size_t i, Arg a) {
  T2O_CHECK(i < out_.size(), "{} has {} outputs; the converter set output {}", op_, out_.size(), i);
  out_[i] = std::move(a);
}

// ---- Registry -------------------------------------------------------------------------------

void Registry::add(const std::string &op, int since_opset, ConverterFn fn,
                   std::vector<std::string> onnx_ops) {
  auto &versions = by_op_[op];
  T2O_CHECK(versions.count(since_opset) == 0, "converter for {} at opset {} is registered twice",
            op, since_opset);
  T2O_CHECK(versions.empty() || !versions.begin()->second.frontend,
            "{} is handled by the graph front end; it cannot also have a converter", op);
  versions.emplace(since_opset,
                   RegistryEntry{op, since_opset, std::move(fn), std::move(onnx_ops), family_});
}

void Registry::add_with_inplace(const std::string &op, int since_opset, const ConverterFn &fn,
                                const std::vector<std::string> &onnx_ops) {
  add(op, since_opset, fn, onnx_ops);
  add(op + "_", since_opset, fn, onnx_ops);
}

void Registry::add_complex(const std::string &op, int since_opset, const ConverterFn &fn,
                           const std::vector<std::string> &onnx_ops) {
  auto it = by_op_.find(op);
  if (it == by_op_.end()) {
    add(op, since_opset, fn, onnx_ops);
    by_op_[op].at(since_opset).complex_fn = fn;
    return;
  }
  for (auto &[opset, entry] : it->second) {
    T2O_CHECK(!entry.frontend, "{} is handled by the graph front end, not a converter", op);
    entry.complex_fn = fn;
    for (const auto &o : onnx_ops)
      if (std::find(entry.onnx_ops.begin(), entry.onnx_ops.end(), o) == entry.onnx_ops.end())
        entry.onnx_ops.push_back(o);
  }
}

void Registry::add_frontend(const std::string &op, FrontendHandler handler,
                            std::vector<std::string> onnx_ops) {
  T2O_CHECK(handler != FrontendHandler::None && by_op_.count(op) == 0,
            "{} is registered twice (or also as a converter)", op);
  add(op, kMinOpset, ConverterFn(), std::move(onnx_ops));
  RegistryEntry &e = by_op_[op].at(kMinOpset);
  e.frontend = true;
  e.handler = handler;
}

const RegistryEntry *Registry::find(const std::string &op, int opset) const {
  auto it = by_op_.find(op);
  if (it == by_op_.end())
    return nullptr;
  auto v = it->second.upper_bound(opset);
  if (v == it->second.begin())
    return nullptr;
  return &std::prev(v)->second;
}

void Registry::add_plugin_entries(const Registry &from, const std::string &plugin) {
  for (const auto &[op, versions] : from.by_op_)
    for (const auto &[since, e] : versions) {
      auto &mine = by_op_[op];
      if (!mine.empty() && mine.begin()->second.frontend)
        throw Error(fmt::format("the converter plugin {} registers {}, which the graph front end "
                                "handles itself",
                                plugin, op),
                    "register converters for ops torch2onnx lacks");
      auto it = mine.find(since);
      if (it != mine.end())
        throw Error(fmt::format("the converter plugin {} registers {} at opset {}, which {} "
                                "already has",
                                plugin, op, since,
                                it->second.plugin.empty()
                                    ? fmt::format("torch2onnx (family {})", it->second.family)
                                    : "the plugin " + it->second.plugin),
                    "register each op once; a plugin adds converters for ops torch2onnx lacks "
                    "(or a newer since_opset of one it has)");
      RegistryEntry copy = e;
      copy.plugin = plugin;
      mine.emplace(since, std::move(copy));
    }
}

std::vector<const RegistryEntry *> Registry::entries() const {
  std::vector<const RegistryEntry *> out;
  for (const auto &[op, versions] : by_op_)
    for (const auto &[since, e] : versions)
      out.push_back(&e);
  return out;
}

// Issue 28's families. (Declared here, not beside the others in converter.h, only to spare the
// shared build machine a rebuild of everything that includes converter.h; move them there freely.)
void register_statistics_ops(Registry &r); // cumprod, cummax, diff, nansum, cov, trapezoid, ...
void register_order_ops(Registry &r);      // median, kthvalue, mode, quantile, searchsorted, ...
void register_special_ops(Registry &r);    // lgamma, digamma, zeta, erfinv, ndtr, igamma, ...
void register_bessel_ops(Registry &r);     // Bessel and Airy functions, orthogonal polynomials

const Registry &Registry::global() {
  static const Registry registry = [] {
    Registry r;
    // Explicit, ordered list: no static initializers that a static link could drop.
    const std::pair<const char *, void (*)(Registry &)> families[] = {
        {"activation", register_activation_ops},
        {"elementwise", register_elementwise_ops},
        {"conv", register_conv_ops},
        {"pooling", register_pooling_ops},
        {"norm", register_norm_ops},
        {"linalg", register_linalg_ops},
        {"shape", register_shape_ops},
        {"reduce", register_reduce_ops},
        {"scalar", register_scalar_ops},
        {"indexing", register_indexing_ops},
        {"creation", register_creation_ops},
        {"image", register_image_ops},
        {"antialias", register_antialias_ops},
        {"math", register_math_ops},
        {"loss", register_loss_ops},
        {"loss_more", register_loss_more_ops},
        {"products", register_products_ops},
        {"solve", register_solve_ops},
        {"lu", register_lu_ops},
        {"rnn", register_rnn_ops},
        {"signal", register_signal_ops},
        {"math_linalg", register_math_linalg_ops},
        {"select", register_select_ops},
        {"attention", register_attention_ops},
        {"transformer", register_transformer_ops},
        {"aliases", register_aliases_ops},
        {"numeric", register_numeric_ops},
        {"layout", register_layout_ops},
        {"ranges", register_ranges_ops},
        {"placement", register_placement_ops},
        {"number", register_number_ops},
        {"torchvision", register_torchvision_ops},
        {"quantized", register_quantized_ops},
        {"fake_quantize", register_fake_quantize_ops},
        {"quantized_rnn", register_quantized_rnn_ops},
        {"quantized_embedding", register_quantized_embedding_ops},
        {"statistics", register_statistics_ops},
        {"order", register_order_ops},
        {"special", register_special_ops},
        {"bessel", register_bessel_ops},
        {"complex", register_complex_ops}, // after the families whose ops it extends
        {"frontend", register_frontend_ops},
    };
    for (const auto &[name, fn] : families) {
      r.set_family(name);
      fn(r);
    }
    return r;
  }();
  return registry;
}

} // namespace torch2onnx
