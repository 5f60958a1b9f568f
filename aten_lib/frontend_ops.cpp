// The ops the graph front end handles itself rather than through a converter: prim:: nodes,
// list, tuple and dict ops, control flow (the TorchScript walker's handler table,
// exporter/frontend/walker_prim.cpp). Registered with the ONNX ops they may emit so that
// `torch2onnx ops` and docs/operators.md list every op torch2onnx takes; test_walker_registry
// checks that this list and the walker's table name the same ops.
#include "aten_lib/converter.h"

namespace torch2onnx {

void register_frontend_ops(Registry &r) {
  // Values: constants, containers of known length, casts that change only the TorchScript type.
  r.add_frontend("prim::Constant", {});
  r.add_frontend("prim::ListConstruct", {});
  r.add_frontend("prim::TupleConstruct", {});
  r.add_frontend("prim::DictConstruct", {});
  r.add_frontend("prim::ListUnpack", {"SequenceAt"});
  r.add_frontend("prim::TupleUnpack", {});
  r.add_frontend("prim::TupleIndex", {});
  r.add_frontend("prim::NumToTensor", {});
  r.add_frontend("prim::unchecked_cast", {});
  r.add_frontend("prim::Uninitialized", {});
  r.add_frontend("aten::detach", {});
  // Refused with a hint: a module attribute left after freezing.
  r.add_frontend("prim::GetAttr", {});
  // Checks: the exception (or warning) is dropped, the model is assumed to get valid inputs.
  r.add_frontend("prim::RaiseException", {});
  r.add_frontend("aten::warn", {});
  // Lists: of known length at export time, or built at run time (ONNX sequences).
  r.add_frontend("aten::__getitem__", {"SequenceAt"});
  r.add_frontend("aten::len", {"SequenceLength"});
  r.add_frontend("aten::append", {"SequenceInsert"});
  r.add_frontend("aten::list", {});
  r.add_frontend("aten::__is__", {});
  r.add_frontend("aten::__isnot__", {});
  // tensor.tolist() of a 1-d tensor: runtime ints (Gather), or a sequence when its length follows
  // the data.
  r.add_frontend("prim::tolist", {"Gather", "SplitToSequence"});
  // In-place list edits: bookkeeping on lists of known length, sequence ops on runtime lists.
  r.add_frontend("aten::insert", {"SequenceInsert"});
  r.add_frontend("aten::_set_item", {"SequenceErase", "SequenceInsert"});
  r.add_frontend("aten::pop", {"SequenceAt", "SequenceErase"});
  r.add_frontend("aten::Delete", {"SequenceErase"});
  // list += list (also list + list, walked before the tensor converters of aten::add / add_).
  r.add_frontend("aten::extend", {"SequenceInsert"});
  // Control flow: a constant condition picks a branch; otherwise ONNX If / Loop (or unrolled).
  r.add_frontend("prim::If", {"If"});
  r.add_frontend("prim::Loop", {"Loop", "SequenceEmpty", "SequenceConstruct"});
}

} // namespace torch2onnx
