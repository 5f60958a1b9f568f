#include "exporter/analysis/record_merge.h"

#include "builder/error.h"
#include "exporter/analysis/baked_dims.h"

namespace torch2onnx {

void merge_data_dependent(ShapeRecord &example, const ShapeRecord &shrunk) {
  for (auto &[value, info] : example.infos) {
    if (!info.shape)
      continue;
    const TensorInfo *other = shrunk.find(value);
    // Not computed in this run (a branch that did not run with fewer rows, e.g. "if there are no
    // boxes, return"): the other run, or the example, decides.
    if (!other)
      continue;
    if (!other->shape || other->shape->size() != info.shape->size()) {
      info.shape.reset();
      continue;
    }
    for (size_t i = 0; i < info.shape->size(); ++i) {
      Dim &d = (*info.shape)[i];
      if (d.is_static() && d.value != (*other->shape)[i].value)
        d = Dim{};
    }
  }
}

void merge_dynamic(ShapeRecord &example, const ShapeRecord &alternate,
                   const std::vector<SymbolSizes> &symbols) {
  for (auto &[value, info] : example.infos) {
    const TensorInfo *other = alternate.find(value);
    if (!info.shape)
      continue;
    if (!other || !other->shape || other->shape->size() != info.shape->size()) {
      // Rank changes with the input size (or the value was not computed): keep only the dtype.
      info.shape.reset();
      continue;
    }
    for (size_t i = 0; i < info.shape->size(); ++i) {
      Dim &d = (*info.shape)[i];
      int64_t b = (*other->shape)[i].value;
      if (d.value == b)
        continue;
      std::string name;
      for (const auto &s : symbols)
        if (s.example == d.value && s.alternate == b)
          name = s.name;
      d = name.empty() ? Dim{} : Dim::named(name);
    }
  }
}

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
