// Loading a TorchScript file with its weights mapped from the file instead of copied, each
// storage bound to its own record by the record's identity, never by size or order.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <torch/csrc/jit/api/module.h>
#include <vector>

namespace torch2onnx {

// A file mapped read-only (MAP_PRIVATE): the source of every read LibTorch makes of the archive.
class FileMapping {
public:
  // Null when the file cannot be mapped (not a regular file, empty, mmap refused).
  static std::shared_ptr<FileMapping> open(const std::string &path);
  FileMapping(const FileMapping &) = delete;
  FileMapping &operator=(const FileMapping &) = delete;
  ~FileMapping();
  const char *data() const { return data_; }
  size_t size() const { return size_; }
  int fd() const { return fd_; } // kept open: records are mapped from it at their own offsets

private:
  FileMapping(char *data, size_t size, int fd) : data_(data), size_(size), fd_(fd) {}
  char *data_;
  size_t size_;
  int fd_;
};

// A stored (uncompressed) tensor data record of the archive: its name ("archive/data/3"), where
// its bytes are in the file, and the CRC-32 the archive states for them.
struct ArchiveRecord {
  std::string name;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t crc = 0;
};

// The storages a mapped load made from records, as long as they live. Each was filled by
// LibTorch's own read of that record (see load_mapped), so it must hold the record's bytes until
// something writes into it.
class WeightBindings {
public:
  virtual ~WeightBindings() = default;
  // The records of the storages still alive whose bytes differ from the CRC-32 the archive states
  // for them (empty: all equal). Each storage is kept alive while it is read.
  virtual std::vector<std::string> mismatches() const = 0;
  // Storages still alive that hold a record's bytes, and how many of them are the file's pages
  // (mapped) rather than copies.
  virtual size_t live() const = 0;
  // The record a storage's data pointer was filled from ("" when none): names a damaged weight.
  virtual std::string record_of(const void *data) const = 0;
  // The size in bytes of the memory block behind `data` when it holds a record (0 otherwise): a
  // storage claiming more than this reaches past its record.
  virtual uint64_t block_size(const void *data) const = 0;
};

struct MappedModule {
  torch::jit::Module module;
  std::shared_ptr<WeightBindings> bindings;
  uint64_t mapped_bytes = 0; // bytes of records whose storages are the file's pages
};

// torch::jit::load of the mapped file, except that a tensor record's bytes are not copied when
// they need not be. Exact by construction:
// - While the file loads, the CPU allocator answers a request whose size is that of a record not
//   yet read with a block of its own: private anonymous pages (a page or more) or heap memory.
//   Nothing is ever served from the file's mapping, and a block not read into stays plain memory.
// - LibTorch reads every record through an adapter over the mapping. A read of record R (known
//   by its offset, from the central directory) into a block of exactly R's size, fresh from this
//   allocator and sitting at R's offset within a page, becomes a MAP_FIXED private mapping of R's
//   own file pages over that block: the same bytes a copy would give, without copying. Any other
//   read is a memcpy from the mapping.
// So each storage holds the bytes of the record LibTorch itself asked for, whatever the sizes
// and the order of the reads. A write into a storage changes only this process's page.
// `records` are the archive's stored tensor records (check_model_file). Throws what
// torch::jit::load throws.
MappedModule load_mapped(const std::shared_ptr<FileMapping> &mapping,
                         const std::vector<ArchiveRecord> &records);

} // namespace torch2onnx
