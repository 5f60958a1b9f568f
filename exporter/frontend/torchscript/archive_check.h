// Checks of a TorchScript file's zip archive before LibTorch reads it: every stored record's
// CRC-32, record sizes, the pickles' string lengths (LibTorch 1.13 checks none of them).
#pragma once

#include "exporter/frontend/torchscript/mapped_load.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace torch2onnx {

class Error;

// A stored tensor data record whose CRC-32 is checked while torch::jit::load runs.
struct PendingCrc {
  std::string name;
  int64_t data = 0; // offset of its bytes in the file
  uint64_t size = 0;
  uint32_t crc = 0;
};

// Checks what LibTorch's loader needs intact before it parses anything (throws Error naming the
// damage); returns the tensor data records, whose checksums are left to check_pending_crcs.
std::vector<PendingCrc> check_model_file(const std::string &path);

// The first of `pending` whose bytes fail their checksum; "" when all pass (or cannot be read:
// LibTorch reports a short file itself). Reads `mapping` when it is not null, else the file.
std::string check_pending_crcs(const std::string &path, std::vector<PendingCrc> pending,
                               const std::shared_ptr<FileMapping> &mapping);

// The error for a record that fails its checksum.
Error corrupt_record(const std::string &path, const std::string &name);

} // namespace torch2onnx
