#include "exporter/frontend/torchscript/bind_inputs.h"

#include "builder/error.h"
#include "exporter/frontend/torchscript/loader.h"

#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/passes/constant_propagation.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/peephole.h>

namespace torch2onnx {

void bind_graph_inputs(const std::shared_ptr<torch::jit::Graph> &graph,
                       const std::vector<ArgBinding> &bindings) {
  T2O_CHECK(graph->inputs().size() == bindings.size(),
            "the graph takes {} inputs but {} arguments were bound", graph->inputs().size(),
            bindings.size());
  {
    // New nodes go first in the graph, before any use of the inputs they replace. The insert point
    // is given back before the passes: they may delete that first node (an isinstance on an
    // input now typed Tensor folds away), and restoring a deleted insert point aborts LibTorch.
    torch::jit::WithInsertPoint guard(graph->block()->param_node()->next());
    for (size_t i = bindings.size(); i-- > 0;) {
      torch::jit::Value *in = graph->inputs()[i];
      const ArgBinding &b = bindings[i];
      switch (b.kind) {
      case ArgBinding::Kind::Tensor:
        in->setType(c10::TensorType::get());
        break;
      case ArgBinding::Kind::Constant: {
        torch::jit::Value *c = graph->insertConstant(b.constant);
        in->replaceAllUsesWith(c);
        graph->eraseInput(i);
        break;
      }
      case ArgBinding::Kind::Sequence: {
        std::vector<torch::jit::Value *> elems;
        for (size_t j = 0; j < b.count; ++j) {
          auto *e = graph->insertInput(i + 1 + j)->setType(c10::TensorType::get());
          elems.push_back(e);
        }
        c10::TypePtr t = in->type();
        if (auto opt = t->cast<c10::OptionalType>())
          t = opt->getElementType();
        torch::jit::Node *n = t->kind() == c10::TypeKind::TupleType
                                  ? graph->createTuple(elems)
                                  : graph->createList(c10::TensorType::get(), elems);
        graph->insertNode(n);
        in->replaceAllUsesWith(n->output());
        graph->eraseInput(i);
        break;
      }
      }
    }
  }
  std::shared_ptr<torch::jit::Graph> g = graph; // the passes take a non-const reference
  torch::jit::PeepholeOptimize(g);
  torch::jit::ConstantPropagation(g);
  torch::jit::EliminateDeadCode(g);
  prepare_graph(g);
}

} // namespace torch2onnx
