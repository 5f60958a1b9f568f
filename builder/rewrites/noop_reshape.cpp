// noop-reshape: a Reshape whose constant target shape is the static shape its input already has
// (0 copies a dim unless allowzero, opset 14; one -1 takes what is left).
#include "builder/rewrites/rules.h"

namespace torch2onnx::rewrites {

namespace {

// The target shape with 0 and -1 resolved against `dims`; false when it cannot be.
bool resolve_target(std::vector<int64_t> &target, const std::vector<int64_t> &dims,
                    bool allowzero) {
  int minus = -1;
  for (size_t k = 0; k < target.size(); ++k) {
    if (target[k] == 0 && !allowzero)
      target[k] = dims[k];
    if (target[k] == -1) {
      if (minus >= 0)
        return false;
      minus = static_cast<int>(k);
    }
  }
  if (minus < 0)
    return true;
  int64_t total = 1, rest = 1;
  for (size_t k = 0; k < dims.size(); ++k) {
    total *= dims[k];
    if (static_cast<int>(k) != minus)
      rest *= target[k];
  }
  if (rest == 0)
    return false;
  target[static_cast<size_t>(minus)] = total / rest;
  return true;
}

bool matches(const OptGraph &g, int i) {
  const auto &n = g.node(i);
  std::vector<int64_t> dims, target;
  if (n.input_size() != 2 || !g.static_shape(n.input(0), dims) || !g.int_values(n.input(1), target))
    return false;
  const auto *az = attr(n, "allowzero");
  if (target.size() != dims.size() || !resolve_target(target, dims, az && az->i() != 0))
    return false;
  return target == dims && can_forward_input(g, i);
}

} // namespace

RewriteRule noop_reshape_rule() {
  RewriteRule r;
  r.name = "noop-reshape";
  r.target_op = "Reshape";
  r.matches = matches;
  r.apply = forward_input;
  return r;
}

} // namespace torch2onnx::rewrites
