// One exception type for everything torch2onnx reports to a user (torch2onnx::Error, in the public
// header torch2onnx/error.h) and the T2O_CHECK macro. Code throws; the CLI and the APIs are the
// boundaries that catch.
#pragma once

#include "torch2onnx/error.h"

#include <fmt/format.h>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace torch2onnx {

// Example: T2O_CHECK(rank == 4, "expected a 4-D input, got rank {}", rank);
#define T2O_CHECK(cond, ...)                                                                       \
  do {                                                                                             \
    if (!(cond))                                                                                   \
      throw ::torch2onnx::Error(fmt::format(__VA_ARGS__));                                         \
  } while (0)

} // namespace torch2onnx
