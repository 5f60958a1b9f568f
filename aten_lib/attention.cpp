// Attention: aten::_native_multi_head_attention (the fast path of nn.MultiheadAttention in eval
// mode, used by torchvision's ViT and nn.TransformerEncoderLayer).
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

#include <limits>

namespace torch2onnx {

namespace {

// x @ w^T + b for a [out, in] weight, on inputs of any rank.
Val linear(GraphBuilder &b, const Val &x, const Val &w, const Val &bias) {
  Val wt = b.op1("Transpose", {w}, {{"perm", std::vector<int64_t>{1, 0}}});
  return b.op1("Add", {b.op1("MatMul", {x, wt}), bias});
}

// [B, T, E] -> [B, H, T, E/H]; Reshape's 0 copies B and T, so dynamic sizes stay dynamic.
Val split_heads(GraphBuilder &b, const Val &x, int64_t heads, int64_t head_dim) {
  Val r = b.op1("Reshape", {x, b.const_i64({0, 0, heads, head_dim})});
  return b.op1("Transpose", {r}, {{"perm", std::vector<int64_t>{0, 2, 1, 3}}});
}

} // namespace

// aten::_native_multi_head_attention(query, key, value, embed_dim, num_head, qkv_weight, qkv_bias,
//   proj_weight, proj_bias, mask=None, need_weights=True, average_attn_weights=True,
//   mask_type=None) -> (Tensor, Tensor). Inputs are batch-first [B, T, E].
namespace mha_arg {
constexpr size_t kQuery = 0, kKey = 1, kValue = 2, kEmbedDim = 3, kNumHead = 4, kQkvWeight = 5,
                 kQkvBias = 6, kProjWeight = 7, kProjBias = 8, kMask = 9, kNeedWeights = 10,
                 kAverageAttnWeights = 11, kMaskType = 12;
} // namespace mha_arg

void aten__native_multi_head_attention(ConvertCtx &c) {
  using namespace mha_arg;
  GraphBuilder &b = c.b;
  const int64_t embed = c.in(kEmbedDim).to_int();
  const int64_t heads = c.in(kNumHead).to_int();
  T2O_CHECK(heads > 0 && embed % heads == 0, "embed_dim {} is not divisible by num_head {}", embed,
            heads);
  T2O_CHECK(c.info(kQuery).rank() == 3, "expected a batch-first [B, T, E] query, got {}",
            c.info(kQuery).str());
  const int64_t head_dim = embed / heads;
  const DType t = c.info(kQuery).dtype;

  auto w = b.op("Split", {c.tensor(kQkvWeight)}, {{"axis", int64_t{0}}}, 3);
  auto bias = b.op("Split", {c.tensor(kQkvBias)}, {{"axis", int64_t{0}}}, 3);
  Val q = split_heads(b, linear(b, c.tensor(kQuery), w[0], bias[0]), heads, head_dim);
  Val k = split_heads(b, linear(b, c.tensor(kKey), w[1], bias[1]), heads, head_dim);
  Val v = split_heads(b, linear(b, c.tensor(kValue), w[2], bias[2]), heads, head_dim);

  // Scale q before the product, as LibTorch does, so rounding matches.
  Val scaled = b.op1("Mul", {q, b.const_scalar(t, 1.0 / std::sqrt(static_cast<double>(head_dim)))});
  Val kt = b.op1("Transpose", {k}, {{"perm", std::vector<int64_t>{0, 1, 3, 2}}});
  Val scores = b.op1("MatMul", {scaled, kt}); // [B, H, T, S]
  if (c.has(kMask)) {
    // A boolean mask: True marks positions to ignore. mask_type 1 is a key padding mask [B, S];
    // otherwise the mask broadcasts against [B, H, T, S] ([T, S] for an attention mask).
    Val mask = cast_to(b, c.tensor(kMask), DType::Bool);
    int64_t mask_type = c.int_or(kMaskType, -1);
    if (mask_type == 1 ||
        (mask_type < 0 && c.info(kMask).rank() == 2 && c.info(kQuery).has_rank() &&
         (*c.info(kMask).shape)[0].value == (*c.info(kQuery).shape)[0].value &&
         (*c.info(kMask).shape)[0].value != (*c.info(kQuery).shape)[1].value))
      mask = unsqueeze(b, mask, {1, 2});
    Val neg_inf = b.const_scalar(t, -std::numeric_limits<double>::infinity());
    scores = b.op1("Where", {mask, neg_inf, scores});
  }
  Val weights = b.op1("Softmax", {scores}, {{"axis", int64_t{-1}}});
  Val ctx = b.op1("MatMul", {weights, v}); // [B, H, T, D]
  Val merged =
      b.op1("Reshape", {b.op1("Transpose", {ctx}, {{"perm", std::vector<int64_t>{0, 2, 1, 3}}}),
                        b.const_i64({0, 0, embed})});
  c.set_out(0, linear(b, merged, c.tensor(kProjWeight), c.tensor(kProjBias)));
  // The weights output: averaged over heads unless asked otherwise. Unused outputs are dropped
  // when the graph is finished.
  bool average = c.bool_or(kAverageAttnWeights, true);
  c.set_out(1, average ? b.op1("ReduceMean", {weights},
                               {{"axes", std::vector<int64_t>{1}}, {"keepdims", int64_t{0}}})
                       : weights);
}

void register_attention_ops(Registry &r) {
  r.add("aten::_native_multi_head_attention", 13, aten__native_multi_head_attention,
        {"MatMul", "Softmax", "Split", "Reshape", "Transpose", "Where", "ReduceMean"});
}

} // namespace torch2onnx
