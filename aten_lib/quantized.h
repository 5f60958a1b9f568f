// Quantized tensors as torch2onnx carries them (docs/quantized.md): as their real values, f32,
// with the node that made each ending in QuantizeLinear + DequantizeLinear at its recorded
// parameters (TensorInfo::quant). ONNX Runtime and TensorRT fuse such DequantizeLinear -> op ->
// QuantizeLinear groups into integer kernels; every other runtime computes the same values in
// float. The walker adds the pair after any node whose recorded output is quantized; converters
// of quantized ops compute the float op.
#pragma once

#include "aten_lib/converter.h"

namespace torch2onnx {

// QuantizeLinear: the integers x quantizes to at q (uint8 / int8), rounding half to even and
// saturating, as LibTorch's quantize_per_tensor. Example: aten::int_repr.
Val quantize_linear(GraphBuilder &b, const Val &x, const QuantParams &q);

// QuantizeLinear + DequantizeLinear: x rounded to the grid of q and saturated to its storage
// range (a real value a quantized tensor can hold). An int32 storage (qint32) has no
// QuantizeLinear below opset 21: x is returned as it is. Example: the output of quantized::conv2d.
Val requantize(GraphBuilder &b, const Val &x, const QuantParams &q);

// A packed-parameters object of a quantized conv or linear (Conv2dPackedParamsBase,
// LinearPackedParamsBase) as the front end passes it to converters: a list Arg of
//   conv:   [weight, bias?, stride, padding, dilation, groups, transposed, output_padding]
//   linear: [weight, bias?]
// where weight is the real-valued weight (an int8 initializer and a DequantizeLinear, per-channel
// from opset 13) and bias a float tensor or None.
enum PackedField : size_t {
  kPackedWeight = 0,
  kPackedBias = 1,
  kPackedStride = 2,
  kPackedPadding = 3,
  kPackedDilation = 4,
  kPackedGroups = 5,
  kPackedTransposed = 6,
  kPackedOutputPadding = 7,
  kPackedConvFields = 8,
  kPackedLinearFields = 2,
};

} // namespace torch2onnx
