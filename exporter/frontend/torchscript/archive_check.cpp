#include "exporter/frontend/torchscript/archive_check.h"

#include "builder/error.h"
#include "builder/file_io.h"
#include "exporter/frontend/crc32.h"
#include "exporter/frontend/pickle_check.h"
#include "exporter/frontend/torchscript/pickle_tensors.h"

#include <algorithm>
#include <array>
#include <caffe2/serialize/inline_container.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <optional>

namespace torch2onnx {

namespace {

using Reader = std::unique_ptr<caffe2::serialize::PyTorchStreamReader>;

using RecordSizes = std::map<std::string, uint64_t>;
std::vector<PendingCrc> check_zip_crcs(const std::string &path, Reader &reader, RecordSizes &sizes);
void check_pickles(const std::string &path, Reader &reader, const RecordSizes &sizes);

} // namespace

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
  check_regular_file(path, "model file"); // a FIFO or a pipe (/dev/stdin) would block or not end
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
  RecordSizes sizes;
  std::vector<PendingCrc> pending = check_zip_crcs(path, reader, sizes);
  check_pickles(path, reader, sizes);
  return pending;
}

namespace {

uint32_t le(const unsigned char *p, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}

// LibTorch 1.13 does not check the CRC-32 of the records it reads, and its TorchScript parser can
// crash on corrupted code (found by tests/fuzz). Check every stored record's CRC first, so a
// damaged file is reported as damaged. Deflated records over 64 MB, and zip64 records other than
// stored weights, are left to LibTorch.
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
bool crc_of_range(std::ifstream &f, int64_t offset, uint64_t size, std::vector<unsigned char> &buf,
                  uint32_t &crc) {
  f.clear();
  f.seekg(offset);
  uint32_t c = 0;
  for (uint64_t left = size; left > 0;) {
    const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(left, buf.size()));
    if (!f.read(reinterpret_cast<char *>(buf.data()), n))
      return false;
    c = crc32_update(c, buf.data(), n);
    left -= n;
  }
  crc = c;
  return true;
}

} // namespace

Error corrupt_record(const std::string &path, const std::string &name) {
  return Error(fmt::format("'{}' is corrupt: the record '{}' fails its checksum", path, name),
               "the file was damaged after it was saved; copy or save it again");
}

namespace {

// Where the bytes of the record whose local header is at `local` begin (after the header's name and
// extra field); false when no local header is there.
bool record_data_offset(std::ifstream &f, uint64_t local, uint64_t &data) {
  unsigned char lh[30];
  f.clear();
  f.seekg(static_cast<std::streamoff>(local));
  if (!f.read(reinterpret_cast<char *>(lh), 30) || le(lh, 4) != 0x04034b50u)
    return false;
  data = local + 30 + le(lh + 26, 2) + le(lh + 28, 2);
  return true;
}

// Where a zip64 central-directory entry `h`'s stored bytes are: its 64-bit sizes and local header
// offset come from the zip64 extra field (id 1: only the fields whose 32-bit value is 0xFFFFFFFF,
// in the order uncompressed size, compressed size, offset). False when that does not add up.
bool zip64_record(std::ifstream &f, int64_t file_size, const unsigned char *h,
                  const unsigned char *extra, size_t extra_len, ArchiveRecord &r) {
  uint64_t usize = le(h + 24, 4), csize = le(h + 20, 4), local = le(h + 42, 4);
  for (size_t at = 0; at + 4 <= extra_len;) {
    const uint32_t id = le(extra + at, 2), len = le(extra + at + 2, 2);
    if (at + 4 + len > extra_len)
      return false;
    if (id == 1) {
      const unsigned char *v = extra + at + 4;
      size_t k = 0;
      auto next = [&](uint64_t &field) {
        if (field != 0xFFFFFFFFu)
          return true;
        if ((k + 1) * 8 > len)
          return false;
        field = le(v + k * 8, 4) | uint64_t{le(v + k * 8 + 4, 4)} << 32;
        ++k;
        return true;
      };
      if (!next(usize) || !next(csize) || !next(local))
        return false;
      break;
    }
    at += 4 + len;
  }
  if (usize != csize || local == 0xFFFFFFFFu || csize == 0xFFFFFFFFu ||
      local + 30 > static_cast<uint64_t>(file_size))
    return false;
  if (!record_data_offset(f, local, r.offset))
    return false;
  r.size = csize;
  return r.offset <= static_cast<uint64_t>(file_size) &&
         r.size <= static_cast<uint64_t>(file_size) - r.offset;
}

// Two records sharing bytes, or one local header, are no archive PyTorch writes, and LibTorch's
// mapped load aborts on them (issue 26): refused before LibTorch opens the archive. Each record
// spans [its local header, the end of its data); zip64 records (sizes in the extra field) are
// left out.
void check_record_overlap(const std::string &path, std::ifstream &f,
                          const std::vector<unsigned char> &cd, uint64_t entries) {
  std::vector<std::pair<uint64_t, std::string>> headers;
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  size_t pos = 0;
  for (uint64_t e = 0; e < entries && pos + 46 <= cd.size(); ++e) {
    const unsigned char *h = &cd[pos];
    if (le(h, 4) != 0x02014b50u)
      return;
    const uint32_t csize = le(h + 20, 4), name_len = le(h + 28, 2), local = le(h + 42, 4);
    if (pos + 46 + name_len > cd.size())
      return;
    std::string name(reinterpret_cast<const char *>(h + 46), name_len);
    pos += 46 + name_len + le(h + 30, 2) + le(h + 32, 2);
    if (local == 0xFFFFFFFFu)
      continue;
    for (const auto &[at, other] : headers)
      if (at == local)
        throw Error(fmt::format("'{}' is corrupt: the records '{}' and '{}' point at the same "
                                "bytes",
                                path, other, name),
                    "the file was damaged after it was saved; copy or save it again");
    headers.emplace_back(local, name);
    uint64_t data = 0;
    if (csize != 0xFFFFFFFFu && record_data_offset(f, local, data))
      spans.emplace_back(local, data + csize);
  }
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i)
    if (spans[i].first < spans[i - 1].second)
      throw Error(fmt::format("'{}' is corrupt: two of its records overlap", path),
                  "the file was damaged after it was saved; copy or save it again");
}

// Where the central directory lies and how many entries it has.
struct CentralDirectory {
  uint64_t entries = 0, size = 0, offset = 0;
};

// The central directory's place from the end-of-central-directory record, or from the zip64 end
// record that replaces it; nullopt when there is none (LibTorch reports the file as cut short) or
// the zip64 record is broken (LibTorch reports that too).
std::optional<CentralDirectory> find_central_directory(std::ifstream &f, int64_t size) {
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
    return std::nullopt;
  CentralDirectory cd{le(&end[eocd + 10], 2), le(&end[eocd + 12], 4), le(&end[eocd + 16], 4)};
  // PyTorch also writes a zip64 end record, and when its locator is there LibTorch's reader
  // (miniz) takes the central directory's place and size from it alone, ignoring the fields
  // above: do the same, or a file whose 32-bit fields are damaged skips this check (tests/fuzz).
  if (eocd >= 20 && le(&end[eocd - 20], 4) == 0x07064b50u) {
    const uint64_t z64 = le(&end[eocd - 12], 4) | uint64_t{le(&end[eocd - 8], 4)} << 32;
    unsigned char r[56];
    if (z64 > static_cast<uint64_t>(size))
      return std::nullopt;
    f.seekg(static_cast<std::streamoff>(z64));
    if (!f.read(reinterpret_cast<char *>(r), 56) || le(r, 4) != 0x06064b50u)
      return std::nullopt;
    cd.entries = le(r + 32, 4) | uint64_t{le(r + 36, 4)} << 32;
    cd.size = le(r + 40, 4) | uint64_t{le(r + 44, 4)} << 32;
    cd.offset = le(r + 48, 4) | uint64_t{le(r + 52, 4)} << 32;
  }
  return cd;
}

// The central directory's bytes; false when they lie outside the file or cannot be read.
bool read_central_directory(std::ifstream &f, int64_t size, const CentralDirectory &where,
                            std::vector<unsigned char> &cd) {
  if (where.offset == 0xFFFFFFFFu || where.size > static_cast<uint64_t>(size) ||
      where.offset > static_cast<uint64_t>(size) - where.size)
    return false;
  cd.resize(static_cast<size_t>(where.size));
  f.seekg(static_cast<std::streamoff>(where.offset));
  return static_cast<bool>(
      f.read(reinterpret_cast<char *>(cd.data()), static_cast<std::streamsize>(where.size)));
}

// LibTorch allocates a record's stated size before reading it: a damaged size field would ask for
// gigabytes (found by tests/fuzz). Stored records are as long as their data, and deflate expands
// at most 1032:1.
void check_stated_size(const std::string &path, const std::string &name, uint32_t method,
                       uint32_t usize, uint32_t csize) {
  if (usize != 0xFFFFFFFFu &&
      (method == 0 ? usize != csize : usize > uint64_t{csize} * 1032 + 1024))
    throw Error(fmt::format("'{}' is corrupt: the record '{}' claims {} bytes from {} stored", path,
                            name, usize, csize),
                "the file was damaged after it was saved; copy or save it again");
}

// Checks a compressed record (the code records) once LibTorch's reader has inflated it; false
// when the reader cannot open the archive (the remaining checks are then left to LibTorch).
bool check_deflated_record(const std::string &path, Reader &reader, const std::string &name,
                           uint32_t csize, uint32_t crc) {
  auto slash = name.find('/');
  if (slash == std::string::npos || csize > (64u << 20))
    return true;
  if (!open_reader(path, reader))
    return false;
  uint32_t c = 0;
  try {
    auto [ptr, n] = reader->getRecord(name.substr(slash + 1));
    c = crc32_update(0, static_cast<const unsigned char *>(ptr.get()), n);
  } catch (const std::exception &) {
    c = ~crc; // it does not even inflate
  }
  if (c != crc)
    throw corrupt_record(path, name);
  return true;
}

// Checks a stored record's CRC now, or queues it in `pending` when it holds tensor data.
void check_stored_record(const std::string &path, std::ifstream &f, int64_t size,
                         const std::string &name, uint32_t local, uint32_t csize, uint32_t crc,
                         std::vector<unsigned char> &buf, std::vector<PendingCrc> &pending) {
  uint64_t offset = 0;
  if (!record_data_offset(f, local, offset))
    return;
  const int64_t data = static_cast<int64_t>(offset);
  if (data + csize > size)
    return;
  if (name.find("/data/") != std::string::npos) {
    pending.push_back({name, data, csize, crc});
    return;
  }
  uint32_t c = 0;
  if (crc_of_range(f, data, csize, buf, c) && c != crc)
    throw corrupt_record(path, name);
}

// Tensor data records ("<archive>/data/<n>") are only copied into storages, never parsed, so
// their checksums need not be known before torch::jit::load starts: they are returned to be
// checked on another thread while the model loads, is recorded and converted (load_model).
std::vector<PendingCrc> check_zip_crcs(const std::string &path, Reader &reader,
                                       RecordSizes &sizes) {
  std::vector<PendingCrc> pending;
  std::ifstream f(path, std::ios::binary);
  f.seekg(0, std::ios::end);
  const int64_t size = f.tellg();
  std::optional<CentralDirectory> where = find_central_directory(f, size);
  std::vector<unsigned char> cd;
  if (!where || !read_central_directory(f, size, *where, cd))
    return pending;
  const uint64_t entries = where->entries;
  std::vector<unsigned char> buf(1 << 16);
  check_record_overlap(path, f, cd, entries);
  size_t pos = 0;
  for (uint64_t e = 0; e < entries && pos + 46 <= cd.size(); ++e) {
    const unsigned char *h = &cd[pos];
    if (le(h, 4) != 0x02014b50u)
      return pending;
    const uint32_t method = le(h + 10, 2), crc = le(h + 16, 4), csize = le(h + 20, 4);
    const uint32_t name_len = le(h + 28, 2), extra_len = le(h + 30, 2), comment_len = le(h + 32, 2);
    const uint32_t local = le(h + 42, 4), usize = le(h + 24, 4);
    if (pos + 46 + name_len > cd.size())
      return pending;
    std::string name(reinterpret_cast<const char *>(h + 46), name_len);
    sizes[name] = usize;
    const unsigned char *extra = h + 46 + name_len;
    const size_t extra_avail = std::min<size_t>(extra_len, cd.size() - (pos + 46 + name_len));
    pos += 46 + name_len + extra_len + comment_len;
    if (csize == 0xFFFFFFFFu || local == 0xFFFFFFFFu) {
      // zip64 (a record past 4 GB of the file, or over 4 GB): stored weights only.
      ArchiveRecord r;
      if (method == 0 && name.find("/data/") != std::string::npos &&
          zip64_record(f, size, h, extra, extra_avail, r)) {
        pending.push_back({name, static_cast<int64_t>(r.offset), r.size, crc});
        sizes[name] = r.size;
      }
      continue;
    }
    check_stated_size(path, name, method, usize, csize);
    if (method != 0) {
      if (!check_deflated_record(path, reader, name, csize, crc))
        return pending;
      continue;
    }
    check_stored_record(path, f, size, name, local, csize, crc, buf, pending);
  }
  return pending;
}

} // namespace

// The first of `pending` whose bytes fail their checksum; "" when all pass (or cannot be read:
// LibTorch reports a short file itself). Reads the mapped file when there is one.
std::string check_pending_crcs(const std::string &path, std::vector<PendingCrc> pending,
                               const std::shared_ptr<FileMapping> &mapping) {
  if (mapping) {
    const auto *base = reinterpret_cast<const unsigned char *>(mapping->data());
    for (const PendingCrc &p : pending)
      if (static_cast<uint64_t>(p.data) + p.size <= mapping->size() &&
          crc32_update(0, base + p.data, p.size) != p.crc)
        return p.name;
    return "";
  }
  std::ifstream f(path, std::ios::binary);
  std::vector<unsigned char> buf(1 << 20);
  for (const PendingCrc &p : pending) {
    uint32_t c = 0;
    if (crc_of_range(f, p.data, p.size, buf, c) && c != p.crc)
      return p.name;
  }
  return "";
}

namespace {

// See exporter/pickle_check.h: a pickle record whose stated string length is impossible makes
// LibTorch allocate up to 4 GB before it notices the file is damaged.
void check_pickles(const std::string &path, Reader &reader, const RecordSizes &sizes) {
  if (!open_reader(path, reader))
    return;
  std::vector<std::string> names;
  try {
    names = reader->getAllRecords();
  } catch (const std::exception &) {
    return; // torch::jit::load explains what is wrong with the archive
  }
  RecordSizes inside; // by the name within the archive's top folder, as getAllRecords gives it
  for (const auto &[full, size] : sizes) {
    const size_t slash = full.find('/');
    if (slash != std::string::npos)
      inside.emplace(full.substr(slash + 1), size);
  }
  for (const std::string &name : names) {
    const bool pickle = name.size() > 3 && name.compare(name.size() - 3, 3, "pkl") == 0;
    if (!pickle)
      continue;
    std::string problem;
    try {
      auto [ptr, n] = reader->getRecord(name);
      const auto *bytes = static_cast<const unsigned char *>(ptr.get());
      problem = pickle_length_problem(bytes, n);
      // data.pkl's tensors are in data/, constants.pkl's in constants/ (names without the
      // archive's top folder, as getAllRecords gives them).
      const bool tensors = name.find('/') == std::string::npos;
      if (problem.empty() && tensors) {
        const std::string dir = name.substr(0, name.size() - 4) + "/";
        problem = pickle_tensor_problem(bytes, n, [&](const std::string &key) {
          auto it = inside.find(dir + key);
          return it == inside.end() ? std::optional<uint64_t>() : std::optional(it->second);
        });
      }
    } catch (const std::exception &) {
      continue;
    }
    if (!problem.empty())
      throw Error(
          fmt::format("'{}' is corrupt: in the pickle record '{}', {}", path, name, problem),
          "the file was damaged after it was saved; copy or save it again");
  }
}

} // namespace

} // namespace torch2onnx
