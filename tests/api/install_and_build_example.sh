#!/usr/bin/env bash
# ctest example:cpp_api: installs the build into a fresh prefix (cmake --install), builds
# examples/cpp_api against it with find_package(torch2onnx), and runs it on a model: the export
# and its verification in ONNX Runtime must pass. Also checks the installed layout.
#   install_and_build_example.sh BUILD_DIR WORK_DIR MODEL.pt
set -euo pipefail
build=$1 work=$2 model=$3
src=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
for f in bin/torch2onnx include/torch2onnx/torch2onnx.h include/torch2onnx/error.h \
         lib/cmake/torch2onnx/torch2onnxConfig.cmake lib/cmake/torch2onnx/torch2onnxTargets.cmake \
         share/torch2onnx/onnxruntime/run_model.js; do
  [ -e "$work/prefix/$f" ] || { echo "not installed: $f"; exit 1; }
done
ls "$work/prefix"/lib/libtorch2onnx.so* >/dev/null
ls "$work/prefix"/lib/python3/dist-packages/torch2onnx/__init__.py >/dev/null
cmake -S "$src/examples/cpp_api" -B "$work/example" -DCMAKE_PREFIX_PATH="$work/prefix" \
      -DCMAKE_BUILD_TYPE=Release >"$work/configure.log"
cmake --build "$work/example" -j 2 >"$work/build.log"
# The installed program finds ONNX Runtime under PREFIX/share (not the source tree).
"$work/example/export_model" "$model" "$work/model.onnx"
