// Transformer fast paths: aten::_transformer_encoder_layer_fwd (nn.TransformerEncoderLayer in
// eval mode) and the nested tensors nn.TransformerEncoder makes of a padded batch
// (aten::_nested_tensor_from_mask, aten::to_padded_tensor, _nested_tensor_from_mask_left_aligned).
//
// ONNX has no nested tensors. One made from a [B, T, ...] tensor and a mask is held as that padded
// tensor (padded positions zeroed) plus a bool [B, T] mask of its valid positions, carried as the
// value's companion (GraphBuilder::set_companion): attention masks the padded keys, so every valid
// position computes what LibTorch computes on the nested tensor, and to_padded_tensor writes the
// padding value over the rest.
#include "aten_lib/attention.h"
#include "aten_lib/helpers.h"

namespace torch2onnx {

namespace {

// The converter of `op` (the standalone op's, so numerics match) on `args`, for one output of
// `info`; returns that output.
Val run_converter(const ConvertCtx &c, const char *op, std::vector<NamedArg> args,
                  const TensorInfo &info) {
  Val y = c.call(op, std::move(args), {info})[0].t();
  c.b.set_info(y, info);
  return y;
}

// LayerNorm over the last dim (of size `embed`) of x, whose shape and dtype are `info`.
Val layer_norm(const ConvertCtx &c, const Val &x, const TensorInfo &info, int64_t embed,
               const Val &weight, const Val &bias, double eps) {
  c.b.set_info(x, info);
  return run_converter(c, "aten::layer_norm",
                       {{"input", x},
                        {"normalized_shape", Arg::of_list({Arg::of_int(embed)})},
                        {"weight", weight},
                        {"bias", bias},
                        {"eps", Arg::of_float(eps)}},
                       info);
}

// The bool [B, T] mask of the valid positions of the nested tensor `v` (its companion), or an
// invalid Val when v is an ordinary tensor.
Val nested_valid(GraphBuilder &b, const Val &v) {
  return b.companion(v, kNestedValid);
}

// For a bool [B, T] mask: the [B, T] mask of each row's first count(row) positions (the ones a
// nested tensor made from it keeps), and the counts [B, 1].
struct Prefix {
  Val mask, counts;
};
Prefix prefix_of(GraphBuilder &b, const Val &mask) {
  Prefix p;
  Val ones = cast_to(b, mask, DType::Int64);
  p.counts = b.op1("ReduceSum", {ones, b.const_i64({1})}, {{"keepdims", int64_t{1}}});
  b.set_info(p.counts, TensorInfo{DType::Int64, std::nullopt});
  Val positions = iota(b, dim_scalar(b, mask, 1));
  p.mask = op_t(b, DType::Bool, "Less", {positions, p.counts});
  return p;
}

} // namespace

// aten::_transformer_encoder_layer_fwd(Tensor src, int embed_dim, int num_heads, qkv_weight,
//   qkv_bias, proj_weight, proj_bias, bool use_gelu, bool norm_first, float eps, norm_weight_1,
//   norm_bias_1, norm_weight_2, norm_bias_2, ffn_weight_1, ffn_bias_1, ffn_weight_2, ffn_bias_2,
//   Tensor? mask=None, int? mask_type=None) -> Tensor. src is batch-first [B, T, E].
namespace {

// linear2(activation(linear1(x))), activation relu or exact gelu.
Val feed_forward(ConvertCtx &c, const Val &x, DType t) {
  GraphBuilder &b = c.b;
  Val h = linear(b, x, c.tensor("ffn_weight_1"), c.tensor("ffn_bias_1"));
  if (c.arg<bool>("use_gelu")) {
    TensorInfo info{t, std::nullopt};
    b.set_info(h, info);
    h = run_converter(c, "aten::gelu", {{"self", h}}, info);
  } else {
    h = b.op1("Relu", {h});
  }
  return linear(b, h, c.tensor("ffn_weight_2"), c.tensor("ffn_bias_2"));
}

} // namespace

// As LibTorch's transformer_encoder_layer_forward: post-norm x = norm1(x + attn(x)),
// x = norm2(x + ffn(x)); pre-norm x = x + attn(norm1(x)), x = x + ffn(norm2(x)).
void aten__transformer_encoder_layer_fwd(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  const TensorInfo &info = c.info("src");
  T2O_CHECK(info.rank() == 3, "expected a batch-first [B, T, E] src, got {}", info.str());
  const DType t = info.dtype;
  const int64_t embed = c.arg<int64_t>("embed_dim");
  MhaWeights w{embed,
               c.arg<int64_t>("num_heads"),
               c.tensor("qkv_weight"),
               c.tensor("qkv_bias"),
               c.tensor("proj_weight"),
               c.tensor("proj_bias")};
  const bool norm_first = c.arg<bool>("norm_first");
  const double eps = c.arg<double>("eps");
  auto norm = [&](const Val &x, const char *weight, const char *bias) {
    return layer_norm(c, x, info, embed, c.tensor(weight), c.tensor(bias), eps);
  };

  const Val &src = c.tensor("src");
  Val mask = fast_path_mask(c, "src");
  Val valid = nested_valid(b, src);
  if (valid.valid()) {
    T2O_CHECK(!mask.valid(), "a mask with a nested tensor src is not supported (nor by PyTorch)");
    mask = unsqueeze(b, op_t(b, DType::Bool, "Not", {valid}), {1, 2});
  }
  Val x = norm_first ? norm(src, "norm_weight_1", "norm_bias_1") : src;
  x = b.op1("Add", {multi_head_attention(b, t, x, x, x, w, mask, nullptr), src});
  if (!norm_first)
    x = norm(x, "norm_weight_1", "norm_bias_1");
  Val residual = x;
  if (norm_first)
    x = norm(x, "norm_weight_2", "norm_bias_2");
  x = b.op1("Add", {feed_forward(c, x, t), residual});
  if (!norm_first)
    x = norm(x, "norm_weight_2", "norm_bias_2");
  if (valid.valid())
    b.set_companion(x, kNestedValid, valid);
  c.set_out(0, x);
}

// aten::_nested_tensor_from_mask(Tensor t, Tensor mask, bool mask_check=True) -> Tensor: row b
// of the nested tensor is t[b, :count(mask[b])] (mask True = keep). mask_check (PyTorch raises
// when the mask has gaps) cannot be expressed: a mask with gaps keeps each row's first
// count(mask[b]) positions, as LibTorch does without the check.
void aten__nested_tensor_from_mask(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  T2O_CHECK(rank_of(c, "mask") == 2, "expected a [B, T] mask, got {}", c.info("mask").str());
  Prefix p = prefix_of(b, cast_to(b, c.tensor("mask"), DType::Bool));
  const int64_t rank = rank_of(c, "t");
  Val keep = unsqueeze(b, p.mask, int_range(2, rank));
  Val zero = scalar(b, c.info("t").dtype, 0.0);
  Val out = b.op1("Where", {keep, c.tensor("t"), zero});
  b.set_companion(out, kNestedValid, p.mask);
  c.set_out(0, out);
}

// aten::_nested_tensor_from_mask_left_aligned(Tensor t, Tensor mask) -> bool: whether every row
// of the mask is all True then all False (a nested tensor can be made from it).
void aten__nested_tensor_from_mask_left_aligned(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  Val mask = cast_to(b, c.tensor("mask"), DType::Bool);
  Prefix p = prefix_of(b, mask);
  Val wrong = cast_to(b, op_t(b, DType::Bool, "Xor", {p.mask, mask}), DType::Int64);
  Val count = b.op1("ReduceSum", {wrong}, {{"keepdims", int64_t{0}}});
  c.set_out(0, op_t(b, DType::Bool, "Equal", {count, b.const_i64_scalar(0)}));
}

// aten::to_padded_tensor(Tensor self, float padding, int[]? output_size=None) -> Tensor: the
// padding value at the padded positions; dim 1 is as long as the longest row (or output_size).
void aten_to_padded_tensor(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  const Val &self = c.tensor("self");
  Val valid = nested_valid(b, self);
  T2O_CHECK(valid.valid(),
            "its input is not a nested tensor made in this model by "
            "aten::_nested_tensor_from_mask (torch2onnx holds nested tensors as padded tensors "
            "with a mask of their valid positions, and only follows them through the transformer "
            "fast-path ops)");
  const int64_t rank = rank_of(c, "self");
  const DType t = c.info("self").dtype;
  Val fill = scalar(b, t, c.arg<double>("padding"));
  Val out = b.op1("Where", {unsqueeze(b, valid, int_range(2, rank)), self, fill});
  if (!c.has("output_size")) {
    // The padded form may be longer than the longest row: cut it to that length.
    Val counts = b.op1("ReduceSum", {cast_to(b, valid, DType::Int64), b.const_i64({1})},
                       {{"keepdims", int64_t{0}}});
    Val longest = b.op1("ReduceMax", {counts}, {{"keepdims", int64_t{1}}});
    c.set_out(0, b.op1("Slice", {out, b.const_i64({0}), longest, b.const_i64({1})}));
    return;
  }
  // output_size: pad every dim after the first by its target size, then cut to it (no need to
  // know the current sizes).
  std::vector<int64_t> size = c.ints("output_size");
  T2O_CHECK(static_cast<int64_t>(size.size()) == rank,
            "output_size has {} sizes for a rank-{} nested tensor", size.size(), rank);
  std::vector<int64_t> pads(2 * rank, 0), axes;
  std::vector<int64_t> tail(size.begin() + 1, size.end());
  for (int64_t d = 1; d < rank; ++d) {
    pads[rank + d] = size[d];
    axes.push_back(d);
  }
  Val padded = b.op1("Pad", {out, b.const_i64(pads), fill}, {{"mode", "constant"}});
  c.set_out(0, b.op1("Slice", {padded, b.const_i64(std::vector<int64_t>(tail.size(), 0)),
                               b.const_i64(tail), b.const_i64(axes)}));
}

// ---- the fast-path checks of scripted nn.TransformerEncoder / nn.MultiheadAttention ----------
// Scripted, their forward decides between the fast and the slow path at run time from the
// autograd and autocast state, requires_grad, is_nested and the length of a "why not" message.
// The exported model is for inference: torch2onnx records it under no_grad and without autocast,
// so these are the constants that run saw, and the walker folds the decisions they feed.

void aten_is_grad_enabled(ConvertCtx &c) {
  c.set_out(0, Arg::of_bool(false));
}
void aten_is_autocast_enabled(ConvertCtx &c) {
  c.set_out(0, Arg::of_bool(false));
}
// Frozen weights are constants and inputs are plain tensors: nothing requires grad.
void prim_requires_grad(ConvertCtx &c) {
  c.set_out(0, Arg::of_bool(false));
}
void prim_is_nested(ConvertCtx &c) {
  c.set_out(0, Arg::of_bool(nested_valid(c.b, c.tensor("a")).valid()));
}
// The device of a tensor the example run did not reach (a branch not taken): ONNX has none, and
// torch2onnx runs the model on the CPU.
void prim_device(ConvertCtx &c) {
  Arg a;
  a.kind = Arg::Kind::Device;
  a.s = "cpu";
  c.set_out(0, a);
}

void register_transformer_ops(Registry &r) {
  r.add("aten::_transformer_encoder_layer_fwd", 11, aten__transformer_encoder_layer_fwd,
        {"MatMul", "Softmax",  "Split", "Reshape", "Transpose",  "Where",
         "Not",    "Relu",     "Erf",   "Div",     "ReduceMean", "LayerNormalization",
         "Add",    "Cast",     "Gelu",  "Mul",     "Reciprocal", "Sqrt",
         "Sub",    "Unsqueeze"});
  r.add("aten::_nested_tensor_from_mask", 11, aten__nested_tensor_from_mask,
        {"ReduceSum", "Range", "Less", "Where", "Cast", "Gather", "Shape", "Unsqueeze"});
  r.add("aten::_nested_tensor_from_mask_left_aligned", 11,
        aten__nested_tensor_from_mask_left_aligned,
        {"ReduceSum", "Range", "Less", "Xor", "Equal", "Cast", "Gather", "Shape"});
  r.add("aten::to_padded_tensor", 11, aten_to_padded_tensor,
        {"Where", "ReduceSum", "ReduceMax", "Slice", "Pad", "Cast", "Unsqueeze"});
  r.add("aten::is_grad_enabled", 11, aten_is_grad_enabled, {});
  r.add("aten::is_autocast_enabled", 11, aten_is_autocast_enabled, {});
  r.add("prim::requires_grad", 11, prim_requires_grad, {});
  r.add("prim::is_nested", 11, prim_is_nested, {});
  r.add("prim::device", 11, prim_device, {});
}

} // namespace torch2onnx
