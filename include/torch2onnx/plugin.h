// Converter plugins: a shared library that adds converters for custom ops (torch.ops.mylib.op)
// to torch2onnx, loaded with `torch2onnx --converters LIB.so` (docs/plugins.md). A plugin sees
// the same interface torch2onnx's own converters use (aten_lib/converter.h, installed with this
// header): typed arguments read by the names of the op's schema (ConvertCtx::arg, tensor, ...;
// by position, c.tensor(0), c.int_or(1, -1), as plugins of interface 1 did, still works), the
// converter context (ConvertCtx), the shape-aware graph builder (GraphBuilder) and the Registry.
//
//   #include <torch2onnx/plugin.h>
//
//   // mylib::scaled_tanh(Tensor x, float alpha) -> Tensor   as   alpha * Tanh(x)
//   void mylib_scaled_tanh(torch2onnx::ConvertCtx &c) {
//     torch2onnx::Val x = c.tensor("x");
//     torch2onnx::Val alpha = c.b.const_scalar(c.info("x").dtype, c.arg<double>("alpha"));
//     c.set_out(0, c.b.op1("Mul", {c.b.op1("Tanh", {x}), alpha}));
//   }
//
//   TORCH2ONNX_PLUGIN(registry) {
//     registry.add("mylib::scaled_tanh", 11, mylib_scaled_tanh, {"Tanh", "Mul"});
//   }
//
// Build it against the installed package (find_package(torch2onnx), target torch2onnx::plugin)
// as a MODULE library that does not link torch2onnx itself: the torch2onnx program that loads it
// provides those symbols. A plugin works only with the torch2onnx version it was built against;
// any other refuses to load it.
#pragma once

#include "aten_lib/converter.h"
#include "torch2onnx/version.h"

// The revision of the plugin interface; part of what a loading torch2onnx checks, with
// TORCH2ONNX_VERSION. Raised when Arg, ConvertCtx, Registry or GraphBuilder change (2: arguments
// by schema name, ConvertCtx::call).
#define TORCH2ONNX_PLUGIN_ABI_VERSION 2

#define TORCH2ONNX_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))

// Defines the plugin's entry points; the block that follows registers its converters:
//   TORCH2ONNX_PLUGIN(r) { r.add("mylib::op", 11, mylib_op, {"Mul"}); }
#define TORCH2ONNX_PLUGIN(registry)                                                                \
  TORCH2ONNX_PLUGIN_EXPORT int torch2onnx_plugin_abi_version() {                                   \
    return TORCH2ONNX_PLUGIN_ABI_VERSION;                                                          \
  }                                                                                                \
  TORCH2ONNX_PLUGIN_EXPORT const char *torch2onnx_plugin_version() {                               \
    return TORCH2ONNX_VERSION;                                                                     \
  }                                                                                                \
  TORCH2ONNX_PLUGIN_EXPORT void torch2onnx_register(::torch2onnx::Registry &registry)
