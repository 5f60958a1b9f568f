// Signal processing: aten::stft as framing (Gather) + window + a MatMul with constant DFT
// matrices, which is exact and valid at every opset (the DFT op arrives only in 17).
//
// Complex results (return_complex=True, _fft_*, view_as_real/complex, complex, polar) are not
// supported: ONNX has no complex dtype, so only the real [.., 2] layout can be produced.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

#include <cmath>
#include <string>

namespace torch2onnx {

// stft(x, n_fft, hop_length, win_length, window, normalized, onesided, return_complex) and the
// .center overload (x, n_fft, hop, win, window, center, pad_mode, normalized, onesided,
// return_complex). Output: [B?, n_freq, n_frames, 2] (real, imaginary).
void aten_stft(ConvertCtx &c) {
  bool center_overload = c.overload() == "center";
  size_t off = center_overload ? 2 : 0; // center and pad_mode shift the trailing arguments
  int64_t n_fft = c.in(1).to_int();
  int64_t hop = c.int_or(2, n_fft / 4);
  int64_t win = c.int_or(3, n_fft);
  bool normalized = c.has(5 + off) && c.in(5 + off).to_bool();
  bool onesided = !c.has(6 + off) || c.in(6 + off).to_bool();
  bool return_complex = c.has(7 + off) && c.in(7 + off).to_bool();
  T2O_CHECK(!return_complex,
            "stft with return_complex=True is not supported (ONNX has no complex dtype); use "
            "return_complex=False, which gives the [..., 2] real layout");
  const TensorInfo &info = c.info(0);
  DType t = info.dtype;
  T2O_CHECK(t != DType::Complex64 && t != DType::Complex128,
            "stft of complex input is not supported");
  T2O_CHECK(info.rank() == 1 || info.rank() == 2, "stft needs a 1-D or 2-D input, got {}",
            info.str());
  DType k = t == DType::Double ? DType::Double : DType::Float;
  Val x = cast_to(c.b, c.tensor(0), k);
  const Dim &len_dim = info.shape->back();
  T2O_CHECK(len_dim.is_static(), "stft needs a static signal length, got {}", info.str());
  int64_t len = len_dim.value;
  if (center_overload && c.in(5).to_bool()) {
    std::string mode = c.str_or(6, "reflect");
    T2O_CHECK(mode == "reflect" || mode == "constant" || mode == "replicate",
              "stft pad_mode '{}' is not supported (reflect, constant, replicate)", mode);
    int64_t p = n_fft / 2;
    std::vector<int64_t> pads(static_cast<size_t>(2 * info.rank()), 0);
    pads[info.rank() - 1] = p;
    pads.back() = p;
    x = op_t(c.b, k, "Pad", {x, c.b.const_i64(pads)},
             {{"mode", mode == "replicate" ? std::string("edge") : mode}});
    len += 2 * p;
  }
  T2O_CHECK(n_fft > 0 && n_fft <= len && hop > 0 && win > 0 && win <= n_fft,
            "stft: invalid n_fft={}, hop_length={}, win_length={} for length {}", n_fft, hop, win,
            len);
  int64_t frames = 1 + (len - n_fft) / hop;
  std::vector<int64_t> idx;
  for (int64_t m = 0; m < frames; ++m)
    for (int64_t j = 0; j < n_fft; ++j)
      idx.push_back(m * hop + j);
  Val framed = op_t(c.b, k, "Gather", {x, c.b.constant(TensorData::i64(idx, {frames, n_fft}))},
                    {{"axis", int64_t{-1}}}); // [B?, frames, n_fft]
  if (c.has(4)) {                             // the window, centered in n_fft when shorter
    Val w = cast_to(c.b, c.tensor(4), k);
    if (win < n_fft) {
      int64_t left = (n_fft - win) / 2;
      w = op_t(c.b, k, "Pad", {w, c.b.const_i64({left, n_fft - win - left})});
    }
    framed = op_t(c.b, k, "Mul", {framed, w});
  } else if (win < n_fft) { // a rectangular window of win_length ones
    int64_t left = (n_fft - win) / 2;
    std::vector<double> ones(static_cast<size_t>(n_fft), 0.0);
    for (int64_t j = left; j < left + win; ++j)
      ones[j] = 1.0;
    Val w = cast_to(c.b, c.b.constant(TensorData::f64(ones, {n_fft}), "window"), k);
    framed = op_t(c.b, k, "Mul", {framed, w});
  }
  int64_t n_freq = onesided ? n_fft / 2 + 1 : n_fft;
  double scale = normalized ? 1.0 / std::sqrt(static_cast<double>(n_fft)) : 1.0;
  std::vector<double> re(static_cast<size_t>(n_fft * n_freq)), im(re.size());
  for (int64_t j = 0; j < n_fft; ++j)
    for (int64_t f = 0; f < n_freq; ++f) {
      // Reduce f*j mod n_fft first so the angle stays small and exact.
      double a = -2.0 * M_PI * static_cast<double>((f * j) % n_fft) / static_cast<double>(n_fft);
      re[j * n_freq + f] = std::cos(a) * scale;
      im[j * n_freq + f] = std::sin(a) * scale;
    }
  auto matrix = [&](const std::vector<double> &v) {
    Val m = c.b.constant(TensorData::f64(v, {n_fft, n_freq}), "dft");
    return cast_to(c.b, m, k);
  };
  Val yr = op_t(c.b, k, "MatMul", {framed, matrix(re)}); // [B?, frames, n_freq]
  Val yi = op_t(c.b, k, "MatMul", {framed, matrix(im)});
  int64_t r = info.rank(); // rank of yr is r + 1
  Val y = op_t(c.b, k, "Concat", {unsqueeze(c.b, yr, {-1}), unsqueeze(c.b, yi, {-1})},
               {{"axis", int64_t{-1}}});
  std::vector<int64_t> perm =
      r == 1 ? std::vector<int64_t>{1, 0, 2} : std::vector<int64_t>{0, 2, 1, 3};
  y = op_t(c.b, k, "Transpose", {y}, {{"perm", perm}});
  c.set_out(0, cast_to(c.b, y, out_dtype(c)));
}

void register_signal_ops(Registry &r) {
  r.add("aten::stft", 13, aten_stft, {"Gather", "MatMul"});
}

} // namespace torch2onnx
