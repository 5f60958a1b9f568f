// --quantized-bias int32 (docs/quantized.md): a step on the finished, rewritten ONNX graph that
// writes the float bias of each quantized Conv and Gemm as int32 behind a DequantizeLinear, the
// form ONNX Runtime's QDQ fusion needs to make QLinearConv / QGemm of the group:
//
//   DequantizeLinear(x_q, sx) -> Conv(., DequantizeLinear(w_q, sw), b) -> ...
//   becomes Conv(., ., DequantizeLinear(round(b / (sx * sw)) as int32, sx * sw))
//
// A node takes part when its input is a DequantizeLinear at one scale (per tensor), its weight a
// DequantizeLinear of an 8-bit initializer with one scale or one per output channel (axis 0 of a
// Conv's weight, the output axis of a Gemm's), and its bias a float32 initializer with one value
// per output channel (Gemm: alpha = beta = 1). The bias scale is computed in float32 (as runtimes
// compute sx * sw); values are rounded half to even and saturate at the int32 range. Only the main
// graph is rewritten. The rounding moves each bias by at most half a step of sx * sw.
#pragma once

#include <cstddef>

namespace onnx {
class ModelProto;
} // namespace onnx

namespace torch2onnx {

struct BiasQuantizationReport {
  size_t biases = 0;  // Conv/Gemm biases written as int32
  size_t skipped = 0; // quantized Conv/Gemm (weight from DequantizeLinear) left with a float bias
};

// Rewrites `model` in place. Initializers without bytes in the proto (borrowed weights) are read
// through ScopedInitializerBytes (builder/optimize.h).
BiasQuantizationReport quantize_biases(onnx::ModelProto &model);

} // namespace torch2onnx
