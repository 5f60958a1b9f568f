// nn.LSTM with proj_size (an LSTM with a projection, LSTMP): the hidden state is o * tanh(c)
// times weight_hr^T, of size proj_size. ONNX's LSTM has no projection, so each direction runs
// its steps in an ONNX Loop (rnn_loop.h): the input projection of every step at once, then per
// step the recurrent projection, the gates in PyTorch's order (i, f, g, o), the cell and the
// projected hidden state.
#include "aten_lib/helpers.h"
#include "aten_lib/rnn_loop.h"

namespace torch2onnx {

namespace {

struct ProjWeights {
  Val w_ih, w_hh, w_hr; // [4H, in], [4H, P], [P, H]
  Val bias;             // b_ih + b_hh [4H], or invalid
};

Val f32t(GraphBuilder &b, const Val &w) { // w^T as float
  return transpose(b, cast_to(b, w, DType::Float), {1, 0});
}

Val fmatmul(GraphBuilder &b, const Val &x, const Val &w) {
  return op_t(b, DType::Float, "MatMul", {x, w});
}

// One direction over the time-major x [T, B, in] from (h0 [B, P], c0 [B, H]).
std::pair<Val, State> projected_direction(GraphBuilder &b, const Val &x, const ProjWeights &w,
                                          const State &s, bool reverse) {
  Val xi = fmatmul(b, cast_to(b, x, DType::Float), f32t(b, w.w_ih)); // [T, B, 4H]
  if (w.bias.valid())
    xi = op_t(b, DType::Float, "Add", {xi, w.bias});
  Val w_hh = f32t(b, w.w_hh), w_hr = f32t(b, w.w_hr);
  Val steps = squeeze(b, dims_of(b, x, 0, 1), {0});
  return loop_steps(b, true, steps, s, reverse, [&](const Val &t, const State &st) {
    Val x_t = op_t(b, DType::Float, "Gather", {xi, t}, {{"axis", int64_t{0}}});
    Val gates = op_t(b, DType::Float, "Add", {x_t, fmatmul(b, st.h, w_hh)});
    std::vector<Val> g = b.op("Split", {gates}, {{"axis", int64_t{1}}}, 4);
    auto sig = [&](const Val &v) { return op_t(b, DType::Float, "Sigmoid", {v}); };
    auto tanh = [&](const Val &v) { return op_t(b, DType::Float, "Tanh", {v}); };
    Val cell = op_t(b, DType::Float, "Add",
                    {op_t(b, DType::Float, "Mul", {sig(g[1]), st.c}),
                     op_t(b, DType::Float, "Mul", {sig(g[0]), tanh(g[2])})});
    Val h = fmatmul(b, op_t(b, DType::Float, "Mul", {sig(g[3]), tanh(cell)}), w_hr);
    return State{h, cell};
  });
}

// Row k of a [L*D, B, S] state, as [B, S] with its info.
Val state_row(GraphBuilder &b, const Val &v, int64_t k) {
  Val r = op_t(b, DType::Float, "Gather", {cast_to(b, v, DType::Float), b.const_i64_scalar(k)},
               {{"axis", int64_t{0}}});
  if (b.has_info(v) && b.info(v).rank() == 3) {
    std::vector<Dim> dims(b.info(v).shape->begin() + 1, b.info(v).shape->end());
    b.set_info(r, TensorInfo{DType::Float, dims});
  }
  return r;
}

ProjWeights proj_weights(const std::vector<Arg> &params, size_t base, bool has_biases,
                         GraphBuilder &b) {
  ProjWeights w{params[base].t(), params[base + 1].t(), {}, {}};
  if (has_biases) {
    w.bias = op_t(b, DType::Float, "Add",
                  {cast_to(b, params[base + 2].t(), DType::Float),
                   cast_to(b, params[base + 3].t(), DType::Float)});
    w.w_hr = params[base + 4].t();
  } else {
    w.w_hr = params[base + 2].t();
  }
  return w;
}

} // namespace

ProjectedOut projected_lstm(GraphBuilder &b, Val x, const std::vector<Arg> &params, bool has_biases,
                            int64_t layers, bool bidir, const Val &h0, const Val &c0) {
  const int64_t nd = bidir ? 2 : 1;
  const size_t per_dir = has_biases ? 5 : 3;
  T2O_CHECK(params.size() == static_cast<size_t>(layers * nd) * per_dir,
            "lstm with proj_size: expected {} weight tensors for {} layer(s), got {}",
            layers * nd * static_cast<int64_t>(per_dir), layers, params.size());
  std::vector<Val> hs, cs;
  for (int64_t l = 0; l < layers; ++l) {
    std::vector<Val> ys;
    for (int64_t d = 0; d < nd; ++d) {
      size_t base = static_cast<size_t>(l * nd + d) * per_dir;
      State s{state_row(b, h0, l * nd + d), state_row(b, c0, l * nd + d)};
      auto [y, last] =
          projected_direction(b, x, proj_weights(params, base, has_biases, b), s, d == 1);
      ys.push_back(y);
      hs.push_back(unsqueeze(b, last.h, {0}));
      cs.push_back(unsqueeze(b, last.c, {0}));
    }
    x = ys.size() == 1 ? ys[0] : op_t(b, DType::Float, "Concat", ys, {{"axis", int64_t{2}}});
  }
  return {x, concat0(b, hs), concat0(b, cs)};
}

} // namespace torch2onnx
