// Tensors made from a few numbers: range, logspace, the triangle index lists, the Bartlett and
// Kaiser windows and the FFT sample frequencies. Those whose arguments are plain ints (sizes,
// window lengths) are computed at export time as constants, in double precision and then cast to
// the dtype LibTorch gave; range and logspace follow run-time start/end values too.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

#include <cmath>

namespace torch2onnx {

namespace {

// A constant 1-D tensor of `values` in the output's dtype.
void set_constant(ConvertCtx &c, const std::vector<double> &values, std::vector<int64_t> dims) {
  Val v = c.b.constant(TensorData::f64(values, std::move(dims)));
  c.set_out(0, cast_to(c.b, v, out_dtype(c)));
}

// The [2, N] row and column indices of the lower (upper) triangle of a row x col matrix whose
// diagonal is shifted by `offset`, row by row.
void triangle_indices(ConvertCtx &c, bool upper) {
  int64_t rows = c.arg<int64_t>("row"), cols = c.arg<int64_t>("col");
  int64_t offset = c.arg<int64_t>("offset", 0);
  std::vector<int64_t> is, js;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      if (upper ? j - i >= offset : j - i <= offset) {
        is.push_back(i);
        js.push_back(j);
      }
  int64_t n = static_cast<int64_t>(is.size());
  is.insert(is.end(), js.begin(), js.end());
  Val v = c.b.constant(TensorData::i64(is, {2, n}));
  c.set_out(0, cast_to(c.b, v, out_dtype(c)));
}

// The length of the symmetric window a window of `length` is cut from: one longer when periodic
// (its last value dropped). A window of length 1 is [1] either way (as in LibTorch), here the
// symmetric window of length 1.
int64_t window_size(const ConvertCtx &c, int64_t length) {
  bool periodic = !c.takes("periodic") || c.arg<bool>("periodic");
  return periodic && length != 1 ? length + 1 : length;
}

} // namespace

void aten_tril_indices(ConvertCtx &c) {
  triangle_indices(c, false);
}
void aten_triu_indices(ConvertCtx &c) {
  triangle_indices(c, true);
}

// range(start, end, step=1): start, start + step, ... up to and including end:
// floor((end - start) / step) + 1 values, computed in double.
void aten_range(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  DType k = DType::Double;
  Val start = as_tensor(b, c.arg("start"), k), end = as_tensor(b, c.arg("end"), k);
  Val step = c.takes("step") && c.has("step") ? as_tensor(b, c.arg("step"), k) : scalar(b, k, 1);
  Val span = op_t(b, k, "Floor", {op_t(b, k, "Div", {op_t(b, k, "Sub", {end, start}), step})});
  Val n = op_t(b, DType::Int64, "Add", {cast_to(b, span, DType::Int64), b.const_i64_scalar(1)});
  n = reshape(b, n, {});
  Val i = cast_to(
      b, op_t(b, DType::Int64, "Range", {b.const_i64_scalar(0), n, b.const_i64_scalar(1)}), k);
  Val y = op_t(b, k, "Add", {start, op_t(b, k, "Mul", {i, step})});
  c.set_out(0, cast_to(b, y, out_dtype(c)));
}

// logspace(start, end, steps, base=10): base ** linspace(start, end, steps), in double.
void aten_logspace(ConvertCtx &c) {
  TensorInfo lin = c.out_info(0);
  lin.dtype = DType::Double;
  std::vector<NamedArg> args{
      {"start", c.arg("start")}, {"end", c.arg("end")}, {"steps", c.arg("steps")}};
  Val e = c.call("aten::linspace", std::move(args), {lin})[0].t();
  Val base = scalar(c.b, DType::Double, c.arg<double>("base", 10.0));
  c.set_out(0, cast_to(c.b, op_t(c.b, DType::Double, "Pow", {base, e}), out_dtype(c)));
}

// bartlett_window(window_length, periodic=True): 1 - |2n / (N - 1) - 1| (N: window_size).
void aten_bartlett_window(ConvertCtx &c) {
  int64_t length = c.arg<int64_t>("window_length");
  int64_t n = window_size(c, length);
  std::vector<double> w;
  for (int64_t i = 0; i < length; ++i)
    w.push_back(n == 1 ? 1.0 : 1.0 - std::abs(2.0 * i / static_cast<double>(n - 1) - 1.0));
  set_constant(c, w, {length});
}

// kaiser_window(window_length, periodic=True, beta=12.0):
// I0(beta * sqrt(1 - ((n - a) / a)^2)) / I0(beta), a = (N - 1) / 2 (N: window_size).
void aten_kaiser_window(ConvertCtx &c) {
  int64_t length = c.arg<int64_t>("window_length");
  int64_t n = window_size(c, length);
  double beta = c.takes("beta") ? c.arg<double>("beta") : 12.0;
  double a = (n - 1) / 2.0;
  std::vector<double> w;
  for (int64_t i = 0; i < length; ++i) {
    double r = n == 1 ? 0.0 : (i - a) / a;
    w.push_back(std::cyl_bessel_i(0.0, beta * std::sqrt(std::max(0.0, 1.0 - r * r))) /
                std::cyl_bessel_i(0.0, beta));
  }
  set_constant(c, w, {length});
}

// fft_fftfreq(n, d=1.0): [0, 1, ..., (n - 1) / 2, -(n / 2), ..., -1] / (d * n).
void aten_fft_fftfreq(ConvertCtx &c) {
  int64_t n = c.arg<int64_t>("n");
  double d = c.arg<double>("d", 1.0);
  std::vector<double> f;
  for (int64_t i = 0; i < n; ++i)
    f.push_back(static_cast<double>(i < (n + 1) / 2 ? i : i - n) / (d * n));
  set_constant(c, f, {n});
}

// fft_rfftfreq(n, d=1.0): [0, 1, ..., n / 2] / (d * n).
void aten_fft_rfftfreq(ConvertCtx &c) {
  int64_t n = c.arg<int64_t>("n");
  double d = c.arg<double>("d", 1.0);
  std::vector<double> f;
  for (int64_t i = 0; i <= n / 2; ++i)
    f.push_back(static_cast<double>(i) / (d * n));
  set_constant(c, f, {n / 2 + 1});
}

void register_ranges_ops(Registry &r) {
  r.add("aten::tril_indices", 11, aten_tril_indices, {"Cast"});
  r.add("aten::triu_indices", 11, aten_triu_indices, {"Cast"});
  r.add("aten::range", 11, aten_range,
        {"Cast", "Sub", "Div", "Floor", "Add", "Reshape", "Range", "Mul"});
  r.add("aten::logspace", 11, aten_logspace,
        {"Range", "Where", "Add", "Cast", "Div", "Greater", "Less", "Max", "Mul", "Reshape", "Sub",
         "Pow"});
  r.add("aten::bartlett_window", 11, aten_bartlett_window, {"Cast"});
  r.add("aten::kaiser_window", 11, aten_kaiser_window, {"Cast"});
  r.add("aten::fft_fftfreq", 11, aten_fft_fftfreq, {"Cast"});
  r.add("aten::fft_rfftfreq", 11, aten_fft_rfftfreq, {"Cast"});
}

} // namespace torch2onnx
