// In-place list edits (insert, xs[i] = v, pop, del xs[i]) and the number ops scripted loops use
// (range lengths, loop indices, `not`): on lists of known length they are bookkeeping in the
// walker, on lists built in a loop they become ONNX sequence ops; each checked against LibTorch.
#include "harness.h"

#include <catch2/catch.hpp>

using namespace t2o_test;

namespace {

// xs = [x, 2x, 3x]; xs[1] = x + 10; xs.insert(0, x - 1); xs.insert(-1, 5x); last = xs.pop();
// first = xs.pop(0); del xs[1]; stack(xs) + last + first.
const char *kKnownIr = R"IR(
graph(%x : Tensor):
  %0 : int = prim::Constant[value=0]()
  %1 : int = prim::Constant[value=1]()
  %m1 : int = prim::Constant[value=-1]()
  %two : int = prim::Constant[value=2]()
  %three : int = prim::Constant[value=3]()
  %five : int = prim::Constant[value=5]()
  %ten : int = prim::Constant[value=10]()
  %x2 : Tensor = aten::mul(%x, %two)
  %x3 : Tensor = aten::mul(%x, %three)
  %xs : Tensor[] = prim::ListConstruct(%x, %x2, %x3)
  %a : Tensor = aten::add(%x, %ten, %1)
  %s : Tensor[] = aten::_set_item(%xs, %1, %a)
  %b : Tensor = aten::sub(%x, %1, %1)
  aten::insert(%xs, %0, %b)
  %c : Tensor = aten::mul(%x, %five)
  aten::insert(%xs, %m1, %c)
  %last : Tensor = aten::pop(%xs, %m1)
  %first : Tensor = aten::pop(%xs, %0)
  aten::Delete(%xs, %1)
  %st : Tensor = aten::stack(%xs, %0)
  %y0 : Tensor = aten::add(%st, %last, %1)
  %y : Tensor = aten::add(%y0, %first, %1)
  return (%y))IR";

// The same edits on a list appended to in a loop over a dynamic dim (an ONNX sequence), with
// negative and positive positions.
const char *kRuntimeIr = R"IR(
graph(%x : Tensor):
  %true : bool = prim::Constant[value=1]()
  %0 : int = prim::Constant[value=0]()
  %1 : int = prim::Constant[value=1]()
  %m1 : int = prim::Constant[value=-1]()
  %m2 : int = prim::Constant[value=-2]()
  %xs : Tensor[] = prim::ListConstruct()
  %n : int = aten::size(%x, %0)
  prim::Loop(%n, %true)
    block0(%i : int):
      %r : Tensor = aten::select(%x, %0, %i)
      %v : Tensor = aten::mul(%r, %i)
      %l : Tensor[] = aten::append(%xs, %v)
      -> (%true)
  %x0 : Tensor = aten::select(%x, %0, %0)
  aten::insert(%xs, %0, %x0)
  %w : Tensor = aten::sub(%x0, %1, %1)
  %s : Tensor[] = aten::_set_item(%xs, %m1, %w)
  %s2 : Tensor[] = aten::_set_item(%xs, %1, %w)
  %p : Tensor = aten::pop(%xs, %1)
  aten::Delete(%xs, %m2)
  aten::insert(%xs, %m1, %p)
  %q : Tensor = aten::pop(%xs, %m1)
  %st : Tensor = aten::stack(%xs, %0)
  %y : Tensor = aten::add(%st, %q, %1)
  return (%y))IR";

} // namespace

TEST_CASE("aten::insert", "[lists]") {
  SECTION("list of known length") {
    auto r = check_ir_opsets(kKnownIr, {randn({2, 3})});
    CHECK(r.count("SequenceInsert") == 0);
  }
  SECTION("list built in a loop over a dynamic dim") {
    auto r = check_ir_dynamic(kRuntimeIr, {randn({5, 3}, 2)}, {randn({8, 3}, 3)});
    CHECK(r.count("SequenceInsert") >= 2);
    CHECK(r.count("SequenceErase") >= 2);
  }
}

// a + b, a += b and a.extend(b) on lists: c = [x] + [2x]; c += [2x]; c.extend([x]), and len(a)
// of the unchanged left operand.
const char *kConcatKnownIr = R"IR(
graph(%x : Tensor):
  %0 : int = prim::Constant[value=0]()
  %two : int = prim::Constant[value=2]()
  %x2 : Tensor = aten::mul(%x, %two)
  %a : Tensor[] = prim::ListConstruct(%x)
  %b : Tensor[] = prim::ListConstruct(%x2)
  %c : Tensor[] = aten::add(%a, %b)
  %d : Tensor[] = aten::add_(%c, %b)
  aten::extend(%c, %a)
  %st : Tensor = aten::stack(%c, %0)
  %n : int = aten::len(%a)
  %y : Tensor = aten::mul(%st, %n)
  return (%y))IR";

// Tacotron2's decoder: `while len(outs) < n: outs += [frame(len(outs))]`, a list built at run
// time; then [first] + outs (known items in front) and outs.extend([first]).
const char *kConcatRuntimeIr = R"IR(
graph(%x : Tensor):
  %0 : int = prim::Constant[value=0]()
  %max : int = prim::Constant[value=9223372036854775807]()
  %xs : Tensor[] = prim::ListConstruct()
  %n : int = aten::size(%x, %0)
  %l0 : int = aten::len(%xs)
  %c0 : bool = aten::lt(%l0, %n)
  prim::Loop(%max, %c0)
    block0(%i : int):
      %k : int = aten::len(%xs)
      %r : Tensor = aten::select(%x, %0, %k)
      %v : Tensor = aten::mul(%r, %k)
      %one : Tensor[] = prim::ListConstruct(%v)
      %xs2 : Tensor[] = aten::add_(%xs, %one)
      %k2 : int = aten::len(%xs)
      %go : bool = aten::lt(%k2, %n)
      -> (%go)
  %first : Tensor = aten::select(%x, %0, %0)
  %pre : Tensor[] = prim::ListConstruct(%first)
  %all : Tensor[] = aten::add(%pre, %xs)
  aten::extend(%all, %pre)
  %y : Tensor = aten::stack(%all, %0)
  return (%y))IR";

TEST_CASE("list concatenation: aten::add aten::add_ and aten::extend", "[lists]") {
  SECTION("lists of known length") {
    auto r = check_ir_opsets(kConcatKnownIr, {randn({2, 3})});
    CHECK(r.count("SequenceInsert") == 0);
  }
  SECTION("a list built in a while loop on its length") {
    auto r = check_ir_dynamic(kConcatRuntimeIr, {randn({5, 3}, 2)}, {randn({8, 3}, 3)});
    CHECK(r.count("Loop") == 1);
    CHECK(r.count("SequenceInsert") >= 3);
  }
}

// Emformer's attention mask: masks = [a, b] made while a and b are empty, then a and b filled
// (in a loop), then cat(m) for m in masks. Python lists are shared: the outer list sees the
// appends. `n` is a loop bound: a constant (unrolled) or a dynamic dim (a sequence).
const char *kNestedListsIr = R"IR(
graph(%x : Tensor):
  %true : bool = prim::Constant[value=1]()
  %0 : int = prim::Constant[value=0]()
  %two : int = prim::Constant[value=2]()
  %a : Tensor[] = prim::ListConstruct()
  %b : Tensor[] = prim::ListConstruct()
  %masks : Tensor[][] = prim::ListConstruct(%a, %b)
  %n : int = aten::size(%x, %0)
  prim::Loop(%n, %true)
    block0(%i : int):
      %r : Tensor = aten::select(%x, %0, %i)
      %l : Tensor[] = aten::append(%a, %r)
      %r2 : Tensor = aten::mul(%r, %two)
      %l2 : Tensor[] = aten::append(%b, %r2)
      -> (%true)
  %first : Tensor[] = aten::__getitem__(%masks, %0)
  %c1 : Tensor = aten::cat(%first, %0)
  %p : Tensor[], %q : Tensor[] = prim::ListUnpack(%masks)
  %c2 : Tensor = aten::cat(%q, %0)
  %both : Tensor[] = prim::ListConstruct(%c1, %c2)
  %y : Tensor = aten::cat(%both, %0)
  return (%y))IR";

TEST_CASE("a list of lists sees appends made to its inner lists later", "[lists]") {
  SECTION("loop unrolled: lists of known length") {
    check_ir_opsets(kNestedListsIr, {randn({3, 4})});
  }
  SECTION("loop over a dynamic dim: sequences") {
    auto r = check_ir_dynamic(kNestedListsIr, {randn({20, 4}, 2)}, {randn({25, 4}, 3)});
    CHECK(r.count("Loop") == 1);
  }
}

TEST_CASE("aten::_set_item", "[lists]") {
  // Also the dict form: d["a"] = x + 1 replaces, d["c"] = x adds a key.
  check_ir_opsets(R"IR(
graph(%x : Tensor):
  %1 : int = prim::Constant[value=1]()
  %ka : str = prim::Constant[value="a"]()
  %kb : str = prim::Constant[value="b"]()
  %kc : str = prim::Constant[value="c"]()
  %x2 : Tensor = aten::neg(%x)
  %d : Dict(str, Tensor) = prim::DictConstruct(%ka, %x, %kb, %x2)
  %x1 : Tensor = aten::add(%x, %1, %1)
  aten::_set_item(%d, %ka, %x1)
  aten::_set_item(%d, %kc, %x)
  %a : Tensor = aten::__getitem__(%d, %ka)
  %c : Tensor = aten::__getitem__(%d, %kc)
  %y : Tensor = aten::mul(%a, %c)
  return (%y))IR",
                  {randn({2, 3})});
  check_ir_opsets(kKnownIr, {randn({3}, 4)});
}

TEST_CASE("aten::pop", "[lists]") {
  check_ir_opsets(kKnownIr, {randn({4}, 5)});
  check_ir_dynamic(kRuntimeIr, {randn({4, 2}, 6)}, {randn({6, 2}, 7)});
}

TEST_CASE("aten::Delete", "[lists]") {
  check_ir_opsets(kKnownIr, {randn({1, 2}, 8)});
  check_ir_dynamic(kRuntimeIr, {randn({3, 2}, 9)}, {randn({7, 2}, 10)});
}

TEST_CASE("a list index out of range is an error naming the op", "[lists]") {
  std::string err = export_ir_error(R"IR(
graph(%x : Tensor):
  %five : int = prim::Constant[value=5]()
  %xs : Tensor[] = prim::ListConstruct(%x, %x)
  %p : Tensor = aten::pop(%xs, %five)
  return (%p))IR",
                                    {randn({2})});
  CHECK(!err.empty());
}

// for i in range(lo, hi, step) over runtime bounds: its length, the loop variable, and `not`.
TEST_CASE("aten::__range_length", "[lists]") {
  const char *ir = R"IR(
graph(%x : Tensor):
  %0 : int = prim::Constant[value=0]()
  %1 : int = prim::Constant[value=1]()
  %2 : int = prim::Constant[value=2]()
  %3 : int = prim::Constant[value=3]()
  %m1 : int = prim::Constant[value=-1]()
  %m3 : int = prim::Constant[value=-3]()
  %n : int = aten::size(%x, %0)
  %up : int = aten::__range_length(%1, %n, %2)
  %down : int = aten::__range_length(%n, %m1, %m3)
  %empty : int = aten::__range_length(%n, %1, %2)
  %j : int = aten::__derive_index(%n, %3, %m3)
  %gt : bool = aten::gt(%n, %3)
  %ng : bool = aten::__not__(%gt)
  %t0 : Tensor = prim::NumToTensor(%up)
  %t1 : Tensor = prim::NumToTensor(%down)
  %t2 : Tensor = prim::NumToTensor(%empty)
  %t3 : Tensor = prim::NumToTensor(%j)
  %t4 : Tensor = prim::NumToTensor(%ng)
  return (%t0, %t1, %t2, %t3, %t4))IR";
  check_ir_dynamic(ir, {randn({2, 3})}, {randn({7, 3}, 2)});
  check_ir_dynamic(ir, {randn({4, 3})}, {randn({5, 3}, 2)}, 13);
}

TEST_CASE("aten::__derive_index", "[lists]") {
  // A scripted `for j in range(3, n + 7, 3)` after freezing: __range_length gives the trip count,
  // __derive_index the loop variable.
  check_ir_dynamic(R"IR(
graph(%x : Tensor):
  %true : bool = prim::Constant[value=1]()
  %0 : int = prim::Constant[value=0]()
  %1 : int = prim::Constant[value=1]()
  %3 : int = prim::Constant[value=3]()
  %7 : int = prim::Constant[value=7]()
  %n : int = aten::size(%x, %0)
  %hi : int = aten::add(%n, %7)
  %len : int = aten::__range_length(%3, %hi, %3)
  %acc : Tensor = prim::Loop(%len, %true, %x)
    block0(%i : int, %a : Tensor):
      %j : int = aten::__derive_index(%i, %3, %3)
      %a1 : Tensor = aten::add(%a, %j, %1)
      -> (%true, %a1)
  return (%acc))IR",
                   {randn({2, 3})}, {randn({6, 3}, 2)});
}

TEST_CASE("aten::__not__", "[lists]") {
  check_ir_opsets(R"IR(
graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %s : Tensor = aten::sum(%x, %none)
  %b : bool = aten::Bool(%s)
  %n : bool = aten::__not__(%b)
  %t : Tensor = prim::NumToTensor(%n)
  return (%t))IR",
                  {randn({3})});
}

// sizes: List[int] = counts.tolist(); torch.split(x, sizes): sort-based mixture-of-experts
// dispatch. A tensor whose length follows the data (here masked_select's) gives an ONNX sequence
// (SplitToSequence); one of known length gives a list of runtime ints (Split by their stack).
TEST_CASE("prim::tolist", "[lists]") {
  const char *seq_ir = R"IR(
graph(%x : Tensor, %counts : Tensor):
  %none : NoneType = prim::Constant()
  %false : bool = prim::Constant[value=0]()
  %0 : int = prim::Constant[value=0]()
  %1 : int = prim::Constant[value=1]()
  %2 : int = prim::Constant[value=2]()
  %m1 : int = prim::Constant[value=-1]()
  %used : Tensor = aten::gt(%counts, %0)
  %nonempty : Tensor = aten::masked_select(%counts, %used)
  %sizes : int[] = prim::tolist(%nonempty, %1, %0)
  %chunks : Tensor[] = aten::split(%x, %sizes, %0)
  %a : Tensor = aten::__getitem__(%chunks, %0)
  %dims : int[] = prim::ListConstruct(%0)
  %sa : Tensor = aten::sum(%a, %dims, %false, %none)
  %c : Tensor = aten::__getitem__(%chunks, %m1)
  %sc : Tensor = aten::sum(%c, %dims, %false, %none)
  %c2 : Tensor = aten::mul(%sc, %2)
  %y : Tensor = aten::add(%sa, %c2, %1)
  %n : int = aten::len(%chunks)
  return (%y, %n))IR";
  auto counts = [](std::vector<int64_t> v) { return at::tensor(v); };
  auto r = check_ir_opsets(seq_ir, {randn({6, 3}, 13), counts({2, 0, 1, 3})});
  CHECK(r.count("SplitToSequence") >= 2);

  const char *list_ir = R"IR(
graph(%x : Tensor, %sizes_t : Tensor):
  %0 : int = prim::Constant[value=0]()
  %1 : int = prim::Constant[value=1]()
  %sizes : int[] = prim::tolist(%sizes_t, %1, %0)
  %pieces : Tensor[] = aten::split(%x, %sizes, %1)
  %a : Tensor, %b : Tensor, %c : Tensor = prim::ListUnpack(%pieces)
  %s : int = aten::__getitem__(%sizes, %1)
  %b2 : Tensor = aten::mul(%b, %s)
  return (%a, %b2, %c))IR";
  // Split takes run-time sizes from opset 13; below, the sizes must be constants.
  check_ir(list_ir, {randn({2, 6}, 14), counts({1, 3, 2})}, 13);
  check_ir(list_ir, {randn({2, 6}, 14), counts({1, 3, 2})}, 21);
  CHECK_THAT(export_ir_error(list_ir, {randn({2, 6}, 14), counts({1, 3, 2})}, 11),
             Catch::Contains("opset 13"));
}

// list(xs): a copy of a list of known length and of a list built in a loop (an ONNX sequence).
TEST_CASE("aten::list", "[lists]") {
  const char *known = R"IR(
graph(%x : Tensor):
  %0 : int = prim::Constant[value=0]()
  %two : int = prim::Constant[value=2]()
  %x2 : Tensor = aten::mul(%x, %two)
  %xs : Tensor[] = prim::ListConstruct(%x, %x2)
  %ys : Tensor[] = aten::list(%xs)
  %y : Tensor = aten::stack(%ys, %0)
  return (%y))IR";
  check_ir(known, {randn({2, 3})});
  const char *runtime = R"IR(
graph(%x : Tensor):
  %true : bool = prim::Constant[value=1]()
  %0 : int = prim::Constant[value=0]()
  %xs : Tensor[] = prim::ListConstruct()
  %n : int = aten::size(%x, %0)
  prim::Loop(%n, %true)
    block0(%i : int):
      %r : Tensor = aten::select(%x, %0, %i)
      %l : Tensor[] = aten::append(%xs, %r)
      -> (%true)
  %ys : Tensor[] = aten::list(%xs)
  %y : Tensor = aten::stack(%ys, %0)
  return (%y))IR";
  check_ir_dynamic(runtime, {randn({3, 2})}, {randn({5, 2})});
}

// x.size()[1:] with symbolic dims (scripted nn.GroupNorm: list(input.size()[2:])): a list of
// runtime ints sliced at export time; and len(x) of a tensor whose first dim is symbolic.
TEST_CASE("aten::slice on a list of runtime sizes, aten::len of a tensor", "[lists]") {
  const std::string g = R"IR(
graph(%x : Tensor):
  %s : int[] = aten::size(%x)
  %one : int = prim::Constant[value=1]()
  %m1 : int = prim::Constant[value=-1]()
  %none : NoneType = prim::Constant()
  %t : int[] = aten::slice(%s, %one, %none, %one)
  %u : int[] = aten::slice(%s, %m1, %none, %one)
  %lead : int[] = prim::ListConstruct(%m1)
  %shape : int[] = aten::add(%lead, %t)
  %y : Tensor = aten::reshape(%x, %shape)
  %n : int = aten::len(%x)
  %w : int = aten::__getitem__(%u, %m1)
  %k : int = aten::mul(%n, %w)
  %z : Tensor = aten::mul(%y, %k)
  return (%z))IR";
  auto r = check_ir_dynamic(g, {randn({2, 3, 4}, 2)}, {randn({5, 3, 6}, 3)});
  CHECK(r.count("Shape") >= 1);
}

TEST_CASE("aten::eq and aten::ne on lists of runtime sizes", "[lists]") {
  // x.size() != w.size() (F.embedding_bag's per_sample_weights check) with symbolic dims: equal
  // lengths compare item by item at run time; other lengths differ at export time.
  const std::string g = R"IR(
graph(%x : Tensor, %y : Tensor, %z : Tensor):
  %sx : int[] = aten::size(%x)
  %sy : int[] = aten::size(%y)
  %sz : int[] = aten::size(%z)
  %ne : bool = aten::ne(%sx, %sy)
  %eq : bool = aten::eq(%sx, %sy)
  %other : bool = aten::eq(%sx, %sz)
  %a : Tensor = prim::NumToTensor(%ne)
  %b : Tensor = prim::NumToTensor(%eq)
  %c : Tensor = prim::NumToTensor(%other)
  return (%a, %b, %c))IR";
  // Same shapes (eq true), then shapes that differ in a runtime dim (eq false).
  auto r = check_ir_dynamic(g, {randn({2, 3}), randn({2, 3}), randn({2, 3, 1})},
                            {randn({4, 3}, 2), randn({4, 3}, 3), randn({4, 3, 1}, 4)});
  CHECK(r.count("Equal") >= 1);
  check_ir_dynamic(g, {randn({2, 3}), randn({5, 3}), randn({2, 3, 1})},
                   {randn({4, 3}, 2), randn({3, 3}, 3), randn({4, 3, 1}, 4)});
}

TEST_CASE("aten::mul on a list of tensors: [x] * n", "[lists]") {
  // torch.cat([x] * 2) (a scripted classifier-free guidance batch), torch.stack(3 * [x, y]).
  const std::string g = R"IR(
graph(%x : Tensor, %y : Tensor):
  %two : int = prim::Constant[value=2]()
  %three : int = prim::Constant[value=3]()
  %one : int = prim::Constant[value=1]()
  %l : Tensor[] = prim::ListConstruct(%x)
  %r : Tensor[] = aten::mul(%l, %two)
  %a : Tensor = aten::cat(%r, %one)
  %p : Tensor[] = prim::ListConstruct(%x, %y)
  %q : Tensor[] = aten::mul(%three, %p)
  %b : Tensor = aten::stack(%q, %one)
  return (%a, %b))IR";
  check_ir_opsets(g, {randn({2, 3}), randn({2, 3}, 2)});
}
