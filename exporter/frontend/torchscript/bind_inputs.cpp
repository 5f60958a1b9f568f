#include "exporter/frontend/torchscript/bind_inputs.h"

#include "builder/error.h"
#include "exporter/frontend/torchscript/loader.h"

#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/passes/constant_propagation.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/peephole.h>

namespace torch2onnx {

size_t ArgBinding::tensor_count() const {
  if (kind == Kind::Tensor || kind == Kind::Number)
    return 1;
  size_t n = 0;
  for (const ArgBinding &e : elements)
    n += e.tensor_count();
  return n;
}

namespace {

// The value a sequence binding becomes: its tensors as graph inputs from position `next` on,
// gathered (depth first) by TupleConstruct / ListConstruct nodes at the insert point.
torch::jit::Value *build_sequence(torch::jit::Graph &graph, const ArgBinding &b, size_t &next) {
  if (b.kind == ArgBinding::Kind::Tensor)
    return graph.insertInput(next++)->setType(c10::TensorType::get());
  std::vector<torch::jit::Value *> elems;
  for (const ArgBinding &e : b.elements)
    elems.push_back(build_sequence(graph, e, next));
  torch::jit::Node *n = nullptr;
  if (auto dict = b.type->cast<c10::DictType>()) {
    std::vector<torch::jit::Value *> keys;
    for (const std::string &k : b.keys)
      keys.push_back(graph.insertConstant(k));
    n = graph.createDict(dict->getKeyType(), dict->getValueType(), keys, elems);
  } else if (auto list = b.type->cast<c10::ListType>())
    n = graph.createList(list->getElementType(), elems);
  else
    n = graph.createTuple(elems);
  graph.insertNode(n);
  return n->output();
}

} // namespace

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
      case ArgBinding::Kind::Number: {
        const c10::TypeKind k = b.type->kind();
        const c10::Symbol read = k == c10::TypeKind::FloatType  ? c10::aten::Float
                                 : k == c10::TypeKind::BoolType ? c10::aten::Bool
                                                                : c10::aten::Int;
        torch::jit::Node *n = graph->insertNode(graph->create(read, {in}));
        n->output()->setType(b.type);
        in->replaceAllUsesWith(n->output());
        n->replaceInput(0, in);
        in->setType(c10::TensorType::get());
        break;
      }
      case ArgBinding::Kind::Sequence: {
        size_t next = i + 1;
        torch::jit::Value *v = build_sequence(*graph, b, next);
        in->replaceAllUsesWith(v);
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
