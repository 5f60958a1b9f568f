#!/usr/bin/env python3
"""Make TorchScript fixtures of torchvision models (random weights, traced, eval mode).

Run with Debian's interpreter, which has python3-torch and python3-torchvision:

    /usr/bin/python3 models/make_torchvision.py --out ~/.cache/torch2onnx/models resnet18 resnet50

Writes OUT/<name>.pt and prints one line per model: name, path and the --input spec to use.
Beside it: OUT/<name>.inputs.pt (the values torch2onnx makes for that spec, seed 0, as
--input-data) and OUT/<name>.expected.pt (Python's outputs of a fresh torch.jit.load on them, for
--expected-outputs; models/fixture_io.py save_oracle).
Existing files are kept unless they were made by another version of the recipe (NAME.pt.json
records it). Nothing is downloaded: weights are random, seeded, with batch-norm statistics
calibrated on random inputs (models/fixture_weights.py) so outputs depend on the input.
"""
import argparse
import os
import sys

import json

import torch
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_weights  # noqa: E402
from fixture_io import random_inputs, save_module, save_oracle  # noqa: E402

RECIPE = "fixture_weights.prepare v1"

# name -> (constructor keyword arguments, input shape)
MODELS = {
    "resnet18": ({}, [1, 3, 224, 224]),
    "resnet50": ({}, [1, 3, 224, 224]),
    "vgg11_bn": ({}, [1, 3, 224, 224]),
    "alexnet": ({}, [1, 3, 224, 224]),
    "mobilenet_v2": ({}, [1, 3, 224, 224]),
    "mobilenet_v3_small": ({}, [1, 3, 224, 224]),
    "squeezenet1_1": ({}, [1, 3, 224, 224]),
    "densenet121": ({}, [1, 3, 224, 224]),
    "shufflenet_v2_x1_0": ({}, [1, 3, 224, 224]),
    "googlenet": ({"aux_logits": False, "init_weights": True}, [1, 3, 224, 224]),
    "mnasnet1_0": ({}, [1, 3, 224, 224]),
}

# The models of the foundation issue's end-to-end tests.
FOUNDATION = list(MODELS)

# Also made on request (dynamic-shape tests).
MODELS["vit_b_16"] = ({}, [1, 3, 224, 224])


def spec(shape):
    return "x:f32[" + ",".join(str(d) for d in shape) + "]"


def make(name, out_dir):
    kwargs, shape = MODELS[name]
    path = os.path.join(out_dir, name + ".pt")
    meta = path + ".json"
    recipe = {"kwargs": kwargs, "shape": shape, "weights": RECIPE, "torch": torch.__version__}
    current = False
    if os.path.exists(path) and os.path.exists(meta):
        with open(meta) as f:
            current = json.load(f) == recipe
    if not current:
        torch.manual_seed(0)
        model = getattr(torchvision.models, name)(weights=None, **kwargs).eval()
        example = torch.randn(*shape)
        fixture_weights.prepare(model, (example,))
        with torch.no_grad():
            traced = torch.jit.trace(model, example)
        save_module(traced, path)
        with open(meta, "w") as f:
            json.dump(recipe, f)
    save_oracle(path, inputs=random_inputs([spec(shape)]))
    return path, spec(shape)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="folder for the .pt files (required unless --list)")
    ap.add_argument("--list", action="store_true", help="print the known model names and exit")
    ap.add_argument("models", nargs="*", help="model names (default: all foundation models)")
    args = ap.parse_args()
    if args.list:
        print("\n".join(MODELS))
        return 0
    if not args.out:
        ap.error("--out is required")
    names = args.models or FOUNDATION
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        print("unknown model(s): " + ", ".join(unknown) + "; known: " + ", ".join(MODELS), file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    for n in names:
        path, s = make(n, args.out)
        print(f"{n}\t{path}\t{s}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
