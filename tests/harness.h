// Test helpers: export a TorchScript IR snippet, run it in ONNX Runtime and compare with LibTorch.
#pragma once

#include <ATen/ATen.h>
#include <catch2/catch.hpp>

// LibTorch pulls in glog, whose fatal CHECK(cond) macro replaces Catch's CHECK: a failing check
// would abort the test binary instead of being reported. Restore Catch's definition.
#undef CHECK
#define CHECK(...)                                                                                 \
  INTERNAL_CATCH_TEST("CHECK", Catch::ResultDisposition::ContinueOnFailure, __VA_ARGS__)

#include "aten_lib/converter.h"
#include "exporter/export.h"

#include <string>
#include <vector>

namespace t2o_test {

// Whether `text` contains `part` (for checking messages and CLI output).
inline bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

struct IrResult {
  std::vector<std::string> op_types; // ONNX node op types, in graph order (output Identity last)
  std::vector<torch2onnx::OutputCheck> checks;
  std::vector<at::Tensor> torch_outputs, ort_outputs;
  torch2onnx::OptimizeReport rewrites;     // check_ir_optimized only
  std::vector<int64_t> initializer_numels; // elements of each initializer of the file written
  size_t count(const std::string &op_type) const;
};

// Every converter torch2onnx ships, except aten::relu's, which is `relu` instead (family "test",
// since opset 13, listed as emitting Abs): for tests of what the export says of a wrong or failing
// converter. Example: registry_with_relu([](ConvertCtx &c) { c.set_out(0, c.b.op1("Abs", ...)); }).
torch2onnx::Registry registry_with_relu(const torch2onnx::ConverterFn &relu);

// Parses `ir` (graph(%x : Tensor, ...): ...), prepares it like a loaded model, exports at `opset`,
// runs the ONNX file in ONNX Runtime on `inputs` and REQUIREs every output to match LibTorch's
// within max(atol, rtol * max|torch|).
IrResult check_ir(const std::string &ir, const std::vector<at::Tensor> &inputs, int opset = 17,
                  double rtol = 1e-4, double atol = 1e-4);

// check_ir with the graph rewrites of builder/optimize.h on (as torch2onnx runs by default);
// the result's `rewrites` says which rules fired.
IrResult check_ir_optimized(const std::string &ir, const std::vector<at::Tensor> &inputs,
                            int opset = 17, double rtol = 1e-4, double atol = 1e-4);

// check_ir at the lowest opset every op of `ir` has a converter for (lowest_opset) and at the
// highest opset torch2onnx targets (21), returning the opset-21 result.
IrResult check_ir_opsets(const std::string &ir, const std::vector<at::Tensor> &inputs,
                         double rtol = 1e-4, double atol = 1e-4);

// The lowest opset at which every aten op in `ir` has a converter (the newest since_opset of their
// lowest registrations). Example: lowest_opset(relu graph) == 11.
int lowest_opset(const std::string &ir);

// Exports and runs the ONNX file in ONNX Runtime without comparing against LibTorch: for ops with
// random or undefined values. FAILs if the export fails.
std::vector<at::Tensor> run_ir_in_ort(const std::string &ir, const std::vector<at::Tensor> &inputs,
                                      int opset);

// Export only; returns the error message (empty on success). For tests of failures.
std::string export_ir_error(const std::string &ir, const std::vector<at::Tensor> &inputs,
                            int opset = 17);

// Deterministic random input.
at::Tensor randn(std::vector<int64_t> shape, uint64_t seed = 1);

// Random integers in [lo, hi) of dtype `t` (from LibTorch's global generator).
at::Tensor ints(std::vector<int64_t> shape, int64_t lo = -10, int64_t hi = 10,
                at::ScalarType t = at::kLong);

// A 0-d int64 tensor: an input that aten::Int turns into a size the walker cannot fold.
at::Tensor scalar_long(int64_t v);

// The argument names of a schema LibTorch has for `op`: the overload named `overload`, or (when
// `overload` is "*") the first with `num_args` arguments (else more: the rest read as None), no
// Dimname and no out=. For tests that call converters directly, which read their arguments by
// these names. FAILs when there is none.
// Example: schema_arg_names("aten::size", 2) == {"self", "dim"}.
std::vector<std::string> schema_arg_names(const std::string &op, size_t num_args,
                                          const std::string &overload = "*");

} // namespace t2o_test

namespace t2o_test {

struct CliResult {
  int exit_code = -1;
  std::string out, err;
};

// Runs the torch2onnx CLI built with the tests, capturing stdout and stderr.
CliResult run_cli(const std::vector<std::string> &args);

// Runs the shell command `cmd` with no stdin, capturing stdout and stderr; a process killed by
// signal N exits 128 + N, as in the shell.
CliResult run_command(const std::string &cmd);

// `s` quoted for the shell.
std::string shell_quote(const std::string &s);

// The bytes of a file ("" when it cannot be read).
std::string file_bytes(const std::string &path);

// A fresh empty folder under the tests' output folder.
std::string fresh_dir(const std::string &name);

// Path of a small test model made by models/make_test_models.py.
std::string test_model(const std::string &name);

// The graph input names of an ONNX file (empty when it cannot be read).
std::vector<std::string> onnx_input_names(const std::string &path);
// The dims an ONNX file declares for each graph output: the size, or -1 for a dim without one
// (symbolic or unknown). Empty when the file cannot be read.
std::vector<std::vector<int64_t>> onnx_output_dims(const std::string &path);

} // namespace t2o_test

namespace t2o_test {

// Like check_ir, with dynamic shapes: every dim whose size differs between `example` and
// `alternate` becomes symbolic ("d<input>_<dim>"), so the walker cannot fold shape metadata.
// Runs ONNX Runtime on both input sets and REQUIREs each to match LibTorch on the same inputs.
// Returns the result on the example inputs.
IrResult check_ir_dynamic(const std::string &ir, const std::vector<at::Tensor> &example,
                          const std::vector<at::Tensor> &alternate, int opset = 17);

// Exports with shapes recorded on `example` only, then REQUIREs ONNX Runtime to match LibTorch on
// `example` and on `unseen` (same shapes, other values: e.g. other counts of nonzero rows).
IrResult check_ir_unseen(const std::string &ir, const std::vector<at::Tensor> &example,
                         const std::vector<at::Tensor> &unseen, int opset = 17);

} // namespace t2o_test
