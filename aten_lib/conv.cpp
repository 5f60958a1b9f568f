// Convolutions: aten::_convolution, convolution, conv1d/2d/3d, conv_transpose1d/2d/3d.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

#include <limits>

namespace torch2onnx {

// Every convolution schema starts (Tensor input, Tensor weight, Tensor? bias, int[] stride, ...).
namespace {

struct ConvArgs {
  const Arg *stride = nullptr;
  const Arg *padding = nullptr; // an int list, or the string 'same' / 'valid'
  const Arg *dilation = nullptr;
  const Arg *output_padding = nullptr; // transposed only
  bool transposed = false;
  int64_t groups = 1;
  Val runtime_groups; // groups known only at run time (valid: `groups` is unused)
};

// The `groups` argument: a constant, or a value known only at run time (torchaudio's
// compute_deltas passes groups = specgram.shape[1], the batch times the channels).
void read_groups(const ConvertCtx &c, ConvArgs &a, int64_t dflt) {
  if (!c.has("groups")) {
    a.groups = dflt;
    return;
  }
  const Arg &g = c.arg("groups");
  if (g.is_tensor())
    a.runtime_groups = g.t();
  else
    a.groups = g.to_int();
}

// A convolution whose groups are known only at run time, each group one input channel (weight
// [G * m, 1, k...]: depthwise, m outputs per channel): a sum over the kernel's taps of the padded
// input's strided windows times that tap's weights, input channel o / m feeding output o.
Val depthwise_runtime(ConvertCtx &c, Val x, const std::vector<int64_t> &stride,
                      const std::vector<int64_t> &dilation, const std::vector<int64_t> &pads) {
  GraphBuilder &b = c.b;
  const TensorInfo &w = c.info("weight");
  size_t n = stride.size();
  T2O_CHECK(w.is_static() || ((*w.shape)[1].is_static() && (*w.shape)[1].value == 1),
            "{}: groups known only at run time need one input channel per group (weight [C, 1, "
            "k...]), got weight {}",
            c.op(), w.str());
  for (size_t i = 0; i < n; ++i)
    T2O_CHECK((*w.shape)[i + 2].is_static(), "{}: needs a static kernel size, got weight {}",
              c.op(), w.str());
  Val weight = c.tensor("weight");
  // m = out channels / in channels: repeat each input channel m times (m = 1: unchanged).
  Val channels = dims_of(b, x, 1, 2), outs = dims_of(b, weight, 0, 1);
  Val m = b.op1("Div", {outs, channels});
  Val lead = dims_of(b, x, 0, 2), rest = dims_of(b, x, 2, 2 + static_cast<int64_t>(n));
  Val grown = unsqueeze(b, x, {2});
  grown = b.op1("Expand", {grown, concat0(b, {lead, m, rest})});
  x = b.op1("Reshape", {grown, concat0(b, {dims_of(b, x, 0, 1), outs, rest})});
  std::vector<int64_t> pad_all(2 * (n + 2), 0);
  for (size_t i = 0; i < n; ++i) {
    pad_all[i + 2] = pads[i];
    pad_all[n + 2 + i + 2] = pads[n + i];
  }
  x = b.op1("Pad", {x, b.const_i64(pad_all)});
  std::vector<int64_t> k(n);
  int64_t taps = 1;
  for (size_t i = 0; i < n; ++i)
    taps *= k[i] = (*w.shape)[i + 2].value;
  std::vector<int64_t> axes = int_range(2, 2 + static_cast<int64_t>(n));
  std::vector<int64_t> wshape(n + 2, 1);
  wshape[1] = -1;
  Val y;
  for (int64_t t = 0; t < taps; ++t) {
    std::vector<int64_t> at(n), starts(n), ends(n), wend(n);
    for (size_t i = n, rest_t = static_cast<size_t>(t); i-- > 0;) {
      at[i] = static_cast<int64_t>(rest_t % static_cast<size_t>(k[i]));
      rest_t /= static_cast<size_t>(k[i]);
      starts[i] = at[i] * dilation[i];
      int64_t back = dilation[i] * (k[i] - 1) - starts[i]; // elements left after the window
      ends[i] = back == 0 ? std::numeric_limits<int64_t>::max() : -back;
      wend[i] = at[i] + 1;
    }
    Val win = b.op1("Slice", {x, b.const_i64(starts), b.const_i64(ends), b.const_i64(axes),
                              b.const_i64(stride)});
    Val tap = b.op1("Slice", {weight, b.const_i64(at), b.const_i64(wend), b.const_i64(axes)});
    Val term = b.op1("Mul", {win, reshape(b, tap, wshape)});
    y = t == 0 ? term : b.op1("Add", {y, term});
  }
  if (c.has("bias"))
    y = b.op1("Add", {y, reshape(b, c.tensor("bias"), wshape)});
  return y;
}

// Torch 'same' puts the odd extra pad at the end, like ONNX SAME_UPPER; explicit pads avoid
// auto_pad's stride-dependent rule and work for every opset.
std::vector<int64_t> same_pads(const ConvertCtx &c, const std::vector<int64_t> &dilation) {
  const TensorInfo &w = c.info("weight");
  size_t n = dilation.size();
  std::vector<int64_t> begin(n), end(n);
  for (size_t i = 0; i < n; ++i) {
    const Dim &k = (*w.shape)[i + 2];
    T2O_CHECK(k.is_static(), "padding='same' needs a static kernel size, got weight {}", w.str());
    int64_t total = dilation[i] * (k.value - 1);
    begin[i] = total / 2;
    end[i] = total - begin[i];
  }
  begin.insert(begin.end(), end.begin(), end.end());
  return begin;
}

void emit_conv(ConvertCtx &c, const ConvArgs &a) {
  const TensorInfo &w = c.info("weight");
  T2O_CHECK(w.has_rank() && w.rank() >= 3 && w.rank() <= 5,
            "{}: the weight must be a 3-D, 4-D or 5-D tensor with known rank, got {}", c.op(),
            w.str());
  size_t n = static_cast<size_t>(w.rank() - 2);
  std::vector<int64_t> stride = per_spatial_dim(*a.stride, n, 1, "stride");
  std::vector<int64_t> dilation = per_spatial_dim(*a.dilation, n, 1, "dilation");

  std::vector<int64_t> pads;
  if (a.padding->kind == Arg::Kind::String) {
    const std::string &mode = a.padding->str();
    if (mode == "valid") {
      pads.assign(2 * n, 0);
    } else {
      T2O_CHECK(mode == "same", "{}: padding='{}' is not supported (expected 'same' or 'valid')",
                c.op(), mode);
      pads = same_pads(c, dilation);
    }
  } else {
    std::vector<int64_t> p = per_spatial_dim(*a.padding, n, 0, "padding");
    pads = p;
    pads.insert(pads.end(), p.begin(), p.end());
  }

  Val x = c.tensor("input");
  int64_t in_rank = c.info("input").rank();
  // Unbatched input (C, *spatial): ONNX Conv needs the batch dim.
  bool unbatched = in_rank == static_cast<int64_t>(n) + 1;
  T2O_CHECK(unbatched || in_rank == static_cast<int64_t>(n) + 2 || in_rank < 0,
            "{}: input of rank {} does not fit a weight of rank {}", c.op(), in_rank, w.rank());
  if (unbatched)
    x = unsqueeze(c.b, x, {0});

  if (a.runtime_groups.valid()) {
    T2O_CHECK(!a.transposed, "{}: a transposed convolution needs constant groups", c.op());
    Val y = depthwise_runtime(c, x, stride, dilation, pads);
    c.set_out(0, unbatched ? squeeze(c.b, y, {0}) : y);
    return;
  }
  std::vector<Val> inputs{x, c.tensor("weight")};
  if (c.has("bias"))
    inputs.push_back(c.tensor("bias"));
  std::vector<Attr> attrs{
      {"strides", stride}, {"pads", pads}, {"dilations", dilation}, {"group", a.groups}};
  if (w.is_static()) {
    auto sizes = w.sizes();
    attrs.emplace_back("kernel_shape", std::vector<int64_t>(sizes.begin() + 2, sizes.end()));
  }
  Val y;
  if (a.transposed) {
    std::vector<int64_t> out_pad = a.output_padding
                                       ? per_spatial_dim(*a.output_padding, n, 0, "output_padding")
                                       : std::vector<int64_t>(n, 0);
    attrs.emplace_back("output_padding", out_pad);
    y = c.b.op1("ConvTranspose", inputs, attrs);
  } else {
    y = c.b.op1("Conv", inputs, attrs);
  }
  if (unbatched)
    y = squeeze(c.b, y, {0});
  c.set_out(0, y);
}

} // namespace

// _convolution(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding,
//              int[] dilation, bool transposed, int[] output_padding, int groups, bool benchmark,
//              bool deterministic, bool cudnn_enabled, bool allow_tf32)
// convolution has the first nine; the last four only tune kernels on GPU.
void aten_convolution(ConvertCtx &c) {
  ConvArgs a;
  a.stride = &c.arg("stride");
  a.padding = &c.arg("padding");
  a.dilation = &c.arg("dilation");
  a.transposed = c.arg<bool>("transposed");
  a.output_padding = &c.arg("output_padding");
  read_groups(c, a, 1);
  emit_conv(c, a);
}

// conv{1,2,3}d(Tensor input, Tensor weight, Tensor? bias=None, int[] stride=1,
//              int[]|str padding=0, int[] dilation=1, int groups=1)
void aten_conv_nd(ConvertCtx &c) {
  ConvArgs a;
  a.stride = &c.arg("stride");
  a.padding = &c.arg("padding");
  a.dilation = &c.arg("dilation");
  read_groups(c, a, 1);
  emit_conv(c, a);
}

// conv_transpose{1,2,3}d(Tensor input, Tensor weight, Tensor? bias=None, int[] stride=1,
//                        int[] padding=0, int[] output_padding=0, int groups=1, int[] dilation=1)
void aten_conv_transpose_nd(ConvertCtx &c) {
  ConvArgs a;
  a.stride = &c.arg("stride");
  a.padding = &c.arg("padding");
  a.output_padding = &c.arg("output_padding");
  a.groups = c.arg<int64_t>("groups", 1);
  a.dilation = &c.arg("dilation");
  a.transposed = true;
  emit_conv(c, a);
}

// conv_tbc(Tensor self, Tensor weight, Tensor bias, int pad=0): a 1-D convolution over time-major
// input [T, B, C_in] with weight [K, C_in, C_out] (fairseq's layout), padding `pad` on both ends.
// As Conv over [B, C_in, T] with the weight as [C_out, C_in, K].
void aten_conv_tbc(ConvertCtx &c) {
  int64_t pad = c.arg<int64_t>("pad", 0);
  DType t = out_dtype(c);
  Val x = transpose(c.b, cast_to(c.b, c.tensor("self"), t), {1, 2, 0});
  Val w = transpose(c.b, cast_to(c.b, c.tensor("weight"), t), {2, 1, 0});
  std::vector<Val> ins = {x, w};
  if (c.has("bias"))
    ins.push_back(cast_to(c.b, c.tensor("bias"), t));
  Val y = c.b.op1("Conv", ins, {{"pads", std::vector<int64_t>{pad, pad}}});
  c.set_out(0, transpose(c.b, y, {2, 0, 1}));
}

void register_conv_ops(Registry &r) {
  // Groups known only at run time (depthwise_runtime): Pad, Slice, Mul, Add, Div, Expand, Reshape,
  // Shape, Concat, Unsqueeze.
  const std::vector<std::string> dw = {"Pad",    "Slice",   "Mul",   "Add",    "Div",
                                       "Expand", "Reshape", "Shape", "Concat", "Unsqueeze"};
  auto with_dw = [&](std::vector<std::string> ops) {
    ops.insert(ops.end(), dw.begin(), dw.end());
    return ops;
  };
  r.add("aten::_convolution", 11, aten_convolution, with_dw({"Conv", "ConvTranspose"}));
  r.add("aten::convolution", 11, aten_convolution, with_dw({"Conv", "ConvTranspose"}));
  r.add("aten::conv1d", 11, aten_conv_nd, with_dw({"Conv"}));
  r.add("aten::conv2d", 11, aten_conv_nd, with_dw({"Conv", "Squeeze"}));
  r.add("aten::conv3d", 11, aten_conv_nd, with_dw({"Conv"}));
  r.add("aten::conv_tbc", 11, aten_conv_tbc, {"Transpose", "Conv"});
  r.add("aten::conv_transpose1d", 11, aten_conv_transpose_nd, {"ConvTranspose"});
  r.add("aten::conv_transpose2d", 11, aten_conv_transpose_nd, {"ConvTranspose"});
  r.add("aten::conv_transpose3d", 11, aten_conv_transpose_nd, {"ConvTranspose"});
}

} // namespace torch2onnx
