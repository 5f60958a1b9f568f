// Modules as ONNX local functions (--functions TYPE,...; docs/functions.md). Runs on the finished,
// rewritten flat graph: the nodes of each call of a chosen module (found by the module scope in
// their names, builder/provenance.h) are replaced by one call of a FunctionProto. Values the call
// reads from outside (activations, then weights) become the function's inputs; values read after
// the call become its outputs. Calls whose bodies are identical (same nodes, attributes and small
// constants, up to value names) share one function; any difference gives another function, so a
// body is never shared incorrectly.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace onnx {
class ModelProto;
} // namespace onnx

namespace torch2onnx {

// The domain of the functions torch2onnx writes.
inline constexpr const char *kFunctionDomain = "torch2onnx.functions";
// ONNX local functions need IR version 8, which comes with opset 15.
inline constexpr int kMinFunctionOpset = 15;

// One FunctionProto written: e.g. {"BasicBlock_1", "BasicBlock", {"layer2.0"}, 1, 2, 1, 9}.
struct LocalFunction {
  std::string name;        // the FunctionProto's name (the module type, "_N" for later bodies)
  std::string module_type; // the module class, e.g. "BasicBlock"
  std::vector<std::string> calls; // module scope of each call, e.g. "layer1.0", in graph order
  size_t activation_inputs = 0;   // inputs other than weights
  size_t weight_inputs = 0;       // initializers of the main graph passed in
  size_t outputs = 0;
  size_t nodes = 0; // nodes in the body
};

// Replaces the calls of the modules in `instances` (module scope -> class name, e.g.
// {"layer1.0": "BasicBlock"}) by function calls. Nested matches: the outermost module wins.
// Initializer bytes are read through ScopedInitializerBytes when one is alive (builder/optimize.h)
// so small constants (scalars, short integer vectors) move into the bodies. Throws Error when a
// call cannot be separated from the graph around it.
std::vector<LocalFunction> extract_functions(onnx::ModelProto &model,
                                             const std::map<std::string, std::string> &instances);

} // namespace torch2onnx
