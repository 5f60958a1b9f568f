#!/usr/bin/env python3
"""Make the TorchScript files a zoo manifest lists (torchvision models, random weights, traced).

Run with Debian's interpreter (python3-torch, python3-torchvision, python3-yaml):

    /usr/bin/python3 models/make_zoo.py models/zoo/ci.yaml [--out DIR] [--only resnet18,swin_t]

For each model entry it builds torchvision.models.get_model(make.fn or name, weights=None,
**make.kwargs) with seeded random weights (nothing is downloaded), traces it in eval mode on random
inputs of the shapes in the entry's `inputs`, and writes it where the manifest says (model_dir /
model, default NAME.pt), beside a NAME.pt.json recording how it was made: a file is remade only
when that recipe changes. Entries with `make: false` (e.g. hand-made test models) are skipped.
`make.wrapper: detection` wraps a detection model so it takes one [N, 3, H, W] tensor and returns
flat tensors (models/detection_fixtures.py).

`make.module: FILE` builds a model written the way users write theirs (models/realworld/FILE.py,
not torchvision): that file's `make(name, **kwargs)` returns the TorchScript module (traced or
scripted, its choice) and either None or a list of example input tensors with meaningful values
(token ids below the vocabulary size, sorted lengths, masks). Those are saved beside the model as
NAME.input_N.npy, which the manifest entry names in `input_data:` (torch2onnx --input-data).

Beside each model it keeps the test suite's oracle (models/fixture_io.py save_oracle):
NAME.expected.pt, the outputs of a fresh torch.jit.load(NAME.pt) on the entry's inputs — the
manifest's input_data files, or else NAME.inputs.pt, the random values torch2onnx itself would
make for the `inputs` specs (seed 0), saved as input data. `torch2onnx zoo` passes both files to
each export (--input-data, --expected-outputs), so ONNX Runtime is checked against Python too.

torch.jit.trace runs with strict=False so models whose forward returns a dict (segmentation) or
a list (RAFT's flow estimates) can be traced; torch2onnx gives each returned tensor one ONNX output.
Prints one line per model: name, status (made / kept / skipped / FAILED) and path.
"""
import argparse
import hashlib
import importlib
import json
import os
import sys
import time

import numpy
import torch
import torchvision
import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
REALWORLD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "realworld")
sys.path.insert(0, REALWORLD)
import fixture_weights  # noqa: E402
from fixture_io import parse_spec, random_inputs, save_module, save_oracle  # noqa: E402
from detection_fixtures import DetectionOutputs  # noqa: E402


def example(spec):
    dtype, dims, _ = parse_spec(spec)
    if dtype.is_floating_point:
        return torch.randn(*dims).to(dtype)
    return torch.randint(0, 10, dims).to(dtype)


def expand_home(p):
    return os.path.expanduser(p) if p.startswith("~") else p


def model_dir(manifest_path, doc, override):
    base = os.path.dirname(os.path.abspath(manifest_path))
    d = override or expand_home(doc.get("model_dir") or "")
    return base if not d else d if os.path.isabs(d) else os.path.join(base, d)


WRAPPERS = {"detection": DetectionOutputs}


def recipe(entry):
    make = entry.get("make") or {}
    if "module" in make:
        return module_recipe(entry, make)
    inputs = entry["inputs"] if isinstance(entry["inputs"], list) else [entry["inputs"]]
    r = {"fn": make.get("fn", entry["name"]), "kwargs": make.get("kwargs", {}), "inputs": inputs,
         "torch": torch.__version__, "torchvision": torchvision.__version__,
         "weights": "fixture_weights.prepare v1"}
    if "wrapper" in make:  # only then, so the recipes (and files) of other entries stay as they are
        if make["wrapper"] not in WRAPPERS:
            raise ValueError(f"unknown wrapper '{make['wrapper']}' (known: {', '.join(WRAPPERS)})")
        r["wrapper"] = make["wrapper"]
        r["wrapper_version"] = WRAPPERS[make["wrapper"]].VERSION
    return r


def module_recipe(entry, make):
    src = os.path.join(REALWORLD, make["module"] + ".py")
    with open(src, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    return {"module": make["module"], "name": entry["name"], "kwargs": make.get("kwargs", {}),
            "source": digest, "torch": torch.__version__}


def make_from_module(r, path):
    """A models/realworld/ model: the file traces or scripts it and may give input values."""
    mod = importlib.import_module(r["module"])
    torch.manual_seed(0)
    scripted, inputs = mod.make(r["name"], **r["kwargs"])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    stem = path[:-3] if path.endswith(".pt") else path
    for i, t in enumerate(inputs or []):
        np_path = f"{stem}.input_{i}.npy"
        tmp = np_path + ".tmp.npy"
        numpy.save(tmp, t.detach().cpu().numpy())
        os.replace(tmp, np_path)
    save_module(scripted, path)


def make(entry, path):
    r = recipe(entry)
    meta = path + ".json"
    if os.path.exists(path) and os.path.exists(meta):
        with open(meta) as f:
            if json.load(f) == r:
                return "kept"
    if "module" in r:
        make_from_module(r, path)
        with open(meta, "w") as f:
            json.dump(r, f, indent=1)
        return "made"
    torch.manual_seed(0)
    model = torchvision.models.get_model(r["fn"], weights=None, **r["kwargs"]).eval()
    if "wrapper" in r:
        model = WRAPPERS[r["wrapper"]](model).eval()
    inputs = tuple(example(s) for s in r["inputs"])
    if hasattr(model, "prepare"):  # a wrapper that prepares its weights its own way
        model.prepare(inputs)
    else:
        fixture_weights.prepare(model, inputs)
    with torch.no_grad():
        traced = torch.jit.trace(model, inputs, strict=False, check_trace=False)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    save_module(traced, path)
    with open(meta, "w") as f:
        json.dump(r, f, indent=1)
    return "made"


def as_list(v):
    return v if isinstance(v, list) else [v]


def oracle(entry, path, out):
    """NAME.expected.pt for the inputs `torch2onnx zoo` exports this entry at (docs/zoo.md)."""
    if entry.get("input_data"):
        files = [expand_home(f) for f in as_list(entry["input_data"])]
        return save_oracle(path, input_files=[f if os.path.isabs(f) else os.path.join(out, f)
                                              for f in files])
    return save_oracle(path, inputs=random_inputs(as_list(entry["inputs"])))


BEGIN, END = "<!-- zoo-table: begin -->", "<!-- zoo-table: end -->"


def splice(table_path, doc_path):
    """Replaces the text between the zoo-table markers of doc_path with the file table_path."""
    with open(table_path) as f:
        table = f.read().strip()
    with open(doc_path) as f:
        doc = f.read()
    if BEGIN not in doc or END not in doc:
        print(f"{doc_path} has no '{BEGIN}' ... '{END}' markers", file=sys.stderr)
        return 2
    head, rest = doc.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    with open(doc_path, "w") as f:
        f.write(f"{head}{BEGIN}\n{table}\n{END}{tail}")
    print(f"make_zoo: {doc_path} now holds {table_path}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("manifest", nargs="?", help="zoo manifest (YAML), e.g. models/zoo/ci.yaml")
    ap.add_argument("--splice", nargs=2, metavar=("TABLE.md", "DOC.md"),
                    help="put a `torch2onnx zoo --report` table into DOC.md between its zoo-table "
                         "markers (for docs/zoo.md) and exit")
    ap.add_argument("--out", help="folder for the .pt files (default: the manifest's model_dir)")
    ap.add_argument("--only", help="comma-separated model names to make (default: all)")
    ap.add_argument("--list", action="store_true", help="print the models and their inputs, make nothing")
    args = ap.parse_args()
    if args.splice:
        return splice(*args.splice)
    if not args.manifest:
        ap.error("a manifest is required")
    with open(args.manifest) as f:
        doc = yaml.safe_load(f)
    out = model_dir(args.manifest, doc, args.out)
    only = set(args.only.split(",")) if args.only else None
    entries = [e for e in doc["models"] if only is None or e["name"] in only]
    if only and len(entries) != len(only):
        known = {e["name"] for e in doc["models"]}
        print("unknown model(s): " + ", ".join(sorted(only - known)), file=sys.stderr)
        return 2
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    failed = 0
    for e in entries:
        if e.get("make") is False:
            print(f"{e['name']}\tskipped", flush=True)
            continue
        path = os.path.join(out, expand_home(e.get("model", e["name"] + ".pt")))
        if args.list:
            print(f"{e['name']}\t{path}\t{' '.join(recipe(e).get('inputs', []))}")
            continue
        t0 = time.time()
        try:
            status = make(e, path)
            status += ", " + oracle(e, path, out)
        except Exception as ex:  # one broken model must not stop the others
            failed += 1
            status = f"FAILED: {type(ex).__name__}: {str(ex).splitlines()[0] if str(ex) else ''}"
        print(f"{e['name']}\t{status}\t{path}\t{time.time() - t0:.1f} s", flush=True)
    if failed:
        print(f"make_zoo: {failed} of {len(entries)} model(s) could not be made; the zoo reports "
              "them as failed (missing file)", file=sys.stderr)
    return 1 if failed and failed == len(entries) else 0


if __name__ == "__main__":
    sys.exit(main())
