// Loading a TorchScript file with its weights mapped from the file instead of copied.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <torch/csrc/jit/api/module.h>
#include <vector>

namespace torch2onnx {

// A file mapped copy-on-write (MAP_PRIVATE): reads come from the page cache, a write to a page
// makes a private copy of it, the file never changes.
class FileMapping {
public:
  // Null when the file cannot be mapped (not a regular file, empty, mmap refused).
  static std::shared_ptr<FileMapping> open(const std::string &path);
  FileMapping(const FileMapping &) = delete;
  FileMapping &operator=(const FileMapping &) = delete;
  ~FileMapping();
  const char *data() const { return data_; }
  char *mutable_data() const { return data_; }
  size_t size() const { return size_; }

private:
  FileMapping(char *data, size_t size) : data_(data), size_(size) {}
  char *data_;
  size_t size_;
};

// A stored (uncompressed) record of the archive: where its bytes are in the file.
struct ArchiveRecord {
  uint64_t offset = 0;
  uint64_t size = 0;
};

// torch::jit::load of `path`, except that the tensor data records listed in `records` are not
// copied into new memory: each storage LibTorch makes for one of them points at the record's bytes
// in `mapping` (copy-on-write, so a weight written in place changes only this process's copy).
// LibTorch 1.13 has no option for this; it is done from outside:
// - while the file loads, LibTorch's CPU allocator is replaced by one that answers a request of a
//   record's size with the next such record's bytes in the mapping (records are read in file
//   order), and
// - LibTorch reads the archive through an adapter that skips a read whose destination is already
//   the bytes it would copy; any other read (a guess that was wrong, the code and pickles) is a
//   memcpy from the mapping, so the result is always what torch::jit::load gives.
// The storages keep the mapping alive. Throws what torch::jit::load throws.
torch::jit::Module load_mapped(const std::shared_ptr<FileMapping> &mapping,
                               const std::vector<ArchiveRecord> &records);

// torch::jit::load(path): LibTorch's own load, which copies every weight into new memory.
torch::jit::Module load_copied(const std::string &path);

// Bytes of the weights the last load_mapped or load_copied call took from the mapping (tests).
uint64_t mapped_bytes_of_last_load();

} // namespace torch2onnx
