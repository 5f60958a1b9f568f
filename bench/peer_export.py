#!/usr/bin/env python3
"""torch.onnx.export of a TorchScript file (the peer torch2onnx is compared with), opset 17 by
default, constant folding on.

    /usr/bin/python3 bench/peer_export.py MODEL.pt OUT.onnx SPEC [SPEC...] [--opset N]

SPEC is an --input spec like x:f32[1,3,224,224] or ids:i64[1,128] (or bare dims 1,3,224,224 for
a float32 input).
"""
import re
import sys

import torch

DTYPES = {"f32": torch.float32, "f64": torch.float64, "i64": torch.int64, "i32": torch.int32}


def example(spec):
    if re.fullmatch(r"\d+(,\d+)*", spec):
        return torch.randn(*[int(d) for d in spec.split(",")])
    m = re.fullmatch(r"(?:\w+:)?(\w+)\[([\d,]+)\]", spec)
    if not m:
        raise SystemExit(f"bad spec {spec}")
    dtype, dims = DTYPES[m.group(1)], [int(d) for d in m.group(2).split(",")]
    if dtype.is_floating_point:
        return torch.randn(*dims, dtype=dtype)
    return torch.randint(0, 10, dims, dtype=dtype)


def main():
    args = sys.argv[1:]
    opset = 17
    if "--opset" in args:
        i = args.index("--opset")
        opset = int(args[i + 1])
        del args[i:i + 2]
    elif len(args) == 4 and args[3].isdigit():  # old form: MODEL OUT DIMS OPSET
        opset = int(args.pop())
    model, out, specs = args[0], args[1], args[2:]
    m = torch.jit.load(model).eval()
    inputs = tuple(example(s) for s in specs)
    torch.onnx.export(m, inputs, out, opset_version=opset, do_constant_folding=True)


if __name__ == "__main__":
    main()
