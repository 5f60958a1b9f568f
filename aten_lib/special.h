// Shared by the special-function families (aten_lib/special.cpp, aten_lib/bessel.cpp): terse
// elementwise arithmetic in one compute dtype, and the functions more than one op needs.
#pragma once

#include "aten_lib/converter.h"

#include <string_view>
#include <vector>

namespace torch2onnx {

// Elementwise ops on values of dtype `t` (recorded, so cast_to can skip casts).
// Example: Fx f{c.b, DType::Double}; Val y = f.add(f.mul(x, x), f.c(1));  // x^2 + 1
struct Fx {
  GraphBuilder &b;
  DType t;
  Val c(double v) const; // a 0-d constant
  Val op(const char *type, const std::vector<Val> &ins) const;
  Val pred(const char *type, const std::vector<Val> &ins) const; // a bool result
  Val where(const Val &cond, const Val &x, const Val &y) const;
  Val add(const Val &x, const Val &y) const { return op("Add", {x, y}); }
  Val sub(const Val &x, const Val &y) const { return op("Sub", {x, y}); }
  Val mul(const Val &x, const Val &y) const { return op("Mul", {x, y}); }
  Val div(const Val &x, const Val &y) const { return op("Div", {x, y}); }
  // cos(x) as sin(x + pi/2): ONNX Runtime has no double Cos (nor Tan) kernel.
  Val cos(const Val &x) const;
  // coefs[0] + coefs[1] x + coefs[2] x^2 + ... (Horner).
  Val horner(const Val &x, const std::vector<double> &coefs) const;
};

// The dtype special functions compute in: double (results are cast to the output dtype).
Fx compute_fx(ConvertCtx &c);
// Argument `name` (a tensor or a number) in f's dtype.
Val input_as(ConvertCtx &c, const Fx &f, std::string_view name);
// The name of a unary op's input: "self" or "x" (the torch.special schemas use both).
std::string_view unary_input(const ConvertCtx &c);

Val lgamma_of(const Fx &f, const Val &x);
Val digamma_of(const Fx &f, const Val &x);
Val zeta_of(const Fx &f, const Val &s, const Val &q);
Val ndtr_of(const Fx &f, const Val &x);
Val log_ndtr_of(const Fx &f, const Val &x);

} // namespace torch2onnx
