// Parsing a subcommand's flags with CLI11 the way every torch2onnx command reports them.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fmt/format.h>
#include <optional>
#include <string>

namespace torch2onnx {

// Parses argv into `app`. Returns nullopt when the command should run; otherwise its exit code:
// 0 after --help, 2 after a usage error, printed as one error line and a hint to
// `torch2onnx COMMAND --help` (CLI11's own exit codes, 105, 109, ..., are outside the documented
// 0/1/2). Example: if (auto rc = parse_flags(app, argc, argv, "show")) return *rc;
inline std::optional<int> parse_flags(CLI::App &app, int argc, char **argv,
                                      const std::string &command) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    if (e.get_exit_code() == 0)
      return app.exit(e); // --help
    fmt::print(stderr, "torch2onnx: error: {}\n  hint: see torch2onnx {} --help\n", e.what(),
               command);
    return 2;
  }
  return std::nullopt;
}

} // namespace torch2onnx
