// Files the builder reads and writes besides the model: atomic writes (temporary file, fsync,
// rename) and ONNX TensorProto (.pb) test data.
#pragma once

#include "builder/types.h"

#include <functional>
#include <string>

namespace torch2onnx {
// Reads a serialized onnx::TensorProto (raw_data or the typed fields); throws Error naming the
// file when it is not one, keeps its data elsewhere, or its size does not match its shape.
TensorData load_tensor_proto(const std::string &path);
// Writes `bytes` to `path` atomically: a temporary file in the same folder, fsync, rename. An
// error never leaves a partial file behind.
void write_file_atomic(const std::string &path, const std::string &bytes);
// Same, with the contents written by `write(fd)`, which returns false on failure (errno set).
void write_file_atomic_with(const std::string &path, const std::function<bool(int fd)> &write);
// Writes all n bytes at p to fd, retrying partial writes and EINTR; false on failure (errno set).
bool write_all(int fd, const char *p, size_t n);
} // namespace torch2onnx
