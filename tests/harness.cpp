#include "harness.h"

#include "aten_lib/converter.h"
#include "builder/error.h"
#include "builder/provenance.h"
#include "exporter/core/tensor_util.h"
#include "exporter/frontend/torchscript/convert.h"
#include "exporter/frontend/torchscript/loader.h"
#include "exporter/verify/verify.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <functional>
#include <map>
#include <onnx/onnx_pb.h>
#include <set>
#include <torch/csrc/jit/ir/irparser.h>
#include <torch/csrc/jit/runtime/operator.h>

namespace t2o_test {

using namespace torch2onnx;
namespace fs = std::filesystem;

size_t IrResult::count(const std::string &op_type) const {
  return static_cast<size_t>(std::count(op_types.begin(), op_types.end(), op_type));
}

namespace {

// The facts the registry states are checked on every conversion: each ONNX node is named after
// the aten op it was written for (builder/provenance.h), and its op type must be one the
// registry entry of that op at `opset` lists (RegistryEntry::onnx_ops: what `torch2onnx ops` and
// docs/operators.md show). An op the walker converts as "<op>.num" (number arithmetic) or
// "<op>.list" (Python's functions on lists of numbers) may have used either entry.
void check_emitted_ops(const onnx::ModelProto &model, int opset) {
  const Registry &registry = Registry::global();
  for (const auto &[op, types] : onnx_ops_by_origin(model)) {
    std::set<std::string> listed;
    for (const std::string &key : {op, op + ".num", op + ".list"})
      if (const RegistryEntry *e = registry.find(key, opset))
        listed.insert(e->onnx_ops.begin(), e->onnx_ops.end());
    for (const auto &[type, count] : types) {
      INFO(op << " wrote " << count << " " << type << " node(s) at opset " << opset
              << "; its registry entry lists only [" << fmt::format("{}", fmt::join(listed, ", "))
              << "]: add the op type to its registration (aten_lib/*.cpp)");
      CHECK(listed.count(type) == 1);
    }
  }
}

Converted convert_ir(const std::string &ir, const std::vector<at::Tensor> &inputs, int opset) {
  auto graph = std::make_shared<torch::jit::Graph>();
  torch::jit::parseIR(ir, graph.get());
  prepare_graph(graph);
  std::vector<c10::IValue> ivals(inputs.begin(), inputs.end());
  std::vector<std::string> names;
  for (size_t i = 0; i < inputs.size(); ++i)
    names.push_back("input_" + std::to_string(i));
  return convert_graph(graph, ivals, names, opset, {});
}

} // namespace

at::Tensor randn(std::vector<int64_t> shape, uint64_t seed) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  return at::randn(shape, gen, at::TensorOptions().dtype(at::kFloat));
}

at::Tensor ints(std::vector<int64_t> shape, int64_t lo, int64_t hi, at::ScalarType t) {
  return at::randint(lo, hi, shape, at::TensorOptions().dtype(t));
}

at::Tensor scalar_long(int64_t v) {
  return at::scalar_tensor(v, at::kLong);
}

std::vector<std::string> schema_arg_names(const std::string &op, size_t num_args,
                                          const std::string &overload) {
  // An exact count first; else a schema with more arguments (the rest read as None).
  for (bool exact : {true, false})
    for (const auto &o : torch::jit::getAllOperatorsFor(c10::Symbol::fromQualString(op))) {
      const c10::FunctionSchema &s = o->schema();
      size_t n = s.arguments().size();
      if (overload == "*" ? (exact ? n != num_args : n < num_args) : s.overload_name() != overload)
        continue;
      bool skip = false; // size.Dimname, flatten.DimnameList, ...: named tensors; out= variants
      for (const auto &a : s.arguments())
        skip = skip || a.type()->str().find("Dimname") != std::string::npos || a.is_out();
      if (skip)
        continue;
      std::vector<std::string> names;
      for (const auto &a : s.arguments())
        names.push_back(a.name());
      return names;
    }
  FAIL("LibTorch has no schema of " << op << " with " << num_args << " arguments");
  return {};
}

namespace {
IrResult check_ir_impl(const std::string &ir, const std::vector<at::Tensor> &inputs, int opset,
                       double rtol, double atol, bool optimize);
}

IrResult check_ir(const std::string &ir, const std::vector<at::Tensor> &inputs, int opset,
                  double rtol, double atol) {
  return check_ir_impl(ir, inputs, opset, rtol, atol, false);
}

IrResult check_ir_optimized(const std::string &ir, const std::vector<at::Tensor> &inputs, int opset,
                            double rtol, double atol) {
  return check_ir_impl(ir, inputs, opset, rtol, atol, true);
}

namespace {
IrResult check_ir_impl(const std::string &ir, const std::vector<at::Tensor> &inputs, int opset,
                       double rtol, double atol, bool optimize) {
  INFO("opset " << opset << (optimize ? " (optimized)" : "") << "\n" << ir);
  IrResult r;
  Converted c;
  try {
    c = convert_ir(ir, inputs, opset);
  } catch (const torch2onnx::Error &e) {
    FAIL("export failed: " << e.what() << (e.hint().empty() ? "" : "\n  hint: " + e.hint()));
  }
  check_emitted_ops(c.builder->model(), opset);
  fs::path dir = fs::temp_directory_path() / "torch2onnx_tests";
  fs::create_directories(dir);
  std::string path =
      (dir / ("ir_" + std::to_string(::getpid()) + "_" + std::to_string(opset) + ".onnx")).string();
  SerializeOptions so;
  try {
    c.builder->finish_graph(so);
    if (optimize)
      c.builder->rewrite([&](onnx::ModelProto &m) { r.rewrites = optimize_model(m); });
    c.builder->save(path, so);
  } catch (const torch2onnx::Error &e) {
    FAIL("serialization failed: " << e.what());
  }
  for (const auto &n : c.builder->model_op_types())
    r.op_types.push_back(n);
  for (const auto &t : c.builder->model().graph().initializer()) { // the file's, as written
    int64_t n = 1;
    for (int64_t d : t.dims())
      n *= d;
    r.initializer_numels.push_back(n);
  }
  r.torch_outputs = flatten_tensors(c10::ivalue::Tuple::create(c.record.outputs));
  r.ort_outputs = run_onnxruntime(path, c.input_names, inputs);
  fs::remove(path);
  r.checks = compare_outputs(c.output_names, r.torch_outputs, r.ort_outputs, rtol, atol);
  REQUIRE(r.ort_outputs.size() == r.torch_outputs.size());
  for (const auto &ch : r.checks) {
    INFO("output " << ch.name << ": " << ch.problem << " max abs error " << ch.max_abs_error
                   << " tolerance " << ch.tolerance);
    CHECK(ch.ok());
  }
  return r;
}
} // namespace

int lowest_opset(const std::string &ir) {
  static const std::map<std::string, int> since = [] {
    std::map<std::string, int> m;
    for (const RegistryEntry *e : Registry::global().entries())
      if (!m.count(e->op) || e->since_opset < m[e->op])
        m[e->op] = e->since_opset;
    return m;
  }();
  auto graph = std::make_shared<torch::jit::Graph>();
  torch::jit::parseIR(ir, graph.get());
  int lowest = kMinOpset;
  std::function<void(torch::jit::Block *)> visit = [&](torch::jit::Block *block) {
    for (torch::jit::Node *n : block->nodes()) {
      auto it = since.find(n->kind().toQualString());
      if (it != since.end())
        lowest = std::max(lowest, it->second);
      for (torch::jit::Block *sub : n->blocks())
        visit(sub);
    }
  };
  visit(graph->block());
  return lowest;
}

IrResult check_ir_opsets(const std::string &ir, const std::vector<at::Tensor> &inputs, double rtol,
                         double atol) {
  const int lowest = lowest_opset(ir);
  if (lowest < kMaxOpset)
    check_ir(ir, inputs, lowest, rtol, atol);
  return check_ir(ir, inputs, kMaxOpset, rtol, atol);
}

std::vector<at::Tensor> run_ir_in_ort(const std::string &ir, const std::vector<at::Tensor> &inputs,
                                      int opset) {
  INFO("opset " << opset << "\n" << ir);
  Converted c;
  try {
    c = convert_ir(ir, inputs, opset);
  } catch (const torch2onnx::Error &e) {
    FAIL("export failed: " << e.what());
  }
  check_emitted_ops(c.builder->model(), opset);
  fs::path dir = fs::temp_directory_path() / "torch2onnx_tests";
  fs::create_directories(dir);
  std::string path = (dir / ("ir_ort_" + std::to_string(::getpid()) + ".onnx")).string();
  c.builder->save(path, SerializeOptions{});
  auto out = run_onnxruntime(path, c.input_names, inputs);
  fs::remove(path);
  return out;
}

std::string export_ir_error(const std::string &ir, const std::vector<at::Tensor> &inputs,
                            int opset) {
  try {
    Converted c = convert_ir(ir, inputs, opset);
    SerializeOptions so;
    c.builder->serialize_to_string(so);
  } catch (const torch2onnx::Error &e) {
    return e.what();
  }
  return {};
}

} // namespace t2o_test

#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace t2o_test {

std::string file_bytes(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string shell_quote(const std::string &s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

CliResult run_cli(const std::vector<std::string> &args) {
  std::string cmd = shell_quote(T2O_CLI);
  for (const auto &a : args)
    cmd += " " + shell_quote(a);
  return run_command(cmd);
}

CliResult run_command(const std::string &cmd) {
  std::string dir = fresh_dir("cli_capture");
  // The redirections belong to the shell that runs `cmd`, outside anything `cmd` sets up.
  std::string full =
      cmd + " >" + shell_quote(dir + "/out") + " 2>" + shell_quote(dir + "/err") + " </dev/null";
  int status = std::system(full.c_str());
  CliResult r;
  if (WIFEXITED(status))
    r.exit_code = WEXITSTATUS(status);
  else
    r.exit_code = 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  r.out = file_bytes(dir + "/out");
  r.err = file_bytes(dir + "/err");
  return r;
}

torch2onnx::Registry registry_with_relu(const torch2onnx::ConverterFn &relu) {
  using torch2onnx::Registry;
  Registry r;
  for (const auto *e : Registry::global().entries()) {
    r.set_family(e->family);
    if (e->frontend)
      r.add_frontend(e->op, e->handler, e->onnx_ops);
    else if (e->op != "aten::relu")
      r.add(e->op, e->since_opset, e->fn ? e->fn : e->complex_fn, e->onnx_ops);
  }
  r.set_family("test");
  r.add("aten::relu", 13, relu, {"Abs"});
  return r;
}

std::string fresh_dir(const std::string &name) {
  static int counter = 0;
  fs::path d = fs::path(T2O_TEST_OUT) /
               (name + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}

std::string test_model(const std::string &name) {
  return (fs::path(T2O_TEST_MODELS) / (name + ".pt")).string();
}

} // namespace t2o_test

#include <ATen/core/grad_mode.h>

namespace t2o_test {

namespace {
void require_match(const std::string &what, const std::vector<std::string> &names,
                   const std::vector<at::Tensor> &expected, const std::vector<at::Tensor> &actual,
                   std::vector<OutputCheck> *checks) {
  INFO("inputs: " << what);
  REQUIRE(actual.size() == expected.size());
  auto cs = compare_outputs(names, expected, actual, 1e-4, 1e-4);
  for (const auto &ch : cs) {
    INFO("output " << ch.name << ": " << ch.problem << " max abs error " << ch.max_abs_error
                   << " tolerance " << ch.tolerance);
    REQUIRE(ch.ok());
  }
  if (checks)
    *checks = cs;
}
} // namespace

namespace {
IrResult check_ir_two_inputs(const std::string &ir, const std::vector<at::Tensor> &example,
                             const std::vector<at::Tensor> &alternate, int opset,
                             bool record_alternate) {
  INFO("opset " << opset << (record_alternate ? " (dynamic)\n" : " (unseen inputs)\n") << ir);
  REQUIRE(example.size() == alternate.size());
  auto graph = std::make_shared<torch::jit::Graph>();
  torch::jit::parseIR(ir, graph.get());
  prepare_graph(graph);
  GraphInputs gi;
  for (size_t i = 0; i < example.size(); ++i) {
    gi.names.push_back("input_" + std::to_string(i));
    TensorInfo info = info_of(example[i]);
    REQUIRE(example[i].dim() == alternate[i].dim());
    for (int64_t d = 0; d < example[i].dim(); ++d)
      if (example[i].size(d) != alternate[i].size(d))
        (*info.shape)[d] = Dim::named("d" + std::to_string(i) + "_" + std::to_string(d), -1);
    gi.infos.push_back(info);
    gi.example.emplace_back(example[i]);
    if (record_alternate)
      gi.alternate.emplace_back(alternate[i]);
  }
  IrResult r;
  Converted c;
  try {
    c = convert_graph(graph, gi, opset, {});
  } catch (const torch2onnx::Error &e) {
    FAIL("export failed: " << e.what() << (e.hint().empty() ? "" : "\n  hint: " + e.hint()));
  }
  check_emitted_ops(c.builder->model(), opset);
  fs::path dir = fs::temp_directory_path() / "torch2onnx_tests";
  fs::create_directories(dir);
  std::string path =
      (dir / ("ir_dyn_" + std::to_string(::getpid()) + "_" + std::to_string(opset) + ".onnx"))
          .string();
  try {
    c.builder->save(path, SerializeOptions{});
  } catch (const torch2onnx::Error &e) {
    FAIL("serialization failed: " << e.what());
  }
  for (const auto &n : c.builder->model_op_types())
    r.op_types.push_back(n);
  r.torch_outputs = flatten_tensors(c10::ivalue::Tuple::create(c.record.outputs));
  r.ort_outputs = run_onnxruntime(path, c.input_names, example);
  std::vector<at::Tensor> alt_torch, alt_ort = run_onnxruntime(path, c.input_names, alternate);
  fs::remove(path);
  {
    at::NoGradGuard no_grad;
    // A fresh copy of the inputs: in-place ops in the graph must not change the caller's.
    std::vector<c10::IValue> alt;
    for (const auto &t : alternate)
      alt.emplace_back(t.clone());
    alt_torch = flatten_tensors(c10::ivalue::Tuple::create(record_shapes(graph, alt).outputs));
  }
  require_match("example", c.output_names, r.torch_outputs, r.ort_outputs, &r.checks);
  require_match("alternate", c.output_names, alt_torch, alt_ort, nullptr);
  return r;
}
} // namespace

IrResult check_ir_dynamic(const std::string &ir, const std::vector<at::Tensor> &example,
                          const std::vector<at::Tensor> &alternate, int opset) {
  return check_ir_two_inputs(ir, example, alternate, opset, true);
}

IrResult check_ir_unseen(const std::string &ir, const std::vector<at::Tensor> &example,
                         const std::vector<at::Tensor> &unseen, int opset) {
  return check_ir_two_inputs(ir, example, unseen, opset, false);
}

} // namespace t2o_test

#include <onnx/onnx_pb.h>

namespace t2o_test {

std::vector<std::string> onnx_input_names(const std::string &path) {
  onnx::ModelProto model;
  std::ifstream f(path, std::ios::binary);
  std::vector<std::string> out;
  if (!f || !model.ParseFromIstream(&f))
    return out;
  for (const auto &in : model.graph().input())
    out.push_back(in.name());
  return out;
}

std::vector<std::vector<int64_t>> onnx_output_dims(const std::string &path) {
  onnx::ModelProto model;
  std::ifstream f(path, std::ios::binary);
  std::vector<std::vector<int64_t>> out;
  if (!f || !model.ParseFromIstream(&f))
    return out;
  for (const auto &o : model.graph().output()) {
    std::vector<int64_t> dims;
    for (const auto &d : o.type().tensor_type().shape().dim())
      dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
    out.push_back(dims);
  }
  return out;
}

} // namespace t2o_test
