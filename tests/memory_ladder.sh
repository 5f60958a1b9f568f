#!/usr/bin/env bash
# The memory-limit ladder (issue 25): under every address-space limit (ulimit -v) from 0.5 to
# 4 GB in 0.5 GB steps, `torch2onnx --version` and an export with --verify end within seconds,
# with exit 0, or with exit 1 and the out-of-memory message. Never a hang, a signal, an abort.
#   memory_ladder.sh CLI MODEL.pt OUTDIR
set -u
cli=$1 model=$2 out=$3
mkdir -p "$out"
fail=0
for half_gb in 1 2 3 4 5 6 7 8; do
  kb=$((half_gb * 524288))
  for what in version export; do
    if [ "$what" = version ]; then
      cmd=("$cli" --version)
    else
      cmd=("$cli" "$model" -o "$out/ladder_$half_gb.onnx" --input "x:f32[1,3,224,224]" --verify)
    fi
    start=$(date +%s)
    (ulimit -v "$kb"; exec timeout -s KILL 120 "${cmd[@]}") >"$out/ladder.out" 2>"$out/ladder.err"
    rc=$?
    secs=$(($(date +%s) - start))
    verdict=ok
    if [ "$rc" -ne 0 ] && ! { [ "$rc" -eq 1 ] && grep -q "out of memory" "$out/ladder.err"; }; then
      verdict=FAIL
      fail=1
    fi
    echo "ulimit -v $kb ($((kb / 1024)) MB) $what: exit $rc in ${secs}s: $verdict"
    [ "$verdict" = ok ] || sed 's/^/    /' "$out/ladder.err" | head -5
  done
done
exit $fail
