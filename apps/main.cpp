// The torch2onnx command line: dispatches to the export command (apps/export_cmd.h), `ops`,
// `show` (apps/show.h) and `zoo` (apps/zoo.h).
#include "apps/export_cmd.h"
#include "apps/show.h"
#include "apps/zoo.h"
#include "aten_lib/converter.h"
#include "aten_lib/plugins.h"
#include "builder/error.h"
#include "builder/file_io.h"
#include "builder/printable.h"
#include "builder/process.h"

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <fmt/format.h>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <unistd.h>

using namespace torch2onnx;

namespace {

// A JSON string (quotes, backslashes, control characters escaped; bytes that are not UTF-8
// replaced): plugin paths and names come from the command line and from plugins.
std::string json_string(const std::string &s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void print_ops_json(const std::vector<const RegistryEntry *> &chosen) {
  fmt::print("[\n");
  for (size_t i = 0; i < chosen.size(); ++i) {
    std::vector<std::string> q;
    for (const auto &o : chosen[i]->onnx_ops)
      q.push_back(json_string(o));
    std::string plugin = chosen[i]->plugin.empty() ? "null" : json_string(chosen[i]->plugin);
    fmt::print("  {{\"op\": {}, \"since_opset\": {}, \"family\": {}, \"onnx_ops\": [{}], "
               "\"complex\": {}, \"plugin\": {}}}{}\n",
               json_string(chosen[i]->op), chosen[i]->since_opset, json_string(chosen[i]->family),
               fmt::join(q, ", "), chosen[i]->complex_fn ? "true" : "false", plugin,
               i + 1 < chosen.size() ? "," : "");
  }
  fmt::print("]\n");
}

void print_error(const Error &e) {
  fmt::print(stderr, "torch2onnx: error: {}\n", printable(e.what(), /*keep_newlines=*/true));
  if (!e.hint().empty())
    fmt::print(stderr, "  hint: {}\n", printable(e.hint(), true));
}

int run_ops(int argc, char **argv) {
  CLI::App app{"torch2onnx ops: list the aten op converters"};
  int opset = kDefaultOpset;
  bool json = false;
  app.add_option("--opset", opset, "show the converter chosen at this opset")
      ->check(CLI::Range(kMinOpset, kMaxOpset));
  app.add_flag("--json", json, "print JSON for scripts");
  std::vector<std::string> plugins;
  app.add_option("--converters", plugins,
                 "also list the converters of these plugins (shared libraries; docs/plugins.md)")
      ->take_all();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    if (e.get_exit_code() == 0)
      return app.exit(e); // --help
    // CLI11's own exit codes (105, 109, ...) are outside the documented 0/1/2.
    fmt::print(stderr, "torch2onnx: error: {}\n  hint: see torch2onnx ops --help\n", e.what());
    return 2;
  }
  std::unique_ptr<Registry> with_plugins;
  try {
    // A plugin that crashes while it loads or registers is one error line (process.h), naming it.
    for (const auto &p : plugins)
      check_shared_library(p, "converter plugin");
    with_plugins = registry_with_plugins(nullptr, plugins, "");
  } catch (const Error &e) {
    print_error(e);
    return 1;
  }
  const Registry &reg = with_plugins ? *with_plugins : Registry::global();
  std::vector<const RegistryEntry *> chosen;
  std::string last;
  for (const auto *e : reg.entries()) {
    if (e->op == last)
      continue;
    if (const auto *f = reg.find(e->op, opset)) {
      chosen.push_back(f);
      last = e->op;
    }
  }
  if (json) {
    print_ops_json(chosen);
    return 0;
  }
  fmt::print("{:<36} {:>5}  {:<12} {}\n", "op", "since", "family", "ONNX ops");
  size_t from_plugins = 0;
  for (const auto *e : chosen) {
    fmt::print("{:<36} {:>5}  {:<12} {}{}\n", printable(e->op), e->since_opset,
               printable(e->family), printable(fmt::format("{}", fmt::join(e->onnx_ops, ", "))),
               e->plugin.empty() ? "" : "  [plugin " + printable(e->plugin) + "]");
    from_plugins += !e->plugin.empty();
  }
  fmt::print("{} ops at opset {}{}\n", chosen.size(), opset,
             from_plugins ? fmt::format(" ({} from plugins)", from_plugins) : "");
  return 0;
}

} // namespace

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
