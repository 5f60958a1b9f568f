// mylib::scaled_swish(Tensor x, float beta) -> Tensor: x * sigmoid(beta * x), a custom op for
// LibTorch. A model calls it as torch.ops.mylib.scaled_swish(x, 1.5) once this library is loaded.
#include <ATen/ATen.h>
#include <torch/library.h>

namespace {

at::Tensor scaled_swish(const at::Tensor &x, double beta) {
  return x * at::sigmoid(x * beta);
}

} // namespace

TORCH_LIBRARY(mylib, m) {
  m.def("scaled_swish(Tensor x, float beta) -> Tensor", scaled_swish);
}
