// --verify's LibTorch reference: what forward returns on each verification input, computed
// either by the module in this process (a module handed over in memory) or, for a model file, by a
// process of its own that loads the file with LibTorch's own torch::jit::load. The second never
// sees the tensors the export used (the mapped weights, anything the export did to them), so a bug
// that damages them cannot also damage the answer they are checked against.
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <string>
#include <torch/csrc/jit/api/module.h>
#include <vector>

namespace torch2onnx {

// What the reference needs besides the inputs.
struct ReferenceModel {
  // The model file (empty: use `module`, in this process).
  std::string path;
  std::vector<std::string> libraries; // custom-op libraries to load first (--load-library)
  torch::jit::Module module;          // the module in memory, when there is no file
  // Tensor attributes forward writes into (a KV cache): every run starts from their saved value.
  std::vector<std::string> written_attributes;
};

// Forward's outputs, flattened to tensors in ONNX output order, for each run's arguments, computed
// in order. Throws Error when the model fails in LibTorch (naming the run's `labels[i]` when it is
// not empty) or the reference process cannot run.
std::vector<std::vector<at::Tensor>>
reference_outputs(const ReferenceModel &model, const std::vector<std::vector<c10::IValue>> &runs,
                  const std::vector<std::string> &labels);

// Where the reference program (torch2onnx-reference) is: TORCH2ONNX_REFERENCE, beside the running
// executable or library, in the install's libexec folder or the build folder. Throws Error when
// it is missing.
std::string find_reference_program();

// The reference program's main: torch2onnx-reference MODEL.pt REQUEST RESPONSE [LIBRARY...].
int reference_main(int argc, char **argv);

} // namespace torch2onnx
