// Recurrent steps in an ONNX Loop, for cells ONNX's LSTM/GRU/RNN ops cannot express (dynamically
// quantized cells: quantized_rnn.cpp; LSTMs with a projection: rnn_projected.cpp).
#pragma once

#include "aten_lib/converter.h"

#include <functional>
#include <utility>

namespace torch2onnx {

struct State {
  Val h, c; // [B, H]; c only for the LSTM
};

// One step of a direction: the state after step `t` (0-d int64) from the state `s` before it.
using StepFn = std::function<State(const Val &t, const State &s)>;

// The steps of one direction in an ONNX Loop of `steps` (0-d int64) iterations: `step` at t = i
// (T-1-i in reverse), the state carried, each step's h a scan output [T, B, H], put back in time
// order in reverse. Returns the outputs and the final state.
std::pair<Val, State> loop_steps(GraphBuilder &b, bool lstm, const Val &steps, const State &s,
                                 bool reverse, const StepFn &step);

struct ProjectedOut {
  Val y;      // [T, B, D*P], time-major
  Val hn, cn; // [layers*D, B, P], [layers*D, B, H]
};

// nn.LSTM with proj_size over the time-major x [T, B, in] (rnn_projected.cpp): `params` holds per
// layer and direction weight_ih, weight_hh, [bias_ih, bias_hh,] weight_hr; h0 [layers*D, B, P],
// c0 [layers*D, B, H].
ProjectedOut projected_lstm(GraphBuilder &b, Val x, const std::vector<Arg> &params, bool has_biases,
                            int64_t layers, bool bidir, const Val &h0, const Val &c0);

} // namespace torch2onnx
