// Where --verify's ONNX Runtime runner is, and its version (verify.cpp). Free of LibTorch headers,
// for the command line's zoo mode, which records the version with its results.
#pragma once

#include <string>

namespace torch2onnx {

// Where the ONNX Runtime runner lives (folder with run_model.js and node_modules/); throws Error
// with install instructions when it is missing.
std::string find_ort_runner();

// The version of the onnxruntime-node package the runner uses, e.g. "1.20.1" ("" when unknown).
std::string onnxruntime_version();

// True when the code runs from the build tree (the CLI, a test, the Python module under
// T2O_BINARY_DIR): only then may --verify fall back to the source and build trees' runner and
// reference program. An installed or unpacked copy uses its own layout, or says what is missing.
bool running_from_build_tree();

} // namespace torch2onnx
