// The transformer fast paths: aten::_transformer_encoder_layer_fwd, the nested tensors
// nn.TransformerEncoder makes from a padding mask, and the device moves that are no-ops in ONNX.
#include "harness.h"
#include "ir_text.h"

#include <limits>

using namespace t2o_test;

namespace {

constexpr int64_t kE = 8, kF = 16; // embed dim (2 heads), feed-forward dim

// One encoder layer; GELU and NORM_FIRST are 0/1, MASK and MASK_TYPE the last two arguments.
const char *kLayer = R"IR(
graph(%x : Tensor, %qw : Tensor, %qb : Tensor, %pw : Tensor, %pb : Tensor, %n1w : Tensor,
      %n1b : Tensor, %n2w : Tensor, %n2b : Tensor, %f1w : Tensor, %f1b : Tensor, %f2w : Tensor,
      %f2b : Tensor ARGS):
  %E : int = prim::Constant[value=8]()
  %H : int = prim::Constant[value=2]()
  %none : NoneType = prim::Constant()
  %gelu : bool = prim::Constant[value=GELU]()
  %norm_first : bool = prim::Constant[value=NORM_FIRST]()
  %eps : float = prim::Constant[value=1.0000000000000001e-05]()
  %one : int = prim::Constant[value=1]()
  %false : bool = prim::Constant[value=0]()
  %pad : float = prim::Constant[value=PAD]()
BODY
  return (%y))IR";

const char *kLayerCall =
    "aten::_transformer_encoder_layer_fwd(%IN, %E, %H, %qw, %qb, %pw, %pb, %gelu, %norm_first, "
    "%eps, %n1w, %n1b, %n2w, %n2b, %f1w, %f1b, %f2w, %f2b, MASK)";

void replace(std::string &s, const std::string &from, const std::string &to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

struct LayerIr {
  bool gelu = false, norm_first = false;
  std::string args;       // extra graph arguments, e.g. ", %m : Tensor"
  std::string body;       // lines using LAYER(input, mask) placeholders, defining %y
  std::string pad = "0."; // the %pad constant
};

// `body` may call the layer as "LAYER(in|mask)"; each becomes one aten call.
std::string layer_ir(const LayerIr &l) {
  std::string ir = kLayer;
  replace(ir, "ARGS", l.args);
  replace(ir, "GELU", l.gelu ? "1" : "0");
  replace(ir, "NORM_FIRST", l.norm_first ? "1" : "0");
  replace(ir, "PAD", l.pad);
  std::string body = l.body;
  for (size_t at = body.find("LAYER("); at != std::string::npos; at = body.find("LAYER(")) {
    size_t bar = body.find('|', at), close = body.find(')', at);
    std::string call = kLayerCall;
    replace(call, "%IN", body.substr(at + 6, bar - at - 6));
    replace(call, "MASK", body.substr(bar + 1, close - bar - 1));
    body.replace(at, close + 1 - at, call);
  }
  replace(ir, "BODY", body);
  return ir;
}

// x [2, 5, E] and the layer's weights.
std::vector<at::Tensor> layer_inputs() {
  return {randn({2, 5, kE}, 1),    randn({3 * kE, kE}, 2), randn({3 * kE}, 3),
          randn({kE, kE}, 4),      randn({kE}, 5),         randn({kE}, 6) + 1,
          randn({kE}, 7),          randn({kE}, 8) + 1,     randn({kE}, 9),
          randn({kF, kE}, 10) / 2, randn({kF}, 11),        randn({kE, kF}, 12) / 2,
          randn({kE}, 13)};
}

// A padding mask [2, 5] (True = padding): row 0 has `full0` real tokens, row 1 has 3.
at::Tensor padding_mask(int64_t full0 = 5) {
  auto m = at::zeros({2, 5}, at::kBool);
  m[0].narrow(0, full0, 5 - full0).fill_(true);
  m[1].narrow(0, 3, 2).fill_(true);
  return m;
}

} // namespace

TEST_CASE("aten::_transformer_encoder_layer_fwd", "[transformer]") {
  auto in = layer_inputs();
  LayerIr l;
  l.body = "  %y : Tensor = LAYER(%x|%none, %none)";
  SECTION("post-norm relu") {
    auto r = check_ir_opsets(layer_ir(l), in);
    CHECK(r.count("Softmax") == 1);
    CHECK(r.count("LayerNormalization") == 2);
    CHECK(r.count("Relu") == 1);
  }
  SECTION("pre-norm gelu") {
    l.gelu = l.norm_first = true;
    auto r = check_ir_opsets(layer_ir(l), in);
    CHECK(r.count("Gelu") == 1); // the registry's gelu at opset 21 (Gelu, from opset 20)
  }
  SECTION("key padding mask (mask_type 1) post-norm and pre-norm gelu") {
    l.args = ", %m : Tensor";
    l.body = "  %y : Tensor = LAYER(%x|%m, %one)";
    in.push_back(padding_mask(4));
    auto r = check_ir_opsets(layer_ir(l), in);
    CHECK(r.count("Where") == 1);
    l.gelu = l.norm_first = true;
    check_ir_opsets(layer_ir(l), in);
  }
  SECTION("float key padding mask: nonzero ignores the key as in LibTorch") {
    l.args = ", %m : Tensor";
    l.body = "  %y : Tensor = LAYER(%x|%m, %one)";
    auto m = at::zeros({2, 5});
    m[0][4] = -std::numeric_limits<float>::infinity();
    m[1][1] = 0.5;
    in.push_back(m);
    check_ir_opsets(layer_ir(l), in);
  }
  SECTION("two stacked layers") {
    l.body = "  %h : Tensor = LAYER(%x|%none, %none)\n  %y : Tensor = LAYER(%h|%none, %none)";
    check_ir_opsets(layer_ir(l), in);
  }
}

TEST_CASE("nested tensors from a padding mask", "[transformer]") {
  auto in = layer_inputs();
  LayerIr l;
  l.args = ", %m : Tensor";
  // As nn.TransformerEncoder with enable_nested_tensor: mask.logical_not() keeps the real tokens.
  const std::string to_nested =
      "  %keep : Tensor = aten::logical_not(%m)\n"
      "  %n : Tensor = aten::_nested_tensor_from_mask(%x, %keep, %false)\n";
  SECTION("two layers, one full row: to_padded_tensor zeroes the padding") {
    l.body = to_nested + "  %h : Tensor = LAYER(%n|%none, %none)\n"
                         "  %o : Tensor = LAYER(%h|%none, %none)\n"
                         "  %y : Tensor = aten::to_padded_tensor(%o, %pad, %none)";
    in.push_back(padding_mask(5));
    auto r = check_ir_opsets(layer_ir(l), in);
    REQUIRE(r.torch_outputs.size() == 1);
    CHECK(r.torch_outputs[0].size(1) == 5);
    CHECK(r.torch_outputs[0][1][4].abs().sum().item<float>() == 0);
  }
  SECTION("no full row: the result is as long as the longest row, padded with -1") {
    l.pad = "-1.";
    l.body = to_nested + "  %o : Tensor = LAYER(%n|%none, %none)\n"
                         "  %y : Tensor = aten::to_padded_tensor(%o, %pad, %none)";
    in.push_back(padding_mask(4));
    auto r = check_ir_opsets(layer_ir(l), in);
    REQUIRE(r.torch_outputs.size() == 1);
    CHECK(r.torch_outputs[0].size(1) == 4);
    CHECK(r.count("Slice") == 1);
  }
  SECTION("to_padded_tensor with output_size") {
    l.body = to_nested + "  %o : Tensor = LAYER(%n|%none, %none)\n"
                         "  %six : int = prim::Constant[value=6]()\n"
                         "  %two : int = prim::Constant[value=2]()\n"
                         "  %size : int[] = prim::ListConstruct(%two, %six, %E)\n"
                         "  %y : Tensor = aten::to_padded_tensor(%o, %pad, %size)";
    in.push_back(padding_mask(4));
    auto r = check_ir_opsets(layer_ir(l), in);
    REQUIRE(r.torch_outputs.size() == 1);
    CHECK(r.torch_outputs[0].size(1) == 6);
  }
  SECTION("a mask with gaps keeps each row's first count(row) positions, as LibTorch does") {
    l.body = to_nested + "  %y : Tensor = aten::to_padded_tensor(%n, %pad, %none)";
    auto m = padding_mask(5);
    m[0][1] = true; // row 0: a gap at 1, so 4 real tokens: positions 0-3 are kept
    check_ir_opsets(
        "graph(%x : Tensor, %m : Tensor):\n  %false : bool = prim::Constant[value=0]()\n"
        "  %none : NoneType = prim::Constant()\n  %pad : float = prim::Constant[value=0.]()\n" +
            to_nested + "  %y : Tensor = aten::to_padded_tensor(%n, %pad, %none)\n  return (%y)",
        {in[0], m});
  }
}

TEST_CASE("aten::_nested_tensor_from_mask_left_aligned", "[transformer]") {
  const std::string ir = "graph(%x : Tensor, %m : Tensor):\n"
                         "  %b : bool = aten::_nested_tensor_from_mask_left_aligned(%x, %m)\n"
                         "  %y : Tensor = prim::NumToTensor(%b)\n  return (%y)";
  auto keep = padding_mask(4).logical_not();
  SECTION("left aligned") {
    auto r = check_ir_opsets(ir, {randn({2, 5, 3}), keep});
    CHECK(r.torch_outputs[0].item<bool>());
  }
  SECTION("a gap") {
    keep[0][1] = false;
    auto r = check_ir_opsets(ir, {randn({2, 5, 3}), keep});
    CHECK_FALSE(r.torch_outputs[0].item<bool>());
  }
}

TEST_CASE("device moves are no-ops", "[transformer]") {
  SECTION("aten::cpu") {
    auto r = check_ir_opsets(ir1("aten::cpu(%x)"), {randn({2, 3})});
    CHECK(r.op_types.size() <= 1); // at most the output Identity
  }
  SECTION("aten::to(device) in every overload that keeps the dtype") {
    auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %dev : Device = prim::Constant[value="cpu"]()
  %float : int = prim::Constant[value=6]()
  %a : Tensor = aten::to(%x, %dev, %float, %false, %false, %none)
  %b : Tensor = aten::to(%a, %dev, %none, %false, %false)
  %c : Tensor = aten::to(%b, %none, %none, %dev, %none, %false, %false, %none)
  %y : Tensor = aten::cpu(%c))IR"),
                             {randn({2, 3})});
    CHECK(r.count("Cast") == 0);
  }
}

// Scripted nn.TransformerEncoder / nn.MultiheadAttention pick their path at run time from these.
TEST_CASE("fast-path checks: autograd and autocast state, requires_grad, is_nested",
          "[transformer]") {
  SECTION("constants of an inference run") {
    auto r = check_ir_opsets(ir("%x : Tensor", R"IR(
  %g : bool = aten::is_grad_enabled()
  %a : bool = aten::is_autocast_enabled()
  %r : bool = prim::requires_grad(%x)
  %n : bool = prim::is_nested(%x)
  %ga : bool = aten::__or__(%g, %a)
  %rn : bool = aten::__or__(%r, %n)
  %any : bool = aten::__or__(%ga, %rn)
  %y : Tensor = prim::If(%any)
    block0():
      %p : Tensor = aten::neg(%x)
      -> (%p)
    block1():
      %q : Tensor = aten::relu(%x)
      -> (%q))IR"),
                             {randn({2, 3})});
    CHECK(r.count("If") == 0); // the decision folded
    CHECK(r.count("Relu") == 1);
  }
  SECTION("is_nested of a nested tensor") {
    auto keep = padding_mask(4).logical_not();
    auto r = check_ir_opsets(R"IR(
graph(%x : Tensor, %keep : Tensor):
  %false : bool = prim::Constant[value=0]()
  %none : NoneType = prim::Constant()
  %pad : float = prim::Constant[value=0.]()
  %n : Tensor = aten::_nested_tensor_from_mask(%x, %keep, %false)
  %nested : bool = prim::is_nested(%n)
  %m : Tensor = prim::If(%nested)
    block0():
      %p : Tensor = aten::to_padded_tensor(%n, %pad, %none)
      -> (%p)
    block1():
      -> (%x)
  %y : Tensor = aten::relu(%m)
  return (%y))IR",
                             {randn({2, 5, 3}), keep});
    CHECK(r.count("If") == 0);
  }
  SECTION("the device of a value the example run did not reach") {
    // %c is 0 in the example, so the first branch runs only in ONNX Runtime's If.
    check_ir_opsets(ir("%x : Tensor, %c : Tensor", R"IR(
  %b : bool = aten::Bool(%c)
  %y : Tensor = prim::If(%b)
    block0():
      %z : Tensor = aten::relu(%x)
      %dev : Device = prim::device(%z)
      %moved : Tensor = aten::to(%z, %dev, %none, %false, %false)
      -> (%moved)
    block1():
      %n : Tensor = aten::neg(%x)
      -> (%n))IR"),
                    {randn({2, 3}), at::zeros({}, at::kLong)});
  }
}
