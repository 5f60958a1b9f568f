#include "exporter/core/tensor_util.h"

#include "builder/error.h"
#include "builder/process.h"

#include <ATen/ATen.h>
#include <cctype>
#include <dlfcn.h>
#include <functional>
#include <mutex>
#include <regex>
#include <sys/mman.h>
#include <sys/resource.h>

namespace torch2onnx {

DType to_dtype(c10::ScalarType t) {
  switch (t) {
  case c10::ScalarType::Float:
    return DType::Float;
  case c10::ScalarType::Double:
    return DType::Double;
  case c10::ScalarType::Half:
    return DType::Float16;
  case c10::ScalarType::BFloat16:
    return DType::BFloat16;
  case c10::ScalarType::Long:
    return DType::Int64;
  case c10::ScalarType::Int:
    return DType::Int32;
  case c10::ScalarType::Short:
    return DType::Int16;
  case c10::ScalarType::Char:
    return DType::Int8;
  case c10::ScalarType::Byte:
    return DType::UInt8;
  case c10::ScalarType::Bool:
    return DType::Bool;
  case c10::ScalarType::ComplexFloat:
    return DType::Complex64;
  case c10::ScalarType::ComplexDouble:
    return DType::Complex128;
  default:
    break;
  }
  throw Error(fmt::format("tensor type {} has no ONNX equivalent", c10::toString(t)));
}

c10::ScalarType to_scalar_type(DType t) {
  switch (t) {
  case DType::Float:
    return c10::ScalarType::Float;
  case DType::Double:
    return c10::ScalarType::Double;
  case DType::Float16:
    return c10::ScalarType::Half;
  case DType::BFloat16:
    return c10::ScalarType::BFloat16;
  case DType::Int64:
    return c10::ScalarType::Long;
  case DType::Int32:
    return c10::ScalarType::Int;
  case DType::Int16:
    return c10::ScalarType::Short;
  case DType::Int8:
    return c10::ScalarType::Char;
  case DType::UInt8:
    return c10::ScalarType::Byte;
  case DType::Bool:
    return c10::ScalarType::Bool;
  case DType::Complex64: // recorded complex values (metadata folding, placeholders)
    return c10::ScalarType::ComplexFloat;
  case DType::Complex128:
    return c10::ScalarType::ComplexDouble;
  default:
    break;
  }
  throw Error(fmt::format("dtype {} has no LibTorch equivalent", dtype_name(t)));
}

std::optional<QuantParams> quant_params_of(const at::Tensor &t) {
  if (!t.is_quantized() || t.qscheme() != at::kPerTensorAffine)
    return std::nullopt;
  QuantParams q;
  switch (t.scalar_type()) {
  case c10::ScalarType::QUInt8:
    q.storage = DType::UInt8;
    break;
  case c10::ScalarType::QInt8:
    q.storage = DType::Int8;
    break;
  case c10::ScalarType::QInt32:
    q.storage = DType::Int32;
    break;
  default:
    return std::nullopt; // quint4x2 and the like: not carried
  }
  q.scale = t.q_scale();
  q.zero_point = t.q_zero_point();
  return q;
}

TensorInfo info_of(const at::Tensor &t) {
  TensorInfo info;
  if (t.is_quantized()) {
    // Carried as its real values (docs/quantized.md); per-channel tensors (weights) are f32
    // without parameters: their converters read the weight itself.
    info.dtype = DType::Float;
    info.quant = quant_params_of(t);
  } else {
    info.dtype = to_dtype(t.scalar_type());
  }
  info.shape.emplace();
  if (t.is_nested()) {
    // Nested tensors have no sizes: ONNX holds one as its padded form (aten_lib/transformer.cpp),
    // [rows, unknown...]: its ragged dims follow the source tensor, not the rows.
    info.shape->push_back(Dim::known(t.size(0)));
    info.shape->resize(static_cast<size_t>(t.dim()), Dim{});
    return info;
  }
  for (auto s : t.sizes())
    info.shape->push_back(Dim::known(s));
  return info;
}

TensorData to_tensor_data(const at::Tensor &t) {
  at::Tensor c = t.detach().to(at::kCPU).contiguous();
  if (c.is_quantized())
    c = c.dequantize(); // outputs and example values: what the ONNX model computes
  TensorData d;
  d.dtype = to_dtype(c.scalar_type());
  d.dims.assign(c.sizes().begin(), c.sizes().end());
  d.raw.assign(static_cast<const char *>(c.data_ptr()), c.numel() * c.element_size());
  return d;
}

at::Tensor from_tensor_data(const TensorData &d) {
  auto opts = at::TensorOptions().dtype(to_scalar_type(d.dtype));
  at::Tensor t = at::empty(d.dims, opts);
  if (!d.raw.empty())
    std::memcpy(t.data_ptr(), d.raw.data(), d.raw.size());
  return t;
}

std::vector<at::Tensor> flatten_tensors(const c10::IValue &v) {
  std::vector<at::Tensor> out;
  std::function<void(const c10::IValue &)> rec = [&](const c10::IValue &x) {
    if (x.isTensor()) {
      if (x.toTensor().defined()) // LibTorch may return None as an undefined tensor
        out.push_back(x.toTensor());
    } else if (x.isTuple()) {
      for (const auto &e : x.toTupleRef().elements())
        rec(e);
    } else if (x.isList()) {
      for (const auto &e : x.toListRef())
        rec(e);
    } else if (x.isGenericDict()) {
      for (const auto &kv : x.toGenericDict())
        rec(kv.value());
    } else if (x.isNone()) {
      // An Optional output that is None: not an ONNX output either (Walker::outputs).
    } else if (x.isInt()) {
      out.push_back(at::scalar_tensor(x.toInt(), at::kLong));
    } else if (x.isDouble()) {
      out.push_back(at::scalar_tensor(x.toDouble(), at::kDouble));
    } else if (x.isBool()) {
      out.push_back(at::scalar_tensor(x.toBool(), at::kBool));
    } else {
      throw Error(fmt::format("the model returned a {}, which is not a tensor", x.tagKind()),
                  "return tensors (or tuples/lists/dicts of tensors) from forward");
    }
  };
  rec(v);
  return out;
}

std::string first_error_line(const std::string &s) {
  size_t a = 0;
  while (a < s.size() && std::isspace(static_cast<unsigned char>(s[a])))
    ++a;
  std::string line =
      s.substr(a, s.find('\n', a) == std::string::npos ? std::string::npos : s.find('\n', a) - a);
  if (line.rfind("[enforce fail at ", 0) == 0) {
    auto close = line.find("] ");
    if (close != std::string::npos)
      line = line.substr(close + 2);
    if (line.rfind(". ", 0) == 0)
      line = line.substr(2);
  }
  auto improve = line.find(" (Could this error message be improved?");
  if (improve != std::string::npos)
    line = line.substr(0, improve);
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back())))
    line.pop_back();
  return line;
}

namespace {

std::vector<std::string> lines_of(const std::string &text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    out.push_back(text.substr(pos, end == std::string::npos ? std::string::npos : end - pos));
    if (end == std::string::npos)
      break;
    pos = end + 1;
  }
  return out;
}

std::string trimmed(const std::string &s) {
  size_t a = s.find_first_not_of(" \t\r");
  size_t b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// The exception the model raised: the message's last line "builtins.ValueError: text" (a Python
// exception raised by the model's code) or "RuntimeError: text" (an op's), without "builtins.".
std::string raised_reason(const std::vector<std::string> &lines) {
  static const std::regex exception_line(
      R"(^(?:builtins\.)?([A-Za-z_][\w.]*(?:Error|Exception)): (.*)$)");
  for (size_t i = lines.size(); i-- > 0;) {
    std::string t = trimmed(lines[i]);
    if (t.empty())
      continue;
    std::smatch m;
    if (!std::regex_match(t, m, exception_line))
      return "";
    // RuntimeError carries the op's own message; the others are the model's raise: keep the type.
    std::string rest;
    for (size_t k = i + 1; k < lines.size(); ++k)
      rest += " " + trimmed(lines[k]);
    std::string text = trimmed(m[2].str() + rest);
    return m[1].str() == "RuntimeError" ? text : fmt::format("{}: {}", m[1].str(), text);
  }
  return "";
}

// Where in the model's own code it failed: the innermost frame of the original-code traceback
// outside torch, as "file:line: source line".
std::string failing_source(const std::vector<std::string> &lines) {
  static const std::regex frame(R"re(^\s*File "([^"]+)", line (\d+), in .*$)re");
  static const std::regex traced_frame(R"(^.+\(\d+\): [\w<>]+$)");
  bool original = false;
  std::string where;
  std::string last_frame;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find("original code (most recent call last):") != std::string::npos)
      original = true;
    if (!original)
      continue;
    std::smatch m;
    if (std::regex_match(lines[i], m, frame)) {
      last_frame = m[1].str().find("/torch/") == std::string::npos
                       ? fmt::format("{}:{}", m[1].str(), m[2].str())
                       : "";
      continue;
    }
    if (!last_frame.empty() && lines[i].find("<--- HERE") != std::string::npos && i > 0)
      where = fmt::format("{}: {}", last_frame, trimmed(lines[i - 1]));
    // A traced model's frames are "path(line): function", innermost first.
    std::string t = trimmed(lines[i]);
    if (where.empty() && last_frame.empty() && t.find("/torch/") == std::string::npos &&
        std::regex_match(t, traced_frame))
      where = t;
  }
  return where;
}

} // namespace

std::string summarize_torch_error(const std::string &what) {
  // The interpreter's message: "The following operation failed ...", two tracebacks, then the
  // exception ("RuntimeError: expected scalar type Long but found Float", or the model's own
  // "builtins.ValueError: lengths must be sorted").
  auto lines = lines_of(what);
  std::string reason = raised_reason(lines);
  if (reason.empty()) {
    const std::string marker = "RuntimeError: ";
    auto p = what.rfind(marker);
    reason = p == std::string::npos ? first_error_line(what) : what.substr(p + marker.size());
    for (char &c : reason)
      if (c == '\n')
        c = ' ';
    reason = trimmed(reason);
  }
  std::string where = failing_source(lines);
  return where.empty() ? reason : fmt::format("{} (at {})", reason, where);
}

void prepare_for_memory_limit() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct rlimit r {};
    if (::getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY)
      return;
    // One thread for OpenBLAS and for LibTorch's OpenMP loops (which would call OpenBLAS from
    // several threads at once). Not at::set_num_threads: it starts a thread pool that waits for
    // ever for threads that could not be created under the limit.
    using SetThreads = void (*)(int);
    for (const char *name : {"openblas_set_num_threads", "omp_set_num_threads"})
      if (auto set = reinterpret_cast<SetThreads>(::dlsym(RTLD_DEFAULT, name)))
        set(1);
    // oneDNN (convolutions) generates code into memory it maps itself and crashes (SIGSEGV) when
    // that fails; LibTorch's own kernels report running out of memory cleanly.
    at::globalContext().setUserEnabledMkldnn(false);
    // Room for the buffer (128 MB and a little) and the product below, or a clean error now.
    const size_t need = size_t{160} << 20;
    void *p = ::mmap(nullptr, need, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      throw out_of_memory("preparing LibTorch's matrix library (OpenBLAS needs about 130 MB)");
    ::munmap(p, need);
    try {
      at::Tensor a = at::ones({256, 256});
      (void)at::mm(a, a); // OpenBLAS takes its buffer now
    } catch (const std::exception &e) {
      if (is_out_of_memory(e.what()))
        throw out_of_memory("preparing LibTorch's matrix library (OpenBLAS needs about 130 MB)");
      throw;
    }
  });
}

} // namespace torch2onnx
