"""The example's model: a scripted module calling the custom op mylib::scaled_swish.

    /usr/bin/python3 make_model.py LIBMYLIB_OPS.so OUT.pt
"""
import sys

import torch


class SwishBlock(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, x):
        return self.fc(torch.ops.mylib.scaled_swish(x, 1.5))


def main():
    lib, out = sys.argv[1], sys.argv[2]
    torch.ops.load_library(lib)
    torch.manual_seed(0)
    module = torch.jit.script(SwishBlock().eval())
    module.save(out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
