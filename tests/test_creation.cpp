#include "harness.h"
#include "ir_text.h"

#include <catch2/catch.hpp>

using namespace t2o_test;

namespace {

// A runtime int (the walker cannot fold it) from a 0-d int64 input %t.
const char *kRuntimeN = "  %n : int = aten::Int(%t)\n";

// Runs at opsets 13 and 17 and checks the single output's shape and dtype; returns opset 17's.
at::Tensor run_random(const std::string &text, const std::vector<at::Tensor> &inputs,
                      std::vector<int64_t> shape, at::ScalarType dtype) {
  at::Tensor y;
  for (int opset : {13, 17}) {
    auto outs = run_ir_in_ort(text, inputs, opset);
    REQUIRE(outs.size() == 1);
    y = outs[0];
    CHECK(y.sizes().vec() == shape);
    CHECK(y.scalar_type() == dtype);
  }
  return y;
}

} // namespace

TEST_CASE("aten::eye", "[creation]") {
  auto r = check_ir_opsets(ir("%t : Tensor", std::string(kRuntimeN) +
                                                 "  %y : Tensor = aten::eye(%n, %none, %none, "
                                                 "%none, %none)"),
                           {scalar_long(4)});
  CHECK(r.count("Range") == 2);
  check_ir_opsets(ir("%t : Tensor", std::string(kRuntimeN) +
                                        "  %y : Tensor = aten::eye(%n, %3, %long, %none, %none, "
                                        "%none)"),
                  {scalar_long(5)});
}

TEST_CASE("aten::linspace", "[creation]") {
  std::string body = "  %s : float = aten::Float(%a)\n  %e : float = aten::Float(%b)\n" +
                     std::string(kRuntimeN) +
                     "  %y : Tensor = aten::linspace(%s, %e, %n, %none, %none, %none, %none)";
  for (int64_t n : {1, 2, 7, 10})
    check_ir_opsets(ir("%a : Tensor, %b : Tensor, %t : Tensor", body),
                    {at::scalar_tensor(-1.5), at::scalar_tensor(3.25), scalar_long(n)});
}

TEST_CASE("aten::empty", "[creation]") {
  check_ir_opsets(ir("%t : Tensor", std::string(kRuntimeN) +
                                        "  %s : int[] = prim::ListConstruct(%n, %3)\n"
                                        "  %e : Tensor = aten::empty(%s, %none, %none, %none, "
                                        "%none, %none)\n"
                                        "  %y : Tensor = aten::zero_(%e)"),
                  {scalar_long(2)});
}

TEST_CASE("aten::empty_like", "[creation]") {
  check_ir_opsets(ir("%x : Tensor", "  %e : Tensor = aten::empty_like(%x, %none, %none, %none, "
                                    "%none, %none)\n"
                                    "  %y : Tensor = aten::fill_(%e, %half)"),
                  {randn({2, 3})});
}

TEST_CASE("aten::new_empty", "[creation]") {
  check_ir_opsets(ir("%x : Tensor", "  %s : int[] = prim::ListConstruct(%3, %2)\n"
                                    "  %e : Tensor = aten::new_empty(%x, %s, %none, %none, "
                                    "%none, %none)\n"
                                    "  %y : Tensor = aten::fill_(%e, %2)"),
                  {randn({2, 3})});
}

TEST_CASE("aten::new_empty_strided", "[creation]") {
  check_ir_opsets(ir("%x : Tensor", "  %s : int[] = prim::ListConstruct(%3, %2)\n"
                                    "  %st : int[] = prim::ListConstruct(%2, %1)\n"
                                    "  %e : Tensor = aten::new_empty_strided(%x, %s, %st, %none, "
                                    "%none, %none, %none)\n"
                                    "  %y : Tensor = aten::zero_(%e)"),
                  {randn({2, 3})});
}

TEST_CASE("aten::empty_strided", "[creation]") {
  check_ir_opsets(ir("%t : Tensor", std::string(kRuntimeN) +
                                        "  %s : int[] = prim::ListConstruct(%n, %2)\n"
                                        "  %st : int[] = prim::ListConstruct(%2, %1)\n"
                                        "  %e : Tensor = aten::empty_strided(%s, %st, %long, "
                                        "%none, %none, %none)\n"
                                        "  %y : Tensor = aten::fill_(%e, %3)"),
                  {scalar_long(3)});
}

TEST_CASE("aten::tensor", "[creation]") {
  check_ir_opsets(ir("%a : Tensor, %b : Tensor",
                     "  %s : float = aten::Float(%a)\n  %e : float = aten::Float(%b)\n"
                     "  %l : float[] = prim::ListConstruct(%s, %e, %s)\n"
                     "  %y : Tensor = aten::tensor(%l, %none, %none, %false)"),
                  {at::scalar_tensor(-1.5), at::scalar_tensor(3.25)});
  check_ir_opsets(ir("%t : Tensor", std::string(kRuntimeN) +
                                        "  %y : Tensor = aten::tensor(%n, %double, %none, %false)"),
                  {scalar_long(3)});
}

TEST_CASE("aten::as_tensor", "[creation]") {
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::as_tensor(%x, %long, %none)"),
                  {randn({2, 3}) * 4});
}

TEST_CASE("aten::scalar_tensor", "[creation]") {
  check_ir_opsets(ir("%a : Tensor", "  %s : float = aten::Float(%a)\n"
                                    "  %y : Tensor = aten::scalar_tensor(%s, %none, %none, %none, "
                                    "%none)"),
                  {at::scalar_tensor(2.5)});
}

TEST_CASE("aten::fill", "[creation]") {
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::fill(%x, %half)"), {randn({2, 3})});
  check_ir_opsets(ir("%x : Tensor, %v : Tensor", "  %y : Tensor = aten::fill(%x, %v)"),
                  {randn({2, 3}), at::scalar_tensor(7, at::kLong)});
  check_ir_opsets(ir("%x0 : Tensor", "  %x : Tensor = aten::neg(%x0)\n"
                                     "  %y : Tensor = aten::fill_(%x, %3)"),
                  {at::randint(0, 5, {4}, at::kLong)});
}

TEST_CASE("aten::copy", "[creation]") {
  check_ir_opsets(ir("%x : Tensor, %s : Tensor", "  %y : Tensor = aten::copy(%x, %s, %false)"),
                  {randn({2, 3}), at::randint(0, 5, {3}, at::kLong)});
  check_ir_opsets(ir("%x0 : Tensor, %s : Tensor", "  %x : Tensor = aten::neg(%x0)\n"
                                                  "  %c : Tensor = aten::copy_(%x, %s, %false)\n"
                                                  "  %y : Tensor = aten::add(%x, %c, %1)"),
                  {randn({2, 3}), randn({2, 1}, 3)});
}

TEST_CASE("aten::zero_", "[creation]") {
  check_ir_opsets(ir("%x0 : Tensor", "  %x : Tensor = aten::neg(%x0)\n"
                                     "  %y : Tensor = aten::zero_(%x)"),
                  {randn({2, 3})});
}

TEST_CASE("aten::zero", "[creation]") {
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::zero(%x)"), {randn({2, 3})});
}

TEST_CASE("aten::lift", "[creation]") {
  check_ir_opsets(ir("%x : Tensor", "  %a : Tensor = aten::lift(%x)\n"
                                    "  %b : Tensor = aten::lift_fresh_copy(%a)\n"
                                    "  %y : Tensor = aten::mul(%b, %b)"),
                  {randn({2, 3})});
}

TEST_CASE("aten::lift_fresh", "[creation]") {
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::lift_fresh(%x)"), {randn({3})});
}

TEST_CASE("aten::lift_fresh_copy", "[creation]") {
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::lift_fresh_copy(%x)"), {randn({3})});
}

TEST_CASE("aten::_to_copy", "[creation]") {
  auto r = check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::_to_copy(%x, %long, %none, "
                                             "%none, %none, %false, %none)"),
                           {randn({2, 3}) * 5});
  CHECK(r.count("Cast") == 1);
}

TEST_CASE("aten::_reshape_from_tensor", "[creation]") {
  check_ir_opsets(ir("%x : Tensor, %z : Tensor",
                     "  %s : Tensor = aten::_shape_as_tensor(%z)\n"
                     "  %y : Tensor = aten::_reshape_from_tensor(%x, %s)"),
                  {randn({2, 6}), randn({3, 4})});
}

TEST_CASE("aten::_shape_as_tensor", "[creation]") {
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::_shape_as_tensor(%x)"), {randn({2, 6})});
}

TEST_CASE("aten::_dim_arange", "[creation]") {
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::_dim_arange(%x, %1)"), {randn({2, 6})});
}

TEST_CASE("aten::broadcast_to", "[creation]") {
  check_ir_opsets(ir("%x : Tensor", "  %s : int[] = prim::ListConstruct(%2, %m1, %3)\n"
                                    "  %y : Tensor = aten::broadcast_to(%x, %s)"),
                  {randn({4, 1})});
}

TEST_CASE("aten::broadcast_tensors", "[creation]") {
  check_ir_opsets(ir("%a : Tensor, %b : Tensor, %c : Tensor",
                     "  %l : Tensor[] = prim::ListConstruct(%a, %b, %c)\n"
                     "  %o : Tensor[] = aten::broadcast_tensors(%l)\n"
                     "  %p : Tensor, %q : Tensor, %r : Tensor = prim::ListUnpack(%o)",
                     "%p, %q, %r"),
                  {randn({3, 1}), randn({4}, 2), at::randint(0, 3, {1, 1}, at::kLong)});
}

TEST_CASE("aten::atleast_1d", "[creation]") {
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::atleast_1d(%x)"), {randn({})});
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::atleast_1d(%x)"), {randn({2})});
}

TEST_CASE("aten::atleast_2d", "[creation]") {
  check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::atleast_2d(%x)"), {randn({3})});
  check_ir_opsets(ir("%a : Tensor, %b : Tensor",
                     "  %l : Tensor[] = prim::ListConstruct(%a, %b)\n"
                     "  %o : Tensor[] = aten::atleast_2d(%l)\n"
                     "  %p : Tensor, %q : Tensor = prim::ListUnpack(%o)",
                     "%p, %q"),
                  {randn({}), randn({2, 3})});
}

TEST_CASE("aten::atleast_3d", "[creation]") {
  for (auto shape : std::vector<std::vector<int64_t>>{{}, {3}, {2, 3}, {1, 2, 3}})
    check_ir_opsets(ir("%x : Tensor", "  %y : Tensor = aten::atleast_3d(%x)"), {randn(shape)});
}

TEST_CASE("aten::hann_window", "[creation]") {
  for (int64_t n : {1, 8}) {
    check_ir_opsets(ir("%t : Tensor", std::string(kRuntimeN) +
                                          "  %y : Tensor = aten::hann_window(%n, %none, %none, "
                                          "%none, %none)"),
                    {scalar_long(n)});
    check_ir_opsets(ir("%t : Tensor", std::string(kRuntimeN) +
                                          "  %y : Tensor = aten::hann_window(%n, %false, %none, "
                                          "%none, %none, %none)"),
                    {scalar_long(n)});
  }
}

TEST_CASE("aten::hamming_window", "[creation]") {
  check_ir_opsets(ir("%t : Tensor", std::string(kRuntimeN) +
                                        "  %y : Tensor = aten::hamming_window(%n, %none, %none, "
                                        "%none, %none)"),
                  {scalar_long(10)});
  check_ir_opsets(ir("%t : Tensor", std::string(kRuntimeN) +
                                        "  %a : float = prim::Constant[value=0.6]()\n"
                                        "  %b : float = prim::Constant[value=0.3]()\n"
                                        "  %y : Tensor = aten::hamming_window(%n, %false, %a, %b, "
                                        "%double, %none, %none, %none)"),
                  {scalar_long(7)});
}

TEST_CASE("aten::blackman_window", "[creation]") {
  check_ir_opsets(ir("%t : Tensor", std::string(kRuntimeN) +
                                        "  %y : Tensor = aten::blackman_window(%n, %false, %none, "
                                        "%none, %none, %none)"),
                  {scalar_long(9)});
}

// ---- random ops: shape, dtype and distribution checks on ONNX Runtime's output ----

TEST_CASE("aten::rand", "[creation]") {
  auto y = run_random(ir("%t : Tensor", std::string(kRuntimeN) +
                                            "  %s : int[] = prim::ListConstruct(%n, %3)\n"
                                            "  %y : Tensor = aten::rand(%s, %none, %none, %none, "
                                            "%none)"),
                      {scalar_long(2000)}, {2000, 3}, at::kFloat);
  CHECK(y.min().item<double>() >= 0);
  CHECK(y.max().item<double>() < 1);
  CHECK(std::abs(y.mean().item<double>() - 0.5) < 0.05);
}

TEST_CASE("aten::randn", "[creation]") {
  auto y = run_random(ir("", "  %n : int = prim::Constant[value=2000]()\n"
                             "  %s : int[] = prim::ListConstruct(%3, %n)\n"
                             "  %y : Tensor = aten::randn(%s, %double, %none, %none, %none)"),
                      {}, {3, 2000}, at::kDouble);
  CHECK(std::abs(y.mean().item<double>()) < 0.1);
  CHECK(std::abs(y.std().item<double>() - 1) < 0.1);
}

TEST_CASE("aten::rand_like", "[creation]") {
  auto y = run_random(ir("%x : Tensor", "  %y : Tensor = aten::rand_like(%x, %none, %none, %none, "
                                        "%none, %none)"),
                      {randn({50, 40})}, {50, 40}, at::kFloat);
  CHECK(y.min().item<double>() >= 0);
  CHECK(y.max().item<double>() < 1);
}

TEST_CASE("aten::randn_like", "[creation]") {
  auto y = run_random(ir("%x : Tensor", "  %y : Tensor = aten::randn_like(%x, %none, %none, "
                                        "%none, %none, %none)"),
                      {randn({100, 40})}, {100, 40}, at::kFloat);
  CHECK(std::abs(y.mean().item<double>()) < 0.1);
  CHECK(std::abs(y.std().item<double>() - 1) < 0.1);
}

TEST_CASE("aten::randint", "[creation]") {
  auto y = run_random(ir("", "  %n : int = prim::Constant[value=500]()\n"
                             "  %s : int[] = prim::ListConstruct(%3, %n)\n"
                             "  %hi : int = prim::Constant[value=6]()\n"
                             "  %y : Tensor = aten::randint(%hi, %s, %long, %none, %none, %none)"),
                      {}, {3, 500}, at::kLong);
  CHECK(y.min().item<int64_t>() == 0);
  CHECK(y.max().item<int64_t>() == 5);
  auto z = run_random(ir("", "  %n : int = prim::Constant[value=500]()\n"
                             "  %s : int[] = prim::ListConstruct(%n)\n"
                             "  %lo : int = prim::Constant[value=-3]()\n"
                             "  %y : Tensor = aten::randint(%lo, %3, %s, %long, %none, %none, "
                             "%none)"),
                      {}, {500}, at::kLong);
  CHECK(z.min().item<int64_t>() == -3);
  CHECK(z.max().item<int64_t>() == 2);
}

TEST_CASE("aten::randint_like", "[creation]") {
  auto y = run_random(ir("%x : Tensor", "  %hi : int = prim::Constant[value=4]()\n"
                                        "  %y : Tensor = aten::randint_like(%x, %1, %hi, %none, "
                                        "%none, %none, %none, %none)"),
                      {randn({40, 10})}, {40, 10}, at::kFloat);
  CHECK(y.min().item<double>() == 1);
  CHECK(y.max().item<double>() == 3);
  CHECK(at::equal(y, at::floor(y)));
  run_random(ir("%x : Tensor", "  %y : Tensor = aten::randint_like(%x, %3, %none, %none, "
                               "%none, %none, %none)"),
             {at::zeros({5}, at::kLong)}, {5}, at::kLong);
}

TEST_CASE("aten::normal", "[creation]") {
  auto m = at::full({100, 50}, 3.0f);
  auto y = run_random(ir("%m : Tensor", "  %y : Tensor = aten::normal(%m, %half, %none)"), {m},
                      {100, 50}, at::kFloat);
  CHECK(std::abs(y.mean().item<double>() - 3) < 0.05);
  CHECK(std::abs(y.std().item<double>() - 0.5) < 0.05);
  auto s = at::full({100, 50}, 2.0f);
  auto z = run_random(ir("%s : Tensor", "  %y : Tensor = aten::normal(%half, %s, %none)"), {s},
                      {100, 50}, at::kFloat);
  CHECK(std::abs(z.std().item<double>() - 2) < 0.2);
  run_random(ir("%m : Tensor, %s : Tensor", "  %y : Tensor = aten::normal(%m, %s, %none)"),
             {randn({3, 1}), at::ones({4})}, {3, 4}, at::kFloat);
  auto w = run_random(ir("", "  %n : int = prim::Constant[value=5000]()\n"
                             "  %s : int[] = prim::ListConstruct(%n)\n"
                             "  %m : float = prim::Constant[value=-2.]()\n"
                             "  %y : Tensor = aten::normal(%m, %half, %s, %none, %none, %none, "
                             "%none, %none)"),
                      {}, {5000}, at::kFloat);
  CHECK(std::abs(w.mean().item<double>() + 2) < 0.05);
}

TEST_CASE("aten::normal_functional", "[creation]") {
  auto y = run_random(ir("%x : Tensor", "  %m : float = prim::Constant[value=1.]()\n"
                                        "  %y : Tensor = aten::normal_functional(%x, %m, %half, "
                                        "%none)"),
                      {randn({100, 50})}, {100, 50}, at::kFloat);
  CHECK(std::abs(y.mean().item<double>() - 1) < 0.05);
}

TEST_CASE("aten::bernoulli", "[creation]") {
  auto p = at::cat({at::zeros({1000}), at::ones({1000}), at::full({4000}, 0.3)});
  auto y = run_random(ir("%p : Tensor", "  %y : Tensor = aten::bernoulli(%p, %none)"), {p}, {6000},
                      at::kFloat);
  CHECK(y.slice(0, 0, 1000).sum().item<double>() == 0);
  CHECK(y.slice(0, 1000, 2000).sum().item<double>() == 1000);
  CHECK(std::abs(y.slice(0, 2000).mean().item<double>() - 0.3) < 0.05);
  auto z = run_random(ir("%x : Tensor", "  %q : float = prim::Constant[value=0.8]()\n"
                                        "  %y : Tensor = aten::bernoulli(%x, %q, %none)"),
                      {randn({4000})}, {4000}, at::kFloat);
  CHECK(std::abs(z.mean().item<double>() - 0.8) < 0.05);
  auto w = run_random(ir("%x0 : Tensor", "  %x : Tensor = aten::neg(%x0)\n"
                                         "  %y : Tensor = aten::bernoulli_(%x, %half, %none)"),
                      {randn({4000})}, {4000}, at::kFloat);
  CHECK(std::abs(w.mean().item<double>() - 0.5) < 0.05);
}

TEST_CASE("aten::multinomial", "[creation]") {
  auto p = at::tensor({0.0f, 1.0f, 3.0f, 0.0f, 4.0f});
  auto y = run_random(ir("%p : Tensor", "  %k : int = prim::Constant[value=1000]()\n"
                                        "  %y : Tensor = aten::multinomial(%p, %k, %true, %none)"),
                      {p}, {1000}, at::kLong);
  CHECK((y == 0).sum().item<int64_t>() == 0);
  CHECK((y == 3).sum().item<int64_t>() == 0);
  CHECK(std::abs((y == 4).to(at::kFloat).mean().item<double>() - 0.5) < 0.07);
  auto z = run_random(ir("%p : Tensor", "  %y : Tensor = aten::multinomial(%p, %3, %false, %none)"),
                      {p.repeat({4, 1})}, {4, 3}, at::kLong);
  for (int64_t row = 0; row < 4; ++row) {
    auto s = std::get<0>(at::sort(z[row]));
    CHECK(at::equal(s, at::tensor({1, 2, 4}, at::kLong)));
  }
}

// Gamma draws have no ONNX sampler: a clear refusal naming the op and why.
namespace {
void check_gamma_refusal(const std::string &op) {
  std::string err = export_ir_error(ir("%a : Tensor", "  %y : Tensor = " + op + "(%a, %none)"),
                                    {at::rand({3}) + 0.5});
  INFO(err);
  CHECK(err.find(op) != std::string::npos);
  CHECK(err.find("no Gamma sampler") != std::string::npos);
}
} // namespace

TEST_CASE("aten::_standard_gamma", "[creation]") {
  check_gamma_refusal("aten::_standard_gamma");
}

TEST_CASE("aten::_sample_dirichlet", "[creation]") {
  check_gamma_refusal("aten::_sample_dirichlet");
}
