// `torch2onnx zoo --check-copy-load`: each passing model is exported a second time with
// TORCH2ONNX_LOAD=copy (LibTorch's own torch::jit::load, which copies every weight) and the two
// ONNX files must be byte-identical: the default mapped load must give exactly the weights
// LibTorch gives (issue 25).
#include "apps/zoo_child.h"

#include <fmt/format.h>
#include <fstream>
#include <onnx/onnx_pb.h>
#include <sstream>
#include <sys/wait.h>

namespace fs = std::filesystem;

namespace torch2onnx::zoo {
namespace {

std::string read_bytes(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The initializers whose bytes differ (the first few, by name), else what else differs.
std::string model_difference(const std::string &a, const std::string &b) {
  onnx::ModelProto ma, mb;
  if (!ma.ParseFromString(a) || !mb.ParseFromString(b))
    return "";
  std::map<std::string, std::string> init;
  for (const auto &t : ma.graph().initializer())
    init[t.name()] = t.SerializeAsString();
  std::vector<std::string> differ;
  for (const auto &t : mb.graph().initializer()) {
    auto it = init.find(t.name());
    if (it == init.end() || it->second != t.SerializeAsString())
      differ.push_back(t.name());
  }
  if (!differ.empty()) {
    size_t n = differ.size();
    differ.resize(std::min<size_t>(n, 3));
    return fmt::format("{} initializer{} differ{}: {}{}", n, n == 1 ? "" : "s", n == 1 ? "s" : "",
                       fmt::join(differ, ", "), n > 3 ? ", ..." : "");
  }
  ma.mutable_graph()->clear_initializer();
  mb.mutable_graph()->clear_initializer();
  return ma.graph().SerializeAsString() == mb.graph().SerializeAsString()
             ? "the graphs are equal; other model fields differ"
             : "the initializers are equal; the graphs' nodes or constants differ";
}

// "" when the files are byte-identical, else what differs.
std::string file_difference(const std::string &mapped, const std::string &copied) {
  std::error_code ec;
  if (!fs::exists(copied, ec))
    return fmt::format("the copy-load export wrote no '{}'", copied);
  std::string a = read_bytes(mapped), b = read_bytes(copied);
  if (a == b)
    return "";
  size_t at = 0;
  while (at < a.size() && at < b.size() && a[at] == b[at])
    ++at;
  std::string where =
      fmt::format("{} and {} bytes, first difference at byte {}", a.size(), b.size(), at);
  std::string what = fs::path(mapped).extension() == ".onnx" ? model_difference(a, b) : "";
  return what.empty() ? where : what + " (" + where + ")";
}

std::string first_error_of_log(const std::string &log) {
  Result r;
  parse_child_log(read_bytes(log), r);
  return r.first_error;
}

void remove_copy(const JobPaths &p) {
  std::error_code ec;
  fs::remove(p.copy_onnx, ec);
  fs::remove(p.copy_onnx + ".data", ec);
  fs::remove(p.copy_dir, ec); // only when empty
}

} // namespace

void finish_copy_load(Result &r, const Running &run, int wstatus, const JobPaths &p, bool keep) {
  r.copy_seconds = std::chrono::duration<double>(Clock::now() - run.copy_start).count();
  r.seconds += r.copy_seconds;
  auto fail = [&](const std::string &why) {
    r.status = Status::Fail;
    r.copy_load = why;
    r.first_error = why;
  };
  if (run.timed_out)
    return fail(fmt::format("the export with TORCH2ONNX_LOAD=copy timed out after {:.0f} s (log: "
                            "{})",
                            r.job.timeout, p.copy_log));
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
    std::string why = first_error_of_log(p.copy_log);
    return fail(fmt::format("the export with TORCH2ONNX_LOAD=copy failed ({}){}{} (log: {})",
                            WIFEXITED(wstatus) ? fmt::format("exit status {}", WEXITSTATUS(wstatus))
                                               : fmt::format("signal {}", WTERMSIG(wstatus)),
                            why.empty() ? "" : ": ", why, p.copy_log));
  }
  std::string diff = file_difference(p.onnx, p.copy_onnx);
  std::error_code ec;
  if (diff.empty() && (fs::exists(p.data, ec) || fs::exists(p.copy_onnx + ".data", ec)))
    diff = file_difference(p.data, p.copy_onnx + ".data");
  if (!diff.empty())
    return fail(fmt::format("the mapped load and TORCH2ONNX_LOAD=copy wrote different ONNX files: "
                            "{} (kept: {}, {})",
                            diff, p.onnx, p.copy_onnx));
  r.copy_load = "identical";
  if (!keep)
    remove_copy(p);
}

} // namespace torch2onnx::zoo
