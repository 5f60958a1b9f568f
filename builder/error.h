// One exception type for everything torch2onnx reports to a user. Code throws; the CLI is the one
// boundary that catches and prints.
#pragma once

#include <fmt/format.h>
#include <stdexcept>
#include <string>

namespace torch2onnx {

class Error : public std::runtime_error {
public:
  explicit Error(std::string what, std::string hint = {})
      : std::runtime_error(std::move(what)), hint_(std::move(hint)) {}
  // What the user can do about it; may be empty.
  const std::string &hint() const { return hint_; }

private:
  std::string hint_;
};

// Example: T2O_CHECK(rank == 4, "expected a 4-D input, got rank {}", rank);
#define T2O_CHECK(cond, ...)                                                                       \
  do {                                                                                             \
    if (!(cond))                                                                                   \
      throw ::torch2onnx::Error(fmt::format(__VA_ARGS__));                                         \
  } while (0)

} // namespace torch2onnx
