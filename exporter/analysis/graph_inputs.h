// What a graph is recorded and exported at: its inputs' names, declared infos (symbolic dims by
// name) and example values, and the sizes each symbolic dim was recorded at.
#pragma once

#include "builder/types.h"

#include <ATen/core/ivalue.h>
#include <cstdint>
#include <string>
#include <vector>

namespace torch2onnx {

// One symbolic input dim and the two sizes the model was recorded at.
struct SymbolSizes {
  std::string name;
  int64_t example = 0, alternate = 0;
};

// The graph's inputs: names, declared infos (symbolic dims by name) and the example values the
// model is recorded at. `alternate` (empty when every dim is static) holds the same inputs with
// every symbolic dim at another size, so the recorder can tell which dims are dynamic.
struct GraphInputs {
  std::vector<std::string> names;
  std::vector<TensorInfo> infos;
  std::vector<c10::IValue> example, alternate;
  // The same inputs with the symbolic dims from 32 up larger than their example by different
  // multiples of 128 (the others at their alternate size), or empty: a third recording finds dims
  // that coincide at the example and alternate sizes but not in general (ceil(h / 128) is 3 at both
  // h = 320 and 352).
  std::vector<c10::IValue> far;
  // When two of those dims have the same example size (a square image), a fourth recording with
  // their growth swapped: the one `far` makes larger is the smaller here, so both orders of the
  // two are seen (a branch on `w <= h` runs both ways). Empty otherwise.
  std::vector<c10::IValue> far_swapped;
  // The same inputs with the symbolic dims from 4 up at about half their example and at twice
  // the power of two (up to 32) that divides it (each a multiple of that power), when smaller:
  // a clamped size (x[:, :100] at t = 160 and 192 is 100 at both; Whisper's pad_or_trim)
  // differs there. Empty when no dim is smaller.
  std::vector<std::vector<c10::IValue>> near;
  // The example with every 0-d number input v as v + 1, as v - 1 and as 2v + 3 (each within its
  // --input range), or none when there is no such input: sizes that follow an input's value
  // (torch.arange(n), x[:int(k)], interpolate to int(h * scale)) differ there and are dynamic,
  // not the example's constants. Each the model runs with is recorded.
  std::vector<std::vector<c10::IValue>> values;
  std::vector<SymbolSizes> symbols;
};

} // namespace torch2onnx
