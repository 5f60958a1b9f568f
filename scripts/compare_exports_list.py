#!/usr/bin/env python3
"""Writes the list of exports scripts/compare_exports.sh runs: one line per model, MODEL.pt and its
CLI arguments (shell words), for every model that is on disk among

  - the zoo manifests' entries (models/zoo/*.yaml: inputs, input_data, load_library, functions,
    output_names, as `torch2onnx zoo` passes them; the manifest's opsets are not used);
  - the test fixtures under ~/.cache/torch2onnx (made by the tests, models/make_*.py): each with
    its NAME.inputs.pt when it has one, else the --input specs the tests give it (SPECS below).

    /usr/bin/python3 scripts/compare_exports_list.py > /tmp/exports.list

Models with neither inputs nor specs are left out (listed on stderr).
"""
import os
import shlex
import sys

import yaml

CACHE = os.path.expanduser("~/.cache/torch2onnx")
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

# Fixture folder -> {model: [--input specs]} (from tests/test_*.cpp); "@FILE": --input-data FILE of
# the folder; from a "--flag" on, CLI arguments as they are.
SPECS = {
    "test_models": {"tiny_cnn": ["x:f32[1,3,16,16]"], "two_inputs": ["f32[2,3]", "f32[2,3]"],
                    "tuple_out": ["inp:f32[2,3]"], "gpt2_tiny": ["ids:i64[1,16]"],
                    "zip64_gpt2_tiny": ["ids:i64[1,16]"]},
    "control_flow": {"if_sum": ["x:f32[2,3]"], "for_stack": ["x:f32[n=5,3,4]"],
                     "while_loop": ["x:f32[2,3]"], "cell_loop": ["x:f32[t=6,2,8]"],
                     **{k + s: ["x:f32[b=3,t=7,6]", "h0:f32[4,b=3,10]"]
                        for k in ("lstm", "gru") for s in ("", "_h0")},
                     **{k + s + "_traced": ["x:f32[3,7,6]", "h0:f32[4,3,10]"]
                        for k in ("lstm", "gru") for s in ("", "_h0")}},
    "function_models": {"small_resnet": ["x:f32[1,3,32,32]", "--functions", "BasicBlock"],
                        "small_encoder": ["x:f32[batch=2,10,16]", "--functions",
                                          "TransformerEncoderLayer"],
                        "scaled_mlp": ["x:f32[4,8]", "--functions", "Scaled"]},
    "argument_models": {"optional_args": ["x:f32[2,5,16]"],
                        "optional_lengths": ["x:f32[2,4,9]", "lengths:i64[2]"],
                        "pooled_text": ["@pooled_text.named.npz"],
                        "self_attention": ["x:f32[2,5,16]"], "causal_lm": ["x:f32[2,t=8,16]"],
                        "kv_cache": ["@kv_cache.x.npy", "@kv_cache.start_pos.npy"]},
    "baked_models": {"two_baked": ["x:f32[4,3,16]"]},
}

# Fixtures made to fail an export (tests check the error).
LEFT_OUT = {"counts_calls"}


def spec_args(specs, folder=""):
    """--input per spec, --input-data per "@FILE"; words from a "--flag" on are passed as they are."""
    out = []
    for i, s in enumerate(specs):
        if s.startswith("--"):
            return out + specs[i:]
        out += ["--input-data", os.path.join(folder, s[1:])] if s.startswith("@") else ["--input", s]
    return out


def listify(v):
    return [] if v is None else v if isinstance(v, list) else [v]


def manifest_lines(path):
    with open(path, encoding="utf-8") as f:
        m = yaml.safe_load(f)
    folder = os.path.expanduser(m["model_dir"])
    defaults = m.get("defaults") or {}
    for e in m["models"]:
        model = os.path.join(folder, e["name"] + ".pt")
        if not os.path.exists(model) or e.get("converters", defaults.get("converters")):
            continue
        args = [model] + spec_args(listify(e.get("inputs")))
        for d in listify(e.get("input_data")):
            args += ["--input-data", os.path.join(folder, d)]
        for lib in listify(e.get("load_library", defaults.get("load_library"))):
            args += ["--load-library", lib]
        for fn in listify(e.get("functions")):
            args += ["--functions", fn]
        if e.get("output_names"):
            args += ["--output-names", ",".join(listify(e["output_names"]))]
        if len(args) > 1:
            yield args


def fixture_lines():
    for folder in sorted(os.listdir(CACHE)):
        path = os.path.join(CACHE, folder)
        if not os.path.isdir(path) or folder.startswith("zoo"):
            continue
        for name in sorted(os.listdir(path)):
            stem = name[:-3]
            if not name.endswith(".pt") or "." in stem:
                continue
            specs = SPECS.get(folder, {}).get(stem)
            if stem in LEFT_OUT:
                continue
            data = os.path.join(path, stem + ".inputs.pt")
            if specs:
                yield [os.path.join(path, name)] + spec_args(specs, path)
            elif os.path.exists(data):
                yield [os.path.join(path, name), "--input-data", data]
            else:
                print(f"left out (no inputs known): {folder}/{name}", file=sys.stderr)


def main():
    lines = []
    for name in sorted(os.listdir(os.path.join(ROOT, "models", "zoo"))):
        if name.endswith(".yaml"):
            lines += manifest_lines(os.path.join(ROOT, "models", "zoo", name))
    lines += fixture_lines()
    home = os.path.expanduser("~")
    for args in lines:
        print(" ".join(shlex.quote(a).replace(home, "~", 1) if a.startswith(home) else shlex.quote(a)
                       for a in args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
