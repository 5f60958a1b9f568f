// Activation functions: aten::relu, sigmoid, gelu, softmax, ...
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

namespace torch2onnx {

void aten_relu(ConvertCtx& c) { c.set_out(0, c.b.op1("Relu", {c.tensor(0)})); }

void aten_sigmoid(ConvertCtx& c) { c.set_out(0, c.b.op1("Sigmoid", {c.tensor(0)})); }

void register_activation_ops(Registry& r) {
  r.add("aten::relu", 13, aten_relu, {"Relu"});
  r.add("aten::relu_", 13, aten_relu, {"Relu"});
  r.add("aten::sigmoid", 13, aten_sigmoid, {"Sigmoid"});
  r.add("aten::sigmoid_", 13, aten_sigmoid, {"Sigmoid"});
}

}  // namespace torch2onnx
