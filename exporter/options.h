// What a user asks torch2onnx to do: the CLI fills this, tests build it directly.
#pragma once

#include "builder/progress.h"
#include "builder/types.h"
#include "torch2onnx/settings.h"

#include <cstdint>
#include <string>
#include <vector>

namespace torch2onnx {

// One forward argument from --input (or a zoo manifest's `inputs:`):
// clang-format off
//   [name:]dtype[dims][:LO..HI]   a tensor, e.g. "x:f32[1,3,224,224]", "ids:i64[batch=2,128]",
//                                 with random values in [LO, HI] ("ids:i64[1,128]:0..50256")
//   [name:][SPEC,SPEC...]         a List[Tensor] or a tuple of tensors, e.g. "xs:[f32[2,3],f32[2,3]]"
//                                 (nested for tuples of tuples: "past:[[f32[2,3],f32[2,3]]]")
//   [name:]{key:SPEC,...}         a Dict[str, Tensor], e.g. "batch:{image:f32[1,3,64,64],mask:bool[1,64]}"
//   [name:]none                   None (an Optional argument)
//   [name:]3 / 0.5 / true         an int, float or bool argument, fixed as a constant
//   [name:]default                the argument's default value (to give a later argument)
// clang-format on
struct InputSpec {
  enum class Kind { Tensor, Sequence, Dict, None, Int, Float, Bool, Default };
  Kind kind = Kind::Tensor;
  std::string name; // empty: use the forward argument's name
  DType dtype = DType::Float;
  std::vector<Dim> dims;
  // Random example values in [low, high] (integers: both ends included); unset: the default
  // (floats ~ N(0,1), integers 0..9, bools).
  bool has_range = false;
  double low = 0, high = 0;
  double number = 0; // Int, Float, Bool (0 or 1)
  // Sequence: one spec per element (a tensor or a nested sequence); Dict: one tensor spec per
  // entry, its name the key.
  std::vector<InputSpec> elements;

  bool is_tensor() const { return kind == Kind::Tensor; }
  std::string str() const;
};

// Parses one SPEC; throws Error saying what is wrong and showing the expected form.
InputSpec parse_input_spec(const std::string &text);
// A dim named without a size ("pk:f32[2,batch,4,past,16]") takes the size the same name has in
// another spec or dim ("ids:i64[batch=2,seq=5]"); throws Error when no spec gives it one, unless
// `data_gives_sizes` (--input-data: the data's size is taken when the inputs are bound).
void resolve_dim_names(std::vector<InputSpec> &specs, bool data_gives_sizes = false);
// "batch=3,seq=77" -> {{"batch",3},{"seq",77}}; throws Error on malformed text.
std::vector<std::pair<std::string, int64_t>> parse_dim_sizes(const std::string &text);
// "f32" -> DType::Float; throws for unknown names.
DType parse_dtype(const std::string &text);

class Registry; // aten_lib/converter.h

// What one export is asked to do: the shared settings (include/torch2onnx/settings.h, with their
// defaults and validate()) and what only a file export has. The CLI fills it from the settings
// table; tests build it directly.
struct ExportOptions : Settings {
  std::string model_path;
  std::string output_path; // empty: model path with ".onnx"
  std::vector<InputSpec> inputs;
  // --input-data: one file per forward argument (.npy, or a TensorProto .pb), or one file for all
  // of them (.npz by name or order, or a torch.save'd tensor, tuple, list or dict .pt).
  std::vector<std::string> input_data;
  // --expected-outputs: outputs computed elsewhere (e.g. Python) for the --input-data values; the
  // written file's outputs in ONNX Runtime must match them (exporter/verify/expected.h).
  std::string expected_outputs;
  int verbosity = 1; // 0 quiet, 1 normal, 2 verbose
  // The converters to use; null: Registry::global(). For tests that swap one converter.
  const Registry *registry = nullptr;
  // Told the phase and how far it is (nodes converted, bytes written, verification steps) at
  // each phase change and every few nodes or megabytes (builder/progress.h); may be empty.
  ProgressFn progress;
};

// Flags that contradict each other: two inputs or two outputs with the same name, an output named
// like an input. Throws Error naming the flags and the name.
void check_option_conflicts(const ExportOptions &options);

// --fallback-domain's name: dotted identifiers, not one of ONNX's own (ai.onnx...). Throws
// UsageError. Part of Settings::validate().
void check_fallback_domain(const std::string &domain);

} // namespace torch2onnx
