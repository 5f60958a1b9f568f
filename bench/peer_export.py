#!/usr/bin/env python3
"""torch.onnx.export of a TorchScript file (the peer torch2onnx is compared with).

    /usr/bin/python3 bench/peer_export.py MODEL.pt OUT.onnx 1,3,224,224 [opset]
"""
import sys

import torch


def main():
    model, out, shape = sys.argv[1], sys.argv[2], [int(d) for d in sys.argv[3].split(",")]
    opset = int(sys.argv[4]) if len(sys.argv) > 4 else 17
    m = torch.jit.load(model).eval()
    torch.onnx.export(m, (torch.randn(*shape),), out, opset_version=opset, do_constant_folding=True)


if __name__ == "__main__":
    main()
