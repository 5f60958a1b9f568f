#include "harness.h"

#include <limits>

using namespace t2o_test;

namespace {
const char *kMha = R"IR(
graph(%x : Tensor, %w : Tensor, %bq : Tensor, %pw : Tensor, %pb : Tensor):
  %E : int = prim::Constant[value=8]()
  %H : int = prim::Constant[value=2]()
  %none : NoneType = prim::Constant()
  %need : bool = prim::Constant[value=NEED]()
  %avg : bool = prim::Constant[value=AVG]()
  %y : Tensor, %a : Tensor = aten::_native_multi_head_attention(%x, %x, %x, %E, %H, %w, %bq, %pw, %pb, %none, %need, %avg, %none)
  return (%y, %a))IR";

// NEED (need_weights), AVG (average_attn_weights) and TYPE (mask_type) are filled in by masked().
const char *kMhaMasked = R"IR(
graph(%x : Tensor, %w : Tensor, %bq : Tensor, %pw : Tensor, %pb : Tensor, %m : Tensor):
  %E : int = prim::Constant[value=8]()
  %H : int = prim::Constant[value=2]()
  %none : NoneType = prim::Constant()
  %need : bool = prim::Constant[value=NEED]()
  %avg : bool = prim::Constant[value=AVG]()
  %type : int = prim::Constant[value=TYPE]()
  %y : Tensor, %a : Tensor = aten::_native_multi_head_attention(%x, %x, %x, %E, %H, %w, %bq, %pw, %pb, %m, %need, %avg, %type)
  return (OUTS))IR";

// A nested query made from x and a keep mask (True = real token), as nn.TransformerEncoder does.
const char *kMhaNested = R"IR(
graph(%x : Tensor, %w : Tensor, %bq : Tensor, %pw : Tensor, %pb : Tensor, %keep : Tensor):
  %E : int = prim::Constant[value=8]()
  %H : int = prim::Constant[value=2]()
  %none : NoneType = prim::Constant()
  %f : bool = prim::Constant[value=0]()
  %zero : float = prim::Constant[value=0.]()
  %n : Tensor = aten::_nested_tensor_from_mask(%x, %keep, %f)
  %o : Tensor, %a : Tensor = aten::_native_multi_head_attention(%n, %n, %n, %E, %H, %w, %bq, %pw, %pb, %none, %f, %f, %none)
  %y : Tensor = aten::to_padded_tensor(%o, %zero, %none)
  return (%y))IR";

std::string with(std::string ir, const std::string &need, const std::string &avg) {
  ir.replace(ir.find("NEED"), 4, need);
  ir.replace(ir.find("AVG"), 3, avg);
  return ir;
}

std::string masked(const std::string &need, const std::string &avg, const std::string &type,
                   const std::string &outs) {
  std::string ir = with(kMhaMasked, need, avg);
  ir.replace(ir.find("TYPE"), 4, type);
  ir.replace(ir.find("OUTS"), 4, outs);
  return ir;
}

// A [2, 5] key padding mask (True = ignore) that leaves every row some keys.
at::Tensor key_padding_mask() {
  auto mask = at::zeros({2, 5}, at::kBool);
  mask[0][4] = true;
  mask[1][2] = true;
  mask[1][3] = true;
  return mask;
}
} // namespace

TEST_CASE("aten::_native_multi_head_attention", "[attention]") {
  std::vector<at::Tensor> in = {randn({2, 5, 8}, 1), randn({24, 8}, 2), randn({24}, 3),
                                randn({8, 8}, 4), randn({8}, 5)};
  SECTION("self-attention with averaged weights") {
    auto r = check_ir_opsets(with(kMha, "1", "1"), in);
    CHECK(r.count("Softmax") == 1);
  }
  SECTION("per-head weights") {
    check_ir_opsets(with(kMha, "1", "0"), in);
  }
  // [L, S] attention masks (mask_type 0) run only on CUDA in LibTorch 1.13 ("src_mask not
  // currently supported on CPU") and nn.MultiheadAttention takes its slow path for them, so they
  // cannot be compared here; the 4-d mask below covers a mask per query.
  SECTION("key padding mask without weights") {
    in.push_back(key_padding_mask());
    auto r = check_ir_opsets(masked("0", "1", "1", "%y"), in);
    CHECK(r.count("Where") == 1);
    CHECK(r.count("ReduceMean") == 0);
  }
  SECTION("key padding mask with averaged and per-head weights") {
    in.push_back(key_padding_mask());
    check_ir_opsets(masked("1", "1", "1", "%y, %a"), in);
    check_ir_opsets(masked("1", "0", "1", "%y, %a"), in);
  }
  SECTION("float key padding mask: LibTorch turns nonzero into masked") {
    auto mask = at::zeros({2, 5});
    mask[0][4] = -std::numeric_limits<float>::infinity();
    mask[1][1] = 1.0;
    in.push_back(mask);
    check_ir_opsets(masked("1", "1", "1", "%y, %a"), in);
  }
  SECTION("a [B, H, L, S] mask, as mask_type 1 and 2") {
    auto mask = at::rand({2, 2, 5, 5}, at::TensorOptions().dtype(at::kFloat)) > 0.6;
    mask.select(3, 0).fill_(false); // every query keeps key 0
    in.push_back(mask);
    check_ir_opsets(masked("1", "0", "1", "%y, %a"), in);
    check_ir_opsets(masked("1", "1", "2", "%y, %a"), in);
  }
  SECTION("nested query from a padding mask") {
    in.push_back(key_padding_mask().logical_not());
    auto r = check_ir_opsets(kMhaNested, in);
    // Rows of 4 and 3 real tokens: 4 positions, row 1's last one padding (zeros).
    REQUIRE(r.torch_outputs[0].size(1) == 4);
    CHECK(r.torch_outputs[0][1][3].abs().sum().item<float>() == 0);
  }
}
