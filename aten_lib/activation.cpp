// Activation functions: aten::relu, sigmoid, gelu, softmax, ...
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

#include <cmath>

namespace torch2onnx {

namespace {

// The dtype an activation computes in: the output's, except bfloat16, for which ONNX Runtime
// has almost no kernels (computed in float and cast back).
DType compute_type(const ConvertCtx &c) {
  DType t = out_dtype(c);
  return t == DType::BFloat16 ? DType::Float : t;
}

// Input 0 in the computation dtype.
Val input(ConvertCtx &c, DType k) {
  return cast_to(c.b, c.tensor("self"), k);
}

// One ONNX op on input 0 in the computation dtype.
void unary(ConvertCtx &c, std::string_view op, const std::vector<Attr> &attrs = {}) {
  DType k = compute_type(c);
  set_result(c, op_t(c.b, k, op, {input(c, k)}, attrs));
}

// log(1 + exp(x)) scaled as torch does: softplus(beta * x) / beta.
Val softplus(GraphBuilder &b, const Val &x, DType k, double beta) {
  if (beta == 1.0)
    return op_t(b, k, "Softplus", {x});
  Val bx = op_t(b, k, "Mul", {x, scalar(b, k, beta)});
  return op_t(b, k, "Div", {op_t(b, k, "Softplus", {bx}), scalar(b, k, beta)});
}

Val hard_sigmoid(GraphBuilder &b, const Val &x, DType k) {
  return op_t(b, k, "HardSigmoid", {x}, {{"alpha", 1.0 / 6.0}, {"beta", 0.5}});
}

} // namespace

void aten_relu(ConvertCtx &c) {
  DType k = compute_type(c);
  // Relu on integers arrives only in opset 14; max(x, 0) works everywhere.
  if (!is_floating(k)) {
    set_result(c, op_t(c.b, k, "Max", {input(c, k), scalar(c.b, k, 0)}));
    return;
  }
  unary(c, "Relu");
}

void aten_sigmoid(ConvertCtx &c) {
  unary(c, "Sigmoid");
}
void aten_tanh(ConvertCtx &c) {
  unary(c, "Tanh");
}

void aten_hardtanh(ConvertCtx &c) {
  DType k = compute_type(c);
  double lo = c.arg<double>("min_val", -1.0), hi = c.arg<double>("max_val", 1.0);
  set_result(c, op_t(c.b, k, "Clip", {input(c, k), scalar(c.b, k, lo), scalar(c.b, k, hi)}));
}

void aten_relu6(ConvertCtx &c) {
  DType k = compute_type(c);
  set_result(c, op_t(c.b, k, "Clip", {input(c, k), scalar(c.b, k, 0), scalar(c.b, k, 6)}));
}

void aten_silu(ConvertCtx &c) {
  DType k = compute_type(c);
  Val x = input(c, k);
  set_result(c, op_t(c.b, k, "Mul", {x, op_t(c.b, k, "Sigmoid", {x})}));
}

void aten_hardsigmoid(ConvertCtx &c) {
  DType k = compute_type(c);
  set_result(c, hard_sigmoid(c.b, input(c, k), k));
}

// Below opset 14 there is no HardSwish: x * hardsigmoid(x).
void aten_hardswish(ConvertCtx &c) {
  DType k = compute_type(c);
  Val x = input(c, k);
  set_result(c, op_t(c.b, k, "Mul", {x, hard_sigmoid(c.b, x, k)}));
}

void aten_hardswish_14(ConvertCtx &c) {
  DType k = compute_type(c);
  set_result(c, op_t(c.b, k, "HardSwish", {input(c, k)}));
}

// No Gelu op before opset 20: 0.5 x (1 + erf(x / sqrt 2)), or the tanh approximation
// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))). Spelled exactly as ONNX Runtime's GeluFusion
// (Div by sqrt 2) and FastGeluFusion (Pow 3) expect, so it runs them as one Gelu / FastGelu kernel
// (with x / sqrt 2 written as x * (1 / sqrt 2) neither fusion fires and convnext_base ran 13%
// slower).
void aten_gelu(ConvertCtx &c) {
  std::string approximate = c.arg<std::string>("approximate", "none");
  DType k = compute_type(c);
  Val x = input(c, k);
  Val inner;
  if (approximate == "none") {
    inner = op_t(c.b, k, "Erf", {op_t(c.b, k, "Div", {x, scalar(c.b, k, M_SQRT2)})});
  } else {
    T2O_CHECK(approximate == "tanh", "gelu approximate='{}' is not supported ('none', 'tanh')",
              approximate);
    Val cube = op_t(c.b, k, "Pow", {x, scalar(c.b, k, 3.0)});
    Val sum = op_t(c.b, k, "Add", {x, op_t(c.b, k, "Mul", {cube, scalar(c.b, k, 0.044715)})});
    Val arg = op_t(c.b, k, "Mul", {sum, scalar(c.b, k, std::sqrt(2.0 / M_PI))});
    inner = op_t(c.b, k, "Tanh", {arg});
  }
  Val one_plus = op_t(c.b, k, "Add", {inner, scalar(c.b, k, 1.0)});
  Val half_x = op_t(c.b, k, "Mul", {x, scalar(c.b, k, 0.5)});
  set_result(c, op_t(c.b, k, "Mul", {half_x, one_plus}));
}

// Gelu (opset 20) computes both forms itself.
void aten_gelu_20(ConvertCtx &c) {
  std::string approximate = c.arg<std::string>("approximate", "none");
  T2O_CHECK(approximate == "none" || approximate == "tanh",
            "gelu approximate='{}' is not supported ('none', 'tanh')", approximate);
  DType k = compute_type(c);
  set_result(c, op_t(c.b, k, "Gelu", {input(c, k)}, {{"approximate", approximate}}));
}

void aten_leaky_relu(ConvertCtx &c) {
  unary(c, "LeakyRelu", {{"alpha", c.arg<double>("negative_slope", 0.01)}});
}

// elu(x) = scale * (x > 0 ? x : alpha * (exp(x * input_scale) - 1))
void aten_elu(ConvertCtx &c) {
  double alpha = c.arg<double>("alpha", 1.0), scale = c.arg<double>("scale", 1.0),
         input_scale = c.arg<double>("input_scale", 1.0);
  if (scale == 1.0 && input_scale == 1.0) {
    unary(c, "Elu", {{"alpha", alpha}});
    return;
  }
  DType k = compute_type(c);
  Val x = input(c, k);
  Val xs = input_scale == 1.0 ? x : op_t(c.b, k, "Mul", {x, scalar(c.b, k, input_scale)});
  Val em1 = op_t(c.b, k, "Sub", {op_t(c.b, k, "Exp", {xs}), scalar(c.b, k, 1.0)});
  Val neg = op_t(c.b, k, "Mul", {em1, scalar(c.b, k, alpha)});
  Val pos = op_t(c.b, DType::Bool, "Greater", {x, scalar(c.b, k, 0)});
  Val y = op_t(c.b, k, "Where", {pos, x, neg});
  if (scale != 1.0)
    y = op_t(c.b, k, "Mul", {y, scalar(c.b, k, scale)});
  set_result(c, y);
}

void aten_selu(ConvertCtx &c) {
  unary(
      c, "Selu",
      {{"alpha", 1.6732632423543772848170429916717}, {"gamma", 1.0507009873554804934193349852946}});
}

// celu(x) = max(0, x) + min(0, alpha * (exp(x / alpha) - 1)); ONNX Celu takes float32 only.
void aten_celu(ConvertCtx &c) {
  double alpha = c.arg<double>("alpha", 1.0);
  DType k = compute_type(c);
  if (k == DType::Float) {
    unary(c, "Celu", {{"alpha", alpha}});
    return;
  }
  Val x = input(c, k);
  Val zero = scalar(c.b, k, 0);
  Val scaled = op_t(c.b, k, "Div", {x, scalar(c.b, k, alpha)});
  Val em1 = op_t(c.b, k, "Sub", {op_t(c.b, k, "Exp", {scaled}), scalar(c.b, k, 1.0)});
  Val neg = op_t(c.b, k, "Min", {zero, op_t(c.b, k, "Mul", {em1, scalar(c.b, k, alpha)})});
  set_result(c, op_t(c.b, k, "Add", {op_t(c.b, k, "Max", {zero, x}), neg}));
}

namespace {

// Softmax/LogSoftmax over one dim (opset 13 semantics), in the requested dtype.
void softmax_like(ConvertCtx &c, std::string_view op) {
  DType k = compute_type(c); // the `dtype` argument is reflected in the output dtype
  Val x = input(c, k);
  int64_t rank = c.info("self").rank();
  T2O_CHECK(rank >= 0, "{} needs the input rank", c.op());
  int64_t dim = c.arg<int64_t>("dim", -1);
  if (rank == 0) { // torch accepts 0-d inputs; ONNX needs an axis to reduce over
    Val y = op_t(c.b, k, op, {unsqueeze(c.b, x, {0})}, {{"axis", int64_t{0}}});
    set_result(c, squeeze(c.b, y, {0}));
    return;
  }
  // Negative axis: the last one needs no rank below opset 13, where the builder moves any
  // other axis to the last (builder/opset_forms.cpp), which needs x's rank.
  if (!c.b.info(x).shape) {
    TensorInfo ti = c.info("self");
    ti.dtype = k;
    c.b.set_info(x, ti);
  }
  set_result(c, op_t(c.b, k, op, {x}, {{"axis", norm_axis(dim, rank) - rank}}));
}

} // namespace

void aten_softmax(ConvertCtx &c) {
  softmax_like(c, "Softmax");
}
void aten_log_softmax(ConvertCtx &c) {
  softmax_like(c, "LogSoftmax");
}

// logit(x, eps) = log(z / (1 - z)), z = clamp(x, eps, 1 - eps) when eps is given.
void aten_logit(ConvertCtx &c) {
  DType k = compute_type(c);
  Val x = input(c, k);
  if (c.has("eps")) {
    double eps = c.arg<double>("eps", 0);
    x = op_t(c.b, k, "Clip", {x, scalar(c.b, k, eps), scalar(c.b, k, 1.0 - eps)});
  }
  Val one_minus = op_t(c.b, k, "Sub", {scalar(c.b, k, 1.0), x});
  set_result(c, op_t(c.b, k, "Log", {op_t(c.b, k, "Div", {x, one_minus})}));
}

// torch: beta * x > threshold ? x : log(1 + exp(beta * x)) / beta
void aten_softplus(ConvertCtx &c) {
  double beta = c.arg<double>("beta", 1.0), threshold = c.arg<double>("threshold", 20.0);
  DType k = compute_type(c);
  Val x = input(c, k);
  Val sp = softplus(c.b, x, k, beta);
  Val bx = beta == 1.0 ? x : op_t(c.b, k, "Mul", {x, scalar(c.b, k, beta)});
  Val linear = op_t(c.b, DType::Bool, "Greater", {bx, scalar(c.b, k, threshold)});
  set_result(c, op_t(c.b, k, "Where", {linear, x, sp}));
}

// mish(x) = x * tanh(softplus(x)); the Mish op arrives only in opset 18.
void aten_mish(ConvertCtx &c) {
  DType k = compute_type(c);
  Val x = input(c, k);
  Val t = op_t(c.b, k, "Tanh", {softplus(c.b, x, k, 1.0)});
  set_result(c, op_t(c.b, k, "Mul", {x, t}));
}

void aten_mish_18(ConvertCtx &c) {
  DType k = compute_type(c);
  set_result(c, op_t(c.b, k, "Mish", {input(c, k)}));
}

// glu(x, dim) = a * sigmoid(b), where a and b are the two halves of x along dim.
void aten_glu(ConvertCtx &c) {
  DType k = compute_type(c);
  Val x = input(c, k);
  int64_t rank = c.info("self").rank();
  T2O_CHECK(rank > 0, "glu needs an input of known rank >= 1");
  int64_t dim = norm_axis(c.arg<int64_t>("dim", -1), rank);
  // Without a `split` input, Split cuts into equal halves (torch requires an even size).
  auto halves = c.b.op("Split", {x}, {{"axis", dim}}, 2);
  Val gate = op_t(c.b, k, "Sigmoid", {halves[1]});
  set_result(c, op_t(c.b, k, "Mul", {halves[0], gate}));
}

// The weight holds one slope per channel (dim 1), or a single slope; ONNX PRelu broadcasts the
// slope from the right, so move the channel axis into place with trailing ones.
void aten_prelu(ConvertCtx &c) {
  DType k = compute_type(c);
  Val x = input(c, k);
  int64_t rank = c.info("self").rank();
  T2O_CHECK(rank >= 0, "prelu needs the input rank");
  std::vector<int64_t> shape = {-1};
  for (int64_t i = 2; i < rank; ++i)
    shape.push_back(1);
  Val w = reshape(c.b, cast_to(c.b, c.tensor("weight"), k), shape);
  set_result(c, op_t(c.b, k, "PRelu", {x, w}));
}

// log(sigmoid(x)) = -softplus(-x), stable for large |x|.
void aten_log_sigmoid(ConvertCtx &c) {
  DType k = compute_type(c);
  Val nx = op_t(c.b, k, "Neg", {input(c, k)});
  set_result(c, op_t(c.b, k, "Neg", {op_t(c.b, k, "Softplus", {nx})}));
}

void aten_hardshrink(ConvertCtx &c) {
  unary(c, "Shrink", {{"lambd", c.arg<double>("lambd", 0.5)}, {"bias", 0.0}});
}

void aten_softshrink(ConvertCtx &c) {
  double lambd = c.arg<double>("lambd", 0.5);
  unary(c, "Shrink", {{"lambd", lambd}, {"bias", lambd}});
}

// threshold(x, t, v) = x > t ? x : v
void aten_threshold(ConvertCtx &c) {
  DType k = compute_type(c);
  Val x = input(c, k);
  Val keep = op_t(c.b, DType::Bool, "Greater", {x, scalar(c.b, k, c.arg<double>("threshold", 0))});
  set_result(c, op_t(c.b, k, "Where", {keep, x, scalar(c.b, k, c.arg<double>("value", 0))}));
}

void register_activation_ops(Registry &r) {
  r.add_with_inplace("aten::relu", 11, aten_relu, {"Relu", "Max", "Greater", "Where"});
  r.add_with_inplace("aten::hardtanh", 11, aten_hardtanh, {"Clip"});
  r.add_with_inplace("aten::relu6", 11, aten_relu6,
                     {"Clip", "Greater", "Identity", "Less", "Where"});
  r.add_with_inplace("aten::sigmoid", 11, aten_sigmoid, {"Sigmoid"});
  r.add_with_inplace("aten::silu", 11, aten_silu, {"Sigmoid", "Mul"});
  r.add_with_inplace("aten::hardswish", 11, aten_hardswish, {"HardSigmoid", "Mul"});
  r.add_with_inplace("aten::hardswish", 14, aten_hardswish_14, {"HardSwish"});
  r.add_with_inplace("aten::hardsigmoid", 11, aten_hardsigmoid, {"HardSigmoid"});
  r.add_with_inplace("aten::gelu", 11, aten_gelu,
                     {"Erf", "Div", "Tanh", "Pow", "Mul", "Add", "Cast"});
  r.add_with_inplace("aten::gelu", 20, aten_gelu_20, {"Gelu"});
  r.add_with_inplace("aten::leaky_relu", 11, aten_leaky_relu, {"LeakyRelu"});
  r.add_with_inplace("aten::elu", 11, aten_elu, {"Elu", "Exp", "Where", "Greater", "Mul", "Sub"});
  r.add_with_inplace("aten::selu", 11, aten_selu, {"Selu"});
  r.add_with_inplace("aten::celu", 12, aten_celu,
                     {"Celu", "Add", "Div", "Exp", "Max", "Min", "Mul", "Sub"});
  r.add("aten::softmax", 11, aten_softmax, {"Softmax", "Cast", "Transpose"});
  r.add("aten::log_softmax", 11, aten_log_softmax, {"LogSoftmax", "Transpose"});
  r.add("aten::_softmax", 11, aten_softmax, {"Softmax", "Transpose"});
  r.add("aten::_log_softmax", 11, aten_log_softmax, {"LogSoftmax", "Transpose"});
  r.add("aten::special_softmax", 11, aten_softmax, {"Softmax"});
  r.add("aten::special_log_softmax", 11, aten_log_softmax, {"LogSoftmax", "Transpose"});
  r.add_with_inplace("aten::logit", 11, aten_logit, {"Clip", "Sub", "Div", "Log"});
  r.add_with_inplace("aten::tanh", 11, aten_tanh, {"Tanh"});
  r.add("aten::softplus", 11, aten_softplus, {"Softplus", "Where", "Div", "Greater", "Mul"});
  r.add_with_inplace("aten::mish", 11, aten_mish, {"Softplus", "Tanh", "Mul"});
  r.add_with_inplace("aten::mish", 18, aten_mish_18, {"Mish"});
  r.add("aten::glu", 11, aten_glu, {"Split", "Sigmoid", "Mul"});
  r.add("aten::prelu", 11, aten_prelu, {"PRelu", "Reshape"});
  r.add("aten::log_sigmoid", 11, aten_log_sigmoid, {"Softplus", "Neg"});
  r.add("aten::hardshrink", 11, aten_hardshrink, {"Shrink"});
  r.add("aten::softshrink", 11, aten_softshrink, {"Shrink"});
  r.add_with_inplace("aten::threshold", 11, aten_threshold, {"Greater", "Where"});
}

} // namespace torch2onnx
