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

from fixture_io import save_module
import make_gpt2  # models/make_gpt2.py, beside this file


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


class Eig(nn.Module):
    def forward(self, x):
        return torch.linalg.eig(x @ x.t())[0].real.unsqueeze(1) * x


class ProjectedLstmPacked(nn.Module):
    """nn.LSTM with proj_size over a PackedSequence (not supported): its weights are a constant
    list in the failing node's inputs, which the error names by shape, not by value."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(20, 32, proj_size=12, batch_first=True)

    def forward(self, x, lengths):
        packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True,
                                                   enforce_sorted=False)
        return nn.utils.rnn.pad_packed_sequence(self.lstm(packed)[0], batch_first=True)[0]


class Unsupported(nn.Module):
    """Uses two ops with no converter (linalg_eig, linalg_svd), one of them in two places."""

    def __init__(self):
        super().__init__()
        self.first = Eig()
        self.second = Eig()

    def forward(self, x):
        y = self.second(self.first(x))
        return torch.linalg.svd(y, full_matrices=False)[1]


class TwoInputs(nn.Module):
    def forward(self, a, b):
        return torch.relu(a) * 2.0 + b


class TupleOut(nn.Module):
    def forward(self, x):
        return torch.relu(x), torch.sigmoid(x)


# --- Fixtures for the reliability tests (tests/test_reliability.cpp) ---


class NanWeights(nn.Module):
    """A Linear whose weight holds a NaN and an Inf: the export goes on, with a warning."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        with torch.no_grad():
            self.fc.weight[0, 0] = float("nan")
            self.fc.weight[1, 2] = float("inf")

    def forward(self, x):
        return self.fc(x)


class BigConstant(nn.Module):
    """A 2.24 GB weight computed at export time (the .pt file stays tiny): the ONNX model is over
    protobuf's 2 GB limit, so torch2onnx must switch to external data by itself."""

    def forward(self, idx):
        w = torch.arange(560000000, dtype=torch.float32) * 0.001
        return w.index_select(0, idx) + 1.0


class DictOut(nn.Module):
    def forward(self, x):
        return {"y": torch.relu(x)}


class IntOut(nn.Module):
    def forward(self, x):
        return torch.relu(x), x.dim() * 2


class NoneOut(nn.Module):
    def forward(self, x):
        y = torch.relu(x)
        return None


def rewrite_archive(src, dst, change):
    """Copies the zip `src` to `dst`, passing each record through change(name, bytes) -> bytes or
    None (drop it). For archives no PyTorch we have can save: a newer format, an unknown op."""
    import zipfile

    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(dst), suffix=".pt.tmp")
    os.close(fd)
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(tmp, "w") as zout:
        for info in zin.infolist():
            data = change(info.filename, zin.read(info.filename))
            if data is not None:
                zout.writestr(info, data)
    os.replace(tmp, dst)


def replace_in_code(old, new):
    # The debug_pkl records hold source ranges into the code; dropping them is allowed.
    def change(name, data):
        if name.endswith(".debug_pkl"):
            return None
        if name.endswith(".py"):
            return data.replace(old, new)
        return data

    return change


def zip64_records(src, dst):
    """Copies the TorchScript zip `src` to `dst` with every tensor data record's sizes and local
    header offset given the zip64 way, as in a file over 4 GB (the 1.3B decoder's weights past
    4 GB): 0xFFFFFFFF in the central directory's 32-bit fields and the values in a zip64 extra
    field (id 1). The records' bytes do not move. PyTorch's writer always ends with a zip64 end
    record, whose directory size (and the locator's pointer to it) are updated."""
    import struct

    b = open(src, "rb").read()
    eocd = b.rfind(b"PK\x05\x06")
    assert b[eocd - 20:eocd - 16] == b"PK\x06\x07", "no zip64 end record"
    z64 = struct.unpack("<Q", b[eocd - 12:eocd - 4])[0]
    cd_size, cd_off = struct.unpack("<QQ", b[z64 + 40:z64 + 56])
    cd, pos = bytearray(), cd_off
    while pos < cd_off + cd_size:
        h = bytearray(b[pos:pos + 46])
        name_len, extra_len, comment_len = struct.unpack("<HHH", h[28:34])
        name = b[pos + 46:pos + 46 + name_len]
        extra = b[pos + 46 + name_len:pos + 46 + name_len + extra_len]
        rest = b[pos + 46 + name_len + extra_len:pos + 46 + name_len + extra_len + comment_len]
        pos += 46 + name_len + extra_len + comment_len
        if b"/data/" in name:
            csize, usize = struct.unpack("<II", h[20:28])
            local = struct.unpack("<I", h[42:46])[0]
            extra = struct.pack("<HHQQQ", 1, 24, usize, csize, local) + extra
            h[20:28] = struct.pack("<II", 0xFFFFFFFF, 0xFFFFFFFF)
            h[42:46] = struct.pack("<I", 0xFFFFFFFF)
            h[30:32] = struct.pack("<H", len(extra))
        cd += h + name + extra + rest
    end64 = bytearray(b[z64:z64 + 56])
    end64[40:48] = struct.pack("<Q", len(cd))
    locator = bytearray(b[eocd - 20:eocd])
    locator[8:16] = struct.pack("<Q", cd_off + len(cd))
    end = bytearray(b[eocd:])
    end[12:16] = struct.pack("<I", min(len(cd), 0xFFFFFFFF))
    with open(dst, "wb") as f:
        f.write(b[:cd_off] + bytes(cd) + bytes(end64) + bytes(locator) + bytes(end))


def make_derived(out):
    """Broken or unusual files made from the models above (two_inputs.pt and gpt2_tiny.pt must
    exist)."""
    import zipfile

    base = os.path.join(out, "two_inputs.pt")
    derived = {
        # file format version 11: what a PyTorch newer than our LibTorch (1.13) would write
        "newer_format": lambda p: rewrite_archive(
            base, p, lambda n, d: b"11\n" if n.endswith("/version") else d),
        # a custom op whose library is not loaded (made by editing the code; no compiled library)
        "custom_op": lambda p: rewrite_archive(
            base, p, replace_in_code(b"torch.relu(a)", b"ops.t2o_demo.relu(a)")),
        # an aten op LibTorch 1.13 does not know: as if saved by a newer PyTorch
        "newer_op": lambda p: rewrite_archive(
            base, p, replace_in_code(b"torch.relu(a)", b"torch.frobnicate(a)")),
        # gpt2_tiny with its weights' records described the zip64 way (tests/test_weights.cpp)
        "zip64_gpt2_tiny": lambda p: zip64_records(os.path.join(out, "gpt2_tiny.pt"), p),
    }
    for name, make in derived.items():
        path = os.path.join(out, name + ".pt")
        if not os.path.exists(path):
            make(path)
        print(f"{name}\t{path}")
    # a zip archive that is not TorchScript, and a torch.save pickle
    path = os.path.join(out, "plain_zip.pt")
    if not os.path.exists(path):
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("docs/readme.txt", "not a model")
    print(f"plain_zip\t{path}")
    path = os.path.join(out, "torch_save.pt")
    if not os.path.exists(path):
        torch.save(TwoInputs().state_dict(), path)
    print(f"torch_save\t{path}")


def save(module, example, path, script=False):
    module.eval()
    torch.manual_seed(0)
    with torch.no_grad():
        m = torch.jit.script(module) if script else torch.jit.trace(module, example)
    save_module(m, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    x = torch.randn(1, 3, 16, 16)
    models = {
        "tiny_cnn": (TinyCnn(), (x,), False),
        "unconverted": (Unsupported(), (torch.rand(2, 3),), False),
        "lstm_proj_packed": (ProjectedLstmPacked(), (torch.randn(2, 9, 20),
                                                     torch.tensor([9, 5])), False),
        "two_inputs": (TwoInputs(), None, True),
        "tuple_out": (TupleOut(), (torch.randn(2, 3),), False),
        "nan_weights": (NanWeights(), (torch.randn(2, 3),), False),
        "dict_out": (DictOut(), None, True),
        "int_out": (IntOut(), None, True),
        "none_out": (NoneOut(), None, True),
        "big_constant": (BigConstant(), None, True),
        # GPT-2-style decoder with a tied LM head (models/make_gpt2.py): tests/test_weights.cpp
        "gpt2_tiny": (make_gpt2.GPT2(*make_gpt2.CONFIGS["gpt2_tiny"]).eval(),
                      (torch.randint(0, 1000, (1, 16)),), False),
    }
    for name, (module, example, script) in models.items():
        path = os.path.join(args.out, name + ".pt")
        if not os.path.exists(path):
            save(module, example, path, script)
        print(f"{name}\t{path}")
    make_derived(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
