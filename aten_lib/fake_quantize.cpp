// Fake quantization (quantization-aware training, in eval): x rounded to a quantization grid and
// back, as QuantizeLinear + DequantizeLinear pairs (docs/quantized.md). Ranges other than the
// full uint8 / int8 ones, and per-channel parameters below opset 13, are the same arithmetic
// spelled out: (clamp(round(x / scale) + zero_point, quant_min, quant_max) - zero_point) * scale.
#include "aten_lib/helpers.h"
#include "aten_lib/quantized.h"

#include <cmath>
#include <cstring>

namespace torch2onnx {

namespace {

struct FakeQuant {
  Val scale, zero;   // runtime or constant tensors, any dtype
  int64_t axis = -1; // per-channel: the channel dim of x; -1 per-tensor
  int64_t qmin = 0, qmax = 255;
};

// The parameters broadcast against x: per-tensor as scalars, per-channel shaped [1, .., C, .., 1].
Val shaped(GraphBuilder &b, const Val &v, const FakeQuant &p, int64_t rank, DType t) {
  Val c = cast_to(b, v, t);
  if (p.axis < 0)
    return reshape(b, c, std::vector<int64_t>{});
  std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
  shape[static_cast<size_t>(p.axis)] = -1;
  return reshape(b, c, shape);
}

Val fake_quantize(ConvertCtx &c, const Val &input, FakeQuant p) {
  GraphBuilder &b = c.b;
  Val x = cast_to(b, input, DType::Float);
  int64_t rank = b.rank(x);
  // A float zero point (the learnable fake quantizers) is rounded and clamped first, as they do.
  Val zero = p.zero;
  if (is_floating(b.dtype(zero)))
    zero = op_t(b, DType::Float, "Round", {cast_to(b, zero, DType::Float)});
  DType storage = p.qmin == 0 && p.qmax == 255      ? DType::UInt8
                  : p.qmin == -128 && p.qmax == 127 ? DType::Int8
                                                    : DType::Undefined;
  bool per_axis_ok = p.axis < 0 || b.opset() >= 13;
  if (storage != DType::Undefined && per_axis_ok) {
    std::vector<Attr> attrs;
    Val scale = cast_to(b, p.scale, DType::Float), zp = cast_to(b, zero, storage);
    if (p.axis >= 0) {
      attrs.push_back({"axis", p.axis});
      scale = reshape(b, scale, std::vector<int64_t>{-1});
      zp = reshape(b, zp, std::vector<int64_t>{-1});
    } else {
      scale = reshape(b, scale, std::vector<int64_t>{});
      zp = reshape(b, zp, std::vector<int64_t>{});
    }
    Val q = op_t(b, storage, "QuantizeLinear", {x, scale, zp}, attrs);
    return op_t(b, DType::Float, "DequantizeLinear", {q, scale, zp}, attrs);
  }
  Val scale = shaped(b, p.scale, p, rank, DType::Float);
  Val zp = shaped(b, zero, p, rank, DType::Float);
  Val q = op_t(b, DType::Float, "Round", {op_t(b, DType::Float, "Div", {x, scale})});
  q = op_t(b, DType::Float, "Add", {q, zp});
  q = op_t(b, DType::Float, "Max", {q, b.const_scalar(DType::Float, static_cast<double>(p.qmin))});
  q = op_t(b, DType::Float, "Min", {q, b.const_scalar(DType::Float, static_cast<double>(p.qmax))});
  return op_t(b, DType::Float, "Mul", {op_t(b, DType::Float, "Sub", {q, zp}), scale});
}

// aten::fake_quantize_per_tensor_affine(Tensor self, float scale, int zero_point, int quant_min,
//   int quant_max), .tensor_qparams (scale and zero_point tensors);
// aten::_fake_quantize_learnable_per_tensor_affine(Tensor self, Tensor scale, Tensor zero_point,
//   int quant_min, int quant_max, float grad_factor=1.)
void aten_fake_quantize_per_tensor_affine(ConvertCtx &c) {
  FakeQuant p;
  p.scale = operand(c, "scale", DType::Float);
  p.zero = c.arg("zero_point").is_tensor() ? c.tensor("zero_point")
                                           : operand(c, "zero_point", DType::Int64);
  p.qmin = c.arg<int64_t>("quant_min");
  p.qmax = c.arg<int64_t>("quant_max");
  c.set_out(0, fake_quantize(c, c.tensor("self"), p));
}

// aten::fake_quantize_per_channel_affine(Tensor self, Tensor scale, Tensor zero_point, int axis,
//   int quant_min, int quant_max); the learnable one with grad_factor.
void aten_fake_quantize_per_channel_affine(ConvertCtx &c) {
  FakeQuant p;
  p.scale = c.tensor("scale");
  p.zero = c.tensor("zero_point");
  p.axis = norm_axis(c.arg<int64_t>("axis"), rank_of(c, "self"));
  p.qmin = c.arg<int64_t>("quant_min");
  p.qmax = c.arg<int64_t>("quant_max");
  c.set_out(0, fake_quantize(c, c.tensor("self"), p));
}

// LibTorch's choice of a scale and zero point for the range [lo, hi] (quant_utils.h
// ChooseQuantizationParams, without power-of-two scales or a reduced range), in its float/double
// arithmetic: the range widened to hold 0, a scale of at least 6.1e-5, the zero point from the
// range end that loses less, rounded half to even and clamped.
std::pair<float, int64_t> choose_qparams(float lo, float hi, int64_t qmin, int64_t qmax,
                                         bool symmetric) {
  if (lo > hi)
    std::swap(lo, hi);
  if (symmetric && lo < 0 && hi > 0 && qmin < 0) {
    float m = std::max(std::fabs(lo), std::fabs(hi));
    lo = -m;
    hi = m;
  }
  lo = std::min(lo, 0.f);
  hi = std::max(hi, 0.f);
  double scale = (static_cast<double>(hi) - lo) / static_cast<double>(qmax - qmin);
  if (static_cast<float>(scale) == 0.0f || std::isinf(1.0f / static_cast<float>(scale)))
    scale = 0.1;
  constexpr float kSmall = 6.1e-5f;
  if (scale < kSmall) {
    float amplifier = kSmall / static_cast<float>(scale);
    scale = kSmall;
    if (lo == 0.0f)
      hi = kSmall * static_cast<float>(qmax - qmin);
    else if (hi == 0.0f)
      lo = -kSmall * static_cast<float>(qmax - qmin);
    else {
      lo *= amplifier;
      hi *= amplifier;
    }
  }
  double from_min = static_cast<double>(qmin) - lo / scale;
  double from_max = static_cast<double>(qmax) - hi / scale;
  double err_min = std::fabs(static_cast<double>(qmin)) - std::fabs(lo / scale);
  double err_max = std::fabs(static_cast<double>(qmax)) - std::fabs(hi / scale);
  double zp = err_min < err_max ? from_min : from_max;
  if (symmetric && qmin < 0)
    zp = static_cast<double>(qmin + qmax + 1) / 2; // 0 for int8
  int64_t nudged = zp < static_cast<double>(qmin)   ? qmin
                   : zp > static_cast<double>(qmax) ? qmax
                                                    : static_cast<int64_t>(std::nearbyint(zp));
  return {static_cast<float>(scale), nudged};
}

// Element i of a float32 or float64 constant.
float float_at(const TensorData &d, int64_t i) {
  if (d.dtype == DType::Double) {
    double v;
    std::memcpy(&v, d.raw.data() + i * 8, 8);
    return static_cast<float>(v);
  }
  T2O_CHECK(d.dtype == DType::Float, "expected a float tensor, got {}", dtype_name(d.dtype));
  float v;
  std::memcpy(&v, d.raw.data() + i * 4, 4);
  return v;
}

// A flag tensor of fused_moving_avg_obs_fake_quant: its value, which must be a constant.
bool flag_on(const ConvertCtx &c, std::string_view name) {
  const TensorData *d = c.b.constant_data(c.tensor(name));
  T2O_CHECK(d && d->numel() >= 1, "{}: '{}' is computed at run time; the export needs it fixed",
            c.op(), name);
  return d->int_at(0) != 0;
}

// aten::fused_moving_avg_obs_fake_quant(Tensor self, Tensor observer_on, Tensor fake_quant_on,
//   Tensor running_min, Tensor running_max, Tensor scale, Tensor zero_point,
//   float averaging_const, int quant_min, int quant_max, int ch_axis,
//   bool per_row_fake_quant=False, bool symmetric_quant=False)
// A QAT model's FusedMovingAvgObsFakeQuantize. With its observer on, every call moves the scale
// with the input's range (state the ONNX model cannot keep): refused with how to turn it off.
// With fake quantization off it passes x through; on, it quantizes with the parameters LibTorch
// chooses from the (constant) running minimum and maximum on every call, not the stored scale.
void aten_fused_moving_avg_obs_fake_quant(ConvertCtx &c) {
  if (flag_on(c, "observer_on"))
    throw Error(fmt::format("{}: the observer is on, so every call changes the quantization "
                            "parameters",
                            c.op()),
                "turn the observers off before saving: "
                "model.apply(torch.ao.quantization.disable_observer)");
  if (!flag_on(c, "fake_quant_on")) {
    c.set_out(0, c.tensor("self"));
    return;
  }
  FakeQuant p;
  p.qmin = c.arg<int64_t>("quant_min");
  p.qmax = c.arg<int64_t>("quant_max");
  if (c.arg<bool>("per_row_fake_quant", false))
    p.axis = norm_axis(c.arg<int64_t>("ch_axis"), rank_of(c, "self"));
  const TensorData *lo = c.b.constant_data(c.tensor("running_min"));
  const TensorData *hi = c.b.constant_data(c.tensor("running_max"));
  T2O_CHECK(lo && hi && lo->numel() == hi->numel() && lo->numel() >= 1,
            "{}: the running minimum and maximum must be constants of the model", c.op());
  std::vector<float> scales;
  std::vector<int64_t> zeros;
  for (int64_t i = 0; i < lo->numel(); ++i) {
    auto [s, z] = choose_qparams(float_at(*lo, i), float_at(*hi, i), p.qmin, p.qmax,
                                 c.arg<bool>("symmetric_quant", false));
    scales.push_back(s);
    zeros.push_back(z);
  }
  std::vector<int64_t> dims = {static_cast<int64_t>(scales.size())};
  p.scale = c.b.constant(TensorData::f32(scales, dims));
  p.zero = c.b.constant(TensorData::i64(zeros, dims));
  c.set_out(0, fake_quantize(c, c.tensor("self"), p));
}

} // namespace

void register_fake_quantize_ops(Registry &r) {
  const std::vector<std::string> ops = {"QuantizeLinear",
                                        "DequantizeLinear",
                                        "Reshape",
                                        "Cast",
                                        "Round",
                                        "Div",
                                        "Add",
                                        "Max",
                                        "Min",
                                        "Sub",
                                        "Mul"};
  for (const char *op : {"aten::fake_quantize_per_tensor_affine",
                         "aten::_fake_quantize_learnable_per_tensor_affine"})
    r.add(op, 11, aten_fake_quantize_per_tensor_affine, ops);
  for (const char *op : {"aten::fake_quantize_per_channel_affine",
                         "aten::_fake_quantize_learnable_per_channel_affine"})
    r.add(op, 11, aten_fake_quantize_per_channel_affine, ops);
  r.add("aten::fused_moving_avg_obs_fake_quant", 11, aten_fused_moving_avg_obs_fake_quant, ops);
}

} // namespace torch2onnx
