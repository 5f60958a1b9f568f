# Runtime options for the sanitized build (make test-asan; build-asan/, -DT2O_SANITIZE=ON).
# Source it from the repository root before running ctest or a sanitized binary by hand:
#   . tests/sanitizer/env.sh && ctest --test-dir build-asan -R '^test_cli:'
# ctest passes the environment on to the torch2onnx CLI the tests start, so the child runs with
# the same options.
#
# ASan:
#   detect_leaks=0         LibTorch (not instrumented) leaks at start-up and when it rejects some
#                          archives (tests/fuzz/regressions/README.md): not ours, and a report at
#                          exit would fail every test.
#   abort_on_error=1       a finding ends the process with SIGABRT, which ctest counts as failed.
#   allocator_may_return_null=1
#                          an allocation beyond ASan's limit fails like a normal one (std::bad_alloc)
#                          instead of a report: tests feed absurd sizes on purpose.
#   strict_string_checks=1, detect_stack_use_after_return=1, check_initialization_order=1
#                          stricter checks; they cost a little speed.
# UBSan (compiled with -fno-sanitize-recover=undefined: a finding aborts at once):
#   print_stacktrace=1     says where.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:allocator_may_return_null=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
