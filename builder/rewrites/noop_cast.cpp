// noop-cast: a Cast to the element type its input already has.
#include "builder/rewrites/rules.h"

namespace torch2onnx::rewrites {

RewriteRule noop_cast_rule() {
  RewriteRule r;
  r.name = "noop-cast";
  r.target_op = "Cast";
  r.matches = [](const OptGraph &g, int i) {
    const auto &n = g.node(i);
    const auto *to = attr(n, "to");
    int have = g.elem_type(n.input(0));
    return to && have != 0 && have == to->i() && can_forward_input(g, i);
  };
  r.apply = forward_input;
  return r;
}

} // namespace torch2onnx::rewrites
