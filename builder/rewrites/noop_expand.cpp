// noop-expand: an Expand whose constant shape neither adds dims nor broadcasts one.
#include "builder/rewrites/rules.h"

namespace torch2onnx::rewrites {

RewriteRule noop_expand_rule() {
  RewriteRule r;
  r.name = "noop-expand";
  r.target_op = "Expand";
  r.matches = [](const OptGraph &g, int i) {
    const auto &n = g.node(i);
    std::vector<int64_t> dims, shape;
    if (n.input_size() != 2 || !g.static_shape(n.input(0), dims) ||
        !g.int_values(n.input(1), shape) || shape.size() > dims.size())
      return false;
    for (size_t k = 0; k < shape.size(); ++k) {
      int64_t d = dims[dims.size() - shape.size() + k];
      if (shape[k] != 1 && shape[k] != d)
        return false; // broadcasts a dim
    }
    return can_forward_input(g, i);
  };
  r.apply = forward_input;
  return r;
}

} // namespace torch2onnx::rewrites
