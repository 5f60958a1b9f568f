#include "exporter/frontend/zip_reader.h"

#include "builder/error.h"
#include "builder/printable.h"

#include <algorithm>
#include <set>
#include <zlib.h>

namespace torch2onnx {

namespace {

uint32_t le(const unsigned char *p, int n) {
  uint32_t v = 0;
  for (int i = n - 1; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}

constexpr uint32_t kLocal = 0x04034b50, kCentral = 0x02014b50, kEnd = 0x06054b50;

Error damaged(const std::string &what, const std::string &why) {
  return Error(fmt::format("{} is damaged: {}", what, why),
               "write it again (np.savez / torch.save), or give one .npy per argument");
}

} // namespace

std::vector<ZipMember> zip_members(const std::string &zip, const std::string &what) {
  const auto *p = reinterpret_cast<const unsigned char *>(zip.data());
  // The end-of-central-directory record: the last 22 bytes, or earlier when a comment follows.
  size_t eocd = std::string::npos;
  if (zip.size() >= 22)
    for (size_t i = zip.size() - 22;; --i) {
      if (le(p + i, 4) == kEnd) {
        eocd = i;
        break;
      }
      if (i == 0 || zip.size() - i > 22 + 65535)
        break;
    }
  if (eocd == std::string::npos)
    throw Error(fmt::format("{} is not a zip archive", what));
  const uint32_t count = le(p + eocd + 10, 2), dir = le(p + eocd + 16, 4);
  if (count == 0xFFFF || dir == 0xFFFFFFFF)
    throw Error(fmt::format("{} is a zip64 archive (over 4 GB)", what),
                "give one .npy per argument instead");
  std::vector<ZipMember> out;
  std::set<std::string> names;
  std::vector<std::pair<uint64_t, uint64_t>> spans; // [local header, end of data)
  size_t pos = dir;
  for (uint32_t k = 0; k < count; ++k) {
    if (pos > zip.size() || zip.size() - pos < 46 || le(p + pos, 4) != kCentral)
      throw damaged(what, "its zip directory is cut short");
    const unsigned char *h = p + pos;
    ZipMember m;
    const uint32_t flags = le(h + 8, 2), name_len = le(h + 28, 2), extra = le(h + 30, 2),
                   comment = le(h + 32, 2), local = le(h + 42, 4);
    m.method = le(h + 10, 2);
    m.compressed = le(h + 20, 4);
    m.size = le(h + 24, 4);
    if (zip.size() - pos - 46 < name_len)
      throw damaged(what, "its zip directory is cut short");
    m.name.assign(zip, pos + 46, name_len);
    if (!names.insert(m.name).second)
      throw damaged(what, fmt::format("it holds two records named '{}'", printable(m.name)));
    if (flags & 1)
      throw Error(fmt::format("{} is encrypted", what));
    if (m.method != 0 && m.method != 8)
      throw Error(fmt::format("{} uses zip compression method {}", what, m.method),
                  "write it with np.savez or np.savez_compressed");
    if (m.compressed == 0xFFFFFFFF || m.size == 0xFFFFFFFF || local == 0xFFFFFFFF)
      throw Error(fmt::format("{} has a zip64 record (over 4 GB)", what),
                  "give one .npy per argument instead");
    // Stored records are as long as their data; deflate expands at most 1032:1.
    if (m.method == 0 ? m.size != m.compressed : m.size > m.compressed * 1032 + 1024)
      throw damaged(what, fmt::format("the record '{}' claims {} bytes from {} stored",
                                      printable(m.name), m.size, m.compressed));
    if (local > zip.size() || zip.size() - local < 30 || le(p + local, 4) != kLocal)
      throw damaged(what, fmt::format("the record '{}' has no header", printable(m.name)));
    m.data = uint64_t{local} + 30 + le(p + local + 26, 2) + le(p + local + 28, 2);
    if (m.data > zip.size() || zip.size() - m.data < m.compressed)
      throw Error(fmt::format("{} is cut short", what));
    spans.emplace_back(local, m.data + m.compressed);
    out.push_back(std::move(m));
    pos += 46 + name_len + extra + comment;
  }
  // Two records sharing bytes (or one local header) are no archive a zip writer makes.
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i)
    if (spans[i].first < spans[i - 1].second)
      throw damaged(what, "two of its records share bytes");
  return out;
}

std::string zip_member_bytes(const std::string &zip, const ZipMember &m, const std::string &what) {
  if (m.method == 0)
    return zip.substr(m.data, m.compressed);
  std::string out(m.size, '\0');
  z_stream z{};
  z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(zip.data() + m.data));
  z.avail_in = static_cast<uInt>(m.compressed);
  z.next_out = reinterpret_cast<Bytef *>(out.data());
  z.avail_out = static_cast<uInt>(m.size);
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK)
    throw Error(fmt::format("cannot inflate {}", what));
  int rc = inflate(&z, Z_FINISH);
  inflateEnd(&z);
  if (rc != Z_STREAM_END || z.total_out != m.size)
    throw damaged(what, fmt::format("the record '{}' does not inflate to its stated size",
                                    printable(m.name)));
  return out;
}

} // namespace torch2onnx
