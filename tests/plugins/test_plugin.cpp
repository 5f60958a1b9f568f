// Converter plugins for tests/test_plugins.cpp, one source built several ways
// (tests/CMakeLists.txt):
//   T2O_PLUGIN_GOOD       converts t2otest::twice(Tensor x) -> Tensor as Add(x, x), and
//                         t2otest::scale(Tensor x, float alpha=2.) -> Tensor reading its arguments
//                         by position (as plugins of interface 1 did) and calling aten::mul's
//                         converter
//   T2O_PLUGIN_OLD        the entry points of a plugin built against another torch2onnx version
//   T2O_PLUGIN_NO_ENTRY   a shared library that is no plugin
//   T2O_PLUGIN_UNDEFINED  uses a function torch2onnx does not have (fails to load)
//   T2O_PLUGIN_DUPLICATE  registers aten::relu at opset 11, which torch2onnx already converts
//   T2O_PLUGIN_ABORT      calls abort() while registering
//   T2O_PLUGIN_SEGV       dereferences a null pointer while registering
//   T2O_PLUGIN_THROW_INT  throws an int (not a std::exception) while registering
//   T2O_PLUGIN_BAD_NAME   registers the op ""
//   T2O_PLUGIN_BAD_OPSET  registers an op at opset -5 as a made-up ONNX op
#include "torch2onnx/plugin.h"

#include <cstdlib>

#if defined(T2O_PLUGIN_GOOD)
namespace {
void t2otest_twice(torch2onnx::ConvertCtx &c) {
  torch2onnx::Val x = c.tensor("x");
  c.set_out(0, c.b.op1("Add", {x, x}));
}

void t2otest_scale(torch2onnx::ConvertCtx &c) {
  torch2onnx::Val x = c.tensor(0);
  double alpha = c.double_or(1, 2.0);
  c.set_out(0, c.call("aten::mul", {{"self", x}, {"other", torch2onnx::Arg::of_float(alpha)}},
                      {c.out_info(0)}, "Scalar")[0]);
}
} // namespace

TORCH2ONNX_PLUGIN(r) {
  r.set_family("test_plugin");
  r.add("t2otest::twice", 11, t2otest_twice, {"Add"});
  r.add("t2otest::scale", 11, t2otest_scale, {"Mul"});
}

#elif defined(T2O_PLUGIN_OLD)
TORCH2ONNX_PLUGIN_EXPORT int torch2onnx_plugin_abi_version() {
  return 999;
}
TORCH2ONNX_PLUGIN_EXPORT const char *torch2onnx_plugin_version() {
  return "0.0.1";
}
TORCH2ONNX_PLUGIN_EXPORT void torch2onnx_register(torch2onnx::Registry &) {}

#elif defined(T2O_PLUGIN_NO_ENTRY)
TORCH2ONNX_PLUGIN_EXPORT int t2o_test_not_a_plugin() {
  return 1;
}

#elif defined(T2O_PLUGIN_UNDEFINED)
void t2o_test_missing_symbol(); // defined nowhere
TORCH2ONNX_PLUGIN(r) {
  (void)r;
  t2o_test_missing_symbol();
}

#elif defined(T2O_PLUGIN_DUPLICATE)
TORCH2ONNX_PLUGIN(r) {
  r.add("aten::relu", 11, [](torch2onnx::ConvertCtx &c) { c.set_out(0, c.tensor("self")); }, {});
}

#elif defined(T2O_PLUGIN_ABORT)
TORCH2ONNX_PLUGIN(r) {
  (void)r;
  std::abort();
}

#elif defined(T2O_PLUGIN_SEGV)
TORCH2ONNX_PLUGIN(r) {
  (void)r;
  volatile int *p = nullptr;
  *p = 1;
}

#elif defined(T2O_PLUGIN_THROW_INT)
TORCH2ONNX_PLUGIN(r) {
  (void)r;
  throw 42;
}

#elif defined(T2O_PLUGIN_BAD_NAME)
TORCH2ONNX_PLUGIN(r) {
  r.add("", 11, [](torch2onnx::ConvertCtx &c) { c.set_out(0, c.tensor("x")); }, {"Identity"});
}

#elif defined(T2O_PLUGIN_BAD_OPSET)
TORCH2ONNX_PLUGIN(r) {
  r.add("t2otest::odd", -5, [](torch2onnx::ConvertCtx &c) { c.set_out(0, c.tensor("x")); },
        {"MadeUpOnnxOp"});
}
#endif
