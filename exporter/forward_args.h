// The forward call torch2onnx records and verifies: each of forward's arguments bound to a tensor,
// a list or tuple of tensors, None, a number or its default, from --input specs, --input-data
// files and forward's own defaults.
#pragma once

#include "exporter/analysis/graph_inputs.h"
#include "exporter/frontend/torchscript/bind_inputs.h"
#include "exporter/options.h"

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <optional>
#include <string>
#include <vector>

namespace torch2onnx {

// forward's signature, as the loader reads it.
struct ForwardSignature {
  std::vector<std::string> names;
  std::vector<c10::TypePtr> types;
  std::vector<std::optional<c10::IValue>> defaults;
};

struct ForwardCall {
  std::vector<ArgBinding> bindings;   // per argument: how it reaches the graph
  std::vector<c10::TypePtr> types;    // per argument
  std::vector<InputSpec> flat_specs;  // one named tensor spec per ONNX input
  std::vector<at::Tensor> flat_data;  // per ONNX input: the --input-data tensor, or undefined
  std::vector<std::string> constants; // "name=value" for arguments fixed as constants
  // Per ONNX input: the dtype the file declares when it is not the one LibTorch records with
  // (--dtype f16 with an x:f16[...] spec: recorded and checked in float32, declared float16),
  // else Undefined. See record_low_inputs_in_f32.
  std::vector<DType> declared;

  // forward's arguments for LibTorch, with the ONNX inputs' tensors `flat` in place.
  std::vector<c10::IValue> torch_args(const std::vector<at::Tensor> &flat) const;
};

// Binds every argument; throws Error (exit 1, or a usage error) when an argument without a
// default is not given, a value does not fit the argument's type, or an --input spec disagrees
// with the --input-data it names.
ForwardCall bind_forward(const ForwardSignature &sig, const std::vector<InputSpec> &specs,
                         const std::vector<std::optional<c10::IValue>> &data);

// --dtype f16 / bf16 (`low`): the inputs whose specs say `low` (x:f16[...]) are recorded and
// checked in float32, as the float32 model computes (LibTorch's CPU kernels have no float16 Conv
// or matmul), and declared `low` in the file: their specs (and --input-data) become float32 and
// call.declared says `low`. Does nothing for other dtypes.
void record_low_inputs_in_f32(ForwardCall &call, DType low);

// The ONNX inputs ONNX Runtime gets for `inputs` (the recording's dtypes): those call.declared
// names rounded to their declared dtype. `rounded` receives the same values in the recording's
// dtypes (the rounded values widened back), which LibTorch then gets, so both see one input; it
// is left empty when no input is declared in another dtype (then `inputs` are the ONNX inputs).
std::vector<at::Tensor> declared_inputs(const ForwardCall &call,
                                        const std::vector<at::Tensor> &inputs,
                                        std::vector<at::Tensor> &rounded);

// The ONNX inputs to record at: names, declared infos, the example (the data where given, random
// values from the specs otherwise) and, with symbolic dims, the inputs at their second size.
GraphInputs graph_inputs(const ForwardCall &call, uint64_t seed,
                         const std::vector<std::pair<std::string, int64_t>> &verify_dims);

// The ONNX inputs for one verification at `sizes` (empty: the example): the data where given
// and its dims are all static, random values from the specs otherwise.
std::vector<at::Tensor> flat_inputs_at(const ForwardCall &call, uint64_t seed,
                                       const std::vector<std::pair<std::string, int64_t>> &sizes);

} // namespace torch2onnx
