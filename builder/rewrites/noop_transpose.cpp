// noop-transpose: a Transpose with the identity permutation.
#include "builder/rewrites/rules.h"

namespace torch2onnx::rewrites {

RewriteRule noop_transpose_rule() {
  RewriteRule r;
  r.name = "noop-transpose";
  r.target_op = "Transpose";
  r.matches = [](const OptGraph &g, int i) {
    const auto *perm = attr(g.node(i), "perm");
    if (!perm)
      return false;
    for (int k = 0; k < perm->ints_size(); ++k)
      if (perm->ints(k) != k)
        return false;
    return can_forward_input(g, i);
  };
  r.apply = forward_input;
  return r;
}

} // namespace torch2onnx::rewrites
