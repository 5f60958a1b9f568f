#include "aten_lib/helpers.h"

#include <algorithm>

namespace torch2onnx {

int64_t norm_axis(int64_t axis, int64_t rank) {
  int64_t r = rank == 0 ? 1 : rank; // torch accepts dim 0 / -1 on scalars
  T2O_CHECK(axis >= -r && axis < r, "dimension {} is out of range for a tensor of rank {}", axis,
            rank);
  return axis < 0 ? axis + r : axis;
}

Val op_t(GraphBuilder &b, DType t, std::string_view op, const std::vector<Val> &inputs,
         const std::vector<Attr> &attrs) {
  Val v = b.op1(op, inputs, attrs);
  TensorInfo info;
  info.dtype = t;
  b.set_info(v, info);
  return v;
}

Val cast_to(GraphBuilder &b, const Val &v, DType to) {
  if (b.has_info(v) && b.dtype(v) == to)
    return v;
  Val out = b.op1("Cast", {v}, {{"to", static_cast<int64_t>(to)}});
  TensorInfo info;
  if (b.has_info(v))
    info = b.info(v);
  info.dtype = to;
  b.set_info(out, info);
  return out;
}

Val as_tensor(GraphBuilder &b, const Arg &a, DType dtype) {
  if (a.is_tensor())
    return cast_to(b, a.t(), dtype);
  return b.const_scalar(dtype, a.to_double());
}

Val operand(const ConvertCtx &c, std::string_view name, DType t) {
  return as_tensor(c.b, c.arg(name), t);
}

Val unsqueeze(GraphBuilder &b, const Val &v, const std::vector<int64_t> &axes) {
  Val out = b.op1("Unsqueeze", {v, b.const_i64(axes)});
  if (b.has_info(v) && b.info(v).shape) {
    TensorInfo info = b.info(v);
    auto shape = *info.shape;
    std::vector<int64_t> sorted = axes;
    int64_t out_rank = static_cast<int64_t>(shape.size() + axes.size());
    for (auto &a : sorted)
      a = a < 0 ? a + out_rank : a;
    std::sort(sorted.begin(), sorted.end());
    for (auto a : sorted)
      shape.insert(shape.begin() + a, Dim::known(1));
    info.shape = shape;
    b.set_info(out, info);
  }
  return out;
}

Val squeeze(GraphBuilder &b, const Val &v, const std::vector<int64_t> &axes) {
  Val out = b.op1("Squeeze", {v, b.const_i64(axes)});
  if (b.has_info(v) && b.info(v).shape) {
    TensorInfo info = b.info(v);
    std::vector<Dim> shape;
    int64_t r = info.rank();
    for (int64_t i = 0; i < r; ++i) {
      bool drop = false;
      for (auto a : axes)
        drop = drop || norm_axis(a, r) == i;
      if (!drop)
        shape.push_back((*info.shape)[i]);
    }
    info.shape = shape;
    b.set_info(out, info);
  }
  return out;
}

Val reshape(GraphBuilder &b, const Val &v, const std::vector<int64_t> &shape) {
  Val out = b.op1("Reshape", {v, b.const_i64(shape)});
  if (b.has_info(v)) {
    TensorInfo info;
    info.dtype = b.dtype(v);
    const TensorInfo &in = b.info(v);
    bool all_known = true;
    for (auto s : shape)
      all_known = all_known && s > 0;
    if (all_known || (in.is_static() && shape.size() > 0)) {
      std::vector<Dim> dims;
      int64_t known = 1, infer = -1;
      for (size_t i = 0; i < shape.size(); ++i) {
        int64_t s = shape[i];
        if (s == 0 && in.shape && i < in.shape->size())
          s = (*in.shape)[i].value;
        if (s < 0)
          infer = static_cast<int64_t>(i);
        else
          known *= s;
        dims.push_back(Dim::known(s));
      }
      if (infer >= 0 && in.is_static()) {
        int64_t total = 1;
        for (auto d : in.sizes())
          total *= d;
        dims[infer] = Dim::known(known == 0 ? 0 : total / known);
      }
      info.shape = dims;
    }
    b.set_info(out, info);
  }
  return out;
}

std::vector<int64_t> per_spatial_dim(const Arg &a, size_t n, int64_t dflt, const char *what) {
  std::vector<int64_t> v = a.is_none() ? std::vector<int64_t>{} : a.to_ints();
  if (v.empty())
    return std::vector<int64_t>(n, dflt);
  if (v.size() == 1)
    return std::vector<int64_t>(n, v[0]);
  T2O_CHECK(v.size() == n, "{} has {} values for {} spatial dims", what, v.size(), n);
  return v;
}

DType out_dtype(const ConvertCtx &c, size_t i) {
  DType t = c.out_info(i).dtype;
  if (t != DType::Undefined)
    return t;
  for (const Arg &a : c.args())
    if (a.is_tensor())
      return c.b.dtype(a.t());
  return DType::Float;
}

void set_result(ConvertCtx &c, const Val &v, size_t i) {
  c.set_out(i, cast_to(c.b, v, out_dtype(c, i)));
}

Val out_shape(ConvertCtx &c, const Arg &size) {
  if (c.out_info(0).is_static())
    return c.b.const_i64(c.out_info(0).sizes());
  return int_list_tensor(c.b, size);
}

bool has_runtime_items(const Arg &a) {
  if (a.is_tensor())
    return true;
  return a.is_list() &&
         std::any_of(a.items.begin(), a.items.end(), [](const Arg &it) { return it.is_tensor(); });
}

Val int_list_tensor(GraphBuilder &b, const Arg &list) {
  if (!list.is_list()) {
    if (list.is_tensor())
      return cast_to(b, list.t(), DType::Int64);
    return b.const_i64(list.to_ints());
  }
  if (!has_runtime_items(list))
    return b.const_i64(list.to_ints());
  std::vector<Val> parts;
  for (const auto &it : list.items) {
    if (it.is_tensor()) {
      Val v = cast_to(b, it.t(), DType::Int64);
      parts.push_back(reshape(b, v, {1}));
    } else {
      parts.push_back(b.const_i64({it.to_int()}));
    }
  }
  return b.op1("Concat", parts, {{"axis", int64_t{0}}});
}

int64_t rank_of(const ConvertCtx &c, std::string_view name) {
  int64_t r = c.info(name).rank();
  T2O_CHECK(r >= 0, "{} needs the rank of {}, which is unknown", c.op(), name);
  return r;
}

int64_t static_size(const TensorInfo &info, int64_t d, std::string_view what) {
  T2O_CHECK(info.shape && d >= 0 && d < info.rank() && (*info.shape)[d].is_static(),
            "{} needs a static size for dimension {}, got shape {}", what, d, info.str());
  return (*info.shape)[d].value;
}

int64_t static_dim(const ConvertCtx &c, std::string_view name, int64_t d) {
  return static_size(c.info(name), d, c.op());
}

Val shape_of(GraphBuilder &b, const Val &x) {
  return b.op1("Shape", {x});
}

Val dims_of(GraphBuilder &b, const Val &x, int64_t from, int64_t to) {
  return b.op1("Slice", {shape_of(b, x), b.const_i64({from}), b.const_i64({to})});
}

Val dim_scalar(GraphBuilder &b, const Val &x, int64_t d) {
  return b.op1("Gather", {shape_of(b, x), b.const_i64_scalar(d)}, {{"axis", int64_t{0}}});
}

Val scalar(GraphBuilder &b, DType t, double v) {
  return b.const_scalar(t, v);
}

std::vector<int64_t> int_range(int64_t from, int64_t to) {
  std::vector<int64_t> out;
  for (int64_t i = from; i < to; ++i)
    out.push_back(i);
  return out;
}

Val iota(GraphBuilder &b, const Val &n) {
  return b.op1("Range", {b.const_i64_scalar(0), n, b.const_i64_scalar(1)});
}

Val concat0(GraphBuilder &b, const std::vector<Val> &parts) {
  return parts.size() == 1 ? parts[0] : b.op1("Concat", parts, {{"axis", int64_t{0}}});
}

Val transpose(GraphBuilder &b, const Val &x, const std::vector<int64_t> &perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i))
      return b.op1("Transpose", {x}, {{"perm", perm}});
  return x;
}

void note_size_of(GraphBuilder &b, const Val &size, const Val &of, int64_t axis) {
  b.set_companion(size, fmt::format("size of axis {}", axis), of);
}

bool is_size_of(const GraphBuilder &b, const Val &size, const Val &of, int64_t axis) {
  return of.valid() && b.companion(size, fmt::format("size of axis {}", axis)) == of;
}

// Index values below zero count from the end of a dim of size n (0-d int64).
Val wrap_negative(GraphBuilder &b, const Val &idx, const Val &n) {
  Val neg = b.op1("Less", {idx, b.const_i64_scalar(0)});
  return b.op1("Where", {neg, b.op1("Add", {idx, n}), idx});
}

// Shape [1, .., n, .., 1] that puts a 1-D tensor on axis d of a rank-r tensor.
Val on_axis(GraphBuilder &b, const Val &v, int64_t d, int64_t r) {
  std::vector<int64_t> shape(r, 1);
  shape[d] = -1;
  return reshape(b, v, shape);
}

namespace {
// The static size of dim d of x, -1 when known only at run time.
int64_t static_size_or_unknown(const GraphBuilder &b, const Val &x, int64_t d) {
  const TensorInfo &info = b.info(x);
  if (!info.shape || d >= static_cast<int64_t>(info.shape->size()))
    return -1;
  const Dim &dim = (*info.shape)[static_cast<size_t>(d)];
  return dim.is_static() ? dim.value : -1;
}

// `shape` followed by r - d - 1 ones.
std::vector<int64_t> with_trailing_ones(std::vector<int64_t> shape, int64_t d, int64_t r) {
  for (int64_t a = d + 1; a < r; ++a)
    shape.push_back(1);
  return shape;
}
} // namespace

Val prefix_mask(GraphBuilder &b, const Val &x, int64_t d, int64_t r) {
  int64_t n = static_size_or_unknown(b, x, d);
  if (n >= 0) {
    std::vector<bool> mask(static_cast<size_t>(n * n));
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        mask[static_cast<size_t>(i * n + j)] = j > i;
    return b.constant(TensorData::boolean(mask, with_trailing_ones({n, n}, d, r)), "prefix_mask");
  }
  Val pos = iota(b, dim_scalar(b, x, d));
  Val mask = b.op1("Greater", {unsqueeze(b, pos, {0}), unsqueeze(b, pos, {1})});
  return reshape(b, mask, with_trailing_ones({0, 0}, d, r));
}

Val prefix_positions(GraphBuilder &b, const Val &x, int64_t d, int64_t r) {
  int64_t n = static_size_or_unknown(b, x, d);
  if (n >= 0)
    return b.constant(TensorData::i64(int_range(0, n), with_trailing_ones({n}, d, r)), "positions");
  return reshape(b, iota(b, dim_scalar(b, x, d)), with_trailing_ones({-1}, d, r));
}

} // namespace torch2onnx
