// Recurrent layers: aten::lstm / gru / rnn_tanh / rnn_relu (what nn.LSTM, nn.GRU and nn.RNN
// trace to, on padded or packed sequences) and their single-step cells, each as one ONNX
// LSTM/GRU/RNN node per layer; and the packed-sequence ops pack_padded_sequence and
// pad_packed_sequence call.
//
// PyTorch stacks the gate blocks of its weights as LSTM (i, f, g, o) and GRU (r, z, n); ONNX
// wants LSTM (i, o, f, c) and GRU (z, r, h), so the blocks are reordered. PyTorch's GRU applies
// the reset gate after the hidden matmul, which is ONNX's linear_before_reset=1.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"
#include "aten_lib/packed_sequence.h"
#include "aten_lib/rnn_loop.h"

#include <cstdint>
#include <string>

namespace torch2onnx {

namespace {

enum class Cell { Lstm, Gru, RnnTanh, RnnRelu };

const char *onnx_op(Cell k) {
  return k == Cell::Lstm ? "LSTM" : k == Cell::Gru ? "GRU" : "RNN";
}

int gates(Cell k) {
  return k == Cell::Lstm ? 4 : k == Cell::Gru ? 3 : 1;
}

// ONNX gate order as indices into PyTorch's gate blocks.
std::vector<int> gate_order(Cell k) {
  if (k == Cell::Lstm)
    return {0, 3, 1, 2};
  if (k == Cell::Gru)
    return {1, 0, 2};
  return {0};
}

// The weights of one direction of one layer.
struct DirWeights {
  Val w_ih, w_hh, b_ih, b_hh; // biases may be invalid (has_biases=false)
};

Val f32(GraphBuilder &b, const Val &v) {
  return cast_to(b, v, DType::Float);
}

// [G*H, ...] with PyTorch's gate blocks -> ONNX order, with a leading direction axis of 1.
Val reorder(GraphBuilder &b, Cell k, const Val &w) {
  Val x = f32(b, w);
  int g = gates(k);
  if (g > 1) {
    auto parts = b.op("Split", {x}, {{"axis", int64_t{0}}}, g);
    std::vector<Val> ordered;
    for (int i : gate_order(k))
      ordered.push_back(parts[i]);
    x = b.op1("Concat", ordered, {{"axis", int64_t{0}}});
  }
  return b.op1("Unsqueeze", {x, b.const_i64({0})});
}

struct LayerOut {
  Val y;        // [T, B, D*H]
  Val y_h, y_c; // [D, B, H]
};

// One ONNX recurrent node over x [T, B, I] for 1 or 2 directions.
LayerOut run_layer(GraphBuilder &b, Cell k, const Val &x, const std::vector<DirWeights> &dirs,
                   int64_t hidden, const Val &h0, const Val &c0, const Val &seq_lens = Val{}) {
  std::vector<Val> ws, rs, bs;
  bool has_bias = dirs[0].b_ih.valid();
  for (const auto &d : dirs) {
    ws.push_back(reorder(b, k, d.w_ih));
    rs.push_back(reorder(b, k, d.w_hh));
    if (has_bias)
      bs.push_back(
          b.op1("Concat", {reorder(b, k, d.b_ih), reorder(b, k, d.b_hh)}, {{"axis", int64_t{1}}}));
  }
  int64_t nd = static_cast<int64_t>(dirs.size());
  std::vector<Val> inputs = {f32(b, x),      concat0(b, ws),
                             concat0(b, rs), has_bias ? concat0(b, bs) : Val{},
                             seq_lens,       h0.valid() ? f32(b, h0) : Val{}};
  if (k == Cell::Lstm)
    inputs.push_back(c0.valid() ? f32(b, c0) : Val{});
  while (!inputs.empty() && !inputs.back().valid())
    inputs.pop_back();
  std::vector<Attr> attrs = {{"hidden_size", hidden},
                             {"direction", nd == 2 ? "bidirectional" : "forward"}};
  if (k == Cell::Gru)
    attrs.push_back({"linear_before_reset", int64_t{1}});
  if (k == Cell::RnnTanh || k == Cell::RnnRelu) {
    std::string act = k == Cell::RnnTanh ? "Tanh" : "Relu";
    attrs.push_back({"activations", std::vector<std::string>(static_cast<size_t>(nd), act)});
  }
  auto outs = b.op(onnx_op(k), inputs, attrs, k == Cell::Lstm ? 3 : 2);
  LayerOut r;
  // Y [T, D, B, H] -> [T, B, D*H] (one direction: a Squeeze, no copy)
  if (nd == 1) {
    r.y = squeeze(b, outs[0], {1});
  } else {
    Val y = b.op1("Transpose", {outs[0]}, {{"perm", std::vector<int64_t>{0, 2, 1, 3}}});
    r.y = b.op1("Reshape", {y, b.const_i64({0, 0, -1})});
  }
  r.y_h = outs[1];
  if (k == Cell::Lstm)
    r.y_c = outs[2];
  return r;
}

Val slice0(GraphBuilder &b, const Val &v, int64_t start, int64_t end) {
  return b.op1("Slice", {v, b.const_i64({start}), b.const_i64({end}), b.const_i64({0})});
}

int64_t hidden_size(const ConvertCtx &c, const Val &w_hh) {
  const TensorInfo &info = c.b.info(w_hh);
  T2O_CHECK(info.rank() == 2 && (*info.shape)[1].is_static(),
            "{}: the hidden-hidden weight needs a static shape, got {}", c.op(), info.str());
  return (*info.shape)[1].value;
}

} // namespace

// ---- packed sequences -----------------------------------------------------------------------
// A PackedSequence is `data` [N, *] (the valid steps, time-major: step 0 of every sequence, then
// step 1 of those longer than 1, ...) and `batch_sizes` [T] (how many sequences are longer than
// t), sequences sorted by decreasing length. The converters keep exactly that representation, so
// any op applied to packed data sees PyTorch's values and shapes; the recurrent ops unpack to a
// padded [T, B, *] tensor and give ONNX the lengths as sequence_lens.

// valid[t, b] = t < lengths[b]: bool [steps, B] for a 0-d `steps` and lengths [B].
Val step_mask(GraphBuilder &b, const Val &steps, const Val &lengths) {
  return b.op1("Less", {unsqueeze(b, iota(b, steps), {1}), unsqueeze(b, lengths, {0})});
}

// The valid rows of a time-major x [T, B, *rest] in packed order: [N, *rest].
Val pack_steps(GraphBuilder &b, const Val &x, const Val &mask) {
  Val rows = b.op1("Reshape", {x, concat0(b, {b.const_i64({-1}), dims_of(b, x, 2, INT64_MAX)})});
  return b.op1("Compress", {rows, reshape(b, mask, {-1})}, {{"axis", int64_t{0}}});
}

// Each sequence's length from batch_sizes: lengths[b] = #{t : batch_sizes[t] > b}, int64 [B].
Val lengths_from_batch_sizes(GraphBuilder &b, const Val &batch_sizes) {
  Val bs = cast_to(b, batch_sizes, DType::Int64);
  Val batch = b.op1("Gather", {bs, b.const_i64_scalar(0)}, {{"axis", int64_t{0}}});
  Val longer = b.op1("Greater", {unsqueeze(b, bs, {1}), unsqueeze(b, iota(b, batch), {0})});
  Val counts = b.op1("Cast", {longer}, {{"to", static_cast<int64_t>(DType::Int64)}});
  return b.op1("ReduceSum", {counts, b.const_i64({0})}, {{"keepdims", int64_t{0}}});
}

// ---- the padded tensor a packed value was made from ---------------------------------------------
// pack_padded_sequence and the recurrent ops make packed data out of a padded time-major tensor.
// They note that tensor (unmasked: anything past a sequence's end), its mask and the lengths as
// companions of the data (GraphBuilder::set_companion), with the batch_sizes they go with.
// Unpacking that same value with that same batch_sizes then reads them instead of gathering the
// rows back: the same values, since unpack(pack(x)) is x where the mask holds and padding
// elsewhere. Any other op on packed data makes a new value, which has no companions.
namespace {
constexpr const char *kPaddedFrom = "packed_padded_from"; // [S, B, *rest], S >= longest
constexpr const char *kPaddedMask = "packed_padded_mask"; // bool [S, B]
constexpr const char *kPaddedLengths = "packed_lengths";  // int64 [B]
constexpr const char *kPaddedBatchSizes = "packed_batch_sizes";

// `v` [S, B, *rest] with exactly `steps` (0-d int64) rows: cut, or extended with `pad` rows.
Val with_steps(GraphBuilder &b, const Val &v, DType dt, const Val &steps, double pad) {
  Val have = dim_scalar(b, v, 0);
  Val extra = b.op1("Max", {b.op1("Sub", {steps, have}), b.const_i64_scalar(0)});
  Val tail = dims_of(b, v, 1, INT64_MAX);
  Val rows = b.op1("Expand", {scalar(b, dt, pad), concat0(b, {unsqueeze(b, extra, {0}), tail})});
  Val all = b.op1("Concat", {v, rows}, {{"axis", int64_t{0}}});
  return b.op1("Slice", {all, b.const_i64({0}), unsqueeze(b, steps, {0}), b.const_i64({0})});
}
} // namespace

void note_padded_source(GraphBuilder &b, const Val &data, const Val &batch_sizes,
                        const Unpacked &src, DType dt, int64_t rank) {
  if (!b.has_info(src.padded)) {
    TensorInfo info;
    info.dtype = dt;
    info.shape = std::vector<Dim>(static_cast<size_t>(rank));
    b.set_info(src.padded, info);
  }
  b.set_companion(data, kPaddedFrom, src.padded);
  b.set_companion(data, kPaddedMask, src.mask);
  b.set_companion(data, kPaddedLengths, src.lengths);
  b.set_companion(data, kPaddedBatchSizes, batch_sizes);
}

std::optional<Unpacked> padded_source(const GraphBuilder &b, const Val &data,
                                      const Val &batch_sizes) {
  if (!(b.companion(data, kPaddedBatchSizes) == batch_sizes) || !batch_sizes.valid())
    return std::nullopt;
  Unpacked u{b.companion(data, kPaddedFrom), b.companion(data, kPaddedLengths),
             b.companion(data, kPaddedMask)};
  if (!u.padded.valid() || !b.has_info(u.padded) || b.rank(u.padded) < 2)
    return std::nullopt;
  return u;
}

// Packed data [N, *rest] back to a padded time-major tensor of `steps` (0-d int64, at least
// len(batch_sizes)) steps, `pad` where a sequence has ended. From the padded tensor it was packed
// from when that is known (above); otherwise each padded slot gathers its row of data (its rank
// among the valid slots) or an extra row of padding.
Unpacked unpack_sequence(GraphBuilder &b, const Val &data, const Val &batch_sizes, const Val &steps,
                         double pad) {
  if (std::optional<Unpacked> src = padded_source(b, data, batch_sizes)) {
    int64_t rank = b.rank(src->padded);
    DType dt = b.dtype(src->padded);
    Val mask = rank > 2 ? unsqueeze(b, src->mask, int_range(2, rank)) : src->mask;
    Val masked = b.op1("Where", {mask, src->padded, scalar(b, dt, pad)});
    Unpacked u;
    u.lengths = src->lengths;
    u.mask = step_mask(b, steps, u.lengths);
    u.padded = with_steps(b, masked, dt, steps, pad);
    return u;
  }
  Unpacked u;
  u.lengths = lengths_from_batch_sizes(b, batch_sizes);
  u.mask = step_mask(b, steps, u.lengths);
  Val valid = reshape(b, u.mask, {-1});
  Val rank = b.op1("CumSum", {b.op1("Cast", {valid}, {{"to", static_cast<int64_t>(DType::Int64)}}),
                              b.const_i64_scalar(0)});
  Val n = dim_scalar(b, data, 0);
  Val index = b.op1("Where", {valid, b.op1("Sub", {rank, b.const_i64_scalar(1)}), n});
  Val tail = dims_of(b, data, 1, INT64_MAX);
  Val pad_row =
      b.op1("Expand", {scalar(b, b.dtype(data), pad), concat0(b, {b.const_i64({1}), tail})});
  Val rows = b.op1("Gather", {b.op1("Concat", {data, pad_row}, {{"axis", int64_t{0}}}), index},
                   {{"axis", int64_t{0}}});
  Val batch = b.op1("Shape", {u.lengths});
  u.padded = b.op1("Reshape", {rows, concat0(b, {unsqueeze(b, steps, {0}), batch, tail})});
  return u;
}

namespace {

// lstm.input(Tensor input, Tensor[] hx, Tensor[] params, bool has_biases, int num_layers,
//            float dropout, bool train, bool bidirectional, bool batch_first)
// gru.input / rnn_tanh.input / rnn_relu.input: the same with `Tensor hx`.
// lstm.data(Tensor data, Tensor batch_sizes, Tensor[] hx, Tensor[] params, bool has_biases,
//           int num_layers, float dropout, bool train, bool bidirectional): what an RNN module
// calls on a PackedSequence (no batch_first: packed data is always time-major).
// The arguments both overloads share (by the same names).
struct RnnArgs {
  const std::vector<Arg> *params = nullptr;
  bool has_biases = true, bidir = false;
  int64_t layers = 1;
  Val h0, c0;
};

RnnArgs read_rnn_args(const ConvertCtx &c, Cell k) {
  RnnArgs a;
  a.params = &c.list("params");
  a.has_biases = c.arg<bool>("has_biases");
  a.layers = c.arg<int64_t>("num_layers");
  a.bidir = c.arg<bool>("bidirectional");
  double p = c.arg<double>("dropout");
  T2O_CHECK(!c.arg<bool>("train") || p == 0.0 || a.layers == 1,
            "{} with dropout={} in training mode is random; export the model in eval mode", c.op(),
            p);
  if (k == Cell::Lstm) {
    const auto &h = c.list("hx");
    T2O_CHECK(h.size() == 2, "lstm expects (h0, c0), got {} tensors", h.size());
    a.h0 = h[0].t();
    a.c0 = h[1].t();
  } else {
    a.h0 = c.tensor("hx");
  }
  return a;
}

struct StackOut {
  Val y;      // [T, B, D*H], time-major
  Val hn, cn; // [layers*D, B, H]
};

// Every layer over the time-major x [T, B, I]; seq_lens (int32 [B], optional) stops each
// sequence at its length, as PyTorch does for a PackedSequence.
StackOut run_stack(ConvertCtx &c, Cell k, const RnnArgs &a, Val x, const Val &seq_lens) {
  int64_t nd = a.bidir ? 2 : 1;
  size_t per_dir = a.has_biases ? 4 : 2;
  const auto &params = *a.params;
  if (k == Cell::Lstm && params.size() == static_cast<size_t>(a.layers * nd) * (per_dir + 1)) {
    // weight_hr too: an LSTM with proj_size (rnn_projected.cpp)
    T2O_CHECK(!seq_lens.valid(),
              "{}: an LSTM with proj_size over a PackedSequence is not supported (a padded "
              "batch is)",
              c.op());
    ProjectedOut o = projected_lstm(c.b, x, params, a.has_biases, a.layers, a.bidir, a.h0, a.c0);
    return {o.y, o.hn, o.cn};
  }
  T2O_CHECK(params.size() == static_cast<size_t>(a.layers * nd) * per_dir,
            "{}: expected {} weight tensors for {} layer(s), got {} (proj_size is not supported)",
            c.op(), a.layers * nd * static_cast<int64_t>(per_dir), a.layers, params.size());
  std::vector<Val> hs, cs;
  for (int64_t l = 0; l < a.layers; ++l) {
    std::vector<DirWeights> dirs;
    for (int64_t d = 0; d < nd; ++d) {
      size_t base = static_cast<size_t>(l * nd + d) * per_dir;
      DirWeights w{params[base].t(), params[base + 1].t(), {}, {}};
      if (a.has_biases) {
        w.b_ih = params[base + 2].t();
        w.b_hh = params[base + 3].t();
      }
      dirs.push_back(w);
    }
    int64_t hidden = hidden_size(c, dirs[0].w_hh);
    Val lh = slice0(c.b, a.h0, l * nd, (l + 1) * nd);
    Val lc = k == Cell::Lstm ? slice0(c.b, a.c0, l * nd, (l + 1) * nd) : Val{};
    LayerOut o = run_layer(c.b, k, x, dirs, hidden, lh, lc, seq_lens);
    x = o.y;
    hs.push_back(o.y_h);
    if (k == Cell::Lstm)
      cs.push_back(o.y_c);
  }
  return {x, concat0(c.b, hs), k == Cell::Lstm ? concat0(c.b, cs) : Val{}};
}

void set_rnn_outputs(ConvertCtx &c, Cell k, const Val &y, const StackOut &s) {
  DType t = out_dtype(c, 0);
  c.set_out(0, cast_to(c.b, y, t));
  c.set_out(1, cast_to(c.b, s.hn, t));
  if (k == Cell::Lstm)
    c.set_out(2, cast_to(c.b, s.cn, t));
}

void padded_rnn(ConvertCtx &c, Cell k) {
  RnnArgs a = read_rnn_args(c, k);
  bool batch_first = c.arg<bool>("batch_first");
  Val x = c.tensor("input");
  if (batch_first)
    x = c.b.op1("Transpose", {x}, {{"perm", std::vector<int64_t>{1, 0, 2}}});
  StackOut s = run_stack(c, k, a, x, Val{});
  Val y = s.y;
  if (batch_first)
    y = c.b.op1("Transpose", {y}, {{"perm", std::vector<int64_t>{1, 0, 2}}});
  set_rnn_outputs(c, k, y, s);
}

// On a PackedSequence: unpack to [T, B, I], run with the lengths as sequence_lens (ONNX then
// stops each direction at each sequence's last valid step, so the final states are PyTorch's),
// and pack the output again.
// When the data was packed from a known padded tensor, that tensor is the input as it is: with
// sequence_lens the node never reads a step past a sequence's end, so what is there does not
// matter; the output notes its own padded form for pad_packed_sequence.
void packed_rnn(ConvertCtx &c, Cell k) {
  RnnArgs a = read_rnn_args(c, k);
  Val data = c.tensor("data"), batch_sizes = c.tensor("batch_sizes");
  std::optional<Unpacked> src = padded_source(c.b, data, batch_sizes);
  Unpacked u =
      src ? *src : unpack_sequence(c.b, data, batch_sizes, dim_scalar(c.b, batch_sizes, 0), 0.0);
  Val seq_lens = c.b.op1("Cast", {u.lengths}, {{"to", static_cast<int64_t>(DType::Int32)}});
  StackOut s = run_stack(c, k, a, u.padded, seq_lens);
  Val out = cast_to(c.b, pack_steps(c.b, s.y, u.mask), out_dtype(c, 0));
  set_rnn_outputs(c, k, out, s);
  if (out_dtype(c, 0) == DType::Float) // the node computes in float32: not a Cast of the rows
    note_padded_source(c.b, out, batch_sizes, {s.y, u.lengths, u.mask}, DType::Float, 3);
}

void full_rnn(ConvertCtx &c, Cell k) {
  if (c.overload() == "data")
    packed_rnn(c, k);
  else
    padded_rnn(c, k);
}

// lstm_cell(Tensor input, Tensor[] hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None,
//           Tensor? b_hh=None); gru_cell / rnn_*_cell take `Tensor? hx=None`.
// One time step: input [B, I] and hidden [B, H] run as a sequence of length 1.
void cell_step(ConvertCtx &c, Cell k) {
  Val h, cc;
  if (k == Cell::Lstm) {
    const auto &hx = c.list("hx");
    T2O_CHECK(hx.size() == 2, "lstm_cell expects (h, c), got {} tensors", hx.size());
    h = hx[0].t();
    cc = hx[1].t();
  } else {
    h = c.tensor_or_none("hx");
  }
  // LibTorch's cells take batched inputs only (nn.*Cell adds the batch dim itself).
  std::vector<int64_t> lead = {0};
  DirWeights w{c.tensor("w_ih"), c.tensor("w_hh"), c.tensor_or_none("b_ih"),
               c.tensor_or_none("b_hh")};
  T2O_CHECK(w.b_ih.valid() == w.b_hh.valid(), "{} needs both biases or neither", c.op());
  Val x = unsqueeze(c.b, c.tensor("input"), lead);
  Val h0 = h.valid() ? unsqueeze(c.b, h, lead) : Val{};
  Val c0 = cc.valid() ? unsqueeze(c.b, cc, lead) : Val{};
  LayerOut o = run_layer(c.b, k, x, {w}, hidden_size(c, w.w_hh), h0, c0);
  auto finish = [&](const Val &v) { // [1, B, H] -> [B, H]
    return cast_to(c.b, squeeze(c.b, v, lead), out_dtype(c, 0));
  };
  c.set_out(0, finish(o.y_h));
  if (k == Cell::Lstm)
    c.set_out(1, finish(o.y_c));
}

} // namespace

void aten_lstm(ConvertCtx &c) {
  full_rnn(c, Cell::Lstm);
}
void aten_gru(ConvertCtx &c) {
  full_rnn(c, Cell::Gru);
}
void aten_rnn_tanh(ConvertCtx &c) {
  full_rnn(c, Cell::RnnTanh);
}
void aten_rnn_relu(ConvertCtx &c) {
  full_rnn(c, Cell::RnnRelu);
}
void aten_lstm_cell(ConvertCtx &c) {
  cell_step(c, Cell::Lstm);
}
void aten_gru_cell(ConvertCtx &c) {
  cell_step(c, Cell::Gru);
}
void aten_rnn_tanh_cell(ConvertCtx &c) {
  cell_step(c, Cell::RnnTanh);
}
void aten_rnn_relu_cell(ConvertCtx &c) {
  cell_step(c, Cell::RnnRelu);
}

// _pack_padded_sequence(Tensor input, Tensor lengths, bool batch_first) -> (data, batch_sizes).
// lengths must be sorted by decreasing length (pack_padded_sequence sorts first unless
// enforce_sorted=True) and lie in [1, T].
void aten__pack_padded_sequence(ConvertCtx &c) {
  Val x = c.tensor("input");
  int64_t rank = rank_of(c, "input");
  T2O_CHECK(rank >= 2, "{}: input must have a time and a batch dim, got {}", c.op(),
            c.info("input").str());
  if (c.arg<bool>("batch_first")) {
    std::vector<int64_t> perm = int_range(0, rank);
    std::swap(perm[0], perm[1]);
    x = transpose(c.b, x, perm);
  }
  Val lengths = cast_to(c.b, c.tensor("lengths"), DType::Int64);
  Val mask = step_mask(c.b, dim_scalar(c.b, x, 0), lengths);
  Val per_step = c.b.op1(
      "ReduceSum",
      {c.b.op1("Cast", {mask}, {{"to", static_cast<int64_t>(DType::Int64)}}), c.b.const_i64({1})},
      {{"keepdims", int64_t{0}}});
  // Steps after the longest sequence have no entry.
  Val longest = c.b.op1("ReduceMax", {lengths}, {{"keepdims", int64_t{1}}});
  Val batch_sizes = c.b.op1("Slice", {per_step, c.b.const_i64({0}), longest});
  Val data = pack_steps(c.b, x, mask);
  note_padded_source(c.b, data, batch_sizes, {x, lengths, mask}, c.info("input").dtype, rank);
  c.set_out(0, data);
  c.set_out(1, batch_sizes);
}

// _pad_packed_sequence(Tensor data, Tensor batch_sizes, bool batch_first, Scalar padding_value,
//                      int total_length) -> (padded, lengths). pad_packed_sequence passes
// total_length = len(batch_sizes) unless the caller asked for more.
void aten__pad_packed_sequence(ConvertCtx &c) {
  Val data = c.tensor("data"), batch_sizes = c.tensor("batch_sizes");
  const Arg &total = c.arg("total_length");
  Val steps = total.is_tensor() ? reshape(c.b, cast_to(c.b, total.t(), DType::Int64), {})
                                : c.b.const_i64_scalar(total.to_int());
  Unpacked u = unpack_sequence(c.b, data, batch_sizes, steps, c.arg<double>("padding_value", 0.0));
  Val y = u.padded;
  if (c.arg<bool>("batch_first")) {
    std::vector<int64_t> perm = int_range(0, rank_of(c, "data") + 1);
    std::swap(perm[0], perm[1]);
    y = transpose(c.b, y, perm);
  }
  c.set_out(0, y);
  c.set_out(1, u.lengths);
}

void register_rnn_ops(Registry &r) {
  r.add("aten::lstm", 11, aten_lstm,
        {"LSTM", "Cast", "Compress", "Concat", "CumSum", "Expand", "Gather", "Greater", "Less",
         "Range", "ReduceSum", "Reshape", "Shape", "Slice", "Split", "Squeeze", "Sub", "Transpose",
         "Unsqueeze", "Where",
         // with proj_size (rnn_projected.cpp)
         "Loop", "MatMul", "Add", "Mul", "Sigmoid", "Tanh"});
  r.add("aten::gru", 11, aten_gru,
        {"GRU",     "Cast",    "Compress", "Concat",    "CumSum",    "Expand", "Gather",
         "Greater", "Less",    "Range",    "ReduceSum", "Reshape",   "Shape",  "Slice",
         "Split",   "Squeeze", "Sub",      "Transpose", "Unsqueeze", "Where"});
  r.add("aten::rnn_tanh", 11, aten_rnn_tanh,
        {"RNN", "Cast", "Concat", "Reshape", "Slice", "Squeeze", "Transpose", "Unsqueeze"});
  r.add("aten::rnn_relu", 11, aten_rnn_relu,
        {"RNN", "Cast", "Concat", "Reshape", "Slice", "Squeeze", "Transpose", "Unsqueeze"});
  r.add("aten::lstm_cell", 11, aten_lstm_cell,
        {"LSTM", "Cast", "Concat", "Reshape", "Split", "Squeeze", "Transpose", "Unsqueeze"});
  r.add("aten::gru_cell", 11, aten_gru_cell,
        {"GRU", "Cast", "Concat", "Reshape", "Split", "Squeeze", "Transpose", "Unsqueeze"});
  r.add("aten::rnn_tanh_cell", 11, aten_rnn_tanh_cell,
        {"RNN", "Cast", "Concat", "Reshape", "Squeeze", "Transpose", "Unsqueeze"});
  r.add("aten::rnn_relu_cell", 11, aten_rnn_relu_cell,
        {"RNN", "Cast", "Concat", "Reshape", "Squeeze", "Transpose", "Unsqueeze"});
  r.add("aten::_pack_padded_sequence", 11, aten__pack_padded_sequence,
        {"Less", "Compress", "ReduceSum", "Slice", "Cast", "Concat", "Gather", "Range", "ReduceMax",
         "Reshape", "Shape", "Transpose", "Unsqueeze"});
  r.add("aten::_pad_packed_sequence", 11, aten__pad_packed_sequence,
        {"CumSum", "Where", "Gather", "Reshape", "Cast", "Concat", "Expand", "Greater", "Less",
         "Max", "Range", "ReduceSum", "Shape", "Slice", "Sub", "Transpose", "Unsqueeze"});
}

} // namespace torch2onnx
