// Pooling: aten::max_pool{1,2,3}d[_with_indices], avg_pool{1,2,3}d,
// adaptive_{avg,max}_pool{1,2,3}d, max_unpool{2,3}d.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace torch2onnx {

// max_pool{1,2,3}d[_with_indices](Tensor self, int[] kernel_size, int[] stride=[],
//     int[] padding=0, int[] dilation=1, bool ceil_mode=False)
// avg_pool{1,2,3}d(Tensor self, int[] kernel_size, int[] stride=[], int[] padding=0,
//     bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None)
// (avg_pool1d has no divisor_override)
// adaptive_{avg,max}_pool{1,2,3}d(Tensor self, int[] output_size)

namespace {

int64_t product(const std::vector<int64_t> &v) {
  int64_t p = 1;
  for (auto d : v)
    p *= d;
  return p;
}

// ONNX pooling needs (N, C, *spatial); torch also takes unbatched (C, *spatial) inputs.
struct Batched {
  Val x;
  bool unbatched = false;
  std::optional<std::vector<int64_t>> spatial; // static spatial sizes, when known

  Val restore(GraphBuilder &b, const Val &y) const { return unbatched ? squeeze(b, y, {0}) : y; }
};

Batched batched(const ConvertCtx &c, size_t n) {
  const TensorInfo &info = c.info("self");
  int64_t r = info.rank();
  T2O_CHECK(r == static_cast<int64_t>(n) + 1 || r == static_cast<int64_t>(n) + 2,
            "{}: expected an input of rank {} or {}, got {}", c.op(), n + 1, n + 2, info.str());
  Batched out;
  out.unbatched = r == static_cast<int64_t>(n) + 1;
  out.x = out.unbatched ? unsqueeze(c.b, c.tensor("self"), {0}) : c.tensor("self");
  std::vector<int64_t> sizes;
  for (int64_t i = r - static_cast<int64_t>(n); i < r; ++i) {
    const Dim &d = (*info.shape)[i];
    if (!d.is_static())
      return out;
    sizes.push_back(d.value);
  }
  out.spatial = sizes;
  return out;
}

struct Window {
  std::vector<int64_t> kernel, stride, pads, dilation;
  bool ceil = false;
};

// kernel_size, stride (empty means = kernel), padding (same on both sides), dilation (max pools
// only), ceil_mode.
Window read_window(const ConvertCtx &c, size_t n) {
  Window w;
  w.kernel = per_spatial_dim(c.arg("kernel_size"), n, 0, "kernel_size");
  for (auto v : w.kernel)
    T2O_CHECK(v > 0, "{}: kernel_size must be positive, got {}", c.op(), v);
  w.stride = per_spatial_dim(c.arg("stride"), n, 0, "stride");
  if (w.stride[0] == 0)
    w.stride = w.kernel;
  std::vector<int64_t> pad = per_spatial_dim(c.arg("padding"), n, 0, "padding");
  w.pads = pad;
  w.pads.insert(w.pads.end(), pad.begin(), pad.end());
  w.dilation = c.takes("dilation") ? per_spatial_dim(c.arg("dilation"), n, 1, "dilation")
                                   : std::vector<int64_t>(n, 1);
  w.ceil = c.arg<bool>("ceil_mode", false);
  return w;
}

// Torch drops a ceil_mode window that would start in the end padding; ONNX's formula keeps it.
// When that happens, Slice the extra window off so every runtime agrees with torch.
std::vector<Val> trim_ceil(GraphBuilder &b, const Batched &in, const Window &w,
                           std::vector<Val> outs) {
  if (!w.ceil)
    return outs;
  size_t n = w.kernel.size();
  if (!in.spatial) {
    // Sizes known at run time: torch keeps the windows starting before size + pad, at most
    // ceil((size + pad) / stride) of them; Slice clamps an end past ONNX's count.
    auto k = static_cast<int64_t>(n);
    Val sizes = dims_of(b, in.x, 2, 2 + k);
    std::vector<int64_t> pad(w.pads.begin(), w.pads.begin() + k), step(w.stride);
    for (size_t i = 0; i < n; ++i)
      pad[i] += step[i] - 1;
    Val ends = b.op1("Div", {b.op1("Add", {sizes, b.const_i64(pad)}), b.const_i64(step)});
    for (auto &v : outs)
      v = b.op1("Slice", {v, b.const_i64(std::vector<int64_t>(n, 0)), ends,
                          b.const_i64(int_range(2, 2 + k))});
    return outs;
  }
  std::vector<int64_t> ends(n);
  bool trim = false;
  for (size_t i = 0; i < n; ++i) {
    int64_t pad = w.pads[i];
    int64_t span = (*in.spatial)[i] + 2 * pad - w.dilation[i] * (w.kernel[i] - 1) - 1;
    int64_t out = (span + w.stride[i] - 1) / w.stride[i] + 1;
    if ((out - 1) * w.stride[i] >= (*in.spatial)[i] + pad) {
      --out;
      trim = true;
    }
    ends[i] = out;
  }
  if (!trim)
    return outs;
  for (auto &v : outs)
    v = b.op1("Slice", {v, b.const_i64(std::vector<int64_t>(n, 0)), b.const_i64(ends),
                        b.const_i64(int_range(2, 2 + n))});
  return outs;
}

// ONNX MaxPool indices count over the whole (N, C, *spatial) tensor; torch's count within one
// (n, c) plane.
Val plane_indices(GraphBuilder &b, const Val &idx, const Batched &in, size_t n) {
  if (in.spatial)
    return b.op1("Mod", {idx, b.const_i64_scalar(product(*in.spatial))});
  // Dynamic sizes: a 1x1 MaxPool's indices at spatial position 0 are each plane's offset.
  std::vector<int64_t> ones(n, 1);
  Val all = b.op("MaxPool", {in.x}, {{"kernel_shape", ones}, {"strides", ones}}, 2)[1];
  Val base = b.op1("Slice", {all, b.const_i64(std::vector<int64_t>(n, 0)), b.const_i64(ones),
                             b.const_i64(int_range(2, 2 + n))});
  return b.op1("Sub", {idx, base});
}

void emit_max_pool(ConvertCtx &c, size_t n, bool with_indices) {
  Batched in = batched(c, n);
  Window w = read_window(c, n);
  std::vector<Attr> attrs{{"kernel_shape", w.kernel},
                          {"strides", w.stride},
                          {"pads", w.pads},
                          {"dilations", w.dilation},
                          {"ceil_mode", int64_t{w.ceil ? 1 : 0}}};
  auto outs = c.b.op("MaxPool", {in.x}, attrs, with_indices ? 2 : 1);
  outs = trim_ceil(c.b, in, w, outs);
  if (with_indices)
    outs[1] = plane_indices(c.b, outs[1], in, n);
  for (size_t i = 0; i < outs.size(); ++i)
    c.set_out(i, in.restore(c.b, outs[i]));
}

// y (pooled without counting padding) times counted / valid per window along each spatial dim, as
// emit_avg_pool's static rescale, with the input's sizes known at run time: window o starts at
// o * stride - pad; torch counts its part inside the padded input, ONNX its part inside the input.
Val ceil_rescale(GraphBuilder &b, const Batched &in, const Window &w, DType t, Val y) {
  auto n = static_cast<int64_t>(w.kernel.size());
  // In float (small integers, exact): Min/Max take no int64 below opset 12.
  auto k = [&](int64_t v) { return b.const_scalar(t, static_cast<double>(v)); };
  for (int64_t d = 0; d < n; ++d) {
    auto i = static_cast<size_t>(d);
    Val size = cast_to(b, dim_scalar(b, in.x, 2 + d), t);
    Val out = dim_scalar(b, y, 2 + d);
    Val o = cast_to(b, b.op1("Range", {b.const_i64_scalar(0), out, b.const_i64_scalar(1)}), t);
    Val start = b.op1("Sub", {b.op1("Mul", {o, k(w.stride[i])}), k(w.pads[i])});
    Val end = b.op1("Add", {start, k(w.kernel[i])});
    Val counted = b.op1("Sub", {b.op1("Min", {end, b.op1("Add", {size, k(w.pads[i])})}), start});
    Val valid = b.op1("Sub", {b.op1("Min", {end, size}), b.op1("Max", {start, k(0)})});
    y = b.op1("Mul", {y, on_axis(b, b.op1("Div", {valid, counted}), 2 + d, 2 + n)});
  }
  return y;
}

void emit_avg_pool(ConvertCtx &c, size_t n) {
  Batched in = batched(c, n);
  Window w = read_window(c, n);
  bool include_pad = c.arg<bool>("count_include_pad", true);
  std::optional<int64_t> divisor;
  if (n > 1 && c.has("divisor_override")) {
    divisor = c.arg<int64_t>("divisor_override");
    T2O_CHECK(*divisor != 0, "{}: divisor_override must be non-zero", c.op());
    // Without ceil_mode every window covers kernel_size elements of the padded input, so the
    // sum is the count_include_pad average times the kernel area.
    T2O_CHECK(!w.ceil, "{}: divisor_override together with ceil_mode=True is not supported",
              c.op());
    include_pad = true;
  }
  // Torch divides a ceil_mode window that runs past the end padding by the part inside the
  // padded input; ONNX Runtime 1.20 gives other results there. Pool without counting padding
  // and rescale by the constant ratio of the two divisors (separable per dim).
  std::optional<std::vector<float>> rescale;
  std::vector<int64_t> out_sizes;
  bool runtime_rescale = false;
  if (w.ceil && include_pad && in.spatial) {
    rescale = std::vector<float>{1.0f};
    bool needed = false;
    for (size_t d = 0; d < n; ++d) {
      int64_t size = (*in.spatial)[d], k = w.kernel[d], st = w.stride[d], p = w.pads[d];
      int64_t out = (size + 2 * p - k + st - 1) / st + 1;
      if ((out - 1) * st >= size + p)
        --out;
      out_sizes.push_back(out);
      std::vector<float> next;
      for (float f : *rescale) {
        for (int64_t o = 0; o < out; ++o) {
          int64_t start = o * st - p;
          int64_t counted = std::min(start + k, size + p) - start;
          int64_t valid = std::min(start + k, size) - std::max<int64_t>(start, 0);
          needed = needed || valid != counted;
          next.push_back(f * static_cast<float>(valid) / static_cast<float>(counted));
        }
      }
      *rescale = std::move(next);
    }
    // ONNX Runtime counts a window's overhang past the end as padding with count_include_pad:
    // pool over the valid elements and rescale (when the ratio is 1 everywhere, no Mul).
    include_pad = false;
    if (!needed)
      rescale.reset();
  } else if (w.ceil && include_pad) {
    include_pad = false; // sizes known at run time: the same ratio, computed there
    runtime_rescale = true;
  }
  std::vector<Attr> attrs{{"kernel_shape", w.kernel},
                          {"strides", w.stride},
                          {"pads", w.pads},
                          {"ceil_mode", int64_t{w.ceil ? 1 : 0}},
                          {"count_include_pad", int64_t{include_pad ? 1 : 0}}};
  Val y = c.b.op1("AveragePool", {in.x}, attrs);
  y = trim_ceil(c.b, in, w, {y})[0];
  if (runtime_rescale)
    y = ceil_rescale(c.b, in, w, c.b.dtype(c.tensor("self")), y);
  if (rescale) {
    DType t = c.b.dtype(c.tensor("self"));
    Val f = c.b.constant(TensorData::f32(*rescale, out_sizes), "avg_pool_rescale");
    y = c.b.op1("Mul", {y, t == DType::Float ? f : cast_to(c.b, f, t)});
  }
  if (divisor) {
    double f = static_cast<double>(product(w.kernel)) / static_cast<double>(*divisor);
    y = c.b.op1("Mul", {y, c.b.const_scalar(c.b.dtype(c.tensor("self")), f)});
  }
  c.set_out(0, in.restore(c.b, y));
}

// Adaptive window i of `out` over `in` elements: [floor(i*in/out), ceil((i+1)*in/out)).
int64_t win_start(int64_t i, int64_t in, int64_t out) {
  return i * in / out;
}
int64_t win_end(int64_t i, int64_t in, int64_t out) {
  return ((i + 1) * in + out - 1) / out;
}

std::vector<int64_t> adaptive_out(const ConvertCtx &c, size_t n) {
  std::vector<int64_t> out = per_spatial_dim(c.arg("output_size"), n, 1, "output_size");
  for (auto o : out)
    T2O_CHECK(o > 0, "{}: output_size must be positive, got {}", c.op(), o);
  return out;
}

bool all_ones(const std::vector<int64_t> &v) {
  for (auto x : v)
    if (x != 1)
      return false;
  return true;
}

// The output size of each spatial dim, -1 for a dim kept as it is: an output size known only at
// run time that is the input's own size (nn.AdaptiveAvgPool2d((1, None)), a CRNN collapsing the
// height of a line of text of any width, traces its None as x.size(-1)).
std::vector<int64_t> adaptive_avg_out(const ConvertCtx &c, size_t n) {
  const Arg &a = c.arg("output_size");
  if (!a.is_list() || a.items.size() != n ||
      std::none_of(a.items.begin(), a.items.end(), [](const Arg &i) { return i.is_tensor(); }))
    return adaptive_out(c, n);
  int64_t r = c.info("self").rank();
  std::vector<int64_t> out;
  for (size_t d = 0; d < n; ++d) {
    const Arg &item = a.items[d];
    int64_t axis = r - static_cast<int64_t>(n) + static_cast<int64_t>(d);
    if (item.is_tensor()) {
      T2O_CHECK(is_size_of(c.b, item.t(), c.tensor("self"), axis),
                "{}: output_size[{}] is known only at run time (not the input's own size)", c.op(),
                d);
      out.push_back(-1);
    } else {
      out.push_back(item.to_int());
      T2O_CHECK(out.back() > 0, "{}: output_size must be positive, got {}", c.op(), out.back());
    }
  }
  return out;
}

// The static sizes of the spatial dims, -1 for a size known only at run time.
std::vector<int64_t> static_spatial(const ConvertCtx &c, const Batched &in, size_t n) {
  if (in.spatial)
    return *in.spatial;
  const TensorInfo &info = c.info("self");
  std::vector<int64_t> sp(n, -1);
  for (size_t d = 0; d < n; ++d) {
    const Dim &dim = (*info.shape)[static_cast<size_t>(info.rank()) - n + d];
    if (dim.is_static())
      sp[d] = dim.value;
  }
  return sp;
}

// The bounds of the `out` adaptive windows over spatial dim d of x (static size `size`, -1 when
// known only at run time) as 1-D int64 tensors: starts[i] = floor(i * size / out),
// ends[i] = ceil((i + 1) * size / out), the formula above computed in the graph for a runtime size.
struct Windows {
  Val starts, ends;
};
Windows adaptive_windows(GraphBuilder &b, const Val &x, size_t d, int64_t size, int64_t out) {
  if (size >= 0) {
    std::vector<int64_t> s, e;
    for (int64_t i = 0; i < out; ++i) {
      s.push_back(win_start(i, size, out));
      e.push_back(win_end(i, size, out));
    }
    return {b.const_i64(s), b.const_i64(e)};
  }
  Val n = dim_scalar(b, x, static_cast<int64_t>(d) + 2), o = b.const_i64_scalar(out);
  Val starts = b.op1("Div", {b.op1("Mul", {b.const_i64(int_range(0, out)), n}), o});
  Val ends = b.op1("Mul", {b.const_i64(int_range(1, out + 1)), n});
  ends = b.op1("Div", {b.op1("Add", {ends, b.const_i64_scalar(out - 1)}), o});
  return {starts, ends};
}

// Element i of a 1-D tensor as a 1-element 1-D tensor (a Slice bound).
Val element(GraphBuilder &b, const Val &v, int64_t i) {
  return b.op1("Slice", {v, b.const_i64({i}), b.const_i64({i + 1}), b.const_i64({0})});
}

void emit_adaptive_avg(ConvertCtx &c, size_t n) {
  Batched in = batched(c, n);
  const std::vector<int64_t> out = adaptive_avg_out(c, n);
  if (all_ones(out)) {
    c.set_out(0, in.restore(c.b, c.b.op1("GlobalAveragePool", {in.x})));
    return;
  }
  const std::vector<int64_t> sp = static_spatial(c, in, n);
  // Dims whose static size divides evenly pool with one AveragePool; the rest (sizes known only at
  // run time included) are averaged window by window (the mean is separable, so each dim can be
  // reduced on its own). Kept dims (out -1) pool nothing.
  auto evenly = [&](size_t d) { return sp[d] >= 0 && sp[d] % out[d] == 0; };
  std::vector<int64_t> kernel(n, 1);
  bool any_pool = false;
  for (size_t d = 0; d < n; ++d) {
    if (out[d] != -1 && evenly(d) && sp[d] != out[d]) {
      kernel[d] = sp[d] / out[d];
      any_pool = true;
    }
  }
  Val y = in.x;
  if (any_pool)
    y = c.b.op1("AveragePool", {y}, {{"kernel_shape", kernel}, {"strides", kernel}});
  for (size_t d = 0; d < n; ++d) {
    if (out[d] == -1 || evenly(d))
      continue;
    int64_t axis = static_cast<int64_t>(d) + 2;
    Windows w = adaptive_windows(c.b, y, d, sp[d], out[d]);
    std::vector<Val> parts;
    for (int64_t i = 0; i < out[d]; ++i) {
      Val s = c.b.op1(
          "Slice", {y, element(c.b, w.starts, i), element(c.b, w.ends, i), c.b.const_i64({axis})});
      parts.push_back(c.b.op1("ReduceMean", {s},
                              {{"axes", std::vector<int64_t>{axis}}, {"keepdims", int64_t{1}}}));
    }
    y = c.b.op1("Concat", parts, {{"axis", axis}});
  }
  c.set_out(0, in.restore(c.b, y));
}

// adaptive_max_pool over spatial sizes known only at run time: window by window (at most 4096),
// each window flattened to one max and its first ArgMax, mapped back to a position in the input
// plane (row-major, as ATen's indices: the first maximum of the window wins).
void emit_adaptive_max_runtime(ConvertCtx &c, const Batched &in, const std::vector<int64_t> &out) {
  GraphBuilder &b = c.b;
  size_t n = out.size();
  T2O_CHECK(product(out) <= 4096, "{}: {} windows over sizes known only at run time (at most 4096)",
            c.op(), product(out));
  const std::vector<int64_t> sp = static_spatial(c, in, n);
  std::vector<Windows> win;
  std::vector<Val> sizes;
  for (size_t d = 0; d < n; ++d) {
    win.push_back(adaptive_windows(b, in.x, d, sp[d], out[d]));
    sizes.push_back(dims_of(b, in.x, static_cast<int64_t>(d) + 2, static_cast<int64_t>(d) + 3));
  }
  std::vector<Val> values, indices;
  Val axes = b.const_i64(int_range(2, 2 + static_cast<int64_t>(n)));
  for (int64_t f = 0; f < product(out); ++f) {
    std::vector<Val> st(n), en(n);
    for (size_t d = n, rest = static_cast<size_t>(f); d-- > 0;) {
      auto i = static_cast<int64_t>(rest % static_cast<size_t>(out[d]));
      rest /= static_cast<size_t>(out[d]);
      st[d] = element(b, win[d].starts, i);
      en[d] = element(b, win[d].ends, i);
    }
    Val flat = reshape(b, b.op1("Slice", {in.x, concat0(b, st), concat0(b, en), axes}), {0, 0, -1});
    values.push_back(
        b.op1("ReduceMax", {flat}, {{"axes", std::vector<int64_t>{2}}, {"keepdims", int64_t{1}}}));
    Val rest = b.op1("ArgMax", {flat}, {{"axis", int64_t{2}}, {"keepdims", int64_t{1}}});
    Val pos = b.const_i64_scalar(0), stride = b.const_i64_scalar(1);
    for (size_t d = n; d-- > 0;) {
      Val width = b.op1("Sub", {en[d], st[d]});
      Val at = b.op1("Add", {st[d], b.op1("Mod", {rest, width})});
      pos = b.op1("Add", {pos, b.op1("Mul", {at, stride})});
      rest = b.op1("Div", {rest, width});
      stride = b.op1("Mul", {stride, sizes[d]});
    }
    indices.push_back(pos);
  }
  std::vector<int64_t> shape = {0, 0};
  shape.insert(shape.end(), out.begin(), out.end());
  auto gather = [&](const std::vector<Val> &parts) {
    Val all = parts.size() == 1 ? parts[0] : b.op1("Concat", parts, {{"axis", int64_t{2}}});
    return in.restore(b, reshape(b, all, shape));
  };
  c.set_out(0, gather(values));
  c.set_out(1, gather(indices));
}

// adaptive_max_pool returns (values, indices). Windows of uneven length are made even by a
// Gather that repeats each window's first element (a repeat never changes the max, and the
// first occurrence wins ties), so one MaxPool yields both outputs; a constant table maps its
// indices back to input positions.
void emit_adaptive_max(ConvertCtx &c, size_t n) {
  Batched in = batched(c, n);
  std::vector<int64_t> out = adaptive_out(c, n);
  if (all_ones(out) && !in.spatial) {
    Val values = c.b.op1("GlobalMaxPool", {in.x});
    Val flat = reshape(c.b, in.x, {0, 0, -1});
    Val idx = c.b.op1("ArgMax", {flat}, {{"axis", int64_t{2}}, {"keepdims", int64_t{1}}});
    if (n > 1)
      idx = unsqueeze(c.b, idx, int_range(3, 2 + n));
    c.set_out(0, in.restore(c.b, values));
    c.set_out(1, in.restore(c.b, idx));
    return;
  }
  if (!in.spatial) {
    emit_adaptive_max_runtime(c, in, out);
    return;
  }
  const auto &sp = *in.spatial;
  Val x = in.x;
  std::vector<int64_t> kernel(n), gathered(n);
  std::vector<std::vector<int64_t>> maps(n); // gathered position -> input position, per dim
  bool remapped = false;
  for (size_t d = 0; d < n; ++d) {
    if (sp[d] % out[d] == 0) {
      kernel[d] = sp[d] / out[d];
      gathered[d] = sp[d];
      maps[d] = int_range(0, sp[d]);
      continue;
    }
    int64_t k = 0;
    for (int64_t i = 0; i < out[d]; ++i)
      k = std::max(k, win_end(i, sp[d], out[d]) - win_start(i, sp[d], out[d]));
    for (int64_t i = 0; i < out[d]; ++i) {
      int64_t s = win_start(i, sp[d], out[d]), e = win_end(i, sp[d], out[d]);
      for (int64_t j = 0; j < k; ++j)
        maps[d].push_back(s + j < e ? s + j : s);
    }
    x = c.b.op1("Gather", {x, c.b.const_i64(maps[d])}, {{"axis", static_cast<int64_t>(d) + 2}});
    kernel[d] = k;
    gathered[d] = out[d] * k;
    remapped = true;
  }
  auto outs = c.b.op("MaxPool", {x}, {{"kernel_shape", kernel}, {"strides", kernel}}, 2);
  Val idx = c.b.op1("Mod", {outs[1], c.b.const_i64_scalar(product(gathered))});
  if (remapped) {
    int64_t total = product(gathered);
    T2O_CHECK(total <= (int64_t{1} << 24), "{}: index table of {} entries is too large", c.op(),
              total);
    std::vector<int64_t> table(static_cast<size_t>(total));
    for (int64_t f = 0; f < total; ++f) {
      int64_t rest = f, pos = 0, stride = 1;
      for (size_t d = n; d-- > 0;) {
        pos += maps[d][static_cast<size_t>(rest % gathered[d])] * stride;
        rest /= gathered[d];
        stride *= sp[d];
      }
      table[static_cast<size_t>(f)] = pos;
    }
    idx = c.b.op1("Gather", {c.b.const_i64(table), idx}, {{"axis", int64_t{0}}});
  }
  c.set_out(0, in.restore(c.b, outs[0]));
  c.set_out(1, in.restore(c.b, idx));
}

} // namespace

void aten_max_pool1d(ConvertCtx &c) {
  emit_max_pool(c, 1, false);
}
void aten_max_pool2d(ConvertCtx &c) {
  emit_max_pool(c, 2, false);
}
void aten_max_pool3d(ConvertCtx &c) {
  emit_max_pool(c, 3, false);
}
void aten_max_pool1d_with_indices(ConvertCtx &c) {
  emit_max_pool(c, 1, true);
}
void aten_max_pool2d_with_indices(ConvertCtx &c) {
  emit_max_pool(c, 2, true);
}
void aten_max_pool3d_with_indices(ConvertCtx &c) {
  emit_max_pool(c, 3, true);
}
void aten_avg_pool1d(ConvertCtx &c) {
  emit_avg_pool(c, 1);
}
void aten_avg_pool2d(ConvertCtx &c) {
  emit_avg_pool(c, 2);
}
void aten_avg_pool3d(ConvertCtx &c) {
  emit_avg_pool(c, 3);
}
void aten_adaptive_avg_pool1d(ConvertCtx &c) {
  emit_adaptive_avg(c, 1);
}
void aten_adaptive_avg_pool2d(ConvertCtx &c) {
  emit_adaptive_avg(c, 2);
}
void aten_adaptive_avg_pool3d(ConvertCtx &c) {
  emit_adaptive_avg(c, 3);
}
void aten_adaptive_max_pool1d(ConvertCtx &c) {
  emit_adaptive_max(c, 1);
}
void aten_adaptive_max_pool2d(ConvertCtx &c) {
  emit_adaptive_max(c, 2);
}
void aten_adaptive_max_pool3d(ConvertCtx &c) {
  emit_adaptive_max(c, 3);
}

// max_unpool2d(self, indices, int[2] output_size) / max_unpool3d(self, indices, int[3]
// output_size, int[3] stride, int[3] padding): each value written at its index into the
// flattened output plane of its (batch, channel), zeros elsewhere (ScatterElements; ONNX's
// MaxUnpool wants indices over the whole tensor, as ONNX's MaxPool gives them).
void aten_max_unpool2d(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  std::vector<int64_t> size = c.ints("output_size");
  auto nd = static_cast<int64_t>(size.size());
  int64_t rank = rank_of(c, "self"), lead = rank - nd;
  T2O_CHECK(lead == 1 || lead == 2, "{}: expected a {}-D or {}-D input, got {}", c.op(), nd + 1,
            nd + 2, c.info("self").str());
  int64_t plane = 1;
  for (int64_t s : size)
    plane *= s;
  std::vector<int64_t> flat(static_cast<size_t>(lead), 0);
  flat.push_back(-1);
  Val x = reshape(b, c.tensor("self"), flat);
  Val idx = reshape(b, cast_to(b, c.tensor("indices"), DType::Int64), flat);
  Val lead_dims = dims_of(b, c.tensor("self"), 0, lead);
  TensorData zero = TensorData::scalar(b.dtype(x), 0);
  zero.dims = {1};
  Val out =
      b.op1("ConstantOfShape", {concat0(b, {lead_dims, b.const_i64({plane})})}, {{"value", zero}});
  out = b.op1("ScatterElements", {out, idx, x}, {{"axis", lead}});
  c.set_out(0, b.op1("Reshape", {out, concat0(b, {lead_dims, b.const_i64(size)})}));
}

void register_pooling_ops(Registry &r) {
  r.add("aten::max_pool1d", 11, aten_max_pool1d, {"MaxPool", "Slice", "Shape", "Add", "Div"});
  r.add("aten::max_pool2d", 11, aten_max_pool2d,
        {"MaxPool", "Squeeze", "Unsqueeze", "Slice", "Shape", "Add", "Div"});
  r.add("aten::max_pool3d", 11, aten_max_pool3d, {"MaxPool", "Slice", "Shape", "Add", "Div"});
  r.add("aten::max_pool1d_with_indices", 11, aten_max_pool1d_with_indices,
        {"MaxPool", "Mod", "Slice", "Shape", "Add", "Div"});
  r.add("aten::max_pool2d_with_indices", 11, aten_max_pool2d_with_indices,
        {"MaxPool", "Mod", "Squeeze", "Unsqueeze", "Slice", "Shape", "Add", "Div"});
  r.add("aten::max_pool3d_with_indices", 11, aten_max_pool3d_with_indices,
        {"MaxPool", "Mod", "Squeeze", "Unsqueeze", "Slice", "Shape", "Add", "Div"});
  r.add("aten::avg_pool1d", 11, aten_avg_pool1d,
        {"AveragePool", "Mul", "Slice", "Shape", "Add", "Div", "Range", "Sub", "Min", "Max", "Cast",
         "Gather", "Reshape", "Unsqueeze", "Concat"});
  r.add("aten::avg_pool2d", 11, aten_avg_pool2d,
        {"AveragePool", "Mul", "Squeeze", "Unsqueeze", "Slice", "Shape", "Add", "Div", "Range",
         "Sub", "Min", "Max", "Cast", "Gather", "Reshape", "Concat"});
  r.add("aten::avg_pool3d", 11, aten_avg_pool3d,
        {"AveragePool", "Mul", "Slice", "Shape", "Add", "Div", "Range", "Sub", "Min", "Max", "Cast",
         "Gather", "Reshape", "Unsqueeze", "Concat"});
  // Window bounds over sizes known only at run time: Shape, Gather, Mul, Add, Div.
  const std::vector<std::string> adaptive_avg = {
      "GlobalAveragePool", "AveragePool", "Slice",  "ReduceMean", "Concat", "Squeeze",
      "Unsqueeze",         "Shape",       "Gather", "Mul",        "Add",    "Div"};
  r.add("aten::adaptive_avg_pool1d", 11, aten_adaptive_avg_pool1d, adaptive_avg);
  r.add("aten::adaptive_avg_pool2d", 11, aten_adaptive_avg_pool2d, adaptive_avg);
  r.add("aten::adaptive_avg_pool3d", 11, aten_adaptive_avg_pool3d, adaptive_avg);
  const std::vector<std::string> adaptive_max = {
      "MaxPool", "Gather", "Mod",    "Squeeze",   "Unsqueeze", "GlobalMaxPool", "ArgMax", "Reshape",
      "Shape",   "Slice",  "Concat", "ReduceMax", "Mul",       "Add",           "Sub",    "Div"};
  r.add("aten::adaptive_max_pool1d", 11, aten_adaptive_max_pool1d, adaptive_max);
  r.add("aten::adaptive_max_pool2d", 11, aten_adaptive_max_pool2d, adaptive_max);
  r.add("aten::adaptive_max_pool3d", 11, aten_adaptive_max_pool3d, adaptive_max);
  for (const char *op : {"aten::max_unpool2d", "aten::max_unpool3d"})
    r.add(op, 11, aten_max_unpool2d,
          {"Reshape", "Cast", "Shape", "Slice", "Concat", "ConstantOfShape", "ScatterElements"});
}

} // namespace torch2onnx
