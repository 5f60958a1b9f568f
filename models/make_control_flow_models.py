#!/usr/bin/env python3
"""Make the scripted TorchScript models the control-flow tests use (random weights, seeded).

    /usr/bin/python3 models/make_control_flow_models.py --out ~/.cache/torch2onnx/control_flow

Each model keeps its data-dependent `if`, `for` and `while` as prim::If / prim::Loop (made with
torch.jit.script; the nn.LSTM / nn.GRU ones also traced, as `<name>_traced`). Writes OUT/<name>.pt
and prints: name, path, --input specs.
"""
import argparse
import os
import sys
from typing import List, Optional, Tuple

import torch
import torch.nn as nn

from fixture_io import save_module


class IfSum(nn.Module):
    """A data-dependent if, an early return, and a branch whose outputs are constants."""

    def forward(self, x):
        if x.sum() > 0:
            y = torch.relu(x) * 2.0
            s = 3
        else:
            y = x - 1.0
            s = -2
        if bool(x.mean() < -0.3):
            return y * 0.5 - float(s)
        return y + s


class ForStack(nn.Module):
    """A for loop over a tensor dim that collects a list, then torch.stack (and a cat)."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        outs: List[torch.Tensor] = []
        acc = torch.zeros(x.size(1), x.size(2))
        for i in range(x.size(0)):
            acc = torch.tanh(self.lin(x[i]) + acc) * (i + 1)
            outs.append(acc)
        n = len(outs)
        return torch.stack(outs, 0), torch.cat(outs, 1) / n, outs[-1]


class WhileLoop(nn.Module):
    """A while loop on a runtime condition, with a counter returned as a 0-d tensor."""

    def forward(self, x):
        i = 0
        y = x
        while bool(y.abs().sum() < 100.0) and i < 50:
            y = y * 1.5 + 0.25
            i += 1
        return y, torch.tensor(i)


class CellLoop(nn.Module):
    """nn.LSTMCell and nn.GRUCell stepped in a for loop over time (x: [T, B, 8])."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTMCell(8, 16)
        self.gru = nn.GRUCell(16, 12)

    def forward(self, x):
        h = torch.zeros(x.size(1), 16)
        c = torch.zeros(x.size(1), 16)
        g = torch.zeros(x.size(1), 12)
        outs: List[torch.Tensor] = []
        for t in range(x.size(0)):
            h, c = self.lstm(x[t], (h, c))
            g = self.gru(h, g)
            outs.append(g)
        return torch.stack(outs), h, c


class Lstm(nn.Module):
    """nn.LSTM (2 layers, bidirectional, batch_first) then a 1-layer nn.LSTM; h0 optional."""

    def __init__(self, with_state: bool):
        super().__init__()
        self.with_state = with_state
        self.rnn = nn.LSTM(6, 10, num_layers=2, bidirectional=True, batch_first=True)
        self.rnn2 = nn.LSTM(20, 5, num_layers=1)

    def forward(self, x, h0):
        state: Optional[Tuple[torch.Tensor, torch.Tensor]] = None
        if self.with_state:
            state = (h0, h0 * 0.5)
        y, (h, c) = self.rnn(x, state)
        z, _ = self.rnn2(y.transpose(0, 1))
        return y, h, c, z


class Gru(nn.Module):
    """nn.GRU (2 layers, bidirectional, batch_first) then a 1-layer nn.GRU; h0 optional."""

    def __init__(self, with_state: bool):
        super().__init__()
        self.with_state = with_state
        self.rnn = nn.GRU(6, 10, num_layers=2, bidirectional=True, batch_first=True)
        self.rnn2 = nn.GRU(20, 5, num_layers=1)

    def forward(self, x, h0):
        state: Optional[torch.Tensor] = None
        if self.with_state:
            state = h0
        y, h = self.rnn(x, state)
        z, _ = self.rnn2(y.transpose(0, 1))
        return y, h, z


def models():
    """name -> (module, example inputs, --input specs, also traced)"""
    torch.manual_seed(0)
    rnn_in = (torch.randn(3, 7, 6), torch.randn(4, 3, 10))
    rnn_specs = ["x:f32[3,7,6]", "h0:f32[4,3,10]"]
    return {
        "if_sum": (IfSum(), (torch.randn(2, 3),), ["x:f32[2,3]"], False),
        "for_stack": (ForStack(), (torch.randn(5, 3, 4),), ["x:f32[5,3,4]"], False),
        "while_loop": (WhileLoop(), (torch.randn(2, 3),), ["x:f32[2,3]"], False),
        "cell_loop": (CellLoop(), (torch.randn(6, 2, 8),), ["x:f32[6,2,8]"], False),
        "lstm": (Lstm(False), rnn_in, rnn_specs, True),
        "lstm_h0": (Lstm(True), rnn_in, rnn_specs, True),
        "gru": (Gru(False), rnn_in, rnn_specs, True),
        "gru_h0": (Gru(True), rnn_in, rnn_specs, True),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name, (module, example, specs, traced_too) in models().items():
        module.eval()
        variants = [(name, False)] + ([(name + "_traced", True)] if traced_too else [])
        for vname, traced in variants:
            path = os.path.join(args.out, vname + ".pt")
            if not os.path.exists(path):
                with torch.no_grad():
                    m = torch.jit.trace(module, example) if traced else torch.jit.script(module)
                save_module(m, path)
            print(f"{vname}\t{path}\t{' '.join(specs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
