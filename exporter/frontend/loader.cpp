#include "exporter/frontend/loader.h"

#include "builder/error.h"
#include "builder/process.h"
#include "exporter/frontend/pickle_check.h"
#include "exporter/frontend/torch_util.h"

#include <ATen/Functions.h>
#include <algorithm>
#include <array>
#include <caffe2/serialize/inline_container.h>
#include <cctype>
#include <chrono>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
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

using Reader = std::unique_ptr<caffe2::serialize::PyTorchStreamReader>;

// A stored record whose CRC-32 is checked while torch::jit::load runs (see check_zip_crcs).
struct PendingCrc {
  std::string name;
  int64_t data = 0; // offset of its bytes in the file
  uint32_t size = 0;
  uint32_t crc = 0;
};
std::vector<PendingCrc> check_zip_crcs(const std::string &path, Reader &reader);
void check_pickles(const std::string &path, Reader &reader);

// Checks what LibTorch's loader needs intact before it parses anything; returns the tensor data
// records whose checksums are left to check_pending_crcs.
std::vector<PendingCrc> check_model_file(const std::string &path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw Error(fmt::format("model file '{}' does not exist", path),
                "pass the path of a TorchScript file saved with torch.jit.save / module.save");
  if (fs::is_directory(path, ec))
    throw Error(fmt::format("model path '{}' is a directory, not a TorchScript file", path));
  std::ifstream f(path, std::ios::binary);
  if (!f)
    throw Error(fmt::format("cannot open model file '{}'", path));
  char magic[4] = {0, 0, 0, 0};
  f.read(magic, 4);
  if (f.gcount() == 0)
    throw Error(fmt::format("model file '{}' is empty", path));
  if (f.gcount() < 4 || magic[0] != 'P' || magic[1] != 'K')
    throw Error(
        fmt::format("'{}' is not a TorchScript file (not a zip archive)", path),
        "save the model with torch.jit.trace(...).save(path) or torch.jit.script(...).save(path); "
        "a state_dict or torch.save() pickle cannot be converted");
  f.close();
  Reader reader; // LibTorch's reader of the archive, opened by the first check that needs it
  std::vector<PendingCrc> pending = check_zip_crcs(path, reader);
  check_pickles(path, reader);
  return pending;
}

// CRC-32 (zip's polynomial), slicing-by-8: eight table lookups per 8 bytes, several GB/s, so
// checking a model's weights costs little next to loading them.
uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n) {
  static const auto tables = [] {
    std::array<std::array<uint32_t, 256>, 8> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k)
        c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i)
      for (size_t k = 1; k < 8; ++k)
        t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFF];
    return t;
  }();
  crc = ~crc;
  while (n >= 8) {
    uint32_t lo = static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
                  static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
    lo ^= crc;
    crc = tables[7][lo & 0xFF] ^ tables[6][(lo >> 8) & 0xFF] ^ tables[5][(lo >> 16) & 0xFF] ^
          tables[4][lo >> 24] ^ tables[3][p[4]] ^ tables[2][p[5]] ^ tables[1][p[6]] ^
          tables[0][p[7]];
    p += 8;
    n -= 8;
  }
  while (n-- > 0)
    crc = tables[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

uint32_t le(const unsigned char *p, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}

// LibTorch 1.13 does not check the CRC-32 of the records it reads, and its TorchScript parser can
// crash on corrupted code (found by tests/fuzz). Check every stored record's CRC first, so a
// damaged file is reported as damaged. Deflated and zip64 records are left to LibTorch.
// Opens `reader` unless it is open; false when LibTorch cannot read the archive (e.g. a newer file
// format: torch::jit::load explains it).
bool open_reader(const std::string &path, Reader &reader) {
  if (reader)
    return true;
  try {
    reader = std::make_unique<caffe2::serialize::PyTorchStreamReader>(path);
  } catch (const std::exception &) {
    return false;
  }
  return true;
}

// The CRC-32 of `size` bytes at `offset` of the open file; false when they cannot all be read.
bool crc_of_range(std::ifstream &f, int64_t offset, uint32_t size, std::vector<unsigned char> &buf,
                  uint32_t &crc) {
  f.clear();
  f.seekg(offset);
  uint32_t c = 0;
  for (uint32_t left = size; left > 0;) {
    const uint32_t n = std::min<uint32_t>(left, static_cast<uint32_t>(buf.size()));
    if (!f.read(reinterpret_cast<char *>(buf.data()), n))
      return false;
    c = crc32_update(c, buf.data(), n);
    left -= n;
  }
  crc = c;
  return true;
}

Error corrupt_record(const std::string &path, const std::string &name) {
  return Error(fmt::format("'{}' is corrupt: the record '{}' fails its checksum", path, name),
               "the file was damaged after it was saved; copy or save it again");
}

// Tensor data records ("<archive>/data/<n>") are only copied into storages, never parsed, so
// their checksums need not be known before torch::jit::load starts: they are returned to be
// checked on another thread while it runs (the weights' bytes are read from the page cache a
// second time either way, but in parallel with LibTorch's own read instead of before it).
std::vector<PendingCrc> check_zip_crcs(const std::string &path, Reader &reader) {
  std::vector<PendingCrc> pending;
  std::ifstream f(path, std::ios::binary);
  f.seekg(0, std::ios::end);
  const int64_t size = f.tellg();
  const int64_t tail = std::min<int64_t>(size, 65536 + 22);
  std::vector<unsigned char> end(static_cast<size_t>(tail));
  f.seekg(size - tail);
  f.read(reinterpret_cast<char *>(end.data()), tail);
  int64_t eocd = -1;
  for (int64_t i = tail - 22; i >= 0; --i)
    if (le(&end[i], 4) == 0x06054b50u) {
      eocd = i;
      break;
    }
  if (eocd < 0)
    return pending; // no central directory: LibTorch reports it (as cut short)
  uint64_t entries = le(&end[eocd + 10], 2), cd_size = le(&end[eocd + 12], 4),
           cd_offset = le(&end[eocd + 16], 4);
  // PyTorch also writes a zip64 end record, and when its locator is there LibTorch's reader
  // (miniz) takes the central directory's place and size from it alone, ignoring the fields
  // above: do the same, or a file whose 32-bit fields are damaged skips this check (tests/fuzz).
  if (eocd >= 20 && le(&end[eocd - 20], 4) == 0x07064b50u) {
    const uint64_t z64 = le(&end[eocd - 12], 4) | uint64_t{le(&end[eocd - 8], 4)} << 32;
    unsigned char r[56];
    if (z64 > static_cast<uint64_t>(size))
      return pending; // LibTorch reports the broken record
    f.seekg(static_cast<std::streamoff>(z64));
    if (!f.read(reinterpret_cast<char *>(r), 56) || le(r, 4) != 0x06064b50u)
      return pending;
    entries = le(r + 32, 4) | uint64_t{le(r + 36, 4)} << 32;
    cd_size = le(r + 40, 4) | uint64_t{le(r + 44, 4)} << 32;
    cd_offset = le(r + 48, 4) | uint64_t{le(r + 52, 4)} << 32;
  }
  if (cd_offset == 0xFFFFFFFFu || cd_size > static_cast<uint64_t>(size) ||
      cd_offset > static_cast<uint64_t>(size) - cd_size)
    return pending;
  std::vector<unsigned char> cd(static_cast<size_t>(cd_size));
  f.seekg(static_cast<std::streamoff>(cd_offset));
  if (!f.read(reinterpret_cast<char *>(cd.data()), static_cast<std::streamsize>(cd_size)))
    return pending;
  std::vector<unsigned char> buf(1 << 16);
  size_t pos = 0;
  for (uint64_t e = 0; e < entries && pos + 46 <= cd.size(); ++e) {
    const unsigned char *h = &cd[pos];
    if (le(h, 4) != 0x02014b50u)
      return pending;
    const uint32_t method = le(h + 10, 2), crc = le(h + 16, 4), csize = le(h + 20, 4);
    const uint32_t name_len = le(h + 28, 2), extra_len = le(h + 30, 2), comment_len = le(h + 32, 2);
    const uint32_t local = le(h + 42, 4);
    if (pos + 46 + name_len > cd.size())
      return pending;
    std::string name(reinterpret_cast<const char *>(h + 46), name_len);
    pos += 46 + name_len + extra_len + comment_len;
    if (csize == 0xFFFFFFFFu || local == 0xFFFFFFFFu)
      continue;
    // LibTorch allocates a record's stated size before reading it: a damaged size field would
    // ask for gigabytes (found by tests/fuzz). Stored records are as long as their data, and
    // deflate expands at most 1032:1.
    const uint32_t usize = le(h + 24, 4);
    if (usize != 0xFFFFFFFFu &&
        (method == 0 ? usize != csize : usize > uint64_t{csize} * 1032 + 1024))
      throw Error(fmt::format("'{}' is corrupt: the record '{}' claims {} bytes from {} stored",
                              path, name, usize, csize),
                  "the file was damaged after it was saved; copy or save it again");
    if (method != 0) {
      // Compressed (the code records): let LibTorch's reader inflate them, then check.
      auto slash = name.find('/');
      if (slash == std::string::npos || csize > (64u << 20))
        continue;
      if (!open_reader(path, reader))
        return pending;
      uint32_t c = 0;
      try {
        auto [ptr, n] = reader->getRecord(name.substr(slash + 1));
        c = crc32_update(0, static_cast<const unsigned char *>(ptr.get()), n);
      } catch (const std::exception &) {
        c = ~crc; // it does not even inflate
      }
      if (c != crc)
        throw corrupt_record(path, name);
      continue;
    }
    unsigned char lh[30];
    f.clear();
    f.seekg(local);
    if (!f.read(reinterpret_cast<char *>(lh), 30) || le(lh, 4) != 0x04034b50u)
      continue;
    const int64_t data = int64_t{local} + 30 + le(lh + 26, 2) + le(lh + 28, 2);
    if (data + csize > size)
      continue;
    if (name.find("/data/") != std::string::npos) {
      pending.push_back({name, data, csize, crc});
      continue;
    }
    uint32_t c = 0;
    if (crc_of_range(f, data, csize, buf, c) && c != crc)
      throw corrupt_record(path, name);
  }
  return pending;
}

// The first of `pending` whose bytes fail their checksum; "" when all pass (or cannot be read:
// LibTorch reports a short file itself).
std::string check_pending_crcs(const std::string &path, const std::vector<PendingCrc> &pending) {
  std::ifstream f(path, std::ios::binary);
  std::vector<unsigned char> buf(1 << 20);
  for (const PendingCrc &p : pending) {
    uint32_t c = 0;
    if (crc_of_range(f, p.data, p.size, buf, c) && c != p.crc)
      return p.name;
  }
  return "";
}

// See exporter/pickle_check.h: a pickle record whose stated string length is impossible makes
// LibTorch allocate up to 4 GB before it notices the file is damaged.
void check_pickles(const std::string &path, Reader &reader) {
  if (!open_reader(path, reader))
    return;
  std::vector<std::string> names;
  try {
    names = reader->getAllRecords();
  } catch (const std::exception &) {
    return; // torch::jit::load explains what is wrong with the archive
  }
  for (const std::string &name : names) {
    const bool pickle = name.size() > 3 && name.compare(name.size() - 3, 3, "pkl") == 0;
    if (!pickle)
      continue;
    std::string problem;
    try {
      auto [ptr, n] = reader->getRecord(name);
      problem = pickle_length_problem(static_cast<const unsigned char *>(ptr.get()), n);
    } catch (const std::exception &) {
      continue;
    }
    if (!problem.empty())
      throw Error(
          fmt::format("'{}' is corrupt: in the pickle record '{}', {}", path, name, problem),
          "the file was damaged after it was saved; copy or save it again");
  }
}

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

LoadedModel load_model(const std::string &path) {
  std::vector<PendingCrc> pending = check_model_file(path);
  auto t0 = std::chrono::steady_clock::now();
  // The weights' checksums, on a second thread while LibTorch loads (a damaged weight is reported
  // as such even when LibTorch fails on it first).
  std::future<std::string> bad_record;
  if (!pending.empty())
    bad_record = async_or_deferred(check_pending_crcs, path, std::cref(pending));
  auto check_weights = [&] {
    if (bad_record.valid()) {
      std::string bad = bad_record.get();
      if (!bad.empty())
        throw corrupt_record(path, bad);
    }
  };
  torch::jit::Module module;
  try {
    module = torch::jit::load(path);
  } catch (const std::exception &e) {
    check_weights();
    throw_load_error(path, e.what());
  }
  check_weights();
  double load_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  LoadedModel m = prepare_module(std::move(module), path);
  m.load_seconds = load_seconds;
  return m;
}

LoadedModel prepare_module(torch::jit::Module module, const std::string &path) {
  LoadedModel m;
  m.module = std::move(module);
  if (!m.module.find_method("forward"))
    throw Error(fmt::format("model '{}' has no forward method", path),
                "export a module whose forward computes the outputs (torch.jit.trace or script)");
  m.module.eval();
  auto t1 = std::chrono::steady_clock::now();
  torch::jit::Module frozen;
  try {
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
    if (m.graph->inputs()[0]->hasUses())
      resolve_attribute_reads(*m.graph, frozen, path, m);
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

void prepare_graph(const std::shared_ptr<torch::jit::Graph> &g) {
  std::shared_ptr<torch::jit::Graph> graph = g; // some passes take a non-const reference
  torch::jit::Inline(*graph);
  torch::jit::LowerSimpleTuples(graph);
  torch::jit::RemoveListMutation(graph);
  torch::jit::RemoveTensorMutation(graph);
  torch::jit::ConstantPropagation(graph);
  torch::jit::ConstantPooling(graph);
  torch::jit::EliminateDeadCode(graph);
}

} // namespace torch2onnx
