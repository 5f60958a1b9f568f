// torch2onnx::Error: the one exception type torch2onnx throws for everything a user can act on
// (a model it cannot convert, a wrong option, a verification that could not run). Part of the
// installed public API.
#pragma once

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

} // namespace torch2onnx
