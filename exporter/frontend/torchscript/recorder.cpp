#include "exporter/frontend/torchscript/recorder.h"

#include "builder/error.h"
#include "exporter/core/tensor_util.h"
#include "exporter/frontend/torchscript/jit_util.h"

#include <ATen/Functions.h>
#include <optional>
#include <torch/csrc/jit/ir/alias_analysis.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/runtime/custom_operator.h>
#include <torch/csrc/jit/runtime/interpreter.h>
#include <unordered_set>

namespace torch2onnx {

namespace {

thread_local std::vector<TensorInfo> *g_observed = nullptr;
thread_local std::vector<at::Tensor> *g_values = nullptr; // record_shapes' `values`

const char *kObserve = "torch2onnx::observe";

// A value inside a loop body is observed once per iteration: keep what every observation agrees
// on (dims that differ become unknown, a rank that differs leaves the rank unknown).
void merge_observation(TensorInfo &seen, const TensorInfo &now) {
  if (seen.dtype == DType::Undefined) {
    seen = now;
    return;
  }
  if (!seen.shape || !now.shape || seen.shape->size() != now.shape->size()) {
    seen.shape.reset();
    return;
  }
  for (size_t i = 0; i < seen.shape->size(); ++i)
    if ((*seen.shape)[i].value != (*now.shape)[i].value)
      (*seen.shape)[i] = Dim{};
}

// torch2onnx::observe(Tensor x, int id) -> () stores x's info under id.
torch::jit::RegisterOperators reg_observe({torch::jit::Operator(
    "torch2onnx::observe(Tensor x, int id) -> ()",
    [](torch::jit::Stack &stack) {
      int64_t id = stack.back().toInt();
      stack.pop_back();
      c10::IValue v = std::move(stack.back());
      stack.pop_back();
      // prim::Uninitialized (a value only a raising path leaves unset, e.g. in torchvision's
      // scripted mask-pasting loop) is typed Tensor but holds none: nothing to record.
      if (!v.isTensor())
        return;
      at::Tensor t = v.toTensor();
      if (g_observed && id >= 0 && static_cast<size_t>(id) < g_observed->size() && t.defined()) {
        try {
          merge_observation((*g_observed)[id], info_of(t));
          if (g_values)
            (*g_values)[id] = t.clone();
        } catch (const Error &) {
          // A dtype ONNX lacks: leave it unknown; a converter that needs it will say so.
        }
      }
    },
    c10::AliasAnalysisKind::CONSERVATIVE)});

// torch2onnx::ran(int id) -> () marks the branch `id` of a prim::If as taken.
thread_local std::vector<char> *g_ran = nullptr;

torch::jit::RegisterOperators reg_ran({torch::jit::Operator(
    "torch2onnx::ran(int id) -> ()",
    [](torch::jit::Stack &stack) {
      int64_t id = stack.back().toInt();
      stack.pop_back();
      if (g_ran && id >= 0 && static_cast<size_t>(id) < g_ran->size())
        (*g_ran)[id] = 1;
    },
    c10::AliasAnalysisKind::CONSERVATIVE)});

// How the shrink ops change a data-dependent count during a record_shapes run.
thread_local CountChange g_counts = CountChange::None;

at::Tensor shrink_rows(const at::Tensor &t) {
  if (t.dim() == 0)
    return t;
  const int64_t n = t.size(0);
  if (g_counts == CountChange::More) {
    // One more row of zeros: index 0 (valid wherever the indexed tensor is not empty), or 0.
    std::vector<int64_t> row = t.sizes().vec();
    row[0] = 1;
    return at::cat({t, at::zeros(row, t.options())});
  }
  return t.narrow(0, 0, n > 2 ? 2 : n == 2 ? 1 : n); // CountChange::Fewer
}

// torch2onnx::grow(Tensor x, int dim) -> Tensor: in a More run, one more slice of zeros along
// `dim`; otherwise x. For unique's distinct values and counts: their number follows the data, but
// fewer of them would leave the inverse indices pointing past the end, so only More changes them.
torch::jit::RegisterOperators reg_grow({torch::jit::Operator(
    "torch2onnx::grow(Tensor x, int dim) -> Tensor",
    [](torch::jit::Stack &stack) {
      int64_t dim = stack.back().toInt();
      stack.pop_back();
      at::Tensor t = stack.back().toTensor();
      if (g_counts == CountChange::More && t.dim() > dim) {
        std::vector<int64_t> slice = t.sizes().vec();
        slice[static_cast<size_t>(dim)] = 1;
        stack.back() = at::cat({t, at::zeros(slice, t.options())}, dim);
      }
    },
    c10::AliasAnalysisKind::FROM_SCHEMA)});

// torch2onnx::shrink(Tensor x) -> Tensor and torch2onnx::shrink_list(Tensor[] xs) -> Tensor[]:
// the rows changed as record_shapes' `counts` says.
torch::jit::RegisterOperators reg_shrink({
    torch::jit::Operator(
        "torch2onnx::shrink(Tensor x) -> Tensor",
        [](torch::jit::Stack &stack) {
          at::Tensor t = stack.back().toTensor();
          stack.back() = shrink_rows(t);
        },
        c10::AliasAnalysisKind::FROM_SCHEMA),
    torch::jit::Operator(
        "torch2onnx::shrink_list(Tensor[] xs) -> Tensor[]",
        [](torch::jit::Stack &stack) {
          auto list = stack.back().toTensorVector();
          for (auto &t : list)
            t = shrink_rows(t);
          stack.back() = c10::IValue(list);
        },
        c10::AliasAnalysisKind::FROM_SCHEMA),
    // x[mask]: aten::index with one boolean (or uint8) mask on the leading dim returns as many
    // rows as the mask has true values; with integer indices its rows follow their shape.
    torch::jit::Operator(
        "torch2onnx::shrink_masked(Tensor x, Tensor?[] indices) -> Tensor",
        [](torch::jit::Stack &stack) {
          c10::List<c10::IValue> indices = stack.back().toList();
          stack.pop_back();
          bool mask = indices.size() >= 1 && indices.get(0).isTensor() &&
                      (indices.get(0).toTensor().scalar_type() == at::kBool ||
                       indices.get(0).toTensor().scalar_type() == at::kByte);
          for (size_t i = 1; i < indices.size(); ++i)
            mask = mask && indices.get(i).isNone();
          if (mask)
            stack.back() = shrink_rows(stack.back().toTensor());
        },
        c10::AliasAnalysisKind::FROM_SCHEMA),
});

// aten::index(self, indices): x[i] or x[mask], one output.
bool is_index_with_list(const torch::jit::Node *n) {
  return n->kind() == c10::aten::index && n->inputs().size() == 2 && n->outputs().size() == 1;
}

// Puts a torch2onnx::ran marker first in each branch of every prim::If, to tell which ran.
void mark_branches(torch::jit::Block *block, std::vector<const torch::jit::Block *> &branches,
                   std::vector<torch::jit::Node *> &added) {
  auto *graph = block->owningGraph();
  for (auto *n : block->nodes()) {
    for (auto *sub : n->blocks()) {
      mark_branches(sub, branches, added);
      if (n->kind() != c10::prim::If)
        continue;
      auto *idc = graph->create(c10::prim::Constant);
      idc->i_(c10::attr::value, static_cast<int64_t>(branches.size()));
      idc->output()->setType(c10::IntType::get());
      auto *mark =
          graph->create(c10::Symbol::fromQualString("torch2onnx::ran"), {idc->output()}, 0);
      branches.push_back(sub);
      mark->insertBefore(sub->nodes().front()); // the return node when the block is empty
      idc->insertBefore(mark);
      added.push_back(mark);
      added.push_back(idc);
    }
  }
}

// unique and its kin: the dim of output 0 along which the distinct values lie (0 when the input
// is flattened), or -1 for other nodes. Their counts (output 2, when there is one) are 1-D.
int64_t unique_values_dim(const torch::jit::Node *n) {
  static const std::unordered_set<std::string> flat = {"aten::_unique", "aten::_unique2",
                                                       "aten::unique_consecutive"};
  static const std::unordered_set<std::string> by_dim = {"aten::unique_dim",
                                                         "aten::unique_dim_consecutive"};
  const std::string op = n->kind().toQualString();
  if (op == "aten::unique_consecutive" && n->inputs().size() >= 4 &&
      n->input(3)->type()->kind() != c10::TypeKind::NoneType) {
    std::optional<c10::IValue> d = torch::jit::toIValue(n->input(3));
    return d && d->isInt() ? d->toInt() : -1;
  }
  if (flat.count(op))
    return 0;
  if (by_dim.count(op) && n->inputs().size() >= 2) {
    std::optional<c10::IValue> d = torch::jit::toIValue(n->input(1));
    return d && d->isInt() && d->toInt() >= 0 ? d->toInt() : -1;
  }
  return -1;
}

void instrument(torch::jit::Block *block, std::vector<const torch::jit::Value *> &ids,
                std::vector<torch::jit::Node *> &added, CountChange counts) {
  auto *graph = block->owningGraph();
  // Observes `seen` under the id of `v` (they differ when a shrink node stands between them).
  auto observe = [&](torch::jit::Value *v, torch::jit::Node *after_or_null,
                     torch::jit::Value *seen = nullptr) {
    if (!v->type()->isSubtypeOf(*c10::TensorType::get()))
      return;
    int64_t id = static_cast<int64_t>(ids.size());
    ids.push_back(v);
    v = seen ? seen : v;
    auto *idc = graph->create(c10::prim::Constant);
    idc->i_(c10::attr::value, id);
    idc->output()->setType(c10::IntType::get());
    auto *n = graph->create(c10::Symbol::fromQualString(kObserve), {v, idc->output()}, 0);
    if (after_or_null) {
      n->insertAfter(after_or_null);
    } else {
      n->insertBefore(block->nodes().front());
    }
    idc->insertBefore(n);
    added.push_back(n);
    added.push_back(idc);
  };
  for (auto *in : block->inputs())
    observe(in, nullptr);
  std::vector<torch::jit::Node *> nodes(block->nodes().begin(), block->nodes().end());
  for (auto *n : nodes) {
    for (auto *sub : n->blocks())
      instrument(sub, ids, added, counts);
    const bool masked = is_index_with_list(n); // whether by a mask: shrink_masked checks
    if (counts != CountChange::None && (has_data_dependent_rows(n) || masked)) {
      // Every later use reads the shrunk value; it is observed as the node's output.
      torch::jit::Value *out = n->output(0);
      const bool list = out->type()->kind() == c10::TypeKind::ListType;
      auto *s = masked ? graph->create(c10::Symbol::fromQualString("torch2onnx::shrink_masked"),
                                       {out, n->input(1)}, 1)
                       : graph->create(c10::Symbol::fromQualString(list ? "torch2onnx::shrink_list"
                                                                        : "torch2onnx::shrink"),
                                       {out}, 1);
      s->output()->setType(out->type());
      s->insertAfter(n);
      out->replaceAllUsesAfterNodeWith(s, s->output());
      added.push_back(s);
      observe(out, s, s->output());
      for (size_t i = 1; i < n->outputs().size(); ++i)
        observe(n->output(i), n);
      continue;
    }
    int64_t udim = counts != CountChange::None ? unique_values_dim(n) : -1;
    if (udim >= 0) {
      // The distinct values and their counts grow by one in a More run (see grow).
      torch::jit::Node *after = n;
      for (size_t k = 0; k < n->outputs().size(); ++k) {
        torch::jit::Value *out = n->output(k);
        if (k != 0 && k != 2) {
          observe(out, n);
          continue;
        }
        auto *dim = graph->create(c10::prim::Constant);
        dim->i_(c10::attr::value, k == 0 ? udim : 0);
        dim->output()->setType(c10::IntType::get());
        auto *g =
            graph->create(c10::Symbol::fromQualString("torch2onnx::grow"), {out, dim->output()}, 1);
        g->output()->setType(out->type());
        dim->insertAfter(after);
        g->insertAfter(dim);
        out->replaceAllUsesAfterNodeWith(g, g->output());
        added.push_back(dim);
        added.push_back(g);
        observe(out, g, g->output());
        after = g;
      }
      continue;
    }
    for (auto *out : n->outputs())
      observe(out, n);
  }
}

} // namespace

bool has_data_dependent_rows(const torch::jit::Node *n) {
  static const std::unordered_set<std::string> ops = {"aten::nonzero", "aten::argwhere",
                                                      "aten::masked_select", "torchvision::nms"};
  if (n->outputs().size() != 1)
    return false;
  const std::string op = n->kind().toQualString();
  // aten::where(Tensor condition) -> Tensor[] (the one-argument form: one index tensor per dim)
  return ops.count(op) > 0 || (op == "aten::where" && n->inputs().size() == 1);
}

static bool has_data_dependent_count(const torch::jit::Node *n) {
  return has_data_dependent_rows(n) || unique_values_dim(n) >= 0;
}

bool has_data_dependent_rows(const torch::jit::Block *block, const ShapeRecord &example) {
  for (const auto *n : block->nodes()) {
    if (has_data_dependent_count(n))
      return true;
    // x[mask]: the example run tells whether aten::index got a boolean mask.
    if (is_index_with_list(n) && n->input(1)->node()->kind() == c10::prim::ListConstruct) {
      for (const auto *i : n->input(1)->node()->inputs()) {
        const TensorInfo *info = example.find(value_id(i));
        if (info && (info->dtype == DType::Bool || info->dtype == DType::UInt8))
          return true;
      }
    }
    for (const auto *sub : n->blocks())
      if (has_data_dependent_rows(sub, example))
        return true;
  }
  return false;
}

namespace {

// Gives each tensor constant of `copy` that the graph writes into (a KV cache forward fills in
// place, a buffer updated with add_) a copy of its value. The constants of `graph` share their
// memory with the module and hold the weights the ONNX file gets: a run of the copy must not
// change them (each ONNX run starts from the saved value), and the weights' integrity check
// would rightly see them changed. `copy` is graph->copy(), before it is instrumented.
// Whether a use writes into its tensor although the op's schema does not say so: instance_norm
// copies the batch mean of its running statistics back into them, even in eval (the same values
// but for rounding), and batch_norm in training mode updates them.
bool unmarked_write(const torch::jit::Use &u) {
  const torch::jit::Node *n = u.user;
  if (u.offset != 3 && u.offset != 4)
    return false;
  if (n->kind() == c10::aten::instance_norm)
    return true;
  if (n->kind() != c10::aten::batch_norm && n->kind() != c10::aten::native_batch_norm &&
      n->kind() != c10::aten::_batch_norm_impl_index)
    return false;
  auto training = torch::jit::toIValue(n->input(5));
  return !training || !training->isBool() || training->toBool();
}

void clone_written_constants(const std::shared_ptr<torch::jit::Graph> &graph,
                             torch::jit::Graph &copy) {
  torch::jit::AliasDb aliases(graph);
  std::function<void(torch::jit::Block *, torch::jit::Block *)> walk = [&](torch::jit::Block *a,
                                                                           torch::jit::Block *b) {
    auto ita = a->nodes().begin();
    auto itb = b->nodes().begin();
    for (; ita != a->nodes().end() && itb != b->nodes().end(); ++ita, ++itb) {
      torch::jit::Node *n = *ita;
      if (n->kind() == c10::prim::Constant && n->outputs().size() == 1 &&
          n->hasAttribute(c10::attr::value) &&
          n->kindOf(c10::attr::value) == torch::jit::AttributeKind::t &&
          (aliases.hasWriters(n->output()) ||
           std::any_of(n->output()->uses().begin(), n->output()->uses().end(), unmarked_write)))
        itb->t_(c10::attr::value, n->t(c10::attr::value).clone());
      for (size_t k = 0; k < n->blocks().size() && k < itb->blocks().size(); ++k)
        walk(n->blocks()[k], itb->blocks()[k]);
    }
  };
  walk(graph->block(), copy.block());
}

// Maps the values and blocks of an instrumented copy back to the original graph's.
struct CopyMap {
  std::unordered_map<const torch::jit::Value *, const torch::jit::Value *> to_original;
  std::unordered_map<const torch::jit::Block *, const torch::jit::Block *> block_original;
};

// copy() preserves node order, so the graph and its copy are walked in step, skipping the nodes
// the instrumentation `added`.
CopyMap map_copy_to_original(const std::shared_ptr<torch::jit::Graph> &graph,
                             torch::jit::Graph &copy,
                             const std::vector<torch::jit::Node *> &added) {
  std::unordered_set<const torch::jit::Node *> added_set(added.begin(), added.end());
  CopyMap m;
  std::function<void(torch::jit::Block *, torch::jit::Block *)> pair_blocks =
      [&](torch::jit::Block *a, torch::jit::Block *b) {
        for (size_t i = 0; i < a->inputs().size(); ++i)
          m.to_original[b->inputs()[i]] = a->inputs()[i];
        auto ita = a->nodes().begin();
        auto itb = b->nodes().begin();
        for (; ita != a->nodes().end(); ++ita, ++itb) {
          while (added_set.count(*itb))
            ++itb;
          for (size_t i = 0; i < ita->outputs().size(); ++i)
            m.to_original[itb->outputs()[i]] = ita->outputs()[i];
          for (size_t k = 0; k < ita->blocks().size(); ++k) {
            m.block_original[itb->blocks()[k]] = ita->blocks()[k];
            pair_blocks(ita->blocks()[k], itb->blocks()[k]);
          }
        }
      };
  pair_blocks(graph->block(), copy.block());
  return m;
}

// Points the observers at a run's buffers, and back at nothing when it ends (also by exception).
struct ObserversOn {
  ObserversOn(std::vector<TensorInfo> &observed, std::vector<char> &ran,
              std::vector<at::Tensor> *values, CountChange counts) {
    g_observed = &observed;
    g_ran = &ran;
    g_values = values;
    g_counts = counts;
  }
  ~ObserversOn() {
    g_observed = nullptr;
    g_ran = nullptr;
    g_values = nullptr;
    g_counts = CountChange::None;
  }
  ObserversOn(const ObserversOn &) = delete;
  ObserversOn &operator=(const ObserversOn &) = delete;
};

// Runs the instrumented `copy` on `stack`. A failure goes to `failure` (the stack then empty)
// when it is given, else it throws.
void run_instrumented(const std::shared_ptr<torch::jit::Graph> &copy, torch::jit::Stack &stack,
                      std::string *failure) {
  // A float16 / bfloat16 input: LibTorch's CPU kernels lack many half-precision ops.
  bool half = false;
  for (const auto &v : stack)
    half = half || (v.isTensor() && (v.toTensor().scalar_type() == at::kHalf ||
                                     v.toTensor().scalar_type() == at::kBFloat16));
  try {
    torch::jit::Code code(copy, "torch2onnx_record");
    torch::jit::InterpreterState state(code);
    state.run(stack);
  } catch (const std::exception &e) {
    if (!failure)
      throw Error(fmt::format("the model failed in LibTorch on the given inputs: {}",
                              summarize_torch_error(e.what())),
                  std::string(half ? "an input is float16 or bfloat16, which LibTorch's CPU "
                                     "kernels lack for many ops (Conv, Linear): for a float32 "
                                     "model give x:f32[...], or add --dtype f16 to record it in "
                                     "float32 and have the file take float16; otherwise "
                                   : "") +
                      "check the --input specs (count, dtypes and shapes) against what forward "
                      "expects; a model that needs meaningful values (sorted lengths, ids below "
                      "the vocabulary size, masks) takes them from --input-data FILE or a value "
                      "range (ids:i64[1,128]:0..50256)");
    *failure = summarize_torch_error(e.what());
    stack.clear();
  }
}

} // namespace

ShapeRecord record_shapes(const std::shared_ptr<torch::jit::Graph> &graph,
                          const std::vector<c10::IValue> &inputs, std::string *failure,
                          CountChange counts, ValueTensors *values) {
  // Instrument a copy so the graph we convert is untouched.
  auto copy = graph->copy();
  clone_written_constants(graph, *copy);
  std::vector<const torch::jit::Value *> copy_values;
  std::vector<torch::jit::Node *> added;
  instrument(copy->block(), copy_values, added, counts);
  std::vector<const torch::jit::Block *> copy_branches;
  mark_branches(copy->block(), copy_branches, added);
  const CopyMap map = map_copy_to_original(graph, *copy, added);

  std::vector<TensorInfo> observed(copy_values.size());
  if (failure)
    failure->clear();
  std::vector<char> ran(copy_branches.size(), 0);
  std::vector<at::Tensor> kept(values ? copy_values.size() : 0);
  // Clone: an in-place op on a graph input must not change the caller's example tensors.
  torch::jit::Stack stack;
  for (const auto &in : inputs)
    stack.push_back(in.isTensor() ? c10::IValue(in.toTensor().clone()) : in);
  {
    ObserversOn observers(observed, ran, values ? &kept : nullptr, counts);
    run_instrumented(copy, stack, failure);
  }

  ShapeRecord rec;
  for (size_t i = 0; i < copy_branches.size(); ++i)
    if (ran[i])
      rec.ran.insert(block_key(map.block_original.at(copy_branches[i])));
  for (size_t i = 0; i < copy_values.size(); ++i) {
    if (observed[i].dtype == DType::Undefined)
      continue;
    auto it = map.to_original.find(copy_values[i]);
    if (it == map.to_original.end())
      continue;
    rec.infos[value_id(it->second)] = observed[i];
    if (values && kept[i].defined())
      (*values)[value_id(it->second)] = kept[i];
  }
  rec.outputs.assign(stack.begin(), stack.end());
  return rec;
}

} // namespace torch2onnx
