// Recurrent layers: aten::lstm / gru / rnn_tanh / rnn_relu (what nn.LSTM, nn.GRU and nn.RNN
// trace to) and their single-step cells, each as one ONNX LSTM/GRU/RNN node per layer.
//
// PyTorch stacks the gate blocks of its weights as LSTM (i, f, g, o) and GRU (r, z, n); ONNX
// wants LSTM (i, o, f, c) and GRU (z, r, h), so the blocks are reordered. PyTorch's GRU applies
// the reset gate after the hidden matmul, which is ONNX's linear_before_reset=1.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

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
                   int64_t hidden, const Val &h0, const Val &c0) {
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
                             Val{},          h0.valid() ? f32(b, h0) : Val{}};
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
  // Y [T, D, B, H] -> [T, B, D*H]
  Val y = b.op1("Transpose", {outs[0]}, {{"perm", std::vector<int64_t>{0, 2, 1, 3}}});
  r.y = b.op1("Reshape", {y, b.const_i64({0, 0, -1})});
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

// lstm.input(Tensor input, Tensor[] hx, Tensor[] params, bool has_biases, int num_layers,
//            float dropout, bool train, bool bidirectional, bool batch_first)
// gru.input / rnn_tanh.input / rnn_relu.input: the same with `Tensor hx`. The packed-sequence
// overloads (data, batch_sizes, ...) are not supported.
namespace rnn_arg {
constexpr size_t kInput = 0, kHx = 1, kParams = 2, kHasBiases = 3, kNumLayers = 4, kDropout = 5,
                 kTrain = 6, kBidirectional = 7, kBatchFirst = 8, kCount = 9;
} // namespace rnn_arg

void full_rnn(ConvertCtx &c, Cell k) {
  using namespace rnn_arg;
  T2O_CHECK(c.overload() != "data" && c.num_inputs() == kCount,
            "{} on packed sequences is not supported (pad the sequences instead)", c.op());
  const auto &params = c.in(kParams).list();
  bool has_biases = c.in(kHasBiases).to_bool();
  int64_t layers = c.in(kNumLayers).to_int();
  double dropout = c.in(kDropout).to_double();
  bool train = c.in(kTrain).to_bool();
  bool bidir = c.in(kBidirectional).to_bool();
  bool batch_first = c.in(kBatchFirst).to_bool();
  T2O_CHECK(!train || dropout == 0.0 || layers == 1,
            "{} with dropout={} in training mode is random; export the model in eval mode", c.op(),
            dropout);
  int64_t nd = bidir ? 2 : 1;
  size_t per_dir = has_biases ? 4 : 2;
  T2O_CHECK(params.size() == static_cast<size_t>(layers * nd) * per_dir,
            "{}: expected {} weight tensors for {} layer(s), got {} (proj_size is not supported)",
            c.op(), layers * nd * static_cast<int64_t>(per_dir), layers, params.size());
  Val h0, c0;
  if (k == Cell::Lstm) {
    const auto &hx = c.in(kHx).list();
    T2O_CHECK(hx.size() == 2, "lstm expects (h0, c0), got {} tensors", hx.size());
    h0 = hx[0].t();
    c0 = hx[1].t();
  } else {
    h0 = c.tensor(kHx);
  }
  Val x = c.tensor(kInput);
  if (batch_first)
    x = c.b.op1("Transpose", {x}, {{"perm", std::vector<int64_t>{1, 0, 2}}});
  std::vector<Val> hs, cs;
  for (int64_t l = 0; l < layers; ++l) {
    std::vector<DirWeights> dirs;
    for (int64_t d = 0; d < nd; ++d) {
      size_t base = static_cast<size_t>(l * nd + d) * per_dir;
      DirWeights w{params[base].t(), params[base + 1].t(), {}, {}};
      if (has_biases) {
        w.b_ih = params[base + 2].t();
        w.b_hh = params[base + 3].t();
      }
      dirs.push_back(w);
    }
    int64_t hidden = hidden_size(c, dirs[0].w_hh);
    Val lh = slice0(c.b, h0, l * nd, (l + 1) * nd);
    Val lc = k == Cell::Lstm ? slice0(c.b, c0, l * nd, (l + 1) * nd) : Val{};
    LayerOut o = run_layer(c.b, k, x, dirs, hidden, lh, lc);
    x = o.y;
    hs.push_back(o.y_h);
    if (k == Cell::Lstm)
      cs.push_back(o.y_c);
  }
  if (batch_first)
    x = c.b.op1("Transpose", {x}, {{"perm", std::vector<int64_t>{1, 0, 2}}});
  DType t = out_dtype(c, 0);
  c.set_out(0, cast_to(c.b, x, t));
  c.set_out(1, cast_to(c.b, concat0(c.b, hs), t));
  if (k == Cell::Lstm)
    c.set_out(2, cast_to(c.b, concat0(c.b, cs), t));
}

// lstm_cell(Tensor input, Tensor[] hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None,
//           Tensor? b_hh=None); gru_cell / rnn_*_cell take `Tensor? hx=None`.
namespace rnn_cell_arg {
constexpr size_t kInput = 0, kHx = 1, kWIh = 2, kWHh = 3, kBIh = 4, kBHh = 5;
} // namespace rnn_cell_arg

// One time step: input [B, I] and hidden [B, H] run as a sequence of length 1.
void cell_step(ConvertCtx &c, Cell k) {
  using namespace rnn_cell_arg;
  Val h, cc;
  if (k == Cell::Lstm) {
    const auto &hx = c.in(kHx).list();
    T2O_CHECK(hx.size() == 2, "lstm_cell expects (h, c), got {} tensors", hx.size());
    h = hx[0].t();
    cc = hx[1].t();
  } else {
    h = c.tensor_or_none(kHx);
  }
  // LibTorch's cells take batched inputs only (nn.*Cell adds the batch dim itself).
  std::vector<int64_t> lead = {0};
  DirWeights w{c.tensor(kWIh), c.tensor(kWHh), c.tensor_or_none(kBIh), c.tensor_or_none(kBHh)};
  T2O_CHECK(w.b_ih.valid() == w.b_hh.valid(), "{} needs both biases or neither", c.op());
  Val x = unsqueeze(c.b, c.tensor(kInput), lead);
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

void register_rnn_ops(Registry &r) {
  r.add("aten::lstm", 13, aten_lstm, {"LSTM"});
  r.add("aten::gru", 13, aten_gru, {"GRU"});
  r.add("aten::rnn_tanh", 13, aten_rnn_tanh, {"RNN"});
  r.add("aten::rnn_relu", 13, aten_rnn_relu, {"RNN"});
  r.add("aten::lstm_cell", 13, aten_lstm_cell, {"LSTM"});
  r.add("aten::gru_cell", 13, aten_gru_cell, {"GRU"});
  r.add("aten::rnn_tanh_cell", 13, aten_rnn_tanh_cell, {"RNN"});
  r.add("aten::rnn_relu_cell", 13, aten_rnn_relu_cell, {"RNN"});
}

} // namespace torch2onnx
