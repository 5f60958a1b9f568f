#include "exporter/output_files.h"

#include "builder/error.h"
#include "builder/printable.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/file.h>
#include <unistd.h>

namespace torch2onnx {

namespace fs = std::filesystem;

namespace {

fs::path folder_of(const std::string &out) {
  fs::path p(out);
  return p.has_parent_path() ? p.parent_path() : fs::path(".");
}

bool is_test_data_set(const std::string &name) {
  const std::string prefix = "test_data_set_";
  if (name.rfind(prefix, 0) != 0 || name.size() == prefix.size())
    return false;
  return std::all_of(name.begin() + static_cast<std::ptrdiff_t>(prefix.size()), name.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// What an export writes into a test-data set: input_K.pb, output_K.pb.
bool is_test_data_file(const std::string &name) {
  for (const char *prefix : {"input_", "output_"}) {
    const size_t n = std::strlen(prefix);
    if (name.rfind(prefix, 0) == 0 && name.size() > n + 3 &&
        name.compare(name.size() - 3, 3, ".pb") == 0 &&
        std::all_of(name.begin() + static_cast<std::ptrdiff_t>(n), name.end() - 3,
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      return true;
  }
  return false;
}

// The test_data_set_N folders now in `test_dir`.
std::vector<fs::path> existing_sets(const std::string &test_dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(test_dir, ec))
    return out;
  for (const auto &e : fs::directory_iterator(test_dir, ec))
    if (is_test_data_set(e.path().filename().string()))
      out.push_back(e.path());
  return out;
}

// Holds an exclusive lock on a folder while it lives (flock on the folder itself: no lock file
// is left behind). Exports into one folder commit one at a time.
class FolderLock {
public:
  explicit FolderLock(const fs::path &dir) {
    fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_ >= 0)
      while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
      }
  }
  ~FolderLock() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  FolderLock(const FolderLock &) = delete;
  FolderLock &operator=(const FolderLock &) = delete;

private:
  int fd_ = -1;
};

void move(const fs::path &from, const fs::path &to) {
  if (std::rename(from.c_str(), to.c_str()) != 0)
    throw Error(fmt::format("cannot move '{}' to '{}': {}", from.string(), to.string(),
                            std::strerror(errno)),
                "the output folder must stay writable while the export runs");
}

} // namespace

std::string test_data_folder(const std::string &out) {
  return fs::path(out).replace_extension("").string();
}

std::vector<PathUse> export_reads(const ExportOptions &o) {
  std::vector<PathUse> reads;
  if (!o.model_path.empty()) // an in-memory module (the APIs) has none
    reads.push_back({o.model_path, "the model", false});
  for (const auto &f : o.input_data)
    reads.push_back({f, "--input-data", false});
  for (const auto &f : o.libraries)
    reads.push_back({f, "--load-library", false});
  for (const auto &f : o.converters)
    reads.push_back({f, "--converters", false});
  return reads;
}

std::vector<PathUse> export_writes(const ExportOptions &o, const std::string &out) {
  std::vector<PathUse> writes = {{out, "the output", false},
                                 {out + ".data", "the output's external data", false}};
  if (o.verify)
    for (const auto &set : existing_sets(test_data_folder(out)))
      writes.push_back({set.string(), "the test-data folder", true});
  return writes;
}

void check_test_data_sets(const std::string &out) {
  const std::string test_dir = test_data_folder(out);
  std::error_code ec;
  if (fs::exists(test_dir, ec) && !fs::is_directory(test_dir, ec))
    throw Error(
        fmt::format("--verify writes its test data to the folder '{}', which is a file", test_dir),
        "move that file, or choose another -o path");
  for (const auto &set : existing_sets(test_dir)) {
    if (!fs::is_directory(set, ec) || fs::is_symlink(set, ec))
      throw Error(
          fmt::format("'{}' is not a folder torch2onnx wrote, and --verify would replace it",
                      set.string()),
          "move it, or choose another -o path");
    for (const auto &e : fs::directory_iterator(set, ec)) {
      std::string name = e.path().filename().string();
      if (!is_test_data_file(name) || e.is_directory(ec))
        throw Error(fmt::format("'{}' holds '{}', which torch2onnx did not write; --verify "
                                "replaces that folder and never deletes a file of yours",
                                set.string(), printable(name)),
                    "move the file out of the folder, or choose another -o path");
    }
  }
}

StagedOutput::StagedOutput(const std::string &out) : out_(written_file(out)) {
  fs::path folder = folder_of(out_);
  std::string tmpl = (folder / ".tmp-t2o-XXXXXX").string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr)
    throw Error(
        fmt::format("cannot create a file in '{}': {}", folder.string(), std::strerror(errno)),
        "choose an output folder you can write to (-o)");
  dir_ = buf.data();
  guards_.push_back(std::make_unique<TempFileGuard>(dir_, /*is_dir=*/true));
  model_ = (fs::path(dir_) / fs::path(out_).filename()).string();
}

StagedOutput::~StagedOutput() {
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

std::string StagedOutput::test_data_dir(size_t k) {
  std::string d = (fs::path(dir_) / fmt::format("test_data_set_{}", k)).string();
  if (k >= sets_) {
    guards_.push_back(std::make_unique<TempFileGuard>(d, /*is_dir=*/true));
    sets_ = k + 1;
  }
  return d;
}

std::string StagedOutput::public_text(const std::string &message) const {
  const std::string from = dir_ + "/";
  const std::string to = fs::path(out_).has_parent_path() ? folder_of(out_).string() + "/" : "";
  std::string out = message;
  for (size_t at = out.find(from); at != std::string::npos; at = out.find(from, at + to.size()))
    out.replace(at, from.size(), to);
  return out;
}

void StagedOutput::commit() {
  T2O_CHECK(!committed_, "the output was already committed");
  FolderLock lock(folder_of(out_));
  std::error_code ec;
  if (sets_ > 0) {
    // Checked again: a file of the user's may have been put there since the export started.
    check_test_data_sets(out_);
    const fs::path test_dir = test_data_folder(out_);
    if (!fs::is_directory(test_dir, ec) && !fs::create_directory(test_dir, ec) && ec)
      throw Error(fmt::format("cannot create the test-data folder '{}': {}", test_dir.string(),
                              ec.message()));
    for (const auto &old : existing_sets(test_dir.string())) {
      fs::path aside = fs::path(dir_) / ("old_" + old.filename().string());
      guards_.push_back(std::make_unique<TempFileGuard>(aside.string(), /*is_dir=*/true));
      move(old, aside);
    }
    for (size_t k = 0; k < sets_; ++k) {
      fs::path set = fs::path(dir_) / fmt::format("test_data_set_{}", k);
      if (fs::is_directory(set, ec))
        move(set, test_dir / set.filename());
    }
  }
  const std::string staged_data = model_ + ".data", data = out_ + ".data";
  if (fs::exists(staged_data, ec)) {
    move(staged_data, data);
  } else if (fs::is_regular_file(data, ec) && fs::exists(out_, ec)) {
    // The weights of the model this export replaces belong to no model now.
    move(data, fs::path(dir_) / "old.data");
  }
  move(model_, out_);
  committed_ = true;
}

} // namespace torch2onnx
