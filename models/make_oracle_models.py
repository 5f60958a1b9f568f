#!/usr/bin/env python3
"""Make the fixtures of tests/test_expected.cpp (torch2onnx --expected-outputs, issue 25):

    /usr/bin/python3 models/make_oracle_models.py --out ~/.cache/torch2onnx/oracle_models

- oracle_cnn.pt with oracle_cnn.inputs.pt and oracle_cnn.expected.pt (Python's outputs of a fresh
  torch.jit.load, models/fixture_io.py save_oracle), and:
  - oracle_cnn_damaged.pt: the same model with one weight changed by 0.5, standing for an export
    whose weights were damaged on load: its --verify passes (its LibTorch reference runs on the
    same weights) while oracle_cnn.expected.pt tells it apart;
  - oracle_cnn.perturbed.pt: the expected outputs with one value moved by 1e-2 (over tolerance).
- oracle_multi.pt: forward(x, y) returns {"sum": x + y, "prod": x * y}; beside its inputs and
  expected outputs the same outputs as a dict in the other key order (.dict.pt), an .npz by
  name in the other order (.named.npz), an .npz in order (.positional.npz), one output only
  (.short.pt) and a wrong shape (.shape.pt).
- oracle_scalars.pt: traced 0-d results of Python numbers (x.sum() * 0.5, ...), float32 in Python.
"""
import argparse
import os
import sys

import numpy
import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture_io import save_module, save_oracle, torch_save  # noqa: E402


class SmallCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(torch.relu(self.conv(x)).mean(dim=(2, 3)))


class TwoOutputs(nn.Module):
    def forward(self, x, y):
        return {"sum": x + y, "prod": x * y}


class Scalars(nn.Module):
    """Python numbers with 0-d results, as losses and statistics write them: traced, each number
    is a 0-d float64 (or int64) tensor constant, yet the outputs are float32 (eager PyTorch, and
    LibTorch's graph executor, treat the constant as a number)."""

    def forward(self, x):
        return (x.sum() * 0.5, (x > 0).sum() * 0.5, x[0, 0] / 3.0, x.mean() - 1.5,
                x.amax() + 2, x * 2.0)


def make_scalars(out):
    torch.manual_seed(0)
    x = torch.randn(2, 3)
    path = os.path.join(out, "oracle_scalars.pt")
    save_module(torch.jit.trace(Scalars(), (x,)), path)
    save_oracle(path, inputs=[x])


def make_cnn(out):
    torch.manual_seed(0)
    model = SmallCnn().eval()
    x = torch.randn(1, 3, 16, 16)
    path = os.path.join(out, "oracle_cnn.pt")
    with torch.no_grad():
        save_module(torch.jit.trace(model, (x,)), path)
        save_oracle(path, inputs=[x])
        model.conv.weight[0, 0, 0, 0] += 0.5
        save_module(torch.jit.trace(model, (x,)), os.path.join(out, "oracle_cnn_damaged.pt"))
    (expected,) = torch.load(os.path.join(out, "oracle_cnn.expected.pt"))
    expected[0, 1] += 1e-2
    torch_save((expected,), os.path.join(out, "oracle_cnn.perturbed.pt"))


def make_multi(out):
    torch.manual_seed(0)
    x, y = torch.randn(2, 3), torch.randn(2, 3)
    path = os.path.join(out, "oracle_multi.pt")
    with torch.no_grad():
        save_module(torch.jit.trace(TwoOutputs(), (x, y), strict=False), path)
    save_oracle(path, inputs=[x, y])
    out_sum, out_prod = torch.load(os.path.join(out, "oracle_multi.expected.pt"))
    stem = os.path.join(out, "oracle_multi")
    torch_save({"prod": out_prod, "sum": out_sum}, stem + ".dict.pt")
    numpy.savez(stem + ".named.npz", prod=out_prod.numpy(), sum=out_sum.numpy())
    numpy.savez(stem + ".positional.npz", out_sum.numpy(), out_prod.numpy())
    torch_save(out_sum, stem + ".short.pt")
    torch_save((out_sum, out_prod.reshape(3, 2)), stem + ".shape.pt")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="folder for the fixtures")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    make_cnn(args.out)
    make_multi(args.out)
    make_scalars(args.out)
    print(f"make_oracle_models: fixtures in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
