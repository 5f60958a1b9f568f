// Multi-head attention as PyTorch's fast paths compute it, shared by
// aten::_native_multi_head_attention (attention.cpp) and aten::_transformer_encoder_layer_fwd
// (transformer.cpp).
#pragma once

#include "aten_lib/converter.h"

namespace torch2onnx {

// x @ w^T + b for a [out, in] weight, on inputs of any rank. Example: linear(b, x, w, bias).
Val linear(GraphBuilder &b, const Val &x, const Val &w, const Val &bias);

// The packed projections of nn.MultiheadAttention: qkv_weight [3E, E], qkv_bias [3E],
// proj_weight [E, E], proj_bias [E].
struct MhaWeights {
  int64_t embed = 0, heads = 0;
  Val qkv_weight, qkv_bias, proj_weight, proj_bias;
};

// Attention on batch-first query [B, L, E] and key/value [B, S, E] of dtype t: the packed
// in-projection, softmax(q k^T / sqrt(E/H)) per head, the out-projection. `mask` is invalid or a
// bool tensor broadcasting to [B, H, L, S] whose True entries are ignored. With `probs`, it also
// gives the softmax weights [B, H, L, S]. Example: multi_head_attention(b, t, x, x, x, w, {}, 0).
Val multi_head_attention(GraphBuilder &b, DType t, const Val &query, const Val &key,
                         const Val &value, const MhaWeights &w, const Val &mask, Val *probs);

// The `mask` / `mask_type` arguments of the fast-path ops as a bool mask for
// multi_head_attention, or an invalid Val when there is none. As in PyTorch 1.13, a float mask
// is converted to bool (nonzero, e.g. -inf, ignores the position); mask_type 1 (and 2) marks a
// [B, S] key padding mask, 0 a [L, S] attention mask; a 4-d mask is [B, H, L, S]. `query` names
// the query argument ("query", or "src" for the encoder layer).
// Example: Val mask = fast_path_mask(c, "query");
Val fast_path_mask(const ConvertCtx &c, std::string_view query);

// The role under which a nested tensor's ONNX value (its padded form [B, T, ...]) carries the
// bool mask [B, T] of its valid positions (GraphBuilder::set_companion).
inline const char *const kNestedValid = "nested_valid";

} // namespace torch2onnx
