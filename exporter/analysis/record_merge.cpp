#include "exporter/analysis/record_merge.h"

#include "builder/error.h"

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
      // The symbol recorded at these two sizes; none when two symbols were (h=64, w=64 both
      // go to 96: which one a dim follows cannot be told, and a wrong name is worse than none).
      std::string name;
      int matches = 0;
      for (const auto &s : symbols)
        if (s.example == d.value && s.alternate == b) {
          name = s.name;
          ++matches;
        }
      d = matches == 1 ? Dim::named(name) : Dim{};
    }
  }
}

} // namespace torch2onnx
