// noop-index-wrap: `Where(Less(i, 0), Add(i, n), i)` — an index converter's wrap of negative
// indices (PyTorch counts them from the end) — goes when i cannot be negative by construction:
// it comes from NonZero, ArgMax/ArgMin, TopK's indices, Shape or Size, or a constant of
// non-negative integers, through ops that only move or pick such values (Reshape, Squeeze,
// Transpose, Slice, Gather of them, Concat of several, a Cast between integer types, ...).
// Routers of mixture-of-experts layers index with `torch.where(mask)` / `nonzero()` /
// `argmax()` in every expert: torch.onnx.export's file has no wrap there and ran 20% faster.
#include "builder/rewrites/rules.h"

#include <algorithm>
#include <set>

namespace torch2onnx::rewrites {

namespace {

bool is_int_type(int t) {
  return t == onnx::TensorProto::INT64 || t == onnx::TensorProto::INT32 ||
         t == onnx::TensorProto::INT16 || t == onnx::TensorProto::INT8;
}

// True when every element of `value` is >= 0 in every run. `depth` bounds the walk up the graph.
bool non_negative(const OptGraph &g, const std::string &value, int depth) {
  std::vector<int64_t> ints;
  if (g.int_values(value, ints))
    return std::all_of(ints.begin(), ints.end(), [](int64_t v) { return v >= 0; });
  int p = g.producer(value);
  if (p < 0 || depth == 0)
    return false;
  const auto &n = g.node(p);
  if (!n.domain().empty())
    return false;
  static const std::set<std::string> sources = {"NonZero", "ArgMax", "ArgMin", "Shape", "Size"};
  // Ops whose output elements are elements of their input 0 (or its shape's).
  static const std::set<std::string> movers = {
      "Reshape", "Squeeze", "Unsqueeze", "Flatten", "Transpose",      "Identity",  "Expand",
      "Slice",   "Gather",  "GatherND",  "Tile",    "GatherElements", "ReduceMax", "ReduceMin"};
  const std::string &op = n.op_type();
  if (sources.count(op))
    return true;
  if (op == "TopK")
    return n.output_size() > 1 && n.output(1) == value;
  if (op == "Cast") {
    const auto *to = attr(n, "to");
    return to && is_int_type(static_cast<int>(to->i())) && is_int_type(g.elem_type(n.input(0))) &&
           non_negative(g, n.input(0), depth - 1);
  }
  if (op == "Concat") {
    for (const auto &in : n.input())
      if (!non_negative(g, in, depth - 1))
        return false;
    return n.input_size() > 0;
  }
  return movers.count(op) && n.input_size() > 0 && non_negative(g, n.input(0), depth - 1);
}

// Node `p` is Less(i, 0) with a constant 0.
bool is_less_zero(const OptGraph &g, int p, const std::string &i) {
  if (p < 0)
    return false;
  const auto &n = g.node(p);
  std::vector<int64_t> zero;
  return n.op_type() == "Less" && n.domain().empty() && n.input_size() == 2 && n.input(0) == i &&
         g.int_values(n.input(1), zero) && zero.size() == 1 && zero[0] == 0;
}

// Node `p` is Add(i, n) or Add(n, i).
bool is_add_of(const OptGraph &g, int p, const std::string &i) {
  if (p < 0)
    return false;
  const auto &n = g.node(p);
  return n.op_type() == "Add" && n.domain().empty() && n.input_size() == 2 &&
         (n.input(0) == i || n.input(1) == i);
}

bool matches(const OptGraph &g, int i) {
  const auto &w = g.node(i);
  if (w.input_size() != 3 || w.output_size() != 1 || g.is_graph_output(w.output(0)))
    return false;
  const std::string &idx = w.input(2);
  return is_less_zero(g, g.producer(w.input(0)), idx) &&
         is_add_of(g, g.producer(w.input(1)), idx) && non_negative(g, idx, 16);
}

void apply(OptGraph &g, int i) {
  std::string out = g.node(i).output(0), idx = g.node(i).input(2);
  g.remove(i);
  g.alias(out, idx);
}

} // namespace

RewriteRule noop_index_wrap_rule() {
  RewriteRule r;
  r.name = "noop-index-wrap";
  r.target_op = "Where";
  r.matches = matches;
  r.apply = apply;
  return r;
}

} // namespace torch2onnx::rewrites
