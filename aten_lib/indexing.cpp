// indexing family converters.
#include "aten_lib/converter.h"
#include "aten_lib/helpers.h"

namespace torch2onnx {

void register_indexing_ops(Registry& r) { (void)r; }

}  // namespace torch2onnx
