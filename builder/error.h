// One exception type for everything torch2onnx reports to a user. Code throws; the CLI is the one
// boundary that catches and prints.
#pragma once

#include <fmt/format.h>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace torch2onnx {

// The graph node an error happened at, as separate fields (the message has them too), for the
// --report document.
struct ErrorNode {
  size_t index = 0;                // position in the walk
  std::string op;                  // "aten::conv2d"
  std::string scope;               // module path ("" at top level)
  std::string source;              // "model.py:12" ("" when the model kept no debug info)
  std::vector<std::string> inputs; // "%x: f32[1,3,224,224]", "%dim = 1"
  std::string reason;              // the error without the node in front of it
};

class Error : public std::runtime_error {
public:
  explicit Error(std::string what, std::string hint = {})
      : std::runtime_error(std::move(what)), hint_(std::move(hint)) {}
  Error(std::string what, std::string hint, ErrorNode node)
      : std::runtime_error(std::move(what)), hint_(std::move(hint)), node_(std::move(node)) {}
  // What the user can do about it; may be empty.
  const std::string &hint() const { return hint_; }
  // The node it happened at, when it happened while converting one.
  const std::optional<ErrorNode> &node() const { return node_; }

private:
  std::string hint_;
  std::optional<ErrorNode> node_;
};

// Example: T2O_CHECK(rank == 4, "expected a 4-D input, got rank {}", rank);
#define T2O_CHECK(cond, ...)                                                                       \
  do {                                                                                             \
    if (!(cond))                                                                                   \
      throw ::torch2onnx::Error(fmt::format(__VA_ARGS__));                                         \
  } while (0)

} // namespace torch2onnx
