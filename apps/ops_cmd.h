// `torch2onnx ops [--opset N] [--json] [--converters LIB.so]...`: list the aten op converters.
#pragma once

namespace torch2onnx {

// argv[0] is "ops". Returns the exit code (0, 1 for a plugin that fails to load, 2 for usage).
int run_ops(int argc, char **argv);

} // namespace torch2onnx
