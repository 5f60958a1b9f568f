// The torch2onnx converter for mylib::scaled_swish (mylib_ops.cpp), as a plugin:
//   torch2onnx model.pt --load-library libmylib_ops.so --converters libmylib_converters.so
// It uses the interface torch2onnx's own converters use (<torch2onnx/plugin.h>, docs/plugins.md).
#include <torch2onnx/plugin.h>

namespace {

using torch2onnx::ConvertCtx;
using torch2onnx::Val;

// mylib::scaled_swish(Tensor x, float beta) -> Tensor   as   x * Sigmoid(beta * x)
void mylib_scaled_swish(ConvertCtx &c) {
  constexpr size_t kX = 0, kBeta = 1;
  Val x = c.tensor(kX);
  // beta must be known at export time: to_double() throws a clear error when it is not.
  Val beta = c.b.const_scalar(c.info(kX).dtype, c.in(kBeta).to_double());
  c.set_out(0, c.b.op1("Mul", {x, c.b.op1("Sigmoid", {c.b.op1("Mul", {x, beta})})}));
}

} // namespace

TORCH2ONNX_PLUGIN(registry) {
  registry.set_family("mylib");
  // since_opset 11: Mul and Sigmoid serve every opset torch2onnx targets.
  registry.add("mylib::scaled_swish", 11, mylib_scaled_swish, {"Mul", "Sigmoid"});
}
