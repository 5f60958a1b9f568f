#include "exporter/verify/expected.h"

#include "builder/error.h"
#include "exporter/core/tensor_util.h"
#include "exporter/frontend/input_data.h"
#include "exporter/verify/verify.h"

#include <ATen/ATen.h>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <torch/serialize.h>
#include <torch/version.h>

namespace torch2onnx {

namespace fs = std::filesystem;

namespace {

std::string lower_extension(const std::string &path) {
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return ext;
}

ExpectedOutputs from_torch_save(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    throw Error(fmt::format("cannot read --expected-outputs '{}'", path),
                "check that the file exists and is readable");
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  c10::IValue v;
  try {
    v = torch::pickle_load(bytes);
  } catch (const std::exception &e) {
    std::string why = first_error_line(e.what());
    // LibTorch 1.13's unpickler lacks APPEND and SETITEM, which Python uses for a list and a dict
    // of one element.
    bool one_list = why.find("Unknown opcode for unpickling at 0x61") != std::string::npos;
    if (one_list || why.find("Unknown opcode for unpickling at 0x73") != std::string::npos)
      throw Error(fmt::format("cannot read --expected-outputs '{}': LibTorch {}.{} cannot read a "
                              "torch.save'd {} with a single element",
                              path, TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR,
                              one_list ? "list" : "dict"),
                  "save a tuple (torch.save(tuple(outputs), path)) or the tensor itself, or an "
                  ".npz");
    throw Error(
        fmt::format("cannot read --expected-outputs '{}' as a torch.save file: {}", path, why),
        "save the outputs with torch.save(model(x), path), or as an .npz");
  }
  ExpectedOutputs out;
  out.file = path;
  try {
    out.tensors = flatten_tensors(v);
  } catch (const Error &e) {
    throw Error(fmt::format("--expected-outputs '{}': {}", path, e.what()),
                "save tensors: a tensor, or a tuple, list or dict of them");
  }
  // A flat dict names its outputs (a segmentation model's {"out": ..., "aux": ...}).
  if (v.isGenericDict()) {
    for (const auto &kv : v.toGenericDict())
      if (kv.key().isString() && kv.value().isTensor())
        out.names.push_back(kv.key().toStringRef());
    if (out.names.size() != out.tensors.size())
      out.names.clear();
  }
  return out;
}

// An .npz's arrays by ONNX output name, or arr_0, arr_1, ... in order (np.savez(path, *outs)).
ExpectedOutputs from_npz(const std::string &path) {
  ExpectedOutputs out;
  out.file = path;
  auto arrays = read_npz(path);
  static const std::regex positional("arr_([0-9]{1,5})");
  bool all_positional = true;
  for (const auto &a : arrays)
    all_positional = all_positional && std::regex_match(a.first, positional);
  if (all_positional)
    std::stable_sort(arrays.begin(), arrays.end(), [](const auto &a, const auto &b) {
      return std::stoi(a.first.substr(4)) < std::stoi(b.first.substr(4));
    });
  for (auto &[name, t] : arrays) {
    if (!all_positional)
      out.names.push_back(name);
    out.tensors.push_back(t);
  }
  return out;
}

// The expected tensors in the ONNX outputs' order: by name when the file names each output,
// else as the file orders them.
std::vector<at::Tensor> in_output_order(const ExpectedOutputs &e,
                                        const std::vector<std::string> &output_names) {
  if (e.names.empty())
    return e.tensors;
  std::vector<at::Tensor> ordered;
  for (const auto &n : output_names) {
    auto it = std::find(e.names.begin(), e.names.end(), n);
    if (it == e.names.end())
      return e.tensors; // names of another kind (renamed outputs): the file's order
    ordered.push_back(e.tensors[static_cast<size_t>(it - e.names.begin())]);
  }
  return ordered;
}

void replace_all(std::string &s, const std::string &from, const std::string &to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

// compare_outputs speaks of LibTorch's outputs; here they are the file's.
void name_the_reference(std::vector<OutputCheck> &checks) {
  for (auto &c : checks) {
    replace_all(c.problem, "LibTorch's output", "the expected output");
    replace_all(c.problem, "where LibTorch did not", "where the expected output did not");
    replace_all(c.problem, "LibTorch", "expected");
  }
}

} // namespace

ExpectedOutputs read_expected_outputs(const std::string &path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throw Error(fmt::format("--expected-outputs '{}' does not exist or is not a file", path));
  std::string ext = lower_extension(path);
  if (ext == ".pt" || ext == ".pth")
    return from_torch_save(path);
  if (ext == ".npz")
    return from_npz(path);
  if (ext == ".npy")
    return {path, {}, {read_npy(path)}};
  throw Error(fmt::format("--expected-outputs '{}': unknown file type '{}'", path, ext),
              "give a torch.save'd .pt (a tensor, tuple, list or dict), an .npz or an .npy");
}

ExpectedReport check_expected_outputs(const ExpectedOutputs &expected, const std::string &onnx_path,
                                      const std::vector<std::string> &input_names,
                                      const std::vector<at::Tensor> &inputs,
                                      const std::vector<std::string> &output_names, double rtol,
                                      double atol,
                                      const std::vector<at::Tensor> *onnxruntime_outputs,
                                      const std::vector<double> &steps) {
  auto t0 = std::chrono::steady_clock::now();
  ExpectedReport r;
  r.file = expected.file;
  std::vector<at::Tensor> want = in_output_order(expected, output_names);
  std::vector<at::Tensor> got =
      onnxruntime_outputs ? *onnxruntime_outputs : run_onnxruntime(onnx_path, input_names, inputs);
  r.outputs = compare_outputs(output_names, want, got, rtol, atol, steps);
  name_the_reference(r.outputs);
  if (want.size() != got.size()) {
    OutputCheck count;
    count.name = "(outputs)";
    count.problem = fmt::format("'{}' holds {} output{}, ONNX Runtime returned {}", expected.file,
                                want.size(), want.size() == 1 ? "" : "s", got.size());
    r.outputs.push_back(count);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

} // namespace torch2onnx
