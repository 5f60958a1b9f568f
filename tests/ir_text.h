// TorchScript IR text for the converter tests (check_ir and friends in harness.h).
//
//   ir("%x : Tensor", "  %y : Tensor = aten::flatten(%x, %1, %m1)")
//
// gives
//
//   graph(%x : Tensor):
//     %none : NoneType = prim::Constant()
//     ...                                  (the rest of kIrConsts)
//     %y : Tensor = aten::flatten(%x, %1, %m1)
//     return (%y)
//
// and ir1("aten::relu(%x)") gives graph(%x) returning %y = aten::relu(%x) with no constants.
#pragma once

#include <string>

namespace t2o_test {

// The constants every ir() graph starts with (%long and %double are dtype codes, %d1 and %d02 dim
// lists). Unused ones cost nothing: the walker emits ONNX nodes only for what the outputs need.
// A body must not define these names again.
inline const char *const kIrConsts = R"IR(
  %none : NoneType = prim::Constant()
  %false : bool = prim::Constant[value=0]()
  %true : bool = prim::Constant[value=1]()
  %m2 : int = prim::Constant[value=-2]()
  %m1 : int = prim::Constant[value=-1]()
  %0 : int = prim::Constant[value=0]()
  %1 : int = prim::Constant[value=1]()
  %2 : int = prim::Constant[value=2]()
  %3 : int = prim::Constant[value=3]()
  %5 : int = prim::Constant[value=5]()
  %6 : int = prim::Constant[value=6]()
  %7 : int = prim::Constant[value=7]()
  %half : float = prim::Constant[value=0.5]()
  %s15 : float = prim::Constant[value=1.5]()
  %s2 : float = prim::Constant[value=2.]()
  %long : int = prim::Constant[value=4]()
  %double : int = prim::Constant[value=7]()
  %d1 : int[] = prim::ListConstruct(%1)
  %d02 : int[] = prim::ListConstruct(%0, %m1)
)IR";

// graph(`args`) with kIrConsts, then `body` (IR lines), returning `outs` (like "%a, %y").
inline std::string ir(const std::string &args, const std::string &body,
                      const std::string &outs = "%y") {
  return "graph(" + args + "):" + kIrConsts + body + "\n  return (" + outs + ")";
}

// graph(%x) with the IR lines `consts` and one `call` producing %y.
inline std::string ir1(const std::string &call, const std::string &consts = "") {
  return "graph(%x : Tensor):\n" + consts + "  %y : Tensor = " + call + "\n  return (%y)";
}

// graph(%x, %z) with the IR lines `consts` and one `call` producing %y.
inline std::string ir2(const std::string &call, const std::string &consts = "") {
  return "graph(%x : Tensor, %z : Tensor):\n" + consts + "  %y : Tensor = " + call +
         "\n  return (%y)";
}

} // namespace t2o_test
