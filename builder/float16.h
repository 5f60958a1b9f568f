// --dtype f16 / bf16 (docs/float16.md): a step on the finished, rewritten ONNX graph that makes a
// float32 model compute in float16 (or bfloat16). Float32 initializers and constants become
// float16, every float32 value of the graph and its subgraphs becomes float16, and Casts keep
// float32 where it must stay:
//   - the graph's float32 inputs and outputs keep their type: a Cast after each input, before
//     each output (inputs named in `low_inputs` are declared float16 instead);
//   - the ops of float32_ops() compute in float32 behind Casts (they lose too much in float16);
//   - a constant float16 cannot hold (a value beyond 65504, or all nonzero values below the
//     smallest normal 6.1e-5, like the 1e-12 of max(norm, 1e-12)) stays float32, and so does the
//     op reading it, and the ops that only carry its values on (Expand, Max, ...) up to the first
//     one that computes with them;
//   - an op whose ONNX schema at the model's opset takes no float16 for an input (Range, the
//     scales of Resize, ...) gets that input in float32.
// Casts are made where a value is read in the other type, once per value and graph, so a chain
// of float32 ops needs none between its ops and no Cast pair (float16 -> float32 -> float16) is
// written. Integer and bool tensors are untouched. The output is deterministic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace onnx {
class ModelProto;
} // namespace onnx

namespace torch2onnx {

// The ONNX ops that compute in float32 under --dtype f16/bf16, sorted (docs/float16.md: why).
const std::vector<std::string> &float32_ops();

struct FloatConversion {
  int to = 10; // onnx::TensorProto::FLOAT16 (10) or BFLOAT16 (16)
  // Float32 inputs of the main graph declared as `to` (their --input spec said f16/bf16).
  std::set<std::string> low_inputs;
};

struct FloatConversionReport {
  size_t initializers = 0;      // float32 initializers and constants made `to`
  size_t kept = 0;              // nodes computing in float32 (float32_ops() and schema-bound)
  size_t casts = 0;             // Cast nodes added
  size_t float32_constants = 0; // kept float32: beyond float16's range or all below its normals
};

// Converts `model` in place (main graph and subgraphs). Initializers without bytes in the proto
// (borrowed weights) are read through ScopedInitializerBytes (builder/optimize.h) and let go once
// converted. Throws Error when `to` is neither FLOAT16 nor BFLOAT16.
FloatConversionReport convert_float_type(onnx::ModelProto &model, const FloatConversion &c);

// IEEE float16 / bfloat16 bits of `f`, rounded to nearest even (NaN stays NaN, overflow: inf).
uint16_t float16_bits(float f);
uint16_t bfloat16_bits(float f);
float float16_value(uint16_t bits);
// (The three are defined in builder/types.cpp, which the fuzz targets build without the rest.)

} // namespace torch2onnx
