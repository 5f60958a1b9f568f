// Quantized tensors as torch2onnx carries them (docs/quantized.md): as their real values, f32,
// with the node that made each ending in QuantizeLinear + DequantizeLinear at its recorded
// parameters (TensorInfo::quant). ONNX Runtime and TensorRT fuse such DequantizeLinear -> op ->
// QuantizeLinear groups into integer kernels; every other runtime computes the same values in
// float. The walker adds the pair after any node whose recorded output is quantized; converters
// of quantized ops compute the float op.
#pragma once

#include "aten_lib/converter.h"

#include <functional>

namespace torch2onnx {

// QuantizeLinear: the integers x quantizes to at q (uint8 / int8), rounding half to even and
// saturating, as LibTorch's quantize_per_tensor. Example: aten::int_repr.
Val quantize_linear(GraphBuilder &b, const Val &x, const QuantParams &q);

// QuantizeLinear + DequantizeLinear: x rounded to the grid of q and saturated to its storage
// range (a real value a quantized tensor can hold). An int32 storage (qint32) has no
// QuantizeLinear below opset 21: x is returned as it is. Example: the output of quantized::conv2d.
Val requantize(GraphBuilder &b, const Val &x, const QuantParams &q);

// x quantized to uint8 at run time from its own range and back, as LibTorch's dynamic
// quantization does (reduce_range: 7-bit, as the x86 engines do). Example:
// quantized::linear_dynamic.
Val dynamic_quantize(GraphBuilder &b, const Val &x, bool reduce_range);

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

// A dynamically quantized LSTM/GRU cell's parameters (CellParamsBase) as a list Arg of
//   [kind ("quantized_dynamic"), w_ih (a linear's packed list), w_hh (the same), b_ih, b_hh,
//    reduce_range]
enum CellField : size_t {
  kCellType = 0,
  kCellWeightIh = 1,
  kCellWeightHh = 2,
  kCellBiasIh = 3,
  kCellBiasHh = 4,
  kCellReduceRange = 5,
  kCellFields = 6,
};

// An 8-bit embedding table's packed parameters (EmbeddingPackedParamsBase, nn.quantized.Embedding
// and EmbeddingBag) as a list Arg of [rows (uint8 [N, D]), scales (f32 [N]), biases (f32 [N])]:
// row i is rows[i] * scales[i] + biases[i], as LibTorch's kernels compute it (bias = -zero_point
// * scale of its per-row float parameters).
enum EmbeddingField : size_t {
  kEmbeddingRows = 0,
  kEmbeddingScales = 1,
  kEmbeddingBiases = 2,
  kEmbeddingFields = 3,
};

// The bags of embedding_bag (aten::embedding_bag and quantized::embedding_bag_byte share it):
// `mode` 0 sum, 1 mean, 2 max; `indices` 1-D int64, `offsets` int64 (the bags' starts;
// include_last_offset, per_sample_weights and padding_idx read from c by name), `rows(idx)` the
// embedding rows [n, D] of indices `idx`. Returns the bags [B, D] of dtype dt, each index's bag
// and each bag's size.
struct EmbeddingBags {
  Val bags, bag_of, count;
};
EmbeddingBags embedding_bags(ConvertCtx &c, DType dt, int64_t mode, const Val &indices,
                             const Val &offsets, const std::function<Val(const Val &)> &rows);

} // namespace torch2onnx
