#!/usr/bin/env python3
"""Make quantized TorchScript models for the load tests (issue 25 part 5: mapped equals copied).

    /usr/bin/python3 models/make_quantized_models.py --out ~/.cache/torch2onnx/quantized_models

torch2onnx cannot export quantized models yet (no converters for quantized ops), but it must load
them exactly: tests/load_equal.cpp loads each with torch2onnx's load and with LibTorch's own
torch::jit::load and compares every tensor reachable from the module bit for bit.

- every quantized architecture of torchvision 0.14 (torchvision.models.quantization, quantize=True,
  random weights, calibrated by torchvision on a random image): resnet18, resnet50, mobilenet_v2,
  mobilenet_v3_large, shufflenet_v2_x0_5, googlenet, inception_v3. resnext101_32x8d/64x4d and the
  wider ShuffleNets are those blocks again, ten times larger. The qnnpack engine: Debian's
  LibTorch has no fbgemm. Traced, except inception_v3, which is scripted: its random classifier's
  output scale is a whole number (15864439808.0), which a trace writes into the code as an int
  literal, and then no one (Python included) can load the file.
- lstm_dynamic, linear_dynamic: torch.ao.quantization.quantize_dynamic of an nn.LSTM and of
  nn.Linear layers (packed weights rebuilt in __setstate__ on load), scripted.
- linear_dynamic_damaged (made on request): linear_dynamic with one weight changed before
  quantizing, for the comparison's own test.

Writes OUT/<name>.pt (remade only when NAME.pt.json records another recipe) and prints one line per
model: name, path.
"""
import argparse
import json
import os
import sys

import torch
import torch.nn as nn
import torchvision.models.quantization as tvq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture_io import save_module  # noqa: E402

TORCHVISION = ["resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_large", "shufflenet_v2_x0_5",
               "googlenet", "inception_v3"]
DYNAMIC = ["lstm_dynamic", "linear_dynamic"]
# linear_dynamic with one weight of fc2 changed before quantizing: load_equal's own test (one int8
# value inside packed params, visible only through __getstate__, must be found).
DAMAGED = ["linear_dynamic_damaged"]


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 16)
        self.lstm = nn.LSTM(16, 32, num_layers=2, batch_first=True)
        self.head = nn.Linear(32, 5)

    def forward(self, ids):
        out, _ = self.lstm(self.embed(ids))
        return self.head(out)


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(64, 128), nn.Linear(128, 128), nn.Linear(128, 10)

    def forward(self, x):
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))


def build(name):
    torch.manual_seed(0)
    if name in DYNAMIC + DAMAGED:
        model = (Tagger() if name == "lstm_dynamic" else Mlp()).eval()
        if name in DAMAGED:
            with torch.no_grad():
                model.fc2.weight[3, 5] += 0.01
        types = {nn.LSTM, nn.Linear} if name == "lstm_dynamic" else {nn.Linear}
        return torch.jit.script(torch.ao.quantization.quantize_dynamic(model, types, dtype=torch.qint8))
    kwargs = {"aux_logits": False, "init_weights": True} if name in ("googlenet", "inception_v3") else {}
    model = getattr(tvq, name)(weights=None, quantize=True, backend="qnnpack", **kwargs).eval()
    if name == "inception_v3":
        return torch.jit.script(model)
    with torch.no_grad():
        return torch.jit.trace(model, torch.rand(1, 3, 224, 224))


def make(name, out):
    path = os.path.join(out, name + ".pt")
    recipe = {"name": name, "torch": torch.__version__, "recipe": 2}
    meta = path + ".json"
    if os.path.exists(path) and os.path.exists(meta):
        with open(meta) as f:
            if json.load(f) == recipe:
                return path
    save_module(build(name), path)
    with open(meta, "w") as f:
        json.dump(recipe, f)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="folder for the .pt files (required unless --list)")
    ap.add_argument("--list", action="store_true", help="print the model names and exit")
    ap.add_argument("models", nargs="*", help="model names (default: all)")
    args = ap.parse_args()
    names = args.models or TORCHVISION + DYNAMIC
    if args.list:
        print("\n".join(names))
        return 0
    if not args.out:
        ap.error("--out is required")
    unknown = [n for n in names if n not in TORCHVISION + DYNAMIC + DAMAGED]
    if unknown:
        print("unknown model(s): " + ", ".join(unknown), file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    torch.backends.quantized.engine = "qnnpack"
    for n in names:
        print(f"{n}\t{make(n, args.out)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
