// Building blocks for converters of complex tensors. ONNX has no complex type, so torch2onnx
// carries a complex tensor of shape S as a real tensor of shape [S..., 2] holding (real,
// imaginary), flagged TensorInfo::complex (docs/complex.md). The dispatcher calls an op's
// complex_fn (Registry::add_complex) whenever a complex value goes in or comes out.
#pragma once

#include "aten_lib/converter.h"

#include <vector>

namespace torch2onnx {

// Whether argument `name` is a complex tensor (carried as real [..., 2]).
// Example: if (is_complex(c, "self")) ...
bool is_complex(const ConvertCtx &c, std::string_view name);

// The dtype of the parts of complex output i: f32 for complex64, f64 for complex128 (f32 when
// nothing was recorded).
DType complex_part_dtype(const ConvertCtx &c, size_t i = 0);

// A dim of a complex tensor as the dim of its carried form: negative dims count from the end,
// where the (real, imaginary) pair adds one. Example: carried_dim(-1) == -2, carried_dim(1) == 1.
int64_t carried_dim(int64_t d);

// The real (part 0) or imaginary (part 1) part of a carried complex value, without the pair dim.
// Example: complex_part(b, z, DType::Float, 1) is z.imag.
Val complex_part(GraphBuilder &b, const Val &z, DType k, int64_t part);

// re + i * im for two real tensors of the same shape: Concat of [..., 1] slices.
Val make_complex(GraphBuilder &b, DType k, const Val &re, const Val &im);

// A real tensor of rank `rank` as the complex value with it as part `part` (0: real, 1: imaginary)
// and zero as the other part: Pad of [..., 1]. Keeps its shape, so it broadcasts like the real one.
Val lift_to_complex(GraphBuilder &b, DType k, const Val &x, int64_t rank, int64_t part = 0);

// Sets complex output i to the carried value z (flagged complex, cast to the part dtype).
// z must be a value this converter made (an Identity for a pass-through), since its info changes.
void set_complex_out(ConvertCtx &c, const Val &z, size_t i = 0);

// Runs the real converter of c's op (not its complex lowering) on `args` (c's arguments, some
// adjusted); its results become c's outputs, complex ones flagged so. For complex ops that are
// the real op on the carried form with adjusted arguments (view, slice, permute, ...).
void on_carried_form(ConvertCtx &c, std::vector<NamedArg> args);

} // namespace torch2onnx
