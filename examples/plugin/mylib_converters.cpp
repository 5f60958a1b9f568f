// The torch2onnx converter for mylib::scaled_swish (mylib_ops.cpp), as a plugin:
//   torch2onnx model.pt --load-library libmylib_ops.so --converters libmylib_converters.so
// It uses the interface torch2onnx's own converters use (<torch2onnx/plugin.h>, docs/plugins.md).
#include <torch2onnx/plugin.h>

namespace {

using torch2onnx::ConvertCtx;
using torch2onnx::Val;

// mylib::scaled_swish(Tensor x, float beta) -> Tensor   as   x * Sigmoid(beta * x)
// Arguments are read by the names of the op's schema (TORCH_LIBRARY's def in mylib_ops.cpp).
void mylib_scaled_swish(ConvertCtx &c) {
  Val x = c.tensor("x");
  // beta must be known at export time: arg<double> throws a clear error naming it when it is not.
  Val beta = c.b.const_scalar(c.info("x").dtype, c.arg<double>("beta"));
  c.set_out(0, c.b.op1("Mul", {x, c.b.op1("Sigmoid", {c.b.op1("Mul", {x, beta})})}));
}

} // namespace

TORCH2ONNX_PLUGIN(registry) {
  registry.set_family("mylib");
  // since_opset 11: Mul and Sigmoid serve every opset torch2onnx targets.
  registry.add("mylib::scaled_swish", 11, mylib_scaled_swish, {"Mul", "Sigmoid"});
}
