// `torch2onnx show MODEL.onnx`: a readable listing of any ONNX file (ours or another exporter's):
// one line per node with its inputs and outputs typed, attributes in short form, and, for files
// torch2onnx wrote, the aten op and module scope the node came from. `--json` for tools.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace torch2onnx::show {

// The listing as JSON (docs/show.md). Weights are never read: initializers are summarized from
// their dims and dtype, so files with external data need not have it beside them. Throws Error
// when `path` is not a readable ONNX model.
nlohmann::ordered_json describe(const std::string &path);

// The same as text, one line per node, subgraphs and local functions indented.
std::string text(const nlohmann::ordered_json &model);

// The `show` subcommand; argv[0] is "show". Returns the exit status (0, 1 unreadable file,
// 2 command-line mistake).
int run_show(int argc, char **argv);

} // namespace torch2onnx::show
