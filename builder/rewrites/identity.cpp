// identity: an Identity node disappears; its readers read its input. An Identity that writes a
// graph output instead renames its producer's output, when nothing else reads the old name.
#include "builder/rewrites/rules.h"

namespace torch2onnx::rewrites {

namespace {

// For an output Identity: the producer's output index that can take the output's name, or -1.
int renamable_output(const OptGraph &g, int i) {
  const auto &n = g.node(i);
  const std::string &in = n.input(0);
  int p = g.producer(in);
  if (p < 0 || g.uses(in) != 1 || g.is_graph_output(in) || has_subgraph(g.node(p)))
    return -1;
  const auto &prod = g.node(p);
  for (int k = 0; k < prod.output_size(); ++k)
    if (prod.output(k) == in)
      return k;
  return -1;
}

bool matches(const OptGraph &g, int i) {
  const auto &n = g.node(i);
  if (n.input_size() != 1 || n.output_size() != 1)
    return false;
  return g.is_graph_output(n.output(0)) ? renamable_output(g, i) >= 0 : can_forward_input(g, i);
}

void apply(OptGraph &g, int i) {
  const auto &n = g.node(i);
  if (!g.is_graph_output(n.output(0)))
    return forward_input(g, i);
  int p = g.producer(n.input(0));
  int k = renamable_output(g, i);
  std::string name = n.output(0);
  g.remove(i);
  g.rename_output(p, k, name);
}

} // namespace

RewriteRule identity_rule() {
  RewriteRule r;
  r.name = "identity";
  r.target_op = "Identity";
  r.matches = matches;
  r.apply = apply;
  return r;
}

} // namespace torch2onnx::rewrites
