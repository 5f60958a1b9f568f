#!/usr/bin/env bash
# ctest example:plugin: installs the build into a fresh prefix, builds examples/plugin against it
# (a custom op library for LibTorch and its converter plugin, through find_package(torch2onnx)),
# makes the example model with /usr/bin/python3, and runs the installed CLI: `ops` lists the
# plugin's op with its path; without the plugin the export fails naming the op; with it the model
# exports and verifies in ONNX Runtime; and a zoo manifest with `converters:` passes.
#   build_plugin_example.sh BUILD_DIR WORK_DIR
set -euo pipefail
build=$1 work=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
for f in include/torch2onnx/plugin.h include/torch2onnx/version.h \
         include/torch2onnx/converter/aten_lib/converter.h \
         include/torch2onnx/converter/builder/graph_builder.h; do
  [ -e "$work/prefix/$f" ] || { echo "not installed: $f"; exit 1; }
done
cmake -S "$src/examples/plugin" -B "$work/example" -DCMAKE_PREFIX_PATH="$work/prefix" \
      -DCMAKE_BUILD_TYPE=Release >"$work/configure.log"
cmake --build "$work/example" -j 2 >"$work/build.log"
ops_lib=$work/example/libmylib_ops.so
plugin=$work/example/libmylib_converters.so
/usr/bin/python3 "$src/examples/plugin/make_model.py" "$ops_lib" "$work/model.pt"
t2o=$work/prefix/bin/torch2onnx

"$t2o" ops --converters "$plugin" >"$work/ops.txt"
grep -E "^mylib::scaled_swish +11  mylib +Mul, Sigmoid  \[plugin $plugin\]$" "$work/ops.txt" ||
  { echo "torch2onnx ops does not list the plugin's op:"; tail -3 "$work/ops.txt"; exit 1; }

if "$t2o" "$work/model.pt" --load-library "$ops_lib" --input x:f32[2,8] -o "$work/none.onnx" \
     2>"$work/none.err"; then
  echo "exported a custom op without its converter"; exit 1
fi
grep -q "mylib::scaled_swish (1 use)" "$work/none.err" || { cat "$work/none.err"; exit 1; }

"$t2o" "$work/model.pt" --load-library "$ops_lib" --converters "$plugin" \
       --input x:f32[batch=2,8] -o "$work/model.onnx" --verify --report "$work/report.json"
grep -q "\"converters\": \[" "$work/report.json"

cat >"$work/zoo.yaml" <<YAML
model_dir: $work
defaults:
  load_library: [$ops_lib]
  converters: [example/libmylib_converters.so]
models:
  - name: swish_block
    model: model.pt
    inputs: "x:f32[batch=3,8]"
YAML
"$t2o" zoo "$work/zoo.yaml" --out "$work/zoo" --jobs 1 >"$work/zoo.log" ||
  { cat "$work/zoo.log"; exit 1; }
echo "example:plugin ok"
