// Loading a TorchScript file and preparing its forward graph for the walker.
#pragma once

#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/ir.h>
#include <vector>

namespace torch2onnx {

// Loads custom-op libraries (like torch.ops.load_library); throws Error with dlerror's reason.
void load_op_library(const std::string &path);

struct LoadedModel {
  torch::jit::Module module; // eval mode, as saved
  std::string source_path;   // the file it was loaded from (empty: a module from memory)
  std::shared_ptr<torch::jit::Graph> graph; // frozen, inlined, simplified forward
  std::vector<std::string> arg_names;       // forward's arguments, without self
  std::vector<c10::TypePtr> arg_types;      // their types (Tensor, Optional[Tensor], int, ...)
  std::vector<std::optional<c10::IValue>> arg_defaults; // their defaults, when they have one
  std::vector<std::string> warnings;                    // notices found while loading
  // The NaN check of the weights (nonfinite_weight_warnings), running on a second thread from the
  // end of prepare; the export adds its warnings to the notices once it has converted.
  std::future<std::vector<std::string>> weight_warnings;
  // Tensor attributes forward still read after freezing, now constants (e.g. a KV cache that
  // forward writes into): LibTorch's copies change when the module runs. Not the assigned ones.
  std::vector<std::string> resolved_attributes;
  // Attributes forward assigns (attributes_to_values): values within a call, the saved ones at
  // the start of each (LibTorch's module keeps the new ones).
  std::vector<std::string> assigned_attributes;
  // Waits for the CRC-32 check of the weights' records and throws Error naming the first damaged
  // one. load_model has called it unless asked to defer it (then the check runs on while the
  // caller goes on, and the caller calls this before it trusts the weights, e.g. before writing
  // them, and when something fails). Empty for a module that was not loaded from a file.
  std::function<void()> check_weights;
  // The integrity check's second pass (empty when nothing is bound: LibTorch's own load or a
  // module from memory): throws Error naming every weight made from a record that no longer holds
  // the record's bytes. The export calls it right before it writes the weights.
  std::function<void()> recheck_weights;
  uint64_t mapped_bytes = 0;  // bytes of the weights that are the file's pages (load_mapped)
  double load_seconds = 0;    // the mapped torch::jit::load
  double prepare_seconds = 0; // freeze, inline, graph passes (the NaN check goes on after it)
};

// torch::jit::load (the weights mapped from the file: load_mapped) + eval + freeze +
// prepare_graph. Throws Error naming the file and the reason. With `defer_weight_check`, the
// weights' checksums are still being checked when it returns (see LoadedModel::check_weights).
LoadedModel load_model(const std::string &path, bool defer_weight_check = false);

// The same for a module already in memory (the C++ and Python APIs): eval + freeze +
// prepare_graph. `name` stands for the file in messages. The module's training flag is set to
// eval; freezing works on a copy, so its weights are not changed.
LoadedModel prepare_module(torch::jit::Module module, const std::string &name);

// One warning per floating-point constant (frozen weight) holding NaN values, naming it, e.g.
// "weight 'conv.weight' (216 values) has 1 NaN value; ...". Infinities are normal (masks).
std::vector<std::string> nonfinite_weight_warnings(const torch::jit::Graph &graph);
// The same, started on another thread: the constants are collected now (the graph may change
// afterwards), their values are read there (LibTorch does not write them: they are frozen).
std::future<std::vector<std::string>> start_nonfinite_weight_check(const torch::jit::Graph &graph);

// The passes that make a graph easy to walk: inline, lower tuples, remove mutation, constant
// propagation, dead-code elimination. Also used on IR-text graphs in tests.
void prepare_graph(const std::shared_ptr<torch::jit::Graph> &graph);

} // namespace torch2onnx
