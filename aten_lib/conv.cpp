// Convolutions: aten::_convolution, convolution, conv1d/2d/3d, conv_transpose1d/2d/3d.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

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
};

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
  a.groups = c.arg<int64_t>("groups");
  emit_conv(c, a);
}

// conv{1,2,3}d(Tensor input, Tensor weight, Tensor? bias=None, int[] stride=1,
//              int[]|str padding=0, int[] dilation=1, int groups=1)
void aten_conv_nd(ConvertCtx &c) {
  ConvArgs a;
  a.stride = &c.arg("stride");
  a.padding = &c.arg("padding");
  a.dilation = &c.arg("dilation");
  a.groups = c.arg<int64_t>("groups", 1);
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
  r.add("aten::_convolution", 11, aten_convolution, {"Conv", "ConvTranspose"});
  r.add("aten::convolution", 11, aten_convolution, {"Conv", "ConvTranspose"});
  r.add("aten::conv1d", 11, aten_conv_nd, {"Conv"});
  r.add("aten::conv2d", 11, aten_conv_nd, {"Conv", "Squeeze", "Unsqueeze"});
  r.add("aten::conv3d", 11, aten_conv_nd, {"Conv"});
  r.add("aten::conv_tbc", 11, aten_conv_tbc, {"Transpose", "Conv"});
  r.add("aten::conv_transpose1d", 11, aten_conv_transpose_nd, {"ConvTranspose"});
  r.add("aten::conv_transpose2d", 11, aten_conv_transpose_nd, {"ConvTranspose"});
  r.add("aten::conv_transpose3d", 11, aten_conv_transpose_nd, {"ConvTranspose"});
}

} // namespace torch2onnx
