// Signal processing: aten::stft / istft and the FFTs (torch.fft.fft/ifft/rfft/irfft, the Hermitian
// hfft/ihfft and the
// _fft_r2c / _fft_c2r / _fft_c2c ops they lower to). Every transform is a MatMul with a constant
// DFT matrix, exact and valid at every opset (the DFT op arrives only in 17). Complex values are
// real [..., 2] tensors (aten_lib/complex.h, docs/complex.md); a complex DFT is one real MatMul on
// the flattened (bin, part) pairs. istft overlap-adds with a ConvTranspose whose kernel is the
// identity (stride hop), which needs no loop.
#include "aten_lib/complex.h"
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace torch2onnx {

namespace {

// exp(sign * 2 pi i * f * j / n) as {cos, sin}: f * j is reduced mod n first so the angle stays
// small, and quarter turns are exact (std::sin(pi) is 1.2e-16, not 0): the imaginary parts of
// the DC and Nyquist bins of a real signal must come out exactly 0, as torch's FFT gives them,
// or their phase (atan2) flips between pi and -pi.
std::pair<double, double> dft_twiddle(int64_t f, int64_t j, int64_t n, bool inverse) {
  int64_t r = (f * j) % n;
  double sign = inverse ? 1.0 : -1.0;
  if ((4 * r) % n == 0) {
    static const double cos_q[4] = {1.0, 0.0, -1.0, 0.0}, sin_q[4] = {0.0, 1.0, 0.0, -1.0};
    int64_t q = 4 * r / n;
    return {cos_q[q], sin_q[q] == 0.0 ? 0.0 : sign * sin_q[q]};
  }
  double a = sign * 2.0 * M_PI * static_cast<double>(r) / static_cast<double>(n);
  return {std::cos(a), std::sin(a)};
}

// The frames [B?, frames, n_fft] times stft's window: `window` centered in n_fft when shorter,
// or win_length ones when there is none (nothing to multiply when win_length is n_fft).
Val stft_windowed(ConvertCtx &c, DType k, Val framed, int64_t n_fft, int64_t win) {
  int64_t left = (n_fft - win) / 2;
  if (c.has("window")) {
    Val w = cast_to(c.b, c.tensor("window"), k);
    if (win < n_fft)
      w = op_t(c.b, k, "Pad", {w, c.b.const_i64({left, n_fft - win - left})});
    return op_t(c.b, k, "Mul", {framed, w});
  }
  if (win == n_fft)
    return framed;
  std::vector<double> ones(static_cast<size_t>(n_fft), 0.0);
  for (int64_t j = left; j < left + win; ++j)
    ones[j] = 1.0;
  Val w = cast_to(c.b, c.b.constant(TensorData::f64(ones, {n_fft}), "window"), k);
  return op_t(c.b, k, "Mul", {framed, w});
}

} // namespace

namespace {
// [frames, n_fft] positions of each frame's samples in a (padded) signal of length `len`: a
// constant when len is known, else computed from the signal's runtime length (frames = 1 +
// (len - n_fft) / hop).
Val frame_indices(GraphBuilder &b, const Val &x, int64_t rank, int64_t len, int64_t n_fft,
                  int64_t hop) {
  if (len >= 0) {
    int64_t frames = 1 + (len - n_fft) / hop;
    std::vector<int64_t> idx;
    for (int64_t m = 0; m < frames; ++m)
      for (int64_t j = 0; j < n_fft; ++j)
        idx.push_back(m * hop + j);
    return b.constant(TensorData::i64(idx, {frames, n_fft}));
  }
  Val n = dim_scalar(b, x, rank - 1);
  Val frames = b.op1(
      "Add", {b.op1("Div", {b.op1("Sub", {n, b.const_i64_scalar(n_fft)}), b.const_i64_scalar(hop)}),
              b.const_i64_scalar(1)});
  Val starts = b.op1("Mul", {iota(b, frames), b.const_i64_scalar(hop)});
  return b.op1("Add", {unsqueeze(b, starts, {1}), b.const_i64(int_range(0, n_fft))});
}
} // namespace

// stft(x, n_fft, hop_length, win_length, window, normalized, onesided, return_complex) and the
// .center overload (x, n_fft, hop, win, window, center, pad_mode, normalized, onesided,
// return_complex). Output: [B?, n_freq, n_frames, 2] (real, imaginary).
void aten_stft(ConvertCtx &c) {
  bool center_overload = c.overload() == "center";
  int64_t n_fft = c.arg<int64_t>("n_fft");
  int64_t hop = c.arg<int64_t>("hop_length", n_fft / 4);
  int64_t win = c.arg<int64_t>("win_length", n_fft);
  bool normalized = c.arg<bool>("normalized", false);
  bool onesided = c.arg<bool>("onesided", true);
  bool return_complex = c.arg<bool>("return_complex", false);
  const TensorInfo &info = c.info("self");
  DType t = info.dtype;
  T2O_CHECK(!info.complex, "stft of a complex signal is not supported (only real signals)");
  T2O_CHECK(info.rank() == 1 || info.rank() == 2, "stft needs a 1-D or 2-D input, got {}",
            info.str());
  DType k = t == DType::Double ? DType::Double : DType::Float;
  Val x = cast_to(c.b, c.tensor("self"), k);
  const Dim &len_dim = info.shape->back();
  int64_t len = len_dim.is_static() ? len_dim.value : -1; // -1: known at run time
  if (center_overload && c.arg<bool>("center")) {
    std::string mode = c.arg<std::string>("pad_mode", "reflect");
    T2O_CHECK(mode == "reflect" || mode == "constant" || mode == "replicate",
              "stft pad_mode '{}' is not supported (reflect, constant, replicate)", mode);
    int64_t p = n_fft / 2;
    std::vector<int64_t> pads(static_cast<size_t>(2 * info.rank()), 0);
    pads[info.rank() - 1] = p;
    pads.back() = p;
    x = op_t(c.b, k, "Pad", {x, c.b.const_i64(pads)},
             {{"mode", mode == "replicate" ? std::string("edge") : mode}});
    len = len < 0 ? len : len + 2 * p;
  }
  T2O_CHECK(n_fft > 0 && (len < 0 || n_fft <= len) && hop > 0 && win > 0 && win <= n_fft,
            "stft: invalid n_fft={}, hop_length={}, win_length={} for length {}", n_fft, hop, win,
            len);
  Val framed = op_t(c.b, k, "Gather", {x, frame_indices(c.b, x, info.rank(), len, n_fft, hop)},
                    {{"axis", int64_t{-1}}}); // [B?, frames, n_fft]
  framed = stft_windowed(c, k, framed, n_fft, win);
  int64_t n_freq = onesided ? n_fft / 2 + 1 : n_fft;
  double scale = normalized ? 1.0 / std::sqrt(static_cast<double>(n_fft)) : 1.0;
  std::vector<double> re(static_cast<size_t>(n_fft * n_freq)), im(re.size());
  for (int64_t j = 0; j < n_fft; ++j)
    for (int64_t f = 0; f < n_freq; ++f) {
      auto [cs, sn] = dft_twiddle(f, j, n_fft, false);
      re[j * n_freq + f] = cs * scale;
      im[j * n_freq + f] = sn * scale;
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
  // return_complex=True: the [..., 2] layout is the carried complex form.
  if (return_complex)
    return set_complex_out(c, y);
  c.set_out(0, cast_to(c.b, y, out_dtype(c)));
}

// ---- DFT by MatMul ---------------------------------------------------------------------------

namespace {

// R2C: real samples in, complex bins out; C2C: complex in and out; C2R: Hermitian bins in
// (torch.fft.irfft), real samples out.
enum class DftKind { R2C, C2C, C2R };

struct DftSpec {
  DftKind kind = DftKind::C2C;
  int64_t n = 0;       // transform length
  int64_t in_len = 0;  // input size along the axis (samples, or bins for C2R)
  int64_t out_len = 0; // output bins (R2C, C2C) or samples (C2R)
  bool inverse = false;
  double scale = 1.0;
};

Val dense(GraphBuilder &b, DType k, const std::vector<double> &v, std::vector<int64_t> dims) {
  if (k == DType::Double)
    return b.constant(TensorData::f64(v, std::move(dims)), "dft");
  return b.constant(TensorData::f32(std::vector<float>(v.begin(), v.end()), std::move(dims)),
                    "dft");
}

// The real matrix of the transform, applied as x @ M to the input's last dim (complex inputs
// flattened to (j, part) pairs, complex outputs likewise). Samples past n are cut (rows of
// zeros); missing ones are zero padding, which adds nothing.
Val dft_matrix(GraphBuilder &b, DType k, const DftSpec &s) {
  int64_t rows = s.kind == DftKind::R2C ? s.in_len : 2 * s.in_len;
  int64_t cols = s.kind == DftKind::C2R ? s.out_len : 2 * s.out_len;
  std::vector<double> m(static_cast<size_t>(rows * cols), 0.0);
  auto at = [&](int64_t r, int64_t c) -> double & { return m[static_cast<size_t>(r * cols + c)]; };
  if (s.kind == DftKind::C2R) {
    // x[j] = sum over the n/2 + 1 stored bins, each but DC and Nyquist counted twice (Hermitian);
    // the imaginary parts of DC and Nyquist drop out (sin is 0 there), as in torch.
    int64_t bins = std::min(s.in_len, s.n / 2 + 1);
    for (int64_t f = 0; f < bins; ++f) {
      double w = (f == 0 || (s.n % 2 == 0 && f == s.n / 2)) ? 1.0 : 2.0;
      for (int64_t j = 0; j < s.out_len; ++j) {
        auto [cs, sn] = dft_twiddle(f, j, s.n, true);
        at(2 * f, j) = w * cs * s.scale;
        at(2 * f + 1, j) = -w * sn * s.scale;
      }
    }
    return dense(b, k, m, {rows, cols});
  }
  for (int64_t j = 0; j < std::min(s.in_len, s.n); ++j)
    for (int64_t f = 0; f < s.out_len; ++f) {
      auto [c0, s0] = dft_twiddle(f, j, s.n, s.inverse);
      double cs = c0 * s.scale, sn = s0 * s.scale;
      if (s.kind == DftKind::R2C) {
        at(j, 2 * f) = cs;
        at(j, 2 * f + 1) = sn;
      } else { // (xr + i xi)(cs + i sn)
        at(2 * j, 2 * f) = cs;
        at(2 * j + 1, 2 * f) = -sn;
        at(2 * j, 2 * f + 1) = sn;
        at(2 * j + 1, 2 * f + 1) = cs;
      }
    }
  return dense(b, k, m, {rows, cols});
}

// The transform along dim `axis` of x, whose logical rank is `rank` (complex x is carried, one
// dim more). The axis is moved last (before the pair), transformed, and moved back.
Val dft_along(GraphBuilder &b, DType k, const Val &x, int64_t rank, int64_t axis,
              const DftSpec &s) {
  std::vector<int64_t> perm, inv(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      perm.push_back(d);
  perm.push_back(axis);
  for (int64_t i = 0; i < rank; ++i)
    inv[static_cast<size_t>(perm[i])] = i;
  bool complex_in = s.kind != DftKind::R2C, complex_out = s.kind != DftKind::C2R;
  auto with_pair = [&](std::vector<int64_t> p) {
    p.push_back(rank);
    return p;
  };
  Val y = transpose(b, cast_to(b, x, k), complex_in ? with_pair(perm) : perm);
  std::vector<int64_t> keep(static_cast<size_t>(rank - 1), 0); // Reshape: 0 copies a dim
  if (complex_in) {
    std::vector<int64_t> flat = keep;
    flat.push_back(2 * s.in_len);
    y = reshape(b, y, flat);
  }
  y = op_t(b, k, "MatMul", {y, dft_matrix(b, k, s)});
  if (!complex_out)
    return transpose(b, y, inv);
  std::vector<int64_t> pairs = keep;
  pairs.push_back(s.out_len);
  pairs.push_back(2);
  return transpose(b, reshape(b, y, pairs), with_pair(inv));
}

// Arguments of fft_fft / fft_ifft / fft_rfft / fft_irfft: (self, n, dim, norm); of the n-d
// transforms: (self, s, dim, norm); of _fft_r2c / _fft_c2c / _fft_c2r: (self, dim,
// normalization, onesided | forward | last_dim_size).

// The per-transform scale of aten's fft_norm_mode: 0 none, 1 1/sqrt(n), 2 1/n.
double norm_scale(int64_t mode, int64_t n) {
  T2O_CHECK(mode >= 0 && mode <= 2, "unknown FFT normalization mode {}", mode);
  return mode == 0 ? 1.0 : mode == 1 ? 1.0 / std::sqrt(static_cast<double>(n)) : 1.0 / n;
}

// The mode for torch.fft's norm string: "backward" (the default) scales the inverse by 1/n,
// "forward" the forward transform, "ortho" both by 1/sqrt(n).
int64_t norm_mode(const ConvertCtx &c, bool inverse) {
  std::string norm = c.arg<std::string>("norm", "backward");
  T2O_CHECK(norm == "backward" || norm == "forward" || norm == "ortho",
            "{}: unknown norm '{}' (backward, forward, ortho)", c.op(), norm);
  if (norm == "ortho")
    return 1;
  return (norm == "forward") != inverse ? 2 : 0;
}

// The logical rank and the static size of logical dim d of input 0.
int64_t logical_rank(const ConvertCtx &c) {
  return rank_of(c, "self") - (is_complex(c, "self") ? 1 : 0);
}

int64_t logical_size(const ConvertCtx &c, int64_t d) {
  return static_dim(c, "self", d);
}

DType dft_dtype(const ConvertCtx &c) {
  return c.info("self").dtype == DType::Double ? DType::Double : DType::Float;
}

// _fft_r2c(self, dim, normalization, onesided): r2c on the last dim, c2c on the others.
void aten_fft_r2c(ConvertCtx &c) {
  T2O_CHECK(!is_complex(c, "self"), "{} needs a real input", c.op());
  int64_t rank = logical_rank(c), mode = c.arg<int64_t>("normalization");
  std::vector<int64_t> dims = c.ints("dim");
  for (auto &d : dims)
    d = norm_axis(d, rank);
  T2O_CHECK(!dims.empty(), "{} needs at least one dim", c.op());
  DType k = dft_dtype(c);
  DftSpec s;
  s.kind = DftKind::R2C;
  s.n = s.in_len = logical_size(c, dims.back());
  s.out_len = c.arg<bool>("onesided") ? s.n / 2 + 1 : s.n;
  s.scale = norm_scale(mode, s.n);
  Val z = dft_along(c.b, k, c.tensor("self"), rank, dims.back(), s);
  for (size_t i = 0; i + 1 < dims.size(); ++i) {
    DftSpec t;
    t.n = t.in_len = t.out_len = logical_size(c, dims[i]);
    t.scale = norm_scale(mode, t.n);
    z = dft_along(c.b, k, z, rank, dims[i], t);
  }
  set_complex_out(c, z);
}

// _fft_c2c(self, dim, normalization, forward).
void aten_fft_c2c(ConvertCtx &c) {
  T2O_CHECK(is_complex(c, "self"), "{} needs a complex input", c.op());
  int64_t rank = logical_rank(c), mode = c.arg<int64_t>("normalization");
  DType k = dft_dtype(c);
  Val z = c.tensor("self");
  for (int64_t d : c.ints("dim")) {
    d = norm_axis(d, rank);
    DftSpec s;
    s.n = s.in_len = s.out_len = logical_size(c, d);
    s.inverse = !c.arg<bool>("forward");
    s.scale = norm_scale(mode, s.n);
    z = dft_along(c.b, k, z, rank, d, s);
  }
  set_complex_out(c, z);
}

// _fft_c2r(self, dim, normalization, last_dim_size): c2c inverse on all dims but the last.
void aten_fft_c2r(ConvertCtx &c) {
  T2O_CHECK(is_complex(c, "self"), "{} needs a complex input", c.op());
  int64_t rank = logical_rank(c), mode = c.arg<int64_t>("normalization");
  std::vector<int64_t> dims = c.ints("dim");
  for (auto &d : dims)
    d = norm_axis(d, rank);
  T2O_CHECK(!dims.empty(), "{} needs at least one dim", c.op());
  DType k = dft_dtype(c);
  Val z = c.tensor("self");
  for (size_t i = 0; i + 1 < dims.size(); ++i) {
    DftSpec t;
    t.n = t.in_len = t.out_len = logical_size(c, dims[i]);
    t.inverse = true;
    t.scale = norm_scale(mode, t.n);
    z = dft_along(c.b, k, z, rank, dims[i], t);
  }
  DftSpec s;
  s.kind = DftKind::C2R;
  s.in_len = logical_size(c, dims.back());
  s.n = s.out_len = c.arg<int64_t>("last_dim_size");
  s.inverse = true;
  s.scale = norm_scale(mode, s.n);
  set_result(c, dft_along(c.b, k, z, rank, dims.back(), s));
}

// fft_fft / fft_ifft (self, n, dim, norm): a real input is an r2c with every bin kept.
void fft_c2c(ConvertCtx &c, bool inverse) {
  int64_t rank = logical_rank(c);
  int64_t d = norm_axis(c.arg<int64_t>("dim", -1), rank);
  DftSpec s;
  s.kind = is_complex(c, "self") ? DftKind::C2C : DftKind::R2C;
  s.in_len = logical_size(c, d);
  s.n = s.out_len = c.arg<int64_t>("n", s.in_len);
  s.inverse = inverse;
  s.scale = norm_scale(norm_mode(c, inverse), s.n);
  set_complex_out(c, dft_along(c.b, dft_dtype(c), c.tensor("self"), rank, d, s));
}

void aten_fft_fft(ConvertCtx &c) {
  fft_c2c(c, false);
}
void aten_fft_ifft(ConvertCtx &c) {
  fft_c2c(c, true);
}

// fft_rfft(self, n, dim, norm): the n/2 + 1 bins of a real signal.
void aten_fft_rfft(ConvertCtx &c) {
  T2O_CHECK(!is_complex(c, "self"), "{} needs a real input", c.op());
  int64_t rank = logical_rank(c);
  int64_t d = norm_axis(c.arg<int64_t>("dim", -1), rank);
  DftSpec s;
  s.kind = DftKind::R2C;
  s.in_len = logical_size(c, d);
  s.n = c.arg<int64_t>("n", s.in_len);
  s.out_len = s.n / 2 + 1;
  s.scale = norm_scale(norm_mode(c, false), s.n);
  set_complex_out(c, dft_along(c.b, dft_dtype(c), c.tensor("self"), rank, d, s));
}

// fft_irfft(self, n, dim, norm): n real samples (default 2 * (bins - 1)) from Hermitian bins.
void aten_fft_irfft(ConvertCtx &c) {
  int64_t rank = logical_rank(c);
  int64_t d = norm_axis(c.arg<int64_t>("dim", -1), rank);
  DftSpec s;
  s.kind = DftKind::C2R;
  s.in_len = logical_size(c, d);
  s.n = s.out_len = c.arg<int64_t>("n", 2 * (s.in_len - 1));
  T2O_CHECK(s.n > 0, "{}: invalid output length {}", c.op(), s.n);
  s.inverse = true;
  s.scale = norm_scale(norm_mode(c, true), s.n);
  // A real input is the complex one with no imaginary part, as torch takes it (irfft(|X|^2): an
  // autocorrelation).
  DType k = dft_dtype(c);
  Val z = is_complex(c, "self") ? c.tensor("self")
                                : lift_to_complex(c.b, k, cast_to(c.b, c.tensor("self"), k), rank);
  set_result(c, dft_along(c.b, k, z, rank, d, s));
}

// Arguments of the n-dimensional FFTs fft_fft2 / fft_fftn / ... (self, s, dim, norm).

// Which dims an n-dimensional FFT transforms, and at what lengths. dim defaults to the last
// len(s) dims, or every dim (the 2-D ops always pass theirs); s to the input's sizes, -1 keeping
// one; irfftn's last length to 2 * (bins - 1).
struct FftnPlan {
  std::vector<int64_t> dims, lens;
};

FftnPlan fftn_plan(const ConvertCtx &c, int64_t rank, bool c2r_last) {
  std::vector<int64_t> s = c.ints("s", {});
  FftnPlan p;
  if (c.has("dim")) {
    p.dims = c.ints("dim");
  } else {
    int64_t n = s.empty() ? rank : static_cast<int64_t>(s.size());
    p.dims = int_range(rank - n, rank);
  }
  T2O_CHECK(!p.dims.empty(), "{} needs at least one dim", c.op());
  T2O_CHECK(s.empty() || s.size() == p.dims.size(), "{}: s has {} sizes for {} dims", c.op(),
            s.size(), p.dims.size());
  for (size_t i = 0; i < p.dims.size(); ++i) {
    p.dims[i] = norm_axis(p.dims[i], rank);
    int64_t size = logical_size(c, p.dims[i]);
    bool last = i + 1 == p.dims.size();
    int64_t dflt = c2r_last && last ? 2 * (size - 1) : size;
    p.lens.push_back(!s.empty() && s[i] != -1 ? s[i] : dflt);
    T2O_CHECK(p.lens.back() > 0, "{}: invalid length {}", c.op(), p.lens.back());
  }
  return p;
}

// One c2c transform of dim plan.dims[i] (complex z).
Val fftn_c2c(const ConvertCtx &c, const Val &z, int64_t rank, const FftnPlan &p, size_t i,
             bool inverse) {
  DftSpec s;
  s.in_len = logical_size(c, p.dims[i]);
  s.n = s.out_len = p.lens[i];
  s.inverse = inverse;
  s.scale = norm_scale(norm_mode(c, inverse), s.n);
  return dft_along(c.b, dft_dtype(c), z, rank, p.dims[i], s);
}

// fft_fft2 / fft_fftn / fft_ifft2 / fft_ifftn: a real input's last dim by r2c (every bin), then
// c2c over the others.
void fftn(ConvertCtx &c, bool inverse) {
  int64_t rank = logical_rank(c);
  FftnPlan p = fftn_plan(c, rank, false);
  size_t last = p.dims.size() - 1;
  Val z = c.tensor("self");
  if (is_complex(c, "self")) {
    z = fftn_c2c(c, z, rank, p, last, inverse);
  } else {
    DftSpec s;
    s.kind = DftKind::R2C;
    s.in_len = logical_size(c, p.dims[last]);
    s.n = s.out_len = p.lens[last];
    s.inverse = inverse;
    s.scale = norm_scale(norm_mode(c, inverse), s.n);
    z = dft_along(c.b, dft_dtype(c), z, rank, p.dims[last], s);
  }
  for (size_t i = 0; i < last; ++i)
    z = fftn_c2c(c, z, rank, p, i, inverse);
  set_complex_out(c, z);
}

void aten_fft_fftn(ConvertCtx &c) {
  fftn(c, false);
}
void aten_fft_ifftn(ConvertCtx &c) {
  fftn(c, true);
}

// fft_rfft2 / fft_rfftn: r2c (n/2 + 1 bins) on the last dim, c2c on the others.
void aten_fft_rfftn(ConvertCtx &c) {
  T2O_CHECK(!is_complex(c, "self"), "{} needs a real input", c.op());
  int64_t rank = logical_rank(c);
  FftnPlan p = fftn_plan(c, rank, false);
  size_t last = p.dims.size() - 1;
  DftSpec s;
  s.kind = DftKind::R2C;
  s.in_len = logical_size(c, p.dims[last]);
  s.n = p.lens[last];
  s.out_len = s.n / 2 + 1;
  s.scale = norm_scale(norm_mode(c, false), s.n);
  Val z = dft_along(c.b, dft_dtype(c), c.tensor("self"), rank, p.dims[last], s);
  for (size_t i = 0; i < last; ++i)
    z = fftn_c2c(c, z, rank, p, i, false);
  set_complex_out(c, z);
}

// fft_irfft2 / fft_irfftn: c2c inverse on all dims but the last, then c2r on it.
void aten_fft_irfftn(ConvertCtx &c) {
  T2O_CHECK(is_complex(c, "self"), "{} needs a complex input", c.op());
  int64_t rank = logical_rank(c);
  FftnPlan p = fftn_plan(c, rank, true);
  size_t last = p.dims.size() - 1;
  Val z = c.tensor("self");
  for (size_t i = 0; i < last; ++i)
    z = fftn_c2c(c, z, rank, p, i, true);
  DftSpec s;
  s.kind = DftKind::C2R;
  s.in_len = logical_size(c, p.dims[last]);
  s.n = s.out_len = p.lens[last];
  s.inverse = true;
  s.scale = norm_scale(norm_mode(c, true), s.n);
  set_result(c, dft_along(c.b, dft_dtype(c), z, rank, p.dims[last], s));
}

// ---- istft ----------------------------------------------------------------------------------

// The window of istft/stft as n_fft samples: `window` (or win_length ones) centered in n_fft.
Val padded_window(ConvertCtx &c, DType k, int64_t n_fft, int64_t win) {
  int64_t left = (n_fft - win) / 2;
  if (!c.has("window")) {
    std::vector<double> ones(static_cast<size_t>(n_fft), 0.0);
    for (int64_t j = left; j < left + win; ++j)
      ones[static_cast<size_t>(j)] = 1.0;
    return dense(c.b, k, ones, {n_fft});
  }
  Val w = cast_to(c.b, c.tensor("window"), k);
  if (win < n_fft)
    w = op_t(c.b, k, "Pad", {w, c.b.const_i64({left, n_fft - win - left})});
  return w;
}

// Overlap-add of frames [N, n_fft, F] at stride hop: [N, 1, (F - 1) * hop + n_fft]. A
// ConvTranspose with the identity kernel puts sample t of frame m at m * hop + t and sums.
Val overlap_add(GraphBuilder &b, DType k, const Val &frames, int64_t n_fft, int64_t hop) {
  std::vector<double> eye(static_cast<size_t>(n_fft * n_fft), 0.0);
  for (int64_t t = 0; t < n_fft; ++t)
    eye[static_cast<size_t>(t * n_fft + t)] = 1.0;
  return op_t(b, k, "ConvTranspose", {frames, dense(b, k, eye, {n_fft, 1, n_fft})},
              {{"strides", std::vector<int64_t>{hop}}});
}

// istft(self, n_fft, hop_length, win_length, window, center, normalized, onesided, length,
// return_complex): irfft of each frame, windowed, overlap-added and divided by the overlap-added
// squared window, then trimmed as torch does. onesided is implied by the number of bins.

// istft's last step when the number of frames or `length` is known only at run time: samples
// [start, start + length) of y / env (zeros past the signal, as torch pads), or without a length
// [start, len - cut) — a negative Slice end needs no runtime length.
Val istft_trim_runtime(GraphBuilder &b, DType k, const Val &y, const Val &env, int64_t start,
                       int64_t cut, const Arg &length) {
  Val from = b.const_i64({start}), axis = b.const_i64({1});
  if (length.is_none()) {
    Val to = b.const_i64({cut > 0 ? -cut : std::numeric_limits<int64_t>::max()});
    return op_t(b, k, "Div",
                {b.op1("Slice", {y, from, to, axis}), b.op1("Slice", {env, from, to, axis})});
  }
  Val end = b.op1("Add", {reshape(b, int_list_tensor(b, length), {1}), from});
  Val q = op_t(b, k, "Div",
               {b.op1("Slice", {y, from, end, axis}), b.op1("Slice", {env, from, end, axis})});
  // Zeros up to `length` when it reaches past the signal.
  Val missing = b.op1("Max", {b.op1("Sub", {end, dims_of(b, y, 1, 2)}), b.const_i64({0})});
  return op_t(b, k, "Pad", {q, concat0(b, {b.const_i64({0, 0, 0}), missing})});
}

void aten_istft(ConvertCtx &c) {
  T2O_CHECK(is_complex(c, "self"),
            "istft needs a complex input (stft(..., return_complex=True)), got {}",
            c.info("self").str());
  T2O_CHECK(
      !c.arg<bool>("return_complex", false),
      "istft with return_complex=True is not supported; torch2onnx inverts real signals only");
  int64_t n_fft = c.arg<int64_t>("n_fft");
  int64_t hop = c.arg<int64_t>("hop_length", n_fft / 4);
  int64_t win = c.arg<int64_t>("win_length", n_fft);
  bool center = c.arg<bool>("center", true), normalized = c.arg<bool>("normalized", false);
  int64_t rank = logical_rank(c); // [B?, n_freq, frames]
  T2O_CHECK(rank == 2 || rank == 3, "istft needs a 2-D or 3-D input, got {}", c.info("self").str());
  int64_t n_freq = logical_size(c, rank - 2);
  T2O_CHECK(n_fft > 0 && hop > 0 && win > 0 && win <= n_fft,
            "istft: invalid n_fft={}, hop_length={}, win_length={}", n_fft, hop, win);
  DType k = dft_dtype(c);
  Val z = c.tensor("self");
  if (rank == 2)
    z = unsqueeze(c.b, z, {0});
  // Each frame's bins -> its n_fft samples (a two-sided input uses its first n_fft/2 + 1 bins,
  // like torch). [B, n_freq, F, 2] -> [B, F, n_freq, 2] -> [B, F, n_fft]
  DftSpec s;
  s.kind = DftKind::C2R;
  s.in_len = n_freq;
  s.n = s.out_len = n_fft;
  s.inverse = true;
  s.scale = normalized ? 1.0 / std::sqrt(static_cast<double>(n_fft)) : 1.0 / n_fft;
  Val y = dft_along(c.b, k, transpose(c.b, z, {0, 2, 1, 3}), 3, 2, s);
  Val w = padded_window(c, k, n_fft, win);
  y = op_t(c.b, k, "Mul", {y, w});
  y = overlap_add(c.b, k, transpose(c.b, y, {0, 2, 1}), n_fft, hop); // [B, 1, len]
  y = squeeze(c.b, y, {1});
  // The squared window overlap-added over the same frames: what each sample was scaled by.
  Val w2 = op_t(c.b, k, "Mul", {w, w});
  const Dim &frames_dim = (*c.info("self").shape)[rank - 1];
  const Arg &length = c.arg("length");
  Val frames_shape = frames_dim.is_static()
                         ? c.b.const_i64({1, n_fft, frames_dim.value})
                         : concat0(c.b, {c.b.const_i64({1, n_fft}), dims_of(c.b, z, 2, 3)});
  Val w2_frames = op_t(c.b, k, "Expand", {reshape(c.b, w2, {1, n_fft, 1}), frames_shape});
  Val env = squeeze(c.b, overlap_add(c.b, k, w2_frames, n_fft, hop), {1}); // [1, len]
  int64_t start = center ? n_fft / 2 : 0;
  if (frames_dim.is_static() && !length.is_tensor()) {
    int64_t len = n_fft + hop * (frames_dim.value - 1);
    int64_t end = c.has("length") ? start + length.to_int() : center ? len - n_fft / 2 : len;
    auto trim = [&](const Val &v) {
      return op_t(
          c.b, k, "Slice",
          {v, c.b.const_i64({start}), c.b.const_i64({std::min(end, len)}), c.b.const_i64({1})});
    };
    y = op_t(c.b, k, "Div", {trim(y), trim(env)});
    if (end > len) // a `length` past the signal: zeros, as torch pads
      y = op_t(c.b, k, "Pad", {y, c.b.const_i64({0, 0, 0, end - len})});
  } else {
    y = istft_trim_runtime(c.b, k, y, env, start, center ? n_fft / 2 : 0, length);
  }
  if (rank == 2)
    y = squeeze(c.b, y, {0});
  set_result(c, y);
}

} // namespace

namespace {

// The Hermitian FFTs are the real ones with the conjugate and the other direction's scaling:
// hfft(x) = irfft(conj(x)) and ihfft(x) = conj(rfft(x)) (the n-d forms too), each with the
// norm mode of the opposite direction ("backward" scales neither hfft nor irfft's forward twin).
NamedArg flipped_norm(const ConvertCtx &c) {
  std::string norm = c.arg<std::string>("norm", "backward");
  T2O_CHECK(norm == "backward" || norm == "forward" || norm == "ortho",
            "{}: unknown norm '{}' (backward, forward, ortho)", c.op(), norm);
  return {"norm", Arg::of_string(norm == "ortho"     ? norm
                                 : norm == "forward" ? "backward"
                                                     : "forward")};
}

// x * [1, -1] for a carried complex x: its conjugate, flagged complex like x.
Val conjugate(GraphBuilder &b, const Val &x) {
  TensorInfo info = b.info(x);
  DType k = info.dtype == DType::Double ? DType::Double : DType::Float;
  Val sign = cast_to(b, b.constant(TensorData::f32({1.f, -1.f}, {2}), "conj_sign"), k);
  Val z = op_t(b, k, "Mul", {x, sign});
  b.set_info(z, info);
  return z;
}

// This node converted by `real_op` with the flipped norm (and `self` conjugated first, for the
// c2r direction).
std::vector<Arg> hermitian(ConvertCtx &c, const char *real_op, bool conj_input) {
  std::vector<NamedArg> args;
  for (NamedArg a : c.named_args()) {
    if (a.name == "self" && conj_input)
      a.value = Arg::of_tensor(conjugate(c.b, c.tensor("self")));
    args.push_back(a.name == "norm" ? flipped_norm(c) : a);
  }
  TensorInfo out = c.out_info(0);
  return c.call(real_op, args, {out});
}

} // namespace

// fft_hfft(self, n, dim, norm) / fft_hfft2 / fft_hfftn (self, s, dim, norm): real output.
void aten_fft_hfft(ConvertCtx &c) {
  T2O_CHECK(is_complex(c, "self"), "{} needs a complex input", c.op());
  const char *real_op = c.op() == "aten::fft_hfft"    ? "aten::fft_irfft"
                        : c.op() == "aten::fft_hfft2" ? "aten::fft_irfft2"
                                                      : "aten::fft_irfftn";
  set_result(c, hermitian(c, real_op, true)[0].t());
}

// fft_ihfft(self, n, dim, norm) / fft_ihfft2 / fft_ihfftn: the onesided bins of a real input.
void aten_fft_ihfft(ConvertCtx &c) {
  T2O_CHECK(!is_complex(c, "self"), "{} needs a real input", c.op());
  const char *real_op = c.op() == "aten::fft_ihfft"    ? "aten::fft_rfft"
                        : c.op() == "aten::fft_ihfft2" ? "aten::fft_rfft2"
                                                       : "aten::fft_rfftn";
  Val z = hermitian(c, real_op, false)[0].t();
  set_complex_out(c, conjugate(c.b, z));
}

void register_signal_ops(Registry &r) {
  r.add("aten::stft", 11, aten_stft,
        {"Gather", "MatMul", "Cast", "Concat", "Mul", "Pad", "Transpose", "Unsqueeze", "Add", "Sub",
         "Div", "Range", "Shape"});
  r.add_complex("aten::stft", 11, aten_stft, {}); // return_complex=True
  r.add_complex("aten::istft", 11, aten_istft,
                {"MatMul", "ConvTranspose", "Div", "Cast", "Expand", "Mul", "Pad", "Reshape",
                 "Slice", "Squeeze", "Transpose", "Unsqueeze", "Add", "Concat", "Max", "Shape",
                 "Sub"});
  r.add_complex("aten::_fft_r2c", 11, aten_fft_r2c, {"MatMul", "Cast", "Reshape", "Transpose"});
  r.add_complex("aten::_fft_c2c", 11, aten_fft_c2c, {"MatMul", "Cast", "Reshape", "Transpose"});
  r.add_complex("aten::_fft_c2r", 11, aten_fft_c2r, {"MatMul", "Cast", "Reshape", "Transpose"});
  r.add_complex("aten::fft_fft", 11, aten_fft_fft, {"MatMul", "Cast", "Reshape", "Transpose"});
  r.add_complex("aten::fft_ifft", 11, aten_fft_ifft, {"MatMul", "Cast", "Reshape", "Transpose"});
  r.add_complex("aten::fft_rfft", 11, aten_fft_rfft, {"MatMul", "Cast", "Reshape", "Transpose"});
  r.add_complex("aten::fft_irfft", 11, aten_fft_irfft,
                {"MatMul", "Cast", "Reshape", "Transpose", "Pad", "Unsqueeze"});
  for (const char *op : {"aten::fft_fft2", "aten::fft_fftn"})
    r.add_complex(op, 11, aten_fft_fftn, {"MatMul", "Cast", "Reshape", "Transpose"});
  for (const char *op : {"aten::fft_ifft2", "aten::fft_ifftn"})
    r.add_complex(op, 11, aten_fft_ifftn, {"MatMul", "Cast", "Reshape", "Transpose"});
  for (const char *op : {"aten::fft_rfft2", "aten::fft_rfftn"})
    r.add_complex(op, 11, aten_fft_rfftn, {"MatMul", "Cast", "Reshape", "Transpose"});
  for (const char *op : {"aten::fft_irfft2", "aten::fft_irfftn"})
    r.add_complex(op, 11, aten_fft_irfftn, {"MatMul", "Cast", "Reshape", "Transpose"});
  for (const char *op : {"aten::fft_hfft", "aten::fft_hfft2", "aten::fft_hfftn"})
    r.add_complex(op, 11, aten_fft_hfft, {"Mul", "MatMul", "Cast", "Reshape", "Transpose"});
  for (const char *op : {"aten::fft_ihfft", "aten::fft_ihfft2", "aten::fft_ihfftn"})
    r.add_complex(op, 11, aten_fft_ihfft, {"Mul", "MatMul", "Cast", "Reshape", "Transpose"});
}

} // namespace torch2onnx
