#include "harness.h"

#include <catch2/catch.hpp>

using namespace t2o_test;

namespace {

// A full-sequence recurrent op with its weights as graph inputs (as nn.LSTM/GRU/RNN trace to,
// but with the frozen weight list replaced by inputs so nothing folds).
struct RnnCase {
  std::string op; // "lstm", "gru", "rnn_tanh", "rnn_relu"
  int64_t input = 3, hidden = 4, layers = 1, batch = 2, steps = 5;
  bool bidir = false, batch_first = false, bias = true;
  // Packed: pack_padded_sequence(x, lengths) -> the .data overload -> pad_packed_sequence to
  // `total` steps (0: `steps`) with `pad` in the gaps. Lengths sorted by decreasing length.
  std::vector<int64_t> lengths;
  int64_t total = 0;
  double pad = 0;
  // Return the packed data and batch_sizes too (false: only what pad_packed_sequence gives).
  bool return_packed = true;
};

int64_t gates(const std::string &op) {
  return op == "lstm" ? 4 : op == "gru" ? 3 : 1;
}

void run_case(const RnnCase &k) {
  int64_t nd = k.bidir ? 2 : 1, g = gates(k.op);
  std::vector<at::Tensor> inputs;
  std::string sig = "graph(%x : Tensor, %h0 : Tensor";
  bool packed = !k.lengths.empty();
  inputs.push_back(k.batch_first ? randn({k.batch, k.steps, k.input}, 1)
                                 : randn({k.steps, k.batch, k.input}, 1));
  inputs.push_back(randn({k.layers * nd, k.batch, k.hidden}, 2));
  if (packed) {
    sig += ", %lengths : Tensor";
    inputs.push_back(at::tensor(k.lengths, at::kLong));
  }
  if (k.op == "lstm") {
    sig += ", %c0 : Tensor";
    inputs.push_back(randn({k.layers * nd, k.batch, k.hidden}, 3));
  }
  std::vector<std::string> params;
  uint64_t seed = 10;
  for (int64_t l = 0; l < k.layers; ++l)
    for (int64_t d = 0; d < nd; ++d) {
      int64_t in = l == 0 ? k.input : k.hidden * nd;
      std::vector<std::vector<int64_t>> shapes = {{g * k.hidden, in}, {g * k.hidden, k.hidden}};
      if (k.bias) {
        shapes.push_back({g * k.hidden});
        shapes.push_back({g * k.hidden});
      }
      for (auto &s : shapes) {
        std::string name = "%p" + std::to_string(params.size());
        sig += ", " + name + " : Tensor";
        params.push_back(name);
        inputs.push_back(randn(s, seed++) * 0.5);
      }
    }
  std::string plist;
  for (size_t i = 0; i < params.size(); ++i)
    plist += (i ? ", " : "") + params[i];
  auto b = [](bool v) { return std::string(v ? "1" : "0"); };
  std::string ir = sig + "):\n" + "  %params : Tensor[] = prim::ListConstruct(" + plist + ")\n" +
                   "  %bias : bool = prim::Constant[value=" + b(k.bias) + "]()\n" +
                   "  %layers : int = prim::Constant[value=" + std::to_string(k.layers) + "]()\n" +
                   "  %drop : float = prim::Constant[value=0.]()\n" +
                   "  %train : bool = prim::Constant[value=0]()\n" +
                   "  %bidir : bool = prim::Constant[value=" + b(k.bidir) + "]()\n" +
                   "  %bf : bool = prim::Constant[value=" + b(k.batch_first) + "]()\n";
  std::string x = "%x", hx = k.op == "lstm" ? "%hx" : "%h0", tail = "%bidir, %bf)\n";
  if (k.op == "lstm")
    ir += "  %hx : Tensor[] = prim::ListConstruct(%h0, %c0)\n";
  if (packed) {
    ir += "  %data : Tensor, %bs : Tensor = aten::_pack_padded_sequence(%x, %lengths, %bf)\n";
    x = "%data, %bs";
    tail = "%bidir)\n";
  }
  std::string outs =
      k.op == "lstm" ? "%y : Tensor, %hn : Tensor, %cn : Tensor" : "%y : Tensor, %hn : Tensor";
  ir += "  " + outs + " = aten::" + k.op + "(" + x + ", " + hx +
        ", %params, %bias, %layers, %drop, %train, " + tail;
  std::string ret = "%y";
  if (packed) {
    ir += "  %pad : float = prim::Constant[value=" + std::to_string(k.pad) + "]()\n" +
          "  %total : int = prim::Constant[value=" + std::to_string(k.total ? k.total : k.steps) +
          "]()\n" +
          "  %out : Tensor, %lens : Tensor = aten::_pad_packed_sequence(%y, %bs, %bf, %pad, "
          "%total)\n";
    // the packed data and batch_sizes must be PyTorch's too
    ret = k.return_packed ? "%out, %lens, %y, %bs" : "%out, %lens";
  }
  ir += "  return (" + ret + (k.op == "lstm" ? ", %hn, %cn)" : ", %hn)");
  std::string onnx = k.op == "lstm" ? "LSTM" : k.op == "gru" ? "GRU" : "RNN";
  auto r = check_ir_opsets(ir, inputs);
  CHECK(r.count(onnx) == static_cast<size_t>(k.layers));
  if (packed && !k.return_packed) {
    // Nothing reads the packed rows: the recurrent node reads the padded input, and
    // pad_packed_sequence masks its padded output (rnn.cpp: note_padded_source).
    CHECK(r.count("Compress") == 0);
    CHECK(r.count("CumSum") == 0);
  }
}

// Single-step cells: weights as graph inputs.
void run_cell(const std::string &op, bool bias, bool batched) {
  int64_t g = gates(op == "lstm_cell" ? "lstm" : op == "gru_cell" ? "gru" : "rnn");
  int64_t in = 3, h = 5, b = 4;
  auto shape = [&](int64_t n) {
    return batched ? std::vector<int64_t>{b, n} : std::vector<int64_t>{n};
  };
  std::vector<at::Tensor> inputs = {randn(shape(in), 1), randn(shape(h), 2)};
  std::string sig = "graph(%x : Tensor, %h : Tensor";
  std::string hx = "%h";
  std::string pre;
  if (op == "lstm_cell") {
    sig += ", %c : Tensor";
    inputs.push_back(randn(shape(h), 3));
    pre = "  %hx : Tensor[] = prim::ListConstruct(%h, %c)\n";
    hx = "%hx";
  }
  sig += ", %wi : Tensor, %wh : Tensor";
  inputs.push_back(randn({g * h, in}, 4) * 0.5);
  inputs.push_back(randn({g * h, h}, 5) * 0.5);
  std::string biases = "%n, %n";
  if (bias) {
    sig += ", %bi : Tensor, %bh : Tensor";
    inputs.push_back(randn({g * h}, 6));
    inputs.push_back(randn({g * h}, 7));
    biases = "%bi, %bh";
  }
  std::string call = "aten::" + op + "(%x, " + hx + ", %wi, %wh, " + biases + ")";
  std::string ir = sig + "):\n  %n : NoneType = prim::Constant()\n" + pre;
  if (op == "lstm_cell")
    ir += "  %y : Tensor, %cy : Tensor = " + call + "\n  return (%y, %cy)";
  else
    ir += "  %y : Tensor = " + call + "\n  return (%y)";
  check_ir_opsets(ir, inputs);
}

} // namespace

TEST_CASE("aten::lstm", "[rnn]") {
  SECTION("one layer") {
    run_case({"lstm"});
  }
  SECTION("two layers, bidirectional, batch_first") {
    RnnCase k{"lstm"};
    k.layers = 2;
    k.bidir = true;
    k.batch_first = true;
    run_case(k);
  }
  SECTION("no biases") {
    RnnCase k{"lstm"};
    k.bias = false;
    k.bidir = true;
    run_case(k);
  }
}

TEST_CASE("aten::gru", "[rnn]") {
  SECTION("one layer") {
    run_case({"gru"});
  }
  SECTION("three layers, bidirectional, batch_first") {
    RnnCase k{"gru"};
    k.layers = 3;
    k.bidir = true;
    k.batch_first = true;
    run_case(k);
  }
  SECTION("no biases") {
    RnnCase k{"gru"};
    k.bias = false;
    run_case(k);
  }
}

// nn.LSTM / nn.GRU on a PackedSequence: per-sequence final states and zero (or `pad`) past
// each sequence's end, as pack_padded_sequence -> rnn -> pad_packed_sequence gives them.
TEST_CASE("aten::_pack_padded_sequence", "[rnn]") {
  for (const char *op : {"lstm", "gru"}) {
    SECTION(std::string(op) + " one layer") {
      RnnCase k{op};
      k.batch = 3;
      k.lengths = {5, 3, 1};
      run_case(k);
    }
    SECTION(std::string(op) + " two layers bidirectional batch_first") {
      RnnCase k{op};
      k.batch = 4;
      k.layers = 2;
      k.bidir = true;
      k.batch_first = true;
      k.lengths = {5, 4, 4, 2};
      run_case(k);
    }
  }
  for (const char *op : {"lstm", "gru"})
    SECTION(std::string(op) + " without the packed values: padded in and out") {
      RnnCase k{op};
      k.batch = 4;
      k.layers = 2;
      k.bidir = true;
      k.batch_first = true;
      k.lengths = {4, 4, 2, 1}; // the input's steps past a length are random, not zeros
      k.return_packed = false;
      run_case(k);
    }
  SECTION("all sequences shorter than the input") {
    RnnCase k{"gru"};
    k.batch = 3;
    k.bidir = true;
    k.lengths = {3, 2, 2};
    k.total = 3;
    run_case(k);
  }
}

TEST_CASE("aten::_pad_packed_sequence", "[rnn]") {
  SECTION("padding value and total_length beyond the longest sequence") {
    RnnCase k{"lstm"};
    k.batch = 3;
    k.batch_first = true;
    k.bidir = true;
    k.lengths = {5, 2, 1};
    k.total = 7;
    k.pad = -2.5;
    run_case(k);
    k.return_packed = false; // from the padded output: 2 steps of padding added
    run_case(k);
  }
  SECTION("total_length between the longest sequence and the input's steps") {
    RnnCase k{"gru"};
    k.batch = 3;
    k.lengths = {3, 2, 1};
    k.total = 4; // the padded output has 5 steps: cut to 4
    k.pad = 7;
    k.return_packed = false;
    run_case(k);
  }
}

TEST_CASE("aten::rnn_tanh", "[rnn]") {
  run_case({"rnn_tanh"});
  RnnCase k{"rnn_tanh"};
  k.layers = 2;
  k.bidir = true;
  run_case(k);
}

TEST_CASE("aten::rnn_relu", "[rnn]") {
  RnnCase k{"rnn_relu"};
  k.layers = 2;
  k.bidir = true;
  k.batch_first = true;
  run_case(k);
}

TEST_CASE("aten::lstm_cell", "[rnn]") {
  run_cell("lstm_cell", true, true);
  run_cell("lstm_cell", false, true);
}

TEST_CASE("aten::gru_cell", "[rnn]") {
  run_cell("gru_cell", true, true);
  run_cell("gru_cell", false, true);
}

TEST_CASE("aten::rnn_tanh_cell", "[rnn]") {
  run_cell("rnn_tanh_cell", true, true);
  run_cell("rnn_tanh_cell", false, true);
}

TEST_CASE("aten::rnn_relu_cell", "[rnn]") {
  run_cell("rnn_relu_cell", true, true);
}

TEST_CASE("rnn in training mode with dropout is rejected", "[rnn]") {
  // Two layers sharing one 3x3 weight pair, no biases.
  auto ir = [](const char *drop, const char *train) {
    return std::string("graph(%x : Tensor, %h0 : Tensor, %w : Tensor, %r : Tensor):\n"
                       "  %params : Tensor[] = prim::ListConstruct(%w, %r, %w, %r)\n"
                       "  %f : bool = prim::Constant[value=0]()\n"
                       "  %t : bool = prim::Constant[value=") +
           train +
           "]()\n"
           "  %two : int = prim::Constant[value=2]()\n"
           "  %drop : float = prim::Constant[value=" +
           drop +
           "]()\n"
           "  %y : Tensor, %hn : Tensor = aten::rnn_tanh(%x, %h0, %params, %f, %two, %drop, %t, "
           "%f, %f)\n  return (%y, %hn)";
  };
  std::vector<at::Tensor> in = {randn({5, 2, 3}, 1), randn({2, 2, 3}, 2), randn({3, 3}, 3) * 0.5,
                                randn({3, 3}, 4) * 0.5};
  check_ir_opsets(ir("0.5", "0"), in); // eval mode: dropout is off
  CHECK(export_ir_error(ir("0.5", "1"), in).find("training mode") != std::string::npos);
}
