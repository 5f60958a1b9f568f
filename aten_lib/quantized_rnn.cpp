// Dynamically quantized LSTM and GRU (torch.ao.quantization.quantize_dynamic of nn.LSTM / nn.GRU:
// aten::quantized_lstm / aten::quantized_gru with CellParamsBase objects; docs/quantized.md).
// LibTorch computes each layer's input projection over the whole sequence with one dynamic
// quantization of the layer input, and the hidden projection at every step with a dynamic
// quantization of that step's hidden state; the cell itself is float. The export does the same,
// one step after another, so the file computes what LibTorch computes: ONNX's LSTM/GRU ops cannot
// quantize the hidden state between steps. A fixed sequence length unrolls the steps; a symbolic
// one (--input x:f32[t=7,...]) runs the same step in an ONNX Loop.
#include "aten_lib/helpers.h"
#include "aten_lib/packed_sequence.h"
#include "aten_lib/quantized.h"
#include "aten_lib/rnn_loop.h"

#include <functional>
#include <limits>

namespace torch2onnx {

namespace {
// The state's type inside a Loop body: float, its shape as outside.
ValueType state_type(GraphBuilder &b, const Val &v) {
  return ValueType{DType::Float, false, b.has_info(v) ? b.info(v).shape : std::nullopt};
}
} // namespace

std::pair<Val, State> loop_steps(GraphBuilder &b, bool lstm, const Val &steps, const State &s,
                                 bool reverse, const StepFn &step) {
  Val last = op_t(b, DType::Int64, "Sub", {steps, b.const_i64_scalar(1)});
  b.begin_subgraph("rnn_step");
  // ONNX Runtime needs the shapes of the iteration count and the condition: scalars.
  Val i = b.add_subgraph_input("i", ValueType{DType::Int64, false, std::vector<Dim>{}});
  b.add_subgraph_input("cond", ValueType{DType::Bool, false, std::vector<Dim>{}});
  State in{b.add_subgraph_input("h", state_type(b, s.h)),
           lstm ? b.add_subgraph_input("c", state_type(b, s.c)) : Val{}};
  b.set_info(in.h, b.info(s.h));
  if (lstm)
    b.set_info(in.c, b.info(s.c));
  Val t = reverse ? op_t(b, DType::Int64, "Sub", {last, i}) : i;
  State next = step(t, in);
  Val go = b.constant(TensorData::boolean({true}, {}));
  std::vector<Val> outs = {go, next.h};
  std::vector<ValueType> types = {ValueType{DType::Bool}, state_type(b, s.h)};
  if (lstm) {
    outs.push_back(next.c);
    types.push_back(state_type(b, s.c));
  }
  outs.push_back(next.h);
  types.push_back(ValueType{DType::Float});
  Subgraph body = b.end_subgraph(outs, types);
  std::vector<Val> inputs = {steps, go, s.h};
  if (lstm)
    inputs.push_back(s.c);
  std::vector<Val> r = b.op_with_subgraphs("Loop", inputs, {{"body", body}}, lstm ? 3 : 2);
  State final{r[0], lstm ? r[1] : Val{}};
  Val ys = r.back();
  if (reverse) // the scan output runs from the last step to the first
    ys = op_t(b, DType::Float, "Slice",
              {ys, b.const_i64({-1}), b.const_i64({std::numeric_limits<int64_t>::min()}),
               b.const_i64({0}), b.const_i64({-1})});
  return {ys, final};
}

namespace {

enum class Rnn { Lstm, Gru, Tanh, Relu };

// One cell's parameters as the front end passes them (aten_lib/quantized.h, kCell*).
struct CellWeights {
  Val w_ih, w_hh, b_ih, b_hh; // real-valued weights [G*H, in]; biases may be invalid
  bool reduce_range = false;
};

// A packed linear weight (aten_lib/quantized.h: [weight, bias]) as the front end passes it;
// `what` names it if it is not one.
const Arg &packed_linear(const ConvertCtx &c, const Arg &packed, const char *what) {
  T2O_CHECK(packed.is_list() && packed.items.size() == kPackedLinearFields,
            "{}: {} did not reach the converter", c.op(), what);
  return packed;
}

CellWeights cell_weights(const ConvertCtx &c, const Arg &a) {
  T2O_CHECK(a.is_list() && !a.items.empty(),
            "{}: a cell's parameters did not reach the converter ({})", c.op(), a.describe());
  const std::string &kind = a.items[kCellType].str();
  if (kind != "quantized_dynamic" || a.items.size() != kCellFields)
    throw Error(fmt::format("{}: cells quantized as '{}' are not exported (dynamically quantized "
                            "int8 cells are)",
                            c.op(), kind),
                "quantize the LSTM/GRU with quantize_dynamic(..., dtype=torch.qint8)");
  auto weight = [&](size_t field) {
    return packed_linear(c, a.items[field], "a cell's packed weight").items[kPackedWeight].t();
  };
  CellWeights w;
  w.w_ih = weight(kCellWeightIh);
  w.w_hh = weight(kCellWeightHh);
  if (a.items[kCellBiasIh].is_tensor())
    w.b_ih = a.items[kCellBiasIh].t();
  if (a.items[kCellBiasHh].is_tensor())
    w.b_hh = a.items[kCellBiasHh].t();
  w.reduce_range = a.items[kCellReduceRange].to_int() != 0;
  return w;
}

// x [N, in] dynamically quantized, times w [G*H, in] transposed, plus b.
Val linear_dynamic_2d(GraphBuilder &b, const Val &x, const Val &w, const Val &bias,
                      bool reduce_range) {
  Val xq = dynamic_quantize(b, x, reduce_range);
  std::vector<Val> in = {xq, w};
  if (bias.valid())
    in.push_back(cast_to(b, bias, DType::Float));
  return op_t(b, DType::Float, "Gemm", in, {{"transB", int64_t{1}}});
}

// Step t ([B, in]) of a time-major [T, B, in] sequence.
Val step(GraphBuilder &b, const Val &seq, int64_t t) {
  return op_t(b, DType::Float, "Gather", {seq, b.const_i64_scalar(t)}, {{"axis", int64_t{0}}});
}

Val sigmoid(GraphBuilder &b, const Val &x) {
  return op_t(b, DType::Float, "Sigmoid", {x});
}
Val tanh(GraphBuilder &b, const Val &x) {
  return op_t(b, DType::Float, "Tanh", {x});
}
Val add(GraphBuilder &b, const Val &x, const Val &y) {
  return op_t(b, DType::Float, "Add", {x, y});
}
Val mul(GraphBuilder &b, const Val &x, const Val &y) {
  return op_t(b, DType::Float, "Mul", {x, y});
}

// One step of the cell from the input projection `xi` [B, G*H] (biases included).
State cell_step(GraphBuilder &b, Rnn kind, const CellWeights &w, const Val &xi, const State &s) {
  Val hh = linear_dynamic_2d(b, s.h, w.w_hh, w.b_hh, w.reduce_range);
  if (kind == Rnn::Tanh || kind == Rnn::Relu)
    return {op_t(b, DType::Float, kind == Rnn::Tanh ? "Tanh" : "Relu", {add(b, xi, hh)}), Val{}};
  if (kind == Rnn::Lstm) {
    std::vector<Val> g = b.op("Split", {add(b, xi, hh)}, {{"axis", int64_t{1}}}, 4);
    Val i = sigmoid(b, g[0]), f = sigmoid(b, g[1]), n = tanh(b, g[2]), o = sigmoid(b, g[3]);
    Val cell = add(b, mul(b, f, s.c), mul(b, i, n));
    return {mul(b, o, tanh(b, cell)), cell};
  }
  std::vector<Val> gi = b.op("Split", {xi}, {{"axis", int64_t{1}}}, 3);
  std::vector<Val> gh = b.op("Split", {hh}, {{"axis", int64_t{1}}}, 3);
  Val r = sigmoid(b, add(b, gi[0], gh[0])), z = sigmoid(b, add(b, gi[1], gh[1]));
  Val n = tanh(b, add(b, gi[2], mul(b, r, gh[2])));
  // h' = (1 - z) * n + z * h = n + z * (h - n)
  Val h = add(b, n, mul(b, z, op_t(b, DType::Float, "Sub", {s.h, n})));
  return {h, Val{}};
}

// The steps of `xi` [T, B, G*H] (the input projection of every step, done at once) in a Loop.
std::pair<Val, State> loop_direction(GraphBuilder &b, Rnn kind, const CellWeights &w, const Val &xi,
                                     const State &s, bool reverse) {
  Val steps = squeeze(b, dims_of(b, xi, 0, 1), {0});
  return loop_steps(b, kind == Rnn::Lstm, steps, s, reverse, [&](const Val &t, const State &st) {
    Val x_t = op_t(b, DType::Float, "Gather", {xi, t}, {{"axis", int64_t{0}}});
    return cell_step(b, kind, w, x_t, st);
  });
}

// One direction over a packed sequence: `xi` [T, B, G*H] the input projection of every valid
// step (made at once over the packed rows, as LibTorch does), `mask` [T, B] (t < length). LibTorch
// runs each step on the sequences still going only, so the hidden state is quantized over those
// rows (the others are zeros here, which leaves the range as it is: it always holds 0) and the
// state of a finished sequence stays as it was.
std::pair<Val, State> packed_direction(GraphBuilder &b, Rnn kind, const CellWeights &w,
                                       const Val &xi, const Val &mask, const Val &steps,
                                       const State &s, bool reverse) {
  const bool lstm = kind == Rnn::Lstm;
  Val zero = b.const_scalar(DType::Float, 0);
  return loop_steps(b, lstm, steps, s, reverse, [&](const Val &t, const State &st) {
    Val m = unsqueeze(b, op_t(b, DType::Bool, "Gather", {mask, t}, {{"axis", int64_t{0}}}), {1});
    Val xi_t = op_t(b, DType::Float, "Gather", {xi, t}, {{"axis", int64_t{0}}});
    Val going = op_t(b, DType::Float, "Where", {m, st.h, zero});
    State next = cell_step(b, kind, w, xi_t, State{going, st.c});
    return State{op_t(b, DType::Float, "Where", {m, next.h, st.h}),
                 lstm ? op_t(b, DType::Float, "Where", {m, next.c, st.c}) : Val{}};
  });
}

// One direction of one layer over the time-major input `x` [T, B, in]: the outputs [T, B, H] in
// time order and the final state. `steps` is T, or -1 when T is known only at run time.
std::pair<Val, State> run_direction(GraphBuilder &b, Rnn kind, const CellWeights &w, const Val &x,
                                    int64_t steps, State s, bool reverse) {
  // The input projection of every step at once, with one quantization of the whole input.
  int64_t in = static_size(b.info(w.w_ih), 1, "the cell's input weight");
  Val flat = reshape(b, x, {-1, in});
  Val xi = linear_dynamic_2d(b, flat, w.w_ih, w.b_ih, w.reduce_range);
  Val shape = concat0(b, {dims_of(b, x, 0, 2), b.const_i64({-1})});
  xi = op_t(b, DType::Float, "Reshape", {xi, shape});
  if (steps < 0)
    return loop_direction(b, kind, w, xi, s, reverse);
  std::vector<Val> outs(static_cast<size_t>(steps));
  for (int64_t k = 0; k < steps; ++k) {
    int64_t t = reverse ? steps - 1 - k : k;
    s = cell_step(b, kind, w, step(b, xi, t), s);
    outs[static_cast<size_t>(t)] = unsqueeze(b, s.h, {0});
  }
  return {outs.size() == 1 ? outs[0]
                           : op_t(b, DType::Float, "Concat", outs, {{"axis", int64_t{0}}}),
          s};
}

// Entry `index` ([B, H]) of a stacked state [L*D, B, H].
Val state_at(GraphBuilder &b, const Val &stacked, int64_t index) {
  return step(b, cast_to(b, stacked, DType::Float), index);
}

Val stack0(GraphBuilder &b, const std::vector<Val> &parts) {
  std::vector<Val> u;
  for (const auto &p : parts)
    u.push_back(unsqueeze(b, p, {0}));
  return u.size() == 1 ? u[0] : op_t(b, DType::Float, "Concat", u, {{"axis", int64_t{0}}});
}

// The arguments both overloads share: the initial states and the cells, checked.
struct RnnSetup {
  int64_t layers = 1, dirs = 1;
  Val h0, c0; // [L*D, B, H]; c0 only for the LSTM
  std::vector<Arg> params;
};

RnnSetup rnn_setup(ConvertCtx &c, Rnn kind) {
  RnnSetup r;
  r.layers = c.arg<int64_t>("num_layers");
  r.dirs = c.arg<bool>("bidirectional", false) ? 2 : 1;
  if (kind == Rnn::Lstm) {
    const auto &hx = c.list("hx");
    T2O_CHECK(hx.size() == 2, "{}: hx holds {} tensors, not (h0, c0)", c.op(), hx.size());
    r.h0 = hx[0].t();
    r.c0 = hx[1].t();
  } else {
    r.h0 = c.tensor("hx");
  }
  r.params = c.list("params");
  T2O_CHECK(static_cast<int64_t>(r.params.size()) == r.layers * r.dirs,
            "{}: {} cells for {} layers x {} directions", c.op(), r.params.size(), r.layers,
            r.dirs);
  return r;
}

// Every layer and direction: `run(w, s, reverse)` gives one direction's outputs and final state;
// the directions' outputs are concatenated on `axis` into the next layer's input. Sets outputs 1
// (h_n) and 2 (c_n, LSTM) and returns the last layer's output.
Val run_layers(ConvertCtx &c, Rnn kind, const RnnSetup &r, Val x, int64_t axis,
               const std::function<std::pair<Val, State>(const Val &x, const CellWeights &w,
                                                         const State &s, bool reverse)> &run) {
  GraphBuilder &b = c.b;
  std::vector<Val> h_n, c_n;
  for (int64_t l = 0; l < r.layers; ++l) {
    std::vector<Val> outs;
    for (int64_t d = 0; d < r.dirs; ++d) {
      int64_t idx = l * r.dirs + d;
      CellWeights w = cell_weights(c, r.params[static_cast<size_t>(idx)]);
      State s{state_at(b, r.h0, idx), kind == Rnn::Lstm ? state_at(b, r.c0, idx) : Val{}};
      auto [out, last] = run(x, w, s, d == 1);
      outs.push_back(out);
      h_n.push_back(last.h);
      if (kind == Rnn::Lstm)
        c_n.push_back(last.c);
    }
    x = outs.size() == 1 ? outs[0] : op_t(b, DType::Float, "Concat", outs, {{"axis", axis}});
  }
  c.set_out(1, stack0(b, h_n));
  if (kind == Rnn::Lstm)
    c.set_out(2, stack0(b, c_n));
  return x;
}

// The `data` overload: a PackedSequence (data [N, in], batch_sizes [T]). Each layer unpacks its
// input to [T, B, in], runs its directions in Loops over the T steps (packed_direction) and packs
// the outputs again, so the output is packed data [N, D*H] as LibTorch's.
void quantized_rnn_packed(ConvertCtx &c, Rnn kind) {
  GraphBuilder &b = c.b;
  RnnSetup r = rnn_setup(c, kind);
  Val batch_sizes = c.tensor("batch_sizes");
  Val steps = dim_scalar(b, batch_sizes, 0);
  Val data = cast_to(b, c.tensor("data"), DType::Float);
  Val out = run_layers(
      c, kind, r, data, 1, [&](const Val &x, const CellWeights &w, const State &s, bool reverse) {
        Val xi = linear_dynamic_2d(b, x, w.w_ih, w.b_ih, w.reduce_range);
        Unpacked u = unpack_sequence(b, xi, batch_sizes, steps, 0.0);
        auto [y, last] = packed_direction(b, kind, w, u.padded, u.mask, steps, s, reverse);
        return std::make_pair(pack_steps(b, y, u.mask), last);
      });
  c.set_out(0, out);
}

void quantized_rnn(ConvertCtx &c, Rnn kind) {
  GraphBuilder &b = c.b;
  if (c.overload() == "data") {
    quantized_rnn_packed(c, kind);
    return;
  }
  T2O_CHECK(c.overload() == "input" || c.overload().empty(),
            "{}: the '{}' overload is not exported", c.op(), c.overload());
  bool batch_first = c.arg<bool>("batch_first", false);
  RnnSetup r = rnn_setup(c, kind);
  Val x = cast_to(b, c.tensor("input"), DType::Float);
  if (batch_first)
    x = transpose(b, x, {1, 0, 2});
  const TensorInfo &input = c.info("input");
  T2O_CHECK(input.rank() == 3, "{}: the input has rank {}, not 3 (unbatched input is not exported)",
            c.op(), input.rank());
  const Dim &time = (*input.shape)[batch_first ? 1 : 0];
  int64_t steps = time.is_static() ? time.value : -1; // -1: an ONNX Loop over the steps
  x = run_layers(c, kind, r, x, 2,
                 [&](const Val &in, const CellWeights &w, const State &s, bool reverse) {
                   return run_direction(b, kind, w, in, steps, s, reverse);
                 });
  c.set_out(0, batch_first ? transpose(b, x, {1, 0, 2}) : x);
}

// aten::quantized_lstm.input(Tensor input, Tensor[] hx, CellParamsBase[] params, bool has_biases,
//   int num_layers, float dropout, bool train, bool bidirectional, bool batch_first, *,
//   ScalarType? dtype=None, bool use_dynamic=False) -> (Tensor, Tensor, Tensor)
// aten::quantized_lstm.data(Tensor data, Tensor batch_sizes, Tensor[] hx, ...) the same on a
//   PackedSequence (no batch_first).
void aten_quantized_lstm(ConvertCtx &c) {
  quantized_rnn(c, Rnn::Lstm);
}

// aten::quantized_gru.input(Tensor input, Tensor hx, CellParamsBase[] params, bool has_biases,
//   int num_layers, float dropout, bool train, bool bidirectional, bool batch_first)
//   -> (Tensor, Tensor)
// aten::quantized_gru.data(Tensor data, Tensor batch_sizes, Tensor hx, ...) on a PackedSequence.
void aten_quantized_gru(ConvertCtx &c) {
  quantized_rnn(c, Rnn::Gru);
}

// The cell ops of quantize_dynamic's nn.LSTMCell / GRUCell / RNNCell (one step, the same math as
// a layer's step): the weights and biases from the packed linear parameters (aten_lib/quantized.h
// lists). LibTorch's dynamic cells add the packed biases and ignore the bias arguments (which
// nn.quantized.dynamic.RNNCellBase leaves at their random initial values), and quantize their
// activations to a reduced (7-bit) range.
CellWeights packed_cell_weights(const ConvertCtx &c) {
  const Arg &ih = packed_linear(c, c.arg("w_ih"), "the packed weight w_ih");
  const Arg &hh = packed_linear(c, c.arg("w_hh"), "the packed weight w_hh");
  CellWeights w;
  w.w_ih = ih.items[kPackedWeight].t();
  w.w_hh = hh.items[kPackedWeight].t();
  if (ih.items[kPackedBias].is_tensor())
    w.b_ih = ih.items[kPackedBias].t();
  if (hh.items[kPackedBias].is_tensor())
    w.b_hh = hh.items[kPackedBias].t();
  w.reduce_range = true; // as LibTorch's dynamic cells quantize (7-bit activations)
  return w;
}

// One step from `x` [B, in] and the state: the input projection quantized on its own.
State quantized_cell(ConvertCtx &c, Rnn kind, const CellWeights &w, const State &s) {
  GraphBuilder &b = c.b;
  Val x = cast_to(b, c.tensor("input"), DType::Float);
  T2O_CHECK(b.rank(x) == 2, "{}: the input has rank {}, not 2 (unbatched input is not exported)",
            c.op(), b.rank(x));
  Val xi = linear_dynamic_2d(b, x, w.w_ih, w.b_ih, w.reduce_range);
  return cell_step(b, kind, w, xi, s);
}

// quantized::quantized_lstm_cell_dynamic(Tensor input, Tensor[] hx, LinearPackedParamsBase w_ih,
//   LinearPackedParamsBase w_hh, Tensor bias_ih, Tensor bias_hh) -> (Tensor, Tensor)
void quantized_quantized_lstm_cell_dynamic(ConvertCtx &c) {
  const auto &hx = c.list("hx");
  T2O_CHECK(hx.size() == 2, "{}: hx holds {} tensors, not (h, c)", c.op(), hx.size());
  State s{cast_to(c.b, hx[0].t(), DType::Float), cast_to(c.b, hx[1].t(), DType::Float)};
  State next = quantized_cell(c, Rnn::Lstm, packed_cell_weights(c), s);
  c.set_out(0, next.h);
  c.set_out(1, next.c);
}

// quantized::quantized_gru_cell_dynamic / quantized_rnn_tanh_cell_dynamic /
// quantized_rnn_relu_cell_dynamic(Tensor input, Tensor hx, LinearPackedParamsBase w_ih,
//   LinearPackedParamsBase w_hh, Tensor b_ih, Tensor b_hh) -> Tensor
void quantized_cell_h(ConvertCtx &c, Rnn kind) {
  State s{cast_to(c.b, c.tensor("hx"), DType::Float), Val{}};
  c.set_out(0, quantized_cell(c, kind, packed_cell_weights(c), s).h);
}
void quantized_quantized_gru_cell_dynamic(ConvertCtx &c) {
  quantized_cell_h(c, Rnn::Gru);
}
void quantized_quantized_rnn_tanh_cell_dynamic(ConvertCtx &c) {
  quantized_cell_h(c, Rnn::Tanh);
}
void quantized_quantized_rnn_relu_cell_dynamic(ConvertCtx &c) {
  quantized_cell_h(c, Rnn::Relu);
}

} // namespace

void register_quantized_rnn_ops(Registry &r) {
  const std::vector<std::string> ops = {"Gemm",
                                        "Gather",
                                        "Split",
                                        "Sigmoid",
                                        "Tanh",
                                        "Add",
                                        "Mul",
                                        "Sub",
                                        "Concat",
                                        "Reshape",
                                        "Shape",
                                        "Slice",
                                        "Unsqueeze",
                                        "Transpose",
                                        "Cast",
                                        "DynamicQuantizeLinear",
                                        "DequantizeLinear",
                                        "QuantizeLinear",
                                        "ReduceMin",
                                        "ReduceMax",
                                        "Min",
                                        "Max",
                                        "Div",
                                        "Equal",
                                        "Where",
                                        "Round",
                                        "Neg",
                                        "Squeeze",
                                        "Loop",
                                        "Less",
                                        "Greater",
                                        "ReduceSum",
                                        "Range",
                                        "CumSum",
                                        "Expand",
                                        "Compress",
                                        "Identity"};
  r.add("aten::quantized_lstm", 11, aten_quantized_lstm, ops);
  r.add("aten::quantized_gru", 11, aten_quantized_gru, ops);
  const std::vector<std::string> cell_ops = {"Gemm",
                                             "Split",
                                             "Sigmoid",
                                             "Tanh",
                                             "Relu",
                                             "Add",
                                             "Mul",
                                             "Sub",
                                             "Cast",
                                             "ReduceMin",
                                             "ReduceMax",
                                             "Min",
                                             "Max",
                                             "Div",
                                             "Equal",
                                             "Where",
                                             "Round",
                                             "Neg",
                                             "QuantizeLinear",
                                             "DequantizeLinear"};
  r.add("quantized::quantized_lstm_cell_dynamic", 11, quantized_quantized_lstm_cell_dynamic,
        cell_ops);
  r.add("quantized::quantized_gru_cell_dynamic", 11, quantized_quantized_gru_cell_dynamic,
        cell_ops);
  r.add("quantized::quantized_rnn_tanh_cell_dynamic", 11, quantized_quantized_rnn_tanh_cell_dynamic,
        cell_ops);
  r.add("quantized::quantized_rnn_relu_cell_dynamic", 11, quantized_quantized_rnn_relu_cell_dynamic,
        cell_ops);
}

} // namespace torch2onnx
