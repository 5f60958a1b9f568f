// What a user asks torch2onnx to do: the CLI fills this, tests build it directly.
#pragma once

#include "builder/progress.h"
#include "builder/types.h"

#include <cstdint>
#include <string>
#include <vector>

namespace torch2onnx {

// One forward argument from --input (or a zoo manifest's `inputs:`):
// clang-format off
//   [name:]dtype[dims][:LO..HI]   a tensor, e.g. "x:f32[1,3,224,224]", "ids:i64[batch=2,128]",
//                                 with random values in [LO, HI] ("ids:i64[1,128]:0..50256")
//   [name:][SPEC,SPEC...]         a List[Tensor] or a tuple of tensors, e.g. "xs:[f32[2,3],f32[2,3]]"
//   [name:]none                   None (an Optional argument)
//   [name:]3 / 0.5 / true         an int, float or bool argument, fixed as a constant
//   [name:]default                the argument's default value (to give a later argument)
// clang-format on
struct InputSpec {
  enum class Kind { Tensor, Sequence, None, Int, Float, Bool, Default };
  Kind kind = Kind::Tensor;
  std::string name; // empty: use the forward argument's name
  DType dtype = DType::Float;
  std::vector<Dim> dims;
  // Random example values in [low, high] (integers: both ends included); unset: the default
  // (floats ~ N(0,1), integers 0..9, bools).
  bool has_range = false;
  double low = 0, high = 0;
  double number = 0;               // Int, Float, Bool (0 or 1)
  std::vector<InputSpec> elements; // Sequence: one tensor spec per element

  bool is_tensor() const { return kind == Kind::Tensor; }
  std::string str() const;
};

// Parses one SPEC; throws Error saying what is wrong and showing the expected form.
InputSpec parse_input_spec(const std::string &text);
// "batch=3,seq=77" -> {{"batch",3},{"seq",77}}; throws Error on malformed text.
std::vector<std::pair<std::string, int64_t>> parse_dim_sizes(const std::string &text);
// "f32" -> DType::Float; throws for unknown names.
DType parse_dtype(const std::string &text);

class Registry; // aten_lib/converter.h

struct ExportOptions {
  std::string model_path;
  std::string output_path; // empty: model path with ".onnx"
  std::vector<InputSpec> inputs;
  // --input-data: one file per forward argument (.npy, or a TensorProto .pb), or one file for all
  // of them (.npz by name or order, or a torch.save'd tensor, tuple, list or dict .pt).
  std::vector<std::string> input_data;
  int opset = 17;
  std::vector<std::string> output_names;
  std::vector<std::string> libraries; // custom-op libraries loaded before the model
  bool verify = false;
  // --expected-outputs: outputs computed elsewhere (e.g. Python) for the --input-data values; the
  // written file's outputs in ONNX Runtime must match them (exporter/verify/expected.h).
  std::string expected_outputs;
  bool external_data = false; // weights in "<output>.data" (automatic over 2 GB)
  bool optimize = true;       // graph rewrites (builder/optimize.h); --no-optimize turns them off
  // Extra sizes for symbolic dims to verify at, e.g. {{"batch", 3}, {"seq", 77}} (--verify-dims).
  std::vector<std::pair<std::string, int64_t>> verify_dims;
  double rtol = 1e-4; // tolerance = max(atol, rtol * max|torch|) per output
  double atol = 1e-4;
  uint64_t seed = 0;
  int verbosity = 1; // 0 quiet, 1 normal, 2 verbose
  // --locate: search the first node whose ONNX value differs from LibTorch's even when every
  // output passes (the search always runs when one fails). Needs `verify`.
  bool locate = false;
  // --functions: module class names (e.g. "BasicBlock") whose calls become calls of ONNX local
  // functions (opset >= 15; docs/functions.md).
  std::vector<std::string> functions;
  // The converters to use; null: Registry::global(). For tests that swap one converter.
  const Registry *registry = nullptr;
  // --converters: converter plugins (shared libraries built against <torch2onnx/plugin.h>) whose
  // converters are added to the registry's (docs/plugins.md).
  std::vector<std::string> converters;
  // --fallback-domain: ops without a converter become nodes of this custom domain, with a notice
  // listing them (docs/fallback.md); empty (the default): they fail the export.
  std::string fallback_domain;
  // Told the phase and how far it is (nodes converted, bytes written, verification steps) at
  // each phase change and every few nodes or megabytes (builder/progress.h); may be empty.
  ProgressFn progress;
};

// Flags that contradict each other: two inputs or two outputs with the same name, an output named
// like an input. Throws Error naming the flags and the name.
void check_option_conflicts(const ExportOptions &options);

} // namespace torch2onnx
