#pragma once
// A pre-check of the pickle records in a TorchScript archive (data.pkl, constants.pkl,
// code/*.debug_pkl). LibTorch 1.13's unpickler allocates a string or bytes object of the length an
// opcode states before it reads it, so four damaged bytes make it ask for up to 4 GB (found by
// tests/fuzz). This walks the opcodes and rejects a stated length longer than what is left.
#include <cstddef>
#include <string>

namespace torch2onnx {

// Empty when nothing is wrong or the walk cannot tell (an opcode it does not know: LibTorch
// judges those); otherwise what is wrong, e.g. "a string at byte 41 claims 4127195158 bytes but
// only 903 follow".
std::string pickle_length_problem(const unsigned char *data, size_t size);

} // namespace torch2onnx
