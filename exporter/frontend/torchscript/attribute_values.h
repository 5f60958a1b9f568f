// Module attributes that forward assigns (prim::SetAttr) as values within one call. Hugging
// Face's rotary embeddings grow their cos/sin cache in forward (`if seq_len >
// self.max_seq_len_cached: self._set_cos_sin_cache(seq_len)`), and a scripted model keeps that as
// SetAttr in a branch. An ONNX graph has no state that survives a call, but within the call the
// assignment is just a new value: each read after it takes that value, an assignment in a branch
// or loop body makes the attribute an If output or a loop-carried value, and every call starts
// from the saved attribute, as a freshly loaded module's first call does.
#pragma once

#include <string>
#include <torch/csrc/jit/ir/ir.h>
#include <vector>

namespace torch2onnx {

// Rewrites the inlined forward graph (input 0 is self) so that no prim::SetAttr remains: each
// prim::GetAttr of an attribute assigned earlier on its path reads the assigned value, If and Loop
// nodes carry attributes assigned inside them, and reads before any assignment stay GetAttr (of
// the saved value). Returns the attributes assigned ("rot.cos_cached"), sorted; empty when forward
// assigns none (the graph is unchanged).
std::vector<std::string> attributes_to_values(torch::jit::Graph &graph);

} // namespace torch2onnx
