// libFuzzer target: the --input SPEC parser. See tests/fuzz/run_fuzzers.sh.
#include "fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  t2o_fuzz::fuzz_input_spec(data, size);
  return 0;
}
