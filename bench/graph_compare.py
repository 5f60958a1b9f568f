#!/usr/bin/env python3
"""Our files against torch.onnx.export's in ONNX Runtime, on models written the way users write
them (the fixtures of a zoo manifest, models/zoo/realworld.yaml by default).

    make bench-graphs                     (makes the fixtures, runs this, updates the doc)
    /usr/bin/python3 bench/graph_compare.py --cli build/torch2onnx \\
        [--manifest models/zoo/realworld.yaml] [--models DIR] [--only bert,swin] [--runs 20] \\
        [--doc docs/performance.md] [--json out.json]

For each fixture both exporters can export at opset 17 from the same TorchScript file and inputs
(the fixture's own NAME.input_N.npy): both files in one ONNX Runtime process (bench/onnxruntime,
1 thread, all graph optimizations), runs alternating, 3 rounds (bench/ort_compare.js); ours / peer
is the median of the rounds' ratios; and the op types whose counts differ in the graphs ORT
optimized. The geometric mean and the worst ratio go into the doc between its markers.
"""
import argparse
import glob
import json
import math
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = "/usr/bin/python3"
BEGIN, END = "<!-- bench-graphs: begin -->", "<!-- bench-graphs: end -->"

sys.path.insert(0, HERE)
from benchmark import BENCH_ORT, ORT_ROUNDS, op_differences, ort_version  # noqa: E402

PEER = r"""
import sys, warnings
import numpy as np
import torch
warnings.filterwarnings("ignore")
model, out, *inputs = sys.argv[1:]
m = torch.jit.load(model).eval()
args = tuple(torch.from_numpy(np.load(f)) for f in inputs)
torch.onnx.export(m, args, out, opset_version=17, do_constant_folding=True)
"""
FEEDABLE = {"float32", "float64", "int64", "int32", "bool"}


def manifest_models(path):
    import yaml  # python3-yaml (Debian)
    with open(path) as f:
        m = yaml.safe_load(f)
    return os.path.expanduser(m["model_dir"]), m["models"]


def inputs_as_npy(path, name, work):
    """A fixture's NAME.inputs.pt (a tuple of tensors) as .npy files in `work`."""
    code = ("import sys, numpy as np, torch\n"
            "t = torch.load(sys.argv[1])\n"
            "t = t if isinstance(t, (list, tuple)) else [t]\n"
            "for i, x in enumerate(t): np.save(f'{sys.argv[2]}.input_{i}.npy', x.numpy())\n"
            "print(len(t))")
    stem = os.path.join(work, name)
    p = subprocess.run([PY, "-c", code, path, stem], capture_output=True, text=True)
    if p.returncode:
        return []
    return [f"{stem}.input_{i}.npy" for i in range(int(p.stdout.strip()))]


def feedable(npys):
    """Whether bench/ort_compare.js can feed every file (its dtypes)."""
    import numpy as np
    return all(str(np.load(f, mmap_mode="r").dtype) in FEEDABLE for f in npys)


def last_line(text):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return (lines[-1] if lines else "")[:200]


def compare(args, name, model_dir, work):
    pt = os.path.join(model_dir, name + ".pt")
    npys = sorted(glob.glob(os.path.join(model_dir, f"{name}.input_*.npy")),
                  key=lambda f: int(re.search(r"input_(\d+)", f).group(1)))
    if not npys and os.path.exists(os.path.join(model_dir, name + ".inputs.pt")):
        npys = inputs_as_npy(os.path.join(model_dir, name + ".inputs.pt"), name, work)
    if not os.path.exists(pt) or not npys:
        return {"model": name, "skipped": "no fixture inputs"}
    if not feedable(npys):
        return {"model": name, "skipped": "an input dtype the runner does not feed"}
    ours, peer = os.path.join(work, name + ".onnx"), os.path.join(work, name + "_peer.onnx")
    # The fixture's own values (token ids below the vocabulary size, real lengths, masks).
    inputs = [a for f in npys for a in ("--input-data", f)]
    p = subprocess.run([args.cli, pt, "-o", ours, "--opset", "17"] + inputs, capture_output=True,
                       text=True)
    if p.returncode:
        return {"model": name, "skipped": "torch2onnx fails: " + last_line(p.stderr)}
    p = subprocess.run([PY, "-c", PEER, pt, peer] + npys, capture_output=True, text=True)
    if p.returncode:
        return {"model": name, "skipped": "torch.onnx.export fails: " + last_line(p.stderr)}
    feeds = [f"in{i}:npy:{f}" for i, f in enumerate(npys)]
    p = subprocess.run(["node", os.path.join(HERE, "ort_compare.js"), ours, peer, str(args.runs),
                        str(ORT_ROUNDS), work] + feeds, capture_output=True, text=True,
                       env=dict(os.environ, TORCH2ONNX_ORT_DIR=BENCH_ORT))
    for f in (ours, peer):
        for g in (f, f + ".data"):
            if os.path.exists(g):
                os.remove(g)
    if p.returncode:
        return {"model": name, "skipped": "ONNX Runtime fails: " + last_line(p.stderr)}
    c = json.loads(p.stdout)
    return {"model": name, "ours_ms": c["ours_ms"], "peer_ms": c["peer_ms"], "ratio": c["ratio"],
            "diff": op_differences(c.get("ours_ops", {}), c.get("peer_ops", {}))}


def render(results, meta):
    timed = [r for r in results if "ratio" in r]
    L = [f"Measured {meta['date']} on {meta['machine']}; load average {meta['load_before']} before, "
         f"{meta['load_after']} after. Command: `{meta['command']}`. ONNX Runtime "
         f"{meta['ort_version']}, 1 thread, both files in one process, runs alternating, "
         f"{ORT_ROUNDS} rounds of {meta['runs']} runs; ours / peer is the median of the rounds' "
         f"ratios.", ""]
    if timed:
        ratios = [r["ratio"] for r in timed]
        geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        worst = max(timed, key=lambda r: r["ratio"])
        L.append(f"{len(timed)} models both export: geometric mean ours / peer **{geo:.3f}**; "
                 f"{sum(x > 1.03 for x in ratios)} above 1.03 (worst {worst['model']} "
                 f"{worst['ratio']:.3f}); {sum(x < 0.97 for x in ratios)} below 0.97. Tiny "
                 f"fixtures run in tens of microseconds, where a few nodes more or less and "
                 f"scheduling noise show as several percent.")
        L.append("")
    L.append("| model | ORT ms ours | ORT ms peer | ours / peer | op types whose counts differ (ours/peer, after ORT's optimizations) |")
    L.append("| --- | ---: | ---: | ---: | --- |")
    for r in timed:
        L.append(f"| {r['model']} | {r['ours_ms']:.3f} | {r['peer_ms']:.3f} | {r['ratio']:.3f} | "
                 f"{r['diff'] or 'none'} |")
    skipped = [r for r in results if "skipped" in r]
    if skipped:
        L.append("")
        L.append("Not compared: " + "; ".join(f"{r['model']} ({r['skipped']})" for r in skipped))
    return "\n".join(L)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cli", required=True)
    ap.add_argument("--manifest", default=os.path.join(ROOT, "models", "zoo", "realworld.yaml"))
    ap.add_argument("--models", help="the fixtures' folder (default: the manifest's model_dir)")
    ap.add_argument("--only", default="", help="comma-separated model names")
    ap.add_argument("--runs", type=int, default=20, help="runs per round and file")
    ap.add_argument("--doc", help="a markdown file with the bench-graphs markers to update")
    ap.add_argument("--json")
    args = ap.parse_args()
    model_dir, models = manifest_models(args.manifest)
    model_dir = args.models or model_dir
    only = set(filter(None, args.only.split(",")))
    meta = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "machine": f"{os.cpu_count()} cores", "load_before": "%.1f" % os.getloadavg()[0],
            "runs": args.runs, "ort_version": ort_version(),
            "command": "make bench-graphs" + (f" (--only {args.only})" if only else "")}
    results = []
    import tempfile
    with tempfile.TemporaryDirectory(prefix="t2o-graphs-") as work:
        for m in models:
            if only and m["name"] not in only:
                continue
            if m.get("expect_fail") or m.get("opset", 17) != 17 or m.get("dtype"):
                continue
            r = compare(args, m["name"], model_dir, work)
            results.append(r)
            print(f"graphs: {r['model']}: " + (f"{r['ratio']:.3f} ({r['ours_ms']:.3f} vs "
                  f"{r['peer_ms']:.3f} ms) {r['diff']}" if "ratio" in r else r["skipped"]),
                  file=sys.stderr, flush=True)
    meta["load_after"] = "%.1f" % os.getloadavg()[0]
    text = render(results, meta)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "results": results}, f, indent=1)
    if args.doc:
        with open(args.doc) as f:
            doc = f.read()
        if BEGIN not in doc or END not in doc:
            raise SystemExit(f"{args.doc} has no {BEGIN} ... {END} markers")
        head, rest = doc.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        with open(args.doc, "w") as f:
            f.write(head + BEGIN + "\n" + text + "\n" + END + tail)


if __name__ == "__main__":
    main()
