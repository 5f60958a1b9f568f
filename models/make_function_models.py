#!/usr/bin/env python3
"""Make the models of tests/test_functions.cpp (--functions: modules as ONNX local functions):
models with repeated blocks, written the way users write them.

    /usr/bin/python3 models/make_function_models.py --out ~/.cache/torch2onnx/function_models

- small_resnet.pt: a stem and four BasicBlocks (torchvision's design, 8 and 16 channels); the
  block that downsamples (stride 2, a 1x1 conv shortcut) computes something else than the three
  others, so --functions BasicBlock gives two functions. Input x: f32[1,3,32,32].
- small_encoder.pt: nn.TransformerEncoder of three nn.TransformerEncoderLayers (d_model 16,
  2 heads, batch_first) and a linear head: one function, three calls. Input x: f32[2,10,16].
- scaled_mlp.pt: three `Scaled` blocks (a Linear times a Python float): two multiply by 0.5, one
  by 2.0, so the blocks must not all share one body. Input x: f32[4,8].

All are traced in eval mode (gradients on). Every run rewrites them (they are small).
"""
import argparse
import os

import torch
import torch.nn as nn

from fixture_io import save_module


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                            nn.BatchNorm2d(cout))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class SmallResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 1, 1, bias=False), nn.BatchNorm2d(8),
                                  nn.ReLU(inplace=True))
        self.layer1 = nn.Sequential(BasicBlock(8, 8), BasicBlock(8, 8))
        self.layer2 = nn.Sequential(BasicBlock(8, 16, 2), BasicBlock(16, 16))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(torch.flatten(self.pool(x), 1))


class SmallEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, dropout=0.0,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=3, enable_nested_tensor=False)
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        return self.head(self.encoder(x))


class Scaled(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.scale = scale

    def forward(self, x):
        return torch.relu(self.lin(x)) * self.scale


class ScaledMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(Scaled(0.5), Scaled(2.0), Scaled(0.5))

    def forward(self, x):
        return self.blocks(x)


def randomize_norms(module):
    """BatchNorm statistics that are not the defaults, so folding them is checked."""
    for m in module.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 1.5)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.5, 0.5)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    resnet = SmallResNet()
    randomize_norms(resnet)
    models = {
        "small_resnet": (resnet, torch.randn(1, 3, 32, 32)),
        "small_encoder": (SmallEncoder(), torch.randn(2, 10, 16)),
        "scaled_mlp": (ScaledMLP(), torch.randn(4, 8)),
    }
    for name, (module, example) in models.items():
        path = os.path.join(args.out, name + ".pt")
        # Traced as users often do, with gradients on: nn.TransformerEncoderLayer then takes its
        # decomposed path (attention, feed-forward, norms as separate modules), not the fused op.
        # check_trace is off: re-tracing nn.TransformerEncoder gives another (equal) module type.
        traced = torch.jit.trace(module.eval(), (example,), check_trace=False)
        save_module(traced, path)
        print(f"{name}\t{path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
