#!/usr/bin/env bash
# Checks (default) or applies (--fix) the repository's .clang-format on every tracked C++ file.
# Run by ctest as format:clang-format, so `make test` and CI fail on unformatted code.
# Fix locally with `make format`.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
clang_format="${CLANG_FORMAT:-clang-format}"
if ! command -v "$clang_format" >/dev/null 2>&1; then
  echo "check_format: $clang_format not found: apt-get install clang-format (or make deps)" >&2
  exit 1
fi
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.h' | grep -v '^third_party/')
else
  mapfile -t files < <(find apps aten_lib builder exporter tests bench examples -name '*.cpp' -o -name '*.h' 2>/dev/null | sort)
fi
if [ "${1:-}" = "--fix" ]; then
  "$clang_format" -i --style=file "${files[@]}"
  echo "check_format: formatted ${#files[@]} files"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  "$clang_format" --dry-run -Werror --style=file "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "check_format: ${#bad[@]} of ${#files[@]} files are not clang-formatted (run 'make format'):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "check_format: all ${#files[@]} C++ files are clang-formatted"
