// Convolutions: aten::_convolution, convolution, conv1d/2d/3d, conv_transpose1d/2d/3d.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

namespace torch2onnx {

namespace {

struct ConvArgs {
  const Arg* stride = nullptr;
  const Arg* padding = nullptr;  // an int list, or the string 'same' / 'valid'
  const Arg* dilation = nullptr;
  const Arg* output_padding = nullptr;  // transposed only
  bool transposed = false;
  int64_t groups = 1;
};

// Torch 'same' puts the odd extra pad at the end, like ONNX SAME_UPPER; explicit pads avoid
// auto_pad's stride-dependent rule and work for every opset.
std::vector<int64_t> same_pads(const ConvertCtx& c, const std::vector<int64_t>& dilation) {
  const TensorInfo& w = c.info(1);
  size_t n = dilation.size();
  std::vector<int64_t> begin(n), end(n);
  for (size_t i = 0; i < n; ++i) {
    const Dim& k = (*w.shape)[i + 2];
    T2O_CHECK(k.is_static(), "padding='same' needs a static kernel size, got weight {}", w.str());
    int64_t total = dilation[i] * (k.value - 1);
    begin[i] = total / 2;
    end[i] = total - begin[i];
  }
  begin.insert(begin.end(), end.begin(), end.end());
  return begin;
}

void emit_conv(ConvertCtx& c, const ConvArgs& a) {
  const TensorInfo& w = c.info(1);
  T2O_CHECK(w.has_rank() && w.rank() >= 3 && w.rank() <= 5,
            "{}: the weight must be a 3-D, 4-D or 5-D tensor with known rank, got {}", c.op(),
            w.str());
  size_t n = static_cast<size_t>(w.rank() - 2);
  std::vector<int64_t> stride = per_spatial_dim(*a.stride, n, 1, "stride");
  std::vector<int64_t> dilation = per_spatial_dim(*a.dilation, n, 1, "dilation");

  std::vector<int64_t> pads;
  if (a.padding->kind == Arg::Kind::String) {
    const std::string& mode = a.padding->str();
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

  Val x = c.tensor(0);
  int64_t in_rank = c.info(0).rank();
  // Unbatched input (C, *spatial): ONNX Conv needs the batch dim.
  bool unbatched = in_rank == static_cast<int64_t>(n) + 1;
  T2O_CHECK(unbatched || in_rank == static_cast<int64_t>(n) + 2 || in_rank < 0,
            "{}: input of rank {} does not fit a weight of rank {}", c.op(), in_rank, w.rank());
  if (unbatched) x = unsqueeze(c.b, x, {0});

  std::vector<Val> inputs{x, c.tensor(1)};
  if (c.has(2)) inputs.push_back(c.tensor(2));
  std::vector<Attr> attrs{{"strides", stride}, {"pads", pads}, {"dilations", dilation},
                          {"group", a.groups}};
  if (w.is_static()) {
    auto sizes = w.sizes();
    attrs.emplace_back("kernel_shape", std::vector<int64_t>(sizes.begin() + 2, sizes.end()));
  }
  Val y;
  if (a.transposed) {
    std::vector<int64_t> out_pad = a.output_padding ? per_spatial_dim(*a.output_padding, n, 0,
                                                              "output_padding")
                                                    : std::vector<int64_t>(n, 0);
    attrs.emplace_back("output_padding", out_pad);
    y = c.b.op1("ConvTranspose", inputs, attrs);
  } else {
    y = c.b.op1("Conv", inputs, attrs);
  }
  if (unbatched) y = squeeze(c.b, y, {0});
  c.set_out(0, y);
}

}  // namespace

// _convolution(input, weight, bias?, stride, padding, dilation, transposed, output_padding,
// groups, benchmark, deterministic, cudnn_enabled[, allow_tf32]); the last four only tune
// kernels on GPU. aten::convolution has the first nine.
void aten_convolution(ConvertCtx& c) {
  ConvArgs a;
  a.stride = &c.in(3);
  a.padding = &c.in(4);
  a.dilation = &c.in(5);
  a.transposed = c.in(6).to_bool();
  a.output_padding = &c.in(7);
  a.groups = c.in(8).to_int();
  emit_conv(c, a);
}

// conv{1,2,3}d(input, weight, bias?, stride, padding, dilation, groups); padding may be a string.
void aten_conv_nd(ConvertCtx& c) {
  ConvArgs a;
  a.stride = &c.in(3);
  a.padding = &c.in(4);
  a.dilation = &c.in(5);
  a.groups = c.int_or(6, 1);
  emit_conv(c, a);
}

// conv_transpose{1,2,3}d(input, weight, bias?, stride, padding, output_padding, groups, dilation).
void aten_conv_transpose_nd(ConvertCtx& c) {
  ConvArgs a;
  a.stride = &c.in(3);
  a.padding = &c.in(4);
  a.output_padding = &c.in(5);
  a.groups = c.int_or(6, 1);
  a.dilation = &c.in(7);
  a.transposed = true;
  emit_conv(c, a);
}

void aten_conv1d(ConvertCtx& c) { aten_conv_nd(c); }
void aten_conv2d(ConvertCtx& c) { aten_conv_nd(c); }
void aten_conv3d(ConvertCtx& c) { aten_conv_nd(c); }
void aten_conv_transpose1d(ConvertCtx& c) { aten_conv_transpose_nd(c); }
void aten_conv_transpose2d(ConvertCtx& c) { aten_conv_transpose_nd(c); }
void aten_conv_transpose3d(ConvertCtx& c) { aten_conv_transpose_nd(c); }
void aten__convolution(ConvertCtx& c) { aten_convolution(c); }

void register_conv_ops(Registry& r) {
  r.add("aten::_convolution", 13, aten__convolution, {"Conv", "ConvTranspose"});
  r.add("aten::convolution", 13, aten_convolution, {"Conv", "ConvTranspose"});
  r.add("aten::conv1d", 13, aten_conv1d, {"Conv"});
  r.add("aten::conv2d", 13, aten_conv2d, {"Conv"});
  r.add("aten::conv3d", 13, aten_conv3d, {"Conv"});
  r.add("aten::conv_transpose1d", 13, aten_conv_transpose1d, {"ConvTranspose"});
  r.add("aten::conv_transpose2d", 13, aten_conv_transpose2d, {"ConvTranspose"});
  r.add("aten::conv_transpose3d", 13, aten_conv_transpose3d, {"ConvTranspose"});
}

}  // namespace torch2onnx
