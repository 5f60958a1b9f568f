// Turning one graph node into a converter call, for any graph front end (the TorchScript walker
// today, a torch.export front end later). The front end translates its values to Args and back
// and fills a NodeContext; this looks up the converter, calls it and checks what it produced.
// No LibTorch here.
#pragma once

#include "aten_lib/converter.h"

#include <exception>
#include <string>
#include <vector>

namespace torch2onnx {

// Where a node comes from, filled by the front end for error messages.
struct NodeContext {
  size_t index = 0;     // position in the walk
  std::string op;       // "aten::conv2d"
  std::string overload; // the schema overload, e.g. "Tensor" ("" for the default)
  // The schema's argument names, one per argument in order: what converters read arguments by
  // (ConvertCtx::arg). TorchScript: node->maybeSchema()->arguments()'s names.
  std::vector<std::string> arg_names;
  std::string scope;                // module path, e.g. "layer1.0.conv1" ("" at top level)
  std::string source;               // "model.py:12" when the model kept debug info
  std::vector<std::string> inputs;  // e.g. "%x: f32[1,3,224,224]", "%dim = 1"
  std::vector<std::string> outputs; // the output values' names, e.g. "y"
};

// What the front end knows of one output: the dtype and shape LibTorch produced for it (dtype
// Undefined when unknown or not a tensor), and whether None is a valid result.
struct OutputSlot {
  TensorInfo info;
  bool may_be_none = false;
};

// The converter for `op` at `opset`, or nullptr when there is none (an op the front end handles
// itself, a RegistryEntry::frontend entry, has none).
const RegistryEntry *find_converter(const Registry &registry, const std::string &op, int opset);

// Calls the converter of `entry` (from `registry`, which the converter's ConvertCtx::call uses
// too) on `args`, named by node.arg_names, and returns its results, one per output slot.
// Throws Error when the converter fails or leaves an output unset that may not be None.
// Example: auto outs = call_converter(b, registry, *entry, node, {Arg::of_tensor(x)},
//                                     {OutputSlot{info}});
std::vector<Arg> call_converter(GraphBuilder &b, const Registry &registry,
                                const RegistryEntry &entry, const NodeContext &node,
                                std::vector<Arg> args, const std::vector<OutputSlot> &outputs);

// `e`, thrown while converting the node, with the node in front of it: "node #12 aten::view
// (layer1.0, model.py:12) with inputs [%x: f32[1,3], %s = [3]]: <what went wrong>". Keeps the
// hint of an Error. The front end throws this from its one per-node catch.
Error node_error(const NodeContext &node, const std::exception &e);

} // namespace torch2onnx
