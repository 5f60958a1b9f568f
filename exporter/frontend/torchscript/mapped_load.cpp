#include "exporter/frontend/torchscript/mapped_load.h"

#include "exporter/frontend/crc32.h"

#include <algorithm>
#include <atomic>
#include <c10/core/CPUAllocator.h>
#include <caffe2/serialize/read_adapter_interface.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <set>
#include <sys/mman.h>
#include <sys/stat.h>
#include <system_error>
#include <thread>
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
    p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) {
    ::close(fd);
    return nullptr;
  }
  return std::shared_ptr<FileMapping>(
      new FileMapping(static_cast<char *>(p), static_cast<size_t>(st.st_size), fd));
}

FileMapping::~FileMapping() {
  ::munmap(data_, size_);
  ::close(fd_);
}

namespace {

const size_t kPage = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
// Records below a page are copied (mapping saves nothing); past this many mapped blocks the rest
// are copied too (each is a mapping of its own: stay far below vm.max_map_count, 65530).
constexpr size_t kMaxMappedBlocks = 20000;

class Session;

// A block of memory the allocator below gave out while a file was loading: private anonymous
// pages (`length` > 0: [base, base + length) is this block's alone, `data` within its first
// page) or heap memory (`length` == 0, `data` == base).
struct Block {
  char *base = nullptr;
  size_t length = 0;
  size_t size = 0;
  const Session *session = nullptr;
  int record = -1;     // the record LibTorch read into it, or -1
  bool mapped = false; // its pages are the record's file pages
  int pins = 0;        // readers of its bytes (WeightBindings::mismatches)
  bool dead = false;   // freed while pinned: released by the last reader
};

std::mutex blocks_mutex;
std::unordered_map<const void *, Block> &blocks() {
  static auto *b = new std::unordered_map<const void *, Block>();
  return *b;
}

void free_block(const Block &b) {
  if (b.length > 0)
    ::munmap(b.base, b.length);
  else
    std::free(b.base);
}

std::atomic<c10::DeleterFnPtr> fallback_raw_deleter{nullptr};

// The deleter of every block, and the raw deleter of the allocator: memory it did not give out
// goes back to the allocator it stands in for.
void release(void *p) {
  std::unique_lock<std::mutex> lock(blocks_mutex);
  auto it = blocks().find(p);
  if (it == blocks().end()) {
    lock.unlock();
    if (auto d = fallback_raw_deleter.load())
      d(p);
    return;
  }
  if (it->second.pins > 0) {
    it->second.dead = true;
    return;
  }
  Block b = it->second;
  blocks().erase(it);
  lock.unlock();
  free_block(b);
}

// One mapped load: the archive's records and which of them LibTorch has not read yet.
class Session final : public WeightBindings {
public:
  Session(std::shared_ptr<FileMapping> mapping, std::vector<ArchiveRecord> records)
      : mapping_(std::move(mapping)), records_(std::move(records)) {
    std::sort(records_.begin(), records_.end(),
              [](const ArchiveRecord &a, const ArchiveRecord &b) { return a.offset < b.offset; });
    for (size_t i = 0; i < records_.size(); ++i) {
      const ArchiveRecord &r = records_[i];
      if (r.size == 0 || r.offset > mapping_->size() || r.size > mapping_->size() - r.offset)
        continue;
      by_offset_.emplace(r.offset, i);
      unread_[r.size].insert(i);
    }
  }

  // A block for an allocation of `n` bytes when a record of that size is still to be read
  // (false: not this allocator's business). Its place within a page is that of the first such
  // record in file order, so that a read of that record can map the file's pages over it.
  bool take(size_t n, c10::DataPtr &out) {
    size_t in_page = 0;
    bool pages = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = unread_.find(n);
      if (it == unread_.end() || it->second.empty())
        return false;
      in_page = records_[*it->second.begin()].offset % kPage;
      pages = n >= kPage && mapped_blocks_ < kMaxMappedBlocks;
      mapped_blocks_ += pages;
    }
    Block b;
    b.size = n;
    b.session = this;
    char *data = nullptr;
    if (pages) {
      b.length = (in_page + n + kPage - 1) / kPage * kPage;
      void *p = ::mmap(nullptr, b.length, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (p == MAP_FAILED)
        return false; // the allocator it stands in for reports running out of memory
      b.base = static_cast<char *>(p);
      data = b.base + in_page;
    } else {
      void *p = nullptr;
      if (::posix_memalign(&p, 64, std::max<size_t>(n, 1)) != 0)
        return false;
      b.base = static_cast<char *>(p);
      data = b.base;
    }
    {
      std::lock_guard<std::mutex> lock(blocks_mutex);
      blocks()[data] = b;
    }
    out = c10::DataPtr(data, data, &release, c10::Device(c10::DeviceType::CPU));
    return true;
  }

  // LibTorch reads `n` bytes at `pos` of the file into `buf`. When that is a record read into a
  // fresh block of its size, the block is bound to the record, and gets the record's file pages
  // when it sits at the record's offset within a page: then true (the bytes are there). False:
  // copy them.
  bool bind(uint64_t pos, void *buf, size_t n) {
    if (!mapping_)
      return false;
    auto r = by_offset_.find(pos);
    if (r == by_offset_.end() || records_[r->second].size != n)
      return false;
    const size_t index = r->second;
    std::lock_guard<std::mutex> lock(blocks_mutex);
    auto it = blocks().find(buf);
    if (it == blocks().end() || it->second.session != this || it->second.record >= 0 ||
        it->second.size != n)
      return false;
    Block &b = it->second;
    b.record = static_cast<int>(index);
    {
      std::lock_guard<std::mutex> unread_lock(mutex_);
      unread_[n].erase(index);
    }
    if (b.length == 0 || reinterpret_cast<uintptr_t>(buf) % kPage != pos % kPage)
      return false;
    const off_t from = static_cast<off_t>(pos - pos % kPage);
    void *p = ::mmap(b.base, b.length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED,
                     mapping_->fd(), from);
    if (p == b.base) {
      b.mapped = true;
      mapped_bytes_ += n;
      return true;
    }
    // Linux may have unmapped the range before failing: give the block its anonymous pages back
    // (the copy goes there). There is no way to report a failure through the archive reader.
    if (::mmap(b.base, b.length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
               -1, 0) != b.base) {
      std::fprintf(stderr, "torch2onnx: cannot remap a weight's memory while loading; aborting\n");
      std::abort();
    }
    return false;
  }

  void done_loading() { mapping_.reset(); } // the blocks have what they need of the file
  uint64_t mapped_bytes() const { return mapped_bytes_; }

  std::vector<std::string> mismatches() const override {
    std::vector<std::pair<const void *, Block>> pinned;
    {
      std::lock_guard<std::mutex> lock(blocks_mutex);
      for (auto &[p, b] : blocks())
        if (b.session == this && b.record >= 0 && !b.dead) {
          ++b.pins;
          pinned.emplace_back(p, b);
        }
    }
    // Two threads (reading memory is what costs), the blocks dealt out in turn, largest first.
    std::sort(pinned.begin(), pinned.end(),
              [](const auto &a, const auto &b) { return a.second.size > b.second.size; });
    std::vector<char> bad(pinned.size(), 0);
    auto check = [&](size_t first, size_t step) {
      for (size_t i = first; i < pinned.size(); i += step) {
        const auto &[p, b] = pinned[i];
        bad[i] = crc32_of(static_cast<const unsigned char *>(p), b.size) !=
                 records_[static_cast<size_t>(b.record)].crc;
        unpin(p);
      }
    };
    std::thread helper;
    try {
      helper = std::thread(check, 1, 2);
    } catch (const std::system_error &) {
      check(1, 2); // no thread to be had (a memory limit): do its share here
    }
    check(0, 2);
    if (helper.joinable())
      helper.join();
    std::vector<int> failed;
    for (size_t i = 0; i < pinned.size(); ++i)
      if (bad[i])
        failed.push_back(pinned[i].second.record);
    std::sort(failed.begin(), failed.end());
    std::vector<std::string> names;
    for (int r : failed)
      names.push_back(records_[static_cast<size_t>(r)].name);
    return names;
  }

  // Ends a reader's hold on a block; a block freed meanwhile goes now.
  static void unpin(const void *p) {
    std::unique_lock<std::mutex> lock(blocks_mutex);
    auto it = blocks().find(p);
    if (it != blocks().end() && --it->second.pins == 0 && it->second.dead) {
      Block dead = it->second;
      blocks().erase(it);
      lock.unlock();
      free_block(dead);
    }
  }

  size_t live() const override {
    std::lock_guard<std::mutex> lock(blocks_mutex);
    size_t n = 0;
    for (const auto &[p, b] : blocks())
      n += b.session == this && b.record >= 0 && !b.dead;
    return n;
  }

  std::string record_of(const void *data) const override {
    std::lock_guard<std::mutex> lock(blocks_mutex);
    auto it = blocks().find(data);
    if (it == blocks().end() || it->second.session != this || it->second.record < 0)
      return {};
    return records_[static_cast<size_t>(it->second.record)].name;
  }

  uint64_t block_size(const void *data) const override {
    std::lock_guard<std::mutex> lock(blocks_mutex);
    auto it = blocks().find(data);
    if (it == blocks().end() || it->second.session != this || it->second.record < 0)
      return 0;
    return it->second.size;
  }

  ~Session() override {
    // Blocks outliving their session (the module outlives the export's bindings) forget it.
    std::lock_guard<std::mutex> lock(blocks_mutex);
    for (auto &[p, b] : blocks())
      if (b.session == this)
        b.session = nullptr;
  }

private:
  std::shared_ptr<FileMapping> mapping_;
  std::vector<ArchiveRecord> records_; // by offset
  std::unordered_map<uint64_t, size_t> by_offset_;
  mutable std::mutex mutex_;
  std::map<uint64_t, std::set<size_t>> unread_; // by size: record indices, in file order
  size_t mapped_blocks_ = 0;
  std::atomic<uint64_t> mapped_bytes_{0};
};

// The load in progress (one at a time: load_mutex), or null.
std::atomic<Session *> active{nullptr};

// LibTorch's CPU allocator from the first mapped load on: it hands out blocks of its own only
// while a load is in progress (Session::take), and otherwise is the allocator it replaced. It
// stays installed, so memory it gave out may be freed at any time, by any path (raw_deallocate).
class BindingAllocator final : public c10::Allocator {
public:
  explicit BindingAllocator(c10::Allocator *base) : base_(base) {}
  c10::DataPtr allocate(size_t n) const override {
    if (Session *s = active.load()) {
      c10::DataPtr p;
      if (s->take(n, p))
        return p;
    }
    return base_->allocate(n);
  }
  c10::DeleterFnPtr raw_deleter() const override { return &release; }

private:
  c10::Allocator *base_;
};

void install_allocator() {
  static BindingAllocator *allocator = [] {
    c10::Allocator *base = c10::GetCPUAllocator();
    fallback_raw_deleter = base->raw_deleter();
    auto *a = new BindingAllocator(base);
    c10::SetCPUAllocator(a, 0);
    return a;
  }();
  (void)allocator;
}

class MappedReader final : public caffe2::serialize::ReadAdapterInterface {
public:
  MappedReader(std::shared_ptr<FileMapping> mapping, std::shared_ptr<Session> session)
      : mapping_(std::move(mapping)), session_(std::move(session)) {}
  size_t size() const override { return mapping_->size(); }
  size_t read(uint64_t pos, void *buf, size_t n, const char * /*what*/) const override {
    if (pos >= mapping_->size())
      return 0;
    n = static_cast<size_t>(std::min<uint64_t>(n, mapping_->size() - pos));
    if (!session_->bind(pos, buf, n))
      std::memcpy(buf, mapping_->data() + pos, n);
    return n;
  }

private:
  std::shared_ptr<FileMapping> mapping_;
  std::shared_ptr<Session> session_;
};

std::mutex load_mutex;

} // namespace

MappedModule load_mapped(const std::shared_ptr<FileMapping> &mapping,
                         const std::vector<ArchiveRecord> &records) {
  std::lock_guard<std::mutex> one_at_a_time(load_mutex);
  install_allocator();
  auto session = std::make_shared<Session>(mapping, records);
  auto reader = std::make_shared<MappedReader>(mapping, session);
  struct Deactivate {
    ~Deactivate() { active = nullptr; }
  } deactivate;
  active = session.get();
  MappedModule out;
  out.module = torch::jit::load(reader);
  active = nullptr;
  session->done_loading();
  out.mapped_bytes = session->mapped_bytes();
  out.bindings = session;
  return out;
}

} // namespace torch2onnx
