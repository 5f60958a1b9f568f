#!/usr/bin/env python3
"""Make the small TorchScript models the CLI tests use (random weights, seeded).

    /usr/bin/python3 models/make_test_models.py --out ~/.cache/torch2onnx/test_models

Each model is written as OUT/<name>.pt; existing files are kept.
"""
import argparse
import os
import sys
import tempfile

import torch
import torch.nn as nn


class TinyCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        x = torch.relu(self.bn(self.conv(x)))
        return self.fc(torch.flatten(self.pool(x), 1))


class Bessel(nn.Module):
    def forward(self, x):
        return torch.special.bessel_j0(x)


class Unsupported(nn.Module):
    """Uses two ops with no converter, one of them in two places."""

    def __init__(self):
        super().__init__()
        self.first = Bessel()
        self.second = Bessel()

    def forward(self, x):
        y = self.second(self.first(x))
        return torch.special.zeta(y, x)


class TwoInputs(nn.Module):
    def forward(self, a, b):
        return torch.relu(a) * 2.0 + b


class TupleOut(nn.Module):
    def forward(self, x):
        return torch.relu(x), torch.sigmoid(x)


def save(module, example, path, script=False):
    module.eval()
    torch.manual_seed(0)
    with torch.no_grad():
        m = torch.jit.script(module) if script else torch.jit.trace(module, example)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".pt.tmp")
    os.close(fd)
    m.save(tmp)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    x = torch.randn(1, 3, 16, 16)
    models = {
        "tiny_cnn": (TinyCnn(), (x,), False),
        "unsupported": (Unsupported(), (torch.rand(2, 3),), False),
        "two_inputs": (TwoInputs(), None, True),
        "tuple_out": (TupleOut(), (torch.randn(2, 3),), False),
    }
    for name, (module, example, script) in models.items():
        path = os.path.join(args.out, name + ".pt")
        if not os.path.exists(path):
            save(module, example, path, script)
        print(f"{name}\t{path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
