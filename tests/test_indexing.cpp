#include "harness.h"
#include "ir_text.h"

#include <catch2/catch.hpp>

using namespace t2o_test;

namespace {

// The same for an in-place op acting on %x = -x0 (LibTorch must not modify the graph input).
std::string ir_inplace(const std::string &args, const std::string &body) {
  return ir("%x0 : Tensor, " + args, "  %x : Tensor = aten::neg(%x0)\n" + body);
}

// A random permutation along dim 0 of a [n, m] index tensor (no duplicate targets).
at::Tensor perm_index(int64_t n, int64_t m) {
  return at::argsort(at::rand({n, m}), 0, false);
}

} // namespace

TEST_CASE("aten::scatter", "[indexing]") {
  auto x = randn({4, 5}), src = randn({4, 5}, 2);
  SECTION("src") {
    auto r = check_ir_opsets(ir("%x : Tensor, %i : Tensor, %s : Tensor",
                                "  %y : Tensor = aten::scatter(%x, %0, %i, %s)"),
                             {x, perm_index(4, 5), src});
    CHECK(r.count("ScatterElements") == 1);
  }
  SECTION("smaller index, dim 1") {
    check_ir_opsets(ir("%x : Tensor, %i : Tensor, %s : Tensor",
                       "  %y : Tensor = aten::scatter(%x, %1, %i, %s)"),
                    {x, at::argsort(at::rand({3, 5}), 1, false).slice(1, 0, 3), src});
  }
  SECTION("value") {
    check_ir_opsets(
        ir("%x : Tensor, %i : Tensor", "  %y : Tensor = aten::scatter(%x, %0, %i, %half)"),
        {x, perm_index(2, 5)});
  }
  SECTION("reduce add / multiply, duplicates") {
    for (const char *red : {"add", "multiply"}) {
      std::string body = std::string("  %red : str = prim::Constant[value=\"") + red +
                         "\"]()\n  %y : Tensor = aten::scatter(%x, %0, %i, %s, %red)";
      check_ir_opsets(ir("%x : Tensor, %i : Tensor, %s : Tensor", body),
                      {x, ints({6, 5}, 0, 4), randn({6, 5}, 3)});
    }
  }
  SECTION("value reduce") {
    check_ir_opsets(ir("%x : Tensor, %i : Tensor",
                       "  %red : str = prim::Constant[value=\"add\"]()\n"
                       "  %y : Tensor = aten::scatter(%x, %1, %i, %half, %red)"),
                    {x, ints({4, 7}, 0, 5)});
  }
  SECTION("in place") {
    check_ir_opsets(
        ir_inplace("%i : Tensor, %s : Tensor", "  %y : Tensor = aten::scatter_(%x, %0, %i, %s)"),
        {x, perm_index(4, 5), src});
  }
}

TEST_CASE("aten::scatter_add", "[indexing]") {
  auto x = randn({3, 4, 5});
  auto idx = ints({3, 6, 5}, 0, 4);
  auto src = randn({3, 6, 5}, 2);
  auto r13 = check_ir(ir("%x : Tensor, %i : Tensor, %s : Tensor",
                         "  %y : Tensor = aten::scatter_add(%x, %1, %i, %s)"),
                      {x, idx, src}, 13);
  CHECK(r13.count("ScatterElements") == 0);
  auto r17 = check_ir(ir("%x : Tensor, %i : Tensor, %s : Tensor",
                         "  %y : Tensor = aten::scatter_add(%x, %1, %i, %s)"),
                      {x, idx, src}, 17);
  CHECK(r17.count("ScatterElements") == 1);
  check_ir_opsets(
      ir_inplace("%i : Tensor, %s : Tensor", "  %y : Tensor = aten::scatter_add_(%x, %2, %i, %s)"),
      {x, ints({3, 4, 2}, 0, 5), randn({3, 4, 2}, 4)});
  SECTION("int") {
    check_ir_opsets(ir("%x : Tensor, %i : Tensor, %s : Tensor",
                       "  %y : Tensor = aten::scatter_add(%x, %0, %i, %s)"),
                    {ints({4, 3}, -5, 5), ints({5, 3}, 0, 4), ints({5, 3}, -5, 5)});
  }
}

TEST_CASE("aten::scatter_reduce", "[indexing]") {
  auto x = randn({4, 5});
  auto idx = ints({6, 5}, 0, 4);
  auto src = randn({6, 5}, 2);
  for (const char *red : {"sum", "prod", "mean", "amax", "amin"}) {
    for (const char *self : {"%true", "%false"}) {
      DYNAMIC_SECTION(red << " include_self " << self) {
        std::string body = std::string("  %red : str = prim::Constant[value=\"") + red +
                           "\"]()\n  %y : Tensor = aten::scatter_reduce(%x, %0, %i, %s, %red, " +
                           self + ")";
        check_ir_opsets(ir("%x : Tensor, %i : Tensor, %s : Tensor", body), {x, idx, src});
      }
    }
  }
  SECTION("in place, int amax") {
    check_ir_opsets(
        ir_inplace("%i : Tensor, %s : Tensor",
                   "  %red : str = prim::Constant[value=\"amax\"]()\n"
                   "  %y : Tensor = aten::scatter_reduce_(%x, %1, %i, %s, %red, %false)"),
        {ints({3, 4}, -9, 9), ints({3, 6}, 0, 4), ints({3, 6}, -9, 9)});
  }
}

TEST_CASE("aten::index_put", "[indexing]") {
  auto x = randn({5, 4});
  SECTION("int index, values") {
    auto r = check_ir_opsets(ir("%x : Tensor, %i : Tensor, %v : Tensor",
                                "  %l : Tensor?[] = prim::ListConstruct(%i)\n"
                                "  %y : Tensor = aten::index_put(%x, %l, %v, %false)"),
                             {x, at::tensor({3, 0, -1}, at::kLong), randn({3, 4}, 2)});
    CHECK(r.count("ScatterND") == 1);
  }
  SECTION("two indices, broadcast value") {
    check_ir_opsets(
        ir("%x : Tensor, %i : Tensor, %j : Tensor, %v : Tensor",
           "  %l : Tensor?[] = prim::ListConstruct(%i, %j)\n"
           "  %y : Tensor = aten::index_put(%x, %l, %v, %false)"),
        {x, at::tensor({1, 4}, at::kLong), at::tensor({2, 0}, at::kLong), randn({}, 3)});
  }
  SECTION("mask") {
    check_ir_opsets(ir("%x : Tensor, %m : Tensor, %v : Tensor",
                       "  %l : Tensor?[] = prim::ListConstruct(%m)\n"
                       "  %y : Tensor = aten::index_put(%x, %l, %v, %false)"),
                    {x, at::rand({5, 4}) > 0.5, randn({1}, 3)});
  }
  SECTION("accumulate with duplicates") {
    check_ir_opsets(ir("%x : Tensor, %i : Tensor, %v : Tensor",
                       "  %l : Tensor?[] = prim::ListConstruct(%i)\n"
                       "  %y : Tensor = aten::index_put(%x, %l, %v, %true)"),
                    {x, at::tensor({1, 3, 1, 1}, at::kLong), randn({4, 4}, 2)});
  }
  SECTION("accumulate, two indices") {
    check_ir_opsets(
        ir("%x : Tensor, %i : Tensor, %j : Tensor, %v : Tensor",
           "  %l : Tensor?[] = prim::ListConstruct(%i, %j)\n"
           "  %y : Tensor = aten::index_put(%x, %l, %v, %true)"),
        {x, at::tensor({1, 4, 1}, at::kLong), at::tensor({2, 0, 2}, at::kLong), randn({3}, 3)});
  }
  SECTION("_index_put_impl_") {
    check_ir_opsets(ir_inplace("%i : Tensor, %v : Tensor",
                               "  %l : Tensor?[] = prim::ListConstruct(%i)\n"
                               "  %y : Tensor = aten::_index_put_impl_(%x, %l, %v, %true, %false)"),
                    {x, at::tensor({2, 2}, at::kLong), randn({2, 4}, 2)});
    check_ir_opsets(ir("%x : Tensor, %i : Tensor, %v : Tensor",
                       "  %l : Tensor?[] = prim::ListConstruct(%i)\n"
                       "  %y : Tensor = aten::_index_put_impl(%x, %l, %v, %false, %false)"),
                    {x, at::tensor({3, 1}, at::kLong), randn({2, 4}, 2)});
  }
  SECTION("in place") {
    check_ir_opsets(ir_inplace("%i : Tensor, %v : Tensor",
                               "  %l : Tensor?[] = prim::ListConstruct(%i)\n"
                               "  %y : Tensor = aten::index_put_(%x, %l, %v, %false)"),
                    {x, at::tensor({2, 0}, at::kLong), randn({2, 4}, 2)});
  }
  SECTION("indices after whole dims: boxes[:, [0, 2]] -= pad, cache[:, :, pos] = k, x[:, m] = 0") {
    const std::string cols = ir("%x : Tensor, %i : Tensor, %v : Tensor",
                                "  %l : Tensor?[] = prim::ListConstruct(%none, %i)\n"
                                "  %y : Tensor = aten::index_put(%x, %l, %v, %false)");
    check_ir_opsets(cols, {x, at::tensor({0, 2}, at::kLong), randn({2}, 2)});
    check_ir_dynamic(cols, {x, at::tensor({0, 2}, at::kLong), randn({5, 2}, 2)},
                     {randn({7, 4}, 4), at::tensor({3, 1}, at::kLong), randn({7, 2}, 5)});
    const std::string cache = ir("%x : Tensor, %i : Tensor, %v : Tensor",
                                 "  %l : Tensor?[] = prim::ListConstruct(%none, %none, %i)\n"
                                 "  %y : Tensor = aten::index_put(%x, %l, %v, %true)");
    check_ir_opsets(
        cache, {randn({1, 2, 8, 4}), at::tensor({5, 6, 5}, at::kLong), randn({1, 2, 3, 4}, 2)});
    check_ir_opsets(ir("%x : Tensor, %m : Tensor, %v : Tensor",
                       "  %l : Tensor?[] = prim::ListConstruct(%none, %m)\n"
                       "  %y : Tensor = aten::index_put(%x, %l, %v, %false)"),
                    {x, at::tensor({1, 0, 0, 1}).to(at::kBool), randn({1}, 3)});
  }
}

TEST_CASE("aten::index_add", "[indexing]") {
  auto x = randn({5, 3});
  check_ir_opsets(ir("%x : Tensor, %i : Tensor, %s : Tensor",
                     "  %y : Tensor = aten::index_add(%x, %0, %i, %s, %2)"),
                  {x, at::tensor({1, 4, 1, 0}, at::kLong), randn({4, 3}, 2)});
  check_ir_opsets(ir_inplace("%i : Tensor, %s : Tensor",
                             "  %y : Tensor = aten::index_add_(%x, %1, %i, %s, %1)"),
                  {x, at::tensor({2, 2}, at::kLong), randn({5, 2}, 2)});
}

TEST_CASE("aten::index_copy", "[indexing]") {
  auto x = randn({5, 3});
  auto r = check_ir_opsets(ir("%x : Tensor, %i : Tensor, %s : Tensor",
                              "  %y : Tensor = aten::index_copy(%x, %0, %i, %s)"),
                           {x, at::tensor({4, 1}, at::kLong), randn({2, 3}, 2)});
  CHECK(r.count("ScatterElements") == 1);
  check_ir_opsets(
      ir_inplace("%i : Tensor, %s : Tensor", "  %y : Tensor = aten::index_copy_(%x, %1, %i, %s)"),
      {x, at::tensor({2, 0}, at::kLong), randn({5, 2}, 2)});
}

TEST_CASE("aten::index_fill", "[indexing]") {
  auto x = randn({4, 5});
  check_ir_opsets(
      ir("%x : Tensor, %i : Tensor", "  %y : Tensor = aten::index_fill(%x, %1, %i, %half)"),
      {x, at::tensor({0, 3, -1}, at::kLong)});
  check_ir_opsets(ir("%x : Tensor, %i : Tensor, %v : Tensor",
                     "  %y : Tensor = aten::index_fill(%x, %0, %i, %v)"),
                  {x, at::tensor({2}, at::kLong), randn({}, 3)});
  check_ir_opsets(ir_inplace("%i : Tensor", "  %y : Tensor = aten::index_fill_(%x, %0, %i, %2)"),
                  {x, at::tensor({1, 2}, at::kLong)});
}

TEST_CASE("aten::masked_scatter", "[indexing]") {
  auto x = randn({3, 4});
  check_ir_opsets(ir("%x : Tensor, %m : Tensor, %s : Tensor",
                     "  %y : Tensor = aten::masked_scatter(%x, %m, %s)"),
                  {x, at::rand({3, 4}) > 0.5, randn({4, 5}, 2)});
  check_ir_opsets(
      ir_inplace("%m : Tensor, %s : Tensor", "  %y : Tensor = aten::masked_scatter_(%x, %m, %s)"),
      {x, at::rand({4}) > 0.3, randn({12}, 2)});
}

TEST_CASE("aten::masked_select", "[indexing]") {
  auto r =
      check_ir_opsets(ir("%x : Tensor, %m : Tensor", "  %y : Tensor = aten::masked_select(%x, %m)"),
                      {randn({3, 4}), at::rand({4}) > 0.5});
  CHECK(r.count("Compress") == 1);
}

TEST_CASE("aten::take", "[indexing]") {
  check_ir_opsets(ir("%x : Tensor, %i : Tensor", "  %y : Tensor = aten::take(%x, %i)"),
                  {randn({3, 4}), at::tensor({0, 11, -1, 5}, at::kLong).reshape({2, 2})});
}

TEST_CASE("aten::nonzero", "[indexing]") {
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::nonzero(%x)"),
                  {at::randint(0, 2, {3, 4}, at::kLong)});
}

TEST_CASE("aten::nonzero_numpy", "[indexing]") {
  check_ir_opsets("graph(%x : Tensor):\n"
                  "  %l : Tensor[] = aten::nonzero_numpy(%x)\n"
                  "  %a : Tensor, %b : Tensor = prim::ListUnpack(%l)\n"
                  "  return (%a, %b)",
                  {randn({3, 4}) > 0.2});
}

TEST_CASE("aten::sort", "[indexing]") {
  auto x = at::randperm(24, at::kFloat).reshape({4, 6});
  check_ir_opsets(
      ir("%x : Tensor", "  %v : Tensor, %i : Tensor = aten::sort(%x, %m1, %false)", "%v, %i"), {x});
  check_ir_opsets(
      ir("%x : Tensor", "  %v : Tensor, %i : Tensor = aten::sort(%x, %true, %0, %true)", "%v, %i"),
      {x});
}

TEST_CASE("aten::argsort", "[indexing]") {
  auto x = at::randperm(24, at::kFloat).reshape({4, 6});
  auto r = check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::argsort(%x, %0, %true)"), {x});
  CHECK(r.count("TopK") == 1);
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::argsort(%x, %m1, %false)"),
                  {at::randperm(24, at::kLong).reshape({4, 6})});
}

TEST_CASE("aten::topk", "[indexing]") {
  auto x = at::randperm(24, at::kFloat).reshape({4, 6});
  check_ir_opsets(ir("%x : Tensor",
                     "  %v : Tensor, %i : Tensor = aten::topk(%x, %3, %m1, %true, %true)",
                     "%v, %i"),
                  {x});
  check_ir_opsets(ir("%x : Tensor",
                     "  %v : Tensor, %i : Tensor = aten::topk(%x, %2, %0, %false, %true)",
                     "%v, %i"),
                  {x});
}

TEST_CASE("aten::one_hot", "[indexing]") {
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::one_hot(%x, %m1)"),
                  {ints({2, 3}, 0, 5)});
  check_ir_opsets(ir("%x : Tensor", "  %c : int = prim::Constant[value=7]()\n"
                                    "  %y : Tensor = aten::one_hot(%x, %c)"),
                  {ints({4}, 0, 5)});
}

TEST_CASE("aten::embedding", "[indexing]") {
  auto r = check_ir_opsets(ir("%w : Tensor, %i : Tensor",
                              "  %y : Tensor = aten::embedding(%w, %i, %m1, %false, %false)"),
                           {randn({10, 4}), ints({2, 3}, 0, 10)});
  CHECK(r.count("Gather") == 1);
}

// nn.Embedding(max_norm=1.0) in eval: the rows looked up are scaled to norm 1 in place first.
TEST_CASE("aten::embedding_renorm_", "[indexing]") {
  check_ir_opsets(ir("%w0 : Tensor, %i : Tensor", R"IR(
  %w : Tensor = aten::mul(%w0, %s2)
  %maxn : float = prim::Constant[value=1.]()
  %r : Tensor = aten::embedding_renorm_(%w, %i, %maxn, %s2)
  %y : Tensor = aten::embedding(%w, %i, %m1, %false, %false))IR"),
                  {randn({10, 4}), ints({2, 3}, 0, 10)});
}

TEST_CASE("aten::embedding_bag", "[indexing]") {
  auto w = randn({10, 3});
  auto idx = at::tensor({1, 2, 4, 5, 4, 3, 2, 9}, at::kLong);
  auto off = at::tensor({0, 3, 3, 6}, at::kLong);
  for (int mode = 0; mode < 3; ++mode) {
    DYNAMIC_SECTION("mode " << mode) {
      std::string body = "  %mode : int = prim::Constant[value=" + std::to_string(mode) +
                         "]()\n"
                         "  %y : Tensor, %b : Tensor, %c : Tensor, %d : Tensor = "
                         "aten::embedding_bag(%w, %i, %o, %false, %mode, %false, %none, %false)";
      check_ir_opsets(ir("%w : Tensor, %i : Tensor, %o : Tensor", body), {w, idx, off});
    }
  }
  SECTION("_embedding_bag: per-sample weights, include_last_offset, padding_idx") {
    check_ir_opsets(ir("%w : Tensor, %i : Tensor, %o : Tensor, %p : Tensor",
                       "  %y, %b, %c, %d = aten::_embedding_bag(%w, %i, %o, %false, %0, %false, %p,"
                       " %true, %2)"),
                    {w, idx, at::tensor({0, 3, 5, 8}, at::kLong), randn({8}, 3)});
  }
  SECTION("_embedding_bag_forward_only") {
    check_ir_opsets(ir("%w : Tensor, %i : Tensor, %o : Tensor",
                       "  %y, %b, %c, %d = aten::_embedding_bag_forward_only(%w, %i, %o, %false,"
                       " %0, %false, %none, %false, %m1)"),
                    {w, idx, off});
  }
}

TEST_CASE("aten::bucketize", "[indexing]") {
  auto bounds = at::tensor({-1.0f, 0.0f, 0.5f, 2.0f});
  auto x = at::tensor({-3.0f, -1.0f, 0.2f, 0.5f, 0.7f, 5.0f}).reshape({2, 3});
  check_ir_opsets(
      ir("%x : Tensor, %b : Tensor", "  %y : Tensor = aten::bucketize(%x, %b, %false, %false)"),
      {x, bounds});
  check_ir_opsets(
      ir("%x : Tensor, %b : Tensor", "  %y : Tensor = aten::bucketize(%x, %b, %true, %true)"),
      {x, bounds});
}

TEST_CASE("aten::select_scatter", "[indexing]") {
  check_ir_opsets(
      ir("%x : Tensor, %s : Tensor", "  %y : Tensor = aten::select_scatter(%x, %s, %1, %m1)"),
      {randn({3, 4, 2}), randn({3, 2}, 2)});
}

TEST_CASE("writes into one index of a bool tensor", "[indexing]") {
  // Top-p sampling's `remove[..., 0] = False` and `m[:, 2] = m[:, 3]`: select_scatter of bools was
  // a bool Where, which ONNX Runtime cannot run; And/Or/Not then.
  const std::string g =
      ir("%x : Tensor, %s : Tensor", "  %y : Tensor = aten::select_scatter(%x, %s, %m1, %0)");
  for (int opset : {11, 17})
    check_ir(g, {randn({3, 5}, 1) > 0, at::zeros({3}, at::kBool)}, opset);
  check_ir(ir("%x : Tensor, %s : Tensor", "  %y : Tensor = aten::select_scatter(%x, %s, %1, %2)"),
           {randn({3, 5}, 2) > 0, randn({3}, 3) > 0});
}

TEST_CASE("aten::slice_scatter", "[indexing]") {
  check_ir_opsets(ir("%x : Tensor, %s : Tensor",
                     "  %y : Tensor = aten::slice_scatter(%x, %s, %1, %1, %none, %2)"),
                  {randn({3, 6}), randn({3, 3}, 2)});
  check_ir_opsets(ir("%x : Tensor, %s : Tensor",
                     "  %y : Tensor = aten::slice_scatter(%x, %s, %0, %m1, %none, %1)"),
                  {randn({3, 6}), randn({1, 6}, 2)});
  // A traced x[..., -2:] passes INT64_MAX as end (it once became INT64_MIN through a double).
  check_ir_opsets(ir("%x : Tensor, %s : Tensor",
                     "  %end : int = prim::Constant[value=9223372036854775807]()\n"
                     "  %y : Tensor = aten::slice_scatter(%x, %s, %1, %m2, %end, %1)"),
                  {randn({3, 6}), randn({3, 2}, 2)});
}

// F.embedding(max_norm=...): the weight rows the indices name are renormed (other rows stay);
// then the lookup. Both the functional and the in-place form.
TEST_CASE("aten::embedding_renorm", "[indexing]") {
  for (const char *op : {"aten::embedding_renorm", "aten::embedding_renorm_"}) {
    for (const char *p : {"2.", "1.", "3."}) {
      DYNAMIC_SECTION(op << " p=" << p) {
        std::string body = std::string("  %max : float = prim::Constant[value=1.5]()\n") +
                           "  %p : float = prim::Constant[value=" + p + "]()\n" +
                           "  %r : Tensor = " + op + "(%w, %i, %max, %p)\n" +
                           "  %e : Tensor = aten::embedding(%r, %i, %m1, %false, %false)\n" +
                           "  %y : (Tensor, Tensor) = prim::TupleConstruct(%r, %e)";
        check_ir_opsets(ir("%w : Tensor, %i : Tensor", body),
                        {randn({10, 4}), at::tensor({1, 3, 3, 7, 1, 0}, at::kLong).view({2, 3})});
      }
    }
  }
}
