// Small building blocks shared by converter families. Each emits ONNX valid for every opset
// torch2onnx targets (11-21): the builder writes each node in the form of the target opset.
#pragma once

#include "aten_lib/converter.h"

#include <vector>

namespace torch2onnx {

// Wraps a negative axis into [0, rank). Example: norm_axis(-1, 4) == 3.
int64_t norm_axis(int64_t axis, int64_t rank);

// A node whose output dtype is known (recorded so later cast_to calls can be skipped).
// Example: op_t(b, DType::Bool, "Not", {x}).
Val op_t(GraphBuilder &b, DType t, std::string_view op, const std::vector<Val> &inputs,
         const std::vector<Attr> &attrs = {});

// Cast unless already of dtype `to`. The dtype of `v` must be known to the builder.
Val cast_to(GraphBuilder &b, const Val &v, DType to);

// A tensor for an argument that may be a tensor or a constant number: numbers become scalar
// constants of `dtype`; tensors are cast to `dtype`. Example: as_tensor(b, c.arg("other"), t).
Val as_tensor(GraphBuilder &b, const Arg &a, DType dtype);

// Argument `name` (a tensor or a constant number) as a tensor of dtype t.
// Example: operand(c, "other", DType::Float) for the `other` of aten::add.
Val operand(const ConvertCtx &c, std::string_view name, DType t);

// Unsqueeze/Squeeze with axes given as an input (the opset-13 form; the builder makes them an
// attribute below 13).
Val unsqueeze(GraphBuilder &b, const Val &v, const std::vector<int64_t> &axes);
Val squeeze(GraphBuilder &b, const Val &v, const std::vector<int64_t> &axes);
// Reshape to a constant shape (0 copies the input dim, -1 infers).
Val reshape(GraphBuilder &b, const Val &v, const std::vector<int64_t> &shape);

// A per-spatial-dim list argument: torch accepts one value for every dim (conv2d(padding=[1]))
// and None/[] for the default. Example: per_spatial_dim(c.arg("stride"), 2, 1, "stride") == {1, 1}.
std::vector<int64_t> per_spatial_dim(const Arg &a, size_t n, int64_t dflt, const char *what);

// The dtype LibTorch produced for output i; when none was recorded (a non-tensor output), the
// dtype of the first tensor input, else Float.
DType out_dtype(const ConvertCtx &c, size_t i = 0);

// Output i cast to the dtype LibTorch recorded for it (converters often compute in a wider
// dtype). Example: set_result(c, op_t(c.b, DType::Float, "Erf", {x}));
void set_result(ConvertCtx &c, const Val &v, size_t i = 0);

// A 1-D int64 tensor from a list argument whose items may be constants or 0-d/1-element
// tensors (dynamic sizes). Example: the `size` argument of aten::view.
Val int_list_tensor(GraphBuilder &b, const Arg &list);

// Whether a list argument holds sizes known only at run time: it is a tensor, or has one.
// Example: true for the `size` of aten::view(x, [x.size(0), -1]) with a symbolic dim 0.
bool has_runtime_items(const Arg &a);

// The shape of output 0 as a 1-D int64 tensor: the static sizes LibTorch recorded, else the size
// list argument (which may hold runtime sizes). Example: out_shape(c, c.arg("size")) for
// aten::view.
Val out_shape(ConvertCtx &c, const Arg &size);

// ---- shapes --------------------------------------------------------------------------------

// The rank of tensor argument `name`; throws when it is unknown.
// Example: rank_of(c, "input") == 4 for NCHW.
int64_t rank_of(const ConvertCtx &c, std::string_view name);

// The size of dim d of a tensor, which must be a concrete number: ops whose output count or
// constant shape depends on it cannot follow a dynamic size. `what` names the op in the error.
// Example: static_size(c.info("input"), 1, c.op()) == 3 for a [N, 3, H, W] input.
int64_t static_size(const TensorInfo &info, int64_t d, std::string_view what);
// The same for dim d of tensor argument `name`.
// Example: static_dim(c, "input", 1) == 3 for a [N, 3, H, W] input.
int64_t static_dim(const ConvertCtx &c, std::string_view name, int64_t d);

// The runtime shape of x (1-D int64). Example: shape_of(b, x) for Expand's shape input.
Val shape_of(GraphBuilder &b, const Val &x);
// The sizes of dims [from, to) of x as a 1-D int64 tensor. Example: dims_of(b, x, 0, 2) == [N, C].
Val dims_of(GraphBuilder &b, const Val &x, int64_t from, int64_t to);
// The size of dim d of x as a 0-d int64 tensor. Example: dim_scalar(b, x, 1) == C.
Val dim_scalar(GraphBuilder &b, const Val &x, int64_t d);

// ---- small graphs ---------------------------------------------------------------------------

// A 0-d constant of dtype t. Example: scalar(b, DType::Float, 0.5).
Val scalar(GraphBuilder &b, DType t, double v);
// The constant list from, from + 1, ..., to - 1. Example: int_range(2, 4) == {2, 3}.
std::vector<int64_t> int_range(int64_t from, int64_t to);
// 0, 1, ..., n - 1 for a 0-d int64 n (Range). Example: iota(b, dim_scalar(b, x, 0)).
Val iota(GraphBuilder &b, const Val &n);
// A dim size known only at run time remembers which tensor and axis it is the size of (a
// companion), so a converter can tell the input's own size from any other runtime number:
// nn.AdaptiveAvgPool2d((1, None)) traces its None as x.size(-1).
void note_size_of(GraphBuilder &b, const Val &size, const Val &of, int64_t axis);
bool is_size_of(const GraphBuilder &b, const Val &size, const Val &of, int64_t axis);
// Index values below zero count from the end of a dim of size n (0-d int64): idx + n where idx < 0.
Val wrap_negative(GraphBuilder &b, const Val &idx, const Val &n);
// A 1-D tensor reshaped to [1, .., n, .., 1]: on axis d of a rank-r tensor.
Val on_axis(GraphBuilder &b, const Val &v, int64_t d, int64_t r);
// Concat on axis 0, or the only part itself. Example: concat0(b, {dims_of(b, x, 0, 1), tail}).
Val concat0(GraphBuilder &b, const std::vector<Val> &parts);
// Transpose by perm, or x itself when perm is the identity. Example: transpose(b, x, {1, 0}).
Val transpose(GraphBuilder &b, const Val &x, const std::vector<int64_t> &perm);

// Scans along dim d of a rank-r tensor x (cumprod, cummax, logcumsumexp) as a reduction over an
// [n, n] prefix layout: x unsqueezed at d is [..., 1 (i), n (j), ...].
// prefix_mask: [n, n, 1, ...] (one 1 per axis after d), true where j > i (j is not in prefix i);
// prefix_positions: [n, 1, ...], 0 .. n - 1 along j. Constants when dim d's size is static, else
// computed from x's runtime size (Shape, Gather, Range, Greater, Reshape).
Val prefix_mask(GraphBuilder &b, const Val &x, int64_t d, int64_t r);
Val prefix_positions(GraphBuilder &b, const Val &x, int64_t d, int64_t r);

} // namespace torch2onnx
