// The torch2onnx command line: dispatches to the export command (apps/export_cmd.h), `ops`
// (apps/ops_cmd.h), `show` (apps/show.h) and `zoo` (apps/zoo.h).
#include "apps/export_cmd.h"
#include "apps/ops_cmd.h"
#include "apps/show.h"
#include "apps/zoo.h"
#include "builder/process.h"

#include <csignal>
#include <cstdio>
#include <fmt/format.h>
#include <iostream>
#include <string>
#include <unistd.h>

using namespace torch2onnx;

// The command line's entry point, called by the torch2onnx launcher (apps/launcher.cpp), which
// loads this library itself so that running out of memory while LibTorch loads is a clean error.
extern "C" int torch2onnx_cli_main(int argc, char **argv) {
  // Past a file-size limit (ulimit -f) write() then fails with EFBIG and the atomic writer reports
  // it cleanly, instead of SIGXFSZ killing the process mid-write.
  std::signal(SIGXFSZ, SIG_IGN);
  const std::string command = argc > 1 ? argv[1] : "";
  if (command == "ops" || command == "show") {
    // A plugin that aborts or segfaults while it loads (ops --converters), or a crash reading a
    // file: one error line and exit 1, as for an export.
    install_signal_cleanup();
    int rc = 1;
    try {
      rc = command == "ops" ? run_ops(argc - 1, argv + 1) : show::run_show(argc - 1, argv + 1);
    } catch (...) {
      fmt::print(stderr, "torch2onnx: internal error: an exception that is not a std::exception "
                         "was thrown (by a converter plugin?)\n");
    }
    std::fflush(nullptr);
    return rc;
  }
  if (command == "zoo")
    return zoo::run_zoo(argc - 1, argv + 1);
  // SIGINT/SIGTERM remove the temporary files and stop ONNX Runtime; a crash is one error line.
  install_signal_cleanup();
  // LibTorch's interpreter recurses once per node: deep graphs need more than the 8 MB main stack.
  int rc = 1;
  run_on_large_stack([&] { rc = run_export(argc, argv); });
  // _exit, not exit: under a memory limit OpenBLAS's exit handler can wait forever for a worker
  // that never got its buffer (issue 17). Everything of ours is written and closed by now.
  std::cout.flush();
  std::fflush(nullptr);
  ::_exit(rc);
}
