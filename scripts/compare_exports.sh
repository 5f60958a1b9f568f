#!/usr/bin/env bash
# Exports a list of models with two torch2onnx command lines and compares the files byte for byte:
# a refactor must not change any exported file (issue 27).
#
#   scripts/compare_exports.sh OLD_CLI NEW_CLI LIST [OUT_DIR]
#   e.g. /usr/bin/python3 scripts/compare_exports_list.py > /tmp/exports.list
#        scripts/compare_exports.sh ../main/build/torch2onnx build/torch2onnx /tmp/exports.list
#
# LIST: one model a line, MODEL.pt and its CLI arguments as shell words (~ expanded; blank lines
# and # comments skipped), as scripts/compare_exports_list.py writes them. Each is exported with
# both CLIs at every opset of $OPSETS (default "13 17") into OUT_DIR/old and OUT_DIR/new (default
# a fresh folder under /tmp) under the same file name, and the .onnx (and any .onnx.data) compared
# with cmp. An export failing with both CLIs alike (same exit status and message) counts as
# "failed in both"; failing with one only, or differently, as a difference.
# Exit 0 when no pair differs, 1 otherwise; the differing ones are listed.
set -u

if [ $# -lt 3 ]; then
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
OLD=$(realpath "$1")
NEW=$(realpath "$2")
LIST=$3
OUT=${4:-$(mktemp -d /tmp/compare_exports.XXXXXX)}
OPSETS=${OPSETS:-"13 17"}
TIMEOUT=${TIMEOUT:-1200}
mkdir -p "$OUT/old" "$OUT/new"

compared=0 identical=0 both_failed=0 differ=0
differences=()

# export CLI SIDE NAME ARGS...: writes OUT/SIDE/NAME.onnx, its stderr to OUT/SIDE/NAME.err and
# prints the exit status.
run_export() {
  local cli=$1 side=$2 name=$3
  shift 3
  timeout "$TIMEOUT" "$cli" "$@" -o "$OUT/$side/$name.onnx" -q >/dev/null 2>"$OUT/$side/$name.err"
  local rc=$?
  # Paths of the two sides' folders differ; nothing else in a message may.
  sed -i "s#$OUT/$side#OUT#g" "$OUT/$side/$name.err"
  echo $rc
}

same_files() {
  local name=$1 f
  for f in "$name.onnx" "$name.onnx.data"; do
    if [ -e "$OUT/old/$f" ] || [ -e "$OUT/new/$f" ]; then
      cmp -s "$OUT/old/$f" "$OUT/new/$f" || return 1
    fi
  done
}

while IFS= read -r line || [ -n "$line" ]; do
  case "$line" in '' | '#'*) continue ;; esac
  eval "set -- $line"
  model=$1
  shift
  base=$(basename "$(dirname "$model")")__$(basename "$model" .pt)
  for opset in $OPSETS; do
    name=$base.o$opset
    rc_old=$(run_export "$OLD" old "$name" "$model" "$@" --opset "$opset")
    rc_new=$(run_export "$NEW" new "$name" "$model" "$@" --opset "$opset")
    compared=$((compared + 1))
    if [ "$rc_old" = 0 ] && [ "$rc_new" = 0 ] && same_files "$name"; then
      identical=$((identical + 1))
      echo "same: $name"
      rm -f "$OUT"/{old,new}/"$name".onnx "$OUT"/{old,new}/"$name".onnx.data
    elif [ "$rc_old" != 0 ] && [ "$rc_old" = "$rc_new" ] &&
      cmp -s "$OUT/old/$name.err" "$OUT/new/$name.err"; then
      both_failed=$((both_failed + 1))
      echo "failed in both (exit $rc_old): $name: $(head -c 200 "$OUT/new/$name.err" | head -1)"
    else
      differ=$((differ + 1))
      differences+=("$name (exit old $rc_old, new $rc_new)")
      echo "DIFFERS: $name (exit old $rc_old, new $rc_new)"
    fi
  done
done <"$LIST"

echo "$compared exports compared (opsets $OPSETS): $identical byte-identical," \
  "$both_failed failed alike in both, $differ differ (files kept in $OUT)"
for d in "${differences[@]}"; do
  echo "  differs: $d"
done
[ "$differ" = 0 ]
