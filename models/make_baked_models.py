#!/usr/bin/env python3
"""Make the traced models the baked-dim tests use: models whose trace recorded a size as a
constant (the trace saw a Python int), and one that takes its sizes from the tensors (random
weights, seeded).

    /usr/bin/python3 models/make_baked_models.py --out ~/.cache/torch2onnx/baked_models

Writes OUT/<name>.pt and prints: name, path, --input spec (symbolic).
"""
import argparse
import os
import sys
import warnings

import torch
import torch.nn as nn

from fixture_io import random_inputs, save_module, save_oracle


class FlattenHead(nn.Module):
    """x.view(1, -1): batch baked as 1 (traced at batch=1); the Linear then fails at batch=2."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(48, 5)

    def forward(self, x):
        return self.fc(x.view(1, -1))


class ViewOne(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = FlattenHead()

    def forward(self, x):
        return self.head(torch.relu(x))


class ViewOneSilent(nn.Module):
    """x.view(1, -1) with nothing after it that cares: runs at every batch, folding batch into the
    second dim ([1, 48 * batch] instead of [batch, 48])."""

    def forward(self, x):
        return torch.sigmoid(x.view(1, -1))


class TwoBaked(nn.Module):
    """int(x.size(0)) makes b a Python int: reshape(b * 3, -1) records 12 and zeros(b, 3, 8)
    records 4 (traced at batch=4)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 8)

    def forward(self, x):
        b = int(x.size(0))
        y = self.fc(x.reshape(b * 3, -1)).view(x.size(0), 3, 8)
        return y + torch.zeros(b, 3, 8)


class SizesFromTensors(nn.Module):
    """TwoBaked written with sizes taken from the tensor: the trace follows batch."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 8)

    def forward(self, x):
        b = x.size(0)
        y = self.fc(x.reshape(b * 3, -1)).view(b, 3, 8)
        return y + torch.zeros(b, 3, 8)


class SliceBaked(nn.Module):
    """x[:, :t] with t = int(x.size(1)): a full slice at seq=6, a silent cut at other lengths."""

    def forward(self, x):
        t = int(x.size(1))
        return x[:, :t] * 2


class AttentionBaked(nn.Module):
    """Causal self-attention with t = int(x.size(1)): the head split views, the merge reshape and
    the causal mask (torch.ones(t, t).tril(), a constant once traced) all keep seq=16."""

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(64, 192)
        self.proj = nn.Linear(64, 64)

    def forward(self, x):
        b, t, c = x.size(0), int(x.size(1)), x.size(2)
        q, k, v = self.qkv(x).split(64, dim=2)
        q = q.view(b, t, 4, 16).transpose(1, 2)
        k = k.view(b, t, 4, 16).transpose(1, 2)
        v = v.view(b, t, 4, 16).transpose(1, 2)
        mask = torch.ones(t, t, dtype=torch.bool).tril()
        att = (q @ k.transpose(-2, -1) / 4.0).masked_fill(~mask, float("-inf")).softmax(-1)
        return self.proj((att @ v).transpose(1, 2).reshape(b, t, c))


class SwinWindows(nn.Module):
    """Swin's window partition, sizes taken from the tensor: at b=2, h=8 the window count
    h // 4 equals the batch at both recorded sizes (2 and 4) without following it; the constant
    window area 16 is no baked dim."""

    def forward(self, x):
        b, h, w, c = x.shape
        return x.view(b, h // 4, 4, w // 4, 4, c).permute(0, 1, 3, 2, 4, 5).reshape(-1, 16, c)


def models():
    torch.manual_seed(0)
    return {
        "view_one": (ViewOne(), torch.randn(1, 3, 4, 4), "x:f32[batch=1,3,4,4]"),
        "view_one_silent": (ViewOneSilent(), torch.randn(1, 3, 4, 4), "x:f32[batch=1,3,4,4]"),
        "two_baked": (TwoBaked(), torch.randn(4, 3, 16), "x:f32[batch=4,3,16]"),
        "sizes_from_tensors": (SizesFromTensors(), torch.randn(4, 3, 16), "x:f32[batch=4,3,16]"),
        "slice_baked": (SliceBaked(), torch.randn(2, 6, 5), "x:f32[2,seq=6,5]"),
        "attention_baked": (AttentionBaked(), torch.randn(2, 16, 64), "x:f32[batch=2,seq=16,64]"),
        "swin_windows": (SwinWindows(), torch.randn(2, 8, 12, 3), "x:f32[b=2,h=8,w=12,3]"),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name, (module, example, spec) in models().items():
        path = os.path.join(args.out, name + ".pt")
        if not os.path.exists(path):
            module.eval()
            with torch.no_grad(), warnings.catch_warnings():
                # The tracer warns about int(x.size(0)): recording that is the point here.
                warnings.simplefilter("ignore", torch.jit.TracerWarning)
                traced = torch.jit.trace(module, (example,))
            save_module(traced, path)
        if name == "sizes_from_tensors":  # the one exported by a ctest (the others are refused)
            save_oracle(path, inputs=random_inputs([spec]))
        print(f"{name}\t{path}\t{spec}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
