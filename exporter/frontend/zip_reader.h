// The zip archives --input-data reads in memory (np.savez's .npz, torch.save's .pt), checked
// before anything is inflated or handed to LibTorch: every record inside the file, no two records
// sharing or overlapping bytes, no name twice, and stated sizes that are possible (stored: the
// size of the data; deflated: at most 1032 times it, deflate's limit), so a 200-byte file cannot
// make torch2onnx allocate gigabytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace torch2onnx {

struct ZipMember {
  std::string name;
  uint32_t method = 0; // 0 stored, 8 deflated
  uint64_t compressed = 0, size = 0;
  uint64_t data = 0; // offset of its bytes in the archive
};

// The records of the zip archive `zip`, in central-directory order. Throws Error naming `what`
// (e.g. "'x.npz'") when it is not a zip archive, is zip64, encrypted or damaged, or breaks one of
// the rules above.
std::vector<ZipMember> zip_members(const std::string &zip, const std::string &what);

// The bytes of one record (inflated when deflated). Throws Error when they do not inflate to the
// stated size.
std::string zip_member_bytes(const std::string &zip, const ZipMember &m, const std::string &what);

} // namespace torch2onnx
