// The torch2onnx executable: a small program that links no LibTorch and loads the command line
// (libtorch2onnx-cli.so, apps/main.cpp) itself. LibTorch and its ~290 shared libraries need about
// 800 MB of address space before main runs; under a lower memory limit (ulimit -v) the dynamic
// loader or a static constructor fails first, and a program linked against them could only die
// with the loader's message (exit 127) or an uncaught std::bad_alloc (exit 134). Loaded from here,
// that failure is the usual one-line out-of-memory error with exit status 1.
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <exception>
#include <new>
#include <string>
#include <sys/resource.h>
#include <unistd.h>

#ifndef T2O_CLI_LIBRARY
#define T2O_CLI_LIBRARY "libtorch2onnx-cli.so"
#endif
#ifndef T2O_CLI_INSTALL_DIR
#define T2O_CLI_INSTALL_DIR "../lib/torch2onnx"
#endif

namespace {

std::string limit_text() {
  struct rlimit r {};
  if (::getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY)
    return "";
  return std::to_string(static_cast<unsigned long long>(r.rlim_cur) >> 20) + " MB";
}

[[noreturn]] void out_of_memory() {
  const std::string limit = limit_text();
  std::fprintf(stderr,
               "torch2onnx: error: out of memory while loading LibTorch's libraries%s%s%s\n"
               "  hint: raise the limit (ulimit -v); an export needs LibTorch (about 1 GB of "
               "address space) plus about twice the model's weights\n",
               limit.empty() ? "" : " (the process memory limit, ulimit -v, is ", limit.c_str(),
               limit.empty() ? "" : ")");
  std::fflush(stderr);
  ::_exit(1);
}

// A static constructor of LibTorch's libraries that throws while they load (std::bad_alloc under
// a memory limit) ends here.
[[noreturn]] void on_terminate() {
  bool oom = false;
  std::string what = "an exception was thrown while LibTorch's libraries loaded";
  if (std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::bad_alloc &) {
      oom = true;
    } catch (const std::exception &x) {
      what = x.what();
    } catch (...) {
    }
  }
  if (oom || std::strstr(what.c_str(), "alloc") != nullptr)
    out_of_memory();
  std::fprintf(stderr, "torch2onnx: error: cannot start: %s\n", what.c_str());
  std::fflush(stderr);
  ::_exit(1);
}

std::string self_dir() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0)
    return ".";
  std::string p(buf, static_cast<size_t>(n));
  return p.substr(0, p.rfind('/'));
}

} // namespace

int main(int argc, char **argv) {
  const std::string dir = self_dir();
  std::string candidates[] = {dir + "/" + T2O_CLI_LIBRARY,
                              dir + "/" + T2O_CLI_INSTALL_DIR + "/" + T2O_CLI_LIBRARY};
  std::terminate_handler previous = std::set_terminate(on_terminate);
  void *lib = nullptr;
  std::string error;
  for (const std::string &path : candidates) {
    if (::access(path.c_str(), R_OK) != 0)
      continue;
    lib = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (lib)
      break;
    const char *e = ::dlerror();
    error = e ? e : "unknown error";
    // The loader cannot map a library's segments, or cannot allocate its own tables.
    if (error.find("failed to map segment") != std::string::npos ||
        error.find("annot allocate memory") != std::string::npos ||
        error.find("cannot create") != std::string::npos)
      out_of_memory();
    break;
  }
  if (!lib) {
    std::fprintf(stderr, "torch2onnx: error: cannot load the torch2onnx library (%s): %s\n",
                 T2O_CLI_LIBRARY, error.empty() ? "not found beside the program" : error.c_str());
    std::fprintf(stderr, "  hint: reinstall torch2onnx (cmake --install, or the package)\n");
    return 1;
  }
  std::set_terminate(previous);
  using Main = int (*)(int, char **);
  auto cli_main = reinterpret_cast<Main>(::dlsym(lib, "torch2onnx_cli_main"));
  if (!cli_main) {
    std::fprintf(stderr, "torch2onnx: error: %s has no torch2onnx_cli_main\n", T2O_CLI_LIBRARY);
    return 1;
  }
  return cli_main(argc, argv);
}
