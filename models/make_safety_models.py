#!/usr/bin/env python3
"""Make the TorchScript models of the reliability round-2 tests (tests/test_safety.cpp): a deep
traced chain, scripted models that raise, forward signatures torch2onnx cannot take yet, and
output names that clash with input names. Written the way users write such models.

    /usr/bin/python3 models/make_safety_models.py --out ~/.cache/torch2onnx/safety_models

Each model is written as OUT/<name>.pt; existing files are kept.
"""
import argparse
import os
import sys
from typing import Dict, List, Tuple

import torch
import torch.nn as nn

from fixture_io import save_module
from make_test_models import rewrite_archive

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
from make_chain import Chain  # noqa: E402  (sin, cos, sin, ... n times; the benchmark's chain)


class CheckedBlock(nn.Module):
    """A shape check written as users write them: raising makes the model refuse the input."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        if x.size(-1) != 8:
            raise ValueError("expected 8 features")
        return torch.relu(self.fc(x))


class BatchLimit(nn.Module):
    """Refuses batches over 4 with its own message."""

    def forward(self, x):
        if x.size(0) > 4:
            raise RuntimeError("batch too big: at most 4 images")
        return x * 2.0


class ListArg(nn.Module):
    def forward(self, xs: List[torch.Tensor]):
        return torch.cat(xs, 0)


class TupleArg(nn.Module):
    def forward(self, state: Tuple[torch.Tensor, torch.Tensor]):
        h, c = state
        return h + c


class DictArg(nn.Module):
    def forward(self, batch: Dict[str, torch.Tensor]):
        return batch["x"] * 2.0


class IntArg(nn.Module):
    def forward(self, x, k: int):
        return x * k


class FloatArg(nn.Module):
    def forward(self, x, scale: float):
        return x * scale


class SameNameOut(nn.Module):
    """Returns a dict whose key is the input's own name."""

    def forward(self, x):
        return {"x": torch.relu(x)}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    traced = {
        "chain20k": (Chain(20000), (torch.randn(1, 16),)),
    }
    scripted = {
        "checked_block": CheckedBlock(),
        "batch_limit": BatchLimit(),
        "list_arg": ListArg(),
        "tuple_arg": TupleArg(),
        "dict_arg": DictArg(),
        "int_arg": IntArg(),
        "float_arg": FloatArg(),
        "same_name_out": SameNameOut(),
    }
    for name, (module, example) in traced.items():
        path = os.path.join(args.out, name + ".pt")
        if not os.path.exists(path):
            with torch.no_grad():
                m = torch.jit.trace(module.eval(), example, check_trace=False)
            save_module(m, path)
        print(f"{name}\t{path}")
    for name, module in scripted.items():
        path = os.path.join(args.out, name + ".pt")
        if not os.path.exists(path):
            save_module(torch.jit.script(module.eval()), path)
        print(f"{name}\t{path}")
    make_hostile(args.out)
    return 0


def make_hostile(out):
    """Archives whose data.pkl was replaced: one calls os.system through a pickle GLOBAL, one is
    a protocol-4 pickle. torch2onnx must refuse both before anything runs."""
    base = os.path.join(out, "int_arg.pt")
    pickles = {
        # PROTO 2, GLOBAL posix.system, BINUNICODE 'echo pwned', TUPLE1, REDUCE, STOP
        "evil_global": b"\x80\x02cposix\nsystem\nX\x0a\x00\x00\x00echo pwned\x85R.",
        # PROTO 4, FRAME, BININT1 1, STOP
        "pickle_protocol4": b"\x80\x04\x95\x03\x00\x00\x00\x00\x00\x00\x00K\x01.",
    }
    for name, pkl in pickles.items():
        path = os.path.join(out, name + ".pt")
        if not os.path.exists(path):
            rewrite_archive(base, path, lambda n, d, pkl=pkl: pkl if n.endswith("/data.pkl") else d)
        print(f"{name}\t{path}")


if __name__ == "__main__":
    sys.exit(main())
