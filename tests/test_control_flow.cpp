// Data-dependent control flow (prim::If / prim::Loop on runtime values, tensor lists built in
// loops, runtime number arithmetic): IR snippets checked on inputs that take every branch, and
// scripted models (models/make_control_flow_models.py) exported once and verified in ONNX
// Runtime against LibTorch on several random inputs.
#include "builder/error.h"
#include "exporter/core/tensor_util.h"
#include "exporter/frontend/torchscript/convert.h"
#include "exporter/options.h"
#include "exporter/verify/verify.h"
#include "harness.h"

#include <filesystem>
#include <fstream>
#include <torch/script.h>

using namespace t2o_test;
namespace fs = std::filesystem;

namespace {

// sum(x) > 0 ? relu(x) * 2 (and k = 1) : -x (and k = 0); then y + k. The int k is a constant in
// each branch, materialized inside it.
const char *kIfIr = R"IR(
graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %two : float = prim::Constant[value=2.]()
  %s : Tensor = aten::sum(%x, %none)
  %c : Tensor = aten::gt(%s, %zero)
  %b : bool = aten::Bool(%c)
  %y : Tensor, %k : int = prim::If(%b)
    block0():
      %r : Tensor = aten::relu(%x)
      %m : Tensor = aten::mul(%r, %two)
      -> (%m, %one)
    block1():
      %n : Tensor = aten::neg(%x)
      -> (%n, %zero)
  %z : Tensor = aten::add(%y, %k, %one)
  return (%z, %k)
)IR";

// for i in range(x.size(0)): acc = tanh(x[i] + acc) * (i + 1); outs.append(acc); then
// stack(outs), cat(outs) / len(outs) and outs[-1].
const char *kForIr = R"IR(
graph(%x : Tensor):
  %true : bool = prim::Constant[value=1]()
  %none : NoneType = prim::Constant()
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %minus1 : int = prim::Constant[value=-1]()
  %outs : Tensor[] = prim::ListConstruct()
  %d1 : int = aten::size(%x, %one)
  %shape : int[] = prim::ListConstruct(%d1)
  %acc0 : Tensor = aten::zeros(%shape, %none, %none, %none, %none)
  %n : int = aten::size(%x, %zero)
  %acc : Tensor = prim::Loop(%n, %true, %acc0)
    block0(%i : int, %a : Tensor):
      %xi : Tensor = aten::select(%x, %zero, %i)
      %t : Tensor = aten::add(%xi, %a, %one)
      %h : Tensor = aten::tanh(%t)
      %i1 : int = aten::add(%i, %one)
      %a1 : Tensor = aten::mul(%h, %i1)
      %l : Tensor[] = aten::append(%outs, %a1)
      -> (%true, %a1)
  %len : int = aten::len(%outs)
  %st : Tensor = aten::stack(%outs, %zero)
  %ct : Tensor = aten::cat(%outs, %zero)
  %mean : Tensor = aten::div(%ct, %len)
  %last : Tensor = aten::__getitem__(%outs, %minus1)
  return (%st, %mean, %last, %acc)
)IR";

// while sum(|y|) < 100 and i < 50: y = y * 1.5 + 0.25; i += 1
const char *kWhileIr = R"IR(
graph(%x : Tensor):
  %false : bool = prim::Constant[value=0]()
  %none : NoneType = prim::Constant()
  %limit : float = prim::Constant[value=100.]()
  %zero : int = prim::Constant[value=0]()
  %max : int = prim::Constant[value=9223372036854775807]()
  %k : float = prim::Constant[value=1.5]()
  %q : float = prim::Constant[value=0.25]()
  %one : int = prim::Constant[value=1]()
  %fifty : int = prim::Constant[value=50]()
  %a0 : Tensor = aten::abs(%x)
  %s0 : Tensor = aten::sum(%a0, %none)
  %c0 : Tensor = aten::lt(%s0, %limit)
  %go : bool = aten::Bool(%c0)
  %i : int, %y : Tensor = prim::Loop(%max, %go, %zero, %x)
    block0(%it : int, %i0 : int, %y0 : Tensor):
      %m : Tensor = aten::mul(%y0, %k)
      %y1 : Tensor = aten::add(%m, %q, %one)
      %i1 : int = aten::add(%i0, %one)
      %a : Tensor = aten::abs(%y1)
      %s : Tensor = aten::sum(%a, %none)
      %c : Tensor = aten::lt(%s, %limit)
      %b : bool = aten::Bool(%c)
      %more : bool = prim::If(%b)
        block0():
          %r : bool = aten::lt(%i1, %fifty)
          -> (%r)
        block1():
          -> (%false)
      -> (%more, %i1, %y1)
  return (%y, %i)
)IR";

at::Tensor filled(std::vector<int64_t> shape, double v) {
  return at::full(shape, v, at::TensorOptions().dtype(at::kFloat));
}

// Nodes of `op_type` in a serialized model: NodeProto.op_type is field 4 (tag 0x22), so the
// bytes 0x22 <len> <op_type> mark each one (subgraphs included).
size_t count_op(const std::string &model, const std::string &op_type) {
  std::string key = std::string("\x22") + static_cast<char>(op_type.size()) + op_type;
  size_t n = 0;
  for (size_t p = model.find(key); p != std::string::npos; p = model.find(key, p + 1))
    ++n;
  return n;
}

std::string fixture(const std::string &name) {
  return (fs::path(T2O_CF_MODELS) / (name + ".pt")).string();
}

// Exports `name` once (with --verify at `seeds[0]`), then runs the same ONNX file in ONNX Runtime
// on the inputs of every other seed and compares with the model's forward in LibTorch. Returns
// the ONNX bytes.
// The error exporting fixture `name` at `spec` gives (none: the test fails); no file is written.
torch2onnx::Error export_refused(const std::string &name, const std::string &spec) {
  using namespace torch2onnx;
  ExportOptions o;
  o.model_path = fixture(name);
  o.output_path = fresh_dir("control_flow") + "/" + name + ".onnx";
  o.inputs.push_back(parse_input_spec(spec));
  resolve_dim_names(o.inputs);
  try {
    export_model(o);
  } catch (const Error &e) {
    CHECK_FALSE(fs::exists(o.output_path));
    return e;
  }
  FAIL("model " << name << " was exported, but should be refused");
  return Error("");
}

std::string export_and_verify(const std::string &name, const std::vector<std::string> &specs,
                              const std::vector<uint64_t> &seeds,
                              const std::vector<std::pair<std::string, int64_t>> &sizes = {},
                              int opset = 17) {
  using namespace torch2onnx;
  INFO("model " << name);
  ExportOptions o;
  o.opset = opset;
  o.model_path = fixture(name);
  REQUIRE(fs::exists(o.model_path));
  o.output_path = fresh_dir("control_flow") + "/" + name + ".onnx";
  for (const auto &s : specs)
    o.inputs.push_back(parse_input_spec(s));
  resolve_dim_names(o.inputs);
  o.verify = true;
  o.seed = seeds.at(0);
  o.verify_dims = sizes;
  ExportReport r;
  try {
    r = export_model(o);
  } catch (const Error &e) {
    FAIL("export failed: " << e.what() << "\n  hint: " << e.hint());
  }
  REQUIRE(r.verify.has_value());
  for (const auto &ch : r.verify->outputs) {
    INFO("output " << ch.name << " " << ch.sizes << ": " << ch.problem << " max abs error "
                   << ch.max_abs_error << " tolerance " << ch.tolerance);
    CHECK(ch.ok());
  }
  auto module = torch::jit::load(o.model_path);
  module.eval();
  for (size_t k = 1; k < seeds.size(); ++k) {
    INFO("seed " << seeds[k]);
    auto inputs = make_example_inputs(o.inputs, seeds[k]);
    std::vector<c10::IValue> args;
    for (const auto &t : inputs)
      args.emplace_back(t.clone());
    std::vector<at::Tensor> expected;
    {
      at::NoGradGuard no_grad;
      expected = flatten_tensors(module.forward(args));
    }
    auto actual = run_onnxruntime(o.output_path, r.input_names, inputs);
    REQUIRE(actual.size() == expected.size());
    for (const auto &ch : compare_outputs(r.output_names, expected, actual, 1e-4, 1e-4)) {
      INFO("output " << ch.name << ": " << ch.problem << " max abs error " << ch.max_abs_error
                     << " tolerance " << ch.tolerance);
      CHECK(ch.ok());
    }
  }
  return file_bytes(o.output_path);
}

} // namespace

TEST_CASE("prim::If on a runtime condition becomes an ONNX If", "[control_flow]") {
  SECTION("then branch") {
    auto r = check_ir_opsets(kIfIr, {filled({2, 3}, 0.5) + randn({2, 3}, 1) * 0.1});
    CHECK(r.count("If") == 1);
  }
  SECTION("else branch") {
    auto r = check_ir(kIfIr, {filled({2, 3}, -0.5) + randn({2, 3}, 2) * 0.1});
    CHECK(r.count("If") == 1);
  }
}

// The branch the example run did not take has no recorded shapes: x.dtype there (the slow path
// of a scripted nn.MultiheadAttention checking its mask's dtype) comes from the graph built.
TEST_CASE("prim::dtype in a branch the example run did not take", "[control_flow]") {
  const char *ir_text = R"IR(
graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %false : bool = prim::Constant[value=0]()
  %zero : int = prim::Constant[value=0]()
  %two : float = prim::Constant[value=2.]()
  %s : Tensor = aten::sum(%x, %none)
  %c : Tensor = aten::gt(%s, %zero)
  %b : bool = aten::Bool(%c)
  %y : Tensor = prim::If(%b)
    block0():
      %r : Tensor = aten::relu(%x)
      -> (%r)
    block1():
      %n : Tensor = aten::neg(%x)
      %dt : int = prim::dtype(%n)
      %fp : bool = aten::is_floating_point(%n)
      %m : Tensor = aten::mul(%n, %two)
      %o : Tensor = aten::to(%m, %dt, %false, %false, %none)
      %k : Tensor = prim::If(%fp)
        block0():
          -> (%o)
        block1():
          -> (%n)
      -> (%k)
  return (%y)
)IR";
  auto r = check_ir(ir_text, {filled({2, 3}, 0.5) + randn({2, 3}, 1) * 0.1});
  CHECK(r.count("If") == 1);
}

// `query is key` / `key is not value` on runtime tensors (nn.MultiheadAttention's self-attention
// test when scripted): the same value is the same object, different values are not.
TEST_CASE("aten::__is__ and aten::__isnot__ on two runtime tensors fold", "[control_flow]") {
  const char *ir_text = R"IR(
graph(%x : Tensor, %w : Tensor):
  %one : int = prim::Constant[value=1]()
  %same : bool = aten::__is__(%x, %x)
  %other : bool = aten::__isnot__(%x, %w)
  %y : Tensor = prim::If(%same)
    block0():
      %a : Tensor = aten::add(%x, %w, %one)
      -> (%a)
    block1():
      %b : Tensor = aten::sub(%x, %w, %one)
      -> (%b)
  %z : Tensor = prim::If(%other)
    block0():
      %c : Tensor = aten::mul(%y, %w)
      -> (%c)
    block1():
      %d : Tensor = aten::div(%y, %w)
      -> (%d)
  return (%z)
)IR";
  auto r = check_ir(ir_text, {randn({2, 3}, 1), randn({2, 3}, 2)});
  CHECK(r.count("If") == 0);
}

TEST_CASE("prim::Loop with a constant small trip count is unrolled", "[control_flow]") {
  auto r = check_ir_opsets(kForIr, {randn({4, 3}, 3)});
  CHECK(r.count("Loop") == 0);
  CHECK(r.count("SequenceInsert") == 0); // the list has a known length when unrolled
}

TEST_CASE("prim::Loop over a long or dynamic dim becomes an ONNX Loop with sequences",
          "[control_flow]") {
  SECTION("20 iterations (over the unroll limit)") {
    // Loop carries sequences from opset 13 (Loop-13); below, the error says so.
    check_ir(kForIr, {randn({20, 3}, 4) * 0.3}, 13);
    CHECK_THAT(export_ir_error(kForIr, {randn({20, 3}, 4) * 0.3}, 11),
               Catch::Contains("Loop carrying a list") && Catch::Contains("needs opset 13"));
    auto r = check_ir(kForIr, {randn({20, 3}, 4) * 0.3}, 21);
    CHECK(r.count("Loop") == 1);
    CHECK(r.count("SequenceInsert") == 1);
    CHECK(r.count("ConcatFromSequence") == 2);
    CHECK(r.count("SequenceLength") == 1);
    CHECK(r.count("SequenceAt") == 1);
  }
  SECTION("dynamic trip count, verified at two lengths") {
    auto r = check_ir_dynamic(kForIr, {randn({5, 3}, 5)}, {randn({9, 3}, 6)});
    CHECK(r.count("Loop") == 1);
  }
}

TEST_CASE("while loop on a runtime condition", "[control_flow]") {
  // Different inputs stop after different numbers of iterations (and one never enters).
  for (double scale : {0.01, 0.5, 3.0, 40.0}) {
    INFO("scale " << scale);
    auto r = check_ir(kWhileIr, {randn({2, 3}, 7) * scale});
    CHECK(r.count("Loop") == 1);
  }
  check_ir(kWhileIr, {randn({2, 3}, 8)}, 13);
}

TEST_CASE("runtime int and bool arithmetic as 0-d tensors", "[control_flow]") {
  // n = number of positive elements (a runtime int); Python semantics of //, %, comparisons.
  const char *ir = R"IR(
graph(%x : Tensor):
  %zero : int = prim::Constant[value=0]()
  %three : int = prim::Constant[value=3]()
  %minus4 : int = prim::Constant[value=-4]()
  %half : float = prim::Constant[value=0.5]()
  %p : Tensor = aten::gt(%x, %zero)
  %none : NoneType = prim::Constant()
  %c : Tensor = aten::sum(%p, %none)
  %n : int = aten::Int(%c)
  %m : int = aten::sub(%n, %three)
  %fd : int = aten::floordiv(%m, %minus4)
  %rm : int = aten::remainder(%m, %minus4)
  %lt : bool = aten::lt(%m, %zero)
  %nb : bool = aten::__not__(%lt)
  %f : float = aten::mul(%n, %half)
  %mx : int = prim::max(%n, %three)
  %i : int = aten::Int(%f)
  return (%fd, %rm, %nb, %f, %mx, %i)
)IR";
  check_ir_opsets(ir, {randn({9}, 9)});
  check_ir(ir, {randn({9}, 10) - 1.5});
}

TEST_CASE("Python list functions on runtime ints: min, max, sum, count, index, in",
          "[control_flow]") {
  // n, m: runtime ints (counts of positive elements); the lists mix them with constants.
  const char *ir = R"IR(
graph(%x : Tensor, %y : Tensor):
  %zero : int = prim::Constant[value=0]()
  %three : int = prim::Constant[value=3]()
  %none : NoneType = prim::Constant()
  %half : float = prim::Constant[value=0.5]()
  %px : Tensor = aten::gt(%x, %zero)
  %cx : Tensor = aten::sum(%px, %none)
  %n : int = aten::Int(%cx)
  %py : Tensor = aten::gt(%y, %zero)
  %cy : Tensor = aten::sum(%py, %none)
  %m : int = aten::Int(%cy)
  %xs : int[] = prim::ListConstruct(%n, %three, %m, %three)
  %lo : int = prim::min(%xs)
  %hi : int = prim::max(%xs)
  %total : int = aten::sum(%xs)
  %threes : int = aten::count(%xs, %three)
  %where : int = aten::index(%xs, %m)
  %has : bool = aten::__contains__(%xs, %n)
  %f : float = aten::mul(%m, %half)
  %fs : float[] = prim::ListConstruct(%f, %half)
  %flo : float = prim::min(%fs)
  %fsum : float = aten::sum(%fs)
  return (%lo, %hi, %total, %threes, %where, %has, %flo, %fsum)
)IR";
  check_ir_opsets(ir, {randn({9}, 9), randn({7}, 3)});
  check_ir(ir, {randn({4}, 1) - 2.0, randn({6}, 2) + 2.0});
}

TEST_CASE("aten::extend", "[control_flow]") {
  // xs.extend(ys) on tensor lists of known length.
  const char *ir = R"IR(
graph(%x : Tensor, %y : Tensor):
  %zero : int = prim::Constant[value=0]()
  %xs : Tensor[] = prim::ListConstruct(%x)
  %ys : Tensor[] = prim::ListConstruct(%y, %x)
  aten::extend(%xs, %ys)
  %s : Tensor = aten::stack(%xs, %zero)
  return (%s)
)IR";
  auto r = check_ir_opsets(ir, {randn({2, 3}, 1), randn({2, 3}, 2)});
  CHECK(r.torch_outputs.at(0).size(0) == 3);
}

TEST_CASE("a branch that raises is dropped", "[control_flow]") {
  const char *ir = R"IR(
graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %msg : str = prim::Constant[value="negative"]()
  %zero : int = prim::Constant[value=0]()
  %s : Tensor = aten::sum(%x, %none)
  %c : Tensor = aten::lt(%s, %zero)
  %b : bool = aten::Bool(%c)
  %y : Tensor = prim::If(%b)
    block0():
      prim::RaiseException(%msg, %none)
      %u : Tensor = prim::Uninitialized()
      -> (%u)
    block1():
      %r : Tensor = aten::relu(%x)
      -> (%r)
  return (%y)
)IR";
  auto r = check_ir(ir, {at::abs(randn({2, 3}, 11))});
  CHECK(r.count("If") == 0);
}

// F.mse_loss's `if not (target.size() == input.size()): warnings.warn("...".format(...))`:
// with a dim only the run knows, the condition is not decided at export, and aten::format has
// no converter; an if that only warns computes nothing, so it goes with its condition.
TEST_CASE("a branch that only warns is dropped", "[control_flow]") {
  const char *ir = R"IR(
graph(%x : Tensor, %t : Tensor):
  %none : NoneType = prim::Constant()
  %msg : str = prim::Constant[value="Using a target size ({}) that is different to ({})"]()
  %two : int = prim::Constant[value=2]()
  %one : int = prim::Constant[value=1]()
  %a : int[] = aten::size(%t)
  %b : int[] = aten::size(%x)
  %same : bool = aten::eq(%a, %b)
  %differ : bool = aten::__not__(%same)
  prim::If(%differ)
    block0():
      %text : str = aten::format(%msg, %a, %b)
      aten::warn(%text, %two)
      -> ()
    block1():
      -> ()
  %d : Tensor = aten::sub(%x, %t, %one)
  %y : Tensor = aten::mul(%d, %d)
  return (%y)
)IR";
  auto r = check_ir_dynamic(ir, {randn({2, 3}, 1), randn({2, 3}, 2)},
                            {randn({5, 3}, 3), randn({5, 3}, 4)});
  CHECK(r.count("If") == 0);
}

// An if whose result is a str (nn.TransformerEncoder's reason for not taking its fast path, on
// whether the padding mask is left-aligned) on a runtime condition: no ONNX If carries a string,
// so the branch the example inputs took is exported (a notice says so) and the string folds.
TEST_CASE("an if giving a str on a runtime condition takes the example's branch",
          "[control_flow]") {
  const char *ir = R"IR(
graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %zero : int = prim::Constant[value=0]()
  %two : float = prim::Constant[value=2.]()
  %fast : str = prim::Constant[value="fast"]()
  %slow : str = prim::Constant[value="slow"]()
  %s : Tensor = aten::sum(%x, %none)
  %c : Tensor = aten::gt(%s, %zero)
  %b : bool = aten::Bool(%c)
  %mode : str = prim::If(%b)
    block0():
      -> (%fast)
    block1():
      -> (%slow)
  %is_fast : bool = aten::eq(%mode, %fast)
  %y : Tensor = prim::If(%is_fast)
    block0():
      %r : Tensor = aten::relu(%x)
      -> (%r)
    block1():
      %n : Tensor = aten::neg(%x)
      %m : Tensor = aten::mul(%n, %two)
      -> (%m)
  return (%y)
)IR";
  SECTION("the example takes the then branch") {
    auto r = check_ir(ir, {filled({2, 3}, 0.5) + randn({2, 3}, 1) * 0.1});
    CHECK(r.count("If") == 0);
    CHECK(r.count("Relu") == 1);
  }
  SECTION("the example takes the else branch") {
    auto r = check_ir(ir, {filled({2, 3}, -0.5) + randn({2, 3}, 2) * 0.1});
    CHECK(r.count("If") == 0);
    CHECK(r.count("Relu") == 0);
  }
}

// nn.MultiheadAttention's `query is not key or key is not value` on runtime tensors: known at
// export time (q = k = x + 1 are one value, v = x * 2 another), so the If folds to one branch.
TEST_CASE("aten::__is__ and aten::__isnot__ between runtime tensors", "[control_flow]") {
  const char *ir = R"IR(
graph(%x : Tensor):
  %one : int = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %q : Tensor = aten::add(%x, %one, %one)
  %v : Tensor = aten::mul(%x, %two)
  %qk : bool = aten::__isnot__(%q, %q)
  %kv : bool = aten::__is__(%q, %v)
  %either : bool = aten::__or__(%qk, %kv)
  %y : Tensor = prim::If(%either)
    block0():
      %n : Tensor = aten::neg(%v)
      -> (%n)
    block1():
      %s : Tensor = aten::sub(%q, %v, %one)
      -> (%s)
  %same : bool = aten::__is__(%q, %q)
  %diff : bool = aten::__isnot__(%q, %v)
  return (%y, %same, %diff)
)IR";
  auto r = check_ir_opsets(ir, {randn({2, 3}, 12)});
  CHECK(r.count("If") == 0);
  CHECK(r.count("Neg") == 0);
}

TEST_CASE("scripted model: data-dependent if with early return", "[control_flow][fixture]") {
  // Pick seeds whose inputs take each of the three paths (sum > 0; sum <= 0 with mean >= -0.3;
  // mean < -0.3, the early return).
  auto spec = torch2onnx::parse_input_spec("x:f32[2,3]");
  std::vector<uint64_t> seeds;
  bool seen[3] = {false, false, false};
  for (uint64_t s = 0; s < 200 && !(seen[0] && seen[1] && seen[2]); ++s) {
    auto x = torch2onnx::make_example_inputs({spec}, s)[0];
    int path = x.sum().item<float>() > 0 ? 0 : x.mean().item<float>() < -0.3 ? 2 : 1;
    if (!seen[path])
      seeds.push_back(s);
    seen[path] = true;
  }
  REQUIRE(seeds.size() == 3);
  std::string model = export_and_verify("if_sum", {"x:f32[2,3]"}, seeds);
  CHECK(count_op(model, "If") == 2);
}

TEST_CASE("scripted model: for loop collecting a list, then torch.stack",
          "[control_flow][fixture]") {
  SECTION("static length 5: unrolled") {
    std::string model = export_and_verify("for_stack", {"x:f32[5,3,4]"}, {0, 1, 2});
    CHECK(count_op(model, "Loop") == 0);
  }
  SECTION("symbolic length: ONNX Loop, verified at 3 lengths") {
    std::string model = export_and_verify("for_stack", {"x:f32[n=5,3,4]"}, {0, 1}, {{"n", 11}});
    CHECK(count_op(model, "Loop") == 1);
    CHECK(count_op(model, "ConcatFromSequence") == 2);
  }
}

TEST_CASE("scripted model: while loop", "[control_flow][fixture]") {
  std::string model = export_and_verify("while_loop", {"x:f32[2,3]"}, {0, 1, 2, 3, 4});
  CHECK(count_op(model, "Loop") == 1);
}

TEST_CASE("scripted model: nn.LSTMCell / nn.GRUCell stepped in a for loop",
          "[control_flow][fixture]") {
  SECTION("static time steps (unrolled)") {
    export_and_verify("cell_loop", {"x:f32[6,2,8]"}, {0, 1});
  }
  SECTION("symbolic time steps (ONNX Loop)") {
    std::string model = export_and_verify("cell_loop", {"x:f32[t=6,2,8]"}, {0, 1}, {{"t", 3}});
    CHECK(count_op(model, "Loop") == 1);
  }
}

TEST_CASE("nn.LSTM / nn.GRU: multi-layer, bidirectional, batch_first, traced and scripted",
          "[control_flow][fixture]") {
  const std::vector<std::string> specs = {"x:f32[b=3,t=7,6]", "h0:f32[4,b=3,10]"};
  for (const char *kind : {"lstm", "gru"})
    for (const char *state : {"", "_h0"})
      for (const char *how : {"", "_traced"}) {
        std::string name = std::string(kind) + state + how;
        SECTION(name) {
          // Scripted models keep their checks (prim::If on sizes, optional h0): verified at
          // dynamic batch and sequence sizes too. Traced ones fix the sizes.
          bool scripted = std::string(how).empty();
          std::string model =
              scripted ? export_and_verify(name, specs, {0, 1}, {{"b", 2}, {"t", 4}})
                       : export_and_verify(name, {"x:f32[3,7,6]", "h0:f32[4,3,10]"}, {0, 1});
          CHECK(count_op(model, std::string(kind) == "lstm" ? "LSTM" : "GRU") == 3);
        }
      }
}

TEST_CASE("nn.LSTM with proj_size: steps in an ONNX Loop, traced and scripted",
          "[control_flow][fixture]") {
  // ONNX's LSTM has no projection: each direction's steps run in a Loop (rnn_projected.cpp).
  for (const char *how : {"", "_traced"}) {
    std::string name = std::string("lstm_proj") + how;
    INFO(name);
    bool scripted = std::string(how).empty();
    std::string model = scripted
                            ? export_and_verify(name, {"x:f32[b=3,t=7,6]", "h0:f32[4,b,4]"}, {0, 1},
                                                {{"b", 2}, {"t", 4}})
                            : export_and_verify(name, {"x:f32[3,7,6]", "h0:f32[4,3,4]"}, {0, 1});
    CHECK(count_op(model, "Loop") == 5); // 2 layers x 2 directions, then 1
    CHECK(count_op(model, "LSTM") == 0);
  }
}

// Issue 28: what scripted models compute on lists, dicts, strings and types.
TEST_CASE("scripted model: list methods on sizes (reverse, sort, index, count, sum, min, max)",
          "[control_flow][fixture]") {
  SECTION("static sizes: everything folds, and in place methods change the list") {
    // dims.reverse() folded on a copy that was then dropped gave x * 14 instead of x * 17.
    export_and_verify("list_methods", {"x:f32[3,6]", "y:f32[3,5]"}, {0, 1});
  }
  SECTION("symbolic widths: min() over runtime sizes is a ReduceMin") {
    std::string model = export_and_verify("list_methods", {"x:f32[3,w=6]", "y:f32[3,v=5]"}, {0, 1},
                                          {{"w", 9}, {"v", 4}});
    CHECK(count_op(model, "ReduceMin") >= 1);
  }
}

TEST_CASE("aten::warn: warnings.warn in a scripted model is dropped", "[control_flow][fixture]") {
  // list_methods calls warnings.warn(...) (aten::warn); the export goes on without it.
  export_and_verify("list_methods", {"x:f32[3,6]", "y:f32[3,5]"}, {0});
}

TEST_CASE("scripted model: a dict of tensors (keys, values, items, get, in)",
          "[control_flow][fixture]") {
  export_and_verify("dict_methods", {"x:f32[2,4]"}, {0, 1});
  export_and_verify("dict_methods", {"x:f32[b=2,4]"}, {0}, {{"b", 5}});
}

TEST_CASE("scripted model: a dict filled in the branches of an if", "[control_flow][fixture]") {
  // Seeds give inputs with positive and negative sums: both paths run in ONNX Runtime.
  std::string model = export_and_verify("dict_in_if", {"x:f32[2,3]"}, {0, 1, 2, 3, 4, 5});
  CHECK(count_op(model, "If") >= 2);
  torch2onnx::Error e = export_refused("dict_keys_differ", "x:f32[2,3]");
  CHECK(contains(e.what(), "on one path of an if"));
  CHECK(contains(e.what(), "pos"));
}

TEST_CASE("scripted model: writes into slices inside loops and ifs", "[control_flow][fixture]") {
  // Were dropped when the loop stayed an ONNX Loop (while, break, a runtime trip count): the
  // buffer came out as it was before the loop. Seeds give both signs of the sum.
  for (int opset : {13, 17}) {
    INFO("opset " << opset);
    std::string model =
        export_and_verify("writes_in_loops", {"x:f32[b=3,t=5]"}, {0, 1, 2, 3}, {{"t", 9}}, opset);
    CHECK(count_op(model, "Loop") >= 3);
  }
}

TEST_CASE("scripted model: views changed in place across loops and ifs",
          "[control_flow][fixture]") {
  // A view taken before a loop read the value from before the loop in every iteration (x2 once,
  // not per row), and an in-place op after an if on the view the if changed was dropped. Seeds
  // give both signs of the sum (the if).
  for (int opset : {11, 17})
    export_and_verify("views_across_control_flow", {"x:f32[b=3,4]"}, {0, 1, 2, 3}, {{"b", 6}},
                      opset);
}

TEST_CASE("scripted model: pad to a multiple of 32 only when needed", "[control_flow][fixture]") {
  // The examples never take the branch: its F.pad (amounts computed at run time) was run on
  // placeholders only with constant amounts, so the size read after it had no shape ('no
  // shape/dtype is known for value aten::pad/Pad'). Verified at 70x100, where the branch runs.
  for (int opset : {11, 17})
    export_and_verify("pad_if_needed", {"x:f32[1,3,h=64,w=96]"}, {0, 1}, {{"h", 70}, {"w", 100}},
                      opset);
}

TEST_CASE("scripted model: a decoder whose length is an input", "[control_flow][fixture]") {
  // Every recording ran 4 steps (max_len 4..4), so the tokens (grown by a column a step) and the
  // stacked step scores were declared [b, 5] and [b, 4]: wrong for any other max_len (ONNX
  // Runtime returned [b, 8] against the declared shape). Those dims are now left open: a loop's
  // result keeps no recorded size its initial value or body contradicts, and a list built in a
  // loop stacks to a length only the run knows.
  std::string bytes =
      export_and_verify("greedy_decode", {"start:i64[b=2]:0..11", "max_len:i64[]:4..4"}, {0});
  const std::string path = fresh_dir("greedy_decode") + "/greedy_decode.onnx";
  {
    std::ofstream f(path, std::ios::binary);
    f << bytes;
  }
  auto dims = onnx_output_dims(path);
  REQUIRE(dims.size() == 2);
  CHECK(dims[0] == std::vector<int64_t>{-1, -1});
  CHECK(dims[1] == std::vector<int64_t>{-1, -1});
  auto module = torch::jit::load(fixture("greedy_decode"));
  module.eval();
  for (int64_t len : {1, 7}) {
    INFO("max_len " << len);
    std::vector<at::Tensor> inputs = {at::tensor({1, 5, 9}, at::kLong), at::tensor(len)};
    std::vector<at::Tensor> expected;
    {
      at::NoGradGuard no_grad;
      expected = torch2onnx::flatten_tensors(module.forward({inputs[0], inputs[1]}));
    }
    auto actual = torch2onnx::run_onnxruntime(path, onnx_input_names(path), inputs);
    REQUIRE(actual.size() == 2);
    CHECK(at::equal(actual[0], expected[0]));
    CHECK(at::allclose(actual[1], expected[1], 1e-4, 1e-4));
  }
}

TEST_CASE("scripted model: continue and break with counters", "[control_flow][fixture]") {
  // The counters an early `continue` or `break` leaves unset (prim::Uninitialized, typed int,
  // float or bool) were None, and the if that passed them along failed ('expected a number, got
  // a None'). Seeds give rows of both signs: no break, a break early, a break late.
  for (int opset : {11, 17})
    export_and_verify("continue_break", {"x:f32[n=8,3]"}, {0, 1, 2, 3}, {{"n", 13}}, opset);
}

TEST_CASE("a runtime if's output keeps no recorded size a branch contradicts", "[control_flow]") {
  // Every recording pooled to 8x8 (the mean is never above 10 there), so the recorded width of %y
  // is 8; the other branch passes the 16-wide input on. y.size(-1) must be read at run time.
  // (Values computed from %y keep their recorded sizes: only the if's own outputs are checked
  // against its branches.)
  const std::string g = R"IR(
graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %ten : float = prim::Constant[value=10.]()
  %eight : int[] = prim::Constant[value=[8, 8]]()
  %m1 : int = prim::Constant[value=-1]()
  %s : Tensor = aten::mean(%x, %none)
  %c : Tensor = aten::gt(%s, %ten)
  %b : bool = aten::Bool(%c)
  %y : Tensor = prim::If(%b)
    block0():
      -> (%x)
    block1():
      %p : Tensor = aten::adaptive_avg_pool2d(%x, %eight)
      -> (%p)
  %n : int = aten::size(%y, %m1)
  %t : Tensor = aten::sum(%y, %none)
  %r : Tensor = aten::mul(%t, %n)
  return (%r))IR";
  auto x = at::randn({2, 3, 16, 16}, at::TensorOptions().dtype(at::kFloat));
  check_ir_unseen(g, {x}, {x + 20});
}

TEST_CASE("scripted model: torchvision Resize and CenterCrop in the model",
          "[control_flow][fixture]") {
  // Which side is short decides, in a runtime if, which output dim is 72. Every recording used
  // to keep the example's order of h and w, so that dim was a constant of the example's branch:
  // wrong at an image of the other orientation. Recordings now see both orders (a square example
  // gets a fourth one), and a runtime if's output keeps no recorded size a branch contradicts.
  // At 50x40 the alternate (82x72) is already the size and returns early: values computed in one
  // recording only lost the rank of the input they pass through (aten::dim failed).
  export_and_verify("resize_crop_net", {"x:f32[1,3,h=100,w=120]"}, {0}, {{"h", 50}, {"w", 40}});
  export_and_verify("resize_crop_net", {"x:f32[1,3,h=50,w=40]"}, {0}, {{"h", 100}, {"w", 120}}, 13);
  export_and_verify("resize_crop_net", {"x:f32[1,3,h=96,w=96]"}, {0}, {{"h", 130}, {"w", 100}});
  export_and_verify("resize_crop_net", {"x:f32[1,3,h=96,w=96]"}, {0}, {{"h", 100}, {"w", 130}});
  // A long strip: the short side grows, the long one to 360.
  export_and_verify("resize_crop_net", {"x:f32[1,3,h=96,w=96]"}, {0}, {{"h", 40}, {"w", 200}});
}

TEST_CASE("scripted model: with torch.no_grad() blocks", "[control_flow][fixture]") {
  // The context objects (prim::CreateObject/Enter/Exit/SetAttr) were unsupported ops; gradient
  // mode changes nothing an inference graph computes. Seeds give both signs of the sum (the if).
  for (int opset : {11, 17})
    export_and_verify("no_grad_blocks", {"x:f32[b=3,4]"}, {0, 1, 2, 3}, {{"b", 5}}, opset);
}

TEST_CASE("scripted model: a loop over classes in a branch the example never takes",
          "[control_flow][fixture]") {
  // Recorded at 30 boxes (the other path); verified at 80, where the loop's branch runs: its
  // nodes' shapes come from LibTorch run on placeholders at both recorded sizes.
  for (int opset : {13, 17}) {
    INFO("opset " << opset);
    std::string model = export_and_verify(
        "class_loop_in_if", {"boxes:f32[n=30,4]", "scores:f32[n]", "idxs:i64[n]:0..3"}, {0, 1},
        {{"n", 80}}, opset);
    CHECK(count_op(model, "Loop") == 1);
  }
}

TEST_CASE("scripted model: an Optional tested inside a loop is not loop-carried",
          "[control_flow][fixture]") {
  // None (an ONNX Loop cannot carry it) and a list of bools (nor that): both pass through the
  // loop unchanged, so the loop reads the value it starts with.
  for (const char *name : {"optional_in_loop", "optional_in_loop_set"}) {
    INFO(name);
    std::string model = export_and_verify(name, {"x:f32[n=5,3]"}, {0, 1}, {{"n", 9}}, 13);
    CHECK(count_op(model, "Loop") == 1);
  }
}

TEST_CASE("scripted model: isinstance on Union and Optional values", "[control_flow][fixture]") {
  std::string model = export_and_verify("isinstance", {"x:f32[2,3]", "mask:f32[2,3]"}, {0, 1});
  CHECK(count_op(model, "If") == 0); // decided at export time
  export_and_verify("isinstance", {"x:f32[2,3]", "mask:none"}, {0});
}

TEST_CASE("scripted model: pad_sequence of a list built in a loop (a length regulator)",
          "[control_flow][fixture]") {
  // batch_first with padding -1 and the [T, B, *] default; durations 0..3, so lengths differ
  // and some utterances are empty or longest at each seed.
  export_and_verify("length_regulator", {"x:f32[b=2,t=5,4]", "dur:i64[b,t]:0..3"}, {0, 1, 2, 3},
                    {{"b", 3}, {"t", 7}});
}

TEST_CASE("scripted model: an Optional tensor that is None on one path of a runtime if",
          "[control_flow][fixture]") {
  // LLaMA's `mask = None; if seqlen > 1: mask = ...`: carried as a bool flag and a tensor (a
  // placeholder where None); `is not None` reads the flag. Recorded with the mask set and with
  // it None (s=1), each verified on the other path too.
  for (int opset : {11, 17}) {
    INFO("opset " << opset);
    std::string model =
        export_and_verify("optional_causal_mask", {"x:f32[b=2,s=5,16]"}, {0, 1}, {{"s", 1}}, opset);
    CHECK(count_op(model, "If") >= 3);
  }
  export_and_verify("optional_causal_mask", {"x:f32[b=2,s=1,16]"}, {2}, {{"s", 7}});
  // Loop-carried from None (a running sum), and a bool mask None on the branch written first.
  export_and_verify("optional_carried", {"x:f32[n=3,t=4,5]"}, {0, 1}, {{"t", 2}});
  export_and_verify("optional_carried", {"x:f32[n=3,t=2,5]"}, {3}, {{"n", 6}, {"t", 5}}, 13);
}

TEST_CASE("scripted model: an Optional that may be None reaching an op or an output is refused",
          "[control_flow][fixture]") {
  // A bias that is None on one path, passed to linear.
  torch2onnx::Error e = export_refused("optional_unchecked", "x:f32[b=2,4]");
  CHECK(contains(e.what(), "aten::linear"));
  CHECK(contains(e.what(), "None on some runs"));
  CHECK(contains(e.hint(), "is not None"));
}

TEST_CASE("scripted model: an early return whose inner condition folds",
          "[control_flow][fixture]") {
  // `if n < 10: x = pad(x); if x.shape[1] == 4: return x` with 5 columns: TorchScript's
  // "returned" flag is false on both paths of the runtime if, and the value it would return is
  // unset on both. The flag is that constant after the if, so the last if folds; kept as an ONNX
  // If, it gave the unset placeholder (rank 0) on one path, which shape inference refused.
  std::string model = export_and_verify("early_return_pad", {"x:f32[n=3,5]"}, {0, 1}, {{"n", 12}});
  CHECK(count_op(model, "If") == 1);
}
