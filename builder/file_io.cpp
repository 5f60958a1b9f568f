#include "builder/file_io.h"

#include "builder/error.h"
#include "builder/process.h"
#include "builder/progress.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
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

int repeated_singular_field(const char *bytes, size_t size, const std::vector<int> &singular) {
  const auto *p = reinterpret_cast<const unsigned char *>(bytes);
  size_t i = 0;
  auto varint = [&](uint64_t &v) {
    v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (i >= size)
        return false;
      const unsigned char b = p[i++];
      v |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80))
        return true;
    }
    return false;
  };
  std::vector<int> seen;
  while (i < size) {
    uint64_t tag = 0, len = 0;
    if (!varint(tag))
      return -1;
    const int field = static_cast<int>(tag >> 3);
    switch (tag & 7) {
    case 0:
      if (!varint(len))
        return -1;
      break;
    case 1:
    case 5: {
      const size_t n = (tag & 7) == 1 ? 8 : 4;
      if (size - i < n)
        return -1;
      i += n;
      break;
    }
    case 2:
      if (!varint(len) || len > size - i)
        return -1;
      i += static_cast<size_t>(len);
      break;
    default:
      return -1; // groups (3, 4) are not in ONNX's messages; 6, 7 do not exist
    }
    if (std::find(singular.begin(), singular.end(), field) != singular.end()) {
      if (std::find(seen.begin(), seen.end(), field) != seen.end())
        return field;
      seen.push_back(field);
    }
  }
  return 0;
}

TensorData load_tensor_proto(const std::string &path) {
  std::string bytes = read_regular_file(path, "TensorProto file");
  // data_type, segment, name, raw_data, doc_string, data_location (onnx.proto's TensorProto)
  static const std::vector<int> kSingular = {2, 3, 8, 9, 12, 14};
  const int twice = repeated_singular_field(bytes.data(), bytes.size(), kSingular);
  onnx::TensorProto p;
  if (twice < 0 || !p.ParseFromString(bytes))
    throw Error(fmt::format("'{}' is not an ONNX TensorProto (.pb) file", path),
                "give a file --verify wrote (test_data_set_N/input_K.pb), or a .npy");
  if (twice > 0)
    throw Error(
        fmt::format("'{}' is damaged: it gives the TensorProto field {} twice", path, twice),
        "write it with onnx.numpy_helper.from_array, or give a .npy");
  if (p.data_location() == onnx::TensorProto::EXTERNAL)
    throw Error(fmt::format("'{}' keeps its data in an external file", path),
                "save the tensor with its data inside (raw_data), or as a .npy");
  TensorData d;
  d.dtype = static_cast<DType>(p.data_type());
  if (dtype_size(d.dtype) == 0)
    throw Error(fmt::format("'{}' holds element type {}, which is not a number type", path,
                            static_cast<int>(p.data_type())));
  if (static_cast<size_t>(p.dims_size()) > kMaxRank)
    throw Error(fmt::format("'{}' has {} dims; torch2onnx takes at most {}", path, p.dims_size(),
                            kMaxRank));
  for (int64_t v : p.dims()) {
    if (v < 0)
      throw Error(fmt::format("'{}' has a negative dimension ({})", path, v));
    d.dims.push_back(v);
  }
  int64_t expected = 0;
  if (!checked_nbytes(d.dims, dtype_size(d.dtype), expected))
    throw Error(fmt::format("'{}' is damaged: shape [{}] of {} is larger than any memory (over "
                            "2^63 bytes)",
                            path, fmt::join(d.dims, ","), dtype_name(d.dtype)));
  // The data is in the file (typed fields take at most 8 bytes per byte of the file): a shape
  // needing more than it holds is refused before a tensor of that shape is made.
  if (p.has_raw_data())
    d.raw = p.raw_data();
  else
    typed_fields_to_raw(p, d);
  if (d.raw.size() != static_cast<uint64_t>(expected))
    throw Error(fmt::format("'{}' is damaged: shape [{}] of {} needs {} bytes of data, it holds {}",
                            path, fmt::join(d.dims, ","), dtype_name(d.dtype), expected,
                            d.raw.size()));
  if (d.dtype == DType::Bool)
    for (char &c : d.raw)
      c = c != 0 ? 1 : 0; // ONNX Runtime and LibTorch read any other byte differently
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

bool write_all_reporting(int fd, const char *p, size_t n) {
  while (n > 0) {
    size_t piece = std::min<size_t>(n, kByteStep);
    if (!write_all(fd, p, piece))
      return false;
    progress_advance(piece);
    p += piece;
    n -= piece;
  }
  return true;
}

void write_file_atomic(const std::string &path, const std::string &bytes) {
  write_file_atomic_with(path, [&](int fd) { return write_all(fd, bytes.data(), bytes.size()); });
}

void write_file_atomic_with(const std::string &given, const std::function<bool(int fd)> &write) {
  namespace fs = std::filesystem;
  const std::string path = written_file(given);
  fs::path target(path);
  fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  T2O_CHECK(fs::is_directory(dir), "output folder '{}' does not exist", dir.string());
  // At most 32 bytes of the name: ".<name>.tmpXXXXXX" must stay legal for a name of 255 bytes.
  std::string tmpl =
      (dir / fmt::format(".{}.tmpXXXXXX", target.filename().string().substr(0, 32))).string();
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

namespace {

namespace fs = std::filesystem;

// What a path that is not a regular file is, for the message.
std::string file_kind(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISFIFO(mode))
    return "a pipe (FIFO)";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a regular file";
}

[[noreturn]] void not_regular(const std::string &path, const std::string &role, mode_t mode) {
  if (S_ISDIR(mode))
    throw Error(fmt::format("{} '{}' is a directory", role, path), "give a file");
  throw Error(fmt::format("{} '{}' is {}, not a regular file", role, path, file_kind(mode)),
              "torch2onnx reads regular files only (a pipe or device could block or never end); "
              "save the data to a file first");
}

[[noreturn]] void cannot_open(const std::string &path, const std::string &role, int err) {
  if (err == ENOENT)
    throw Error(fmt::format("{} '{}' does not exist", role, path), "check the path");
  throw Error(fmt::format("cannot open {} '{}': {}", role, path, std::strerror(err)));
}

} // namespace

std::string written_file(const std::string &path) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0)
      return p; // a new file
    if (!S_ISLNK(st.st_mode)) {
      if (!S_ISREG(st.st_mode))
        throw Error(fmt::format("'{}' is {}; torch2onnx writes regular files only", path,
                                file_kind(st.st_mode)),
                    "give the path of a file to write");
      return p;
    }
    std::error_code ec;
    fs::path link = fs::read_symlink(p, ec);
    if (ec)
      break;
    p = (link.is_absolute() ? link : fs::path(p).parent_path() / link).string();
  }
  throw Error(fmt::format("'{}' is a symbolic link that does not lead to a file", path),
              "give the path of a file to write");
}

void check_regular_file(const std::string &path, const std::string &role) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    cannot_open(path, role, errno);
  if (!S_ISREG(st.st_mode))
    not_regular(path, role, st.st_mode);
}

int open_regular_file(const std::string &path, const std::string &role, uint64_t &size) {
  check_regular_file(path, role); // before open: opening a FIFO or a device has effects
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    cannot_open(path, role, errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    not_regular(path, role, st.st_mode);
  }
  size = static_cast<uint64_t>(st.st_size);
  return fd;
}

std::string read_regular_file(const std::string &path, const std::string &role,
                              uint64_t max_bytes) {
  uint64_t size = 0;
  int fd = open_regular_file(path, role, size);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  if (size > max_bytes)
    throw Error(fmt::format("{} '{}' is {} bytes, more than the {} torch2onnx reads", role, path,
                            size, max_bytes));
  std::string bytes(static_cast<size_t>(size), '\0');
  size_t got = 0;
  while (got < bytes.size()) {
    ssize_t n = ::read(fd, bytes.data() + got, std::min<size_t>(bytes.size() - got, 1 << 30));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      throw Error(fmt::format("cannot read {} '{}': {}", role, path, std::strerror(errno)));
    if (n == 0)
      throw Error(fmt::format("{} '{}' shrank while it was being read", role, path),
                  "do not change the file while torch2onnx runs");
    got += static_cast<size_t>(n);
  }
  return bytes;
}

namespace {

std::string machine_name(unsigned machine) {
  switch (machine) {
  case EM_386:
    return "x86 (32-bit)";
  case EM_X86_64:
    return "x86-64";
  case EM_ARM:
    return "ARM (32-bit)";
  case EM_AARCH64:
    return "aarch64";
  case EM_RISCV:
    return "RISC-V";
  case EM_PPC64:
    return "ppc64";
  case EM_S390:
    return "s390x";
  case EM_MIPS:
    return "MIPS";
  default:
    return fmt::format("ELF machine {}", machine);
  }
}

} // namespace

void check_shared_library(const std::string &path, const std::string &role) {
  uint64_t size = 0;
  int fd = open_regular_file(path, role, size);
  unsigned char h[20] = {};
  ssize_t n = ::read(fd, h, sizeof(h));
  ::close(fd);
  if (n < static_cast<ssize_t>(sizeof(h)) || std::memcmp(h, ELFMAG, SELFMAG) != 0)
    return; // not ELF: dlopen says so ("invalid ELF header")
#if defined(__x86_64__)
  const unsigned host = EM_X86_64;
#elif defined(__aarch64__)
  const unsigned host = EM_AARCH64;
#elif defined(__i386__)
  const unsigned host = EM_386;
#else
  const unsigned host = 0; // unknown here: leave it to dlopen
#endif
  const bool little = h[EI_DATA] == ELFDATA2LSB;
  const unsigned machine = little ? h[18] | (h[19] << 8) : (h[18] << 8) | h[19];
  const unsigned bits = h[EI_CLASS] == ELFCLASS64 ? 64 : 32;
  if (host != 0 && (machine != host || bits != sizeof(void *) * 8))
    throw Error(fmt::format("{} '{}' is built for {} ({}-bit), but this torch2onnx runs on {}",
                            role, path, machine_name(machine), bits, machine_name(host)),
                "build the library for this machine (or run torch2onnx where it was built)");
}

namespace {

// The absolute form of `p` with the symbolic links of its existing part resolved.
fs::path resolved(const std::string &p) {
  std::error_code ec;
  fs::path r = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return ec ? fs::absolute(p).lexically_normal() : r;
}

bool same_file(const std::string &a, const std::string &b) {
  struct stat x {
  }, y{};
  if (::stat(a.c_str(), &x) == 0 && ::stat(b.c_str(), &y) == 0)
    return x.st_dev == y.st_dev && x.st_ino == y.st_ino;
  return resolved(a) == resolved(b);
}

bool inside(const std::string &path, const std::string &folder) {
  fs::path p = resolved(path), f = resolved(folder);
  auto [fi, pi] = std::mismatch(f.begin(), f.end(), p.begin(), p.end());
  return fi == f.end() && pi != p.end();
}

std::string described(const PathUse &u) {
  return fmt::format("{} '{}'", u.role, u.path);
}

} // namespace

void check_path_conflicts(const std::vector<PathUse> &reads, const std::vector<PathUse> &writes) {
  const char *kHint = "give every file written a path of its own, away from the files read (e.g. "
                      "another -o or --report path)";
  for (size_t w = 0; w < writes.size(); ++w) {
    const PathUse &out = writes[w];
    // A file is written by a rename over its path: over /dev/null or /dev/stdout (as root) that
    // would replace the device with a file.
    struct stat st {};
    if (!out.folder && ::stat(out.path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
      throw Error(fmt::format("{} is {}; torch2onnx writes regular files only", described(out),
                              file_kind(st.st_mode)),
                  S_ISDIR(st.st_mode) ? "give a file name" : "give the path of a file to write");
    for (const PathUse &in : reads) {
      if (!out.folder && same_file(in.path, out.path))
        throw Error(fmt::format("{} is {}: torch2onnx never writes over a file it reads",
                                described(out), described(in)),
                    kHint);
      if (out.folder && inside(in.path, out.path))
        throw Error(
            fmt::format("{} is inside {}, which --verify replaces", described(in), described(out)),
            "move it out of that folder, or choose another -o path");
    }
    for (size_t k = 0; k < writes.size(); ++k) {
      const PathUse &other = writes[k];
      if (k != w && !out.folder && !other.folder && k > w && same_file(out.path, other.path))
        throw Error(fmt::format("{} and {} are the same file", described(out), described(other)),
                    kHint);
      if (k != w && other.folder && !out.folder && inside(out.path, other.path))
        throw Error(fmt::format("{} is inside {}, which --verify replaces", described(out),
                                described(other)),
                    "choose a path outside that folder");
    }
  }
}

} // namespace torch2onnx
