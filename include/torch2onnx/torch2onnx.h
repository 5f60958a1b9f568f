// torch2onnx's public C++ API: export a TorchScript module (in memory or saved) to ONNX, and
// optionally verify the ONNX file in ONNX Runtime against LibTorch.
//
//   #include <torch2onnx/torch2onnx.h>
//
//   torch::jit::Module m = torch::jit::load("model.pt");
//   torch2onnx::ExportSettings s;
//   s.dynamic_dims = {{"x", {{0, "batch"}}}};
//   s.verify = true;
//   torch2onnx::ExportResult r =
//       torch2onnx::export_module(m, {torch::randn({1, 3, 224, 224})}, "model.onnx", s);
//
// Link with the CMake package: find_package(torch2onnx) gives the target torch2onnx::torch2onnx
// (it brings LibTorch). Every failure throws torch2onnx::Error (torch2onnx/error.h) with the
// same message and hint the CLI prints; an export that fails leaves no output file. See
// docs/api.md.
#pragma once

#include "torch2onnx/error.h"
#include "torch2onnx/settings.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace at {
class Tensor;
}
namespace c10 {
struct IValue;
}
namespace torch {
namespace jit {
struct Module;
}
} // namespace torch

namespace torch2onnx {

// What to export and how: the settings every way in shares (torch2onnx/settings.h: opset,
// output_names, verify, rtol, atol, seed, locate, verify_dims, external_data, optimize,
// libraries, functions, converters, fallback_domain; each with the CLI's default), plus what
// only an in-memory export has.
struct ExportSettings : Settings {
  // ONNX input names, one per forward argument in order (default: forward's argument names).
  std::vector<std::string> input_names;
  // Symbolic dims per input: {"x": {{0, "batch"}}} makes dim 0 of input x the symbolic dim
  // "batch" (the example tensor gives its example size). The same name in two inputs is one dim.
  // An input is named as in input_names, or by forward's argument name.
  std::map<std::string, std::map<int64_t, std::string>> dynamic_dims;
  // Progress lines ("recording shapes ...", "written", ...); empty: silent.
  std::function<void(const std::string &)> log;
};

// One output compared in one data set by verification.
struct OutputResult {
  std::string name;
  std::string sizes; // the symbolic dims' sizes of the data set, e.g. "batch=3" ("" when static)
  bool ok = false;
  double max_abs_error = 0; // max |onnx - torch|
  double tolerance = 0;     // max(atol, rtol * max |torch|)
  std::string problem;      // set when the check failed for another reason (shape, dtype)
};

// One ONNX local function written for settings.functions.
struct FunctionResult {
  std::string name;               // the FunctionProto's name, e.g. "BasicBlock" or "BasicBlock_1"
  std::string module_type;        // the module class, e.g. "BasicBlock"
  std::vector<std::string> calls; // module scope of each call, e.g. "layer1.0"
  int64_t nodes = 0;              // nodes in its body
};

struct ExportResult {
  std::string output_path;
  int opset = 0;
  int64_t nodes = 0;      // ONNX nodes in the main graph
  int64_t parameters = 0; // elements in initializers
  std::vector<std::string> input_names, output_names;
  std::vector<std::string> notices;  // what a user should know (e.g. a dropped check)
  std::vector<std::string> warnings; // details
  double seconds = 0;                // the export, without verification
  bool verified = false;             // verification ran
  bool verify_ok = false;            // ... and every output of every data set passed
  std::vector<OutputResult> outputs; // with verification: per data set and output

  // With settings.functions: the ONNX local functions written.
  std::vector<FunctionResult> functions;
};

// Exports `module` (a scripted or traced module; it runs in eval mode and is given back in the
// mode it came in) with `args` as forward's example arguments: their dtypes and shapes are the
// ONNX inputs', their values the example the shapes are recorded on. Fewer args than forward's
// arguments: the rest take their defaults.
ExportResult export_module(const torch::jit::Module &module, const std::vector<at::Tensor> &args,
                           const std::string &output_path, const ExportSettings &settings = {});
// The same with example arguments that may be tuples or lists of tensors, nested (a KV cache:
// a tuple of (key, value) pairs): each tensor in one is an ONNX input named <argument>_<j>
// (<argument>_<j>_<k> when nested), and dynamic_dims names those inputs.
ExportResult export_module_values(const torch::jit::Module &module,
                                  const std::vector<c10::IValue> &args,
                                  const std::string &output_path,
                                  const ExportSettings &settings = {});

// Exports a saved TorchScript file; `input_specs` are --input SPECs ("x:f32[batch=1,3,224,224]",
// see torch2onnx --help), one per forward argument. settings.input_names and dynamic_dims do not
// apply (the specs say it).
ExportResult export_file(const std::string &model_path, const std::string &output_path,
                         const std::vector<std::string> &input_specs,
                         const ExportSettings &settings = {});

// The library's version, e.g. "0.1.0".
std::string version();

} // namespace torch2onnx
