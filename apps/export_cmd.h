// The export command: `torch2onnx MODEL.pt [-o OUT.onnx] [--input SPEC]... [--verify]`.
#pragma once

namespace torch2onnx {

// Parses the command line, exports, prints the summary or one clear error, writes --report.
// Exit status: 0 success, 1 export or verification failed, 2 bad command line.
int run_export(int argc, char **argv);

} // namespace torch2onnx
