// Ops that write values at positions, as forms of the indexing family's scatters: put (flat
// positions), index_reduce (a scatter_reduce along one dim), fill_diagonal_ (a Where on a mask made
// at export time), and select_scatter / slice_scatter (what an in-place op on x[i] or x[a:b]
// writes back into x).
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace torch2onnx {

// put(self, index, source, accumulate=False): source's items written (or added) at the flat
// positions `index` of self (negative positions count from the end): an index_put of the
// flattened self.
void aten_put(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  Val self = c.tensor("self");
  Val flat = reshape(b, self, {-1});
  Val idx = reshape(b, cast_to(b, c.tensor("index"), DType::Int64), {-1});
  Val src = reshape(b, cast_to(b, c.tensor("source"), c.info("self").dtype), {-1});
  TensorInfo info = b.info(flat);
  std::vector<NamedArg> args{{"self", flat},
                             {"indices", Arg::of_list({Arg::of_tensor(idx)})},
                             {"values", src},
                             {"accumulate", Arg::of_bool(c.arg<bool>("accumulate", false))}};
  Val y = c.call("aten::index_put", std::move(args), {info})[0].t();
  c.set_out(0, b.op1("Reshape", {y, shape_of(b, self)}));
}

// index_reduce(self, dim, index, source, reduce, include_self=True): source's slices along dim
// reduced ("prod", "mean", "amax", "amin") into the slices of self that `index` names: a
// scatter_reduce with `index` spread over source's shape.
void aten_index_reduce(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  int64_t r = rank_of(c, "self");
  int64_t dim = norm_axis(c.arg<int64_t>("dim"), r);
  std::vector<int64_t> shape(r, 1);
  shape[dim] = -1;
  Val idx = reshape(b, cast_to(b, c.tensor("index"), DType::Int64), shape);
  idx = b.op1("Expand", {idx, shape_of(b, c.tensor("source"))});
  TensorInfo idx_info = c.info("source");
  idx_info.dtype = DType::Int64;
  b.set_info(idx, idx_info);
  std::vector<NamedArg> args{{"self", c.arg("self")},
                             {"dim", Arg::of_int(dim)},
                             {"index", idx},
                             {"src", c.arg("source")},
                             {"reduce", c.arg("reduce")},
                             {"include_self", c.arg("include_self")}};
  c.set_out(0, c.call("aten::scatter_reduce", std::move(args), {c.out_info(0)}, "two")[0]);
}

// fill_diagonal_(self, fill_value, wrap=False): fill_value on the main diagonal. Every dim of a
// tensor of more than 2 dims has the same size n; its diagonal is the flat positions that are
// multiples of 1 + n + n^2 + ... For a tall matrix [R, C], wrap=True starts the diagonal again
// C + 1 rows further down, as the flat positions that are multiples of C + 1 show.
void aten_fill_diagonal_(ConvertCtx &c) {
  const TensorInfo &info = c.info("self");
  if (info.rank() == 2 && !info.is_static()) {
    // [R, C] known at run time (a [batch, batch] score matrix): the flat positions that are
    // multiples of C + 1, below C * C unless wrap.
    GraphBuilder &b = c.b;
    Val self = c.tensor("self");
    Val rows = dim_scalar(b, self, 0), cols = dim_scalar(b, self, 1);
    Val flat = b.op1("Reshape", {iota(b, b.op1("Mul", {rows, cols})), shape_of(b, self)});
    Val step = b.op1("Add", {cols, b.const_i64_scalar(1)});
    Val mask = op_t(b, DType::Bool, "Equal", {b.op1("Mod", {flat, step}), b.const_i64_scalar(0)});
    if (!c.arg<bool>("wrap", false))
      mask = op_t(b, DType::Bool, "And",
                  {mask, op_t(b, DType::Bool, "Less", {flat, b.op1("Mul", {cols, cols})})});
    DType t = info.dtype;
    c.set_out(0, op_t(b, t, "Where", {mask, as_tensor(b, c.arg("fill_value"), t), self}));
    return;
  }
  std::vector<int64_t> sizes = c.info("self").sizes();
  int64_t r = static_cast<int64_t>(sizes.size());
  T2O_CHECK(r >= 2, "fill_diagonal_ needs at least 2 dims, got {}", r);
  int64_t total = 1, stride = 0, cols = sizes.back();
  for (int64_t i = 0; i < r; ++i) {
    T2O_CHECK(r == 2 || sizes[i] == sizes[0], "fill_diagonal_: all dims must have the same size");
    stride = stride * sizes[0] + 1;
    total *= sizes[i];
  }
  if (r == 2)
    stride = cols + 1;
  bool wrap = c.arg<bool>("wrap", false);
  std::vector<bool> mask(total, false);
  for (int64_t p = 0; p < total; p += stride)
    mask[p] = r > 2 || wrap || p < cols * cols;
  Val m = c.b.constant(TensorData::boolean(mask, sizes));
  DType t = c.info("self").dtype;
  Val v = as_tensor(c.b, c.arg("fill_value"), t);
  c.set_out(0, op_t(c.b, t, "Where", {m, v, c.tensor("self")}));
}

// select_scatter(self, src, dim, index): src fills the slice self.select(dim, index).
void aten_select_scatter(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  DType dt = out_dtype(c);
  int64_t r = rank_of(c, "self");
  int64_t d = norm_axis(c.arg<int64_t>("dim"), r);
  Val self = cast_to(b, c.tensor("self"), dt);
  Val n = dim_scalar(b, self, d);
  Val at = wrap_negative(b, as_tensor(b, c.arg("index"), DType::Int64), n);
  Val hit = on_axis(b, b.op1("Equal", {iota(b, n), at}), d, r);
  Val src = unsqueeze(b, cast_to(b, c.tensor("src"), dt), {d});
  c.set_out(0, b.op1("Where", {hit, src, self}));
}

// slice_scatter(self, src, dim, start, end, step): positions start, start+step, ... < end take
// src's elements in order along dim (src has the slice's shape). Step 1 (every in-place write to
// x[..., a:b]): the part of self before the slice, src, the part after it, one Concat of copies.
// Other steps: a Where over self of src's elements spread along dim.
namespace {

struct SliceBounds {
  Val n, start, end; // 0-d int64; start and end wrapped and clamped to [0, n]
};

SliceBounds slice_bounds(ConvertCtx &c, const Val &self, int64_t d) {
  GraphBuilder &b = c.b;
  SliceBounds s;
  s.n = dim_scalar(b, self, d);
  auto bound = [&](const char *name, bool is_end) {
    if (!c.has(name))
      return is_end ? s.n : b.const_i64_scalar(0);
    // A constant int stays exact: as_tensor goes through double, which turns the INT64_MAX a
    // traced `x[a:]` passes as end into INT64_MIN. Clamped so that wrap_negative cannot overflow.
    const Arg &a = c.arg(name);
    Val v =
        a.kind == Arg::Kind::Int
            ? b.const_i64_scalar(std::clamp<int64_t>(a.i, -(int64_t{1} << 62), int64_t{1} << 62))
            : as_tensor(b, a, DType::Int64);
    v = wrap_negative(b, v, s.n);
    return b.op1("Min", {b.op1("Max", {v, b.const_i64_scalar(0)}), s.n});
  };
  s.start = bound("start", false);
  s.end = bound("end", true);
  return s;
}

// Constant start and end of a dim of static size n, clamped as slice_bounds clamps them (an end
// before the start: an empty slice); nullopt when one of them is known only at run time.
std::optional<std::pair<int64_t, int64_t>> constant_bounds(const ConvertCtx &c, int64_t n) {
  auto read = [&](const char *name, int64_t absent) -> std::optional<int64_t> {
    if (!c.has(name))
      return absent;
    const Arg &a = c.arg(name);
    if (a.kind != Arg::Kind::Int)
      return std::nullopt;
    int64_t v = std::clamp<int64_t>(a.i, -(int64_t{1} << 62), int64_t{1} << 62);
    return std::clamp<int64_t>(v < 0 ? v + n : v, 0, n);
  };
  std::optional<int64_t> s = read("start", 0), e = read("end", n);
  if (!s || !e)
    return std::nullopt;
  return std::make_pair(*s, std::max(*e, *s));
}

Val slice_scatter_step1(ConvertCtx &c, const Val &self, const Val &src, int64_t d) {
  GraphBuilder &b = c.b;
  const TensorInfo &info = c.info("self");
  const Dim &dim = (*info.shape)[static_cast<size_t>(d)];
  auto cut = [&](const Val &from, const Val &to) {
    return b.op1("Slice", {self, from, to, b.const_i64({d})});
  };
  std::vector<Val> parts;
  if (auto k = dim.is_static() ? constant_bounds(c, dim.value) : std::nullopt) {
    if (k->first > 0)
      parts.push_back(cut(b.const_i64({0}), b.const_i64({k->first})));
    parts.push_back(src);
    if (k->second < dim.value)
      parts.push_back(cut(b.const_i64({k->second}), b.const_i64({dim.value})));
  } else {
    SliceBounds s = slice_bounds(c, self, d);
    Val stop = b.op1("Max", {s.end, s.start}); // an end before the start writes nothing
    parts = {cut(b.const_i64({0}), unsqueeze(b, s.start, {0})), src,
             cut(unsqueeze(b, stop, {0}), b.const_i64({INT64_MAX}))};
  }
  return parts.size() == 1 ? parts[0] : b.op1("Concat", parts, {{"axis", d}});
}

} // namespace

void aten_slice_scatter(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  DType dt = out_dtype(c);
  int64_t r = rank_of(c, "self");
  int64_t d = norm_axis(c.arg<int64_t>("dim", 0), r);
  int64_t step = c.arg<int64_t>("step", 1);
  Val self = cast_to(b, c.tensor("self"), dt);
  Val src = cast_to(b, c.tensor("src"), dt);
  if (step == 1) {
    c.set_out(0, slice_scatter_step1(c, self, src, d));
    return;
  }
  SliceBounds s = slice_bounds(c, self, d);
  Val pos = iota(b, s.n);
  Val off = b.op1("Sub", {pos, s.start});
  Val in_range =
      b.op1("And", {b.op1("GreaterOrEqual", {pos, s.start}), b.op1("Less", {pos, s.end})});
  Val on_step =
      b.op1("Equal", {b.op1("Mod", {off, b.const_i64_scalar(step)}), b.const_i64_scalar(0)});
  Val hit = b.op1("And", {in_range, on_step});
  Val last = b.op1("Sub", {dim_scalar(b, src, d), b.const_i64_scalar(1)});
  Val which = b.op1(
      "Min", {b.op1("Max", {b.op1("Div", {off, b.const_i64_scalar(step)}), b.const_i64_scalar(0)}),
              b.op1("Max", {last, b.const_i64_scalar(0)})});
  Val spread = b.op1("Gather", {src, which}, {{"axis", d}});
  c.set_out(0, b.op1("Where", {on_axis(b, hit, d, r), spread, self}));
}

void register_placement_ops(Registry &r) {
  r.add_with_inplace("aten::put", 11, aten_put,
                     {"Reshape", "Cast",   "Shape", "ScatterND", "NonZero",   "Expand", "ReduceSum",
                      "Add",     "Concat", "Equal", "Gather",    "Greater",   "Less",   "Pad",
                      "Range",   "Slice",  "Sub",   "Transpose", "Unsqueeze", "Where",  "Mul"});
  r.add_with_inplace("aten::index_reduce", 11, aten_index_reduce,
                     {"Reshape",   "Cast",    "Expand",    "Shape",      "ScatterElements",
                      "Equal",     "Where",   "ReduceSum", "ReduceProd", "ReduceMax",
                      "ReduceMin", "Pad",     "Add",       "Concat",     "Div",
                      "Gather",    "Greater", "Max",       "Min",        "Mul",
                      "Range",     "Sub",     "Transpose", "Unsqueeze"});
  r.add("aten::fill_diagonal_", 11, aten_fill_diagonal_,
        {"Where", "Cast", "Shape", "Gather", "Mul", "Range", "Reshape", "Add", "Mod", "Equal",
         "Less", "And"});
  r.add("aten::select_scatter", 11, aten_select_scatter,
        {"Equal", "Where", "Add", "Gather", "Less", "Range", "Reshape", "Shape", "Unsqueeze", "And",
         "Or", "Not"}); // bools: Where as And/Or/Not (builder/opset_forms.cpp)
  r.add("aten::slice_scatter", 11, aten_slice_scatter,
        {"Concat", "Slice",   "Gather",         "Where", "Add", "And",      "Div",
         "Equal",  "Greater", "GreaterOrEqual", "Less",  "Max", "Min",      "Mod",
         "Or",     "Range",   "Reshape",        "Shape", "Sub", "Unsqueeze"});
}

} // namespace torch2onnx
