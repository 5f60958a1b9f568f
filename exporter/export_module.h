// The export of a module already in memory (the C++ and Python APIs): like export_model, with
// the module and its example arguments given instead of a file and --input-data.
#pragma once

#include "exporter/export.h"

#include <ATen/core/ivalue.h>
#include <torch/csrc/jit/api/module.h>
#include <vector>

namespace torch2onnx {

// Exports `module` to options.output_path (required) with `args` as forward's example arguments
// (tensors fix dtype and shape; options.inputs may add names and symbolic dims, as --input does
// with --input-data). options.model_path, when set, names the model in messages. The module runs
// in eval mode and is given back in the mode it came in. Throws Error like export_model.
ExportReport export_module(const torch::jit::Module &module, const std::vector<c10::IValue> &args,
                           const ExportOptions &options, const LogFn &log = {});

// The ONNX input dtype of an example tensor; throws Error for dtypes an ONNX input cannot take
// (complex, quantized, ...).
DType example_dtype(const at::Tensor &example);

} // namespace torch2onnx
