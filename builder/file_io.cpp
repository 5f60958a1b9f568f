#include "builder/file_io.h"

#include "builder/error.h"
#include "builder/process.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <iterator>
#include <onnx/onnx_pb.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace torch2onnx {

namespace {
// The elements of a TensorProto stored in its typed fields instead of raw_data, as bytes.
template <typename Out, typename Field> void append_field(std::string &raw, const Field &field) {
  for (const auto &v : field) {
    Out x = static_cast<Out>(v);
    raw.append(reinterpret_cast<const char *>(&x), sizeof(Out));
  }
}

void typed_fields_to_raw(const onnx::TensorProto &p, TensorData &d) {
  switch (d.dtype) {
  case DType::Float:
    append_field<float>(d.raw, p.float_data());
    break;
  case DType::Double:
    append_field<double>(d.raw, p.double_data());
    break;
  case DType::Int64:
    append_field<int64_t>(d.raw, p.int64_data());
    break;
  case DType::Int32:
    append_field<int32_t>(d.raw, p.int32_data());
    break;
  case DType::Int16:
    append_field<int16_t>(d.raw, p.int32_data());
    break;
  case DType::Int8:
    append_field<int8_t>(d.raw, p.int32_data());
    break;
  case DType::UInt8:
  case DType::Bool:
    append_field<uint8_t>(d.raw, p.int32_data());
    break;
  case DType::Float16:
  case DType::BFloat16:
    append_field<uint16_t>(d.raw, p.int32_data()); // the 16 bits, one per int32
    break;
  default:
    throw Error(fmt::format("tensor '{}' has element type {}, which torch2onnx cannot read",
                            p.name(), static_cast<int>(d.dtype)));
  }
}
} // namespace

TensorData load_tensor_proto(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    throw Error(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  onnx::TensorProto p;
  if (!p.ParseFromString(bytes))
    throw Error(fmt::format("'{}' is not an ONNX TensorProto (.pb) file", path),
                "give a file --verify wrote (test_data_set_N/input_K.pb), or a .npy");
  if (p.data_location() == onnx::TensorProto::EXTERNAL)
    throw Error(fmt::format("'{}' keeps its data in an external file", path),
                "save the tensor with its data inside (raw_data), or as a .npy");
  TensorData d;
  d.dtype = static_cast<DType>(p.data_type());
  if (dtype_size(d.dtype) == 0)
    throw Error(fmt::format("'{}' holds element type {}, which is not a number type", path,
                            static_cast<int>(p.data_type())));
  for (int64_t v : p.dims()) {
    if (v < 0)
      throw Error(fmt::format("'{}' has a negative dimension ({})", path, v));
    d.dims.push_back(v);
  }
  if (p.has_raw_data())
    d.raw = p.raw_data();
  else
    typed_fields_to_raw(p, d);
  const double expected = static_cast<double>(d.numel()) * dtype_size(d.dtype);
  if (static_cast<double>(d.raw.size()) != expected)
    throw Error(fmt::format("'{}' is damaged: shape [{}] needs {} bytes of data, it holds {}", path,
                            fmt::join(d.dims, ","), expected, d.raw.size()));
  return d;
}

bool write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, std::min<size_t>(n, size_t{1} << 30));
    if (w < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

void write_file_atomic(const std::string &path, const std::string &bytes) {
  write_file_atomic_with(path, [&](int fd) { return write_all(fd, bytes.data(), bytes.size()); });
}

void write_file_atomic_with(const std::string &path, const std::function<bool(int fd)> &write) {
  namespace fs = std::filesystem;
  fs::path target(path);
  fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  T2O_CHECK(fs::is_directory(dir), "output folder '{}' does not exist", dir.string());
  std::string tmpl = (dir / fmt::format(".{}.tmpXXXXXX", target.filename().string())).string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  int fd = mkstemp(buf.data());
  T2O_CHECK(fd >= 0, "cannot create a file in '{}': {}", dir.string(), std::strerror(errno));
  std::string tmp(buf.data());
  TempFileGuard remove_on_signal(tmp); // SIGINT/SIGTERM while writing leaves no partial file
  auto fail = [&](const std::string &what) {
    int err = errno;
    ::close(fd);
    std::remove(tmp.c_str());
    throw Error(fmt::format("cannot write '{}': {} ({})", path, what, std::strerror(err)));
  };
  errno = 0;
  if (!write(fd))
    fail("write failed");
  if (::fsync(fd) != 0)
    fail("fsync failed");
  ::fchmod(fd, 0644);
  if (::close(fd) != 0) {
    std::remove(tmp.c_str());
    throw Error(fmt::format("cannot write '{}': close failed ({})", path, std::strerror(errno)));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    throw Error(fmt::format("cannot write '{}': rename failed ({})", path, std::strerror(err)));
  }
}

} // namespace torch2onnx
