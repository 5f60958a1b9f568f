#!/usr/bin/env python3
"""A synthetic traced model of N elementwise nodes in a row (sin, cos, sin, ...), for the scaling
part of bench/benchmark.py: export time must grow linearly with N.

    /usr/bin/python3 bench/make_chain.py N OUT.pt        (input x:f32[1,16])
"""
import os
import sys
import tempfile

import torch


class Chain(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.n = n

    def forward(self, x):
        for i in range(self.n):
            x = torch.sin(x) if i % 2 == 0 else torch.cos(x)
        return x


def main():
    n, out = int(sys.argv[1]), sys.argv[2]
    if os.path.exists(out):
        return 0
    with torch.no_grad():
        m = torch.jit.trace(Chain(n).eval(), (torch.randn(1, 16),), check_trace=False)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(out)), suffix=".pt.tmp")
    os.close(fd)
    m.save(tmp)
    os.replace(tmp, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
