#include "exporter/frontend/torchscript/reference.h"

#include "builder/error.h"
#include "builder/process.h"
#include "exporter/core/tensor_util.h"
#include "exporter/verify/runner.h"

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>
#include <csignal>
#include <cstring>
#include <dlfcn.h>
#include <exception>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <unistd.h>

#ifndef T2O_BINARY_DIR
#define T2O_BINARY_DIR ""
#endif
#ifndef T2O_INSTALL_LIBEXECDIR
#define T2O_INSTALL_LIBEXECDIR ""
#endif

namespace torch2onnx {

namespace fs = std::filesystem;

namespace {

const char *kProgram = "torch2onnx-reference";

// Attributes forward writes into (a KV cache) or assigns (a rotary cache it grows): each run
// starts from the saved values, as every call of the ONNX file does.
class ModuleState {
public:
  ModuleState(torch::jit::Module &module, const std::vector<std::string> &paths) {
    for (const auto &p : paths) {
      Saved s;
      if (!lookup(module, p, s))
        continue;
      c10::IValue v = s.object->getAttr(s.name);
      s.live = v;
      s.value = v.isTensor() ? c10::IValue(v.toTensor().clone()) : v;
      saved_.push_back(std::move(s));
    }
  }
  void restore() {
    at::NoGradGuard no_grad;
    for (auto &s : saved_) {
      c10::IValue now = s.object->getAttr(s.name);
      if (s.value.isTensor() && now.isTensor() && now.toTensor().is_same(s.live.toTensor()) &&
          now.toTensor().sizes() == s.value.toTensor().sizes())
        now.toTensor().copy_(s.value.toTensor()); // written in place: the same tensor again
      else
        s.object->setAttr(s.name,
                          s.value.isTensor() ? c10::IValue(s.value.toTensor().clone()) : s.value);
      s.live = s.object->getAttr(s.name);
    }
  }

private:
  struct Saved {
    c10::intrusive_ptr<c10::ivalue::Object> object;
    std::string name;
    c10::IValue value, live; // the saved value; the attribute the module holds now
  };
  static bool lookup(torch::jit::Module &module, const std::string &path, Saved &out) {
    c10::IValue v = module._ivalue();
    size_t pos = 0;
    while (true) {
      size_t dot = path.find('.', pos);
      std::string part = path.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos);
      if (!v.isObject() || !v.toObject()->type()->hasAttribute(part))
        return false;
      if (dot == std::string::npos) {
        out.object = v.toObject();
        out.name = part;
        return true;
      }
      v = v.toObject()->getAttr(part);
      pos = dot + 1;
    }
  }
  std::vector<Saved> saved_;
};

// A forward argument with its tensors copied: the model may write into its inputs.
c10::IValue clone_tensors(const c10::IValue &v) {
  if (v.isTensor())
    return v.toTensor().clone();
  if (v.isTensorList()) {
    c10::List<at::Tensor> out;
    for (const at::Tensor &t : v.toTensorList().vec())
      out.push_back(t.clone());
    return out;
  }
  if (v.isTuple()) {
    std::vector<c10::IValue> elems;
    for (const auto &e : v.toTupleRef().elements())
      elems.push_back(clone_tensors(e));
    return c10::ivalue::Tuple::create(std::move(elems));
  }
  return v;
}

// Runs forward once per run; on a failure, the outputs so far and the error text.
std::vector<std::vector<at::Tensor>> run_all(torch::jit::Module &module,
                                             const std::vector<std::string> &written,
                                             const std::vector<std::vector<c10::IValue>> &runs,
                                             std::string &error) {
  at::NoGradGuard no_grad;
  ModuleState state(module, written);
  std::vector<std::vector<at::Tensor>> out;
  for (const auto &args : runs) {
    state.restore();
    std::vector<c10::IValue> fresh;
    for (const auto &a : args)
      fresh.push_back(clone_tensors(a));
    try {
      out.push_back(flatten_tensors(module.forward(fresh)));
    } catch (const std::exception &e) {
      error = e.what();
      break;
    }
  }
  state.restore(); // the module is left as saved (a caller may run its graph next)
  return out;
}

std::string read_all(const fs::path &p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void write_all(const fs::path &p, const std::vector<char> &bytes) {
  std::ofstream f(p, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  T2O_CHECK(f.good(), "cannot write '{}': {}", p.string(), std::strerror(errno));
}

fs::path object_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void *>(&object_dir), &info) == 0 || info.dli_fname == nullptr)
    return {};
  std::error_code ec;
  fs::path p = fs::canonical(info.dli_fname, ec);
  return ec ? fs::path() : p.parent_path();
}

// Runs `argv` with stdout to /dev/null and stderr into `err`; returns the exit status (128 +
// signal when killed).
int run_child(const std::vector<std::string> &argv, const fs::path &dir, std::string &err) {
  const std::string err_path = (dir / "stderr.txt").string();
  int efd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  T2O_CHECK(efd >= 0, "cannot create a temporary file: {}", std::strerror(errno));
  std::vector<char *> args;
  for (const auto &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(efd);
    throw Error(
        fmt::format("cannot start the LibTorch reference process: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(efd, 2);
    int devnull = ::open("/dev/null", O_WRONLY);
    if (devnull >= 0)
      ::dup2(devnull, 1);
    ::execv(args[0], args.data());
    dprintf(2, "cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  ::setpgid(pid, pid);
  ChildGuard kill_on_signal(pid);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::close(efd);
  err = read_all(err_path);
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

// A temporary folder, removed on return and by the signal handler.
struct TempDir {
  fs::path path;
  std::unique_ptr<TempFileGuard> guard;
  TempDir() {
    std::error_code ec;
    fs::path root = fs::temp_directory_path(ec);
    if (ec)
      root = "/tmp";
    std::string tmpl = (root / "torch2onnx_refXXXXXX").string();
    T2O_CHECK(::mkdtemp(tmpl.data()) != nullptr, "cannot create a temporary folder in '{}': {}",
              root.string(), std::strerror(errno));
    path = tmpl;
    guard = std::make_unique<TempFileGuard>(path.string(), /*is_dir=*/true);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

[[noreturn]] void model_failed(const std::string &what, const std::string &label) {
  if (is_out_of_memory(what))
    throw out_of_memory("running the model in LibTorch for --verify");
  throw Error(fmt::format("the model failed in LibTorch{}: {}", label.empty() ? "" : " at " + label,
                          summarize_torch_error(what)));
}

std::vector<std::vector<at::Tensor>>
reference_in_process(torch::jit::Module module, const std::vector<std::string> &written,
                     const std::vector<std::vector<c10::IValue>> &runs,
                     const std::vector<std::string> &labels) {
  std::string error;
  auto out = run_all(module, written, runs, error);
  if (!error.empty()) {
    const size_t k = out.size();
    model_failed(error, k < labels.size() ? labels[k] : "");
  }
  return out;
}

c10::IValue string_list(const std::vector<std::string> &v) {
  c10::List<std::string> out;
  for (const auto &s : v)
    out.push_back(s);
  return out;
}

} // namespace

std::string find_reference_program() {
  std::vector<fs::path> candidates;
  if (const char *env = std::getenv("TORCH2ONNX_REFERENCE"))
    candidates.emplace_back(env);
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    candidates.push_back(exe.parent_path() / kProgram);
    candidates.push_back(exe.parent_path() / ".." / "libexec" / "torch2onnx" / kProgram);
  }
  // PREFIX/lib[/<arch>]/libtorch2onnx.so and the Python extension: PREFIX/libexec/torch2onnx.
  fs::path lib = object_dir();
  candidates.push_back(lib / kProgram);
  for (int up = 1; up <= 4 && !lib.empty(); ++up) {
    lib = lib.parent_path();
    candidates.push_back(lib / "libexec" / "torch2onnx" / kProgram);
  }
  if (*T2O_INSTALL_LIBEXECDIR)
    candidates.push_back(fs::path(T2O_INSTALL_LIBEXECDIR) / "torch2onnx" / kProgram);
  if (*T2O_BINARY_DIR && running_from_build_tree())
    candidates.push_back(fs::path(T2O_BINARY_DIR) / kProgram);
  for (const auto &c : candidates)
    if (!c.empty() && ::access(c.c_str(), X_OK) == 0)
      return fs::weakly_canonical(c).string();
  throw Error(fmt::format("--verify cannot find its LibTorch reference program ({})", kProgram),
              "it is built and installed with torch2onnx (cmake --install); or set "
              "TORCH2ONNX_REFERENCE to its path");
}

std::vector<std::vector<at::Tensor>>
reference_outputs(const ReferenceModel &model, const std::vector<std::vector<c10::IValue>> &runs,
                  const std::vector<std::string> &labels) {
  if (model.path.empty())
    return reference_in_process(model.module, model.written_attributes, runs, labels);
  const std::string program = find_reference_program();
  TempDir dir;
  c10::List<c10::IValue> run_list(c10::AnyType::get());
  for (const auto &args : runs) {
    c10::List<c10::IValue> one(c10::AnyType::get());
    for (const auto &a : args)
      one.push_back(a);
    run_list.push_back(one);
  }
  auto request = c10::ivalue::Tuple::create({string_list(model.written_attributes), run_list});
  write_all(dir.path / "request.pt", torch::jit::pickle_save(request));
  std::vector<std::string> argv = {program, fs::absolute(model.path).string(),
                                   (dir.path / "request.pt").string(),
                                   (dir.path / "response.pt").string()};
  for (const auto &lib : model.libraries)
    argv.push_back(fs::absolute(lib).string());
  std::string err;
  const int rc = run_child(argv, dir.path, err);
  while (!err.empty() && (err.back() == '\n' || err.back() == ' '))
    err.pop_back();
  if (rc > 128) {
    const int sig = rc - 128;
    throw Error(fmt::format("LibTorch's run of the model for --verify was killed by signal {} "
                            "({}){}",
                            sig, ::strsignal(sig), err.empty() ? "" : ": " + first_error_line(err)),
                sig == SIGKILL ? "most often the system ran out of memory (the kernel's OOM "
                                 "killer): close other programs or use a larger machine"
                               : "the model crashes LibTorch on these inputs; check that it runs "
                                 "in PyTorch on them");
  }
  if (rc == 3)
    throw out_of_memory("running the model in LibTorch for --verify (in its own process)");
  if (rc != 0 || !fs::exists(dir.path / "response.pt"))
    throw Error(fmt::format("--verify's LibTorch reference process failed (exit status {}){}", rc,
                            err.empty() ? "" : ": " + first_error_line(err)),
                "check that the model loads with torch.jit.load in PyTorch");
  std::string bytes = read_all(dir.path / "response.pt");
  c10::IValue response = torch::jit::pickle_load(std::vector<char>(bytes.begin(), bytes.end()));
  const auto &parts = response.toTupleRef().elements();
  std::vector<std::vector<at::Tensor>> out;
  for (const auto &run : parts.at(1).toListRef()) {
    std::vector<at::Tensor> tensors;
    for (const auto &t : run.toListRef())
      tensors.push_back(t.toTensor());
    out.push_back(std::move(tensors));
  }
  const std::string error = parts.at(0).toStringRef();
  if (!error.empty()) {
    const size_t k = out.size();
    model_failed(error, k < labels.size() ? labels[k] : "");
  }
  return out;
}

namespace {

// The reference program's work (reference_main): exit status 0, 1 (an error, on stderr) or 3 (out
// of memory).
int reference_run(int argc, char **argv) {
  try {
    for (int i = 4; i < argc; ++i)
      if (!::dlopen(argv[i], RTLD_NOW | RTLD_GLOBAL))
        throw Error(fmt::format("cannot load '{}': {}", argv[i], ::dlerror()));
    std::string bytes = read_all(argv[2]);
    c10::IValue request = torch::jit::pickle_load(std::vector<char>(bytes.begin(), bytes.end()));
    const auto &parts = request.toTupleRef().elements();
    std::vector<std::string> written;
    for (const auto &s : parts.at(0).toListRef())
      written.push_back(s.toStringRef());
    std::vector<std::vector<c10::IValue>> runs;
    for (const auto &r : parts.at(1).toListRef())
      runs.push_back(r.toListRef().vec());
    prepare_for_memory_limit();
    // LibTorch's own load: not the exporter's mapped one, whatever TORCH2ONNX_LOAD says.
    torch::jit::Module module = torch::jit::load(argv[1]);
    module.eval();
    std::string error;
    auto out = run_all(module, written, runs, error);
    c10::List<c10::IValue> results(c10::AnyType::get());
    for (const auto &tensors : out) {
      c10::List<c10::IValue> one(c10::AnyType::get());
      for (const auto &t : tensors)
        one.push_back(t);
      results.push_back(one);
    }
    const std::string tmp = std::string(argv[3]) + ".tmp";
    write_all(tmp, torch::jit::pickle_save(c10::ivalue::Tuple::create({error, results})));
    fs::rename(tmp, argv[3]);
    return 0;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s\n", first_error_line(e.what()).c_str());
    return is_out_of_memory(e.what()) ? 3 : 1;
  }
}

} // namespace

namespace {
// Under a memory limit (ulimit -v) an allocation can fail inside LibTorch's writer, whose
// destructor then throws again and ends the process through std::terminate: that is running out
// of memory too, reported as such (exit 3) instead of as a crash.
[[noreturn]] void terminate_under_limit() {
  if (memory_limited()) {
    static const char msg[] = "out of memory: LibTorch stopped under the memory limit\n";
    (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
    ::_exit(3);
  }
  std::abort();
}
} // namespace

int reference_main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: %s MODEL.pt REQUEST RESPONSE [LIBRARY...]\n"
                 "(run by torch2onnx --verify: LibTorch's own answer for the model)\n",
                 argv[0]);
    return 2;
  }
  install_signal_cleanup();
  std::set_terminate(terminate_under_limit);
  set_phase("running the model in LibTorch (the --verify reference)");
  int rc = 1;
  // LibTorch's interpreter recurses once per node: deep graphs need the export's large stack here
  // too (a traced chain of 20,000 ops).
  run_on_large_stack([&] { rc = reference_run(argc, argv); });
  std::fflush(nullptr);
  ::_exit(rc); // as the CLI: OpenBLAS's exit handler may wait for ever under a memory limit
}

} // namespace torch2onnx
