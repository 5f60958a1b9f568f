#!/usr/bin/env python3
"""The torch2onnx benchmark: export speed, memory and graph quality against torch.onnx.export.

    make bench                       (builds, makes the fixtures, runs this, updates the doc)
    /usr/bin/python3 bench/benchmark.py --cli build/torch2onnx --floor build/t2o_floor \\
        [--runs 5] [--ort-runs 20] [--models resnet50,swin_t] [--chains 1000,10000,100000] \\
        [--doc docs/performance.md] [--json out.json]

For each model (traced, random weights, seed 0; the same TorchScript file for both exporters), in
the same run, interleaved, median of --runs runs:
  - whole-process wall time and peak RSS of `torch2onnx` and of torch.onnx.export (opset 17,
    constant folding on) under Debian's /usr/bin/python3 (bench/peer_export.py);
  - torch2onnx's phase times (--timings);
  - the floor: bench/floor.cpp (t2o_floor) starts LibTorch, loads the file, writes its weights;
  - both ONNX files: node count, file size, ONNX Runtime 1.30 latency in one process (1 thread,
    runs alternating, 3 rounds of --ort-runs; bench/ort_compare.js) and where the graphs ORT
    optimized differ;
  - scaling: synthetic chains of N nodes (bench/make_chain.py), torch2onnx export time.
Ratios are reported (ours / peer, ours / floor). Results go between the markers of --doc.
"""
import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = "/usr/bin/python3"

# name, input specs, fixture source
MODELS = [
    ("resnet50", ["x:f32[1,3,224,224]"], "zoo"),
    ("convnext_base", ["x:f32[1,3,224,224]"], "zoo"),
    ("vit_b_16", ["x:f32[1,3,224,224]"], "zoo"),
    ("swin_t", ["x:f32[1,3,224,224]"], "zoo"),
    ("efficientnet_b0", ["x:f32[1,3,224,224]"], "zoo"),
    ("mobilenet_v3_large", ["x:f32[1,3,224,224]"], "zoo"),
    ("gpt_like", ["ids:i64[1,128]"], "dynamic"),
    # GPT-2-style decoders (models/make_gpt2.py): LayerNorm, fused qkv, causal mask buffer, GELU
    # MLP, tied LM head; traced on ids [1,128]. The 1.3B one (5.2 GB) runs only with --models
    # gpt2_1_3b (`make bench-llm`).
    ("gpt2_355m", ["ids:i64[1,128]"], "llm"),
    ("gpt2_1_3b", ["ids:i64[1,128]"], "llm"),
]
DEFAULT_MODELS = [m[0] for m in MODELS if m[0] != "gpt2_1_3b"]
# Speed-up over torch.onnx.export asked for (issue 13); other models only need to be faster.
PEER_TARGETS = {"resnet50": 3.0, "convnext_base": 5.0, "gpt2_355m": 8.0}
# ONNX Runtime latency of our file / the peer's asked for (issue 30).
LATENCY_TARGETS = {"resnet50": 0.95, "convnext_base": 0.95, "gpt2_355m": 0.95}
FLOOR_TARGET, RSS_TARGET = 1.3, 1.15
# ONNX Runtime runs of the LLMs are long (a 355M forward on 128 tokens is ~90 GFLOP): fewer runs.
LLM_ORT_RUNS = 3

BEGIN, END = "<!-- bench: begin -->", "<!-- bench: end -->"
# torch2onnx --timings phases, in order.
PHASES = ("load", "prepare", "record", "convert", "optimize", "serialize")


def timed(cmd, env=None):
    """Runs cmd under /usr/bin/time; returns (wall seconds, peak RSS bytes, stdout, stderr)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        t0 = time.monotonic()
        p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", tf.name] + cmd, capture_output=True,
                           text=True, env=env)
        wall = time.monotonic() - t0
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stderr[-2000:]}")
        rss_kb = int(tf.read().strip().splitlines()[-1])
    return wall, rss_kb * 1024, p.stdout, p.stderr


def parse_phases(stderr):
    m = re.search(r"phases: (.*)", stderr)
    out = {}
    if m:
        for part in m.group(1).split(","):
            name, value = part.strip().split()[:2]
            out[name] = float(value)
    r = re.search(r"rewrites: (\d+) -> (\d+) nodes", stderr)
    if r:
        out["nodes_before_rewrites"] = int(r.group(1))
    return out


def onnx_stats(path):
    import onnx  # python3-onnx (Debian)
    m = onnx.load(path, load_external_data=False)
    size = os.path.getsize(path)
    # External data: ours is one NAME.onnx.data; torch.onnx.export (over 2 GB) writes one file per
    # tensor beside the model. Count every file the initializers name, once.
    files = {kv.value for t in m.graph.initializer for kv in t.external_data if kv.key == "location"}
    for f in files:
        size += os.path.getsize(os.path.join(os.path.dirname(path), f))
    return len(m.graph.node), size


def param_counts(onnx_path, pt_path):
    """(elements in the ONNX file's initializers, elements in the model's distinct parameters)."""
    import numpy as np
    import onnx
    import torch
    m = onnx.load(onnx_path, load_external_data=False)
    stored = sum(int(np.prod(t.dims)) for t in m.graph.initializer if np.prod(t.dims) >= 4096)
    seen, distinct = set(), 0
    for p in torch.jit.load(pt_path).parameters():
        if p.data_ptr() not in seen:
            seen.add(p.data_ptr())
            distinct += p.numel()
    return stored, distinct


def ort_spec(spec):
    m = re.fullmatch(r"(?:(\w+):)?(\w+)\[([\d,]+)\]", spec)
    t = "int64" if m.group(2) == "i64" else "float32"
    return f"{m.group(1) or 'x'}:{t}:{m.group(3)}"


# The ONNX Runtime the benchmark times files in (bench/onnxruntime: 1.30, the version issue 30
# measured; its Node binding writes the graph ORT optimized, which --verify's 1.20 cannot).
BENCH_ORT = os.path.join(HERE, "onnxruntime")
ORT_ROUNDS = 3


def ort_compare(ours, peer, specs, runs, dump_dir):
    """Both files in one ONNX Runtime process, runs alternating (bench/ort_compare.js): medians,
    the median per-round ratio, and the op counts of the graphs ORT optimized (dump_dir None:
    none, e.g. files over 2 GB). peer None times ours alone."""
    cmd = ["node", os.path.join(HERE, "ort_compare.js"), ours, peer or "-", str(runs),
           str(ORT_ROUNDS), dump_dir or "-"] + [ort_spec(s) for s in specs]
    p = subprocess.run(cmd, capture_output=True, text=True,
                       env=dict(os.environ, TORCH2ONNX_ORT_DIR=BENCH_ORT))
    if p.returncode != 0:  # reported as NaN; the export figures stay
        print(f"bench: ONNX Runtime failed on {ours}: {p.stderr.strip()[-500:]}", file=sys.stderr)
        return {}
    return json.loads(p.stdout)


def ort_version():
    try:
        with open(os.path.join(BENCH_ORT, "node_modules", "onnxruntime-node", "package.json")) as f:
            return json.load(f)["version"]
    except OSError:
        raise SystemExit("bench: bench/onnxruntime is not installed: make bench-deps")


def op_differences(ours_ops, peer_ops):
    """'Op ours/peer' for each op type whose count differs in the two ORT-optimized graphs."""
    keys = sorted(set(ours_ops) | set(peer_ops))
    return ", ".join(f"{k.replace('com.microsoft:', 'ms:')} {ours_ops.get(k, 0)}/{peer_ops.get(k, 0)}"
                     for k in keys if ours_ops.get(k, 0) != peer_ops.get(k, 0))


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def make_fixtures(names, cache):
    zoo = [n for n, _, src in MODELS if src == "zoo" and n in names]
    if zoo:
        subprocess.run([PY, os.path.join(ROOT, "models", "make_zoo.py"),
                        os.path.join(ROOT, "models", "zoo", "torchvision.yaml"), "--out",
                        os.path.join(cache, "zoo"), "--only", ",".join(zoo)], check=True,
                       stdout=subprocess.DEVNULL)
    llm = [n for n, _, src in MODELS if src == "llm" and n in names]
    if llm:
        subprocess.run([PY, os.path.join(ROOT, "models", "make_gpt2.py"), "--out",
                        os.path.join(cache, "llm")] + llm, check=True, stdout=subprocess.DEVNULL)
    if "gpt_like" in names:
        subprocess.run([PY, os.path.join(ROOT, "models", "make_dynamic_models.py"), "--out",
                        os.path.join(cache, "dynamic_models")], check=True, stdout=subprocess.DEVNULL)


def model_path(name, src, cache):
    folder = {"zoo": "zoo", "llm": "llm"}.get(src, "dynamic_models")
    return os.path.join(cache, folder, name + ".pt")


def bench_model(args, name, specs, path, work, log):
    ours_onnx, peer_onnx = os.path.join(work, f"{name}.onnx"), os.path.join(work, f"{name}_peer.onnx")
    floor_bin = os.path.join(work, f"{name}.bin")
    inputs = [a for s in specs for a in ("--input", s)]
    r = {"ours": [], "ours_rss": [], "peer": [], "peer_rss": [], "floor": [], "floor_rss": [],
         "phases": [], "floor_load": [], "floor_write": []}
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    peer_error = None
    for i in range(args.runs):
        w, rss, _, err = timed([args.cli, path, "-o", ours_onnx, "--opset", "17", "--timings"] + inputs)
        r["ours"].append(w)
        r["ours_rss"].append(rss)
        r["phases"].append(parse_phases(err))
        if peer_error is None:
            try:
                peer = [PY, os.path.join(HERE, "peer_export.py"), path, peer_onnx] + specs
                if args.peer_mem_gb:  # so a peer that needs more fails instead of swapping the machine
                    peer = ["prlimit", f"--as={int(args.peer_mem_gb * 2**30)}"] + peer
                w, rss, _, _ = timed(peer, env)
                r["peer"].append(w)
                r["peer_rss"].append(rss)
            except RuntimeError as e:  # the peer cannot export this model: record why, go on
                lines = [l for l in str(e).splitlines() if "Error" in l]
                peer_error = (lines[-1] if lines else str(e).splitlines()[0])[:300]
                log(f"  {name}: torch.onnx.export fails: {peer_error}")
        w, rss, out, ferr = timed([args.floor, path, floor_bin])
        r["floor"].append(w)
        r["floor_rss"].append(rss)
        fm = re.search(r"floor: load ([0-9.]+) s, write ([0-9.]+) s", ferr)
        r["floor_load"].append(float(fm.group(1)) if fm else float("nan"))
        r["floor_write"].append(float(fm.group(2)) if fm else float("nan"))
        r["weight_bytes"] = int(out.strip())
        log(f"  {name} run {i + 1}/{args.runs}: ours {r['ours'][-1]:.2f} s, "
            f"peer {r['peer'][-1] if r['peer'] else float('nan'):.2f} s, floor {r['floor'][-1]:.2f} s")
    os.remove(floor_bin)
    res = {"model": name, "inputs": specs, "weight_bytes": r["weight_bytes"], "peer_error": peer_error}
    for k in ("ours", "ours_rss", "peer", "peer_rss", "floor", "floor_rss", "floor_load",
              "floor_write"):
        res[k] = med(r[k])
        res[k + "_runs"] = r[k]
    res["phases"] = {p: med([ph.get(p, float("nan")) for ph in r["phases"]])
                     for p in PHASES}
    res["ours_nodes"], res["ours_bytes"] = onnx_stats(ours_onnx)
    if name.startswith("gpt2_"):
        res["stored_params"], res["distinct_params"] = param_counts(ours_onnx, path)
    res["peer_nodes"], res["peer_bytes"] = onnx_stats(peer_onnx) if not peer_error else (None, None)
    res["nodes_before_rewrites"] = r["phases"][-1].get("nodes_before_rewrites")
    if args.verify_big and name == "gpt2_1_3b":
        # The 1.3B export with --verify, once (LibTorch and ONNX Runtime both run the model).
        w, rss, out, err = timed([args.cli, path, "-o", ours_onnx, "--opset", "17", "--verify"] + inputs)
        res["verify_wall"], res["verify_rss"] = w, rss
        # The summary (stdout) has "verify output: max abs error ..., tolerance ...) ok".
        res["verify_line"] = next((l.strip() for l in (out + err).splitlines()
                                   if "verify output" in l), "")
        log(f"  {name} with --verify: {w:.1f} s, {rss / 1e9:.2f} GB: {res['verify_line']}")
    # Latency: both files in one process, runs alternating, so drift in machine load hits both
    # alike (separate processes swing by +-30% here); and where ORT's optimized graphs differ.
    ort_runs = min(args.ort_runs, LLM_ORT_RUNS) if name.startswith("gpt2_") else args.ort_runs
    res["ours_ms"] = res["peer_ms"] = res["ort_ratio"] = float("nan")
    res["ort_diff"] = None
    if ort_runs > 0:
        big = name == "gpt2_1_3b"  # ORT cannot write an optimized graph over 2 GB
        c = ort_compare(ours_onnx, None if peer_error else peer_onnx, specs, ort_runs,
                        None if big else work)
        res["ours_ms"], res["peer_ms"] = c.get("ours_ms", float("nan")), c.get("peer_ms", float("nan"))
        res["ort_ratio"] = c.get("ratio", float("nan"))
        if "ours_ops" in c and "peer_ops" in c:
            res["ort_diff"] = op_differences(c["ours_ops"], c["peer_ops"])
    for f in (ours_onnx, peer_onnx):
        for g in (f, f + ".data"):
            if os.path.exists(g):
                os.remove(g)
    return res


def bench_chains(args, work, cache, log):
    out = []
    for n in args.chains:
        path = os.path.join(cache, "bench", f"chain_{n}.pt")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        subprocess.run([PY, os.path.join(HERE, "make_chain.py"), str(n), path], check=True)
        onnx_path = os.path.join(work, f"chain_{n}.onnx")
        walls, phases = [], []
        for _ in range(3):
            w, _, _, err = timed([args.cli, path, "-o", onnx_path, "--input", "x:f32[1,16]", "--timings"])
            walls.append(w)
            phases.append(parse_phases(err))
        ph = {p: med([x.get(p, float("nan")) for x in phases])
              for p in PHASES}
        out.append({"nodes": n, "wall": med(walls), "phases": ph})
        log(f"  chain {n}: {med(walls):.2f} s")
        os.remove(onnx_path)
    return out


def fmt_mb(b):
    return f"{b / 1e6:.0f}"


def render(results, chains, baseline_rss, meta):
    L = []
    L.append(f"Measured {meta['date']} on {meta['machine']}; load average {meta['load_before']} before, "
             f"{meta['load_after']} after. Command: `{meta['command']}`. Median of {meta['runs']} "
             f"interleaved runs per exporter; ONNX Runtime {meta.get('ort_version', '')} latency: 1 "
             f"thread, all graph optimizations, both files in one process, runs alternating, "
             f"{ORT_ROUNDS} rounds of {meta['ort_runs']} runs; ours / peer is the median of the "
             f"rounds' ratios.")
    L.append("")
    L.append("### Whole-process export time")
    L.append("")
    L.append("| model | weights MB | torch2onnx s | torch.onnx.export s | floor s | peer / ours | ours / floor |")
    L.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in results:
        if r["peer_error"]:
            L.append(f"| {r['model']} | {fmt_mb(r['weight_bytes'])} | {r['ours']:.2f} | fails¹ | "
                     f"{r['floor']:.2f} | – | {r['ours'] / r['floor']:.2f}x |")
            continue
        L.append(f"| {r['model']} | {fmt_mb(r['weight_bytes'])} | {r['ours']:.2f} | {r['peer']:.2f} | "
                 f"{r['floor']:.2f} | {r['peer'] / r['ours']:.2f}x | {r['ours'] / r['floor']:.2f}x |")
    failed = [r for r in results if r["peer_error"]]
    if failed:
        L.append("")
        for r in failed:
            L.append(f"¹ torch.onnx.export cannot export {r['model']}: `{r['peer_error']}`")
    L.append("")
    L.append("### torch2onnx phases (seconds, in-process, median)")
    L.append("")
    L.append("| model | load | prepare | record | convert | optimize | serialize | sum | process "
             "| floor: load | floor: write |")
    L.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in results:
        p = r["phases"]
        s = sum(p.values())
        L.append(f"| {r['model']} | " + " | ".join(f"{p[k]:.3f}" for k in
                 PHASES) +
                 f" | {s:.2f} | {r['ours']:.2f} | {r.get('floor_load', float('nan')):.3f} "
                 f"| {r.get('floor_write', float('nan')):.3f} |")
    L.append("")
    L.append("`process` is the whole-process wall time; the difference to `sum` is starting the process "
             "and LibTorch (dynamic loading, static initializers) and exiting. The floor's own two "
             "steps (median): `torch::jit::load` of the same file, and writing its distinct weights "
             "with fsync; compare them with our `load` and `serialize`.")
    L.append("")
    L.append("### Peak memory (RSS, MB)")
    L.append("")
    L.append(f"LibTorch's own baseline (`t2o_floor --baseline`): {fmt_mb(baseline_rss)} MB.")
    L.append("")
    L.append("| model | weights | torch2onnx | torch.onnx.export | floor | ours / (weights + baseline) |")
    L.append("| --- | ---: | ---: | ---: | ---: | ---: |")
    for r in results:
        peer_rss = "fails" if r["peer_error"] else fmt_mb(r["peer_rss"])
        L.append(f"| {r['model']} | {fmt_mb(r['weight_bytes'])} | {fmt_mb(r['ours_rss'])} | "
                 f"{peer_rss} | {fmt_mb(r['floor_rss'])} | "
                 f"{r['ours_rss'] / (r['weight_bytes'] + baseline_rss):.2f}x |")
    L.append("")
    L.append("### The exported graphs")
    L.append("")
    L.append("| model | nodes ours (before rewrites) | nodes peer | MB ours | MB peer | ORT ms ours | ORT ms peer | ours / peer latency |")
    L.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in results:
        if r["peer_error"]:
            L.append(f"| {r['model']} | {r['ours_nodes']} ({r['nodes_before_rewrites']}) | fails | "
                     f"{r['ours_bytes'] / 1e6:.1f} | – | {r['ours_ms']:.1f} | – | – |")
            continue
        ms = lambda v: "not run" if v != v else f"{v:.1f}"  # --ort-runs 0 (make bench-llm)
        ratio = r.get("ort_ratio", r['ours_ms'] / r['peer_ms'])
        L.append(f"| {r['model']} | {r['ours_nodes']} ({r['nodes_before_rewrites']}) | {r['peer_nodes']} | "
                 f"{r['ours_bytes'] / 1e6:.1f} | {r['peer_bytes'] / 1e6:.1f} | {ms(r['ours_ms'])} | "
                 f"{ms(r['peer_ms'])} | {'–' if ratio != ratio else f'{ratio:.2f}'} |")
    diffs = [r for r in results if r.get("ort_diff") is not None]
    if diffs:
        L.append("")
        L.append("Where the graphs ONNX Runtime runs differ (op counts ours/peer after ORT's own "
                 "optimizations, read from the optimized models it writes; `ms:` is ORT's "
                 "com.microsoft domain, e.g. its fused Gelu):")
        L.append("")
        L.append("| model | op types whose counts differ |")
        L.append("| --- | --- |")
        for r in diffs:
            L.append(f"| {r['model']} | {r['ort_diff'] or 'none: the same ops'} |")
    if chains:
        L.append("")
        L.append("### Scaling: synthetic chains (torch2onnx, median of 3)")
        L.append("")
        L.append("| nodes | export s | µs per node | load | prepare | record | convert | optimize | serialize |")
        L.append("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for c in chains:
            p = c["phases"]
            L.append(f"| {c['nodes']} | {c['wall']:.2f} | {c['wall'] / c['nodes'] * 1e6:.0f} | " +
                     " | ".join(f"{p[k]:.2f}" for k in
                                PHASES) + " |")
    L.append("")
    L.append("### Targets")
    L.append("")
    def verdict(ok):
        return "met" if ok else "**not met**"
    both = [r for r in results if not r["peer_error"]]
    if failed:
        L.append(f"- (torch.onnx.export fails on {', '.join(r['model'] for r in failed)}: the peer "
                 "comparisons below cover the other models)")
    for r in both:
        want = PEER_TARGETS.get(r["model"])
        if want:
            x = r["peer"] / r["ours"]
            L.append(f"- ≥ {want:g}× faster than torch.onnx.export on {r['model']}: {x:.2f}x — "
                     f"{verdict(x >= want)}")
    for r in results:
        x = r["ours"] / r["floor"]
        L.append(f"- export ≤ {FLOOR_TARGET}× the floor on {r['model']}: {x:.2f}x — "
                 f"{verdict(x <= FLOOR_TARGET)}")
    for r in results:
        x = r["ours_rss"] / (r["weight_bytes"] + baseline_rss)
        L.append(f"- peak RSS ≤ {RSS_TARGET}× (weights + LibTorch baseline) on {r['model']}: {x:.2f}x — "
                 f"{verdict(x <= RSS_TARGET)}")
    lat = [r for r in both if r["peer_ms"] == r["peer_ms"]]  # not NaN (latency measured)
    for r in lat:
        want = LATENCY_TARGETS.get(r["model"])
        if want:
            x = r.get("ort_ratio", r["ours_ms"] / r["peer_ms"])
            L.append(f"- ONNX Runtime latency ≤ {want}× the peer's on {r['model']}: {x:.2f} "
                     f"({r['ours_ms']:.1f} ms vs {r['peer_ms']:.1f} ms) — {verdict(x <= want)}")
    if lat:
        worst_lat = max(r.get("ort_ratio", r["ours_ms"] / r["peer_ms"]) for r in lat)
        L.append(f"- ONNX Runtime latency ≤ the peer's: worst ours/peer {worst_lat:.2f} — "
                 f"{verdict(worst_lat <= 1.0)} (differences under ~5% are within run-to-run noise)")
    if both:
        worst_nodes = max(r["ours_nodes"] / r["peer_nodes"] for r in both)
        L.append(f"- node count ≤ the peer's: worst ours/peer {worst_nodes:.2f} — "
                 f"{verdict(worst_nodes <= 1.0)}")
    for r in results:
        if r.get("stored_params") is not None:
            ok = r["stored_params"] <= r["distinct_params"]
            L.append(f"- each weight stored once on {r['model']}: {r['stored_params'] / 1e6:.2f}M "
                     f"parameters in the file for {r['distinct_params'] / 1e6:.2f}M distinct in the "
                     f"model — {verdict(ok)}")
    if len(chains) >= 2:
        per = [c["wall"] / c["nodes"] for c in chains]
        growth = per[-1] / per[0]
        L.append(f"- linear scaling: time per node from {chains[0]['nodes']} to {chains[-1]['nodes']} nodes "
                 f"changes by {growth:.2f}x (fixed start-up cost makes small chains look slower per node) — "
                 f"{verdict(growth <= 1.5)}")
        big = chains[-1]["phases"]
        share = big["prepare"] / max(sum(v for v in big.values() if v == v), 1e-9)
        L.append(f"- prepare does not dominate at {chains[-1]['nodes']} nodes: {share:.0%} of the "
                 f"phases — {verdict(share < 0.5)}")
    for r in results:
        if "verify_wall" in r:
            L.append(f"- {r['model']} exports and verifies: {r['verify_wall']:.1f} s, peak RSS "
                     f"{r['verify_rss'] / 1e9:.2f} GB with --verify (`{r['verify_line']}`)")
    return "\n".join(L)


def splice(doc, text, markers="bench"):
    begin, end = f"<!-- {markers}: begin -->", f"<!-- {markers}: end -->"
    with open(doc) as f:
        s = f.read()
    BEGIN, END = begin, end
    if BEGIN not in s or END not in s:
        raise SystemExit(f"{doc} has no {BEGIN} ... {END} markers")
    head, rest = s.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    with open(doc, "w") as f:
        f.write(f"{head}{BEGIN}\n{text}\n{END}{tail}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "torch2onnx"))
    ap.add_argument("--floor", default=os.path.join(ROOT, "build", "t2o_floor"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--ort-runs", type=int, default=20)
    ap.add_argument("--models", help="comma-separated subset of: " + ",".join(m[0] for m in MODELS))
    ap.add_argument("--chains", default="1000,10000,100000",
                    help="chain lengths for the scaling part ('' to skip)")
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/torch2onnx"))
    ap.add_argument("--doc", help="markdown file whose bench markers receive the tables")
    ap.add_argument("--json", help="also write the raw results here")
    ap.add_argument("--markers", default="bench",
                    help="marker name in --doc: bench (make bench) or bench-llm (make bench-llm)")
    ap.add_argument("--verify-big", action="store_true",
                    help="also export gpt2_1_3b once with --verify (time, peak RSS)")
    ap.add_argument("--peer-mem-gb", type=float, default=0,
                    help="address-space limit for torch.onnx.export (prlimit), 0 for none")
    args = ap.parse_args()
    args.chains = [int(c) for c in args.chains.split(",") if c.strip()]
    names = args.models.split(",") if args.models else DEFAULT_MODELS
    unknown = set(names) - {m[0] for m in MODELS}
    if unknown:
        ap.error("unknown model(s): " + ", ".join(sorted(unknown)))

    def log(msg):
        print(f"bench: {msg}", file=sys.stderr, flush=True)

    meta = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "machine": f"{os.cpu_count()} cores, {platform.machine()}",
            "load_before": "%.1f" % os.getloadavg()[0], "runs": args.runs, "ort_runs": args.ort_runs,
            "command": "make bench" if not args.models else "bench/benchmark.py --models " + args.models,
            "ort_version": ort_version()}
    log("making fixtures")
    make_fixtures(names, args.cache)
    _, baseline_rss, _, _ = timed([args.floor, "--baseline"])
    results = []
    with tempfile.TemporaryDirectory(prefix="t2o-bench-") as work:
        for name, specs, src in MODELS:
            if name not in names:
                continue
            log(f"{name}")
            results.append(bench_model(args, name, specs, model_path(name, src, args.cache), work, log))
        log("chains")
        chains = bench_chains(args, work, args.cache, log)
    meta["load_after"] = "%.1f" % os.getloadavg()[0]
    text = render(results, chains, baseline_rss, meta)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "baseline_rss": baseline_rss, "models": results, "chains": chains},
                      f, indent=1)
    if args.doc:
        splice(args.doc, text, args.markers)
        log(f"{args.doc} updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
