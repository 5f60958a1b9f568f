// load_equal: torch2onnx's load of a TorchScript file (load_model: the mapped weights by default)
// against LibTorch's own torch::jit::load (which copies them), compared bit for bit over every
// tensor reachable from the module: parameters, buffers, other attributes, and what the
// __getstate__ of each object gives (quantized packed params rebuild their weights in
// __setstate__, so only __getstate__ shows them). Issue 25 part 5, for the models torch2onnx
// cannot export yet (quantized ones); ctest runs it per model (load_equal:<model>).
//
//   load_equal MODEL.pt                         exit 0 when both loads are identical, 1 otherwise
//                                               (TORCH2ONNX_LOAD=copy: both are LibTorch's load)
//   load_equal --files A.pt B.pt --expect-difference-in TEXT
//                                               LibTorch's load of two files; exit 0 only when
//                                               some tensor differs and its path contains TEXT
//                                               (the comparison's own test)
#include "exporter/frontend/torchscript/loader.h"

#include <ATen/ATen.h>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <set>
#include <sstream>
#include <string>
#include <torch/csrc/jit/serialization/import.h>
#include <vector>

namespace {

struct Found {
  std::string path;
  at::Tensor tensor;  // undefined for a non-tensor leaf
  std::string scalar; // a leaf that is not a tensor (a number, a string), as text
};

std::string leaf_text(const c10::IValue &v) {
  std::ostringstream ss;
  ss << v.tagKind() << ":" << v;
  return ss.str();
}

class Walker {
public:
  std::vector<Found> found;

  void walk(const c10::IValue &v, const std::string &path, int depth = 0) {
    if (depth > 64)
      throw std::runtime_error("nesting deeper than 64 at " + path);
    if (v.isTensor())
      found.push_back({path, v.toTensor(), ""});
    else if (v.isObject())
      walk_object(v, path, depth);
    else if (v.isTuple() || v.isList())
      walk_sequence(v.isTuple() ? v.toTupleRef().elements().vec() : v.toListRef().vec(), path,
                    depth);
    else if (v.isGenericDict())
      for (const auto &kv : v.toGenericDict())
        walk(kv.value(), fmt::format("{}[{}]", path, leaf_text(kv.key())), depth + 1);
    else if (v.isInt() || v.isDouble() || v.isBool() || v.isString() || v.isNone())
      found.push_back({path, at::Tensor(), leaf_text(v)});
  }

private:
  std::set<const void *> seen_;

  void walk_sequence(const std::vector<c10::IValue> &elems, const std::string &path, int depth) {
    for (size_t i = 0; i < elems.size(); ++i)
      walk(elems[i], fmt::format("{}[{}]", path, i), depth + 1);
  }

  void walk_object(const c10::IValue &v, const std::string &path, int depth) {
    auto obj = v.toObject();
    if (!seen_.insert(obj.get()).second)
      return; // shared (a tied module): compared where first reached
    auto type = obj->type();
    for (size_t i = 0; i < type->numAttributes(); ++i)
      walk(obj->getSlot(i), path + "." + type->getAttributeName(i), depth + 1);
    // Custom classes (packed params) keep their weights outside any attribute.
    if (auto *getstate = type->findMethod("__getstate__")) {
      c10::IValue state;
      try {
        state = (*getstate)({v});
      } catch (const std::exception &e) {
        found.push_back(
            {path + ".__getstate__()", at::Tensor(), std::string("error: ") + e.what()});
        return;
      }
      walk(state, path + ".__getstate__()", depth + 1);
    }
  }
};

std::string bytes_of(const at::Tensor &t) {
  const auto &storage = t.storage();
  if (!storage || storage.nbytes() == 0 || storage.data() == nullptr)
    return "";
  return std::string(static_cast<const char *>(storage.data()), storage.nbytes());
}

// "" when equal bit for bit (dtype, shape, strides, offset, quantization and the storage's bytes).
std::string tensor_difference(const at::Tensor &a, const at::Tensor &b) {
  if (a.defined() != b.defined())
    return "defined on one side only";
  if (!a.defined())
    return "";
  if (a.dtype() != b.dtype() || a.sizes() != b.sizes() || a.strides() != b.strides() ||
      a.storage_offset() != b.storage_offset())
    return fmt::format("{} [{}] offset {} vs {} [{}] offset {}", std::string(a.dtype().name()),
                       fmt::join(a.sizes(), ","), a.storage_offset(), std::string(b.dtype().name()),
                       fmt::join(b.sizes(), ","), b.storage_offset());
  if (a.is_quantized()) {
    if (a.qscheme() != b.qscheme())
      return "quantization schemes differ";
    if (a.qscheme() == at::kPerTensorAffine &&
        (a.q_scale() != b.q_scale() || a.q_zero_point() != b.q_zero_point()))
      return fmt::format("scale/zero point {}/{} vs {}/{}", a.q_scale(), a.q_zero_point(),
                         b.q_scale(), b.q_zero_point());
    if (a.qscheme() == at::kPerChannelAffine &&
        (!tensor_difference(a.q_per_channel_scales(), b.q_per_channel_scales()).empty() ||
         !tensor_difference(a.q_per_channel_zero_points(), b.q_per_channel_zero_points()).empty()))
      return "per-channel scales or zero points differ";
  }
  std::string x = bytes_of(a), y = bytes_of(b);
  if (x == y)
    return "";
  size_t at = 0;
  while (at < x.size() && at < y.size() && x[at] == y[at])
    ++at;
  return fmt::format("storage bytes differ ({} and {} bytes, first at byte {})", x.size(), y.size(),
                     at);
}

std::vector<Found> reachable(const torch::jit::Module &m) {
  Walker w;
  w.walk(m._ivalue(), "self");
  return w.found;
}

// Prints the differences; returns how many there are.
size_t compare(const std::vector<Found> &a, const std::vector<Found> &b, const std::string &expect,
               bool &expected_found) {
  size_t n = 0;
  auto report = [&](const std::string &path, const std::string &what) {
    if (++n <= 20)
      fmt::print("DIFFERS {}: {}\n", path, what);
    expected_found = expected_found || (!expect.empty() && path.find(expect) != std::string::npos);
  };
  if (a.size() != b.size())
    report("(module)", fmt::format("{} values reachable against {}", a.size(), b.size()));
  double bytes = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (a[i].path != b[i].path) {
      report(a[i].path, "reached as " + b[i].path + " on the other side");
      continue;
    }
    std::string d = a[i].scalar != b[i].scalar ? a[i].scalar + " vs " + b[i].scalar
                                               : tensor_difference(a[i].tensor, b[i].tensor);
    if (a[i].tensor.defined())
      bytes += static_cast<double>(a[i].tensor.storage().nbytes());
    if (!d.empty())
      report(a[i].path, d);
  }
  size_t tensors = 0;
  for (const auto &f : a)
    tensors += f.tensor.defined();
  fmt::print("{} values compared ({} tensors, {:.1f} MB of storage), {} differ\n", a.size(),
             tensors, bytes / 1e6, n);
  return n;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.size() == 1) {
      torch::jit::Module copied = torch::jit::load(args[0]);
      copied.eval(); // as load_model leaves its module (the training flags are attributes too)
      // torch2onnx's load as TORCH2ONNX_LOAD selects it (ctest unsets it: the default, mapped).
      torch2onnx::LoadedModel mapped = torch2onnx::load_model(args[0]);
      bool unused = false;
      const char *how = std::getenv("TORCH2ONNX_LOAD");
      fmt::print("{}: torch2onnx's load (TORCH2ONNX_LOAD={}) against torch::jit::load\n", args[0],
                 how ? how : "");
      return compare(reachable(mapped.module), reachable(copied), "", unused) == 0 ? 0 : 1;
    }
    if (args.size() == 5 && args[0] == "--files" && args[3] == "--expect-difference-in") {
      torch::jit::Module a = torch::jit::load(args[1]), b = torch::jit::load(args[2]);
      bool found = false;
      size_t n = compare(reachable(a), reachable(b), args[4], found);
      fmt::print("{}\n", found ? "the expected difference was found"
                               : "no difference at a path containing '" + args[4] + "'");
      return n > 0 && found ? 0 : 1;
    }
  } catch (const std::exception &e) {
    fmt::print(stderr, "load_equal: error: {}\n", e.what());
    return 1;
  }
  fmt::print(stderr, "usage: load_equal MODEL.pt | load_equal --files A.pt B.pt "
                     "--expect-difference-in TEXT\n");
  return 2;
}
