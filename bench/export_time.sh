#!/usr/bin/env bash
# Whole-process export wall time: torch2onnx vs torch.onnx.export on the same TorchScript file,
# interleaved, median of N runs each. Example:
#   bench/export_time.sh build/torch2onnx ~/.cache/torch2onnx/models/resnet50.pt 1,3,224,224 5
set -euo pipefail
cli=$1 model=$2 shape=$3 runs=${4:-5}
here="$(cd "$(dirname "$0")" && pwd)"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
ours=() peer=()
for _ in $(seq "$runs"); do
  s=$(date +%s.%N); "$cli" "$model" -o "$out/ours.onnx" --input "x:f32[$shape]" -q; e=$(date +%s.%N)
  ours+=("$(echo "$e - $s" | bc)")
  s=$(date +%s.%N); /usr/bin/python3 "$here/peer_export.py" "$model" "$out/peer.onnx" "$shape" 2>/dev/null; e=$(date +%s.%N)
  peer+=("$(echo "$e - $s" | bc)")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
mo=$(median "${ours[@]}"); mp=$(median "${peer[@]}")
echo "model: $model ($runs runs each, interleaved)"
echo "torch2onnx        median $(printf %.2f "$mo") s  runs: ${ours[*]}"
echo "torch.onnx.export median $(printf %.2f "$mp") s  runs: ${peer[*]}"
echo "speedup (peer / ours): $(echo "scale=2; $mp / $mo" | bc)x"
