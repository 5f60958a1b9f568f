#!/usr/bin/env bash
# Installs what torch2onnx needs on Debian bookworm: build dependencies, the Python fixtures'
# packages and the pinned ONNX Runtime (npm) used by --verify. Safe to run again: it installs
# only what is missing.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"

packages=(build-essential cmake libtorch-dev libonnx-dev libprotobuf-dev protobuf-compiler
          libcli11-dev libfmt-dev nlohmann-json3-dev catch2 libyaml-cpp-dev zlib1g-dev python3-torch python3-torchvision python3-yaml
          python3-torchaudio  # speech/audio real-world fixtures (models/realworld/audio_*.py)
          python3-numpy  # --input-data .npy fixtures (models/make_zoo.py)
          pybind11-dev python3-dev  # the Python module (python/_torch2onnx.cpp)
          python3-onnx  # bench/benchmark.py counts the nodes of both exporters' graphs
          clang-format  # scripts/check_format.sh, run by ctest (format:clang-format)
          libopenblas0-pthread)  # OpenBLAS: LibTorch runs the model ~2x faster than with reference BLAS
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)

if [ ${#missing[@]} -gt 0 ]; then
  echo "install_deps: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

ort="$here/third_party/onnxruntime"
if [ ! -f "$ort/node_modules/onnxruntime-node/package.json" ]; then
  echo "install_deps: installing the pinned onnxruntime-node into $ort"
  # --ignore-scripts: the package ships its CPU runtime; its install script only tries a download.
  (cd "$ort" && npm ci --ignore-scripts --no-audit --no-fund)
fi
echo "install_deps: all dependencies present"
