#include "builder/phase.h"

namespace torch2onnx {

const char *phase_name(Phase p) {
  switch (p) {
  case Phase::None:
    return "";
  case Phase::Load:
    return "load";
  case Phase::Prepare:
    return "prepare";
  case Phase::Record:
    return "record";
  case Phase::Convert:
    return "convert";
  case Phase::Optimize:
    return "optimize";
  case Phase::Serialize:
    return "serialize";
  case Phase::Verify:
    return "verify";
  }
  return "";
}

const char *phase_activity(Phase p) {
  switch (p) {
  case Phase::None:
    return "";
  case Phase::Load:
    return "loading";
  case Phase::Prepare:
    return "preparing";
  case Phase::Record:
    return "recording shapes";
  case Phase::Convert:
    return "converting";
  case Phase::Optimize:
    return "optimizing and checking";
  case Phase::Serialize:
    return "writing";
  case Phase::Verify:
    return "verifying";
  }
  return "";
}

} // namespace torch2onnx
