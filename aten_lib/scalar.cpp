// Tensor-to-number conversions (aten::Int, Float, Bool, ScalarImplicit, item). With static
// shapes the walker folds these; they reach a converter only when the value is computed at run
// time, where the "number" stays a 0-d tensor.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

namespace torch2onnx {

namespace {

// Python ints are int64 and floats are double in TorchScript.
Val to_number(ConvertCtx& c, DType t) {
  Val x = c.tensor(0);
  if (c.b.has_info(x) && c.b.rank(x) != 0) x = reshape(c.b, x, {});
  return cast_to(c.b, x, t);
}

}  // namespace

void aten_Int(ConvertCtx& c) { c.set_out(0, to_number(c, DType::Int64)); }
void aten_Float(ConvertCtx& c) { c.set_out(0, to_number(c, DType::Double)); }
void aten_Bool(ConvertCtx& c) { c.set_out(0, to_number(c, DType::Bool)); }

// ScalarImplicit / item keep the tensor's own dtype.
void aten_item(ConvertCtx& c) { c.set_out(0, to_number(c, c.b.dtype(c.tensor(0)))); }

void register_scalar_ops(Registry& r) {
  r.add("aten::Int", 13, aten_Int, {"Cast"});
  r.add("aten::IntImplicit", 13, aten_Int, {"Cast"});
  r.add("aten::Float", 13, aten_Float, {"Cast"});
  r.add("aten::FloatImplicit", 13, aten_Float, {"Cast"});
  r.add("aten::Bool", 13, aten_Bool, {"Cast"});
  r.add("aten::ScalarImplicit", 13, aten_item, {"Reshape"});
  r.add("aten::item", 13, aten_item, {"Reshape"});
}

}  // namespace torch2onnx
