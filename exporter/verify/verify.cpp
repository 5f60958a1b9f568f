#include "exporter/verify/verify.h"

#include "builder/error.h"
#include "builder/graph_builder.h"
#include "builder/printable.h"
#include "builder/process.h"
#include "exporter/core/tensor_util.h"

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <csignal>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#ifndef T2O_SOURCE_DIR
#define T2O_SOURCE_DIR ""
#endif
#ifndef T2O_INSTALL_DATADIR
#define T2O_INSTALL_DATADIR ""
#endif
#ifndef T2O_BINARY_DIR
#define T2O_BINARY_DIR ""
#endif

namespace torch2onnx {

namespace fs = std::filesystem;

namespace {

// ONNX Runtime's stderr on a failure: its own log line (coloured with terminal escapes, prefixed
// with a timestamp) and then run_model.js's one-line message, which says the same. Keep the
// message, without escapes.
std::string ort_message(const std::string &raw) {
  std::string plain;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\x1b' && i + 1 < raw.size() && raw[i + 1] == '[') {
      size_t j = i + 2;
      while (j < raw.size() && !std::isalpha(static_cast<unsigned char>(raw[j])))
        ++j;
      i = j;
      continue;
    }
    plain += raw[i];
  }
  std::string kept;
  size_t start = 0;
  while (start < plain.size()) {
    size_t end = plain.find('\n', start);
    if (end == std::string::npos)
      end = plain.size();
    std::string line = plain.substr(start, end - start);
    start = end + 1;
    if (line.find(":onnxruntime:") != std::string::npos || line.empty())
      continue;
    kept += (kept.empty() ? "" : "\n") + line;
  }
  if (kept.empty())
    kept = plain;
  while (!kept.empty() && (kept.back() == '\n' || kept.back() == ' '))
    kept.pop_back();
  return kept;
}

const char *kInstallHint =
    "install ONNX Runtime for --verify: `npm ci --ignore-scripts --prefix third_party/onnxruntime` "
    "in the torch2onnx source tree (or `make deps`), or set TORCH2ONNX_ORT_DIR to a folder with "
    "run_model.js and node_modules/onnxruntime-node";

const char *ort_type(DType t) {
  switch (t) {
  case DType::Float:
    return "float32";
  case DType::Double:
    return "float64";
  case DType::Float16:
    return "float16";
  case DType::Int64:
    return "int64";
  case DType::Int32:
    return "int32";
  case DType::Int16:
    return "int16";
  case DType::Int8:
    return "int8";
  case DType::UInt8:
    return "uint8";
  case DType::Bool:
    return "bool";
  default:
    break;
  }
  throw Error(fmt::format("ONNX Runtime's JavaScript API cannot feed {} tensors", dtype_name(t)),
              "use another input dtype for --verify");
}

DType from_ort_type(const std::string &s) {
  for (DType t : {DType::Float, DType::Double, DType::Float16, DType::Int64, DType::Int32,
                  DType::Int16, DType::Int8, DType::UInt8, DType::Bool})
    if (s == ort_type(t))
      return t;
  throw Error(
      fmt::format("ONNX Runtime returned an output of type '{}' that cannot be compared", s));
}

fs::path self_exe_dir() {
  std::error_code ec;
  auto p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : p.parent_path();
}

// The folder of the binary this code is in: the executable, or libtorch2onnx.so / the Python
// extension when torch2onnx is used as a library.
fs::path self_object_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void *>(&self_exe_dir), &info) == 0 || info.dli_fname == nullptr)
    return {};
  std::error_code ec;
  fs::path p = fs::canonical(info.dli_fname, ec);
  return ec ? fs::path() : p.parent_path();
}

} // namespace

bool running_from_build_tree() {
  if (!*T2O_BINARY_DIR)
    return false;
  std::error_code ec;
  const fs::path build = fs::weakly_canonical(T2O_BINARY_DIR, ec);
  const fs::path self = self_object_dir();
  if (ec || build.empty() || self.empty())
    return false;
  auto [b, s] = std::mismatch(build.begin(), build.end(), self.begin(), self.end());
  return b == build.end();
}

namespace {

bool runner_ok(const fs::path &dir) {
  std::error_code ec;
  return fs::exists(dir / "run_model.js", ec) &&
         fs::exists(dir / "node_modules" / "onnxruntime-node" / "package.json", ec);
}

std::string read_all(const fs::path &p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Runs argv, capturing stderr into `err`; returns the exit status.
int run_process(const std::vector<std::string> &argv, const fs::path &work_dir, std::string &err) {
  std::string err_path = (work_dir / "stderr.txt").string();
  int efd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  T2O_CHECK(efd >= 0, "cannot create a temporary file: {}", std::strerror(errno));
  pid_t pid = fork();
  T2O_CHECK(pid >= 0, "cannot start a process: {}", std::strerror(errno));
  if (pid == 0) {
    ::setpgid(0, 0); // its own group: an interrupt stops ONNX Runtime's threads and helpers too
    dup2(efd, 2);
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0)
      dup2(devnull, 1);
    std::vector<char *> args;
    for (const auto &a : argv)
      args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    dprintf(2, "cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  ::setpgid(pid, pid);
  ChildGuard kill_on_signal(pid);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  close(efd);
  err = read_all(err_path);
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

// The runner's request and answer are lines of tab-separated fields: every field is
// percent-encoded (a byte outside [A-Za-z0-9/._-] as %XX), so names and paths holding tabs,
// newlines or any other byte (an output named "y\nz", a folder named with a newline) pass
// whole. run_model.js decodes them.
std::string percent_encoded(const std::string &s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '/' || c == '.' || c == '_' || c == '-')
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

std::string percent_decoded(const std::string &s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

} // namespace

std::string find_ort_runner() {
  std::vector<fs::path> candidates;
  if (const char *env = std::getenv("TORCH2ONNX_ORT_DIR"))
    candidates.emplace_back(env);
  fs::path exe = self_exe_dir();
  if (!exe.empty())
    candidates.push_back(exe / ".." / "share" / "torch2onnx" / "onnxruntime");
  // PREFIX/lib/libtorch2onnx.so, PREFIX/lib/<arch>/libtorch2onnx.so and
  // PREFIX/lib/python3/dist-packages/torch2onnx/_torch2onnx*.so: PREFIX/share/torch2onnx.
  fs::path lib = self_object_dir();
  for (int up = 1; up <= 4 && !lib.empty(); ++up) {
    lib = lib.parent_path();
    candidates.push_back(lib / "share" / "torch2onnx" / "onnxruntime");
  }
  if (*T2O_INSTALL_DATADIR)
    candidates.push_back(fs::path(T2O_INSTALL_DATADIR) / "onnxruntime");
  if (*T2O_SOURCE_DIR && running_from_build_tree())
    candidates.push_back(fs::path(T2O_SOURCE_DIR) / "third_party" / "onnxruntime");
  for (const auto &c : candidates)
    if (runner_ok(c))
      return fs::weakly_canonical(c).string();
  throw Error("ONNX Runtime is not installed, so --verify cannot run", kInstallHint);
}

std::string onnxruntime_version() {
  try {
    std::string pkg = read_all(fs::path(find_ort_runner()) / "node_modules" / "onnxruntime-node" /
                               "package.json");
    const std::string key = "\"version\"";
    size_t at = pkg.find(key);
    size_t open = at == std::string::npos ? at : pkg.find('"', pkg.find(':', at) + 1);
    size_t close = open == std::string::npos ? open : pkg.find('"', open + 1);
    return close == std::string::npos ? "" : pkg.substr(open + 1, close - open - 1);
  } catch (const Error &) {
    return "";
  }
}

namespace {

// A new private folder in $TMPDIR (default /tmp) for one ONNX Runtime run.
fs::path make_ort_temp_dir() {
  std::error_code tec;
  fs::path tmp_root = fs::temp_directory_path(tec);
  if (tec)
    tmp_root = "/tmp";
  std::string tmpl_s = (tmp_root / "torch2onnx_ortXXXXXX").string();
  std::vector<char> tmpl(tmpl_s.begin(), tmpl_s.end());
  tmpl.push_back('\0');
  T2O_CHECK(mkdtemp(tmpl.data()) != nullptr, "cannot create a temporary folder in '{}': {}",
            tmp_root.string(), std::strerror(errno));
  return fs::path(tmpl.data());
}

// Writes the inputs and the runner's request (dir/request.txt) into `dir`.
void write_ort_request(const fs::path &dir, const std::string &model_path,
                       const std::vector<std::string> &input_names,
                       const std::vector<at::Tensor> &inputs) {
  std::ostringstream req;
  req << percent_encoded(fs::absolute(model_path).string()) << "\n"
      << percent_encoded(dir.string()) << "\n";
  for (size_t i = 0; i < inputs.size(); ++i) {
    TensorData d = to_tensor_data(inputs[i]);
    fs::path f = dir / fmt::format("input_{}.bin", i);
    std::ofstream(f, std::ios::binary)
        .write(d.raw.data(), static_cast<std::streamsize>(d.raw.size()));
    req << percent_encoded(input_names.at(i)) << "\t" << ort_type(d.dtype) << "\t"
        << fmt::format("{}", fmt::join(d.dims, ",")) << "\t" << percent_encoded(f.string()) << "\n";
  }
  std::ofstream(dir / "request.txt") << req.str();
}

// Throws the error a failed runner (exit status `rc`, stderr `err`) stands for.
void check_runner_status(int rc, std::string err, const std::string &runner,
                         const std::string &model_path) {
  if (rc == 127 && err.find("cannot run node") != std::string::npos)
    throw Error("--verify needs Node.js (`node`) on PATH to run ONNX Runtime",
                "install it with `apt-get install nodejs`");
  if (rc > 128) {
    int sig = rc - 128;
    throw Error(fmt::format("ONNX Runtime was killed by signal {} ({}) while running '{}'", sig,
                            ::strsignal(sig), model_path),
                sig == SIGKILL
                    ? "most often the system ran out of memory (the kernel's OOM killer): "
                      "run fewer exports at once (zoo --jobs 1) or on a larger machine"
                    : "the model is kept for a closer look; please report it");
  }
  // The runner's own report of a model ONNX Runtime refused, after whatever ONNX Runtime logged.
  const std::string model_error = "model error: ";
  size_t at = err.rfind(model_error);
  if (rc == 1 && at != std::string::npos && (at == 0 || err[at - 1] == '\n')) {
    err = ort_message(err.substr(at + model_error.size()));
    if (err.find("ut of range") != std::string::npos) // "Out of range" / "out of range"
      throw Error(fmt::format("ONNX Runtime failed to run '{}': {}", model_path, err),
                  "an index the model computed at run time is out of range in ONNX Runtime: with "
                  "--dtype f16/bf16, values an index is computed from (bucket boundaries, an "
                  "epsilon added to a bound) may round differently, so try the float32 export; "
                  "else check the inputs (--input ...:LO..HI ranges, --input-data), and please "
                  "report it if LibTorch runs the same inputs");
    if (err.find("Could not find an implementation") != std::string::npos)
      throw Error(fmt::format("ONNX Runtime failed to run '{}': {}", model_path, err),
                  "ONNX Runtime's CPU build has no kernel for this op at these input types (most "
                  "often float64: Conv, Erf, ...): export the model in float32 (model.float() "
                  "before saving it), or export without --verify for a runtime that has one");
    throw Error(fmt::format("ONNX Runtime failed to run '{}': {}", model_path, err),
                "ONNX Runtime cannot load or run the exported file (a missing kernel may be "
                "there at another --opset; export without --verify to keep the file for a "
                "look); please report it");
  }
  if (rc != 0) {
    err = ort_message(err);
    throw Error(fmt::format("the ONNX Runtime runner (node {}) did not work (exit status {}){}{}",
                            (fs::path(runner) / "run_model.js").string(), rc,
                            err.empty() ? "" : ": ", err),
                "this is a problem of the Node.js / onnxruntime-node installation, not of the "
                "model: check that `node --version` works and reinstall with `make deps` (or "
                "`npm ci --ignore-scripts` in the runner's folder)");
  }
}

// The tensor one line of the runner's outputs.txt names (name, type, dims, data file).
at::Tensor read_ort_output(const std::string &line) {
  std::vector<std::string> f;
  std::istringstream ls(line);
  std::string part;
  while (std::getline(ls, part, '\t'))
    f.push_back(part);
  T2O_CHECK(f.size() == 4, "malformed ONNX Runtime output line '{}'", printable(line));
  TensorData d;
  d.dtype = from_ort_type(f[1]);
  std::istringstream ds(f[2]);
  std::string dim;
  while (std::getline(ds, dim, ','))
    d.dims.push_back(std::stoll(dim));
  d.raw = read_all(percent_decoded(f[3]));
  int64_t bytes = 0;
  T2O_CHECK(checked_nbytes(d.dims, dtype_size(d.dtype), bytes) &&
                static_cast<uint64_t>(bytes) == d.raw.size(),
            "ONNX Runtime's output '{}' of shape [{}] came back with {} bytes",
            printable(percent_decoded(f[0])), fmt::join(d.dims, ","), d.raw.size());
  return from_tensor_data(d);
}

} // namespace

std::vector<at::Tensor> run_onnxruntime(const std::string &model_path,
                                        const std::vector<std::string> &input_names,
                                        const std::vector<at::Tensor> &inputs) {
  std::string runner = find_ort_runner();
  // Removed on return, and by the signal handler on SIGINT/SIGTERM.
  fs::path dir = make_ort_temp_dir();
  TempFileGuard remove_on_signal(dir.string(), /*is_dir=*/true);
  struct Cleanup {
    fs::path d;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(d, ec);
    }
  } cleanup{dir};
  write_ort_request(dir, model_path, input_names, inputs);
  std::string err;
  int rc = run_process(
      {"node", (fs::path(runner) / "run_model.js").string(), (dir / "request.txt").string()}, dir,
      err);
  check_runner_status(rc, err, runner, model_path);
  std::vector<at::Tensor> outs;
  std::istringstream lines(read_all(dir / "outputs.txt"));
  std::string line;
  while (std::getline(lines, line))
    if (!line.empty())
      outs.push_back(read_ort_output(line));
  return outs;
}

std::vector<OutputCheck> compare_outputs(const std::vector<std::string> &names,
                                         const std::vector<at::Tensor> &expected,
                                         const std::vector<at::Tensor> &actual, double rtol,
                                         double atol, const std::vector<double> &steps) {
  std::vector<OutputCheck> checks;
  for (size_t i = 0; i < expected.size(); ++i) {
    OutputCheck c;
    c.name = i < names.size() ? names[i] : fmt::format("output_{}", i);
    if (i >= actual.size()) {
      c.problem = "ONNX Runtime did not return this output";
      checks.push_back(c);
      continue;
    }
    at::Tensor e = expected[i].detach().to(at::kDouble);
    at::Tensor a = actual[i].detach().to(at::kDouble);
    if (e.sizes() != a.sizes()) {
      c.shape_ok = false;
      c.problem = fmt::format("shape differs: LibTorch {} vs ONNX Runtime {}",
                              fmt::join(e.sizes(), "x"), fmt::join(a.sizes(), "x"));
      checks.push_back(c);
      continue;
    }
    if (expected[i].scalar_type() != actual[i].scalar_type() &&
        !(expected[i].scalar_type() == at::kBool && actual[i].scalar_type() == at::kByte))
      c.problem = fmt::format("dtype differs: LibTorch {} vs ONNX Runtime {}",
                              c10::toString(expected[i].scalar_type()),
                              c10::toString(actual[i].scalar_type()));
    if (e.numel() > 0) {
      at::Tensor nan_e = at::isnan(e), nan_a = at::isnan(a);
      if (!at::equal(nan_e, nan_a))
        c.problem = "NaN positions differ";
      at::Tensor finite = at::isfinite(e);
      at::Tensor inf_mismatch = (~finite & ~nan_e) & (e != a);
      if (inf_mismatch.any().item<bool>())
        c.problem = "infinite values differ";
      at::Tensor diff = at::where(finite, (e - a).abs(), at::zeros_like(e));
      at::Tensor diff_nan = at::isnan(diff);
      c.max_abs_error = diff.masked_fill(diff_nan, 0).max().item<double>();
      if (diff_nan.any().item<bool>())
        c.problem = "ONNX Runtime produced NaN where LibTorch did not";
      c.max_abs_ref = at::where(finite, e.abs(), at::zeros_like(e)).max().item<double>();
      // All NaN/Inf on both sides, at the same places: they agree, but the numbers show little.
      if (!finite.any().item<bool>() && c.problem.empty())
        c.note =
            "no finite value (all NaN/Inf), the same in both: the comparison shows little; "
            "give inputs whose outputs are finite (--input-data, or ranges like x:f32[..]:0..1)";
    }
    c.max_rel_error = c.max_abs_error / std::max(1.0, c.max_abs_ref);
    c.tolerance = std::max(atol, rtol * c.max_abs_ref);
    // A float16 / bfloat16 output (a model saved in half precision) holds 11 / 8 significant
    // bits: LibTorch's CPU kernels sum in float32 and round once, a runtime's float16 kernels
    // round as they go, so they differ by an ulp or two (1e-3 relative) on correct files.
    if (expected[i].scalar_type() == at::kHalf || expected[i].scalar_type() == at::kBFloat16) {
      double low = expected[i].scalar_type() == at::kHalf ? kFloat16Tolerance : kBFloat16Tolerance;
      c.tolerance = std::max(c.tolerance, std::max(low, low * c.max_abs_ref));
    }
    // Integers (indices, counts, labels) compare exactly: a relative tolerance of an index near
    // 30000 would let it be off by 3.
    if (!at::isFloatingType(expected[i].scalar_type()) &&
        !at::isComplexType(expected[i].scalar_type()))
      c.tolerance = 0;
    c.values = e.numel();
    if (i < steps.size() && steps[i] > 0 && e.numel() > 0) {
      // A quantized output: values on a grid of this step (docs/quantized.md).
      c.step = steps[i];
      // Errors are whole steps (both sides lie on the grid): k steps pass, with room for the
      // float rounding of the differences themselves.
      c.tolerance = std::max(c.tolerance, (kQuantizedStepTolerance + 1e-3) * c.step);
      c.beyond_one_step = ((e - a).abs() > 1.001 * c.step).sum().item<int64_t>();
    }
    checks.push_back(c);
  }
  return checks;
}

namespace {

std::string bytes_text(double bytes) {
  const char *units[] = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) {
    bytes /= 1024;
    ++u;
  }
  return fmt::format("{:.3g} {}", bytes, units[u]);
}

// Refuses, before LibTorch tries to allocate it, an example input larger than this machine's
// memory (f32[999999999999,3,224,224], --verify-dims n=1e11): a clear message instead of LibTorch's
// allocator backtrace.
void check_input_size(const InputSpec &s, const std::vector<int64_t> &dims, size_t index) {
  double elems = 1;
  for (int64_t d : dims)
    elems *= static_cast<double>(std::max<int64_t>(d, 0));
  double bytes = elems * static_cast<double>(dtype_size(s.dtype));
  long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  double machine = pages > 0 && page > 0 ? static_cast<double>(pages) * page : 64.0 * (1ull << 30);
  if (bytes <= machine / 2)
    return;
  std::string name = s.name.empty() ? fmt::format("input {}", index) : fmt::format("'{}'", s.name);
  throw Error(fmt::format("{} of shape [{}] ({}) needs {} of memory for one example, more than "
                          "half of this machine's {}",
                          name, fmt::join(dims, ","), dtype_name(s.dtype), bytes_text(bytes),
                          bytes_text(machine)),
              "check the dims in --input and --verify-dims: examples should be small (e.g. "
              "batch=1); a symbolic dim keeps the ONNX model general whatever its example size");
}

} // namespace

std::vector<at::Tensor>
make_example_inputs(const std::vector<InputSpec> &specs, uint64_t seed,
                    const std::vector<std::pair<std::string, int64_t>> &sizes) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  std::vector<at::Tensor> out;
  for (const auto &s : specs) {
    std::vector<int64_t> dims;
    for (const auto &d : s.dims) {
      int64_t v = d.value;
      for (const auto &[name, size] : sizes)
        if (!d.symbol.empty() && d.symbol == name)
          v = size;
      dims.push_back(v);
    }
    check_input_size(s, dims, out.size());
    auto st = to_scalar_type(s.dtype);
    at::Tensor t;
    if (s.has_range && is_floating(s.dtype)) {
      t = (at::rand(dims, gen, at::TensorOptions().dtype(at::kDouble)) * (s.high - s.low) + s.low)
              .to(st);
    } else if (s.has_range) {
      t = at::randint(static_cast<int64_t>(s.low), static_cast<int64_t>(s.high) + 1, dims, gen,
                      at::TensorOptions().dtype(at::kLong))
              .to(st);
    } else if (is_floating(s.dtype)) {
      t = at::randn(dims, gen, at::TensorOptions().dtype(at::kFloat)).to(st);
    } else if (s.dtype == DType::Bool) {
      t = at::randint(0, 2, dims, gen, at::TensorOptions().dtype(at::kLong)).to(at::kBool);
    } else {
      t = at::randint(0, 10, dims, gen, at::TensorOptions().dtype(at::kLong)).to(st);
    }
    out.push_back(t);
  }
  return out;
}

void write_test_data(const std::string &dir, const std::vector<std::string> &input_names,
                     const std::vector<at::Tensor> &inputs,
                     const std::vector<std::string> &output_names,
                     const std::vector<at::Tensor> &outputs) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  T2O_CHECK(!ec, "cannot create test-data folder '{}': {}", dir, ec.message());
  for (size_t i = 0; i < inputs.size(); ++i)
    save_tensor_proto((fs::path(dir) / fmt::format("input_{}.pb", i)).string(),
                      to_tensor_data(inputs[i]), input_names.at(i));
  for (size_t i = 0; i < outputs.size(); ++i)
    save_tensor_proto((fs::path(dir) / fmt::format("output_{}.pb", i)).string(),
                      to_tensor_data(outputs[i]), i < output_names.size() ? output_names[i] : "");
}

std::vector<OutputCheck> verify_run(const VerifyRun &run, const std::vector<at::Tensor> &expected,
                                    const std::function<void(const std::string &)> &say) {
  auto tell = [&](const std::string &m) {
    if (say)
      say(m);
  };
  write_test_data(run.test_data_dir, run.input_names, run.inputs, run.output_names, expected);
  tell("verifying: running the ONNX model in ONNX Runtime");
  auto actual = run_onnxruntime(run.onnx_path, run.input_names, run.inputs);
  if (run.onnxruntime_outputs)
    *run.onnxruntime_outputs = actual;
  auto checks =
      compare_outputs(run.output_names, expected, actual, run.rtol, run.atol, run.output_steps);
  if (actual.size() != expected.size()) {
    OutputCheck extra;
    extra.name = "(outputs)";
    extra.problem = fmt::format("LibTorch returned {} outputs, ONNX Runtime {}", expected.size(),
                                actual.size());
    checks.push_back(extra);
  }
  for (auto &ch : checks)
    ch.sizes = run.label;
  return checks;
}

} // namespace torch2onnx
