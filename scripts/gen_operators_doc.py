#!/usr/bin/env python3
"""Generate docs/operators.md from the converter registry (`torch2onnx ops --json`) and the tests.

    python3 scripts/gen_operators_doc.py --cli build/torch2onnx --tests tests \
        --targets ../shared/aten_ops_target.txt --all-targets ../shared/aten_ops_all.txt \
        --out docs/operators.md

With --check it writes nothing: it exits 1 (printing the difference) when --out differs from what
it would write, and 77 (ctest's "skipped") when the targets file is missing. ctest docs:operators
runs it so, so a registry change without `make docs` fails the tests.
"""
import argparse
import difflib
import glob
import json
import os
import re
import subprocess
import sys

MIN_OPSET, MAX_OPSET = 11, 21

# Target ops that are deliberately not converted, and why: "refused" ops are registered so the
# export stops with this reason (not a bare "no converter"); "deferred" ops belong to a later issue.
# docs/not_converted.txt (op<TAB>reason) may add more.
_QUANT = ("deferred to the quantization issue: quantized models need qint8/quint8 tensors and "
          "their scales carried through the recorder and the builder, then QuantizeLinear / "
          "DequantizeLinear (per-axis from opset 13)")
_GAMMA = ("refused: a Gamma draw (PyTorch's per-element rejection sampler) has no ONNX "
          "equivalent: ONNX samples only uniform, normal, Bernoulli and multinomial; the export "
          "stops with this reason and suggests sampling outside the model")
REASONS = {
    "aten::quantize_per_tensor": ("deferred", _QUANT),
    "aten::quantize_per_tensor_dynamic": ("deferred", _QUANT),
    "aten::quantize_per_channel": ("deferred", _QUANT),
    "aten::int_repr": ("deferred", _QUANT),
    "aten::dequantize": ("deferred", _QUANT),
    "aten::fake_quantize_per_tensor_affine": ("deferred", _QUANT),
    "aten::fake_quantize_per_channel_affine": ("deferred", _QUANT),
    "aten::_standard_gamma": ("refused", _GAMMA),
    "aten::_sample_dirichlet": ("refused", _GAMMA + " (a Dirichlet draw is normalized Gamma draws)"),
}


def registry(cli):
    ops = {}
    for opset in range(MIN_OPSET, MAX_OPSET + 1):
        out = subprocess.run([cli, "ops", "--json", "--opset", str(opset)], check=True,
                             capture_output=True, text=True).stdout
        for e in json.loads(out):
            d = ops.setdefault(e["op"], {"opsets": [], "onnx": set(), "since": set(), "family": e["family"]})
            d["opsets"].append(opset)
            d["onnx"].update(e["onnx_ops"])
            d["since"].add(e["since_opset"])
    return ops


def tested_ops(test_dir):
    tested = set()
    for path in glob.glob(os.path.join(test_dir, "test_*.cpp")):
        with open(path, encoding="utf-8") as f:
            text = f.read()
            # An op counts as tested when a test case is named after it or a test's TorchScript
            # IR calls it (each IR test is checked against LibTorch in ONNX Runtime).
            for m in re.finditer(r'TEST_CASE\("((?:aten|prim|torchvision|quantized)::[A-Za-z0-9_]+)', text):
                tested.add(m.group(1))
            for m in re.finditer(r'(?:= |")((?:aten|torchvision)::[A-Za-z0-9_]+)\(', text):
                tested.add(m.group(1))
    return tested


def opset_text(opsets, since=()):
    """The opset range, and the opsets where a converter of its own takes over ("11–21; 18: own")."""
    if not opsets:
        return ""
    text = f"{min(opsets)}–{max(opsets)}"
    later = sorted(s for s in since if s > min(opsets))
    if later:
        text += "; own lowering from " + ", ".join(str(s) for s in later)
    return text


def all_ops_section(path, ops, refused, reasons, tested):
    """Coverage of the list of every inference op, and each op it leaves out with its reason."""
    with open(path, encoding="utf-8") as f:
        every = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    converted = [op for op in every if op in ops and op not in refused]
    left = [op for op in every if op not in converted]
    explained = [op for op in left if op in reasons]
    lines = ["", "## Every inference op of LibTorch's schema registry", "",
             f"The ops of `torch._C._jit_get_all_schemas()` (LibTorch 1.13) that can appear in an "
             f"inference graph (../shared/aten_ops_all.txt; backward, `out=`, sparse, "
             f"device-specific, random sampling and RPC ops left out):", "",
             f"- Ops: {len(every)}",
             f"- Converted: {len(converted)} ({100.0 * len(converted) / max(1, len(every)):.1f}%), "
             f"tested: {len([op for op in converted if op in tested])}",
             f"- Not converted, with a reason: {len(explained)}",
             f"- Not converted yet: {len(left) - len(explained)}", "",
             "The converted ones are in the tables above. Those left out:", "",
             "| op | reason |", "| --- | --- |"]
    lines += [f"| `{op}` | {reasons.get(op, 'not converted yet')} |" for op in left]
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--tests", required=True)
    ap.add_argument("--targets", required=True)
    ap.add_argument("--all-targets",
                    help="the second list: every inference op of LibTorch's schema registry "
                         "(../shared/aten_ops_all.txt); its coverage and reasons get a section")
    ap.add_argument("--reasons", default=os.path.join(os.path.dirname(__file__), "..", "docs", "not_converted.txt"),
                    help="op<TAB>reason lines for target ops left out")
    ap.add_argument("--out", required=True)
    ap.add_argument("--check", action="store_true",
                    help="compare with --out instead of writing it (exit 1 when it differs)")
    args = ap.parse_args()
    for path in (args.targets, args.all_targets):
        if args.check and path and not os.path.exists(path):
            print(f"skipped: no targets file {path}")
            return 77

    ops = registry(args.cli)
    tested = tested_ops(args.tests)
    with open(args.targets, encoding="utf-8") as f:
        targets = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    reasons = {op: why for op, (_, why) in REASONS.items()}
    refused = {op for op, (kind, _) in REASONS.items() if kind == "refused"}
    if os.path.exists(args.reasons):
        with open(args.reasons, encoding="utf-8") as f:
            for line in f:
                if "\t" in line and not line.startswith("#"):
                    op, why = line.rstrip("\n").split("\t", 1)
                    reasons[op] = why

    def row(op):
        d = ops.get(op)
        if op in refused:
            return f"| `{op}` | refused | | | {'yes' if op in tested else 'no'} | {reasons[op]} |"
        if not d:
            return f"| `{op}` | no | | | | {reasons.get(op, 'not converted yet')} |"
        t = "yes" if op in tested else "no"
        return (f"| `{op}` | yes | {', '.join(sorted(d['onnx']))} | {opset_text(d['opsets'], d['since'])} | {t} | "
                f"{d['family']} |")

    converted = [t for t in targets if t in ops and t not in refused]
    explained = [t for t in targets if t not in converted and t in reasons]
    converted_tested = [t for t in converted if t in tested]
    extra = sorted(op for op in ops if op not in set(targets))
    lines = [
        "# Operator coverage",
        "",
        "Generated by `make docs` (scripts/gen_operators_doc.py) from the converter registry",
        "(`torch2onnx ops --json`) and the tests; do not edit by hand.",
        "",
        f"- Target ops (../shared/aten_ops_target.txt): {len(targets)}",
        f"- Converted: {len(converted)} ({100.0 * len(converted) / max(1, len(targets)):.1f}%)",
        f"- Converted and tested: {len(converted_tested)} "
        f"({100.0 * len(converted_tested) / max(1, len(targets)):.1f}%)",
        f"- Not converted, with a reason (refused or deferred, see the table): {len(explained)}",
        f"- Not converted yet: {len(targets) - len(converted) - len(explained)}",
        f"- Converters registered in all (including ops outside the target list): {len(ops)}",
        "",
        "Columns: converted; the ONNX ops it emits (over all opsets); the opsets it supports (from "
        "the lowest opset it can be written for to 21; \"own lowering from N\": a converter of its "
        "own takes over at opset N, e.g. the ONNX op that arrived then); whether a test checks it "
        "against LibTorch in ONNX Runtime (for a refused op: that the refusal says why); the family "
        "file in aten_lib/ (or why it is left out).",
        "",
        "## Target ops",
        "",
        "| op | converted | ONNX ops | opsets | tested | family / reason |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    lines += [row(t) for t in targets]
    lines += ["", "## Other converted ops", "",
              "| op | converted | ONNX ops | opsets | tested | family |",
              "| --- | --- | --- | --- | --- | --- |"]
    lines += [row(op) for op in extra if op not in refused]
    if args.all_targets and os.path.exists(args.all_targets):
        lines += all_ops_section(args.all_targets, ops, refused, reasons, tested)
    text = "\n".join(lines) + "\n"
    if args.check:
        with open(args.out, encoding="utf-8") as f:
            old = f.read()
        if old == text:
            print(f"{args.out} is up to date")
            return 0
        sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True),
                                                   args.out, "generated"))
        print(f"{args.out} is stale: run `make docs` and commit it")
        return 1
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"{args.out}: {len(converted)}/{len(targets)} target ops converted, "
          f"{len(converted_tested)} tested, {len(ops)} converters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
