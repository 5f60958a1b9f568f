#!/usr/bin/env bash
# Builds the libFuzzer targets with Debian's clang (in build-fuzz/) and runs each for a fixed time.
#
#   tests/fuzz/run_fuzzers.sh [SECONDS_PER_TARGET] [TARGET...]     (default: 60 s, every target)
#   make fuzz FUZZ_SECONDS=300
#
# Targets: input_spec (the --input SPEC parser), load_model (load_model on arbitrary bytes: file
# checks, torch::jit::load, freeze, graph preparation), manifest (`torch2onnx zoo`'s YAML manifest).
# Corpora grow in build-fuzz/corpus/<target>, seeded from tests/fuzz/seeds/<target> and, for
# load_model, the small TorchScript test fixtures. A crash, hang or leak is saved as
# build-fuzz/artifacts/<target>-crash-*: fix it, then keep the input as a regression case in
# tests/fuzz/regressions/<target>/ (test_reliability replays them in every normal build).
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(input_spec load_model manifest)
build="${FUZZ_BUILD:-$here/build-fuzz}"
cache="${CACHE:-$HOME/.cache/torch2onnx}"

cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
      -DT2O_FUZZ=ON -DT2O_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target $(printf 'fuzz_%s ' "${targets[@]}")

if [ ! -f "$cache/test_models/two_inputs.pt" ]; then
  /usr/bin/python3 "$here/models/make_test_models.py" --out "$cache/test_models" >/dev/null
fi
mkdir -p "$build/artifacts"
status=0
summary=()
for t in "${targets[@]}"; do
  corpus="$build/corpus/$t"
  mkdir -p "$corpus"
  [ -d "$here/tests/fuzz/seeds/$t" ] && cp -n "$here/tests/fuzz/seeds/$t"/* "$corpus"/ 2>/dev/null || true
  [ -d "$here/tests/fuzz/regressions/$t" ] && cp -n "$here/tests/fuzz/regressions/$t"/* "$corpus"/ 2>/dev/null || true
  extra=()
  case "$t" in
    load_model)
      for m in two_inputs tuple_out nan_weights custom_op int_out; do
        cp -n "$cache/test_models/$m.pt" "$corpus/" 2>/dev/null || true
      done
      # LibTorch 1.13 leaks a few hundred bytes when torch::jit::load rejects some archives
      # (in libtorch_cpu, not our code): leak reports would stop every run.
      # LibTorch can crash on inputs our checks miss (see tests/fuzz/regressions/README.md):
      # fork mode keeps fuzzing past them; each is saved as an artifact and reported below.
      extra=(-rss_limit_mb=4096 -timeout=30 -detect_leaks=0 -fork=1 -ignore_crashes=1) ;;
    manifest) cp -n "$here/models/zoo/ci.yaml" "$corpus/" 2>/dev/null || true; extra=(-timeout=10) ;;
    input_spec) extra=(-max_len=256 -timeout=5) ;;
  esac
  echo "fuzz_$t: ${seconds} s"
  log="$build/fuzz_$t.log"
  before=$(ls "$build/artifacts" | grep -c "^$t-" || true)
  # detect_leaks=0 in the environment too: fork mode does not pass -detect_leaks to its children.
  leaks=1
  [ "$t" != load_model ] || leaks=0
  start=$(date +%s)
  ASAN_OPTIONS="detect_leaks=$leaks" TMPDIR="${TMPDIR:-/tmp}" "$build/fuzz_$t" -max_total_time="$seconds" -print_final_stats=1 \
      -artifact_prefix="$build/artifacts/$t-" "${extra[@]}" "$corpus" >"$log" 2>&1 || true
  secs=$(( $(date +%s) - start ))
  after=$(ls "$build/artifacts" | grep -c "^$t-" || true)
  # Executions and speed: libFuzzer's final stats (normal mode; "#N DONE ... exec/s: R" is the
  # same), or the parent's last status line "#N: ... oom/timeout/crash: O/T/C ..." in fork mode,
  # whose exec/s is the last job's, so the overall rate is executions / wall time.
  last=$(grep -E "^#[0-9]+" "$log" | tail -1 || true)
  runs=$(grep -E "^stat::number_of_executed_units" "$log" | tail -1 | awk '{print $2}' || true)
  [ -n "$runs" ] || runs=$(echo "$last" | grep -oE "^#[0-9]+" | tr -d '#' || true)
  rate=$(grep -E "^stat::average_exec_per_sec" "$log" | tail -1 | awk '{print $2}' || true)
  [ -n "$rate" ] || [ -z "$runs" ] || rate=$(( runs / (secs > 0 ? secs : 1) ))  # fork mode: overall
  fork=$(echo "$last" | grep -oE "oom/timeout/crash: [0-9/]+" || true)
  corpus_files=$(ls "$corpus" | wc -l)
  echo "fuzz_$t: ${runs:-?} executions in ${secs} s (${rate:-?} exec/s), corpus ${corpus_files} files," \
       "$((after - before)) new findings${fork:+ (fork mode $fork)}"
  summary+=("fuzz_$t: ${runs:-?} executions, ${secs} s, ${rate:-?} exec/s, $((after - before)) new findings")
  if [ "$after" -gt "$before" ]; then
    status=1
    echo "  FOUND A PROBLEM: see $log and $build/artifacts/$t-*"
    grep -E "ERROR|SUMMARY|t2o_fuzz:" "$log" | head -10 | sed "s/^/    /"
  fi
done
echo "summary ($(date -u +%Y-%m-%d), ${seconds} s per target):"
printf '  %s\n' "${summary[@]}"
exit $status
