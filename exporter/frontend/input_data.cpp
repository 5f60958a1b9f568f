#include "exporter/frontend/input_data.h"

#include "builder/error.h"
#include "builder/graph_builder.h"
#include "exporter/frontend/torch_util.h"

#include <ATen/ATen.h>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <torch/serialize.h>
#include <torch/version.h>
#include <zlib.h>

namespace torch2onnx {

namespace fs = std::filesystem;

namespace {

std::string read_file(const std::string &path) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw Error(fmt::format("--input-data file '{}' does not exist", path));
  if (fs::is_directory(path, ec))
    throw Error(fmt::format("--input-data '{}' is a directory", path),
                "give a file: .npy or .pb per argument, or one .npz or .pt for all of them");
  std::ifstream f(path, std::ios::binary);
  if (!f)
    throw Error(fmt::format("cannot read --input-data file '{}': {}", path, std::strerror(errno)));
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
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
                          what, descr, why),
              "save it as bool, int8..int64, uint8 or float16/32/64 in little-endian order, e.g. "
              "np.save(path, a.astype(np.float32))");
}

// The value of `key` in the .npy header's Python dict literal.
std::string header_field(const std::string &header, const std::string &key,
                         const std::string &what) {
  std::smatch m;
  std::regex re("'" + key + "'\\s*:\\s*('[^']*'|True|False|\\([^)]*\\))");
  if (!std::regex_search(header, m, re))
    throw Error(fmt::format("{} is not a valid .npy file: its header has no '{}'", what, key));
  return m[1].str();
}

} // namespace

at::Tensor parse_npy(const std::string &bytes, const std::string &what) {
  const auto *p = reinterpret_cast<const unsigned char *>(bytes.data());
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
    throw Error(fmt::format("{} is not a NumPy .npy file", what),
                "write it with np.save(path, array), or give a TensorProto .pb");
  const int major = p[6];
  const size_t len_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + len_bytes)
    throw Error(fmt::format("{} is cut short", what));
  const size_t header_len = le(p + 8, static_cast<int>(len_bytes));
  const size_t data_start = 8 + len_bytes + header_len;
  if (data_start > bytes.size())
    throw Error(fmt::format("{} is cut short (its header says {} bytes)", what, header_len));
  std::string header = bytes.substr(8 + len_bytes, header_len);
  std::string descr = header_field(header, "descr", what);
  auto type = npy_type(descr.substr(1, descr.size() - 2), what);
  bool fortran = header_field(header, "fortran_order", what) == "True";
  std::vector<int64_t> shape;
  std::string dims = header_field(header, "shape", what);
  std::regex num("[0-9]+");
  for (std::sregex_iterator it(dims.begin(), dims.end(), num), end; it != end; ++it) {
    if (it->str().size() > 15)
      throw Error(fmt::format("{} has an absurd dimension {}", what, it->str()));
    shape.push_back(std::stoll(it->str()));
  }
  double numel = 1;
  for (int64_t d : shape)
    numel *= static_cast<double>(d);
  const double need = numel * static_cast<double>(c10::elementSize(type));
  if (need != static_cast<double>(bytes.size() - data_start))
    throw Error(fmt::format("{} is damaged: shape ({}) of {} needs {} bytes of data, it holds {}",
                            what, fmt::join(shape, ", "), descr, need, bytes.size() - data_start));
  std::vector<int64_t> storage_shape(shape);
  if (fortran)
    std::reverse(storage_shape.begin(), storage_shape.end());
  at::Tensor t = at::empty(storage_shape, at::TensorOptions().dtype(type));
  if (t.numel() > 0)
    std::memcpy(t.data_ptr(), bytes.data() + data_start, bytes.size() - data_start);
  if (fortran && shape.size() > 1) {
    std::vector<int64_t> perm;
    for (int64_t i = static_cast<int64_t>(shape.size()) - 1; i >= 0; --i)
      perm.push_back(i);
    t = t.permute(perm).contiguous();
  }
  return t;
}

at::Tensor read_npy(const std::string &path) {
  return parse_npy(read_file(path), fmt::format("'{}'", path));
}

namespace {

// One member of a zip archive, stored or deflated (what np.savez and np.savez_compressed write).
std::string zip_member(const std::string &zip, size_t local, uint32_t method, uint32_t csize,
                       uint32_t usize, const std::string &what) {
  const auto *p = reinterpret_cast<const unsigned char *>(zip.data());
  if (local + 30 > zip.size() || le(p + local, 4) != 0x04034b50)
    throw Error(fmt::format("{} is damaged (a member's header is missing)", what));
  size_t start = local + 30 + le(p + local + 26, 2) + le(p + local + 28, 2);
  if (start + csize > zip.size())
    throw Error(fmt::format("{} is cut short", what));
  if (method == 0)
    return zip.substr(start, csize);
  if (method != 8)
    throw Error(fmt::format("{} uses zip compression method {}", what, method),
                "write it with np.savez or np.savez_compressed");
  std::string out(usize, '\0');
  z_stream z{};
  z.next_in = const_cast<Bytef *>(p + start);
  z.avail_in = csize;
  z.next_out = reinterpret_cast<Bytef *>(out.data());
  z.avail_out = usize;
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK)
    throw Error(fmt::format("cannot inflate {}", what));
  int rc = inflate(&z, Z_FINISH);
  inflateEnd(&z);
  if (rc != Z_STREAM_END || z.total_out != usize)
    throw Error(fmt::format("{} is damaged (a member does not inflate)", what));
  return out;
}

} // namespace

std::vector<std::pair<std::string, at::Tensor>> read_npz(const std::string &path) {
  std::string zip = read_file(path);
  std::string what = fmt::format("'{}'", path);
  const auto *p = reinterpret_cast<const unsigned char *>(zip.data());
  // The end-of-central-directory record: the last 22 bytes, or earlier when a comment follows.
  size_t eocd = std::string::npos;
  for (size_t i = zip.size() >= 22 ? zip.size() - 22 : 0; zip.size() >= 22; --i) {
    if (le(p + i, 4) == 0x06054b50) {
      eocd = i;
      break;
    }
    if (i == 0 || zip.size() - i > 22 + 65535)
      break;
  }
  if (eocd == std::string::npos)
    throw Error(fmt::format("{} is not a NumPy .npz file (not a zip archive)", what),
                "write it with np.savez(path, x=..., mask=...)");
  const uint32_t count = le(p + eocd + 10, 2), dir = le(p + eocd + 16, 4);
  if (count == 0xFFFF || dir == 0xFFFFFFFF)
    throw Error(fmt::format("{} is a zip64 archive (over 4 GB)", what),
                "give one .npy per argument instead");
  std::vector<std::pair<std::string, at::Tensor>> out;
  size_t pos = dir;
  for (uint32_t k = 0; k < count; ++k) {
    if (pos + 46 > zip.size() || le(p + pos, 4) != 0x02014b50)
      throw Error(fmt::format("{} is damaged (its zip directory is cut short)", what));
    const uint32_t method = le(p + pos + 10, 2), csize = le(p + pos + 20, 4),
                   usize = le(p + pos + 24, 4), name_len = le(p + pos + 28, 2);
    const uint32_t extra = le(p + pos + 30, 2), comment = le(p + pos + 32, 2);
    const uint32_t local = le(p + pos + 42, 4);
    std::string name = zip.substr(pos + 46, name_len);
    std::string bytes = zip_member(zip, local, method, csize, usize, what);
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0)
      name.resize(name.size() - 4);
    out.emplace_back(name, parse_npy(bytes, fmt::format("'{}' in {}", name, what)));
    pos += 46 + name_len + extra + comment;
  }
  return out;
}

namespace {

void check_value(const c10::IValue &v, const std::string &what) {
  if (v.isTensor() || v.isNone() || v.isInt() || v.isDouble() || v.isBool())
    return;
  if (v.isTensorList())
    return;
  if (v.isList() || v.isTuple()) {
    auto elems = v.isList() ? v.toListRef().vec() : v.toTupleRef().elements().vec();
    for (const auto &e : elems)
      if (!e.isTensor())
        throw Error(fmt::format("{} holds a {} inside a list or tuple; only tensors can be there",
                                what, e.tagKind()));
    return;
  }
  throw Error(fmt::format("{} is a {}, which is not a forward argument torch2onnx can give", what,
                          v.tagKind()),
              "give tensors, lists or tuples of tensors, None or numbers");
}

std::vector<std::optional<c10::IValue>> from_torch_save(const std::string &path,
                                                        const std::vector<std::string> &names) {
  std::string bytes = read_file(path);
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
    throw Error(fmt::format("cannot read --input-data '{}' as a torch.save file: {}", path, why),
                "save the example with torch.save((x, mask), path), or one .npy per argument");
  }
  std::vector<std::optional<c10::IValue>> out(names.size());
  auto put = [&](size_t i, const c10::IValue &x, const std::string &what) {
    if (i >= names.size())
      throw Error(fmt::format("--input-data '{}' holds {} values but forward takes {} argument{}",
                              path, i + 1, names.size(), names.size() == 1 ? "" : "s"));
    check_value(x, what);
    out[i] = x;
  };
  if (v.isTensor()) {
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
                                path, key, fmt::join(names, ", ")));
      put(static_cast<size_t>(it - names.begin()), kv.value(), fmt::format("'{}'", key));
    }
  } else if (v.isList() || v.isTuple() || v.isTensorList()) {
    auto elems = v.isTuple() ? v.toTupleRef().elements().vec() : v.toListRef().vec();
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
                              path, name, fmt::join(names, ", ")),
                  "name the arrays after forward's arguments (np.savez(path, x=..., mask=...)) "
                  "or give them in order (np.savez(path, x, mask))");
    }
    if (index >= names.size())
      throw Error(fmt::format("--input-data '{}' has an array '{}' but forward takes {} "
                              "argument{}",
                              path, name, names.size(), names.size() == 1 ? "" : "s"));
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
      out[i] = from_tensor_data(load_tensor_proto(f));
    else
      throw Error(fmt::format("--input-data '{}': unknown file type '{}'", f, ext),
                  "give .npy or .pb (one per argument), or one .npz or .pt for all arguments");
  }
  return out;
}

} // namespace torch2onnx
