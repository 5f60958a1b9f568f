#include "exporter/core/records.h"

#include <fmt/format.h>

namespace torch2onnx {

std::string format_unsupported(const std::vector<UnsupportedOp> &ops, int opset) {
  std::string msg = fmt::format("{} op{} ha{} no converter at opset {}:", ops.size(),
                                ops.size() == 1 ? "" : "s", ops.size() == 1 ? "s" : "ve", opset);
  for (const auto &u : ops) {
    msg += fmt::format("\n  {} ({} use{}): {}", u.op, u.uses, u.uses == 1 ? "" : "s",
                       fmt::join(u.places, "; "));
    if (u.places.size() < u.uses)
      msg += fmt::format("; ... {} more", u.uses - u.places.size());
    if (u.available_from > 0)
      msg += fmt::format(" [supported from opset {}: use --opset {}]", u.available_from,
                         u.available_from);
  }
  for (const auto &u : ops)
    if (u.complex)
      return msg + "\n  (ONNX has no complex type: torch2onnx carries complex tensors as real ones "
                   "with a trailing dimension of 2, and only the ops in docs/complex.md take "
                   "them; compute such steps on torch.view_as_real(x) or x.real / x.imag)";
  return msg;
}

} // namespace torch2onnx
