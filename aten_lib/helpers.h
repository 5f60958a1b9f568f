// Small building blocks shared by converter families. Each emits ONNX valid for every opset
// torch2onnx targets (13+).
#pragma once

#include <vector>

#include "aten_lib/converter.h"

namespace torch2onnx {

// Wraps a negative axis into [0, rank). Example: norm_axis(-1, 4) == 3.
int64_t norm_axis(int64_t axis, int64_t rank);

// A node whose output dtype is known (recorded so later cast_to calls can be skipped).
// Example: op_t(b, DType::Bool, "Not", {x}).
Val op_t(GraphBuilder& b, DType t, std::string_view op, const std::vector<Val>& inputs,
         const std::vector<Attr>& attrs = {});

// Cast unless already of dtype `to`. The dtype of `v` must be known to the builder.
Val cast_to(GraphBuilder& b, const Val& v, DType to);

// A tensor for an argument that may be a tensor or a constant number: numbers become scalar
// constants of `dtype`; tensors are cast to `dtype`. Example: as_tensor(b, c.in(1), DType::Float).
Val as_tensor(GraphBuilder& b, const Arg& a, DType dtype);

// Unsqueeze/Squeeze with axes given as an input (opset 13 form).
Val unsqueeze(GraphBuilder& b, const Val& v, const std::vector<int64_t>& axes);
Val squeeze(GraphBuilder& b, const Val& v, const std::vector<int64_t>& axes);
// Reshape to a constant shape (0 copies the input dim, -1 infers).
Val reshape(GraphBuilder& b, const Val& v, const std::vector<int64_t>& shape);

// A per-spatial-dim list argument: torch accepts one value for every dim (conv2d(padding=[1]))
// and None/[] for the default. Example: per_spatial_dim(c.in(3), 2, 1, "stride") == {1, 1}.
std::vector<int64_t> per_spatial_dim(const Arg& a, size_t n, int64_t dflt, const char* what);

// The dtype LibTorch produced for output i, falling back to input `fallback`'s dtype.
DType out_dtype(const ConvertCtx& c, size_t i = 0);

// A 1-D int64 tensor from a list argument whose items may be constants or 0-d/1-element
// tensors (dynamic sizes). Example: the `size` argument of aten::view.
Val int_list_tensor(GraphBuilder& b, const Arg& list);

}  // namespace torch2onnx
