// libFuzzer target: loading a model file from arbitrary bytes (load_model: file checks,
// torch::jit::load, freeze, graph preparation). Any Error is fine; a crash, a hang or another
// exception type is a finding. Seeds: small TorchScript files (see tests/fuzz/run_fuzzers.sh).
#include "exporter/frontend/torchscript/loader.h"
#include "fuzz/fuzz_targets.h"

#include <exception>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string p = t2o_fuzz::write_temp(data, size, ".pt");
  try {
    torch2onnx::LoadedModel m = torch2onnx::load_model(p);
  } catch (const torch2onnx::Error &) {
  } catch (const std::exception &e) {
    t2o_fuzz::fail(std::string("load_model threw a non-Error exception: ") + e.what());
  }
  std::remove(p.c_str());
  return 0;
}
