// fold-reshape-chain: Reshape(Reshape(x, s1), s2) is Reshape(x, s2) — a reshape keeps the
// elements' row-major order, so only the last target shape matters — when s2 is a constant that
// copies no dim of the intermediate (no 0, or allowzero) and nothing else reads the intermediate.
// The same for a Flatten, Squeeze or Unsqueeze before the Reshape. Swin's window partition and
// merge write such pairs (view, permute, view, view).
#include "builder/rewrites/rules.h"

#include <algorithm>

namespace torch2onnx::rewrites {

namespace {

// The reshape-like node whose output node i reads and nothing else does, or -1.
int inner_reshape(const OptGraph &g, int i) {
  const std::string &x = g.node(i).input(0);
  int p = g.producer(x);
  if (p < 0 || g.uses(x) != 1 || g.is_graph_output(x))
    return -1;
  const auto &inner = g.node(p);
  const std::string &op = inner.op_type();
  bool reshape_like = op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze";
  return reshape_like && inner.domain().empty() && inner.output_size() == 1 &&
                 inner.input_size() >= 1
             ? p
             : -1;
}

bool matches(const OptGraph &g, int i) {
  const auto &n = g.node(i);
  std::vector<int64_t> target;
  if (n.input_size() != 2 || !g.int_values(n.input(1), target))
    return false;
  const auto *az = attr(n, "allowzero");
  bool allowzero = az && az->i() != 0;
  if (!allowzero && std::find(target.begin(), target.end(), 0) != target.end())
    return false;
  return inner_reshape(g, i) >= 0;
}

// Skips every reshape-like node before node i (a chain of them).
void apply(OptGraph &g, int i) {
  for (int inner = inner_reshape(g, i); inner >= 0; inner = inner_reshape(g, i)) {
    std::string x = g.resolve(g.node(inner).input(0));
    g.replace_input(i, 0, x);
    g.remove(inner);
  }
}

} // namespace

RewriteRule fold_reshape_chain_rule() {
  RewriteRule r;
  r.name = "fold-reshape-chain";
  r.target_op = "Reshape";
  r.matches = matches;
  r.apply = apply;
  return r;
}

} // namespace torch2onnx::rewrites
