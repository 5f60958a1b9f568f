#include "exporter/frontend/torchscript/loader.h"

#include "builder/error.h"
#include "builder/process.h"
#include "exporter/core/tensor_util.h"
#include "exporter/frontend/torchscript/archive_check.h"
#include "exporter/frontend/torchscript/attribute_values.h"
#include "exporter/frontend/torchscript/mapped_load.h"

#include <ATen/Functions.h>
#include <algorithm>
#include <array>
#include <caffe2/serialize/inline_container.h>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <system_error>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/passes/constant_pooling.h>
#include <torch/csrc/jit/passes/constant_propagation.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/freeze_module.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/passes/lower_tuples.h>
#include <torch/csrc/jit/passes/peephole.h>
#include <torch/csrc/jit/passes/remove_mutation.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/version.h>

namespace torch2onnx {

namespace {
// std::async on a thread of its own, or deferred to get() when no thread can be made (under
// `ulimit -v` a thread's stack may not fit: pthread_create says EAGAIN).
template <typename F, typename... Args> auto async_or_deferred(F &&f, Args &&...args) {
  try {
    return std::async(std::launch::async, f, args...);
  } catch (const std::system_error &) {
    return std::async(std::launch::deferred, f, args...);
  }
}
} // namespace

void load_op_library(const std::string &path) {
  if (!std::filesystem::exists(path))
    throw Error(fmt::format("--load-library: '{}' does not exist", path),
                "pass the path of a shared library that registers custom ops");
  if (!dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL))
    throw Error(fmt::format("--load-library: cannot load '{}': {}", path, dlerror()));
}

namespace {

std::string libtorch_version() {
  return fmt::format("{}.{}.{}", TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR, TORCH_VERSION_PATCH);
}

// The number after `key` in `msg`, or -1.
long number_after(const std::string &msg, const std::string &key) {
  auto p = msg.find(key);
  if (p == std::string::npos)
    return -1;
  p += key.size();
  long v = 0;
  bool any = false;
  while (p < msg.size() && std::isdigit(static_cast<unsigned char>(msg[p]))) {
    v = v * 10 + (msg[p++] - '0');
    any = true;
    if (v > 1000000)
      break;
  }
  return any ? v : -1;
}

// The op named after "Unknown builtin op: " ("demo::relu"), or "".
std::string unknown_op_name(const std::string &msg) {
  const std::string key = "Unknown builtin op: ";
  auto p = msg.find(key);
  if (p == std::string::npos)
    return {};
  p += key.size();
  size_t e = p;
  while (e < msg.size() && (std::isalnum(static_cast<unsigned char>(msg[e])) || msg[e] == '_' ||
                            msg[e] == ':' || msg[e] == '.'))
    ++e;
  std::string op = msg.substr(p, e - p);
  while (!op.empty() && op.back() == '.')
    op.pop_back();
  return op;
}

// Turns torch::jit::load's failure into what happened and what to do about it.
// The text between `prefix` and the next quote, e.g. the type in "Unknown type name 'a.b':".
std::string quoted_after(const std::string &msg, const std::string &prefix) {
  auto at = msg.find(prefix);
  if (at == std::string::npos)
    return "";
  at += prefix.size();
  auto end = msg.find('\'', at);
  return end == std::string::npos ? "" : msg.substr(at, end - at);
}

// The protocol of the first pickle record that is not protocol 2 (-1 when none is found):
// LibTorch's own message leaves the number out.
int pickle_protocol(const std::string &path) {
  try {
    caffe2::serialize::PyTorchStreamReader reader(path);
    for (const auto &name : reader.getAllRecords()) {
      if (name.size() < 4 || name.compare(name.size() - 4, 4, ".pkl") != 0)
        continue;
      auto [data, size] = reader.getRecord(name);
      const auto *bytes = static_cast<const unsigned char *>(data.get());
      if (size >= 2 && bytes[0] == 0x80 && bytes[1] != 2)
        return bytes[1];
    }
  } catch (const std::exception &) {
  }
  return -1;
}

[[noreturn]] void throw_load_error(const std::string &path, const std::string &msg) {
  const std::string torch = libtorch_version();
  if (is_out_of_memory(msg))
    throw out_of_memory(fmt::format("loading '{}'", path));
  if (msg.find("failed finding central directory") != std::string::npos ||
      msg.find("failed reading zip archive") != std::string::npos)
    throw Error(fmt::format("'{}' is cut short or corrupt: its zip archive is incomplete", path),
                "the file was probably truncated (an interrupted download, copy or save); save or "
                "copy it again and compare its size with the original");
  long version = number_after(msg, "PyTorch file with version ");
  if (version >= 0) {
    long max = number_after(msg, "maximum supported version for reading is ");
    throw Error(
        fmt::format("'{}' was saved by a newer PyTorch than the LibTorch {} torch2onnx uses: file "
                    "format version {}, LibTorch {} reads versions up to {}",
                    path, torch, version, torch, max),
        fmt::format(
            "load the model in PyTorch {}.{} and save it again with torch.jit.save, or "
            "build torch2onnx against a LibTorch newer than {} that reads format version {}",
            TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR, torch, version));
  }
  std::string op = unknown_op_name(msg);
  if (!op.empty()) {
    std::string ns = op.substr(0, op.find("::"));
    if (ns == "aten" || ns == "prim" || ns == "quantized" || ns == "_caffe2")
      throw Error(
          fmt::format("'{}' uses the op {}, which LibTorch {} does not have", path, op, torch),
          fmt::format("the model was probably saved by a newer PyTorch: save it again with "
                      "PyTorch {}.{}, or avoid {} in the model",
                      TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR, op));
    throw Error(fmt::format("'{}' uses the custom op {}, whose library is not loaded", path, op),
                fmt::format("load the shared library that registers {} first with --load-library "
                            "LIB.so (for torchvision ops: --load-library .../torchvision/_C.so)",
                            op));
  }
  std::string type = quoted_after(msg, "Unknown type name '");
  if (!type.empty() && type.rfind("__torch__.", 0) != 0 && type.rfind("torch.", 0) != 0)
    throw Error(fmt::format("'{}' calls a function that is not allowed: {} (a pickle GLOBAL); a "
                            "TorchScript file refers only to its own classes and torch types",
                            path, type),
                "nothing was run; the file was made or changed to run code when loaded. Do not "
                "load it with torch.load or pickle either; ask for a file saved by torch.jit.save");
  if (msg.find("Only Pickle protocol 2 is supported") != std::string::npos) {
    int protocol = pickle_protocol(path);
    throw Error(fmt::format("'{}' holds a pickle record of protocol {}, but TorchScript files use "
                            "protocol 2",
                            path,
                            protocol < 0 ? std::string("other than 2") : std::to_string(protocol)),
                "the file was not written by torch.jit.save, or was changed after; save the model "
                "again with torch.jit.save");
  }
  if (msg.find("Unknown type name") != std::string::npos ||
      msg.find("torch.classes") != std::string::npos)
    throw Error(fmt::format("'{}' uses a custom class whose library is not loaded: {}", path,
                            first_error_line(msg)),
                "load the shared library that registers it first with --load-library LIB.so");
  if (msg.find("constants.pkl") != std::string::npos)
    throw Error(
        fmt::format("'{}' was saved with torch.save, not as TorchScript", path),
        "torch.save stores a Python pickle (a module or a state_dict); make TorchScript "
        "with torch.jit.trace(model, example).save(path) or torch.jit.script(model).save(path)");
  if (msg.find("hasRecord(\"version\")") != std::string::npos ||
      msg.find("not in a subdirectory") != std::string::npos)
    throw Error(
        fmt::format("'{}' is a zip archive but not a TorchScript file", path),
        "save the model with torch.jit.trace(...).save(path) or torch.jit.script(...).save(path)");
  throw Error(
      fmt::format("cannot load TorchScript model '{}': {}", path, first_error_line(msg)),
      fmt::format("the file may be corrupt, or saved by a PyTorch other than {}.{}; save it "
                  "again with torch.jit.save",
                  TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR));
}

// "" when values of type `t` can be ONNX outputs (tensors, numbers, tuples/lists of them),
// otherwise the offending type.
std::string non_tensor_part(const c10::TypePtr &t) {
  switch (t->kind()) {
  case c10::TypeKind::TensorType:
  case c10::TypeKind::IntType:
  case c10::TypeKind::FloatType:
  case c10::TypeKind::BoolType:
  case c10::TypeKind::NumberType:
  case c10::TypeKind::NoneType: // an Optional output that is None: left out of the ONNX outputs
    return {};
  case c10::TypeKind::DictType:
    // One ONNX output per value, named after its key: the keys must be strings.
    if (t->containedTypes()[0]->kind() != c10::TypeKind::StringType)
      return t->annotation_str();
    return non_tensor_part(t->containedTypes()[1]);
  case c10::TypeKind::OptionalType:
    // Optional[Tensor] (a scripted wav2vec2's output lengths, given when its lengths argument
    // is): the walk knows whether it is None for these inputs; a None output is left out.
  case c10::TypeKind::TupleType:
  case c10::TypeKind::ListType:
    for (const auto &e : t->containedTypes()) {
      std::string bad = non_tensor_part(e);
      if (!bad.empty())
        return bad;
    }
    return {};
  default:
    return t->annotation_str();
  }
}

void check_outputs(const torch::jit::Graph &graph, const std::string &path) {
  for (size_t i = 0; i < graph.outputs().size(); ++i) {
    const auto *v = graph.outputs()[i];
    // None inside a tuple is left out (Walker::outputs); forward returning None is a mistake.
    std::string bad =
        v->type()->kind() == c10::TypeKind::NoneType ? "NoneType" : non_tensor_part(v->type());
    if (bad.empty())
      continue;
    std::string what = v->type()->annotation_str();
    throw Error(fmt::format("'{}': forward returns {}{}, which cannot be an ONNX output{}", path,
                            what, graph.outputs().size() > 1 ? fmt::format(" (output {})", i) : "",
                            bad == what ? "" : fmt::format(" (it holds a {})", bad)),
                "return tensors, or tuples, lists or string-keyed dicts of tensors, from forward");
  }
}

} // namespace

namespace {

// NaN values among n elements. A NaN has every exponent bit set and a non-zero mantissa: without
// its sign bit, its bits are greater than infinity's (`inf`). Counted in blocks with a counter as
// wide as the element and no branch, so the compiler vectorizes the loop. The scan is bound by
// reading the weights' memory all the same (on a 355M model, 91% of its samples sit on the load
// instruction).
template <typename U> int64_t count_nan_bits(const U *p, int64_t n, U inf) {
  const U magnitude = static_cast<U>(~(U{1} << (sizeof(U) * 8 - 1)));
  constexpr int64_t kBlock = 4096; // fits a uint16_t counter
  int64_t nan = 0;
  for (int64_t begin = 0; begin < n; begin += kBlock) {
    const int64_t end = std::min(n, begin + kBlock);
    U count = 0;
    for (int64_t i = begin; i < end; ++i)
      count = static_cast<U>(count + static_cast<U>((p[i] & magnitude) > inf));
    nan += static_cast<int64_t>(count);
  }
  return nan;
}

// The NaN count of a floating tensor, read straight from its memory: one pass, no temporary
// (at::isnan(t).sum() allocated a bool tensor of the weight's size and took ~20 s on a 355M
// model on a busy 2-core machine).
int64_t count_nan(const at::Tensor &tensor) {
  at::Tensor t = tensor.is_complex() ? at::view_as_real(tensor.resolve_conj()) : tensor;
  if (!t.is_cpu())
    return at::isnan(t).sum().item<int64_t>();
  t = t.contiguous();
  const int64_t n = t.numel();
  switch (t.scalar_type()) {
  case at::kFloat:
    return count_nan_bits(static_cast<const uint32_t *>(t.data_ptr()), n, uint32_t{0x7f800000u});
  case at::kDouble:
    return count_nan_bits(static_cast<const uint64_t *>(t.data_ptr()), n,
                          uint64_t{0x7ff0000000000000u});
  case at::kHalf:
    return count_nan_bits(static_cast<const uint16_t *>(t.data_ptr()), n, uint16_t{0x7c00u});
  case at::kBFloat16:
    return count_nan_bits(static_cast<const uint16_t *>(t.data_ptr()), n, uint16_t{0x7f80u});
  default:
    return at::isnan(t).sum().item<int64_t>();
  }
}

} // namespace

namespace {
// The floating-point tensor constants of the graph, by debug name.
std::vector<std::pair<std::string, at::Tensor>> float_constants(const torch::jit::Graph &graph) {
  std::vector<std::pair<std::string, at::Tensor>> out;
  for (const auto *node : graph.nodes()) {
    if (node->kind() != c10::prim::Constant || node->outputs().size() != 1)
      continue;
    const auto *v = node->output();
    if (v->type()->kind() != c10::TypeKind::TensorType)
      continue;
    auto iv = torch::jit::toIValue(v);
    if (!iv || !iv->isTensor())
      continue;
    const at::Tensor &t = iv->toTensor();
    if (!t.defined() || !(t.is_floating_point() || t.is_complex()) || t.numel() == 0)
      continue;
    std::string name = v->debugName();
    if (name.rfind("self.", 0) == 0)
      name = name.substr(5);
    out.emplace_back(std::move(name), t);
  }
  return out;
}

std::vector<std::string>
nan_warnings(const std::vector<std::pair<std::string, at::Tensor>> &weights) {
  std::vector<std::string> out;
  for (const auto &[name, t] : weights) {
    // Only NaN: -inf is normal in a buffer (a causal mask filled with -inf), NaN never is.
    int64_t nan = count_nan(t);
    if (nan == 0)
      continue;
    out.push_back(fmt::format("weight '{}' ({} values) has {} NaN value{}; the ONNX model keeps "
                              "them and will likely output NaN too",
                              name, t.numel(), nan, nan == 1 ? "" : "s"));
  }
  return out;
}
} // namespace

std::vector<std::string> nonfinite_weight_warnings(const torch::jit::Graph &graph) {
  return nan_warnings(float_constants(graph));
}

std::future<std::vector<std::string>> start_nonfinite_weight_check(const torch::jit::Graph &graph) {
  return async_or_deferred(nan_warnings, float_constants(graph));
}

namespace {

// The module attributes forward still reads after freezing (freezing keeps an attribute that
// forward writes into, like a KV-cache buffer, or that it cannot prove read-only): each read
// becomes a constant of its current value, so the weights become initializers. Buffers written in
// place start from their saved value at every call of the ONNX model (`written`). Assigning an
// attribute (prim::SetAttr) changes the module between calls, which an ONNX graph cannot do: it
// is refused, naming the attribute.
void resolve_attribute_reads(torch::jit::Graph &graph, const torch::jit::Module &module,
                             const std::string &path, LoadedModel &m) {
  struct Item {
    torch::jit::Value *value;
    c10::IValue object;
    std::string prefix;
  };
  std::vector<Item> work = {{graph.inputs()[0], module._ivalue(), ""}};
  std::vector<std::string> assigned, other;
  std::map<std::string, torch::jit::Value *> constants;
  while (!work.empty()) {
    Item it = work.back();
    work.pop_back();
    std::vector<torch::jit::Node *> users;
    for (const auto &u : it.value->uses())
      users.push_back(u.user);
    for (torch::jit::Node *n : users) {
      if (n->kind() == c10::prim::SetAttr) {
        assigned.push_back(it.prefix + n->s(c10::attr::name));
        continue;
      }
      if (n->kind() != c10::prim::GetAttr) {
        other.push_back(fmt::format("{} ({})", it.prefix.empty() ? "self" : it.prefix,
                                    n->kind().toQualString()));
        continue;
      }
      std::string name = it.prefix + n->s(c10::attr::name);
      c10::IValue attr = it.object.toObject()->getAttr(n->s(c10::attr::name));
      if (attr.isObject()) {
        work.push_back({n->output(), attr, name + "."});
        continue;
      }
      // One value per attribute: a write through one read must be seen by the others. It goes
      // first in the graph, where it dominates every read.
      auto known = constants.find(name);
      if (known == constants.end()) {
        if (attr.isTensor()) {
          attr = attr.toTensor().detach();
          m.resolved_attributes.push_back(name);
        }
        torch::jit::WithInsertPoint guard(graph.block()->param_node()->next());
        auto c = graph.insertConstant(attr);
        c->setDebugName(name);
        known = constants.emplace(name, c).first;
      }
      n->output()->replaceAllUsesWith(known->second);
    }
  }
  if (!assigned.empty())
    throw Error(fmt::format("model '{}' assigns module attribute{} in forward: {}; an ONNX model "
                            "has no state that changes between calls",
                            path, assigned.size() == 1 ? "" : "s", fmt::join(assigned, ", ")),
                "make them local variables, or return the new value from forward");
  if (!other.empty())
    throw Error(fmt::format("model '{}' still uses the module itself after freezing: {}", path,
                            fmt::join(other, ", ")),
                "check that torch.jit.freeze(torch.jit.load(path).eval()) inlines forward; "
                "calls through module interfaces are not supported");
  torch::jit::EliminateDeadCode(graph.block());
}

} // namespace

// The weights are mapped from the file (load_mapped) unless TORCH2ONNX_LOAD=copy asks for
// LibTorch's own load, which copies them (or the file cannot be mapped).
std::shared_ptr<FileMapping> map_model_file(const std::string &path) {
  const char *how = std::getenv("TORCH2ONNX_LOAD");
  if (how && std::string(how) == "copy")
    return nullptr;
  return FileMapping::open(path);
}

namespace {

// Which tensor of the module each record became (its parameter, buffer or attribute name), so a
// weight that fails the integrity check is named as the user knows it.
std::map<std::string, std::string> tensor_names(const torch::jit::Module &module,
                                                const WeightBindings &bindings) {
  std::map<std::string, std::string> names;
  auto note = [&](const std::string &name, const at::Tensor &t) {
    if (!t.defined() || !t.has_storage())
      return;
    std::string record = bindings.record_of(t.storage().data());
    if (!record.empty())
      names.emplace(record, name);
  };
  for (const auto &p : module.named_parameters(true))
    note(p.name, p.value);
  for (const auto &b : module.named_buffers(true))
    note(b.name, b.value);
  for (const auto &a : module.named_attributes(true))
    if (a.value.isTensor())
      note(a.name, a.value.toTensor());
  return names;
}

// Test hook (tests/test_weights.cpp): TORCH2ONNX_TEST_DAMAGE_WEIGHTS=1 replaces every floating
// parameter by itself + 1 after the load, in new memory the integrity check does not watch, as a
// bug in the fast path would: only a reference that loads the file itself can notice.
void damage_weights_for_test(torch::jit::Module &module) {
  const char *hook = std::getenv("TORCH2ONNX_TEST_DAMAGE_WEIGHTS");
  if (!hook || std::string(hook) != "1")
    return;
  at::NoGradGuard no_grad;
  for (auto sub : module.modules())
    for (const auto &p : sub.named_parameters(false))
      if (p.value.is_floating_point())
        sub._ivalue()->setAttr(p.name, at::add(p.value, 1));
}

Error weight_changed(const std::string &path, const std::vector<std::string> &records,
                     const std::map<std::string, std::string> &names) {
  std::vector<std::string> what;
  for (const auto &r : records) {
    auto it = names.find(r);
    what.push_back(it == names.end() ? fmt::format("record '{}'", r)
                                     : fmt::format("'{}' (record '{}')", it->second, r));
    if (what.size() == 5) {
      if (records.size() > 5)
        what.push_back(fmt::format("and {} more", records.size() - 5));
      break;
    }
  }
  return Error(fmt::format("the weight{} {} of '{}' no longer equal{} the model file's bytes; "
                           "nothing was written",
                           records.size() == 1 ? "" : "s", fmt::join(what, ", "), path,
                           records.size() == 1 ? "s" : ""),
               "the file was changed on disk during the export (do not rewrite a model while it "
               "is exported), or the weights were damaged in memory; export again, and report it "
               "if it happens with an unchanged file");
}

} // namespace

LoadedModel load_model(const std::string &path, bool defer_weight_check) {
  prepare_for_memory_limit();
  std::vector<PendingCrc> pending = check_model_file(path);
  auto t0 = std::chrono::steady_clock::now();
  std::shared_ptr<FileMapping> mapping = map_model_file(path);
  torch::jit::Module module;
  std::shared_ptr<WeightBindings> bindings;
  uint64_t mapped_bytes = 0;
  try {
    if (mapping) {
      std::vector<ArchiveRecord> records;
      for (const PendingCrc &p : pending)
        records.push_back({p.name, static_cast<uint64_t>(p.data), p.size, p.crc});
      MappedModule mm = load_mapped(mapping, records);
      module = std::move(mm.module);
      bindings = std::move(mm.bindings);
      mapped_bytes = mm.mapped_bytes;
    } else {
      module = torch::jit::load(path);
    }
  } catch (const std::exception &e) {
    // A damaged weight explains the failure better than LibTorch's message.
    std::string bad = check_pending_crcs(path, pending, mapping);
    if (!bad.empty())
      throw corrupt_record(path, bad);
    throw_load_error(path, e.what());
  }
  mapping.reset();
  std::map<std::string, std::string> names;
  if (bindings)
    names = tensor_names(module, *bindings);
  damage_weights_for_test(module);
  // The integrity check, first pass, on a second thread while the model is prepared, recorded
  // and converted: every storage made from a record holds that record's bytes (its stated
  // CRC-32). With LibTorch's own load, the file's records are checked instead.
  std::shared_future<std::vector<std::string>> first_pass;
  if (bindings)
    first_pass = async_or_deferred([bindings] { return bindings->mismatches(); }).share();
  else if (!pending.empty())
    first_pass = async_or_deferred([path, pending] {
                   std::string bad = check_pending_crcs(path, pending, nullptr);
                   return bad.empty() ? std::vector<std::string>{} : std::vector<std::string>{bad};
                 }).share();
  std::function<void()> check_weights = [first_pass, path] {
    if (!first_pass.valid())
      return;
    const std::vector<std::string> &bad = first_pass.get();
    if (!bad.empty())
      throw corrupt_record(path, bad.front());
  };
  if (!defer_weight_check)
    check_weights();
  double load_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  LoadedModel m;
  try {
    m = prepare_module(std::move(module), path);
  } catch (...) {
    check_weights(); // a damaged weight explains the failure better
    throw;
  }
  m.load_seconds = load_seconds;
  m.source_path = path;
  m.mapped_bytes = mapped_bytes;
  m.check_weights = std::move(check_weights);
  // The second pass, right before the weights are written: nothing changed them since.
  if (bindings)
    m.recheck_weights = [bindings, path, names = std::move(names)] {
      std::vector<std::string> bad = bindings->mismatches();
      if (!bad.empty())
        throw weight_changed(path, bad, names);
    };
  return m;
}

namespace {
// A traced `x.sum() * 0.5` records the Python number as a 0-d double tensor constant; run on that,
// aten::mul promotes a float32 0-d result to float64. LibTorch's graph executor turns such a
// constant back into a number before it runs the graph (CanonicalizeOps, for add/sub/mul/div),
// so the model's outputs stay float32, as in eager PyTorch. The same here, on every method graph
// before freezing (frozen parameters are constants too, and stay tensors). CanonicalizeOps itself
// also rewrites chunk into a fuser-only op, so only this part of it is done.
void numbers_for_scalar_constants(const torch::jit::Module &module) {
  static const std::set<c10::Symbol> ops = {c10::aten::add, c10::aten::sub, c10::aten::mul,
                                            c10::aten::div};
  for (const torch::jit::Module &mod : module.modules())
    for (const torch::jit::Method &method : mod.get_methods()) {
      std::shared_ptr<torch::jit::Graph> g = method.graph();
      std::vector<torch::jit::Node *> nodes;
      for (torch::jit::Node *n : g->nodes()) // top-level nodes: what tracing records
        if (ops.count(n->kind()) && n->inputs().size() >= 2 &&
            n->input(1)->node()->kind() == c10::prim::Constant &&
            n->input(1)->type()->kind() == c10::TypeKind::TensorType)
          nodes.push_back(n);
      for (torch::jit::Node *n : nodes) {
        at::Tensor t = n->input(1)->node()->t(c10::attr::value);
        if (t.dim() != 0 || t.requires_grad() || !t.device().is_cpu() || t.is_complex())
          continue;
        torch::jit::WithInsertPoint guard(n);
        n->replaceInput(1, g->insertConstant(t.item()));
      }
    }
}
} // namespace

LoadedModel prepare_module(torch::jit::Module module, const std::string &path) {
  prepare_for_memory_limit();
  LoadedModel m;
  m.module = std::move(module);
  if (!m.module.find_method("forward"))
    throw Error(fmt::format("model '{}' has no forward method", path),
                "export a module whose forward computes the outputs (torch.jit.trace or script)");
  m.module.eval();
  numbers_for_scalar_constants(m.module);
  auto t1 = std::chrono::steady_clock::now();
  torch::jit::Module frozen;
  try {
    // Freezing clones the module's class types into its compilation unit under fresh mangled
    // names; LibTorch does not make that safe for two threads at once (two in-memory modules of
    // Python's one compilation unit exported together: "method ... already defined"). One at a
    // time.
    static std::mutex freeze_mutex;
    std::lock_guard<std::mutex> lock(freeze_mutex);
    frozen = torch::jit::freeze_module(m.module);
  } catch (const std::exception &e) {
    throw Error(
        fmt::format("cannot freeze model '{}': {}", path, first_error_line(e.what())),
        "torch2onnx freezes the model (torch.jit.freeze) to turn parameters into constants; "
        "check that torch.jit.freeze(torch.jit.load(path).eval()) works in PyTorch");
  }
  auto method = frozen.get_method("forward");
  m.graph = method.graph()->copy();
  for (size_t i = 1; i < m.graph->inputs().size(); ++i) {
    std::string n = m.graph->inputs()[i]->debugName();
    auto dot = n.find('.');
    m.arg_names.push_back(dot == std::string::npos ? n : n.substr(0, dot));
  }
  // After freezing, `self` should be unused.
  if (!m.graph->inputs().empty() &&
      m.graph->inputs()[0]->type()->kind() == c10::TypeKind::ClassType) {
    torch::jit::Inline(*m.graph);
    if (m.graph->inputs()[0]->hasUses()) {
      torch::jit::EliminateDeadCode(m.graph);
    }
    if (m.graph->inputs()[0]->hasUses()) {
      m.assigned_attributes = attributes_to_values(*m.graph);
      const auto &assigned = m.assigned_attributes;
      if (!assigned.empty())
        m.warnings.push_back(fmt::format(
            "forward assigns module attribute{} {}: within a call the new value is used; every "
            "call of the ONNX file starts from the saved value{} (as a freshly loaded module's "
            "first call does)",
            assigned.size() == 1 ? "" : "s", fmt::join(assigned, ", "),
            assigned.size() == 1 ? "" : "s"));
      resolve_attribute_reads(*m.graph, frozen, path, m);
      // Assigned ones have their own notice (and the reference restores them apart).
      auto &resolved = m.resolved_attributes;
      resolved.erase(std::remove_if(resolved.begin(), resolved.end(),
                                    [&](const std::string &a) {
                                      return std::count(assigned.begin(), assigned.end(), a) > 0;
                                    }),
                     resolved.end());
    }
    m.graph->eraseInput(0);
  }
  const auto &schema = m.module.get_method("forward").function().getSchema();
  for (size_t i = 0; i < m.graph->inputs().size(); ++i) {
    m.arg_types.push_back(m.graph->inputs()[i]->type());
    size_t k = i + 1; // the schema's arguments start with self
    std::optional<c10::IValue> d;
    if (k < schema.arguments().size() && schema.arguments()[k].default_value())
      d = *schema.arguments()[k].default_value();
    m.arg_defaults.push_back(d);
  }
  prepare_graph(m.graph);
  check_outputs(*m.graph, path);
  m.weight_warnings = start_nonfinite_weight_check(*m.graph);
  m.prepare_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  return m;
}

namespace {

// `with torch.no_grad():` (enable_grad, set_grad_enabled) in a scripted forward: a context
// object (prim::CreateObject, prim::SetAttr of its saved mode) entered and exited around the
// block. Gradient mode changes nothing an inference graph computes, so the object and its
// Enter/Exit go; the block's nodes stay where they are. Other context managers are left alone.
void remove_grad_mode_contexts(torch::jit::Block *block) {
  std::vector<torch::jit::Node *> contexts;
  for (torch::jit::Node *n : block->nodes()) {
    for (torch::jit::Block *sub : n->blocks())
      remove_grad_mode_contexts(sub);
    if (n->kind() == c10::prim::CreateObject &&
        n->output()->type()->str().rfind("__torch__.torch.autograd.grad_mode.", 0) == 0)
      contexts.push_back(n);
  }
  for (torch::jit::Node *obj : contexts) {
    std::vector<torch::jit::Node *> users;
    bool removable = true;
    for (const auto &use : obj->output()->uses()) {
      torch::jit::Node *u = use.user;
      bool known = u->kind() == c10::prim::Enter || u->kind() == c10::prim::Exit ||
                   u->kind() == c10::prim::SetAttr;
      removable = removable && known && (u->outputs().empty() || !u->output()->hasUses());
      users.push_back(u);
    }
    if (!removable)
      continue;
    for (torch::jit::Node *u : users)
      u->destroy();
    obj->destroy();
  }
}

} // namespace

void prepare_graph(const std::shared_ptr<torch::jit::Graph> &g) {
  std::shared_ptr<torch::jit::Graph> graph = g; // some passes take a non-const reference
  torch::jit::Inline(*graph);
  remove_grad_mode_contexts(graph->block());
  torch::jit::LowerSimpleTuples(graph);
  torch::jit::RemoveListMutation(graph);
  torch::jit::RemoveTensorMutation(graph);
  torch::jit::ConstantPropagation(graph);
  torch::jit::ConstantPooling(graph);
  torch::jit::EliminateDeadCode(graph);
}

} // namespace torch2onnx
