// torch2onnx-reference: --verify's LibTorch reference, in a process of its own (see
// exporter/frontend/torchscript/reference.h). Run by torch2onnx, not by users.
#include "exporter/frontend/torchscript/reference.h"

int main(int argc, char **argv) {
  return torch2onnx::reference_main(argc, argv);
}
