#!/usr/bin/env python3
"""Lists functions longer than a limit (default 80 lines) in the tracked C++ sources; exit 1 when
there is one. The sources are clang-formatted, so a function's definition starts at column 0 (its
signature may go on over indented lines) and its body ends with a "}" at column 0; lambdas, class
members defined in the class body and TEST_CASEs are not counted.

    scripts/check_function_length.py [--limit 80] [--root .] [paths...]
"""
import argparse
import os
import subprocess
import sys

SKIP_PREFIXES = ("#", "//", "namespace", "}", "struct ", "class ", "enum ", "union ", "template <",
                 "using ", "typedef ", "TEST_CASE", "SECTION", "extern \"C\" {")


def functions(lines):
    """(first line, line count, signature) of each column-0 function definition."""
    start = None
    for i, line in enumerate(lines):
        if start is not None and line.startswith("}"):
            yield start, i - start + 1, lines[start].strip()
            start = None
            continue
        if not line or line[0].isspace():
            continue
        if line.startswith(SKIP_PREFIXES) or "(" not in line or line.rstrip().endswith(";"):
            start = None
            continue
        start = i


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=80)
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("paths", nargs="*", default=["apps", "api", "aten_lib", "builder", "exporter",
                                                  "include", "python", "examples"])
    a = ap.parse_args()
    files = subprocess.check_output(["git", "-C", a.root, "ls-files", "--"] + a.paths,
                                    text=True).split()
    long = []
    for f in files:
        if not f.endswith((".cpp", ".h", ".cc")):
            continue
        with open(os.path.join(a.root, f), errors="replace") as fh:
            lines = fh.read().split("\n")
        for start, n, sig in functions(lines):
            if n > a.limit:
                long.append((n, f, start + 1, sig))
    for n, f, line, sig in sorted(long, reverse=True):
        print(f"{f}:{line}: {n} lines (limit {a.limit}): {sig[:90]}")
    if long:
        print(f"{len(long)} function(s) over {a.limit} lines: split them (see ../shared/STYLE.md)")
    return 1 if long else 0


if __name__ == "__main__":
    sys.exit(main())
