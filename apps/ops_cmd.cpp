// `torch2onnx ops`: the converters chosen at an opset (plugins included), as a table or JSON.
#include "apps/ops_cmd.h"

#include "apps/cli_parse.h"
#include "aten_lib/converter.h"
#include "aten_lib/plugins.h"
#include "builder/error.h"
#include "builder/printable.h"
#include "builder/process.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <string>

namespace torch2onnx {

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

} // namespace

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
  if (auto rc = parse_flags(app, argc, argv, "ops"))
    return *rc;
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

} // namespace torch2onnx
