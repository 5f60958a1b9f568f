// noop-dropout: Dropout without a training_mode input (or with it absent) is the identity at
// inference; its mask output must be unread.
#include "builder/rewrites/rules.h"

namespace torch2onnx::rewrites {

RewriteRule noop_dropout_rule() {
  RewriteRule r;
  r.name = "noop-dropout";
  r.target_op = "Dropout";
  r.matches = [](const OptGraph &g, int i) {
    const auto &n = g.node(i);
    if (n.input_size() >= 3 && !n.input(2).empty())
      return false;
    return can_forward_input(g, i);
  };
  r.apply = forward_input;
  return r;
}

} // namespace torch2onnx::rewrites
