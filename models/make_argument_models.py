#!/usr/bin/env python3
"""Make the models and input files of tests/test_forward_args.cpp: forward signatures with
Optional, number, list and tuple arguments, models that only run on meaningful input values
(--input-data), a KV cache that forward writes into, and a causal mask full of -inf. Written the
way users write such models (scripted where they branch on arguments).

    /usr/bin/python3 models/make_argument_models.py --out ~/.cache/torch2onnx/argument_models

Writes OUT/<name>.pt and, for `pooled_text`, its example inputs as .npy (one per argument), .npz,
and torch.save'd tuple and dict (.pt). Every run rewrites them (they are small).
"""
import argparse
import math
import os
from typing import Optional, Tuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from fixture_io import save_module


class OptionalArgs(nn.Module):
    """An encoder block with an optional attention mask, a float scale and a flag, as in
    transformer code that takes `mask=None`."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(16, 16)
        self.norm = nn.LayerNorm(16)

    def forward(self, x, mask: Optional[torch.Tensor] = None, scale: float = 1.0,
                use_norm: bool = True):
        scores = torch.matmul(x, x.transpose(1, 2)) * scale / math.sqrt(16.0)
        if mask is not None:
            scores = scores.masked_fill(~mask[:, None, :], float("-inf"))
        y = torch.matmul(torch.softmax(scores, dim=-1), self.proj(x))
        if use_norm:
            y = self.norm(y)
        return y


class PooledText(nn.Module):
    """Mean of token embeddings over each sequence's length. It refuses unsorted lengths (as
    pack_padded_sequence does) and needs every id below the vocabulary size: random inputs fail."""

    def __init__(self, vocab: int = 1000, dim: int = 16):
        super().__init__()
        self.vocab = vocab
        self.embed = nn.Embedding(vocab, dim)
        self.out = nn.Linear(dim, 4)

    def forward(self, ids, lengths):
        if bool((lengths[1:] > lengths[:-1]).any()):
            raise ValueError("lengths must be sorted in decreasing order")
        if bool((lengths < 1).any()):
            raise ValueError("every sequence needs at least one token")
        steps = torch.arange(ids.size(1), device=ids.device)
        mask = (steps[None, :] < lengths[:, None]).to(torch.float32)
        emb = self.embed(ids) * mask[:, :, None]
        pooled = emb.sum(1) / lengths[:, None].to(torch.float32)
        return self.out(pooled)


class KvCache(nn.Module):
    """Attention over a key cache that forward writes into (LLaMA's cache_k), at start_pos."""

    def __init__(self):
        super().__init__()
        self.wk = nn.Linear(8, 8)
        self.wq = nn.Linear(8, 8)
        self.register_buffer("cache_k", torch.zeros(2, 32, 8))

    def forward(self, x, start_pos: int = 0):
        b, t, _ = x.shape
        self.cache_k[:b, start_pos:start_pos + t] = self.wk(x)
        keys = self.cache_k[:b, :start_pos + t]
        scores = torch.matmul(self.wq(x), keys.transpose(1, 2))
        return torch.softmax(scores, dim=-1)


class CountsCalls(nn.Module):
    """Assigns an attribute in forward: module state that changes between calls."""

    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return x * 2.0


class SelfAttention(nn.Module):
    """nn.MultiheadAttention as users call it: forward returns (output, weights), and the weights
    are None with need_weights=False (Tuple[Tensor, Optional[Tensor]] when scripted)."""

    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(16, 4, batch_first=True)

    def forward(self, x, need_weights: bool = False):
        return self.attn(x, x, x, need_weights=need_weights)


class CausalLM(nn.Module):
    """A GPT-style block whose causal mask buffer holds -inf above the diagonal."""

    def __init__(self, n: int = 16, dim: int = 16):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        mask = torch.full((n, n), float("-inf")).triu(1)
        self.register_buffer("mask", mask)

    def forward(self, x):
        t = x.size(1)
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        att = torch.matmul(q, k.transpose(1, 2)) / 4.0 + self.mask[:t, :t]
        return torch.matmul(torch.softmax(att, dim=-1), v)


class OptionalLengths(nn.Module):
    """Returns Optional[Tensor] output lengths, None when no lengths are given (torchaudio's
    scripted wav2vec2 and Conformer)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 4, 3, stride=2)

    def forward(self, x, lengths: Optional[torch.Tensor] = None
                ) -> Tuple[torch.Tensor, Optional[torch.Tensor]]:
        y = self.conv(x)
        if lengths is None:
            return y, None
        return y, torch.div(lengths - 3, 2, rounding_mode="floor") + 1


def save_inputs(out):
    torch.manual_seed(1)
    ids = torch.randint(0, 1000, (4, 12))
    lengths = torch.tensor([12, 9, 5, 2])
    np.save(os.path.join(out, "pooled_text.ids.npy"), ids.numpy())
    np.save(os.path.join(out, "pooled_text.lengths.npy"), lengths.numpy())
    np.savez(os.path.join(out, "pooled_text.named.npz"), lengths=lengths.numpy(), ids=ids.numpy())
    np.savez(os.path.join(out, "pooled_text.ordered.npz"), ids.numpy(), lengths.numpy())
    torch.save((ids, lengths), os.path.join(out, "pooled_text.tuple.pt"))
    torch.save({"lengths": lengths, "ids": ids}, os.path.join(out, "pooled_text.dict.pt"))
    np.savez(os.path.join(out, "pooled_text.lengths_only.npz"), lengths=lengths.numpy())
    torch.save({"lengths": lengths}, os.path.join(out, "pooled_text.one_entry.pt"))
    np.save(os.path.join(out, "kv_cache.x.npy"), torch.randn(2, 4, 8).numpy())
    np.save(os.path.join(out, "kv_cache.start_pos.npy"), np.int64(3))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    scripted = {
        "optional_args": OptionalArgs(),
        "pooled_text": PooledText(),
        "kv_cache": KvCache(),
        "counts_calls": CountsCalls(),
        "self_attention": SelfAttention(),
        "optional_lengths": OptionalLengths(),
    }
    for name, module in scripted.items():
        path = os.path.join(args.out, name + ".pt")
        save_module(torch.jit.script(module.eval()), path)
        print(f"{name}\t{path}")
    path = os.path.join(args.out, "causal_lm.pt")
    with torch.no_grad():
        save_module(torch.jit.trace(CausalLM().eval(), (torch.randn(2, 16, 16),)), path)
    print(f"causal_lm\t{path}")
    save_inputs(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
