// Test helper: compiling TorchScript source that calls a custom op from C++.
#pragma once

#include <memory>
#include <string>
#include <torch/csrc/jit/frontend/resolver.h>
#include <torch/csrc/jit/frontend/sugared_value.h>

namespace torch2onnx::testing {

// Resolves `NS.op(...)` in TorchScript source to the custom op NS::op (and torch.* to aten), as
// Python's torch.ops.NS.op does: C++'s default resolver knows torch only.
struct CustomOpResolver : torch::jit::Resolver {
  explicit CustomOpResolver(std::string ns) : ns(std::move(ns)) {}
  std::shared_ptr<torch::jit::SugaredValue> resolveValue(const std::string &name,
                                                         torch::jit::GraphFunction &,
                                                         const torch::jit::SourceRange &) override {
    if (name == "torch")
      return std::make_shared<torch::jit::BuiltinModule>("aten");
    if (name == ns)
      return std::make_shared<torch::jit::BuiltinModule>(ns);
    return nullptr;
  }
  std::string ns;
};

} // namespace torch2onnx::testing
