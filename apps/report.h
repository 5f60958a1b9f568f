// `--report FILE`: one document per export (JSON, or markdown for a .md path), written whether the
// export succeeded or not. docs/report.md describes the fields; zoo mode reads the JSON.
#pragma once

#include "builder/error.h"
#include "exporter/export.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace torch2onnx::report {

constexpr const char *kFormat = "torch2onnx-report";
constexpr int kVersion = 1;

// Why an export did not finish.
struct Failure {
  std::string kind;    // "usage" (exit 2), "export", "internal" or "crash" (exit 1)
  std::string message; // the error, as printed after "torch2onnx: error: "
  std::string hint;    // may be empty
  std::string phase;   // the step that was running: load, convert, serialize, verify; may be empty
  std::optional<ErrorNode> node; // the graph node it happened at, when known
};

// What the report describes: the options, and the result or the failure (one of them, or both
// when verification ran and failed).
struct Inputs {
  const ExportOptions *options = nullptr;
  const ExportReport *result = nullptr;  // null when the export failed
  const ExportReport *partial = nullptr; // after a failure: what export_model had done
  const Failure *failure = nullptr;      // null on success
  std::string output_path;               // as resolved by the CLI
  double seconds = 0;                    // wall time of the whole command
  int exit_code = 0;
};

nlohmann::ordered_json build(const Inputs &in);

// The same content as markdown, for people.
std::string markdown(const nlohmann::ordered_json &report);

// Writes `report` to `path` (markdown when it ends in .md, JSON otherwise) through a temporary
// file and a rename (builder/file_io.h), so a reader never sees half a report. Throws Error
// naming the reason.
void write(const std::string &path, const nlohmann::ordered_json &report);
// The text write() writes to `path`, and whether that is markdown.
std::string text(const std::string &path, const nlohmann::ordered_json &report);
bool is_markdown(const std::string &path);

// "first diverging node: #3 aten::relu in block1 (model.py:12): max abs error ... " (one line).
std::string divergence_line(const Divergence &d);

// The same line from a report's "divergence" object.
std::string divergence_text(const nlohmann::ordered_json &divergence);

// "torch2onnx 0.1.0, LibTorch 1.13.0, ONNX opsets 11-21" (--version).
std::string versions_text();

// 11690000 -> "11.69M"; 46800000 -> "46.8 MB".
std::string human_count(double n);
std::string human_bytes(double b);

} // namespace torch2onnx::report
