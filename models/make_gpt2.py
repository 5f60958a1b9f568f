#!/usr/bin/env python3
"""GPT-2-style decoders for the LLM-scale benchmark (bench/benchmark.py, `make bench-llm`).

Written the way users write them: an nn.Module with LayerNorm, one fused qkv nn.Linear, a causal
mask registered as a buffer, a GELU MLP and an LM head tied to the token embedding
(lm_head.weight = wte.weight). Random weights (seed 0), traced on ids [1,128] and saved with
torch.jit.save. Run with Debian's /usr/bin/python3:

    /usr/bin/python3 models/make_gpt2.py --out DIR gpt2_355m [gpt2_1_3b] [gpt2_tiny]

Configs: gpt2_355m (GPT-2 medium: 24 layers, width 1024, 16 heads, vocab 50257, 1.42 GB fp32),
gpt2_1_3b (GPT-2 XL-like: 24 layers, width 2048, 16 heads, 5.2 GB fp32) and gpt2_tiny (2 layers,
width 64, vocab 1000: for tests). An existing file is kept (delete it to remake it).
"""
import argparse
import math
import os
import sys

import torch
import torch.nn as nn

CONFIGS = {
    # name: (layers, width, heads, vocab, context)
    "gpt2_355m": (24, 1024, 16, 50257, 1024),
    "gpt2_1_3b": (24, 2048, 16, 50257, 1024),
    "gpt2_tiny": (2, 64, 4, 1000, 128),
}
SEQ = 128


class Attention(nn.Module):
    def __init__(self, width, heads, context):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        mask = torch.tril(torch.ones(context, context, dtype=torch.bool))
        self.register_buffer("mask", mask.view(1, 1, context, context))

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(~self.mask[:, :, :t, :t], float("-inf"))
        att = torch.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        return self.proj(y)


class Block(nn.Module):
    def __init__(self, width, heads, context):
        super().__init__()
        self.ln1 = nn.LayerNorm(width)
        self.attn = Attention(width, heads, context)
        self.ln2 = nn.LayerNorm(width)
        self.fc = nn.Linear(width, 4 * width)
        self.act = nn.GELU()
        self.out = nn.Linear(4 * width, width)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.out(self.act(self.fc(self.ln2(x))))


class GPT2(nn.Module):
    def __init__(self, layers, width, heads, vocab, context):
        super().__init__()
        self.wte = nn.Embedding(vocab, width)
        self.wpe = nn.Embedding(context, width)
        self.blocks = nn.ModuleList([Block(width, heads, context) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(width)
        self.lm_head = nn.Linear(width, vocab, bias=False)
        self.lm_head.weight = self.wte.weight  # tied

    def forward(self, ids):
        t = ids.size(1)
        pos = torch.arange(0, t, dtype=torch.long, device=ids.device).unsqueeze(0)
        x = self.wte(ids) + self.wpe(pos)
        for block in self.blocks:
            x = block(x)
        return self.lm_head(self.ln_f(x))


def make(name, out):
    path = os.path.join(out, name + ".pt")
    if os.path.exists(path):
        return path
    torch.manual_seed(0)
    model = GPT2(*CONFIGS[name]).eval()
    for p in model.parameters():  # keep activations in range over 24 layers
        p.data.mul_(0.5)
    vocab = CONFIGS[name][3]
    ids = torch.randint(0, vocab, (1, SEQ))
    with torch.no_grad():
        traced = torch.jit.trace(model, (ids,))
    tmp = path + ".tmp"
    traced.save(tmp)
    os.replace(tmp, path)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("names", nargs="+", choices=sorted(CONFIGS))
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    for n in a.names:
        print(make(n, a.out))


if __name__ == "__main__":
    sys.exit(main())
