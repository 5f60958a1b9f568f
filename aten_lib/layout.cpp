// NumPy-style rearrangements built from other converters and a few ONNX ops: hsplit / vsplit /
// dsplit, dstack / row_stack / column_stack, rot90, diag / diag_embed / diagflat / block_diag,
// take_along_dim, cartesian_prod, combinations, argwhere, isin, sum_to_size, fftshift. Sizes that
// decide the output shape must be static (they are, for the models these ops come from).
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"
#include "aten_lib/promotion.h"

#include <numeric>

namespace torch2onnx {

namespace {

// Output 0 of `op`'s converter on `args`, with `info` as its recorded shape.
Val call1(ConvertCtx &c, const std::string &op, std::vector<NamedArg> args, const TensorInfo &info,
          const std::string &overload = "") {
  return c.call(op, std::move(args), {info}, overload)[0].t();
}

Arg int_list(const std::vector<int64_t> &v) {
  std::vector<Arg> items;
  for (int64_t x : v)
    items.push_back(Arg::of_int(x));
  return Arg::of_list(std::move(items));
}

// hsplit / vsplit / dsplit: tensor_split along `dim`; an int count must divide the dim evenly.
void split_on(ConvertCtx &c, int64_t dim, int64_t min_rank) {
  int64_t r = rank_of(c, "self");
  T2O_CHECK(r >= min_rank, "{} needs a tensor of at least {} dims, got {}", c.op(), min_rank, r);
  if (c.takes("sections")) {
    int64_t n = static_dim(c, "self", dim), k = c.arg<int64_t>("sections");
    T2O_CHECK(k > 0 && n % k == 0, "{}: dim {} of size {} does not split into {} equal parts",
              c.op(), dim, n, k);
    std::vector<NamedArg> args{
        {"self", c.arg("self")}, {"sections", c.arg("sections")}, {"dim", Arg::of_int(dim)}};
    c.set_out(0, c.call("aten::tensor_split", std::move(args), {c.out_info(0)}, "sections")[0]);
    return;
  }
  std::vector<NamedArg> args{
      {"self", c.arg("self")}, {"indices", c.arg("indices")}, {"dim", Arg::of_int(dim)}};
  c.set_out(0, c.call("aten::tensor_split", std::move(args), {c.out_info(0)}, "indices")[0]);
}

// Each tensor of the list reshaped by `grow` (its rank -> the new shape), then cat on `dim`.
template <typename Grow> void stack_grown(ConvertCtx &c, int64_t dim, Grow grow) {
  std::vector<Arg> parts;
  for (const Arg &t : c.list("tensors"))
    parts.push_back(Arg::of_tensor(grow(t.t(), c.b.rank(t.t()))));
  c.set_out(0, call1(c, "aten::cat", {{"tensors", Arg::of_list(parts)}, {"dim", Arg::of_int(dim)}},
                     c.out_info(0)));
}

} // namespace

// hsplit(self, sections | indices): along dim 1, or dim 0 of a 1-D tensor.
void aten_hsplit(ConvertCtx &c) {
  split_on(c, rank_of(c, "self") == 1 ? 0 : 1, 1);
}
// vsplit(self, sections | indices): along dim 0 of a tensor of at least 2 dims.
void aten_vsplit(ConvertCtx &c) {
  split_on(c, 0, 2);
}
// dsplit(self, sections | indices): along dim 2 of a tensor of at least 3 dims.
void aten_dsplit(ConvertCtx &c) {
  split_on(c, 2, 3);
}

// dstack(tensors): each made at least 3-D ([N] -> [1, N, 1], [M, N] -> [M, N, 1]), cat on dim 2.
void aten_dstack(ConvertCtx &c) {
  stack_grown(c, 2, [&](const Val &t, int64_t r) {
    if (r == 0)
      return reshape(c.b, t, {1, 1, 1});
    if (r == 1)
      return unsqueeze(c.b, t, {0, 2});
    return r == 2 ? unsqueeze(c.b, t, {2}) : t;
  });
}

// column_stack(tensors): 0-D and 1-D tensors become columns [N, 1], then cat on dim 1.
void aten_column_stack(ConvertCtx &c) {
  stack_grown(c, 1, [&](const Val &t, int64_t r) {
    if (r == 0)
      return reshape(c.b, t, {1, 1});
    return r == 1 ? unsqueeze(c.b, t, {1}) : t;
  });
}

// rot90(self, k=1, dims=[0, 1]): k quarter turns from dims[0] towards dims[1], as LibTorch does
// it: k = 1 flips dims[1] then swaps the dims, k = 2 flips both, k = 3 flips dims[0] then swaps.
void aten_rot90(ConvertCtx &c) {
  int64_t r = rank_of(c, "self");
  std::vector<int64_t> dims = c.ints("dims", {0, 1});
  T2O_CHECK(dims.size() == 2 && r >= 2, "rot90 needs two dims of a tensor of at least 2 dims");
  int64_t d0 = norm_axis(dims[0], r), d1 = norm_axis(dims[1], r);
  T2O_CHECK(d0 != d1, "rot90: the two dims must differ, got {} twice", d0);
  int64_t k = ((c.arg<int64_t>("k", 1) % 4) + 4) % 4;
  Val x = c.tensor("self");
  if (k == 0)
    return c.set_out(0, x);
  std::vector<int64_t> flip = k == 1   ? std::vector<int64_t>{d1}
                              : k == 2 ? std::vector<int64_t>{d0, d1}
                                       : std::vector<int64_t>{d0};
  Val f = call1(c, "aten::flip", {{"self", x}, {"dims", int_list(flip)}}, c.info("self"));
  if (k == 2)
    return c.set_out(0, f);
  std::vector<int64_t> perm(r);
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[d0], perm[d1]);
  c.set_out(0, transpose(c.b, f, perm));
}

namespace {

// v [..., n] as [..., m, m] (m = n + |offset|) with v on diagonal `offset` of the last two dims and
// zeros elsewhere.
Val embed_last(ConvertCtx &c, const Val &v, int64_t offset) {
  GraphBuilder &b = c.b;
  const TensorInfo &info = b.info(v);
  int64_t r = info.rank(), n = static_size(info, r - 1, c.op());
  int64_t a = std::abs(offset), m = n + a;
  Val padded = v;
  if (a > 0) {
    std::vector<int64_t> pads(2 * r, 0);
    pads[2 * r - 1] = a;
    padded = op_t(b, info.dtype, "Pad", {v, b.const_i64(pads)});
  }
  // Row i holds v[i] (offset >= 0); column j holds v[j] (offset < 0).
  Val spread = unsqueeze(b, padded, {offset >= 0 ? r : r - 1});
  Val idx = iota(b, b.const_i64_scalar(m));
  Val diff = op_t(b, DType::Int64, "Sub", {unsqueeze(b, idx, {0}), unsqueeze(b, idx, {1})});
  Val on_diag = op_t(b, DType::Bool, "Equal", {diff, b.const_i64_scalar(offset)});
  return op_t(b, info.dtype, "Where", {on_diag, spread, scalar(b, info.dtype, 0)});
}

// The last two dims of x (rank R) moved to positions d1 and d2.
Val place_last_two(GraphBuilder &b, const Val &x, int64_t R, int64_t d1, int64_t d2) {
  std::vector<int64_t> perm(R);
  int64_t next = 0;
  for (int64_t p = 0; p < R; ++p)
    perm[p] = p == d1 ? R - 2 : p == d2 ? R - 1 : next++;
  return transpose(b, x, perm);
}

} // namespace

// diag_embed(self, offset=0, dim1=-2, dim2=-1): the last dim of self as diagonal `offset` of two
// new dims placed at dim1 and dim2 of the result.
void aten_diag_embed(ConvertCtx &c) {
  int64_t R = rank_of(c, "self") + 1;
  int64_t d1 = norm_axis(c.arg<int64_t>("dim1", -2), R);
  int64_t d2 = norm_axis(c.arg<int64_t>("dim2", -1), R);
  T2O_CHECK(d1 != d2, "diag_embed: dim1 and dim2 are both {}", d1);
  Val m = embed_last(c, c.tensor("self"), c.arg<int64_t>("offset", 0));
  c.set_out(0, place_last_two(c.b, m, R, d1, d2));
}

// diag(self, diagonal=0): a 1-D self becomes a matrix with self on that diagonal; a 2-D self gives
// that diagonal.
void aten_diag(ConvertCtx &c) {
  int64_t r = rank_of(c, "self");
  int64_t k = c.arg<int64_t>("diagonal", 0);
  T2O_CHECK(r == 1 || r == 2, "diag needs a 1-D or 2-D tensor, got {} dims", r);
  if (r == 1)
    return c.set_out(0, embed_last(c, c.tensor("self"), k));
  std::vector<NamedArg> args{{"self", c.arg("self")},
                             {"offset", Arg::of_int(k)},
                             {"dim1", Arg::of_int(0)},
                             {"dim2", Arg::of_int(1)}};
  c.set_out(0, call1(c, "aten::diagonal", std::move(args), c.out_info(0)));
}

// diagflat(self, offset=0): self flattened, on diagonal `offset` of a matrix.
void aten_diagflat(ConvertCtx &c) {
  Val flat = reshape(c.b, c.tensor("self"), {-1});
  c.set_out(0, embed_last(c, flat, c.arg<int64_t>("offset", 0)));
}

// block_diag(tensors): the tensors (0-D -> [1, 1], 1-D -> [1, N]) as blocks on the diagonal of a
// zero matrix: each block padded left and right to the full width, the rows concatenated.
void aten_block_diag(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  DType t = out_dtype(c);
  std::vector<Val> blocks;
  std::vector<int64_t> widths;
  for (const Arg &a : c.list("tensors")) {
    Val v = cast_to(b, a.t(), t);
    int64_t r = b.rank(v);
    T2O_CHECK(r <= 2, "block_diag takes tensors of at most 2 dims, got {}", r);
    widths.push_back(r == 0 ? 1 : static_size(b.info(a.t()), r - 1, c.op()));
    blocks.push_back(r < 2 ? reshape(b, v, {1, widths.back()}) : v);
  }
  int64_t total = std::accumulate(widths.begin(), widths.end(), int64_t{0}), left = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    std::vector<int64_t> pads{0, left, 0, total - left - widths[i]};
    blocks[i] = op_t(b, t, "Pad", {blocks[i], b.const_i64(pads)});
    left += widths[i];
  }
  c.set_out(0, blocks.size() == 1 ? blocks[0] : op_t(b, t, "Concat", blocks, {{"axis", 0}}));
}

// take_along_dim(self, indices, dim=None): gather along dim with self and indices broadcast
// against each other in the other dims; without dim, on both flattened.
void aten_take_along_dim(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  Val x = c.tensor("self"), idx = cast_to(b, c.tensor("indices"), DType::Int64);
  if (!c.has("dim")) {
    Val g = b.op1("GatherElements", {reshape(b, x, {-1}), reshape(b, idx, {-1})}, {{"axis", 0}});
    return c.set_out(0, g);
  }
  std::vector<int64_t> xs = c.info("self").sizes(), is = c.info("indices").sizes();
  T2O_CHECK(xs.size() == is.size(), "take_along_dim: self has {} dims, indices {}", xs.size(),
            is.size());
  int64_t d = norm_axis(c.arg<int64_t>("dim"), static_cast<int64_t>(xs.size()));
  std::vector<int64_t> xt = xs, it = is;
  for (size_t i = 0; i < xs.size(); ++i)
    if (static_cast<int64_t>(i) != d)
      xt[i] = it[i] = std::max(xs[i], is[i]);
  if (xt != xs)
    x = b.op1("Expand", {x, b.const_i64(xt)});
  if (it != is)
    idx = b.op1("Expand", {idx, b.const_i64(it)});
  c.set_out(0, b.op1("GatherElements", {x, idx}, {{"axis", d}}));
}

// cartesian_prod(tensors): rows of every combination of the 1-D tensors' items, the last varying
// fastest (itertools.product); one tensor is returned as it is.
void aten_cartesian_prod(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  const auto &items = c.list("tensors");
  if (items.size() == 1)
    return c.set_out(0, items[0].t());
  std::vector<int64_t> sizes;
  for (const Arg &a : items)
    sizes.push_back(static_size(b.info(a.t()), 0, c.op()));
  std::vector<Val> cols;
  for (size_t i = 0; i < items.size(); ++i) {
    std::vector<int64_t> shape(items.size(), 1);
    shape[i] = sizes[i];
    Val grid = b.op1("Expand", {reshape(b, items[i].t(), shape), b.const_i64(sizes)});
    cols.push_back(reshape(b, grid, {-1, 1}));
  }
  c.set_out(0, b.op1("Concat", cols, {{"axis", 1}}));
}

// combinations(self, r=2, with_replacement=False): the r-item combinations of a 1-D tensor's items
// in lexicographic order of their positions, as rows (a Gather of indices listed at export time).
void aten_combinations(ConvertCtx &c) {
  int64_t n = static_dim(c, "self", 0), r = c.arg<int64_t>("r", 2);
  bool repl = c.arg<bool>("with_replacement", false);
  T2O_CHECK(r >= 0, "combinations: r must be non-negative, got {}", r);
  std::vector<int64_t> flat, pick(r, 0);
  // Odometer over non-decreasing (with replacement) or increasing index tuples.
  for (int64_t i = 0; i < r; ++i)
    pick[i] = repl ? 0 : i;
  while (r > 0 && pick[r - 1] < n) {
    flat.insert(flat.end(), pick.begin(), pick.end());
    int64_t i = r - 1;
    while (i >= 0 && pick[i] >= n - 1 - (repl ? 0 : r - 1 - i))
      --i;
    if (i < 0)
      break;
    ++pick[i];
    for (int64_t j = i + 1; j < r; ++j)
      pick[j] = repl ? pick[i] : pick[j - 1] + 1;
  }
  int64_t rows = r > 0 ? static_cast<int64_t>(flat.size()) / r : 0;
  T2O_CHECK(rows > 0,
            "combinations of {} items taken {} at a time is empty, which is not supported", n, r);
  Val idx = c.b.constant(TensorData::i64(flat, {rows, r}));
  c.set_out(0, c.b.op1("Gather", {c.tensor("self"), idx}, {{"axis", 0}}));
}

// isin(elements, test_elements, assume_unique, invert): whether each element equals some test
// element (one Equal against all of them, then any).
void aten_isin(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  // The overloads name the operands by kind: elements / element, test_elements / test_element.
  std::string_view en = c.takes("elements") ? "elements" : "element";
  std::string_view tn = c.takes("test_elements") ? "test_elements" : "test_element";
  DType k = kernel_type(result_type(c, {en, tn}));
  Val e = operand(c, en, k), t = operand(c, tn, k);
  Val hit;
  if (!c.arg(tn).is_tensor() || b.rank(t) == 0) {
    hit = op_t(b, DType::Bool, "Equal", {e, t});
  } else {
    Val eq = op_t(b, DType::Bool, "Equal", {unsqueeze(b, e, {-1}), reshape(b, t, {-1})});
    Val n = op_t(b, DType::Int32, "ReduceMax", {cast_to(b, eq, DType::Int32)},
                 {{"axes", std::vector<int64_t>{-1}}, {"keepdims", 0}});
    hit = cast_to(b, n, DType::Bool);
  }
  c.set_out(0, c.arg<bool>("invert", false) ? op_t(b, DType::Bool, "Not", {hit}) : hit);
}

// sum_to_size(self, size): sums the leading dims self has beyond `size` and the dims where size
// is 1, giving a tensor of shape `size` (the reverse of broadcasting).
void aten_sum_to_size(ConvertCtx &c) {
  std::vector<int64_t> size = c.ints("size"), xs = c.info("self").sizes();
  int64_t lead = static_cast<int64_t>(xs.size()) - static_cast<int64_t>(size.size());
  T2O_CHECK(lead >= 0, "sum_to_size: size {} has more dims than self", size.size());
  std::vector<int64_t> axes;
  for (int64_t i = 0; i < static_cast<int64_t>(xs.size()); ++i)
    if (i < lead || (size[i - lead] == 1 && xs[i] != 1))
      axes.push_back(i);
  if (axes.empty())
    return c.set_out(0, c.tensor("self"));
  Val s = c.b.op1("ReduceSum", {c.tensor("self"), c.b.const_i64(axes)}, {{"keepdims", 1}});
  c.set_out(0, c.b.op1("Reshape", {s, c.b.const_i64(size)}));
}

namespace {

// fftshift / ifftshift: roll each dim (all when dim is None) by n / 2 (ifftshift: back).
void fft_shift(ConvertCtx &c, bool inverse) {
  int64_t r = rank_of(c, "self");
  std::vector<int64_t> dims = c.ints("dim", int_range(0, r)), shifts;
  for (int64_t &d : dims) {
    d = norm_axis(d, r);
    int64_t n = static_dim(c, "self", d);
    shifts.push_back(inverse ? -(n / 2) : n / 2);
  }
  std::vector<NamedArg> args{
      {"self", c.arg("self")}, {"shifts", int_list(shifts)}, {"dims", int_list(dims)}};
  c.set_out(0, call1(c, "aten::roll", std::move(args), c.out_info(0)));
}

} // namespace

void aten_fft_fftshift(ConvertCtx &c) {
  fft_shift(c, false);
}
void aten_fft_ifftshift(ConvertCtx &c) {
  fft_shift(c, true);
}

// pad_sequence(sequences, batch_first=False, padding_value=0.0): the [L_i, *] sequences padded at
// the end of dim 0 to the longest, stacked on dim 1 ([L, B, *]) or dim 0 (batch_first).
void aten_pad_sequence(ConvertCtx &c) {
  GraphBuilder &b = c.b;
  DType t = out_dtype(c);
  const auto &seqs = c.list("sequences");
  int64_t longest = 0;
  for (const Arg &s : seqs)
    longest = std::max(longest, static_size(b.info(s.t()), 0, c.op()));
  Val fill = scalar(b, t, c.arg<double>("padding_value", 0.0));
  int64_t axis = c.arg<bool>("batch_first", false) ? 0 : 1;
  std::vector<Val> parts;
  for (const Arg &s : seqs) {
    int64_t r = b.rank(s.t()), n = static_size(b.info(s.t()), 0, c.op());
    Val v = cast_to(b, s.t(), t);
    if (n < longest) {
      std::vector<int64_t> pads(2 * r, 0);
      pads[r] = longest - n;
      v = op_t(b, t, "Pad", {v, b.const_i64(pads), fill});
    }
    parts.push_back(unsqueeze(b, v, {axis}));
  }
  c.set_out(0, parts.size() == 1 ? parts[0] : op_t(b, t, "Concat", parts, {{"axis", axis}}));
}

void register_layout_ops(Registry &r) {
  const std::vector<std::string> split_ops{"Split"};
  r.add("aten::hsplit", 11, aten_hsplit, split_ops);
  r.add("aten::vsplit", 11, aten_vsplit, split_ops);
  r.add("aten::dsplit", 11, aten_dsplit, split_ops);
  r.add("aten::dstack", 11, aten_dstack, {"Reshape", "Unsqueeze", "Concat", "Cast"});
  r.add("aten::column_stack", 11, aten_column_stack, {"Reshape", "Unsqueeze", "Concat", "Cast"});
  r.add("aten::rot90", 11, aten_rot90, {"Slice", "Transpose"});
  const std::vector<std::string> embed_ops{"Pad",   "Unsqueeze", "Range",    "Sub",
                                           "Equal", "Where",     "Transpose"};
  r.add("aten::diag_embed", 11, aten_diag_embed, embed_ops);
  std::vector<std::string> diag_ops = embed_ops;
  diag_ops.insert(diag_ops.end(), {"Reshape", "Gather"});
  r.add("aten::diag", 11, aten_diag, diag_ops);
  r.add("aten::diagflat", 11, aten_diagflat, diag_ops);
  r.add("aten::block_diag", 11, aten_block_diag, {"Cast", "Reshape", "Pad", "Concat"});
  r.add("aten::take_along_dim", 11, aten_take_along_dim,
        {"Cast", "Reshape", "Expand", "GatherElements"});
  r.add("aten::cartesian_prod", 11, aten_cartesian_prod, {"Reshape", "Expand", "Concat"});
  r.add("aten::combinations", 11, aten_combinations, {"Gather"});
  r.add("aten::isin", 11, aten_isin, {"Cast", "Equal", "Unsqueeze", "Reshape", "ReduceMax", "Not"});
  r.add("aten::sum_to_size", 11, aten_sum_to_size, {"ReduceSum", "Reshape"});
  r.add("aten::fft_fftshift", 11, aten_fft_fftshift, {"Slice", "Concat", "Reshape", "Shape"});
  r.add("aten::fft_ifftshift", 11, aten_fft_ifftshift, {"Slice", "Concat", "Reshape", "Shape"});
  r.add("aten::pad_sequence", 11, aten_pad_sequence, {"Cast", "Pad", "Unsqueeze", "Concat"});
}

} // namespace torch2onnx
