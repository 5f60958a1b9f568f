// CRC-32 (zip's polynomial) of weights and archive records: zlib's, which is several times
// faster than a table-driven loop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <zlib.h>

namespace torch2onnx {

// The CRC-32 of `crc`'s bytes followed by [p, p + n), e.g. crc32_update(0, p, n).
inline uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n) {
  return static_cast<uint32_t>(crc32_z(crc, p, n));
}
inline uint32_t crc32_of(const unsigned char *p, size_t n) {
  return crc32_update(0, p, n);
}

} // namespace torch2onnx
