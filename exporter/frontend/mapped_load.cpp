#include "exporter/frontend/mapped_load.h"

#include <algorithm>
#include <atomic>
#include <c10/core/CPUAllocator.h>
#include <caffe2/serialize/inline_container.h>
#include <caffe2/serialize/read_adapter_interface.h>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <mutex>
#include <sys/mman.h>
#include <sys/stat.h>
#include <torch/csrc/jit/serialization/import.h>
#include <unistd.h>
#include <unordered_map>

namespace torch2onnx {

std::shared_ptr<FileMapping> FileMapping::open(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return nullptr;
  struct stat st {};
  void *p = MAP_FAILED;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
    p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ | PROT_WRITE, MAP_PRIVATE, fd,
               0);
  ::close(fd); // the mapping keeps the file
  if (p == MAP_FAILED)
    return nullptr;
  return std::shared_ptr<FileMapping>(
      new FileMapping(static_cast<char *>(p), static_cast<size_t>(st.st_size)));
}

FileMapping::~FileMapping() {
  ::munmap(data_, size_);
}

namespace {

// Storages that point into a mapping, by their data pointer: each keeps its mapping alive until
// LibTorch frees it. The data pointer is also the DataPtr's context, as with LibTorch's own CPU
// allocator, so raw_allocate / raw_deallocate work on them too.
struct Region {
  std::shared_ptr<FileMapping> mapping;
  size_t size = 0;
};
std::mutex registry_mutex;
std::unordered_map<void *, Region> &registry() {
  static auto *r = new std::unordered_map<void *, Region>();
  return *r;
}

// A freed storage's pages leave the process (as freed memory would): the mapping itself lives on
// until its last storage goes. Pages shared with a neighbouring record stay.
void drop_pages(void *p, size_t n) {
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + page - 1) / page * page;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + n) / page * page;
  if (end > begin)
    ::madvise(reinterpret_cast<void *>(begin), end - begin, MADV_DONTNEED);
}
std::atomic<c10::DeleterFnPtr> fallback_raw_deleter{nullptr};
std::atomic<uint64_t> last_mapped_bytes{0};

void release(void *p) {
  {
    std::unique_lock<std::mutex> lock(registry_mutex);
    auto it = registry().find(p);
    if (it != registry().end()) {
      Region r = std::move(it->second);
      registry().erase(it);
      lock.unlock();
      if (r.mapping.use_count() > 1)
        drop_pages(p, r.size); // (the last one unmaps it all)
      return;
    }
  }
  if (auto d = fallback_raw_deleter.load())
    d(p); // raw_allocate'd by the allocator this one stood in for
}

// Records smaller than this are copied (a page or less: mapping saves nothing).
constexpr uint64_t kMinMapped = 4096;

class RecordAllocator final : public c10::Allocator {
public:
  RecordAllocator(std::shared_ptr<FileMapping> mapping, const std::vector<ArchiveRecord> &records,
                  c10::Allocator *fallback)
      : mapping_(std::move(mapping)), fallback_(fallback) {
    std::vector<ArchiveRecord> sorted = records;
    std::sort(sorted.begin(), sorted.end(),
              [](const ArchiveRecord &a, const ArchiveRecord &b) { return a.offset < b.offset; });
    for (const ArchiveRecord &r : sorted)
      if (r.size >= kMinMapped && r.offset % 64 == 0 && r.offset <= mapping_->size() &&
          r.size <= mapping_->size() - r.offset)
        by_size_[r.size].push_back(r.offset);
  }

  c10::DataPtr allocate(size_t n) const override {
    std::unique_lock<std::mutex> lock(mutex_);
    auto it = by_size_.find(n);
    if (it == by_size_.end() || it->second.empty()) {
      lock.unlock();
      return fallback_->allocate(n);
    }
    char *p = mapping_->mutable_data() + it->second.front();
    it->second.pop_front();
    lock.unlock();
    {
      std::lock_guard<std::mutex> reg(registry_mutex);
      registry().emplace(p, Region{mapping_, n});
    }
    return c10::DataPtr(p, p, &release, c10::Device(c10::DeviceType::CPU));
  }

  c10::DeleterFnPtr raw_deleter() const override { return &release; }

private:
  std::shared_ptr<FileMapping> mapping_;
  c10::Allocator *fallback_;
  mutable std::mutex mutex_;
  mutable std::unordered_map<uint64_t, std::deque<uint64_t>> by_size_; // offsets, in file order
};

class MappedReader final : public caffe2::serialize::ReadAdapterInterface {
public:
  explicit MappedReader(std::shared_ptr<FileMapping> mapping) : mapping_(std::move(mapping)) {}
  size_t size() const override { return mapping_->size(); }
  size_t read(uint64_t pos, void *buf, size_t n, const char * /*what*/) const override {
    if (pos >= mapping_->size())
      return 0;
    n = std::min<uint64_t>(n, mapping_->size() - pos);
    const char *src = mapping_->data() + pos;
    if (buf == src) {
      skipped_ += n; // the storage is the record's own bytes
      return n;
    }
    std::memcpy(buf, src, n);
    return n;
  }
  uint64_t skipped() const { return skipped_; }

private:
  std::shared_ptr<FileMapping> mapping_;
  mutable uint64_t skipped_ = 0;
};

// One mapped load at a time: the CPU allocator is process-wide.
std::mutex load_mutex;

} // namespace

torch::jit::Module load_mapped(const std::shared_ptr<FileMapping> &mapping,
                               const std::vector<ArchiveRecord> &records) {
  std::lock_guard<std::mutex> one_at_a_time(load_mutex);
  c10::Allocator *previous = c10::GetCPUAllocator();
  fallback_raw_deleter = previous->raw_deleter();
  RecordAllocator allocator(mapping, records, previous);
  auto reader = std::make_shared<MappedReader>(mapping);
  struct Restore {
    c10::Allocator *previous;
    ~Restore() { c10::SetCPUAllocator(previous, 0); }
  } restore{previous};
  c10::SetCPUAllocator(&allocator, 0);
  torch::jit::Module m = torch::jit::load(reader);
  last_mapped_bytes = reader->skipped();
  return m;
}

torch::jit::Module load_copied(const std::string &path) {
  last_mapped_bytes = 0;
  return torch::jit::load(path);
}

uint64_t mapped_bytes_of_last_load() {
  return last_mapped_bytes;
}

} // namespace torch2onnx
