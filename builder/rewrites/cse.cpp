// cse: a node with the same op, inputs and attributes as an earlier one computes the same value
// once; its readers read the earlier node's outputs. Never random ops, nodes with subgraphs, or
// nodes writing graph outputs.
#include "builder/rewrites/rules.h"

#include <unordered_set>

namespace torch2onnx::rewrites {

namespace {

std::string cse_key(const onnx::NodeProto &n) {
  std::string key = n.domain() + "|" + n.op_type();
  for (const auto &in : n.input())
    key += "|" + in;
  for (const auto &a : n.attribute())
    key += "|" + a.SerializeAsString();
  return key;
}

// The first node seen with n's key is remembered (in the graph's scratch table) and matches
// nothing; a later one matches when the remembered node is still there and still the same.
bool matches(const OptGraph &g, int i) {
  static const std::unordered_set<std::string> random = {"RandomNormal",  "RandomNormalLike",
                                                         "RandomUniform", "RandomUniformLike",
                                                         "Multinomial",   "Bernoulli"};
  const auto &n = g.node(i);
  if (random.count(n.op_type()) || has_subgraph(n) || n.output_size() == 0)
    return false;
  for (const auto &o : n.output())
    if (g.is_graph_output(o))
      return false;
  std::string key = cse_key(n);
  auto &table = g.scratch("cse");
  auto [it, fresh] = table.emplace(key, i);
  if (fresh)
    return false;
  int j = it->second;
  // Another rule may have changed node j since (a Conv with a folded BatchNormalization).
  if (g.removed(j) || g.node(j).output_size() != n.output_size() || cse_key(g.node(j)) != key) {
    it->second = i;
    return false;
  }
  return true;
}

void apply(OptGraph &g, int i) {
  const auto &n = g.node(i);
  int j = g.scratch("cse").at(cse_key(n));
  std::vector<std::pair<std::string, std::string>> pairs;
  for (int k = 0; k < n.output_size(); ++k)
    pairs.emplace_back(n.output(k), g.node(j).output(k));
  g.remove(i);
  for (const auto &[from, to] : pairs)
    if (!from.empty())
      g.alias(from, to);
}

} // namespace

RewriteRule cse_rule() {
  RewriteRule r;
  r.name = "cse";
  r.target_op = "*";
  r.matches = matches;
  r.apply = apply;
  return r;
}

} // namespace torch2onnx::rewrites
