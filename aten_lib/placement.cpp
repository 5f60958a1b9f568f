// Ops that write values at positions, as forms of the indexing family's scatters: put (flat
// positions), index_reduce (a scatter_reduce along one dim), fill_diagonal_ (a Where on a mask made
// at export time).
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

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
  r.add("aten::fill_diagonal_", 11, aten_fill_diagonal_, {"Where", "Cast"});
}

} // namespace torch2onnx
