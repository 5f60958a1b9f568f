// PackedSequence helpers (aten_lib/rnn.cpp), shared by the float and the dynamically quantized
// recurrent ops. A PackedSequence is `data` [N, *] (the valid steps, time-major: step 0 of every
// sequence, then step 1 of those longer than 1, ...) and `batch_sizes` [T] (how many sequences are
// longer than t), sequences sorted by decreasing length.
#pragma once

#include "aten_lib/converter.h"

#include <optional>

namespace torch2onnx {

// valid[t, b] = t < lengths[b]: bool [steps, B] for a 0-d `steps` and lengths [B].
Val step_mask(GraphBuilder &b, const Val &steps, const Val &lengths);

// The valid rows of a time-major x [T, B, *rest] in packed order: [N, *rest].
Val pack_steps(GraphBuilder &b, const Val &x, const Val &mask);

// Each sequence's length from batch_sizes: lengths[b] = #{t : batch_sizes[t] > b}, int64 [B].
Val lengths_from_batch_sizes(GraphBuilder &b, const Val &batch_sizes);

struct Unpacked {
  Val padded;  // [steps, B, *rest]
  Val lengths; // int64 [B]
  Val mask;    // bool [steps, B]
};

// The padded time-major tensor packed `data` was made from, noted beside it (its companions) by
// pack_padded_sequence or a recurrent op: `padded` [S, B, *rest] (S >= the longest length; the
// steps past a sequence's end hold anything), `mask` [S, B], `lengths`. note_padded_source notes
// it (`dtype`, `rank`: the padded tensor's); padded_source finds it when `data` is that value and
// `batch_sizes` the one it was packed with (nullopt otherwise: any op on packed data makes a value
// without it).
void note_padded_source(GraphBuilder &b, const Val &data, const Val &batch_sizes,
                        const Unpacked &src, DType dtype, int64_t rank);
std::optional<Unpacked> padded_source(const GraphBuilder &b, const Val &data,
                                      const Val &batch_sizes);

// Packed data [N, *rest] back to a padded time-major tensor of `steps` (0-d int64, at least
// len(batch_sizes)) steps, `pad` where a sequence has ended (from its padded source when known).
Unpacked unpack_sequence(GraphBuilder &b, const Val &data, const Val &batch_sizes, const Val &steps,
                         double pad);

} // namespace torch2onnx
