// Baked dims: traced models that recorded a size as a constant (models/make_baked_models.py) are
// refused with one error naming every such size (op, module scope, source line, which dim, the
// constant, the fix) and no output file; a model taking its sizes from the tensors exports and
// verifies at three sizes.
#include "harness.h"

#include <filesystem>

using namespace t2o_test;
namespace fs = std::filesystem;

namespace {

std::string baked_model(const std::string &name) {
  return (fs::path(T2O_BAKED_MODELS) / (name + ".pt")).string();
}

struct Refused {
  CliResult r;
  std::string out_path;
};

// Runs the CLI on a baked model; REQUIREs exit status 1 and no ONNX file.
Refused refuse(const std::string &name, const std::string &spec) {
  std::string dir = fresh_dir("baked_" + name);
  Refused x;
  x.out_path = dir + "/" + name + ".onnx";
  x.r = run_cli({baked_model(name), "-o", x.out_path, "--input", spec});
  INFO(x.r.err);
  REQUIRE(x.r.exit_code == 1);
  CHECK_FALSE(fs::exists(x.out_path));
  CHECK(fs::is_empty(dir)); // no temporary file left either
  return x;
}

bool has(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

size_t count_of(const std::string &text, const std::string &part) {
  size_t n = 0;
  for (size_t p = text.find(part); p != std::string::npos; p = text.find(part, p + 1))
    ++n;
  return n;
}

} // namespace

TEST_CASE("x.view(1, -1) traced at batch=1: the view, its scope, dim and fix are named",
          "[baked][dynamic]") {
  auto x = refuse("view_one", "x:f32[batch=1,3,4,4]");
  const std::string &e = x.r.err;
  INFO(e);
  CHECK(has(e, "recorded 1 size as a constant although it follows batch"));
  CHECK(has(e, "1. aten::view (head, "));
  CHECK(has(e, "make_baked_models.py:")); // the source line of the view
  CHECK(has(e, "its size [1, -1] has 1 at dim 0 = the example size of batch"));
  CHECK(has(e, "compute it as x.size(0)"));
  // The failure the trace causes at the second size, where it happens.
  CHECK(has(e, "at batch=2 the model fails in aten::linear (head.fc"));
  CHECK(has(e, "hint: in forward, take these sizes from the tensors"));
  CHECK(has(e, "make its dim static in --input"));
  CHECK(count_of(e, "aten::view (") == 1);
}

TEST_CASE("a view that silently folds batch away is reported although LibTorch runs it",
          "[baked][dynamic]") {
  auto x = refuse("view_one_silent", "x:f32[batch=1,3,4,4]");
  INFO(x.r.err);
  CHECK(has(x.r.err, "1. aten::view (<top level>"));
  CHECK(has(x.r.err, "has 1 at dim 0 = the example size of batch, so at other sizes it folds "
                     "batch into another dim"));
  CHECK(has(x.r.err, "as traced it runs at batch=2"));
}

TEST_CASE("a slice that covers the whole seq dim only at the example size is reported",
          "[baked][dynamic]") {
  auto x = refuse("slice_baked", "x:f32[2,seq=6,5]");
  INFO(x.r.err);
  CHECK(has(x.r.err, "1. aten::slice (<top level>"));
  CHECK(has(x.r.err, "the slice on dim 1 ends at 6 = the example size of seq"));
  CHECK(has(x.r.err, "compute it as x.size(1)"));
}

TEST_CASE("two baked dims are reported in one message", "[baked][dynamic]") {
  auto x = refuse("two_baked", "x:f32[batch=4,3,16]");
  const std::string &e = x.r.err;
  INFO(e);
  CHECK(has(e, "recorded 2 sizes as constants"));
  CHECK(has(e, "aten::reshape (<top level>"));
  CHECK(has(e, "its size [12, -1] has 12 at dim 0 = 3 x batch (example 4)"));
  CHECK(has(e, "compute it as 3 * x.size(0)"));
  // torch.zeros(b, 3, 8) with a Python int b is folded to a constant tensor when the model is
  // prepared: reported at the op that uses it.
  CHECK(has(e, "2. aten::add (<top level>, "));
  CHECK(has(e, "is a constant [4, 3, 8] computed at trace time"));
  CHECK(has(e, "with 4 at dim 0 = the example size of batch"));
  CHECK(has(e, "(4 instead of batch=4)"));
  CHECK_FALSE(has(e, "3. "));
  CHECK_FALSE(has(e, "still fails")); // both scaled, the model runs at the second size
}

TEST_CASE("attention with a Python int seq: every view, the mask and the merge are reported",
          "[baked][dynamic]") {
  auto x = refuse("attention_baked", "x:f32[batch=2,seq=16,64]");
  const std::string &e = x.r.err;
  INFO(e);
  CHECK(has(e, "recorded 5 sizes as constants although they follow seq"));
  // q, k and v: one view each, dim 1 of the size.
  CHECK(count_of(e, ". aten::view (<top level>, ") == 3);
  CHECK(count_of(e, "has 16 at dim 1 = the example size of seq; compute it as x.size(1)") == 4);
  // The causal mask, folded to a constant [16, 16]: both dims.
  CHECK(has(e, "aten::masked_fill (<top level>, "));
  CHECK(has(e, "is a constant [16, 16] computed at trace time"));
  CHECK(has(e, "with 16 at dims 0, 1 = the example size of seq"));
  CHECK(has(e, "aten::reshape (<top level>, "));
  CHECK_FALSE(has(e, "= the example size of batch")); // batch follows x.size(0) throughout
  CHECK_FALSE(has(e, "still fails"));
}

TEST_CASE("a static dim in --input is the other way out of a baked dim", "[baked][dynamic]") {
  std::string dir = fresh_dir("baked_static");
  auto r = run_cli(
      {baked_model("two_baked"), "-o", dir + "/m.onnx", "--input", "x:f32[4,3,16]", "--verify"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(fs::exists(dir + "/m.onnx"));
}

TEST_CASE("sizes taken from the tensors: exported with symbolic batch and verified at 3 sizes",
          "[baked][dynamic]") {
  std::string dir = fresh_dir("baked_ok");
  auto r = run_cli({baked_model("sizes_from_tensors"), "-o", dir + "/m.onnx", "--input",
                    "x:f32[batch=4,3,16]", "--verify", "--verify-dims", "batch=3", "-v"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_FALSE(has(r.err, "baked dim"));
  // One LibTorch-vs-ONNX-Runtime comparison (and test-data set) per size: 4, 8 and 3.
  for (int k = 0; k < 3; ++k)
    CHECK(fs::exists(dir + "/m/test_data_set_" + std::to_string(k) + "/output_0.pb"));
  CHECK(has(r.out + r.err, "batch=8"));
  CHECK(has(r.out + r.err, "batch=3"));
}

TEST_CASE("a dim equal to the batch at both sizes without following it is no baked dim",
          "[baked][dynamic]") {
  // Swin windows at b=2, h=8: h // 4 is 2 and 4 where the batch is, but a run with only the
  // batch changed shows it does not follow it; the window area 16 stays a constant.
  std::string dir = fresh_dir("baked_swin");
  auto r = run_cli({baked_model("swin_windows"), "-o", dir + "/m.onnx", "--input",
                    "x:f32[b=2,h=8,w=12,3]", "--verify"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK_FALSE(has(r.err, "baked dim"));
}
