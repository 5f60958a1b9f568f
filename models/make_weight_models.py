"""Fixtures for the weight load (tests/test_weight_load.cpp): models whose storages are laid out
the ways that broke a load binding records by size (issue 25), each with Python's own answer.

For every model NAME it writes NAME.pt, NAME.inputs.pt (the forward arguments, a tuple, as
--input-data takes it) and NAME.expected.pt (a tuple of the output tensors that a fresh
torch.jit.load of NAME.pt computes on those inputs, in eval mode under no_grad). The expected
outputs come from Python, never from torch2onnx: they are the oracle the tests compare with.

    /usr/bin/python3 models/make_weight_models.py --out DIR
"""
import argparse
import io
import os
import struct
import sys
import tempfile
import zipfile

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture_io import save_module  # noqa: E402


class KvDecoder(nn.Module):
    """A decoder layer with a KV cache as buffers, written in forward. The cache tensors have the
    byte size of two attention weights (4 x 16 x 64 floats = 2 x 64 x 64): a load that binds
    records by size hands one the other's bytes."""

    def __init__(self, d=64, heads=4, max_len=16):
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d)
        self.v = nn.Linear(d, d)
        self.o = nn.Linear(d, d)
        self.register_buffer("cache_k", torch.zeros(heads, 2 * max_len, d // heads * 2))
        self.register_buffer("cache_v", torch.zeros(heads, 2 * max_len, d // heads * 2))
        self.norm = nn.LayerNorm(d)

    def forward(self, x, start: int):
        b, t, d = x.shape
        h = self.norm(x)
        q = self.q(h).view(t, self.heads, d // self.heads).transpose(0, 1)
        k = self.k(h).view(t, self.heads, d // self.heads).transpose(0, 1)
        v = self.v(h).view(t, self.heads, d // self.heads).transpose(0, 1)
        hd = d // self.heads
        self.cache_k[:, start:start + t, :hd] = k
        self.cache_v[:, start:start + t, :hd] = v
        keys = self.cache_k[:, :start + t, :hd]
        values = self.cache_v[:, :start + t, :hd]
        att = torch.softmax(q @ keys.transpose(1, 2) / hd ** 0.5, dim=-1)
        y = (att @ values).transpose(0, 1).reshape(1, t, d)
        return x + self.o(y)


class IdentityConstant(nn.Module):
    """Traced: an identity matrix made in forward becomes a constant (constants.pkl) with the byte
    size of the bias (32 x 32 floats = 1024 floats)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 1024)
        self.fc2 = nn.Linear(1024, 32)

    def forward(self, x):
        eye = torch.eye(32) * 2.0
        y = self.fc2(torch.relu(self.fc(x)))
        return y @ eye + 1.0


class SharedStorage(nn.Module):
    """Tensors sharing one storage: a tied weight, views of one buffer at offsets, a buffer that is
    a small slice of a large storage (the saved storage is larger than its tensor)."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 48)
        self.head = nn.Linear(48, 100, bias=False)
        self.head.weight = self.emb.weight  # tied
        base = torch.randn(4096)
        self.register_buffer("scale", base[100:148])  # a view at an offset
        self.register_buffer("shift", base[2000:2048])  # another view of the same storage
        big = torch.randn(50000)
        self.register_buffer("tiny", big[7:55])  # 48 floats of a 200 KB storage

    def forward(self, ids):
        h = self.emb(ids) * self.scale + self.shift + self.tiny
        return self.head(F.gelu(h))


class Dtypes(nn.Module):
    """Buffers of every storage dtype a model keeps: int64, int32, int8, uint8, bool, float16,
    bfloat16, float64, complex64; some under a page, some over."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(3)
        self.register_buffer("i64", torch.randint(-50, 50, (2048,), generator=g))
        self.register_buffer("i32", torch.randint(-50, 50, (16,), generator=g, dtype=torch.int32))
        self.register_buffer("i8", torch.randint(-100, 100, (3000,), generator=g, dtype=torch.int8))
        self.register_buffer("u8", torch.randint(0, 255, (5000,), generator=g, dtype=torch.uint8))
        self.register_buffer("mask", torch.rand(2048, generator=g) > 0.5)
        self.register_buffer("h", torch.randn(2048, generator=g).half())
        self.register_buffer("bf", torch.randn(2048, generator=g).bfloat16())
        self.register_buffer("d", torch.randn(2048, generator=g, dtype=torch.float64))
        self.register_buffer("c", torch.randn(2048, generator=g, dtype=torch.complex64))

    def forward(self, x):
        y = x * self.h.float() + self.bf.float() + self.d.float()
        y = torch.where(self.mask, y, -y) + self.i64.float() * 0.01
        y = y + self.c.real + self.c.imag * 0.5
        z = self.i8[:2048].float() * 0.001 + self.u8[:2048].float() * 0.0001
        return y + z + self.i32.float().sum()


class SmallRecords(nn.Module):
    """Many weights smaller than a page, between ones larger than a page."""

    def __init__(self):
        super().__init__()
        layers = []
        for i in range(6):
            layers += [nn.Linear(24, 24), nn.LayerNorm(24)]
        self.layers = nn.Sequential(*layers)
        self.big = nn.Linear(24, 600)

    def forward(self, x):
        return self.big(self.layers(x))


class RunningStatsNorm(nn.Module):
    """InstanceNorm2d(track_running_stats=True) in eval, as CycleGAN-style generators use it:
    LibTorch's instance_norm copies the batch mean of its running statistics back into them on
    every call (batch 3: the last bit changes), although its schema marks no write."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.norm = nn.InstanceNorm2d(4, affine=True, track_running_stats=True)
        self.norm.running_mean.uniform_(-0.5, 0.5)
        self.norm.running_var.uniform_(0.5, 2.0)

    def forward(self, x):
        return torch.relu(self.norm(self.conv(x)))


def quantized_resnet18():
    from torchvision.models import quantization as q

    torch.manual_seed(0)
    m = q.resnet18(weights=None, quantize=False).eval()
    m.fuse_model()
    m.qconfig = torch.ao.quantization.get_default_qconfig("fbgemm")
    torch.ao.quantization.prepare(m, inplace=True)
    with torch.no_grad():
        for _ in range(4):
            m(torch.randn(2, 3, 64, 64))
    torch.ao.quantization.convert(m, inplace=True)
    return m


class Lstm(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(32, 64, num_layers=2, batch_first=True)
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.fc(y[:, -1])


def dynamic_lstm():
    torch.manual_seed(0)
    return torch.ao.quantization.quantize_dynamic(Lstm().eval(), {nn.LSTM, nn.Linear},
                                                  dtype=torch.qint8)


def unaligned(src, dst):
    """Rewrites the TorchScript zip `src` as Python's zipfile writes it: stored records without the
    64-byte alignment PyTorch's writer pads to, so the weights start at odd offsets."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(dst), suffix=".pt.tmp")
    os.close(fd)
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as zout:
        prefix = zin.infolist()[0].filename.split("/")[0]
        # a record of 3 bytes first shifts every record after it by an odd amount
        zout.writestr(zipfile.ZipInfo(prefix + "/extra/pad"), b"x" * 3)
        for info in zin.infolist():
            out = zipfile.ZipInfo(info.filename, date_time=info.date_time)
            out.compress_type = zipfile.ZIP_STORED
            zout.writestr(out, zin.read(info.filename))
    os.replace(tmp, dst)


def rewrite(src, dst, change):
    """Copies the zip `src` to `dst`, each record through change(name, bytes) -> bytes."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(dst), suffix=".pt.tmp")
    os.close(fd)
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            zout.writestr(info, change(info.filename, zin.read(info.filename)))
    os.replace(tmp, dst)


def shift_first_tensor(data, offset):
    """data.pkl with its first tensor's storage offset set to `offset` (the int after the first
    BINPERSID and its BINPUT), so the tensor reaches past its storage."""
    import pickletools

    ops = list(pickletools.genops(data))
    for i, (op, _, _) in enumerate(ops):
        if op.name != "BINPERSID":
            continue
        k = i + 1
        while ops[k][0].name in ("BINPUT", "LONG_BINPUT", "MEMOIZE"):
            k += 1
        assert ops[k][0].name in ("BININT", "BININT1", "BININT2"), ops[k][0].name
        start, end = ops[k][2], ops[k + 1][2]
        return data[:start] + b"J" + struct.pack("<i", offset) + data[end:]
    raise ValueError("no tensor in the pickle")


def crafted(out):
    """Files whose pickle states tensors the records cannot back: a tensor that reaches past its
    storage, a storage longer than its record. torch2onnx must refuse both at load."""
    src = os.path.join(out, "small_records.pt")
    past = os.path.join(out, "past_storage.pt")
    if not os.path.exists(past):
        rewrite(src, past, lambda n, d: shift_first_tensor(d, 10) if n.endswith("/data.pkl") else d)
    short = os.path.join(out, "short_record.pt")
    if not os.path.exists(short):
        rewrite(src, short, lambda n, d: d[: len(d) // 2] if n.endswith("/data/0") else d)
    print(f"past_storage\t{past}\nshort_record\t{short}")


def models():
    torch.manual_seed(0)
    return {
        # name: (module, example args, script?)
        "kv_decoder": (KvDecoder(), (torch.randn(1, 5, 64), 3), True),
        "identity_constant": (IdentityConstant(), (torch.randn(2, 32),), False),
        "shared_storage": (SharedStorage(), (torch.randint(0, 100, (2, 7)),), False),
        "dtypes": (Dtypes(), (torch.randn(2048),), False),
        "small_records": (SmallRecords(), (torch.randn(3, 24),), False),
        "running_stats_norm": (RunningStatsNorm(), (torch.randn(3, 3, 8, 8),), True),
        "quantized_resnet18": (quantized_resnet18, (torch.randn(1, 3, 64, 64),), False),
        "dynamic_lstm": (dynamic_lstm, (torch.randn(2, 5, 32),), False),
    }


def as_list(out):
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in as_list(o)]
    if isinstance(out, dict):
        return [t for v in out.values() for t in as_list(v)]
    raise TypeError(f"unexpected output {type(out)}")


def save_atomic(obj, path):
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), suffix=".tmp")
    os.close(fd)
    torch.save(obj, tmp)
    os.replace(tmp, path)


def write_oracle(path, args):
    """NAME.inputs.pt and NAME.expected.pt for the saved model at `path`: the outputs of a fresh
    load of the file (the file's own answer, whatever the Python object did before saving)."""
    stem = path[:-3]
    m = torch.jit.load(path).eval()
    with torch.no_grad():
        out = as_list(m(*[a.clone() if isinstance(a, torch.Tensor) else a for a in args]))
    save_atomic(tuple(args), stem + ".inputs.pt")
    # a tuple: LibTorch 1.13 cannot read the APPEND opcode a one-element list pickles to
    save_atomic(tuple(o.dequantize() if o.is_quantized else o for o in out), stem + ".expected.pt")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name, (make, example, script) in models().items():
        path = os.path.join(args.out, name + ".pt")
        if not (os.path.exists(path) and os.path.exists(path[:-3] + ".expected.pt")):
            module = make() if callable(make) and not isinstance(make, nn.Module) else make
            module.eval()
            with torch.no_grad():
                ts = torch.jit.script(module) if script else torch.jit.trace(module, example)
            save_module(ts, path)
            write_oracle(path, example)
        print(f"{name}\t{path}")
    # The same models with records at unaligned offsets.
    for name in ("shared_storage", "dtypes", "kv_decoder"):
        path = os.path.join(args.out, name + "_unaligned.pt")
        if not (os.path.exists(path) and os.path.exists(path[:-3] + ".expected.pt")):
            unaligned(os.path.join(args.out, name + ".pt"), path)
            write_oracle(path, models()[name][1])
        print(f"{name}_unaligned\t{path}")
    crafted(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
