// The weight load (issue 25): the mapped load binds each storage to its own record, whatever the
// layout (models/make_weight_models.py), and gives what Python's torch.jit.load gives; the
// integrity check catches weights that change; --verify's reference does not share the export's
// tensors.
#include "exporter/frontend/torchscript/loader.h"
#include "exporter/verify/verify.h"
#include "harness.h"

#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <torch/script.h>
#include <torch/serialize.h>
#include <unistd.h>

using namespace t2o_test;
using namespace torch2onnx;
namespace fs = std::filesystem;

namespace {

std::string weight_model(const std::string &name) {
  return std::string(T2O_WEIGHT_MODELS) + "/" + name + ".pt";
}

c10::IValue read_pt(const std::string &path) {
  std::string bytes = file_bytes(path);
  REQUIRE(!bytes.empty());
  return torch::pickle_load(std::vector<char>(bytes.begin(), bytes.end()));
}

std::vector<c10::IValue> inputs_of(const std::string &name) {
  return read_pt(std::string(T2O_WEIGHT_MODELS) + "/" + name + ".inputs.pt")
      .toTupleRef()
      .elements()
      .vec();
}

std::vector<at::Tensor> expected_of(const std::string &name) {
  std::vector<at::Tensor> out;
  const c10::IValue saved = read_pt(std::string(T2O_WEIGHT_MODELS) + "/" + name + ".expected.pt");
  for (const auto &v : saved.toTupleRef().elements())
    out.push_back(v.toTensor());
  return out;
}

void flatten(const c10::IValue &v, std::vector<at::Tensor> &out) {
  if (v.isTensor())
    out.push_back(v.toTensor().is_quantized() ? v.toTensor().dequantize() : v.toTensor());
  else if (v.isTuple())
    for (const auto &e : v.toTupleRef().elements())
      flatten(e, out);
  else if (v.isList())
    for (const auto &e : v.toListRef())
      flatten(e, out);
}

std::vector<at::Tensor> run_forward(torch::jit::Module &m, const std::vector<c10::IValue> &args) {
  at::NoGradGuard no_grad;
  std::vector<c10::IValue> fresh;
  for (const auto &a : args)
    fresh.push_back(a.isTensor() ? c10::IValue(a.toTensor().clone()) : a);
  std::vector<at::Tensor> out;
  flatten(m.forward(fresh), out);
  return out;
}

// max |a - b| <= rtol * max(1, max |b|), element for element, for each output.
void check_close(const std::vector<at::Tensor> &got, const std::vector<at::Tensor> &want,
                 double rtol) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("output " << i);
    REQUIRE(got[i].sizes() == want[i].sizes());
    at::Tensor a = got[i].to(at::kDouble), b = want[i].to(at::kDouble);
    double scale = std::max(1.0, b.abs().max().item<double>());
    double err = (a - b).abs().max().item<double>();
    INFO("max error " << err << " at scale " << scale);
    CHECK(err <= rtol * scale);
  }
}

LoadedModel load_with(const std::string &path, bool copy) {
  if (copy)
    ::setenv("TORCH2ONNX_LOAD", "copy", 1);
  LoadedModel m = load_model(path);
  ::unsetenv("TORCH2ONNX_LOAD");
  return m;
}

const std::vector<std::string> kLayouts = {"kv_decoder",         "identity_constant",
                                           "shared_storage",     "dtypes",
                                           "small_records",      "shared_storage_unaligned",
                                           "dtypes_unaligned",   "kv_decoder_unaligned",
                                           "quantized_resnet18", "dynamic_lstm"};

} // namespace

TEST_CASE("weight load: every layout gives Python's outputs with the mapped and the copying load",
          "[weights]") {
  for (const auto &name : kLayouts) {
    INFO(name);
    const auto args = inputs_of(name);
    const auto want = expected_of(name);
    LoadedModel mapped = load_with(weight_model(name), false);
    LoadedModel copied = load_with(weight_model(name), true);
    CHECK(copied.mapped_bytes == 0);
    // Every storage made from a record holds that record's bytes (a model run may change some:
    // the KV cache of kv_decoder is written by forward, so this comes first).
    if (mapped.recheck_weights)
      CHECK_NOTHROW(mapped.recheck_weights());
    // LibTorch on the mapped storages computes what Python computed from its own load.
    auto got = run_forward(mapped.module, args);
    check_close(got, want, 1e-6);
    // ... and the same bits as LibTorch's own load.
    auto again = run_forward(copied.module, args);
    REQUIRE(got.size() == again.size());
    for (size_t i = 0; i < got.size(); ++i)
      CHECK(at::equal(got[i], again[i]));
  }
}

TEST_CASE("weight load: large records are the file's pages, in place and unaligned", "[weights]") {
  for (const auto &name : {"shared_storage", "shared_storage_unaligned", "kv_decoder"}) {
    INFO(name);
    LoadedModel m = load_with(weight_model(name), false);
    CHECK(m.mapped_bytes > 0);
  }
}

TEST_CASE("weight load: the exported file computes Python's outputs, and both loads write the "
          "same bytes",
          "[weights]") {
  const std::string dir = fresh_dir("weight_load_export");
  for (const std::string name : {"kv_decoder", "identity_constant", "shared_storage", "dtypes",
                                 "small_records", "shared_storage_unaligned", "dtypes_unaligned",
                                 "kv_decoder_unaligned", "running_stats_norm"}) {
    INFO(name);
    const std::string inputs = std::string(T2O_WEIGHT_MODELS) + "/" + name + ".inputs.pt";
    const std::string mapped = dir + "/" + name + ".onnx", copied = dir + "/" + name + "_copy.onnx";
    auto r = run_cli({weight_model(name), "--input-data", inputs, "-o", mapped, "--verify"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    ::setenv("TORCH2ONNX_LOAD", "copy", 1);
    auto c = run_cli({weight_model(name), "--input-data", inputs, "-o", copied});
    ::unsetenv("TORCH2ONNX_LOAD");
    REQUIRE(c.exit_code == 0);
    CHECK(file_bytes(mapped) == file_bytes(copied));
    // ONNX Runtime against Python's outputs (the tensor arguments are the ONNX inputs).
    std::vector<at::Tensor> tensors;
    for (const auto &a : inputs_of(name))
      if (a.isTensor())
        tensors.push_back(a.toTensor());
    auto ort = run_onnxruntime(mapped, onnx_input_names(mapped), tensors);
    check_close(ort, expected_of(name), 1e-4);
  }
}

TEST_CASE("weight load: a weight changed on disk after the load is caught before writing",
          "[weights]") {
  const std::string dir = fresh_dir("weight_load_changed");
  const std::string path = dir + "/model.pt";
  fs::copy_file(weight_model("shared_storage"), path);
  LoadedModel m = load_with(path, false);
  REQUIRE(m.recheck_weights);
  CHECK_NOTHROW(m.recheck_weights());
  // Overwrite the file in place (same inode: the mapped pages see it), as a second program
  // saving over the model during the export would.
  const std::string bytes = file_bytes(path);
  const size_t at = bytes.find("data/0");
  REQUIRE(at != std::string::npos);
  {
    int fd = ::open(path.c_str(), O_WRONLY);
    REQUIRE(fd >= 0);
    const std::string zeros(bytes.size() / 2, '\0');
    REQUIRE(::pwrite(fd, zeros.data(), zeros.size(), static_cast<off_t>(bytes.size() / 4)) ==
            static_cast<ssize_t>(zeros.size()));
    ::close(fd);
  }
  CHECK_THROWS_WITH(m.recheck_weights(),
                    Catch::Contains("no longer equal") && Catch::Contains("nothing was written"));
}

TEST_CASE("weight load: --verify does not share the export's tensors", "[weights]") {
  // The test hook replaces every parameter by itself + 1 after the load, as a bug in the fast
  // path would, in memory the integrity check does not watch: the file written is wrong, and only
  // a reference that loads the model itself can tell.
  const std::string dir = fresh_dir("weight_load_damaged");
  const std::string inputs = std::string(T2O_WEIGHT_MODELS) + "/small_records.inputs.pt";
  auto ok = run_cli(
      {weight_model("small_records"), "--input-data", inputs, "-o", dir + "/ok.onnx", "--verify"});
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  ::setenv("TORCH2ONNX_TEST_DAMAGE_WEIGHTS", "1", 1);
  auto bad = run_cli(
      {weight_model("small_records"), "--input-data", inputs, "-o", dir + "/bad.onnx", "--verify"});
  ::unsetenv("TORCH2ONNX_TEST_DAMAGE_WEIGHTS");
  INFO(bad.out + bad.err);
  CHECK(bad.exit_code == 1);
  CHECK(contains(bad.out + bad.err, "FAIL"));
}

TEST_CASE("weight load: tensors the records cannot back are refused before LibTorch reads them",
          "[weights]") {
  const std::string dir = fresh_dir("weight_load_crafted");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"past_storage", "reaches past the storage's 576 elements"},
      {"short_record", "claims 576 elements of 4 bytes (FloatStorage), but its record holds 1152"}};
  for (const auto &[name, why] : cases)
    for (bool copy : {false, true}) {
      INFO(name << (copy ? " (copying load)" : " (mapped load)"));
      const std::string out = dir + "/" + name + ".onnx";
      if (copy)
        ::setenv("TORCH2ONNX_LOAD", "copy", 1);
      auto r = run_cli({weight_model(name), "--input", "x:f32[3,24]", "-o", out});
      ::unsetenv("TORCH2ONNX_LOAD");
      INFO(r.err);
      CHECK(r.exit_code == 1);
      CHECK(contains(r.err, why));
      CHECK(contains(r.err, "is corrupt"));
      CHECK_FALSE(fs::exists(out));
    }
}
