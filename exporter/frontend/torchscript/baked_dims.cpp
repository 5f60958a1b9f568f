#include "exporter/frontend/torchscript/baked_dims.h"

#include "builder/error.h"
#include "exporter/core/tensor_util.h"
#include "exporter/frontend/torchscript/jit_util.h"

#include <ATen/ATen.h>
#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <torch/csrc/jit/ir/constants.h>
#include <unordered_map>
#include <unordered_set>

namespace torch2onnx {

namespace {

using torch::jit::Node;
using torch::jit::Value;

// Trial runs at the alternate sizes are full forward passes: bounded in number and time.
constexpr int kMaxTrials = 32;
constexpr double kMaxTrialSeconds = 30;

std::string op_of(const Node *n) {
  return n->kind().toQualString();
}

bool is_int_list(const Value *v) {
  return v->type()->isSubtypeOf(*c10::ListType::ofInts());
}
bool is_int(const Value *v) {
  return v->type()->kind() == c10::TypeKind::IntType;
}

std::optional<int64_t> const_int(const Value *v) {
  if (v->node()->kind() != c10::prim::Constant || !is_int(v))
    return std::nullopt;
  return torch::jit::toIValue(v)->toInt();
}

// The inputs of `n` that hold sizes a traced model may have recorded as constants.
std::vector<size_t> size_args(const Node *n) {
  static const std::map<std::string, size_t> list_arg = {
      {"aten::view", 1},         {"aten::reshape", 1},   {"aten::expand", 1},
      {"aten::broadcast_to", 1}, {"aten::repeat", 1},    {"aten::new_zeros", 1},
      {"aten::new_ones", 1},     {"aten::new_empty", 1}, {"aten::new_full", 1},
      {"aten::zeros", 0},        {"aten::ones", 0},      {"aten::empty", 0},
      {"aten::full", 0},         {"aten::rand", 0},      {"aten::randn", 0},
      {"aten::unflatten", 2}};
  std::string op = op_of(n);
  auto it = list_arg.find(op);
  if (it != list_arg.end()) {
    if (it->second < n->inputs().size() && is_int_list(n->input(it->second)))
      return {it->second};
    return {};
  }
  // arange(end, ...), arange(start, end, ...), arange(start, end, step, ...): the end.
  if (op == "aten::arange") {
    size_t end = n->inputs().size() == 5 ? 0 : 1;
    if (end < n->inputs().size() && is_int(n->input(end)))
      return {end};
  }
  if (op == "aten::slice" && n->inputs().size() == 5 && is_int(n->input(3)))
    return {3};
  if (op == "aten::narrow" && n->inputs().size() == 4 && is_int(n->input(3)))
    return {3};
  return {};
}

struct Slot {
  size_t arg;
  int item;
  int64_t value;
};

// The constant sizes among `n`'s size arguments (positive ones: -1 and 0 already follow the input).
std::vector<Slot> const_slots(const Node *n) {
  std::vector<Slot> out;
  for (size_t arg : size_args(n)) {
    const Value *v = n->input(arg);
    if (auto c = const_int(v)) {
      if (*c > 0)
        out.push_back({arg, -1, *c});
    } else if (v->node()->kind() == c10::prim::Constant) {
      auto list = torch::jit::toIValue(v)->toIntVector();
      for (size_t i = 0; i < list.size(); ++i)
        if (list[i] > 0)
          out.push_back({arg, static_cast<int>(i), list[i]});
    } else if (v->node()->kind() == c10::prim::ListConstruct) {
      for (size_t i = 0; i < v->node()->inputs().size(); ++i)
        if (auto c = const_int(v->node()->input(i)); c && *c > 0)
          out.push_back({arg, static_cast<int>(i), *c});
    }
  }
  return out;
}

// `value` as a multiple of a symbol's example size (0 when it is none). An example of 1 matches
// only 1: every size is a multiple of it.
int64_t factor_of(int64_t value, int64_t example) {
  if (example <= 0 || value % example != 0)
    return 0;
  return example == 1 && value != 1 ? 0 : value / example;
}

// Every node, blocks included, in execution order.
void collect_nodes(const torch::jit::Block *b, std::vector<const Node *> &out) {
  for (const Node *n : b->nodes()) {
    out.push_back(n);
    for (const auto *sub : n->blocks())
      collect_nodes(sub, out);
  }
}

// `t` with dim d at size n, its slices repeated (or cut): the same values at another size.
at::Tensor resized(const at::Tensor &t, int64_t d, int64_t n) {
  return t.index_select(d, at::arange(n, at::kLong).remainder(t.size(d)));
}

// A run at the alternate sizes: its record (keyed by the original graph's values) and where it
// stopped (the index in execution order of the first node whose tensor outputs it did not
// reach; the node count when it finished).
struct Run {
  ShapeRecord rec;
  std::string failure;
  size_t stop = 0;
};

struct Candidate {
  BakedDim dim;
  int64_t patched = 0; // the value at the alternate sizes
  int rank = 0;        // trial order: lower first
};

class Finder {
public:
  Finder(const std::shared_ptr<torch::jit::Graph> &graph, const GraphInputs &inputs,
         const ShapeRecord &example)
      : graph_(graph), inputs_(inputs), example_(example) {
    collect_nodes(graph->block(), order_);
  }

  const Node *node_at(size_t i) const { return i < order_.size() ? order_[i] : nullptr; }

  size_t stop_of(const ShapeRecord &rec, const std::string &failure) const {
    if (failure.empty())
      return order_.size();
    for (size_t i = 0; i < order_.size(); ++i)
      for (const Value *o : order_[i]->outputs())
        if (example_.find(value_id(o)) && !rec.find(value_id(o)))
          return i;
    return order_.size();
  }

  // Runs the graph at the alternate sizes with the candidates' constants replaced. A patch
  // LibTorch rejects counts as a run that got nowhere.
  Run run(const std::vector<Candidate> &patches) {
    try {
      return run_patched(patches);
    } catch (const std::exception &e) {
      Run r;
      r.failure = e.what();
      return r;
    }
  }

private:
  // Whether dim i of `v` follows `sym` itself, not another dim equal to it at both recordings
  // (a Swin window count h // 4 equals the batch at b=2, h=8 and at b=4, h=16): in a run with only
  // `sym` at its alternate size, the dim has that size. True when such a run cannot tell.
  bool follows_alone(const Value *v, int64_t i, const SymbolSizes &sym) {
    auto it = alone_.find(sym.name);
    if (it == alone_.end()) {
      std::optional<ShapeRecord> rec;
      if (inputs_.example.size() == inputs_.infos.size() && trials_left()) {
        std::vector<c10::IValue> mixed = inputs_.example;
        for (size_t k = 0; k < mixed.size(); ++k) {
          const TensorInfo &info = inputs_.infos[k];
          if (!mixed[k].isTensor() || !info.shape)
            continue;
          at::Tensor t = mixed[k].toTensor();
          for (size_t d = 0; d < info.shape->size() && static_cast<int64_t>(d) < t.dim(); ++d)
            if ((*info.shape)[d].symbol == sym.name && t.size(d) > 0)
              t = resized(t, static_cast<int64_t>(d), sym.alternate);
          mixed[k] = t;
        }
        ++trials_;
        std::string failure;
        ShapeRecord r = record_shapes(graph_, mixed, &failure);
        if (failure.empty())
          rec = std::move(r);
      }
      it = alone_.emplace(sym.name, std::move(rec)).first;
    }
    if (!it->second)
      return true;
    const TensorInfo *t = it->second->find(value_id(v));
    return !t || !t->shape || i >= t->rank() || (*t->shape)[i].value == sym.alternate;
  }

  Run run_patched(const std::vector<Candidate> &patches) {
    auto copy = graph_->copy();
    std::unordered_map<const Node *, Node *> to_copy;
    std::unordered_map<const Value *, const Value *> to_original;
    pair(graph_->block(), copy->block(), to_copy, to_original);
    // Group by (node, arg): several items of one list are patched together.
    std::map<std::pair<const Node *, size_t>, std::vector<const Candidate *>> groups;
    for (const auto &c : patches)
      groups[{c.dim.node, c.dim.arg}].push_back(&c);
    for (const auto &[key, cands] : groups) {
      Node *cn = to_copy.at(key.first);
      Value *old = cn->input(key.second);
      torch::jit::WithInsertPoint guard(cn);
      Value *now = nullptr;
      if (cands.front()->dim.tensor) {
        // Same values, the dim resized (repeating its slices): the shape is what matters here.
        at::Tensor t = torch::jit::toIValue(old)->toTensor();
        for (const auto *c : cands)
          for (int d : c->dim.tensor_dims)
            t = resized(t, d, c->patched);
        now = copy->insertConstant(c10::IValue(t));
      } else if (cands.front()->dim.item < 0) {
        now = copy->insertConstant(c10::IValue(cands.front()->patched));
      } else if (old->node()->kind() == c10::prim::Constant) {
        auto list = torch::jit::toIValue(old)->toIntVector();
        for (const auto *c : cands)
          list.at(c->dim.item) = c->patched;
        now = copy->insertConstant(c10::IValue(list));
      } else {
        std::vector<Value *> items(old->node()->inputs().begin(), old->node()->inputs().end());
        for (const auto *c : cands)
          items.at(c->dim.item) = copy->insertConstant(c10::IValue(c->patched));
        now = copy->insertNode(copy->createList(c10::IntType::get(), items))->output();
      }
      cn->replaceInput(key.second, now);
    }
    ++trials_;
    Run r;
    ShapeRecord rec = record_shapes(copy, inputs_.alternate, &r.failure);
    std::unordered_map<ValueId, ValueId> id_of_original;
    for (const auto &[in_copy, original] : to_original)
      id_of_original.emplace(value_id(in_copy), value_id(original));
    for (auto &[v, info] : rec.infos) {
      auto it = id_of_original.find(v);
      if (it != id_of_original.end())
        r.rec.infos[it->second] = std::move(info);
    }
    r.rec.outputs = std::move(rec.outputs);
    r.stop = stop_of(r.rec, r.failure);
    return r;
  }

public:
  // False when scaling `c` certainly breaks its own node: a view/reshape of a constant size
  // list whose element count would no longer match its input's at the alternate sizes.
  bool plausible(const Candidate &c, const std::vector<Candidate> &confirmed,
                 const ShapeRecord &alt) const {
    std::string op = op_of(c.dim.node);
    if (c.dim.tensor || c.dim.item < 0 || (op != "aten::view" && op != "aten::reshape"))
      return true;
    const Value *size = c.dim.node->input(c.dim.arg);
    const TensorInfo *x = alt.find(value_id(c.dim.node->input(0)));
    if (size->node()->kind() != c10::prim::Constant || !x || !x->shape)
      return true;
    int64_t numel = 1;
    for (const auto &d : *x->shape) {
      if (d.value < 0)
        return true;
      numel *= d.value;
    }
    auto list = torch::jit::toIValue(size)->toIntVector();
    for (const auto &k : confirmed)
      if (k.dim.node == c.dim.node && k.dim.arg == c.dim.arg && !k.dim.tensor)
        list.at(k.dim.item) = k.patched;
    list.at(c.dim.item) = c.patched;
    int64_t known = 1;
    bool infer = false;
    for (int64_t v : list) {
      if (v == -1)
        infer = true;
      else
        known *= v;
    }
    return infer ? known > 0 && numel % known == 0 : known == numel;
  }

  bool trials_left() const {
    double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    return trials_ < kMaxTrials && spent < kMaxTrialSeconds;
  }

  // Candidates that fold a symbol away although the model runs: a view/reshape whose constant at
  // dim i stands for the symbol the input has at dim i, while no output dim follows the symbol
  // (`x.view(1, -1)` at batch=1: [batch,3,4,4] -> [1, 48*batch]); a slice that covers the whole
  // symbolic dim at the example sizes and so cuts it at other sizes.
  std::vector<Candidate> silent_candidates(const ShapeRecord &alt) {
    std::vector<Candidate> out;
    for (const Node *n : order_) {
      std::string op = op_of(n);
      bool reshape = op == "aten::view" || op == "aten::reshape";
      if (!reshape && op != "aten::slice")
        continue;
      const TensorInfo *xe = example_.find(value_id(n->input(0))),
                       *xa = alt.find(value_id(n->input(0)));
      const TensorInfo *ye = example_.find(value_id(n->output())),
                       *ya = alt.find(value_id(n->output()));
      if (!xe || !xa || !ye || !ya || !xe->shape || !xa->shape || !ye->shape || !ya->shape)
        continue;
      if (xe->rank() != xa->rank() || ye->rank() != ya->rank())
        continue;
      auto dim = [](const TensorInfo *t, int64_t i) { return (*t->shape)[i].value; };
      for (const Slot &s : const_slots(n)) {
        for (const auto &sym : inputs_.symbols) {
          auto follows = [&](const TensorInfo *e, const TensorInfo *a, int64_t i) {
            return i >= 0 && i < e->rank() && dim(e, i) == sym.example &&
                   dim(a, i) == sym.alternate;
          };
          if (reshape) {
            int64_t i = s.item;
            int64_t k = factor_of(s.value, sym.example);
            if (k < 1)
              continue;
            if (!follows(xe, xa, i) || i >= ye->rank() || dim(ye, i) != s.value ||
                dim(ya, i) != s.value || !follows_alone(n->input(0), i, sym))
              continue;
            bool kept = false;
            for (int64_t j = 0; j < ye->rank(); ++j)
              kept = kept || follows(ye, ya, j);
            if (kept)
              continue;
            out.push_back({{n, s.arg, s.item, s.value, sym.name, k, true}, k * sym.alternate, 0});
          } else {
            auto d = const_int(n->input(1)), start = const_int(n->input(2)),
                 step = const_int(n->input(4));
            if (!d || !start || !step || *start != 0 || *step != 1 || s.value != sym.example)
              continue;
            int64_t di = *d < 0 ? *d + xe->rank() : *d;
            if (!follows(xe, xa, di) || di >= ya->rank() || dim(ya, di) != sym.example)
              continue;
            out.push_back({{n, s.arg, s.item, s.value, sym.name, 1, true}, sym.alternate, 0});
          }
        }
      }
    }
    return out;
  }

  // Candidates for a run that failed at node `f`: the constants of `f` and of the nodes it
  // depends on (nearest first) that equal a symbol's example size or a multiple of it.
  std::vector<Candidate> failure_candidates(const Node *f) const {
    std::vector<Candidate> out;
    std::deque<std::pair<const Node *, int>> queue{{f, 0}};
    std::unordered_set<const Node *> seen{f};
    while (!queue.empty() && seen.size() < 4000) {
      auto [n, dist] = queue.front();
      queue.pop_front();
      for (const Slot &s : const_slots(n))
        for (const auto &sym : inputs_.symbols) {
          int64_t k = factor_of(s.value, sym.example);
          if (k < 1)
            continue;
          out.push_back({{n, s.arg, s.item, s.value, sym.name, k, false},
                         k * sym.alternate,
                         order_rank(sym, k, false, dist)});
        }
      // Constant tensors computed at trace time (torch.zeros(n, ...), torch.ones(t, t).tril()
      // with a Python int size, folded when the model was prepared).
      for (size_t arg = 0; arg < n->inputs().size(); ++arg) {
        const Value *in = n->input(arg);
        // Frozen parameters and buffers ("self.pos_embedding") are the model's, not the trace's.
        if (in->node()->kind() != c10::prim::Constant || in->debugName().rfind("self.", 0) == 0)
          continue;
        auto iv = torch::jit::toIValue(in);
        if (!iv || !iv->isTensor())
          continue;
        const at::Tensor &t = iv->toTensor();
        for (const auto &sym : inputs_.symbols) {
          // All dims of the symbol's size together (a [t, t] mask), then each alone.
          std::vector<int> dims;
          for (int64_t d = 0; d < t.dim(); ++d)
            if (sym.example > 0 && t.size(d) == sym.example)
              dims.push_back(static_cast<int>(d));
          std::vector<std::vector<int>> tries;
          if (!dims.empty())
            tries.push_back(dims);
          for (size_t i = 0; dims.size() > 1 && i < dims.size(); ++i)
            tries.push_back({dims[i]});
          for (const auto &ds : tries) {
            BakedDim bd{n, arg, ds.front(), sym.example, sym.name, 1, false, true, ds};
            out.push_back({bd, sym.alternate, order_rank(sym, 1, true, dist)});
          }
        }
      }
      for (const Value *in : n->inputs()) {
        const Node *p = in->node();
        if (p->kind() == c10::prim::Param || p->kind() == c10::prim::Constant)
          continue;
        if (seen.insert(p).second)
          queue.emplace_back(p, dist + 1);
      }
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const Candidate &a, const Candidate &b) { return a.rank < b.rank; });
    return out;
  }

private:
  // Trial order: exact matches of an example size first, then constant tensors, then multiples;
  // matches of an example size 1 last (every constant 1 matches), nearest first within each.
  static int order_rank(const SymbolSizes &sym, int64_t factor, bool tensor, int dist) {
    return (sym.example == 1 ? 400000 : 0) + (factor > 1 ? 200000 : 0) + (tensor ? 100000 : 0) +
           dist;
  }

  static void pair(torch::jit::Block *a, torch::jit::Block *b,
                   std::unordered_map<const Node *, Node *> &nodes,
                   std::unordered_map<const Value *, const Value *> &values) {
    for (size_t i = 0; i < a->inputs().size(); ++i)
      values[b->inputs()[i]] = a->inputs()[i];
    auto ib = b->nodes().begin();
    for (Node *na : a->nodes()) {
      Node *nb = *ib++;
      nodes[na] = nb;
      for (size_t i = 0; i < na->outputs().size(); ++i)
        values[nb->outputs()[i]] = na->outputs()[i];
      for (size_t k = 0; k < na->blocks().size(); ++k)
        pair(na->blocks()[k], nb->blocks()[k], nodes, values);
    }
  }

  std::shared_ptr<torch::jit::Graph> graph_;
  const GraphInputs &inputs_;
  const ShapeRecord &example_;
  std::vector<const Node *> order_;
  int trials_ = 0;
  // Per symbol: the record of a run with only that symbol at its alternate size (none when it
  // failed), for follows_alone.
  std::map<std::string, std::optional<ShapeRecord>> alone_;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

bool same_slot(const BakedDim &a, const BakedDim &b) {
  return a.node == b.node && a.arg == b.arg && a.item == b.item && a.tensor == b.tensor &&
         a.tensor_dims == b.tensor_dims;
}

} // namespace

BakedDimReport find_baked_dims(const std::shared_ptr<torch::jit::Graph> &graph,
                               const GraphInputs &inputs, const ShapeRecord &example,
                               const ShapeRecord &alternate, const std::string &failure) {
  BakedDimReport report;
  Finder finder(graph, inputs, example);
  std::vector<Candidate> confirmed;
  Run cur;
  cur.failure = failure;
  cur.stop = finder.stop_of(alternate, failure);
  report.failure = failure;
  report.failed_at = failure.empty() ? nullptr : finder.node_at(cur.stop);
  const ShapeRecord *cur_rec = &alternate;
  auto known = [&](const Candidate &c) {
    for (const auto &d : confirmed)
      if (same_slot(d.dim, c.dim))
        return true;
    return false;
  };
  // A failing run: scale one suspect constant at a time (silent ones first: they are the most
  // likely); keep it when the model then gets further. Repeat from the new failure.
  while (!cur.failure.empty() && finder.trials_left()) {
    const Node *f = finder.node_at(cur.stop);
    std::vector<Candidate> cands = finder.silent_candidates(*cur_rec);
    if (f)
      for (auto &c : finder.failure_candidates(f))
        cands.push_back(c);
    bool progressed = false;
    for (const auto &c : cands) {
      if (known(c) || !finder.plausible(c, confirmed, *cur_rec))
        continue;
      if (!finder.trials_left())
        break;
      auto trial = confirmed;
      trial.push_back(c);
      Run r = finder.run(trial);
      if (r.failure.empty() || r.stop > cur.stop) {
        confirmed.push_back(c);
        cur = std::move(r);
        cur_rec = &cur.rec;
        progressed = true;
        break;
      }
    }
    if (!progressed)
      break;
  }
  // A run that finishes: reshapes and slices that fold the symbol away, kept when the model also
  // runs with them scaled.
  if (cur.failure.empty()) {
    std::vector<Candidate> silent;
    for (auto &c : finder.silent_candidates(*cur_rec))
      if (!known(c))
        silent.push_back(c);
    if (!silent.empty() && finder.trials_left()) {
      auto trial = confirmed;
      trial.insert(trial.end(), silent.begin(), silent.end());
      if (finder.run(trial).failure.empty()) {
        confirmed = trial;
      } else {
        for (const auto &c : silent) {
          if (!finder.trials_left())
            break;
          auto one = confirmed;
          one.push_back(c);
          if (finder.run(one).failure.empty())
            confirmed = one;
        }
      }
    }
  }
  for (const auto &c : confirmed)
    report.baked.push_back(c.dim);
  if (!report.baked.empty())
    report.scaled = *cur_rec;
  if (!report.baked.empty() && !cur.failure.empty()) {
    report.remaining = cur.failure;
    report.remaining_at = finder.node_at(cur.stop);
  }
  return report;
}

namespace {

std::string where_text(const Node *n) {
  NodeWhere w = where_of(n);
  std::string s = w.scope.empty() ? "<top level>" : w.scope;
  if (!w.source.empty())
    s += ", " + w.source;
  return s;
}

// A tensor's shape over two recordings: dims that follow a symbol by its name, other varying ones
// "?", e.g. "[batch,3,?]".
std::string shape_text(const Value *v, const ShapeRecord &e, const ShapeRecord *a,
                       const std::vector<SymbolSizes> &symbols) {
  const TensorInfo *ie = e.find(value_id(v));
  if (!ie || !ie->shape)
    return "";
  const TensorInfo *ia = a ? a->find(value_id(v)) : nullptr;
  if (ia && (!ia->shape || ia->rank() != ie->rank()))
    ia = nullptr;
  std::vector<std::string> dims;
  for (int64_t i = 0; i < ie->rank(); ++i) {
    int64_t x = (*ie->shape)[i].value;
    std::string d = std::to_string(x);
    if (ia && (*ia->shape)[i].value != x) {
      d = "?";
      for (const auto &s : symbols)
        if (s.example == x && s.alternate == (*ia->shape)[i].value)
          d = s.name;
    }
    dims.push_back(d);
  }
  return fmt::format("[{}]", fmt::join(dims, ","));
}

// The tensor inputs of `n` with their sizes in one recording, e.g. "%input [1,96], %weight [5,48]".
std::string sizes_in(const Node *n, const ShapeRecord &rec) {
  std::vector<std::string> parts;
  for (const Value *in : n->inputs()) {
    if (!in->type()->isSubtypeOf(*c10::TensorType::get()))
      continue;
    const TensorInfo *t = rec.find(value_id(in));
    std::vector<int64_t> dims;
    if (t && t->shape)
      for (const auto &d : *t->shape)
        dims.push_back(d.value);
    parts.push_back(fmt::format("%{}{}", in->debugName(),
                                t && t->shape ? fmt::format(" [{}]", fmt::join(dims, ",")) : ""));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string inputs_text(const Node *n, const ShapeRecord &e, const ShapeRecord *a,
                        const std::vector<SymbolSizes> &symbols) {
  std::vector<std::string> parts;
  for (const Value *in : n->inputs()) {
    if (!in->type()->isSubtypeOf(*c10::TensorType::get()))
      continue;
    std::string s = shape_text(in, e, a, symbols);
    parts.push_back("%" + in->debugName() + (s.empty() ? "" : " " + s));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string size_text(const Node *n, size_t arg) {
  const Value *v = n->input(arg);
  if (auto c = torch::jit::toIValue(v); c && c->isIntList())
    return fmt::format("[{}]", fmt::join(c->toIntVector(), ", "));
  if (v->node()->kind() != c10::prim::ListConstruct)
    return "";
  std::vector<std::string> items;
  for (const Value *in : v->node()->inputs()) {
    auto c = const_int(in);
    items.push_back(c ? std::to_string(*c) : "%" + in->debugName());
  }
  return fmt::format("[{}]", fmt::join(items, ", "));
}

// Which size, e.g. "its size [1, -1] has 1 at dim 0".
std::string slot_text(const BakedDim &d) {
  std::string op = op_of(d.node);
  if (d.tensor) {
    auto t = torch::jit::toIValue(d.node->input(d.arg))->toTensor();
    return fmt::format("its input %{} is a constant [{}] computed at trace time (e.g. torch.zeros("
                       "n, ...) or torch.ones(t, t).tril() with a Python int size) with {} at "
                       "dim{} {}",
                       d.node->input(d.arg)->debugName(), fmt::join(t.sizes(), ", "), d.value,
                       d.tensor_dims.size() == 1 ? "" : "s", fmt::join(d.tensor_dims, ", "));
  }
  auto dim_arg = [&] {
    auto c = const_int(d.node->input(1));
    return c ? std::to_string(*c) : std::string("?");
  };
  if (op == "aten::slice")
    return fmt::format("the slice on dim {} ends at {}", dim_arg(), d.value);
  if (op == "aten::narrow")
    return fmt::format("the length on dim {} is {}", dim_arg(), d.value);
  if (op == "aten::arange")
    return fmt::format("its end is {}", d.value);
  if (d.item < 0)
    return fmt::format("input {} is {}", d.arg, d.value);
  return fmt::format("its size {} has {} at dim {}", size_text(d.node, d.arg), d.value, d.item);
}

// How the user should compute the size instead: the forward argument and dim declaring it.
std::string size_expr(const BakedDim &d, const GraphInputs &inputs) {
  std::string expr = d.symbol;
  for (size_t i = 0; i < inputs.infos.size() && expr == d.symbol; ++i) {
    const auto &shape = inputs.infos[i].shape;
    for (size_t j = 0; shape && j < shape->size(); ++j)
      if ((*shape)[j].symbol == d.symbol) {
        expr = fmt::format("{}.size({})", inputs.names.at(i), j);
        break;
      }
  }
  return d.factor == 1 ? expr : fmt::format("{} * {}", d.factor, expr);
}

std::string symbol_sizes(const GraphInputs &inputs, bool alternate) {
  std::vector<std::string> parts;
  for (const auto &s : inputs.symbols)
    parts.push_back(fmt::format("{}={}", s.name, alternate ? s.alternate : s.example));
  return fmt::format("{}", fmt::join(parts, ", "));
}

// Why a model that ran at the example sizes fails at the second ones: a size a trace recorded
// as a constant, or the second size's random values (integer inputs take small random values,
// bool inputs random ones, unless given a range), which may break what the model expects.
std::string second_size_hint(const GraphInputs &inputs) {
  std::vector<std::string> ints;
  for (size_t i = 0; i < inputs.infos.size() && i < inputs.names.size(); ++i) {
    DType t = inputs.infos[i].dtype;
    if (t == DType::Int64 || t == DType::Int32 || t == DType::Bool)
      ints.push_back(inputs.names[i]);
  }
  std::string hint =
      "a traced model may have recorded a size as a constant: make that dim static in --input, "
      "or fix the model (use x.size(i) / x.shape in forward, or script it)";
  if (!ints.empty())
    hint += fmt::format(
        "; or the model needs meaningful values in {} (ids within a vocabulary, lengths that "
        "match the sequence): the second size runs on random values, so give integer inputs a "
        "range, e.g. --input {}:i64[...]:0..9, or make the dims static",
        fmt::join(ints, ", "), ints.front());
  return hint;
}

} // namespace

void check_baked_dims(const std::shared_ptr<torch::jit::Graph> &graph, const GraphInputs &inputs,
                      const ShapeRecord &example, const ShapeRecord &alternate,
                      const std::string &failure) {
  BakedDimReport r;
  try {
    r = find_baked_dims(graph, inputs, example, alternate, failure);
  } catch (const std::exception &) {
    // The search is a diagnosis: if it breaks, report what the recordings themselves show.
    r = BakedDimReport{};
  }
  std::string at_alt = symbol_sizes(inputs, true);
  auto failed_node = [&](const Node *n) {
    if (!n)
      return std::string();
    return fmt::format(" in {} ({}) with inputs [{}]", op_of(n), where_text(n),
                       sizes_in(n, alternate));
  };
  if (r.baked.empty()) {
    if (failure.empty())
      return;
    throw Error(fmt::format("the model runs at the example sizes but fails at {}{}: {}", at_alt,
                            failed_node(r.failed_at), failure),
                second_size_hint(inputs));
  }
  std::vector<std::string> names;
  for (const auto &d : r.baked)
    if (std::find(names.begin(), names.end(), d.symbol) == names.end())
      names.push_back(d.symbol);
  std::string msg = fmt::format(
      "the traced model recorded {} size{} as {}constant{} although {} follow{} {} "
      "({}baked dim{}); the ONNX graph would keep {} fixed:",
      r.baked.size(), r.baked.size() == 1 ? "" : "s", r.baked.size() == 1 ? "a " : "",
      r.baked.size() == 1 ? "" : "s", r.baked.size() == 1 ? "it" : "they",
      r.baked.size() == 1 ? "s" : "", fmt::join(names, ", "), r.baked.size() == 1 ? "a " : "",
      r.baked.size() == 1 ? "" : "s", r.baked.size() == 1 ? "it" : "them");
  for (size_t i = 0; i < r.baked.size(); ++i) {
    const BakedDim &d = r.baked[i];
    const SymbolSizes *sym = nullptr;
    for (const auto &s : inputs.symbols)
      if (s.name == d.symbol)
        sym = &s;
    std::string rel = d.factor == 1 ? fmt::format("the example size of {}", d.symbol)
                                    : fmt::format("{} x {} (example {})", d.factor, d.symbol,
                                                  sym ? sym->example : 0);
    std::string in = inputs_text(d.node, example, &r.scaled, inputs.symbols);
    msg += fmt::format("\n  {}. {} ({}){}: {} = {}{}; compute it as {}", i + 1, op_of(d.node),
                       where_text(d.node), in.empty() ? "" : " on " + in, slot_text(d), rel,
                       !d.silent ? std::string()
                       : op_of(d.node) == "aten::slice"
                           ? fmt::format(", so at other sizes it keeps only "
                                         "the first {} along {}",
                                         d.value, d.symbol)
                           : fmt::format(", so at other sizes it folds {} "
                                         "into another dim",
                                         d.symbol),
                       size_expr(d, inputs));
  }
  if (!failure.empty())
    msg += fmt::format("\n  as traced, at {} the model fails{}: {}", at_alt,
                       failed_node(r.failed_at), failure);
  else
    msg += fmt::format("\n  as traced it runs at {}, but computes with the recorded sizes", at_alt);
  if (!r.remaining.empty())
    msg += fmt::format("\n  with these sizes scaled it still fails at {} in {} ({}): {}", at_alt,
                       op_of(r.remaining_at ? r.remaining_at : graph->return_node()),
                       r.remaining_at ? where_text(r.remaining_at) : "", r.remaining);
  const BakedDim &first = r.baked.front();
  int64_t example_size = first.factor == 0 ? 0 : first.value / first.factor;
  throw Error(msg, fmt::format("in forward, take these sizes from the tensors (x.size(0), "
                               "x.shape[0]; not int(...), a literal or a Python variable) and "
                               "trace again, or torch.jit.script the model; if a size is really "
                               "fixed, make its dim static in --input ({} instead of {}={})",
                               example_size, first.symbol, example_size));
}

} // namespace torch2onnx
