#include "exporter/frontend/input_data.h"

#include "builder/error.h"
#include "builder/file_io.h"
#include "builder/graph_builder.h"
#include "builder/printable.h"
#include "exporter/core/tensor_util.h"
#include "exporter/frontend/pickle_check.h"
#include "exporter/frontend/zip_reader.h"

#include <ATen/ATen.h>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <torch/serialize.h>
#include <torch/version.h>
#include <zlib.h>

namespace torch2onnx {

namespace fs = std::filesystem;

namespace {

std::string read_file(const std::string &path) {
  return read_regular_file(path, "--input-data file");
}

std::string extension(const std::string &path) {
  std::string ext = fs::path(path).extension().string();
  for (auto &c : ext)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

uint32_t le(const unsigned char *p, int n) {
  uint32_t v = 0;
  for (int i = n - 1; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}

c10::ScalarType npy_type(const std::string &descr, const std::string &what) {
  static const std::pair<const char *, c10::ScalarType> types[] = {
      {"b1", at::kBool},  {"i1", at::kChar},  {"u1", at::kByte},
      {"i2", at::kShort}, {"i4", at::kInt},   {"i8", at::kLong},
      {"f2", at::kHalf},  {"f4", at::kFloat}, {"f8", at::kDouble}};
  if (descr.size() == 3 && (descr[0] == '<' || descr[0] == '|' || descr[0] == '='))
    for (const auto &[code, type] : types)
      if (descr.compare(1, 2, code) == 0)
        return type;
  std::string why = descr.size() == 3 && descr[0] == '>' ? " (big-endian)" : "";
  throw Error(fmt::format("{} holds elements of NumPy type '{}'{}, which torch2onnx cannot read",
                          what, printable(descr), why),
              "save it as bool, int8..int64, uint8 or float16/32/64 in little-endian order, e.g. "
              "np.save(path, a.astype(np.float32))");
}

// The .npy header: the Python dict literal np.save writes, {'descr': '<f4', 'fortran_order':
// False, 'shape': (2, 3), }, read strictly (NumPy reads it with ast.literal_eval): each of the
// three keys exactly once and no other, the shape a tuple of non-negative integers.
struct NpyHeader {
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
};

class HeaderParser {
public:
  HeaderParser(const std::string &text, const std::string &what) : s_(text), what_(what) {}

  NpyHeader parse() {
    NpyHeader h;
    std::set<std::string> seen;
    expect('{');
    while (skip_space(), peek() != '}') {
      std::string key = quoted();
      if (!seen.insert(key).second)
        fail(fmt::format("it gives '{}' twice", printable(key)));
      expect(':');
      skip_space();
      if (key == "descr") {
        if (peek() != '\'' && peek() != '"')
          fail("its 'descr' is not a type string (structured arrays cannot be read)");
        h.descr = quoted();
      } else if (key == "fortran_order") {
        h.fortran = boolean();
      } else if (key == "shape") {
        h.shape = tuple();
      } else {
        fail(fmt::format("it has a key '{}' besides descr, fortran_order and shape",
                         printable(key)));
      }
      skip_space();
      if (peek() != ',')
        break;
      ++i_;
    }
    expect('}');
    skip_space();
    if (i_ != s_.size())
      fail("text follows its closing brace");
    for (const char *key : {"descr", "fortran_order", "shape"})
      if (!seen.count(key))
        fail(fmt::format("it has no '{}'", key));
    return h;
  }

private:
  [[noreturn]] void fail(const std::string &why) const {
    throw Error(fmt::format("{} is not a valid .npy file: {} (header: {})", what_, why,
                            printable(s_.substr(0, 120))),
                "write it with np.save(path, array)");
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void skip_space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t'))
      ++i_;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c)
      fail(fmt::format("expected '{}' at byte {} of its header", c, i_));
    ++i_;
  }
  std::string quoted() {
    const char q = peek();
    if (q != '\'' && q != '"')
      fail(fmt::format("expected a quoted key at byte {} of its header", i_));
    size_t end = s_.find(q, i_ + 1);
    if (end == std::string::npos || s_.find('\\', i_ + 1) < end)
      fail("it has an unterminated or escaped string");
    std::string v = s_.substr(i_ + 1, end - i_ - 1);
    i_ = end + 1;
    return v;
  }
  bool boolean() {
    for (const char *word : {"True", "False"})
      if (s_.compare(i_, std::strlen(word), word) == 0) {
        i_ += std::strlen(word);
        return word[0] == 'T';
      }
    fail("its 'fortran_order' is not True or False");
  }
  std::vector<int64_t> tuple() {
    std::vector<int64_t> dims;
    expect('(');
    while (skip_space(), peek() != ')') {
      size_t start = i_;
      while (std::isdigit(static_cast<unsigned char>(peek())))
        ++i_;
      std::string digits = s_.substr(start, i_ - start);
      // Python literals only: no sign, no leading zero, no 2.0 / 4e0 / 3L.
      if (digits.empty() || (digits.size() > 1 && digits[0] == '0'))
        fail(fmt::format("its shape has a dimension that is not a non-negative integer at byte {}",
                         start));
      if (dims.size() == kMaxRank)
        fail(fmt::format("its shape has more than {} dimensions", kMaxRank));
      int64_t v = 0;
      for (char c : digits)
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, c - '0', &v))
          fail(fmt::format("its shape has a dimension past 2^63 ({})", digits.substr(0, 40)));
      dims.push_back(v);
      skip_space();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      if (peek() != ')')
        fail(fmt::format("its shape has a dimension that is not a non-negative integer at byte {}",
                         i_));
    }
    ++i_;
    return dims;
  }

  const std::string &s_;
  const std::string &what_;
  size_t i_ = 0;
};

} // namespace

at::Tensor parse_npy(const std::string &bytes, const std::string &what) {
  const auto *p = reinterpret_cast<const unsigned char *>(bytes.data());
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
    throw Error(fmt::format("{} is not a NumPy .npy file", what),
                "write it with np.save(path, array), or give a TensorProto .pb");
  const int major = p[6];
  if (major < 1 || major > 3)
    throw Error(fmt::format("{} is a .npy file of format version {}, which torch2onnx cannot read",
                            what, major),
                "write it with np.save(path, array)");
  const size_t len_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + len_bytes)
    throw Error(fmt::format("{} is cut short", what));
  const size_t header_len = le(p + 8, static_cast<int>(len_bytes));
  if (header_len > bytes.size() - 8 - len_bytes)
    throw Error(fmt::format("{} is cut short (its header says {} bytes)", what, header_len));
  const size_t data_start = 8 + len_bytes + header_len;
  NpyHeader h = HeaderParser(bytes.substr(8 + len_bytes, header_len), what).parse();
  auto type = npy_type(h.descr, what);
  int64_t need = 0;
  if (!checked_nbytes(h.shape, c10::elementSize(type), need))
    throw Error(fmt::format("{} is damaged: shape ({}) of {} is larger than any memory (over 2^63 "
                            "bytes)",
                            what, fmt::join(h.shape, ", "), printable(h.descr)));
  if (static_cast<uint64_t>(need) != bytes.size() - data_start)
    throw Error(fmt::format("{} is damaged: shape ({}) of {} needs {} bytes of data, it holds {}",
                            what, fmt::join(h.shape, ", "), printable(h.descr), need,
                            bytes.size() - data_start));
  std::vector<int64_t> storage_shape(h.shape);
  if (h.fortran)
    std::reverse(storage_shape.begin(), storage_shape.end());
  at::Tensor t = at::empty(storage_shape, at::TensorOptions().dtype(type));
  if (t.numel() > 0)
    std::memcpy(t.data_ptr(), bytes.data() + data_start, bytes.size() - data_start);
  if (h.fortran && h.shape.size() > 1) {
    std::vector<int64_t> perm;
    for (int64_t i = static_cast<int64_t>(h.shape.size()) - 1; i >= 0; --i)
      perm.push_back(i);
    t = t.permute(perm).contiguous();
  }
  return t;
}

at::Tensor read_npy(const std::string &path) {
  return checked_input_tensor(parse_npy(read_file(path), fmt::format("'{}'", path)),
                              fmt::format("'{}'", path));
}

std::vector<std::pair<std::string, at::Tensor>> read_npz(const std::string &path) {
  std::string zip = read_file(path);
  std::string what = fmt::format("'{}'", path);
  if (zip.size() < 4 || zip.compare(0, 2, "PK") != 0)
    throw Error(fmt::format("{} is not a NumPy .npz file (not a zip archive)", what),
                "write it with np.savez(path, x=..., mask=...)");
  std::vector<std::pair<std::string, at::Tensor>> out;
  for (const ZipMember &m : zip_members(zip, what)) {
    std::string name = m.name;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0)
      name.resize(name.size() - 4);
    std::string in = fmt::format("'{}' in {}", printable(name), what);
    out.emplace_back(name, checked_input_tensor(parse_npy(zip_member_bytes(zip, m, what), in), in));
  }
  return out;
}

bool tensor_in_storage(const at::Tensor &t, std::string &why) {
  if (t.dim() > static_cast<int64_t>(kMaxRank)) {
    why = fmt::format("has {} dims; torch2onnx takes at most {}", t.dim(), kMaxRank);
    return false;
  }
  const int64_t item = static_cast<int64_t>(t.element_size());
  int64_t last = t.storage_offset(); // the element furthest into the storage
  if (last < 0) {
    why = fmt::format("starts at a negative storage offset ({})", last);
    return false;
  }
  for (int64_t d = 0; d < t.dim(); ++d) {
    const int64_t size = t.sizes()[d], stride = t.strides()[d];
    if (size < 0 || stride < 0) {
      why = fmt::format("has a negative size or stride (size [{}], stride [{}])",
                        fmt::join(t.sizes(), ","), fmt::join(t.strides(), ","));
      return false;
    }
    int64_t reach = 0;
    if (size == 0)
      return true; // no element: nothing is read
    if (__builtin_mul_overflow(size - 1, stride, &reach) ||
        __builtin_add_overflow(last, reach, &last)) {
      why = fmt::format("has a shape reaching past any memory (size [{}], stride [{}])",
                        fmt::join(t.sizes(), ","), fmt::join(t.strides(), ","));
      return false;
    }
  }
  int64_t end = 0;
  const int64_t nbytes = t.has_storage() ? static_cast<int64_t>(t.storage().nbytes()) : 0;
  if (__builtin_add_overflow(last, 1, &end) || __builtin_mul_overflow(end, item, &end) ||
      end > nbytes) {
    why = fmt::format("reaches past its data: size [{}], stride [{}] and offset {} of {}-byte "
                      "elements need {} bytes, the data holds {}",
                      fmt::join(t.sizes(), ","), fmt::join(t.strides(), ","), t.storage_offset(),
                      item, end > 0 ? fmt::format("{}", end) : "more than 2^63", nbytes);
    return false;
  }
  return true;
}

at::Tensor checked_input_tensor(const at::Tensor &t, const std::string &what) {
  if (!t.defined())
    return t;
  if (t.layout() != at::kStrided || t.is_quantized() || !t.device().is_cpu())
    throw Error(fmt::format("{} is a {} tensor; example inputs must be dense CPU tensors", what,
                            t.is_quantized() ? "quantized" : c10::toString(t.layout())),
                "save x.to_dense() / x.dequantize() / x.cpu()");
  std::string why;
  if (!tensor_in_storage(t, why))
    throw Error(fmt::format("{} is damaged: the tensor {}", what, why),
                "save the example again (torch.save / np.save)");
  // A bool stored as a byte other than 0 or 1 is true to LibTorch in some ops and not in others;
  // ONNX Runtime reads the byte as it is. Make it 0 or 1 (in place) before anything reads it.
  if (t.scalar_type() == at::kBool && t.numel() > 0) {
    at::Tensor bytes = t.view(at::kByte);
    bytes.copy_(bytes.ne(0));
  }
  return t;
}

namespace {

// Checks a value of a torch.save'd file as a forward argument, and each tensor in it
// (checked_input_tensor).
void check_value(const c10::IValue &v, const std::string &what) {
  if (v.isTensor()) {
    checked_input_tensor(v.toTensor(), what);
    return;
  }
  if (v.isNone() || v.isInt() || v.isDouble() || v.isBool())
    return;
  if (v.isList() || v.isTuple()) {
    auto elems = v.isList() ? v.toListRef().vec() : v.toTupleRef().elements().vec();
    // Tensors, or lists and tuples of tensors (a KV cache's tuple of (key, value) pairs).
    for (size_t i = 0; i < elems.size(); ++i) {
      const std::string elem = fmt::format("element {} of {}", i, what);
      if (elems[i].isTensor())
        checked_input_tensor(elems[i].toTensor(), elem);
      else if (elems[i].isList() || elems[i].isTuple() || elems[i].isGenericDict())
        check_value(elems[i], elem);
      else
        throw Error(fmt::format("{} holds a {} inside a list or tuple; only tensors can be there",
                                what, elems[i].tagKind()));
    }
    return;
  }
  if (v.isGenericDict()) { // a Dict[str, Tensor] argument (a batch by key)
    for (const auto &kv : v.toGenericDict()) {
      if (!kv.key().isString())
        throw Error(fmt::format("{} is a dict with a {} key; only str keys can be given", what,
                                kv.key().tagKind()));
      const std::string entry =
          fmt::format("value '{}' of {}", printable(kv.key().toStringRef()), what);
      if (!kv.value().isTensor())
        throw Error(
            fmt::format("{} is a {}; a dict argument holds tensors", entry, kv.value().tagKind()));
      checked_input_tensor(kv.value().toTensor(), entry);
    }
    return;
  }
  throw Error(fmt::format("{} is a {}, which is not a forward argument torch2onnx can give", what,
                          v.tagKind()),
              "give tensors, lists, tuples or dicts of tensors, None or numbers");
}

// The checks LibTorch's reader skips, on the file's bytes before torch::pickle_load sees them:
// the zip archive (zip_members) and the pickles' stated lengths (as for a model, pickle_check.h).
void check_torch_save_bytes(const std::string &bytes, const std::string &path) {
  const std::string what = fmt::format("--input-data '{}'", path);
  if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x80 && bytes[1] <= 5)
    throw Error(fmt::format("{} is in the legacy torch.save format "
                            "(_use_new_zipfile_serialization=False), which LibTorch cannot read",
                            what),
                "save it again with torch.save(value, path) (the zip format, PyTorch's default "
                "since 1.6), or give .npy / .npz files");
  if (bytes.size() < 4 || bytes.compare(0, 2, "PK") != 0)
    throw Error(fmt::format("{} is not a torch.save file (not a zip archive)", what),
                "save the example with torch.save((x, mask), path), or one .npy per argument");
  for (const ZipMember &m : zip_members(bytes, what)) {
    if (m.name.size() < 4 || m.name.compare(m.name.size() - 4, 4, ".pkl") != 0)
      continue;
    std::string pkl = zip_member_bytes(bytes, m, what);
    std::string problem =
        pickle_length_problem(reinterpret_cast<const unsigned char *>(pkl.data()), pkl.size());
    if (!problem.empty())
      throw Error(fmt::format("{} is damaged: in the pickle record '{}', {}", what,
                              printable(m.name), problem),
                  "save the example again with torch.save");
  }
}

std::vector<std::optional<c10::IValue>> from_torch_save(const std::string &path,
                                                        const std::vector<std::string> &names) {
  std::string bytes = read_file(path);
  check_torch_save_bytes(bytes, path);
  c10::IValue v;
  try {
    v = torch::pickle_load(std::vector<char>(bytes.begin(), bytes.end()));
  } catch (const std::exception &e) {
    std::string why = first_error_line(e.what());
    // LibTorch 1.13's unpickler lacks SETITEM, which Python uses for a dict of one entry.
    if (why.find("Unknown opcode for unpickling at 0x73") != std::string::npos)
      throw Error(fmt::format("cannot read --input-data '{}': LibTorch {}.{} cannot read a "
                              "torch.save'd dict with a single entry",
                              path, TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR),
                  "save a tuple (torch.save((x,), path)), or an .npz: np.savez(path, x=x)");
    throw Error(
        fmt::format("cannot read --input-data '{}' as a torch.save file: {}", path, printable(why)),
        "save the example with torch.save((x, mask), path), or one .npy per argument");
  }
  std::vector<std::optional<c10::IValue>> out(names.size());
  auto too_many = [&](size_t count) {
    throw Error(fmt::format("--input-data '{}' holds {} values but forward({}) takes {} "
                            "argument{}",
                            path, count, fmt::join(names, ", "), names.size(),
                            names.size() == 1 ? "" : "s"),
                "save one value per forward argument, in order");
  };
  auto put = [&](size_t i, const c10::IValue &x, const std::string &what) {
    check_value(x, what);
    out[i] = x;
  };
  if (v.isTensor()) {
    if (names.empty())
      too_many(1);
    put(0, v, fmt::format("'{}'", path));
  } else if (v.isGenericDict()) {
    for (const auto &kv : v.toGenericDict()) {
      if (!kv.key().isString())
        throw Error(fmt::format("--input-data '{}' is a dict with a non-string key", path),
                    "key the dict by forward's argument names");
      std::string key = kv.key().toStringRef();
      auto it = std::find(names.begin(), names.end(), key);
      if (it == names.end())
        throw Error(fmt::format("--input-data '{}' has a value for '{}', which is not an "
                                "argument of forward({})",
                                path, printable(key), fmt::join(names, ", ")));
      put(static_cast<size_t>(it - names.begin()), kv.value(),
          fmt::format("'{}' of '{}'", printable(key), path));
    }
  } else if (v.isList() || v.isTuple()) {
    auto elems = v.isTuple() ? v.toTupleRef().elements().vec() : v.toListRef().vec();
    if (elems.size() > names.size())
      too_many(elems.size());
    for (size_t i = 0; i < elems.size(); ++i)
      put(i, elems[i], fmt::format("value {} of '{}'", i, path));
  } else {
    throw Error(fmt::format("--input-data '{}' holds a {}", path, v.tagKind()),
                "save a tensor, a tuple or list (one value per argument) or a dict by name");
  }
  return out;
}

std::vector<std::optional<c10::IValue>> from_npz(const std::string &path,
                                                 const std::vector<std::string> &names) {
  auto arrays = read_npz(path);
  std::vector<std::optional<c10::IValue>> out(names.size());
  static const std::regex positional("arr_([0-9]+)");
  for (const auto &[name, t] : arrays) {
    auto it = std::find(names.begin(), names.end(), name);
    size_t index = 0;
    std::smatch m;
    if (it != names.end()) {
      index = static_cast<size_t>(it - names.begin());
    } else if (std::regex_match(name, m, positional) && m[1].str().size() < 6) {
      index = std::stoul(m[1].str());
    } else {
      throw Error(fmt::format("--input-data '{}' has an array '{}', which is not an argument of "
                              "forward({})",
                              path, printable(name), fmt::join(names, ", ")),
                  "name the arrays after forward's arguments (np.savez(path, x=..., mask=...)) "
                  "or give them in order (np.savez(path, x, mask))");
    }
    if (index >= names.size())
      throw Error(fmt::format("--input-data '{}' has an array '{}' but forward takes {} "
                              "argument{}",
                              path, printable(name), names.size(), names.size() == 1 ? "" : "s"));
    if (out[index])
      throw Error(fmt::format("--input-data '{}' gives argument '{}' twice", path, names[index]));
    out[index] = t;
  }
  return out;
}

} // namespace

std::vector<std::optional<c10::IValue>> load_input_data(const std::vector<std::string> &files,
                                                        const std::vector<std::string> &names) {
  std::vector<std::optional<c10::IValue>> out(names.size());
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string &f = files[i];
    std::string ext = extension(f);
    if (ext == ".npz" || ext == ".pt" || ext == ".pth") {
      if (files.size() != 1)
        throw Error(fmt::format("--input-data '{}' gives every argument, so it must be the only "
                                "--input-data file ({} were given)",
                                f, files.size()),
                    "give one .npz or .pt for all arguments, or one .npy/.pb per argument");
      return ext == ".npz" ? from_npz(f, names) : from_torch_save(f, names);
    }
    if (i >= names.size())
      throw Error(fmt::format("{} --input-data files were given but forward({}) takes {} "
                              "argument{}",
                              files.size(), fmt::join(names, ", "), names.size(),
                              names.size() == 1 ? "" : "s"),
                  "give one file per forward argument, in order");
    if (ext == ".npy")
      out[i] = read_npy(f);
    else if (ext == ".pb")
      out[i] = checked_input_tensor(from_tensor_data(load_tensor_proto(f)), fmt::format("'{}'", f));
    else
      throw Error(fmt::format("--input-data '{}': unknown file type '{}'", f, ext),
                  "give .npy or .pb (one per argument), or one .npz or .pt for all arguments");
  }
  return out;
}

} // namespace torch2onnx
