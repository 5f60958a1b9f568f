// Attention: aten::_native_multi_head_attention (the fast path of nn.MultiheadAttention in eval
// mode, used by torchvision's ViT and nn.TransformerEncoderLayer), and the attention core the
// transformer fast paths share (attention.h).
#include "aten_lib/attention.h"

#include "aten_lib/helpers.h"

#include <cmath>
#include <limits>

namespace torch2onnx {

Val linear(GraphBuilder &b, const Val &x, const Val &w, const Val &bias) {
  Val wt = b.op1("Transpose", {w}, {{"perm", std::vector<int64_t>{1, 0}}});
  return b.op1("Add", {b.op1("MatMul", {x, wt}), bias});
}

namespace {

// [B, T, E] -> [B, H, T, E/H]; Reshape's 0 copies B and T, so dynamic sizes stay dynamic.
Val split_heads(GraphBuilder &b, const Val &x, int64_t heads, int64_t head_dim) {
  Val r = b.op1("Reshape", {x, b.const_i64({0, 0, heads, head_dim})});
  return b.op1("Transpose", {r}, {{"perm", std::vector<int64_t>{0, 2, 1, 3}}});
}

} // namespace

Val multi_head_attention(GraphBuilder &b, DType t, const Val &query, const Val &key,
                         const Val &value, const MhaWeights &w, const Val &mask, Val *probs) {
  T2O_CHECK(w.heads > 0 && w.embed % w.heads == 0, "embed_dim {} is not divisible by num_head {}",
            w.embed, w.heads);
  const int64_t head_dim = w.embed / w.heads;
  std::vector<Val> qkv;
  if (query == key && key == value) {
    // Self-attention: one [E, 3E] product, as LibTorch computes it, then split.
    Val packed = linear(b, query, w.qkv_weight, w.qkv_bias);
    qkv = b.op("Split", {packed}, {{"axis", int64_t{-1}}}, 3);
  } else {
    auto wq = b.op("Split", {w.qkv_weight}, {{"axis", int64_t{0}}}, 3);
    auto bias = b.op("Split", {w.qkv_bias}, {{"axis", int64_t{0}}}, 3);
    qkv = {linear(b, query, wq[0], bias[0]), linear(b, key, wq[1], bias[1]),
           linear(b, value, wq[2], bias[2])};
  }
  Val q = split_heads(b, qkv[0], w.heads, head_dim);
  Val k = split_heads(b, qkv[1], w.heads, head_dim);
  Val v = split_heads(b, qkv[2], w.heads, head_dim);

  // Scale q before the product, as LibTorch does, so rounding matches.
  Val scaled = b.op1("Mul", {q, b.const_scalar(t, 1.0 / std::sqrt(static_cast<double>(head_dim)))});
  Val kt = b.op1("Transpose", {k}, {{"perm", std::vector<int64_t>{0, 1, 3, 2}}});
  Val scores = b.op1("MatMul", {scaled, kt}); // [B, H, L, S]
  if (mask.valid()) {
    Val neg_inf = b.const_scalar(t, -std::numeric_limits<double>::infinity());
    scores = b.op1("Where", {mask, neg_inf, scores});
  }
  Val weights = b.op1("Softmax", {scores}, {{"axis", int64_t{-1}}});
  if (probs)
    *probs = weights;
  Val ctx = b.op1("MatMul", {weights, v}); // [B, H, L, D]
  Val merged =
      b.op1("Reshape", {b.op1("Transpose", {ctx}, {{"perm", std::vector<int64_t>{0, 2, 1, 3}}}),
                        b.const_i64({0, 0, w.embed})});
  return linear(b, merged, w.proj_weight, w.proj_bias);
}

Val fast_path_mask(const ConvertCtx &c, std::string_view query_name) {
  if (!c.has("mask"))
    return {};
  GraphBuilder &b = c.b;
  const TensorInfo &info = c.info("mask");
  const TensorInfo &query = c.info(query_name);
  Val mask = cast_to(b, c.tensor("mask"), DType::Bool);
  int64_t mask_type = c.arg<int64_t>("mask_type", -1);
  if (info.rank() == 4)
    return mask; // [B, H, L, S]
  T2O_CHECK(info.rank() == 2,
            "{}: expected a [B, S] key padding mask, a [L, S] attention mask or a [B, H, L, S] "
            "mask, got {}",
            c.op(), info.str());
  bool padding = mask_type == 1 || mask_type == 2;
  if (mask_type < 0) {
    // No mask_type (PyTorch itself requires one): a [B, S] mask whose first dim is the batch
    // size and not the query length is a key padding mask, anything else an attention mask.
    padding = query.has_rank() && (*info.shape)[0].value == (*query.shape)[0].value &&
              (*info.shape)[0].value != (*query.shape)[1].value;
  }
  return padding ? unsqueeze(b, mask, {1, 2}) : mask;
}

// aten::_native_multi_head_attention(query, key, value, embed_dim, num_head, qkv_weight, qkv_bias,
//   proj_weight, proj_bias, mask=None, need_weights=True, average_attn_weights=True,
//   mask_type=None) -> (Tensor, Tensor). Inputs are batch-first [B, T, E].
void aten__native_multi_head_attention(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  T2O_CHECK(c.info("query").rank() == 3, "expected a batch-first [B, T, E] query, got {}",
            c.info("query").str());
  MhaWeights w{c.arg<int64_t>("embed_dim"), c.arg<int64_t>("num_head"), c.tensor("qkv_weight"),
               c.tensor("qkv_bias"),        c.tensor("proj_weight"),    c.tensor("proj_bias")};
  Val mask = fast_path_mask(c, "query");
  // A nested query (its padded form here): its padded positions are keys no one attends to.
  Val valid = b.companion(c.tensor("query"), kNestedValid);
  if (valid.valid()) {
    T2O_CHECK(!mask.valid(), "a mask with a nested tensor query is not supported (nor by PyTorch)");
    mask = unsqueeze(b, op_t(b, DType::Bool, "Not", {valid}), {1, 2});
  }
  Val probs;
  Val out = multi_head_attention(b, c.info("query").dtype, c.tensor("query"), c.tensor("key"),
                                 c.tensor("value"), w, mask, &probs);
  if (valid.valid())
    b.set_companion(out, kNestedValid, valid);
  c.set_out(0, out);
  // The weights output: None without need_weights, as LibTorch leaves it undefined (a graph
  // output that is None is left out); averaged over heads unless asked otherwise.
  if (!c.arg<bool>("need_weights", true)) {
    c.set_out(1, Arg::none());
    return;
  }
  bool average = c.arg<bool>("average_attn_weights", true);
  c.set_out(1, average ? b.op1("ReduceMean", {probs},
                               {{"axes", std::vector<int64_t>{1}}, {"keepdims", int64_t{0}}})
                       : probs);
}

void register_attention_ops(Registry &r) {
  r.add("aten::_native_multi_head_attention", 11, aten__native_multi_head_attention,
        {"MatMul", "Softmax", "Split", "Reshape", "Transpose", "Where", "ReduceMean", "Not", "Add",
         "Cast", "Mul", "Unsqueeze"});
}

} // namespace torch2onnx
