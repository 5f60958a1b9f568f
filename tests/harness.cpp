#include "harness.h"

#include <torch/csrc/jit/ir/irparser.h>
#include <catch2/catch.hpp>

#include <filesystem>

#include "builder/error.h"
#include "exporter/loader.h"
#include "exporter/pipeline.h"
#include "exporter/verify.h"

namespace t2o_test {

using namespace torch2onnx;
namespace fs = std::filesystem;

size_t IrResult::count(const std::string& op_type) const {
  return static_cast<size_t>(std::count(op_types.begin(), op_types.end(), op_type));
}

namespace {

Converted convert_ir(const std::string& ir, const std::vector<at::Tensor>& inputs, int opset) {
  auto graph = std::make_shared<torch::jit::Graph>();
  torch::jit::parseIR(ir, graph.get());
  prepare_graph(graph);
  std::vector<c10::IValue> ivals(inputs.begin(), inputs.end());
  std::vector<std::string> names;
  for (size_t i = 0; i < inputs.size(); ++i) names.push_back("input_" + std::to_string(i));
  return convert_graph(graph, ivals, names, opset, {});
}

}  // namespace

at::Tensor randn(std::vector<int64_t> shape, uint64_t seed) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  return at::randn(shape, gen, at::TensorOptions().dtype(at::kFloat));
}

IrResult check_ir(const std::string& ir, const std::vector<at::Tensor>& inputs, int opset,
                  double rtol, double atol) {
  INFO("opset " << opset << "\n" << ir);
  IrResult r;
  Converted c;
  try {
    c = convert_ir(ir, inputs, opset);
  } catch (const torch2onnx::Error& e) {
    FAIL("export failed: " << e.what() << (e.hint().empty() ? "" : "\n  hint: " + e.hint()));
  }
  fs::path dir = fs::temp_directory_path() / "torch2onnx_tests";
  fs::create_directories(dir);
  std::string path =
      (dir / ("ir_" + std::to_string(::getpid()) + "_" + std::to_string(opset) + ".onnx")).string();
  SerializeOptions so;
  try {
    c.builder->save(path, so);
  } catch (const torch2onnx::Error& e) {
    FAIL("serialization failed: " << e.what());
  }
  for (const auto& n : c.builder->model_op_types()) r.op_types.push_back(n);
  r.torch_outputs = flatten_tensors(c10::ivalue::Tuple::create(c.record.outputs));
  r.ort_outputs = run_onnxruntime(path, c.input_names, inputs);
  fs::remove(path);
  r.checks = compare_outputs(c.output_names, r.torch_outputs, r.ort_outputs, rtol, atol);
  REQUIRE(r.ort_outputs.size() == r.torch_outputs.size());
  for (const auto& ch : r.checks) {
    INFO("output " << ch.name << ": " << ch.problem << " max abs error " << ch.max_abs_error
                   << " tolerance " << ch.tolerance);
    CHECK(ch.ok());
  }
  return r;
}

IrResult check_ir_opsets(const std::string& ir, const std::vector<at::Tensor>& inputs, double rtol,
                         double atol) {
  check_ir(ir, inputs, 13, rtol, atol);
  return check_ir(ir, inputs, 17, rtol, atol);
}

std::string export_ir_error(const std::string& ir, const std::vector<at::Tensor>& inputs,
                            int opset) {
  try {
    Converted c = convert_ir(ir, inputs, opset);
    SerializeOptions so;
    c.builder->serialize_to_string(so);
  } catch (const torch2onnx::Error& e) {
    return e.what();
  }
  return {};
}

}  // namespace t2o_test
