// The tensors a pickle record builds (a TorchScript file's data.pkl and constants.pkl, a
// torch.save'd file's data.pkl), read from its opcodes without running anything, checked against
// the storage records they point into. LibTorch 1.13 checks neither a storage's stated element
// count against its record's size nor a tensor's offset, sizes and strides against its storage:
// a crafted file makes tensors that read heap memory past the record (issue 25, 26).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace torch2onnx {

// What is wrong with the tensors of the pickle [data, data + size), e.g. "tensor of storage '3'
// has size [100,100] with stride [100,1] at offset 0: it needs 40000 bytes but its storage holds
// 4096"; empty when nothing is (or the walk cannot tell: LibTorch rejects what it cannot read).
// `record_size(key)` is the byte size of the storage record named `key` (nullopt: no such
// record, which LibTorch reports itself).
std::string pickle_tensor_problem(
    const unsigned char *data, size_t size,
    const std::function<std::optional<uint64_t>(const std::string &key)> &record_size);

} // namespace torch2onnx
