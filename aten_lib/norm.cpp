// Normalizations: aten::batch_norm, layer_norm, native_layer_norm, group_norm, instance_norm.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

namespace torch2onnx {

namespace {

// A constant filled with `v` of the given shape and dtype (the default weight or bias of
// LayerNormalization, which needs a scale even when torch has none).
Val filled(GraphBuilder &b, DType t, const std::vector<int64_t> &shape, float v) {
  int64_t n = 1;
  for (auto d : shape)
    n *= d;
  Val f = b.constant(TensorData::f32(std::vector<float>(static_cast<size_t>(n), v), shape));
  return t == DType::Float ? f : cast_to(b, f, t);
}

struct Moments {
  Val centered; // x - mean
  Val mean;
  Val rstd; // 1 / sqrt(var + eps)
};

// Biased mean/variance over `axes` (kept), the statistics torch normalizes with. ReduceMean keeps
// its axes attribute through opset 17.
Moments moments(GraphBuilder &b, const Val &x, const std::vector<int64_t> &axes, double eps,
                DType t) {
  Moments m;
  m.mean = b.op1("ReduceMean", {x}, {{"axes", axes}, {"keepdims", int64_t{1}}});
  m.centered = b.op1("Sub", {x, m.mean});
  Val sq = b.op1("Mul", {m.centered, m.centered});
  Val var = b.op1("ReduceMean", {sq}, {{"axes", axes}, {"keepdims", int64_t{1}}});
  Val stddev = b.op1("Sqrt", {b.op1("Add", {var, b.const_scalar(t, eps)})});
  m.rstd = b.op1("Reciprocal", {stddev});
  return m;
}

// A per-channel vector of shape [C] reshaped to broadcast against an N,C,* tensor of `rank`.
Val channel_view(GraphBuilder &b, const Val &v, int64_t rank, DType t) {
  std::vector<int64_t> shape{-1};
  for (int64_t i = 2; i < rank; ++i)
    shape.push_back(1);
  return reshape(b, cast_to(b, v, t), shape);
}

// y * weight + bias with the per-channel (dim 1) parameters "weight" and "bias" (every
// normalization's schema names them so), either of which may be None.
Val channel_affine(ConvertCtx &c, Val y, int64_t rank, DType t) {
  if (c.has("weight"))
    y = c.b.op1("Mul", {y, channel_view(c.b, c.tensor("weight"), rank, t)});
  if (c.has("bias"))
    y = c.b.op1("Add", {y, channel_view(c.b, c.tensor("bias"), rank, t)});
  return y;
}

// Inference-mode normalization of "input" with the given per-channel "running_mean" and
// "running_var" (batch_norm's and instance_norm's names), "weight" and "bias".
Val running_stats_norm(ConvertCtx &c, double eps) {
  Val x = c.tensor("input");
  DType t = c.b.dtype(x);
  int64_t rank = rank_of(c, "input");
  if (c.has("weight") && c.has("bias") && rank >= 2) {
    return c.b.op1("BatchNormalization",
                   {x, cast_to(c.b, c.tensor("weight"), t), cast_to(c.b, c.tensor("bias"), t),
                    cast_to(c.b, c.tensor("running_mean"), t),
                    cast_to(c.b, c.tensor("running_var"), t)},
                   {{"epsilon", eps}});
  }
  // Without weight or bias BatchNormalization would need constants of size C, which may be
  // unknown; the same arithmetic as Mul/Add works for any C.
  Val mean = cast_to(c.b, c.tensor("running_mean"), t);
  Val var = cast_to(c.b, c.tensor("running_var"), t);
  Val scale =
      c.b.op1("Reciprocal", {c.b.op1("Sqrt", {c.b.op1("Add", {var, c.b.const_scalar(t, eps)})})});
  if (c.has("weight"))
    scale = c.b.op1("Mul", {scale, cast_to(c.b, c.tensor("weight"), t)});
  Val shift = c.b.op1("Neg", {c.b.op1("Mul", {mean, scale})});
  if (c.has("bias"))
    shift = c.b.op1("Add", {shift, cast_to(c.b, c.tensor("bias"), t)});
  Val y = c.b.op1("Mul", {x, channel_view(c.b, scale, rank, t)});
  return c.b.op1("Add", {y, channel_view(c.b, shift, rank, t)});
}

} // namespace

// batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean,
//            Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled)
// Training mode normalizes with batch statistics; updating the running stats has no meaning in
// an inference graph.
void aten_batch_norm(ConvertCtx &c) {
  double eps = c.arg<double>("eps");
  bool training = c.arg<bool>("training");
  if (!training && c.has("running_mean") && c.has("running_var")) {
    c.set_out(0, running_stats_norm(c, eps));
    return;
  }
  Val x = c.tensor("input");
  DType t = c.b.dtype(x);
  int64_t rank = rank_of(c, "input");
  std::vector<int64_t> axes{0};
  for (int64_t i = 2; i < rank; ++i)
    axes.push_back(i);
  Moments m = moments(c.b, x, axes, eps, t);
  Val y = c.b.op1("Mul", {m.centered, m.rstd});
  c.set_out(0, channel_affine(c, y, rank, t));
}

// instance_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean,
//               Tensor? running_var, bool use_input_stats, float momentum, float eps,
//               bool cudnn_enabled)
void aten_instance_norm(ConvertCtx &c) {
  double eps = c.arg<double>("eps");
  bool use_input_stats = c.arg<bool>("use_input_stats");
  if (!use_input_stats) {
    T2O_CHECK(c.has("running_mean") && c.has("running_var"),
              "{}: use_input_stats=False needs running_mean and running_var", c.op());
    c.set_out(0, running_stats_norm(c, eps));
    return;
  }
  Val x = c.tensor("input");
  DType t = c.b.dtype(x);
  int64_t rank = rank_of(c, "input");
  T2O_CHECK(rank >= 3, "{}: expected an input of rank 3 or more (N, C, *), got rank {}", c.op(),
            rank);
  if (c.has("weight") && c.has("bias")) {
    c.set_out(0,
              c.b.op1("InstanceNormalization",
                      {x, cast_to(c.b, c.tensor("weight"), t), cast_to(c.b, c.tensor("bias"), t)},
                      {{"epsilon", eps}}));
    return;
  }
  Moments m = moments(c.b, x, int_range(2, rank), eps, t);
  Val y = c.b.op1("Mul", {m.centered, m.rstd});
  c.set_out(0, channel_affine(c, y, rank, t));
}

// group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None,
//            float eps=1e-05, bool cudnn_enabled=True)
// GroupNormalization only arrives in opset 18 (with scale and bias per channel only at 21), so:
// reshape to (N, G, -1), normalize each (sample, group) with InstanceNormalization (unit scale,
// zero bias: its channels are the groups), reshape back, then the per-channel affine. One
// InstanceNormalization kernel instead of 7 ops (ReduceMean, Sub, ...): ta_convtasnet ran 10%
// slower in ONNX Runtime than torch.onnx.export's file, which does the same. bfloat16, which
// InstanceNormalization does not take, is normalized op by op.
void aten_group_norm(ConvertCtx &c) {
  Val x = c.tensor("input");
  DType t = c.b.dtype(x);
  int64_t rank = rank_of(c, "input");
  int64_t groups = c.arg<int64_t>("num_groups");
  double eps = c.arg<double>("eps", 1e-5);
  Val grouped = reshape(c.b, x, {0, groups, -1});
  Val y;
  if (t == DType::Float || t == DType::Float16 || t == DType::Double) {
    y = c.b.op1("InstanceNormalization",
                {grouped, filled(c.b, t, {groups}, 1.0F), filled(c.b, t, {groups}, 0.0F)},
                {{"epsilon", eps}});
  } else {
    Moments m = moments(c.b, grouped, {2}, eps, t);
    y = c.b.op1("Mul", {m.centered, m.rstd});
  }
  y = c.b.op1("Reshape", {y, c.b.op1("Shape", {x})});
  c.set_out(0, channel_affine(c, y, rank, t));
}

// GroupNormalization (opset 21: scale and bias per channel). A missing weight or bias is ones or
// zeros of the channel count, which must be static; rank 2 inputs (N, C) have no spatial dims,
// which GroupNormalization needs, so they take the decomposition.
void aten_group_norm_21(ConvertCtx &c) {
  if (rank_of(c, "input") < 3 ||
      (!(c.has("weight") && c.has("bias")) && c.info("input").shape->at(1).value < 0)) {
    aten_group_norm(c);
    return;
  }
  Val x = c.tensor("input");
  DType t = c.b.dtype(x);
  auto param = [&](std::string_view name, float fill) {
    if (c.has(name))
      return cast_to(c.b, c.tensor(name), t);
    return filled(c.b, t, {static_dim(c, "input", 1)}, fill);
  };
  c.set_out(0, c.b.op1("GroupNormalization", {x, param("weight", 1.0F), param("bias", 0.0F)},
                       {{"num_groups", c.arg<int64_t>("num_groups")},
                        {"epsilon", c.arg<double>("eps", 1e-5)}}));
}

// native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C, SymInt HxW,
//                   int group, float eps) -> (Tensor out, Tensor mean, Tensor rstd)
// group_norm's decomposition; mean and rstd are per (sample, group): [N, group].
void aten_native_group_norm(ConvertCtx &c) {
  Val x = c.tensor("input");
  DType t = c.b.dtype(x);
  int64_t rank = rank_of(c, "input");
  int64_t groups = c.arg<int64_t>("group");
  Moments m = moments(c.b, reshape(c.b, x, {0, groups, -1}), {2}, c.arg<double>("eps"), t);
  Val y = c.b.op1("Reshape", {c.b.op1("Mul", {m.centered, m.rstd}), c.b.op1("Shape", {x})});
  c.set_out(0, channel_affine(c, y, rank, t));
  c.set_out(1, reshape(c.b, m.mean, {0, groups}));
  c.set_out(2, reshape(c.b, m.rstd, {0, groups}));
}

// layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None,
//            float eps=1e-05, bool cudnn_enable=True)
// native_layer_norm(Tensor input, int[] normalized_shape, Tensor? weight, Tensor? bias, float eps)
//   -> (Tensor out, Tensor mean, Tensor rstd)

namespace {

// The arguments both layer_norm forms read, checked against the input rank.
struct LayerNormArgs {
  Val x;
  DType t;
  int64_t rank;
  std::vector<int64_t> shape; // normalized_shape (empty when its sizes are known at run time only)
  int64_t k = 0;              // how many trailing dims it normalizes
  double eps;
};

LayerNormArgs layer_norm_args(const ConvertCtx &c) {
  LayerNormArgs a;
  a.x = c.tensor("input");
  a.t = c.b.dtype(a.x);
  a.rank = rank_of(c, "input");
  // F.layer_norm(x, x.shape[1:]) with symbolic sizes: only the count of dims matters (they are
  // the input's last ones).
  if (has_runtime_items(c.arg("normalized_shape"))) {
    a.k = static_cast<int64_t>(c.list("normalized_shape").size());
  } else {
    a.shape = c.ints("normalized_shape");
    a.k = static_cast<int64_t>(a.shape.size());
  }
  int64_t k = a.k;
  T2O_CHECK(k >= 1 && k <= a.rank, "{}: normalized_shape {} does not fit an input of rank {}",
            c.op(), k, a.rank);
  a.eps = c.arg<double>("eps", 1e-5);
  return a;
}

// Opset 11-16: the moments by hand; returns (y, mean, rstd).
std::vector<Val> layer_norm_decomposed(ConvertCtx &c) {
  LayerNormArgs a = layer_norm_args(c);
  int64_t k = a.k;
  Moments m = moments(c.b, a.x, int_range(a.rank - k, a.rank), a.eps, a.t);
  Val y = c.b.op1("Mul", {m.centered, m.rstd});
  if (c.has("weight"))
    y = c.b.op1("Mul", {y, cast_to(c.b, c.tensor("weight"), a.t)});
  if (c.has("bias"))
    y = c.b.op1("Add", {y, cast_to(c.b, c.tensor("bias"), a.t)});
  return {y, m.mean, m.rstd};
}

// Opset 17: LayerNormalization; returns (y) or (y, mean, rstd).
std::vector<Val> layer_norm_op(ConvertCtx &c, bool want_stats) {
  LayerNormArgs a = layer_norm_args(c);
  int64_t k = a.k;
  Val scale;
  if (c.has("weight")) {
    scale = cast_to(c.b, c.tensor("weight"), a.t);
  } else if (!a.shape.empty()) {
    scale = filled(c.b, a.t, a.shape, 1.0f);
  } else { // ones over the input's last k dims, sized at run time
    TensorData one = TensorData::scalar(a.t, 1);
    one.dims = {1};
    scale = c.b.op1("ConstantOfShape", {dims_of(c.b, a.x, a.rank - k, a.rank)}, {{"value", one}});
  }
  std::vector<Val> inputs{a.x, scale};
  if (c.has("bias"))
    inputs.push_back(cast_to(c.b, c.tensor("bias"), a.t));
  auto outs =
      c.b.op("LayerNormalization", inputs, {{"axis", -k}, {"epsilon", a.eps}}, want_stats ? 3 : 1);
  // The statistics come out in stash_type (float); torch returns them in the input dtype.
  if (want_stats && a.t != DType::Float) {
    outs[1] = cast_to(c.b, outs[1], a.t);
    outs[2] = cast_to(c.b, outs[2], a.t);
  }
  return outs;
}

} // namespace

void aten_layer_norm(ConvertCtx &c) {
  c.set_out(0, layer_norm_decomposed(c)[0]);
}
void aten_layer_norm_17(ConvertCtx &c) {
  c.set_out(0, layer_norm_op(c, false)[0]);
}

// The statistics keep the normalized dims as size 1, like LayerNormalization's extra outputs.
void aten_native_layer_norm(ConvertCtx &c) {
  auto outs = layer_norm_decomposed(c);
  for (size_t i = 0; i < 3; ++i)
    c.set_out(i, outs[i]);
}

void aten_native_layer_norm_17(ConvertCtx &c) {
  auto outs = layer_norm_op(c, true);
  for (size_t i = 0; i < 3; ++i)
    c.set_out(i, outs[i]);
}

void register_norm_ops(Registry &r) {
  r.add("aten::batch_norm", 11, aten_batch_norm,
        {"BatchNormalization", "Mul", "Add", "ReduceMean", "Sqrt", "Reciprocal", "Cast", "Neg",
         "Reshape", "Sub"});
  r.add("aten::instance_norm", 11, aten_instance_norm,
        {"InstanceNormalization", "BatchNormalization", "ReduceMean", "Mul", "Add", "Reciprocal",
         "Sqrt", "Sub"});
  r.add("aten::group_norm", 11, aten_group_norm,
        {"Reshape", "InstanceNormalization", "ReduceMean", "Mul", "Add", "Sqrt", "Reciprocal",
         "Shape", "Sub"});
  r.add("aten::group_norm", 21, aten_group_norm_21, {"GroupNormalization"});
  r.add("aten::native_group_norm", 11, aten_native_group_norm,
        {"Reshape", "ReduceMean", "Mul", "Add", "Sqrt", "Reciprocal", "Shape", "Sub"});
  r.add("aten::layer_norm", 11, aten_layer_norm,
        {"ReduceMean", "Sub", "Mul", "Sqrt", "Add", "Reciprocal"});
  r.add("aten::layer_norm", 17, aten_layer_norm_17,
        {"LayerNormalization", "ConstantOfShape", "Shape", "Slice"});
  r.add("aten::native_layer_norm", 11, aten_native_layer_norm,
        {"ReduceMean", "Sub", "Mul", "Sqrt", "Add", "Reciprocal"});
  r.add("aten::native_layer_norm", 17, aten_native_layer_norm_17,
        {"LayerNormalization", "ConstantOfShape", "Shape", "Slice"});
}

} // namespace torch2onnx
