// A "custom-op library" for tests/test_zoo.cpp that misbehaves as soon as torch2onnx loads it
// (--load-library), so the zoo's child-process isolation can be tested without a real bad model:
// built twice, as t2o_zoo_crash (SIGSEGV) and t2o_zoo_hang (sleeps forever, T2O_ZOO_HANG).
#include <signal.h>
#include <unistd.h>

__attribute__((constructor)) static void t2o_zoo_misbehave() {
#ifdef T2O_ZOO_HANG
  for (;;)
    pause();
#else
  raise(SIGSEGV);
#endif
}
