#include "exporter/loader.h"

#include <dlfcn.h>
#include <torch/csrc/jit/passes/constant_pooling.h>
#include <torch/csrc/jit/passes/constant_propagation.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/freeze_module.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/passes/lower_tuples.h>
#include <torch/csrc/jit/passes/peephole.h>
#include <torch/csrc/jit/passes/remove_mutation.h>
#include <torch/csrc/jit/serialization/import.h>

#include <filesystem>
#include <fstream>

#include "builder/error.h"

namespace torch2onnx {

void load_op_library(const std::string& path) {
  if (!std::filesystem::exists(path))
    throw Error(fmt::format("--load-library: '{}' does not exist", path),
                "pass the path of a shared library that registers custom ops");
  if (!dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL))
    throw Error(fmt::format("--load-library: cannot load '{}': {}", path, dlerror()));
}

namespace {

void check_model_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw Error(fmt::format("model file '{}' does not exist", path),
                "pass the path of a TorchScript file saved with torch.jit.save / module.save");
  if (fs::is_directory(path, ec))
    throw Error(fmt::format("model path '{}' is a directory, not a TorchScript file", path));
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error(fmt::format("cannot open model file '{}'", path));
  char magic[4] = {0, 0, 0, 0};
  f.read(magic, 4);
  if (f.gcount() == 0) throw Error(fmt::format("model file '{}' is empty", path));
  if (f.gcount() < 4 || magic[0] != 'P' || magic[1] != 'K')
    throw Error(fmt::format("'{}' is not a TorchScript file (not a zip archive)", path),
                "save the model with torch.jit.trace(...).save(path) or torch.jit.script(...).save(path); "
                "a state_dict or torch.save() pickle cannot be converted");
}

std::string first_line(const std::string& s) {
  auto nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

}  // namespace

LoadedModel load_model(const std::string& path) {
  check_model_file(path);
  LoadedModel m;
  try {
    m.module = torch::jit::load(path);
  } catch (const std::exception& e) {
    std::string msg = e.what();
    std::string hint = "check that the file was saved by torch.jit.save with PyTorch 1.13 or older";
    if (msg.find("Unknown builtin op") != std::string::npos ||
        msg.find("Unknown type name") != std::string::npos)
      hint = "the model uses a custom op: load its library first with --load-library LIB.so";
    throw Error(fmt::format("cannot load TorchScript model '{}': {}", path, first_line(msg)), hint);
  }
  m.module.eval();
  torch::jit::Module frozen;
  try {
    frozen = torch::jit::freeze_module(m.module);
  } catch (const std::exception& e) {
    throw Error(fmt::format("cannot freeze model '{}': {}", path, first_line(e.what())));
  }
  auto method = frozen.get_method("forward");
  m.graph = method.graph()->copy();
  for (size_t i = 1; i < m.graph->inputs().size(); ++i) {
    std::string n = m.graph->inputs()[i]->debugName();
    auto dot = n.find('.');
    m.arg_names.push_back(dot == std::string::npos ? n : n.substr(0, dot));
  }
  // After freezing, `self` should be unused.
  if (!m.graph->inputs().empty() && m.graph->inputs()[0]->type()->kind() == c10::TypeKind::ClassType) {
    torch::jit::Inline(*m.graph);
    if (m.graph->inputs()[0]->hasUses()) {
      torch::jit::EliminateDeadCode(m.graph);
    }
    if (m.graph->inputs()[0]->hasUses())
      throw Error(fmt::format("model '{}' still reads module attributes after freezing", path),
                  "the model mutates its own attributes in forward; make them local variables");
    m.graph->eraseInput(0);
  }
  prepare_graph(m.graph);
  return m;
}

void prepare_graph(const std::shared_ptr<torch::jit::Graph>& g) {
  std::shared_ptr<torch::jit::Graph> graph = g;  // some passes take a non-const reference
  torch::jit::Inline(*graph);
  torch::jit::LowerSimpleTuples(graph);
  torch::jit::RemoveListMutation(graph);
  torch::jit::RemoveTensorMutation(graph);
  torch::jit::ConstantPropagation(graph);
  torch::jit::ConstantPooling(graph);
  torch::jit::EliminateDeadCode(graph);
}

}  // namespace torch2onnx
