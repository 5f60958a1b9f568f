// What --expected-outputs found: ONNX Runtime's outputs on the --input-data against outputs the
// user computed elsewhere (e.g. Python's torch.jit.load). Free of LibTorch headers (the CLI prints
// it).
#pragma once

#include "exporter/verify/report.h"

#include <string>
#include <vector>

namespace torch2onnx {

struct ExpectedReport {
  std::string file;                 // the --expected-outputs file
  std::vector<OutputCheck> outputs; // per ONNX output, as --verify's checks
  double seconds = 0;
  bool ok() const {
    for (const auto &o : outputs)
      if (!o.ok())
        return false;
    return !outputs.empty();
  }
};

} // namespace torch2onnx
