// Files torch2onnx reads and writes besides the model: atomic writes (temporary file, fsync,
// rename), ONNX TensorProto (.pb) test data, and the rules every file of the user's goes through
// (docs/security.md, "Files"): readers take regular files only and read at most what the file
// holds; no path written is a path read.
#pragma once

#include "builder/types.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace torch2onnx {

// Refuses a path that is not a regular file (after symbolic links): missing, a folder, a FIFO or
// a pipe (/dev/stdin from `cat x |`), a device (/dev/zero), a socket. A pipe would block or never
// end, a device never end. `role` names the file in the message, e.g. "--input-data file".
// Example: check_regular_file("m.pt", "model file");
void check_regular_file(const std::string &path, const std::string &role);
// Opens a regular file for reading (O_NONBLOCK, so a FIFO swapped in after the check cannot
// block) and returns its descriptor and size; throws Error as check_regular_file does.
int open_regular_file(const std::string &path, const std::string &role, uint64_t &size);
// The whole content of a regular file: at most its size at opening (a file growing meanwhile is
// not followed) and at most `max_bytes`. Throws Error naming the file.
std::string read_regular_file(const std::string &path, const std::string &role,
                              uint64_t max_bytes = uint64_t{1} << 40);
// Checks a shared library before dlopen: a regular file and, when it is an ELF file, one built
// for this machine (dlopen says "No such file or directory" for another architecture's).
void check_shared_library(const std::string &path, const std::string &role);

// One path an export reads or writes, with what it is for the messages ("the model", "--report").
// A folder that is written (a test_data_set_N that --verify replaces) conflicts with every path
// inside it.
struct PathUse {
  std::string path;
  std::string role;
  bool folder = false;
};
// The rule "no path written is a path read, and no two written paths are one": throws Error when
// a written path is a read path (by any spelling, symbolic or hard link), a read or written path
// lies inside a written folder, two written paths are one, or a written file's path is something
// other than a regular file now (a device such as /dev/null, a FIFO, a folder).
void check_path_conflicts(const std::vector<PathUse> &reads, const std::vector<PathUse> &writes);
// Reads a serialized onnx::TensorProto (raw_data or the typed fields); throws Error naming the
// file when it is not a regular file or not a TensorProto, gives a field twice, keeps its data
// elsewhere, has more than kMaxRank dims, or its size does not match its shape (computed without
// overflow). Bools are normalised to 0/1.
TensorData load_tensor_proto(const std::string &path);
// The number of the first field among `singular` (fields a protobuf message holds at most once)
// that the serialized message in `bytes` gives twice; 0 when none is, -1 when `bytes` is not
// protobuf wire format. Protobuf itself keeps the last of two silently; a file giving one twice
// was not written by a protobuf library.
int repeated_singular_field(const char *bytes, size_t size, const std::vector<int> &singular);
// The file a write to `path` goes to: `path`, or through symbolic links the file they name (a
// rename over a link would replace the link: over /dev/stdout, the system's). Throws Error when
// that is not a regular file or a path that does not exist yet, or the links loop.
std::string written_file(const std::string &path);
// Writes `bytes` to `path` atomically (through symbolic links: written_file): a temporary file in
// the same folder (".<up to 32 bytes of the name>.tmpXXXXXX", short enough for any legal name),
// fsync, rename. An error never leaves a partial file behind.
void write_file_atomic(const std::string &path, const std::string &bytes);
// Same, with the contents written by `write(fd)`, which returns false on failure (errno set).
void write_file_atomic_with(const std::string &path, const std::function<bool(int fd)> &write);
// Writes all n bytes at p to fd, retrying partial writes and EINTR; false on failure (errno set).
bool write_all(int fd, const char *p, size_t n);
// The same for the weights of an ONNX file: written in pieces, each advancing the progress display
// (builder/progress.h) by its bytes.
bool write_all_reporting(int fd, const char *p, size_t n);
} // namespace torch2onnx
