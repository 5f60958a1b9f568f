#!/usr/bin/env python3
"""Make the TorchScript models the dynamic-shape tests use (random weights, seeded, traced).

    /usr/bin/python3 models/make_dynamic_models.py --out ~/.cache/torch2onnx/dynamic_models

Writes OUT/<name>.pt and prints: name, path, --input specs (symbolic), --verify-dims. Beside each:
NAME.inputs.pt (torch2onnx's own random values for the specs, seed 0) and NAME.expected.pt
(Python's outputs of a fresh torch.jit.load on them), for --input-data and --expected-outputs.
"""
import argparse
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

from fixture_io import random_inputs, save_module, save_oracle


class Attention(nn.Module):
    """Multi-head self-attention written out, so the graph has the size()-driven reshapes that
    BERT and GPT implementations have."""

    def __init__(self, dim, heads, causal):
        super().__init__()
        self.heads, self.causal = heads, causal
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        b, t, c = x.size()
        q, k, v = self.qkv(x).split(c, dim=2)
        q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        if self.causal:
            causal = torch.tril(torch.ones(t, t, device=x.device, dtype=torch.bool))
            att = att.masked_fill(~causal, float("-inf"))
        if mask is not None:
            att = att.masked_fill(mask[:, None, None, :] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        return self.proj(y)


class Block(nn.Module):
    def __init__(self, dim, heads, causal):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = Attention(dim, heads, causal)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x, mask=None):
        x = x + self.attn(self.ln1(x), mask)
        return x + self.mlp(self.ln2(x))


class BertLike(nn.Module):
    def __init__(self, vocab=1000, dim=64, heads=4, layers=2, max_len=512):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(max_len, dim)
        self.blocks = nn.ModuleList([Block(dim, heads, causal=False) for _ in range(layers)])
        self.ln = nn.LayerNorm(dim)
        self.pool = nn.Linear(dim, dim)

    def forward(self, ids, mask):
        pos = torch.arange(ids.size(1), device=ids.device).unsqueeze(0)
        x = self.tok(ids) + self.pos(pos)
        for blk in self.blocks:
            x = blk(x, mask)
        x = self.ln(x)
        return x, torch.tanh(self.pool(x[:, 0]))


class GptLike(nn.Module):
    def __init__(self, vocab=1000, dim=64, heads=4, layers=2, max_len=512):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(max_len, dim)
        self.blocks = nn.ModuleList([Block(dim, heads, causal=True) for _ in range(layers)])
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, ids):
        pos = torch.arange(ids.size(1), device=ids.device).unsqueeze(0)
        x = self.tok(ids) + self.pos(pos)
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))


class CoarseLevels(nn.Module):
    """Feature levels down to stride 128 (RetinaNet/FCOS P3-P7, EfficientDet): the last level has
    ceil(h / 128) rows, 3 at both h = 320 and the second recording size 352, so only a third
    recording tells that its size (and the mean's divisor) follow h."""

    def __init__(self):
        super().__init__()
        self.down = nn.ModuleList(
            [nn.Conv2d(3 if i == 0 else 8, 8, 3, stride=2, padding=1) for i in range(7)])

    def forward(self, x):
        for conv in self.down:
            x = torch.relu(conv(x))
        n = x.shape[2] * x.shape[3]
        return x.sum((2, 3)) / n, x.view(x.size(0), x.size(1), -1)


class LogMelFrontend(nn.Module):
    """A Whisper-style audio frontend written by hand: a log-mel spectrogram from torch.stft
    (n_fft 400, hop 160 at 16 kHz), a stride-2 conv, a positional embedding sliced to the number
    of frames, and an energy envelope pooled over 160 samples and reshaped by its frame count.
    The frame counts (1 + t // 160, t // 160) are the same at t = 16000, 16032 and 16128, so only
    a third recording that grows t by more than the hop tells that they follow t."""

    def __init__(self, n_mels=16, width=24):
        super().__init__()
        self.register_buffer("window", torch.hann_window(400))
        self.register_buffer("mel", torch.rand(n_mels, 201) / 20)
        self.conv = nn.Conv1d(n_mels, width, 3, stride=2, padding=1)
        self.pos = nn.Parameter(torch.randn(400, width) * 0.1)

    def forward(self, wav):
        spec = torch.stft(wav, 400, 160, window=self.window, return_complex=True)
        power = spec.abs() ** 2
        mel = torch.log10(torch.clamp(self.mel @ power, min=1e-10))
        x = F.gelu(self.conv(mel)).permute(0, 2, 1)
        x = x + self.pos[: x.shape[1]]
        energy = F.avg_pool1d(wav.unsqueeze(1) ** 2, 160)
        energy = energy.reshape(energy.shape[0], energy.shape[2])
        return x, energy


class PadOrTrim(nn.Module):
    """Whisper's pad_or_trim (audio cut or zero-padded to 16000 samples) and a mean over at most
    the first 100 samples (x[:, :100], divided by its length): at t = 20000 and at every larger
    recording size both are the bound, so only a recording at a smaller t tells that below the
    bound they follow t."""

    def forward(self, wav):
        x = wav[..., :16000]
        x = F.pad(x, (0, 16000 - x.shape[-1]))
        head = wav[:, :100]
        return x, head.sum(1) / head.shape[1]


def models():
    torch.manual_seed(0)
    ids = torch.randint(0, 10, (2, 16))
    mask = torch.ones(2, 16, dtype=torch.long)
    return {
        "bert_like": (BertLike(), (ids, mask),
                      ["ids:i64[batch=2,seq=16]", "mask:i64[batch=2,seq=16]"], "batch=3,seq=7"),
        "gpt_like": (GptLike(), (ids,), ["ids:i64[batch=2,seq=16]"], "batch=1,seq=33"),
        "log_mel_frontend": (LogMelFrontend(), (torch.randn(2, 16000),),
                             ["wav:f32[batch=2,t=16000]"], "batch=1,t=12345"),
        "pad_or_trim": (PadOrTrim(), (torch.randn(2, 20000),), ["wav:f32[batch=2,t=20000]"],
                        "batch=1,t=60"),
        "coarse_levels": (CoarseLevels(), (torch.randn(1, 3, 320, 320),),
                          ["x:f32[1,3,h=320,w=320]"], "h=640,w=448"),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name, (module, example, specs, verify_dims) in models().items():
        path = os.path.join(args.out, name + ".pt")
        if not os.path.exists(path):
            module.eval()
            with torch.no_grad():
                traced = torch.jit.trace(module, example)
            save_module(traced, path)
        # NAME.inputs.pt / NAME.expected.pt: the oracle of the dynamic: ctests (models/fixture_io.py).
        save_oracle(path, inputs=random_inputs(specs))
        print(f"{name}\t{path}\t{' '.join(specs)}\t{verify_dims}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
