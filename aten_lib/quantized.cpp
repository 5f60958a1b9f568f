// Quantized ops (docs/quantized.md): quantize/dequantize, fake quantization, and the quantized::
// ops eager, FX and torchvision models use. A quantized tensor is carried as its real values; the
// walker ends every node whose recorded output is quantized in QuantizeLinear + DequantizeLinear
// at the recorded scale and zero point, so each converter here computes the float op only.
#include "aten_lib/quantized.h"

#include "aten_lib/helpers.h"

#include <cmath>

namespace torch2onnx {

Val quantize_linear(GraphBuilder &b, const Val &x, const QuantParams &q) {
  T2O_CHECK(q.storage == DType::UInt8 || q.storage == DType::Int8,
            "QuantizeLinear writes uint8 or int8, not {}", dtype_name(q.storage));
  Val scale = b.const_scalar(DType::Float, q.scale);
  Val zero = b.const_scalar(q.storage, static_cast<double>(q.zero_point));
  return op_t(b, q.storage, "QuantizeLinear", {cast_to(b, x, DType::Float), scale, zero});
}

Val requantize(GraphBuilder &b, const Val &x, const QuantParams &q) {
  if (q.storage == DType::Int32)
    return x;
  Val qi = quantize_linear(b, x, q);
  Val scale = b.const_scalar(DType::Float, q.scale);
  Val zero = b.const_scalar(q.storage, static_cast<double>(q.zero_point));
  return op_t(b, DType::Float, "DequantizeLinear", {qi, scale, zero});
}

// X quantized to uint8 at run time from its own range, and back, as LibTorch's dynamic
// quantization does it: the range widened to hold 0, split into qmax steps (255; 127 with
// reduce_range), the zero point round(-min / scale) clamped to [0, qmax], scale 0.1 for an
// all-zero X. Without reduce_range that is exactly DynamicQuantizeLinear.
Val dynamic_quantize(GraphBuilder &b, const Val &x, bool reduce_range) {
  Val xf = cast_to(b, x, DType::Float);
  if (!reduce_range) {
    std::vector<Val> q = b.op("DynamicQuantizeLinear", {xf}, {}, 3);
    return op_t(b, DType::Float, "DequantizeLinear", {q[0], q[1], q[2]});
  }
  const double qmax = 127;
  auto f = [&](double v) { return b.const_scalar(DType::Float, v); };
  std::vector<Attr> all = {{"keepdims", int64_t{0}}};
  Val lo = op_t(b, DType::Float, "Min", {op_t(b, DType::Float, "ReduceMin", {xf}, all), f(0)});
  Val hi = op_t(b, DType::Float, "Max", {op_t(b, DType::Float, "ReduceMax", {xf}, all), f(0)});
  Val scale = op_t(b, DType::Float, "Div", {op_t(b, DType::Float, "Sub", {hi, lo}), f(qmax)});
  Val zero_range = op_t(b, DType::Bool, "Equal", {scale, f(0)});
  scale = op_t(b, DType::Float, "Where", {zero_range, f(0.1), scale});
  Val zp = op_t(b, DType::Float, "Round",
                {op_t(b, DType::Float, "Neg", {op_t(b, DType::Float, "Div", {lo, scale})})});
  zp = op_t(b, DType::Float, "Min", {op_t(b, DType::Float, "Max", {zp, f(0)}), f(qmax)});
  zp = cast_to(b, zp, DType::UInt8);
  Val q = op_t(b, DType::UInt8, "QuantizeLinear", {xf, scale, zp});
  return op_t(b, DType::Float, "DequantizeLinear", {q, scale, zp});
}

namespace {

// ScalarType numbers of LibTorch's quantized dtypes (c10/core/ScalarType.h).
constexpr int64_t kQInt8 = 12, kQUInt8 = 13, kQInt32 = 14;

DType storage_of(int64_t scalar_type, const ConvertCtx &c) {
  if (scalar_type == kQUInt8)
    return DType::UInt8;
  if (scalar_type == kQInt8)
    return DType::Int8;
  throw Error(fmt::format("{}: quantizing to dtype {} is not exported (quint8 and qint8 are)",
                          c.op(), scalar_type == kQInt32 ? "qint32" : std::to_string(scalar_type)));
}

// The output info a float op computing a quantized result gives its value (no parameters: the
// walker adds them with the QuantizeLinear it writes).
TensorInfo real_info(const ConvertCtx &c, size_t i = 0) {
  TensorInfo info = c.out_info(i);
  info.quant.reset();
  return info;
}

Val relu(GraphBuilder &b, const Val &x) {
  return op_t(b, DType::Float, "Relu", {x});
}

// The packed parameters of a quantized conv or linear (aten_lib/quantized.h).
const std::vector<Arg> &packed(const ConvertCtx &c, size_t fields) {
  std::string_view name = c.takes("packed_weight") ? "packed_weight"
                          : c.takes("W_prepack")   ? "W_prepack"
                                                   : "weight";
  const Arg &a = c.arg(name);
  T2O_CHECK(a.is_list() && a.items.size() == fields,
            "{}: argument '{}' is not a packed-parameters object the export can read (got {})",
            c.op(), name, a.describe());
  return a.items;
}

// quantized::conv1d/2d/3d(Tensor qx, ConvNdPackedParamsBase packed_weight, float output_scale,
//                         int output_zero_point), the _relu forms, conv_transpose1d/2d/3d, and
// the older overloads that also take stride/padding/dilation/groups (the packed values win: they
// are what LibTorch computes with). A conv1d is packed as a conv2d of height 1: the input gets
// that height and loses it after.
void quantized_conv_impl(ConvertCtx &c, bool with_relu) {
  const std::vector<Arg> &p = packed(c, kPackedConvFields);
  GraphBuilder &b = c.b;
  Val x = c.tensor("qx");
  const Val &w = p[kPackedWeight].t();
  bool one_d = b.rank(w) == rank_of(c, "qx") + 1;
  if (one_d)
    x = unsqueeze(b, x, {2});
  TensorInfo info = real_info(c);
  if (one_d && info.shape)
    info.shape->insert(info.shape->begin() + 2, Dim::known(1));
  Val y = c.call("aten::convolution",
                 {{"input", x},
                  {"weight", w},
                  {"bias", p[kPackedBias]},
                  {"stride", p[kPackedStride]},
                  {"padding", p[kPackedPadding]},
                  {"dilation", p[kPackedDilation]},
                  {"transposed", Arg::of_bool(p[kPackedTransposed].to_int() != 0)},
                  {"output_padding", p[kPackedOutputPadding]},
                  {"groups", p[kPackedGroups]}},
                 {info})[0]
              .t();
  if (with_relu)
    y = relu(b, y);
  c.set_out(0, one_d ? squeeze(b, y, {2}) : y);
}
void quantized_conv(ConvertCtx &c) {
  quantized_conv_impl(c, false);
}
void quantized_conv_relu(ConvertCtx &c) {
  quantized_conv_impl(c, true);
}

Val packed_linear(ConvertCtx &c, const Val &x) {
  const std::vector<Arg> &p = packed(c, kPackedLinearFields);
  return c
      .call("aten::linear", {{"input", x}, {"weight", p[kPackedWeight]}, {"bias", p[kPackedBias]}},
            {real_info(c)})[0]
      .t();
}

// quantized::linear(Tensor X, LinearPackedParamsBase W_prepack, float Y_scale_i,
//                   int Y_zero_point_i) -> Tensor Y; linear_relu the same.
void quantized_linear(ConvertCtx &c) {
  c.set_out(0, packed_linear(c, c.tensor("X")));
}
void quantized_linear_relu(ConvertCtx &c) {
  c.set_out(0, relu(c.b, packed_linear(c, c.tensor("X"))));
}

// quantized::linear_dynamic(Tensor X, LinearPackedParamsBase W_prepack, bool reduce_range=False)
// The input is quantized at run time from its own range. reduce_range (7-bit activations) is
// honoured as the x86 engines (fbgemm, onednn) honour it; qnnpack ignores it (docs/quantized.md).
Val linear_dynamic(ConvertCtx &c) {
  bool reduce_range = c.arg<bool>("reduce_range", false);
  return packed_linear(c, dynamic_quantize(c.b, c.tensor("X"), reduce_range));
}
void quantized_linear_dynamic(ConvertCtx &c) {
  c.set_out(0, linear_dynamic(c));
}
void quantized_linear_relu_dynamic(ConvertCtx &c) {
  c.set_out(0, relu(c.b, linear_dynamic(c)));
}

// quantized::add(Tensor qa, Tensor qb, float scale, int zero_point), add.Scalar(Tensor qa,
// Scalar b), add.Scalar2(Scalar b, Tensor qa), add_scalar(Tensor qa, Scalar b), and the same for
// mul; the _relu forms.
void quantized_binary(ConvertCtx &c, const char *onnx, bool with_relu) {
  Val a = c.tensor("qa");
  Val other = operand(c, c.takes("qb") ? "qb" : "b", DType::Float);
  Val y = op_t(c.b, DType::Float, onnx, {a, other});
  c.set_out(0, with_relu ? relu(c.b, y) : y);
}
void quantized_add(ConvertCtx &c) {
  quantized_binary(c, "Add", false);
}
void quantized_add_relu(ConvertCtx &c) {
  quantized_binary(c, "Add", true);
}
void quantized_mul(ConvertCtx &c) {
  quantized_binary(c, "Mul", false);
}
void quantized_mul_relu(ConvertCtx &c) {
  quantized_binary(c, "Mul", true);
}

// quantized::cat(Tensor[] qx, int dim, float? scale, int? zero_point); cat_relu.
void quantized_cat(ConvertCtx &c) {
  Val y =
      c.call("aten::cat", {{"tensors", c.arg("qx")}, {"dim", c.arg("dim")}}, {real_info(c)})[0].t();
  c.set_out(0, c.op() == "quantized::cat_relu" ? relu(c.b, y) : y);
}

// The quantized:: ops that are an aten op with output parameters added: the aten op's converter
// with the arguments they share.
void forward_float(ConvertCtx &c, const std::string &op, const std::vector<std::string> &names,
                   const std::vector<std::pair<std::string, std::string>> &renamed = {}) {
  std::vector<NamedArg> args;
  for (const auto &n : names)
    args.emplace_back(n, c.arg(n));
  for (const auto &[to, from] : renamed)
    args.emplace_back(to, c.arg(from));
  c.set_out(0, c.call(op, std::move(args), {real_info(c)})[0]);
}

// quantized::hardswish(Tensor input, float output_scale, int output_zero_point)
void quantized_hardswish(ConvertCtx &c) {
  forward_float(c, "aten::hardswish", {}, {{"self", "input"}});
}
// quantized::sigmoid(Tensor qx, float output_scale, int output_zero_point)
void quantized_sigmoid(ConvertCtx &c) {
  forward_float(c, "aten::sigmoid", {}, {{"self", "qx"}});
}
// quantized::leaky_relu(Tensor qx, Scalar negative_slope, bool inplace, float output_scale,
//                       int output_zero_point)
void quantized_leaky_relu(ConvertCtx &c) {
  forward_float(c, "aten::leaky_relu", {"negative_slope"}, {{"self", "qx"}});
}
// quantized::relu6(Tensor qx, bool inplace=False)
void quantized_relu6(ConvertCtx &c) {
  c.set_out(
      0,
      c.call("aten::hardtanh",
             {{"self", c.arg("qx")}, {"min_val", Arg::of_float(0)}, {"max_val", Arg::of_float(6)}},
             {real_info(c)})[0]);
}
// quantized::elu(Tensor self, float output_scale, int output_zero_point, Scalar alpha=1,
//                Scalar scale=1, Scalar input_scale=1)
void quantized_elu(ConvertCtx &c) {
  forward_float(c, "aten::elu", {"self", "alpha", "scale", "input_scale"});
}
// quantized::celu(Tensor self, float output_scale, int output_zero_point, Scalar alpha=1)
void quantized_celu(ConvertCtx &c) {
  forward_float(c, "aten::celu", {"self", "alpha"});
}
// quantized::clamp(Tensor qx, Scalar? min=None, Scalar? max=None)
void quantized_clamp(ConvertCtx &c) {
  forward_float(c, "aten::clamp", {"min", "max"}, {{"self", "qx"}});
}
// quantized::softmax(Tensor qx, int dim, float output_scale, int output_zero_point)
void quantized_softmax(ConvertCtx &c) {
  forward_float(c, "aten::softmax", {"dim"}, {{"self", "qx"}});
}
// quantized::matmul(Tensor qa, Tensor qb, float scale, int zero_point)
void quantized_matmul(ConvertCtx &c) {
  forward_float(c, "aten::matmul", {}, {{"self", "qa"}, {"other", "qb"}});
}
// quantized::prelu(Tensor qx, Tensor weight, float output_scale, int output_zero_point): the
// weight is a quantized tensor (nn.quantized.PReLU), its real values a constant.
void quantized_prelu(ConvertCtx &c) {
  forward_float(c, "aten::prelu", {"weight"}, {{"self", "qx"}});
}
// quantized::threshold(Tensor qx, Scalar threshold, Scalar value): the input's quantization.
void quantized_threshold(ConvertCtx &c) {
  forward_float(c, "aten::threshold", {"threshold", "value"}, {{"self", "qx"}});
}
// quantized::max_pool1d / max_pool2d(Tensor qx, int[] kernel_size, int[] stride, int[] padding,
//                                    int[] dilation, bool ceil_mode): the input's quantization.
void quantized_max_pool(ConvertCtx &c) {
  bool two_d = c.op() == "quantized::max_pool2d";
  forward_float(c, two_d ? "aten::max_pool2d" : "aten::max_pool1d",
                {"kernel_size", "stride", "padding", "dilation", "ceil_mode"}, {{"self", "qx"}});
}
// quantized::dropout(Tensor self, float output_scale, int output_zero_point, Scalar p=0.5,
//                    bool training=False): inference keeps every value.
void quantized_dropout(ConvertCtx &c) {
  c.set_out(0, c.tensor("self"));
}

// quantized::batch_norm{,1d,2d,3d}(Tensor qx, Tensor? weight, Tensor? bias, Tensor mean,
//   Tensor var, float eps, float output_scale, int output_zero_point) and the _relu forms;
// aten::quantized_batch_norm(Tensor input, ...) the same.
void quantized_batch_norm(ConvertCtx &c) {
  std::string x = c.takes("qx") ? "qx" : "input";
  Val y = c.call("aten::batch_norm",
                 {{"input", c.arg(x)},
                  {"weight", c.arg("weight")},
                  {"bias", c.arg("bias")},
                  {"running_mean", c.arg("mean")},
                  {"running_var", c.arg("var")},
                  {"training", Arg::of_bool(false)},
                  {"momentum", Arg::of_float(0.1)},
                  {"eps", c.arg("eps")},
                  {"cudnn_enabled", Arg::of_bool(false)}},
                 {real_info(c)})[0]
              .t();
  bool with_relu = c.op().size() > 5 && c.op().compare(c.op().size() - 5, 5, "_relu") == 0;
  c.set_out(0, with_relu ? relu(c.b, y) : y);
}
// quantized::layer_norm(Tensor input, int[] normalized_shape, Tensor? weight, Tensor? bias,
//                       float eps, float output_scale, int output_zero_point)
void quantized_layer_norm(ConvertCtx &c) {
  forward_float(c, "aten::layer_norm", {"input", "normalized_shape", "weight", "bias", "eps"});
}
// quantized::group_norm(Tensor input, int num_groups, Tensor? weight, Tensor? bias, float eps,
//                       float output_scale, int output_zero_point)
void quantized_group_norm(ConvertCtx &c) {
  forward_float(c, "aten::group_norm", {"input", "num_groups", "weight", "bias", "eps"});
}
// quantized::instance_norm(Tensor input, Tensor? weight, Tensor? bias, float eps,
//                          float output_scale, int output_zero_point)
void quantized_instance_norm(ConvertCtx &c) {
  std::vector<NamedArg> args = {{"input", c.arg("input")},
                                {"weight", c.arg("weight")},
                                {"bias", c.arg("bias")},
                                {"running_mean", Arg::none()},
                                {"running_var", Arg::none()},
                                {"use_input_stats", Arg::of_bool(true)},
                                {"momentum", Arg::of_float(0.1)},
                                {"eps", c.arg("eps")},
                                {"cudnn_enabled", Arg::of_bool(false)}};
  c.set_out(0, c.call("aten::instance_norm", std::move(args), {real_info(c)})[0]);
}
// aten::quantized_max_pool1d/2d(Tensor self, int[] kernel_size, int[] stride, int[] padding,
//                               int[] dilation, bool ceil_mode): max pooling picks values, so
// the float max pool gives the same ones.
void aten_quantized_max_pool(ConvertCtx &c) {
  const char *op = c.op() == "aten::quantized_max_pool1d" ? "aten::max_pool1d" : "aten::max_pool2d";
  forward_float(c, op, {"self", "kernel_size", "stride", "padding", "dilation", "ceil_mode"});
}

// ---- aten:: quantization ops ----

// aten::quantize_per_tensor(Tensor self, float scale, int zero_point, ScalarType dtype) and
// .tensor_qparams (scale and zero point as tensors): the walker rounds the value to the recorded
// parameters (the ones LibTorch computed with), so the value passes as it is.
void aten_quantize_per_tensor(ConvertCtx &c) {
  storage_of(c.arg<int64_t>("dtype"), c); // refuses qint32
  c.set_out(0, cast_to(c.b, c.tensor("self"), DType::Float));
}

// aten::quantize_per_channel(Tensor self, Tensor scales, Tensor zero_points, int axis,
//                            ScalarType dtype): QuantizeLinear + DequantizeLinear along `axis`
// (opset 13: per-axis parameters).
void aten_quantize_per_channel(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  DType storage = storage_of(c.arg<int64_t>("dtype"), c);
  Val scale = cast_to(b, c.tensor("scales"), DType::Float);
  Val zero = cast_to(b, c.tensor("zero_points"), storage);
  std::vector<Attr> axis = {{"axis", norm_axis(c.arg<int64_t>("axis"), rank_of(c, "self"))}};
  Val q = op_t(b, storage, "QuantizeLinear",
               {cast_to(b, c.tensor("self"), DType::Float), scale, zero}, axis);
  c.set_out(0, op_t(b, DType::Float, "DequantizeLinear", {q, scale, zero}, axis));
}

// aten::quantize_per_tensor_dynamic(Tensor self, ScalarType dtype, bool reduce_range): uint8
// from the tensor's own range (DynamicQuantizeLinear); reduce_range as for linear_dynamic.
void aten_quantize_per_tensor_dynamic(ConvertCtx &c) {
  T2O_CHECK(storage_of(c.arg<int64_t>("dtype"), c) == DType::UInt8,
            "aten::quantize_per_tensor_dynamic: only quint8 is exported (ONNX's "
            "DynamicQuantizeLinear writes uint8)");
  c.set_out(0, dynamic_quantize(c.b, c.tensor("self"), c.arg<bool>("reduce_range", false)));
}

// aten::dequantize.self(Tensor self), .tensor(Tensor qtensor): the real values are what the
// export carries already. .tensors / .list: the same for each tensor of a list.
void aten_dequantize(ConvertCtx &c) {
  for (const char *name : {"self", "qtensor", "tensors", "qtensors"})
    if (c.takes(name)) {
      const Arg &a = c.arg(name);
      c.set_out(0, a.is_tensor() ? Arg::of_tensor(cast_to(c.b, a.t(), DType::Float)) : a);
      return;
    }
  throw Error(fmt::format("aten::dequantize: overload '{}' is not exported", c.overload()));
}

const QuantParams &quant_of(const ConvertCtx &c, std::string_view name) {
  const TensorInfo &info = c.info(name);
  T2O_CHECK(info.quant.has_value(),
            "{}: '{}' is not a per-tensor quantized tensor in the recording ({})", c.op(), name,
            info.str());
  return *info.quant;
}

// aten::int_repr(Tensor self): the integers (QuantizeLinear at the tensor's parameters).
void aten_int_repr(ConvertCtx &c) {
  c.set_out(0, quantize_linear(c.b, c.tensor("self"), quant_of(c, "self")));
}
// aten::q_scale(Tensor self) -> float, aten::q_zero_point(Tensor self) -> int: the recorded
// parameters, constants of the export.
void aten_q_scale(ConvertCtx &c) {
  c.set_out(0, Arg::of_float(quant_of(c, "self").scale));
}
void aten_q_zero_point(ConvertCtx &c) {
  c.set_out(0, Arg::of_int(quant_of(c, "self").zero_point));
}

} // namespace

void register_quantized_ops(Registry &r) {
  const std::vector<std::string> conv = {"Conv", "ConvTranspose", "Relu", "Squeeze", "Unsqueeze"};
  for (const char *op : {"quantized::conv1d", "quantized::conv2d", "quantized::conv3d",
                         "quantized::conv_transpose1d", "quantized::conv_transpose2d",
                         "quantized::conv_transpose3d"})
    r.add(op, 11, quantized_conv, conv);
  for (const char *op :
       {"quantized::conv1d_relu", "quantized::conv2d_relu", "quantized::conv3d_relu"})
    r.add(op, 11, quantized_conv_relu, conv);
  const std::vector<std::string> linear = {"Gemm", "MatMul", "Add", "Transpose", "Relu"};
  r.add("quantized::linear", 11, quantized_linear, linear);
  r.add("quantized::linear_relu", 11, quantized_linear_relu, linear);
  std::vector<std::string> dynamic = linear;
  const std::vector<std::string> dq = {"DynamicQuantizeLinear",
                                       "DequantizeLinear",
                                       "QuantizeLinear",
                                       "ReduceMin",
                                       "ReduceMax",
                                       "Min",
                                       "Max",
                                       "Sub",
                                       "Div",
                                       "Equal",
                                       "Where",
                                       "Round",
                                       "Neg",
                                       "Cast"};
  dynamic.insert(dynamic.end(), dq.begin(), dq.end());
  r.add("quantized::linear_dynamic", 11, quantized_linear_dynamic, dynamic);
  r.add("quantized::linear_relu_dynamic", 11, quantized_linear_relu_dynamic, dynamic);
  for (const char *op : {"quantized::add", "quantized::add_scalar"})
    r.add(op, 11, quantized_add, {"Add", "Cast"});
  for (const char *op : {"quantized::add_relu", "quantized::add_scalar_relu"})
    r.add(op, 11, quantized_add_relu, {"Add", "Relu", "Cast"});
  for (const char *op : {"quantized::mul", "quantized::mul_scalar"})
    r.add(op, 11, quantized_mul, {"Mul", "Cast"});
  for (const char *op : {"quantized::mul_relu", "quantized::mul_scalar_relu"})
    r.add(op, 11, quantized_mul_relu, {"Mul", "Relu", "Cast"});
  r.add("quantized::cat", 11, quantized_cat, {"Concat"});
  r.add("quantized::cat_relu", 11, quantized_cat, {"Concat", "Relu"});
  r.add("quantized::hardswish", 11, quantized_hardswish, {"HardSigmoid", "Mul", "HardSwish"});
  r.add("quantized::sigmoid", 11, quantized_sigmoid, {"Sigmoid"});
  r.add("quantized::leaky_relu", 11, quantized_leaky_relu, {"LeakyRelu"});
  r.add("quantized::relu6", 11, quantized_relu6, {"Clip"});
  r.add("quantized::elu", 11, quantized_elu, {"Elu", "Exp", "Where", "Greater", "Mul", "Sub"});
  r.add("quantized::celu", 12, quantized_celu, {"Celu", "Elu", "Div", "Mul"});
  r.add("quantized::clamp", 11, quantized_clamp, {"Clip", "Max", "Min", "Cast"});
  r.add("quantized::softmax", 11, quantized_softmax, {"Softmax", "Cast", "Transpose"});
  r.add("quantized::dropout", 11, quantized_dropout, {});
  r.add("quantized::matmul", 11, quantized_matmul, {"MatMul"});
  r.add("quantized::prelu", 11, quantized_prelu, {"PRelu", "Reshape", "Unsqueeze"});
  r.add("quantized::threshold", 11, quantized_threshold, {"Greater", "Where", "Cast"});
  for (const char *op : {"quantized::max_pool1d", "quantized::max_pool2d"})
    r.add(op, 11, quantized_max_pool, {"MaxPool", "Squeeze", "Unsqueeze"});
  const std::vector<std::string> bn = {"BatchNormalization", "Relu", "Unsqueeze", "Squeeze"};
  for (const char *op :
       {"quantized::batch_norm", "quantized::batch_norm1d", "quantized::batch_norm2d",
        "quantized::batch_norm3d", "quantized::batch_norm_relu", "quantized::batch_norm1d_relu",
        "quantized::batch_norm2d_relu", "quantized::batch_norm3d_relu",
        "aten::quantized_batch_norm"})
    r.add(op, 11, quantized_batch_norm, bn);
  r.add("quantized::layer_norm", 11, quantized_layer_norm,
        {"ReduceMean", "Sub", "Mul", "Add", "Sqrt", "Div", "Reciprocal", "Pow"});
  r.add("quantized::layer_norm", 17, quantized_layer_norm, {"LayerNormalization"});
  r.add("quantized::group_norm", 11, quantized_group_norm,
        {"InstanceNormalization", "Reshape", "Mul", "Add", "Shape", "Unsqueeze", "Concat"});
  r.add("quantized::instance_norm", 11, quantized_instance_norm,
        {"InstanceNormalization", "BatchNormalization"});
  for (const char *op : {"aten::quantized_max_pool1d", "aten::quantized_max_pool2d"})
    r.add(op, 11, aten_quantized_max_pool, {"MaxPool", "Squeeze", "Unsqueeze"});

  r.add("aten::quantize_per_tensor", 11, aten_quantize_per_tensor, {"Cast"});
  r.add("aten::quantize_per_channel", 13, aten_quantize_per_channel,
        {"QuantizeLinear", "DequantizeLinear", "Cast"});
  r.add("aten::quantize_per_tensor_dynamic", 11, aten_quantize_per_tensor_dynamic, dq);
  r.add("aten::dequantize", 11, aten_dequantize, {"Cast"});
  r.add("aten::int_repr", 11, aten_int_repr, {"QuantizeLinear", "Cast"});
  r.add("aten::q_scale", 11, aten_q_scale, {});
  r.add("aten::q_zero_point", 11, aten_q_zero_point, {});
}

} // namespace torch2onnx
