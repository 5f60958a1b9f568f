// libFuzzer target: the `torch2onnx zoo` YAML manifest parser (apps/zoo_manifest.cpp, yaml-cpp).
// Any Error is fine; a crash or another exception type is a finding.
#include "apps/zoo.h"
#include "fuzz/fuzz_targets.h"

#include <exception>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string p = t2o_fuzz::write_temp(data, size, ".yaml");
  try {
    auto m = torch2onnx::zoo::load_manifest(p, "/tmp", 0);
  } catch (const torch2onnx::Error &) {
  } catch (const std::exception &e) {
    t2o_fuzz::fail(std::string("load_manifest threw a non-Error exception: ") + e.what());
  }
  std::remove(p.c_str());
  return 0;
}
