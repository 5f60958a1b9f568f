#!/usr/bin/env bash
# ctest package:deb: builds the Debian package (cpack, as `make package` does), checks its control
# fields and contents, unpacks it into a temporary folder outside the build tree (dpkg-deb -x) and
# runs the unpacked CLI from there: --version, and an export with --verify. Then checks that the
# unpacked launcher, the reference program and the ONNX Runtime runner are the ones it uses (with
# each moved away in turn, the command fails saying so), that every shared library the packaged
# binaries need comes from a package its Depends names, and that the Python module and the CMake
# package work from the unpacked tree.
#   test_package.sh BUILD_DIR WORK_DIR MODEL.pt INPUT_SPEC
set -euo pipefail
build=$1 work=$2 model=$3 spec=$4
src=$(cd "$(dirname "$0")/../.." && pwd)
fail() {
  echo "package:deb: FAIL: $*" >&2
  exit 1
}
rm -rf "$work"
mkdir -p "$work"
# Never a fallback from the environment: the unpacked tree must find its own files.
unset TORCH2ONNX_ORT_DIR TORCH2ONNX_REFERENCE

cmake --build "$build" --target t2o_installed >"$work/build.log" 2>&1 ||
  fail "building the installed targets failed (see $work/build.log)"
(cd "$build" && cpack -G DEB -B "$work/cpack") >"$work/cpack.log" 2>&1 ||
  fail "cpack failed (see $work/cpack.log)"
debs=("$work"/cpack/torch2onnx_*.deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || fail "expected one torch2onnx_*.deb in $work/cpack"
deb=${debs[0]}
echo "package: $deb ($(du -h "$deb" | cut -f1))"

# Control fields.
[ "$(dpkg-deb -f "$deb" Package)" = torch2onnx ] || fail "Package is not torch2onnx"
[ "$(dpkg-deb -f "$deb" Architecture)" = "$(dpkg --print-architecture)" ] ||
  fail "Architecture is not $(dpkg --print-architecture)"
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for p in libtorch1.13 libprotobuf32 libonnx1 libfmt9 libyaml-cpp0.7 nodejs python3; do
  grep -qE "(^|, )$p( |,|$)" <<<"$depends" || fail "Depends does not name $p"
done
dep_names=$(tr ',' '\n' <<<"$depends" | sed 's/^ *//; s/ .*//' | sort -u)

# Contents: the layout the launcher and --verify look up, and no other platform's ONNX Runtime.
dpkg-deb -c "$deb" | awk '{print $6}' >"$work/contents.txt"
for f in ./usr/bin/torch2onnx ./usr/lib/torch2onnx/libtorch2onnx-cli.so \
         ./usr/libexec/torch2onnx/torch2onnx-reference \
         ./usr/share/torch2onnx/onnxruntime/run_model.js \
         ./usr/share/torch2onnx/onnxruntime/node_modules/onnxruntime-node/package.json \
         ./usr/include/torch2onnx/torch2onnx.h ./usr/include/torch2onnx/plugin.h \
         ./usr/lib/cmake/torch2onnx/torch2onnxConfig.cmake \
         ./usr/lib/python3/dist-packages/torch2onnx/__init__.py; do
  grep -qxF "$f" "$work/contents.txt" || fail "the package has no $f"
done
grep -qE '^\./usr/lib/libtorch2onnx\.so' "$work/contents.txt" || fail "no libtorch2onnx.so"
grep -qE '/dist-packages/torch2onnx/_torch2onnx.*\.so$' "$work/contents.txt" ||
  fail "no Python extension module"
if grep -qE '/napi-v3/(darwin|win32)/' "$work/contents.txt"; then
  fail "the package carries macOS/Windows builds of ONNX Runtime"
fi

# Unpacked outside the build tree: the build's own fallbacks (source and build folders) are off.
root=$(mktemp -d /tmp/t2o-package.XXXXXX)
trap 'rm -rf "$root"' EXIT
dpkg-deb -x "$deb" "$root"
cli=$root/usr/bin/torch2onnx

# Every shared library a packaged program or library links directly (its NEEDED entries; what
# those need in turn, their own packages' Depends bring) comes from a package in Depends.
while IFS= read -r elf; do
  resolved=$(ldd "$elf")
  while IFS= read -r name; do
    lib=$(awk -v n="$name" '$1 == n && $2 == "=>" {print $3}' <<<"$resolved")
    [ -n "$lib" ] || lib=$(awk -v n="$name" '$1 ~ "/"n"$" {print $1}' <<<"$resolved")
    [ -n "$lib" ] || fail "$elf needs $name, which ldd does not resolve"
    case "$lib" in "$root"/*) continue ;; esac
    real=$(readlink -f "$lib")
    owner=""
    for candidate in "$real" "${real#/usr}" "/usr$real" "$lib"; do
      owner=$(dpkg-query -S "$candidate" 2>/dev/null | head -1 | cut -d: -f1) && [ -n "$owner" ] &&
        break
    done
    [ -n "$owner" ] || fail "$elf needs $lib, which no Debian package provides"
    grep -qxF "$owner" <<<"$dep_names" || fail "$elf needs $lib from $owner, not in Depends"
  done < <(readelf -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  if grep -q "not found" <<<"$resolved"; then
    fail "$elf: $(grep 'not found' <<<"$resolved" | head -1)"
  fi
done < <(find "$root/usr" -type f \( -name '*.so*' -o -name '*.node' -o -perm -u+x \) \
           -exec sh -c 'head -c 4 "$1" | grep -q ELF' _ {} \; -print)

"$cli" --version | tee "$work/version.txt"
grep -q '^torch2onnx [0-9]' "$work/version.txt" || fail "--version printed no version"

export_verify() { # prints the output; returns the exit status
  "$cli" "$model" -o "$root/out/model.onnx" --input "$spec" --verify 2>&1
}
mkdir -p "$root/out"
out=$(export_verify) || fail "the unpacked CLI's export with --verify failed: $out"
echo "$out"
grep -q "verified in ONNX Runtime" <<<"$out" || fail "no verification line: $out"

# The unpacked files are the ones in use: without each, the command says what is missing.
expect_failure() { # DESCRIPTION PATTERN COMMAND...
  local what=$1 pattern=$2 rc=0 text
  shift 2
  text=$("$@" 2>&1) || rc=$?
  [ "$rc" -ne 0 ] || fail "with $what moved away the command still succeeded: $text"
  grep -q "$pattern" <<<"$text" || fail "with $what moved away: expected '$pattern', got: $text"
}
mv "$root/usr/libexec/torch2onnx" "$root/moved-libexec"
expect_failure "the reference program" "cannot find its LibTorch reference program" export_verify
mv "$root/moved-libexec" "$root/usr/libexec/torch2onnx"
mv "$root/usr/share/torch2onnx/onnxruntime" "$root/moved-ort"
expect_failure "the ONNX Runtime runner" "ONNX Runtime is not installed" export_verify
mv "$root/moved-ort" "$root/usr/share/torch2onnx/onnxruntime"
mv "$root/usr/lib/torch2onnx" "$root/moved-cli"
expect_failure "libtorch2onnx-cli.so" "cannot load the torch2onnx library" "$cli" --version
mv "$root/moved-cli" "$root/usr/lib/torch2onnx"
out=$(export_verify) || fail "the export failed after the files were put back: $out"

# The Python module from the unpacked tree (its ONNX Runtime runner found under usr/share).
PYTHONPATH=$root/usr/lib/python3/dist-packages /usr/bin/python3 - "$root" <<'EOF' ||
import sys, torch, torch2onnx
root = sys.argv[1]
assert torch2onnx.__file__.startswith(root), torch2onnx.__file__
m = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU())
r = torch2onnx.export(m, (torch.randn(2, 4),), root + "/out/py.onnx", verify=True)
print("python module:", torch2onnx.__version__, "verified:", r["verify_ok"])
assert r["verify_ok"]
EOF
  fail "the unpacked Python module could not export and verify"

# The CMake package from the unpacked tree: find_package(torch2onnx) configures the example.
cmake -S "$src/examples/cpp_api" -B "$root/example" -DCMAKE_PREFIX_PATH="$root/usr" \
      >"$work/example-configure.log" 2>&1 ||
  fail "find_package(torch2onnx) failed against the unpacked package (see $work/example-configure.log)"
grep -q "$root/usr/lib/cmake/torch2onnx" "$root/example/CMakeCache.txt" ||
  fail "the example found another torch2onnx package than the unpacked one"
echo "package:deb: ok"
