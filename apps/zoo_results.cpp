// A shard's results file with the run's fields, reading results files back, job fingerprints, the
// binary's identity and --resume (apps/zoo_results.h).
#include "apps/zoo_results.h"

#include "apps/report.h"
#include "apps/zoo_child.h"
#include "builder/error.h"
#include "builder/file_io.h"
#include "exporter/verify/runner.h"

#include <algorithm>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <link.h>
#include <nlohmann/json.hpp>
#include <set>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

namespace fs = std::filesystem;

namespace torch2onnx::zoo {
namespace {

// A JSON string, bytes that are not UTF-8 replaced (names and paths come from manifests).
std::string json_string(const std::string &s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The CRC-32 of a file's bytes, read in 1 MB pieces; "" when it cannot be read.
std::string file_crc(const std::string &path, uint64_t &size) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return "";
  std::vector<unsigned char> buf(size_t{1} << 20);
  uLong crc = crc32(0L, Z_NULL, 0);
  size = 0;
  for (;;) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      ::close(fd);
      return n < 0 ? "" : fmt::format("{:08x}", crc);
    }
    crc = crc32(crc, buf.data(), static_cast<uInt>(n));
    size += static_cast<uint64_t>(n);
  }
}

bool is_regular_file(const std::string &path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The GNU build id of the object holding this code (libtorch2onnx-cli.so), as hex; "" if none.
std::string own_build_id() {
  struct Search {
    const void *address;
    std::string id;
  } search{reinterpret_cast<const void *>(&own_build_id), ""};
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) -> int {
        auto *s = static_cast<Search *>(data);
        auto addr = reinterpret_cast<ElfW(Addr)>(s->address);
        bool mine = false;
        for (int i = 0; i < info->dlpi_phnum && !mine; ++i) {
          const auto &ph = info->dlpi_phdr[i];
          ElfW(Addr) start = info->dlpi_addr + ph.p_vaddr;
          mine = ph.p_type == PT_LOAD && addr >= start && addr < start + ph.p_memsz;
        }
        if (!mine)
          return 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const auto &ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_NOTE)
            continue;
          auto *p = reinterpret_cast<const char *>(info->dlpi_addr + ph.p_vaddr);
          const char *end = p + ph.p_memsz;
          while (p + sizeof(ElfW(Nhdr)) <= end) {
            auto *n = reinterpret_cast<const ElfW(Nhdr) *>(p);
            const char *name = p + sizeof(ElfW(Nhdr));
            const auto *desc =
                reinterpret_cast<const unsigned char *>(name + ((n->n_namesz + 3) & ~3U));
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
                std::memcmp(name, "GNU", 4) == 0)
              for (unsigned k = 0; k < n->n_descsz; ++k)
                s->id += fmt::format("{:02x}", desc[k]);
            p = reinterpret_cast<const char *>(desc) + ((n->n_descsz + 3) & ~3U);
          }
        }
        return 1;
      },
      &search);
  return search.id;
}

// The file this code was loaded from (libtorch2onnx-cli.so).
std::string own_file() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void *>(&own_file), &info) == 0 || !info.dli_fname)
    return "";
  return info.dli_fname;
}

Status status_from(const std::string &name, const std::string &path) {
  for (Status s : {Status::Pass, Status::Fail, Status::Crash, Status::Timeout, Status::ExpectedFail,
                   Status::UnexpectedPass})
    if (name == status_name(s))
      return s;
  throw Error(fmt::format("{}: unknown status '{}'", path, name),
              "give files written by `torch2onnx zoo --json` or `torch2onnx zoo merge --json`");
}

// A byte string with every byte that is not part of valid UTF-8 replaced by '?': a crashing
// child's log line may carry anything, and JSON parsers refuse it.
std::string valid_utf8(std::string s) {
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80           ? 1
                 : (c >> 5) == 0x6  ? 2
                 : (c >> 4) == 0xE  ? 3
                 : (c >> 3) == 0x1E ? 4
                                    : 0;
    bool ok = len > 0 && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k)
      ok = (static_cast<unsigned char>(s[i + k]) >> 6) == 0x2;
    if (!ok) {
      s[i++] = '?';
      continue;
    }
    i += len;
  }
  return s;
}

StoredResult stored_result(const nlohmann::json &m, const std::string &path) {
  StoredResult out;
  Result &r = out.result;
  auto num = [&](const char *key, double fallback) {
    return m.contains(key) && m[key].is_number() ? m[key].get<double>() : fallback;
  };
  r.job.name = m.at("name").get<std::string>();
  r.job.model = m.value("model", "");
  r.job.opset = m.value("opset", 0);
  r.job.expect_fail = m.value("expect_fail", "");
  r.job.timeout = num("timeout", r.job.timeout);
  r.status = status_from(m.at("status").get<std::string>(), path);
  r.seconds = num("seconds", 0);
  r.export_seconds = num("export_seconds", -1);
  r.nodes = static_cast<long long>(num("nodes", -1));
  r.params = m.value("params", "");
  r.worst_abs_error = num("worst_abs_error", -1);
  r.worst_error_ratio = num("worst_error_ratio", -1);
  r.outputs_checked = m.value("outputs_checked", 0);
  r.expected_checked = m.value("expected_checked", false);
  r.expected_abs_error = num("expected_abs_error", -1);
  r.expected_error_ratio = num("expected_error_ratio", -1);
  r.copy_load = m.contains("copy_load") && m["copy_load"].is_string()
                    ? m["copy_load"].get<std::string>()
                    : "";
  r.copy_seconds = num("copy_seconds", 0);
  r.exit_code = m.value("exit_code", -1);
  r.signal = m.value("signal", 0);
  r.first_error = m.value("first_error", "");
  r.note = m.value("note", "");
  r.log_path = m.value("log", "");
  out.index = static_cast<long long>(num("index", -1));
  out.fingerprint = m.value("fingerprint", "");
  out.binary = m.value("binary", "");
  out.resumed_from = m.value("resumed_from", "");
  return out;
}

} // namespace

std::string binary_id() {
  std::string build = own_build_id();
  if (build.empty()) {
    uint64_t size = 0;
    build = "crc32 " + file_crc(own_file(), size);
  }
  std::string ort = onnxruntime_version();
  return fmt::format("{}; build {}; ONNX Runtime {}", report::versions_text(), build,
                     ort.empty() ? "unknown" : ort);
}

std::string job_fingerprint(const Job &job, const std::string &out) {
  std::vector<std::string> args = child_args(job, "", job_paths(out, job));
  std::string text;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string &a = args[i];
    if ((a == "-o" || a == "--report") && i + 1 < args.size()) {
      ++i; // where this run writes: not what it computes
      continue;
    }
    uint64_t size = 0;
    std::string crc = is_regular_file(a) ? file_crc(a, size) : "";
    text += crc.empty() ? a : fmt::format("<file of {} bytes, CRC-32 {}>", size, crc);
    text += '\n';
  }
  text += "expect_fail=" + job.expect_fail;
  // A short digest of the text (64-bit FNV-1a).
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char ch : text)
    h = (h ^ ch) * 0x100000001b3ULL;
  return fmt::format("{:016x}", h);
}

RunInfo describe_run(const std::string &manifest, const std::string &models_dir, int opset,
                     int shard_index, int shard_count, const std::vector<Job> &jobs,
                     const std::string &out) {
  RunInfo info;
  info.manifest = manifest;
  info.shard_index = shard_index;
  info.shard_count = shard_count;
  Manifest all = load_manifest(manifest, models_dir, opset);
  info.manifest_jobs = all.jobs.size();
  for (size_t k = 0; k < all.jobs.size(); ++k)
    info.index[all.jobs[k].name] = k;
  for (const Job &j : jobs) {
    info.planned.push_back(j.name);
    info.fingerprints[j.name] = job_fingerprint(j, out);
  }
  info.binary = binary_id();
  return info;
}

std::string shard_json(const std::vector<Result> &results, const RunInfo &info) {
  JsonExtra extra;
  extra.model = [&](size_t i) {
    const Result &r = results[i];
    auto at = info.index.find(r.job.name);
    auto fp = info.fingerprints.find(r.job.name);
    auto from = info.resumed.find(r.job.name);
    return fmt::format(
        ", \"index\": {}, \"timeout\": {}, \"fingerprint\": {}, \"binary\": {}{}",
        at == info.index.end() ? "null" : std::to_string(at->second), r.job.timeout,
        json_string(fp == info.fingerprints.end() ? "" : fp->second), json_string(info.binary),
        from == info.resumed.end() ? "" : ", \"resumed_from\": " + json_string(from->second));
  };
  std::vector<std::string> planned;
  for (const auto &p : info.planned)
    planned.push_back(json_string(p));
  extra.top = fmt::format(
      ",\n  \"format\": \"torch2onnx-zoo-results\",\n  \"manifest\": {},\n  \"shard\": \"{}/{}\","
      "\n  \"manifest_jobs\": {},\n  \"planned\": [{}],\n  \"binary\": {}",
      json_string(info.manifest), info.shard_index, info.shard_count, info.manifest_jobs,
      fmt::join(planned, ", "), json_string(info.binary));
  return json_report(results, extra);
}

std::vector<Result> in_manifest_order(std::vector<Result> ran, std::vector<Result> carried,
                                      const RunInfo &info) {
  if (carried.empty())
    return ran;
  ran.insert(ran.end(), std::make_move_iterator(carried.begin()),
             std::make_move_iterator(carried.end()));
  auto place = [&](const Result &r) {
    auto it = info.index.find(r.job.name);
    return it == info.index.end() ? info.index.size() : it->second;
  };
  std::stable_sort(ran.begin(), ran.end(),
                   [&](const Result &a, const Result &b) { return place(a) < place(b); });
  return ran;
}

StoredRun read_results(const std::string &path) {
  StoredRun run;
  run.path = path;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(valid_utf8(read_regular_file(path, "zoo results file")));
  } catch (const nlohmann::json::exception &e) {
    throw Error(fmt::format("{} is not a zoo results file: {}", path, e.what()),
                "give the --json files of `torch2onnx zoo` runs (or of `zoo merge`)");
  }
  if (!j.is_object() || !j.contains("models") || !j["models"].is_array())
    throw Error(fmt::format("{} is not a zoo results file: it has no \"models\" list", path),
                "give the --json files of `torch2onnx zoo` runs (or of `zoo merge`)");
  try {
    run.manifest = j.value("manifest", "");
    run.manifest_jobs = j.value("manifest_jobs", size_t{0});
    std::string shard = j.value("shard", "");
    if (std::sscanf(shard.c_str(), "%d/%d", &run.shard_index, &run.shard_count) != 2)
      run.shard_index = run.shard_count = 0;
    if (j.contains("planned"))
      run.planned = j["planned"].get<std::vector<std::string>>();
    for (const auto &m : j["models"])
      run.models.push_back(stored_result(m, path));
  } catch (const nlohmann::json::exception &e) {
    throw Error(fmt::format("{}: a field has the wrong form: {}", path, e.what()),
                "give the --json files of `torch2onnx zoo` runs (or of `zoo merge`)");
  }
  return run;
}

std::vector<Result> resume_from(const std::string &previous, std::vector<Job> &jobs,
                                RunInfo &info) {
  StoredRun before = read_results(previous);
  std::map<std::string, const StoredResult *> passed;
  for (const auto &m : before.models)
    if (m.result.status == Status::Pass)
      passed[m.result.job.name] = &m;
  std::vector<Result> carried;
  std::vector<Job> to_run;
  for (const Job &j : jobs) {
    auto it = passed.find(j.name);
    bool same = it != passed.end() && !it->second->fingerprint.empty() &&
                it->second->fingerprint == info.fingerprints[j.name] &&
                it->second->binary == info.binary;
    if (!same) {
      to_run.push_back(j);
      continue;
    }
    Result r = it->second->result;
    r.job = j; // this manifest's job (its model path, timeout) with the earlier outcome
    info.resumed[j.name] = previous;
    carried.push_back(std::move(r));
  }
  jobs = std::move(to_run);
  return carried;
}

} // namespace torch2onnx::zoo
