#include "exporter/frontend/torchscript/record_graph.h"

#include "exporter/analysis/record_merge.h"
#include "exporter/frontend/torchscript/baked_dims.h"
#include "exporter/frontend/torchscript/recorder.h"

#include <fmt/format.h>

namespace torch2onnx {

ShapeRecord record_graph(const std::shared_ptr<torch::jit::Graph> &graph, const GraphInputs &inputs,
                         std::vector<std::string> &warnings) {
  ShapeRecord rec = record_shapes(graph, inputs.example);
  if (!inputs.alternate.empty()) {
    std::string failure;
    ShapeRecord other = record_shapes(graph, inputs.alternate, &failure);
    // Sizes the trace recorded as constants (or a failure at the alternate sizes): one error
    // listing each with where it is and how to fix it.
    check_baked_dims(graph, inputs, rec, other, failure);
    merge_dynamic(rec, other, inputs.symbols);
  }
  // Dims equal at both sizes by coincidence (a stride-128 feature map is 3 rows at h = 320 and
  // at 352): a third run at sizes 128 larger makes those that change there dynamic. A model that
  // fails at those sizes keeps the two-run result.
  // Those sizes grow by different steps, so two dims change order where their example sizes are
  // close (a branch on `w <= h` takes its other path); with a square example, a fourth run grows
  // them the other way round, so both orders are seen.
  // And runs at smaller sizes find sizes clamped at a bound the larger ones all pass
  // (x[:, :100]); a model that fails there keeps what the others found.
  std::vector<const std::vector<c10::IValue> *> more = {&inputs.far, &inputs.far_swapped};
  for (const auto &near : inputs.near)
    more.push_back(&near);
  for (const auto *far_inputs : more) {
    if (far_inputs->empty())
      continue;
    std::string failure;
    ShapeRecord far = record_shapes(graph, *far_inputs, &failure);
    if (failure.empty())
      merge_data_dependent(rec, far);
  }
  // Sizes that follow the value of a number input (torch.arange(n) with n an input): runs with
  // those values changed make such dims dynamic.
  std::string failure;
  size_t ran = 0;
  for (const auto &values : inputs.values) {
    std::string failed;
    ShapeRecord changed = record_shapes(graph, values, &failed);
    if (failed.empty()) {
      merge_data_dependent(rec, changed);
      ++ran;
    } else if (failure.empty()) {
      failure = failed;
    }
  }
  if (!inputs.values.empty() && ran == 0)
    warnings.push_back(fmt::format(
        "the model failed in LibTorch whenever its number inputs were changed (v + 1, v - 1, "
        "2v + 3), so sizes that follow their values may be fixed at the example's: {}",
        failure));
  // Sizes that follow the number of rows nonzero / nms / ... return (detections) are found by
  // running again with fewer rows (a count capped by [:10] changes), and with one more (a count
  // that was 0 or 1 at the example changes). See docs/dynamic_shapes.md.
  if (has_data_dependent_rows(graph->block(), rec)) {
    for (CountChange mode : {CountChange::Fewer, CountChange::More}) {
      std::string failure;
      ShapeRecord shrunk = record_shapes(graph, inputs.example, &failure, mode);
      if (failure.empty()) {
        merge_data_dependent(rec, shrunk);
      } else {
        warnings.push_back(fmt::format(
            "the model failed in LibTorch when its data-dependent counts (nonzero, nms, ...) were "
            "{}, so sizes that follow them may be fixed at the example's: {}",
            mode == CountChange::Fewer ? "reduced to 2" : "increased by 1", failure));
      }
    }
  }
  return rec;
}

} // namespace torch2onnx
