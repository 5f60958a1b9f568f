// torch2onnx::Error: the one exception type torch2onnx throws for everything a user can act on
// (a model it cannot convert, a wrong option, a verification that could not run). Part of the
// installed public API.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace torch2onnx {

// The graph node an error happened at, as separate fields (the message has them too), for the
// --report document and API users.
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

// An Error that is the caller's options' fault, found only once the model is loaded (an
// --input spec missing for a forward argument without a default, too many --input specs,
// --output-names of the wrong length). The CLI exits with 2 for it, as for a bad command line.
class UsageError : public Error {
public:
  using Error::Error;
};

} // namespace torch2onnx
