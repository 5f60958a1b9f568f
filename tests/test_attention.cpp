#include "harness.h"

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

const char *kMhaMasked = R"IR(
graph(%x : Tensor, %w : Tensor, %bq : Tensor, %pw : Tensor, %pb : Tensor, %m : Tensor):
  %E : int = prim::Constant[value=8]()
  %H : int = prim::Constant[value=2]()
  %none : NoneType = prim::Constant()
  %t : bool = prim::Constant[value=1]()
  %f : bool = prim::Constant[value=0]()
  %type : int = prim::Constant[value=1]()
  %y : Tensor, %a : Tensor = aten::_native_multi_head_attention(%x, %x, %x, %E, %H, %w, %bq, %pw, %pb, %m, %f, %t, %type)
  return (%y))IR";

std::string with(std::string ir, const std::string &need, const std::string &avg) {
  ir.replace(ir.find("NEED"), 4, need);
  ir.replace(ir.find("AVG"), 3, avg);
  return ir;
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
  SECTION("key padding mask") {
    auto mask = at::zeros({2, 5}, at::kBool);
    mask.index_put_({0, 4}, true);
    mask.index_put_({1, 2}, true);
    in.push_back(mask);
    auto r = check_ir_opsets(kMhaMasked, in);
    CHECK(r.count("Where") == 1);
  }
}
