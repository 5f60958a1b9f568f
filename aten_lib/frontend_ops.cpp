// The ops the graph front end handles itself rather than through a converter: prim:: nodes,
// list, tuple and dict ops, control flow. This is the one list of them: each names the walker
// handler that takes it (FrontendHandler; the TorchScript walker binds each handler to a method
// in exporter/frontend/torchscript/walker_prim.cpp and dispatches by these entries) and the ONNX
// ops it may emit, so `torch2onnx ops` and docs/operators.md list every op torch2onnx takes.
#include "aten_lib/converter.h"

namespace torch2onnx {

void register_frontend_ops(Registry &r) {
  // Values: constants, containers of known length, casts that change only the TorchScript type.
  // A constant that is a weight with its dims reordered (w.t() folded) is written as the weight
  // and a Transpose, so the weight is stored once.
  r.add_frontend("prim::Constant", FrontendHandler::Constant, {"Transpose"});
  r.add_frontend("prim::ListConstruct", FrontendHandler::Construct, {});
  r.add_frontend("prim::TupleConstruct", FrontendHandler::Construct, {});
  r.add_frontend("prim::DictConstruct", FrontendHandler::Dict, {});
  r.add_frontend("prim::ListUnpack", FrontendHandler::Unpack, {"SequenceAt"});
  r.add_frontend("prim::TupleUnpack", FrontendHandler::Unpack, {});
  r.add_frontend("prim::TupleIndex", FrontendHandler::GetItem, {});
  r.add_frontend("prim::NumToTensor", FrontendHandler::NumToTensor, {});
  r.add_frontend("prim::unchecked_cast", FrontendHandler::SameValue, {});
  r.add_frontend("prim::Uninitialized", FrontendHandler::Uninitialized, {});
  r.add_frontend("aten::detach", FrontendHandler::SameValue, {});
  // Refused with a hint: a module attribute left after freezing.
  r.add_frontend("prim::GetAttr", FrontendHandler::GetAttr, {});
  // Checks: the exception (or warning) is dropped, the model is assumed to get valid inputs.
  r.add_frontend("prim::RaiseException", FrontendHandler::Dropped, {});
  r.add_frontend("aten::warn", FrontendHandler::Dropped, {});
  // Lists: of known length at export time, or built at run time (ONNX sequences).
  r.add_frontend("aten::__getitem__", FrontendHandler::GetItem, {"SequenceAt"});
  r.add_frontend("aten::len", FrontendHandler::Len, {"SequenceLength", "Shape", "Gather"});
  r.add_frontend("aten::append", FrontendHandler::Append, {"SequenceInsert"});
  r.add_frontend("aten::list", FrontendHandler::ListCopy, {});
  r.add_frontend("aten::__is__", FrontendHandler::IsNone, {});
  r.add_frontend("aten::__isnot__", FrontendHandler::IsNone, {});
  // tensor.tolist() of a 1-d tensor: runtime ints (Gather), or a sequence when its length follows
  // the data.
  r.add_frontend("prim::tolist", FrontendHandler::ToList, {"Gather", "SplitToSequence"});
  // In-place list edits: bookkeeping on lists of known length, sequence ops on runtime lists.
  r.add_frontend("aten::insert", FrontendHandler::ListMutation, {"SequenceInsert"});
  r.add_frontend("aten::_set_item", FrontendHandler::ListMutation,
                 {"SequenceErase", "SequenceInsert", "Add", "Less", "SequenceLength", "Where"});
  r.add_frontend("aten::pop", FrontendHandler::ListMutation, {"SequenceAt", "SequenceErase"});
  r.add_frontend("aten::Delete", FrontendHandler::ListMutation, {"SequenceErase"});
  r.add_frontend("aten::reverse", FrontendHandler::ListMutation, {}); // xs.reverse(), xs.clear()
  r.add_frontend("aten::clear", FrontendHandler::ListMutation, {});
  // list += list (also list + list, walked before the tensor converters of aten::add / add_).
  r.add_frontend("aten::extend", FrontendHandler::ListConcat, {"SequenceInsert"});
  // Dicts of keys known at export time (their values may be runtime tensors): d.keys(),
  // d.values(), d.items(), d.get(k[, default]), `k in d` (the key a constant).
  for (const char *op : {"aten::keys", "aten::values", "aten::items", "aten::get"})
    r.add_frontend(op, FrontendHandler::DictMethod, {});
  r.add_frontend("aten::__contains__", FrontendHandler::DictMethod, {});
  // isinstance(x, T) on a value whose type the walk knows (a tensor, a list, None, a number).
  r.add_frontend("prim::isinstance", FrontendHandler::IsInstance, {});
  // Control flow: a constant condition picks a branch; otherwise ONNX If / Loop (or unrolled).
  r.add_frontend("prim::If", FrontendHandler::If, {"If"});
  r.add_frontend("prim::Loop", FrontendHandler::Loop,
                 {"Loop", "SequenceEmpty", "SequenceConstruct"});
}

} // namespace torch2onnx
