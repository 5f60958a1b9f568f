// The export settings every way into torch2onnx shares, with their defaults and their checks in
// one place. Each setting is one row of setting_fields(), and the command line (its flags and
// --help), the C++ API (ExportSettings), Python's keyword arguments, zoo manifest keys and the
// report's "options" are all made from that table: a new setting is a field here, a row in
// exporter/settings.cpp and the code that uses it. Part of the installed public API.
#pragma once

#include "torch2onnx/error.h"

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace torch2onnx {

// The opsets torch2onnx targets, and the one it targets by default.
constexpr int kMinOpset = 11;
constexpr int kMaxOpset = 21;
constexpr int kDefaultOpset = 17;
// The default tolerance: an output passes when max|onnx - torch| <= max(atol, rtol * max|torch|).
constexpr double kDefaultTolerance = 1e-4;
// A quantized output (or one dequantized from a quantized tensor) also passes within this many of
// its quantization steps (its scale): LibTorch's integer kernels and ONNX Runtime's float
// emulation round a few values to the neighbouring step, and a step in one layer moves the next
// by about one step again. docs/quantized.md.
constexpr double kQuantizedStepTolerance = 3;
// The default tolerances (rtol and atol) under --dtype f16 / bf16, where --verify compares with
// the float32 LibTorch run: float16 keeps 11 significant bits, bfloat16 8 (docs/float16.md has
// the measurements behind them).
constexpr double kFloat16Tolerance = 1e-2;
constexpr double kBFloat16Tolerance = 5e-2;

struct Settings {
  int opset = kDefaultOpset;             // --opset
  std::vector<std::string> output_names; // --output-names (default: output, output_0, ...)
  bool verify = false;                   // --verify
  double rtol = kDefaultTolerance;       // --rtol
  double atol = kDefaultTolerance;       // --atol
  uint64_t seed = 0;                     // --seed: of the random inputs verification makes
  bool locate = false;                   // --locate (implies verify)
  // --verify-dims: extra sizes of symbolic dims to verify at, e.g. {{"batch", 3}, {"seq", 77}}.
  std::vector<std::pair<std::string, int64_t>> verify_dims;
  bool external_data = false;          // --external-data (automatic over 2 GB)
  bool optimize = true;                // the graph rewrites; --no-optimize turns them off
  std::vector<std::string> libraries;  // --load-library: custom-op libraries, loaded first
  std::vector<std::string> functions;  // --functions: module classes as ONNX local functions
  std::vector<std::string> converters; // --converters: converter plugins (docs/plugins.md)
  std::string fallback_domain;         // --fallback-domain (docs/fallback.md); "" fails
  // --dtype: the float type of the weights and compute: "f32" (as the model is saved), "f16" or
  // "bf16" (a float32 model converted, docs/float16.md).
  std::string dtype = "f32";
  // --quantized-bias: how a quantized conv's or linear's bias is written: "float" (as LibTorch
  // computes with it) or "int32" (for ONNX Runtime's QLinearConv/QGemm fusion; docs/quantized.md).
  std::string quantized_bias = "float";

  // Throws UsageError naming the setting by its flag when a value is out of range or two settings
  // contradict each other (the CLI exits with 2 for it, Python raises ValueError).
  void validate() const;
  // The tolerances verification uses: rtol and atol, or under --dtype f16/bf16 the float16
  // (bfloat16) tolerance where they are left at their default.
  double verify_rtol() const;
  double verify_atol() const;
};

// One row of the table.
struct SettingField {
  using Member =
      std::variant<int Settings::*, double Settings::*, uint64_t Settings::*, bool Settings::*,
                   std::string Settings::*, std::vector<std::string> Settings::*,
                   std::vector<std::pair<std::string, int64_t>> Settings::*>;
  const char *name;  // Python keyword, zoo manifest key, report "options" key
  const char *flag;  // the CLI flag, e.g. "--opset"; for a bool that defaults to true, the flag
                     // that turns it off ("--no-optimize")
  std::string help;  // --help's text, without the default
  const char *value; // --help's name of the value, e.g. "N" ("" for a flag)
  Member member;
  // A list given as one text is split at this character ("a,b"), or 0 (paths: one per value).
  char delimiter = 0;
  bool verification = false; // only means something when outputs are compared (verify)
  const char *alias = "";    // another accepted name (Python's `libraries`)
};

// Every setting, in --help order.
const std::vector<SettingField> &setting_fields();
// The row named `name` (or its alias), or null.
const SettingField *find_setting(const std::string &name);

// Sets one setting from text, as a flag or a manifest gives it: a number, true/false, a name, a
// list (appended; split at the row's delimiter) or sizes ("batch=3,seq=77"). Throws UsageError
// naming the flag when the text is not of the setting's type.
void set_setting(Settings &s, const SettingField &f, const std::string &text);
// The setting's value as set_setting reads it back ("" for an empty list or text).
std::string setting_text(const Settings &s, const SettingField &f);
// True when `s` holds the default value of the setting.
bool setting_is_default(const Settings &s, const SettingField &f);
// The command-line arguments that give `s` (only the settings that differ from their default),
// e.g. {"--opset", "13", "--rtol", "0.001"}; without the verification ones when !verification.
std::vector<std::string> setting_args(const Settings &s, bool verification = true);

} // namespace torch2onnx
