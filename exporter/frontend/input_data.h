// --input-data: example values for forward's arguments read from files, so models that need
// meaningful inputs (sorted lengths, token ids below the vocabulary size, masks, an image size)
// are recorded and verified on them.
#pragma once

#include <ATen/core/ivalue.h>
#include <optional>
#include <string>
#include <vector>

namespace torch2onnx {

// Reads a NumPy .npy file (little-endian bool, int8..int64, uint8, float16/32/64; C or Fortran
// order). Throws Error naming the file and what is wrong with it: not a regular file, a header
// that is not the strict dict literal np.save writes (a key twice, 'shape': (2.0, 4e0)), more
// than kMaxRank dims, a size that overflows or does not match the data.
at::Tensor read_npy(const std::string &path);
// The same from the file's bytes; `what` names it in errors.
at::Tensor parse_npy(const std::string &bytes, const std::string &what);

// Whether a tensor stays inside its storage: sizes and strides non-negative, at most kMaxRank
// dims, and offset + sum((size-1) * stride) elements, computed without overflow, within the
// storage's bytes. `why` says what is wrong otherwise. LibTorch's unpickler builds tensors from
// the sizes a file states without this check (reading heap memory past the storage).
bool tensor_in_storage(const at::Tensor &t, std::string &why);
// The checks every example value read from a file goes through: a dense CPU tensor inside its
// storage (tensor_in_storage), bools normalised to 0/1 in place. Returns `t`; throws Error naming
// `what` otherwise.
at::Tensor checked_input_tensor(const at::Tensor &t, const std::string &what);

// The arrays of a NumPy .npz archive (np.savez or np.savez_compressed), in archive order, named
// without ".npy".
std::vector<std::pair<std::string, at::Tensor>> read_npz(const std::string &path);

// The values of the --input-data files for forward's arguments `arg_names`, by position; an
// argument no file gives stays nullopt. Either one file per argument, in order (.npy, or an ONNX
// TensorProto .pb as --verify writes), or a single file for all of them: .npz (arrays named
// after the arguments, or arr_0, arr_1, ... in order) or a torch.save'd .pt holding a tensor (the
// first argument), a tuple or list (in order) or a dict (by argument name). In a .pt, an argument
// may be a tensor, a list or tuple of tensors, None, or a number. Throws Error on unreadable files,
// unknown names and more values than arguments.
std::vector<std::optional<c10::IValue>> load_input_data(const std::vector<std::string> &files,
                                                        const std::vector<std::string> &arg_names);

} // namespace torch2onnx
