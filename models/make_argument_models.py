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
from typing import Dict, List, Optional, Tuple

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
    """Assigns an attribute in forward: module state that changes between calls (the ONNX file
    computes every call as the first call of a freshly loaded module)."""

    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return x * 2.0 + self.calls


class RotaryCache(nn.Module):
    """Hugging Face's rotary embedding: a cos/sin cache for max_position positions that forward
    grows when a longer sequence comes (`if seq_len > self.max_seq_len_cached:
    self._set_cos_sin_cache(seq_len)`, attributes assigned in a branch), then slices."""

    def __init__(self, dim: int = 8, max_position: int = 16):
        super().__init__()
        inv_freq = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self._set_cos_sin_cache(max_position)

    def _set_cos_sin_cache(self, seq_len: int):
        self.max_seq_len_cached = seq_len
        t = torch.arange(seq_len, dtype=self.inv_freq.dtype)
        freqs = torch.outer(t, self.inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.cos_cached = emb.cos()
        self.sin_cached = emb.sin()

    def forward(self, x):
        seq_len = x.shape[1]
        if seq_len > self.max_seq_len_cached:
            self._set_cos_sin_cache(seq_len)
        cos, sin = self.cos_cached[:seq_len], self.sin_cached[:seq_len]
        rotated = torch.cat((-x[..., 4:], x[..., :4]), dim=-1)
        return x * cos + rotated * sin


def save_rotary_cache(out):
    """rotary_cache (scripted) with inputs at 5 and 40 positions (.inputs<t>.pt; 40 grows the
    cache) and what the first call of a fresh torch.jit.load gives on each (.expected<t>.pt)."""
    torch.manual_seed(5)
    path = os.path.join(out, "rotary_cache.pt")
    save_module(torch.jit.script(RotaryCache().eval()), path)
    for t in (5, 40):
        x = torch.randn(2, t, 8)
        with torch.no_grad():
            y = torch.jit.load(path)(x)
        torch.save((x,), os.path.join(out, f"rotary_cache.inputs{t}.pt"))
        torch.save(y, os.path.join(out, f"rotary_cache.expected{t}.pt"))
    x = torch.randn(2)
    with torch.no_grad():
        y = torch.jit.load(os.path.join(out, "counts_calls.pt"))(x)
    torch.save((x,), os.path.join(out, "counts_calls.inputs.pt"))
    torch.save(y, os.path.join(out, "counts_calls.expected.pt"))
    print(f"rotary_cache\t{path}")


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


class CachedBlock(nn.Module):
    """One decoder block with a key/value cache, the way Hugging Face decoders write it: the past
    keys and values ([batch, heads, past, head_dim]) are concatenated before the new ones, and the
    causal mask is offset by the past length."""

    def __init__(self, dim: int = 32, heads: int = 4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x, past: Tuple[torch.Tensor, torch.Tensor]
                ) -> Tuple[torch.Tensor, Tuple[torch.Tensor, torch.Tensor]]:
        b, t, d = x.shape
        hd = d // self.heads
        q, k, v = self.qkv(self.norm(x)).split(d, dim=-1)
        q = q.view(b, t, self.heads, hd).transpose(1, 2)
        k = torch.cat([past[0], k.view(b, t, self.heads, hd).transpose(1, 2)], dim=2)
        v = torch.cat([past[1], v.view(b, t, self.heads, hd).transpose(1, 2)], dim=2)
        p = past[0].size(2)
        att = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(hd)
        keep = torch.ones(t, p + t, dtype=torch.bool, device=x.device).tril(p)
        att = att.masked_fill(~keep, float("-inf"))
        y = torch.matmul(torch.softmax(att, dim=-1), v).transpose(1, 2).reshape(b, t, d)
        return x + self.proj(y), (k, v)


class PastKeyValuesLM(nn.Module):
    """A two-layer decoder taking past_key_values as a tuple of (key, value) pairs, one per layer,
    and returning the logits and the new pairs (Hugging Face's legacy cache format, traced)."""

    def __init__(self, vocab: int = 50, dim: int = 32):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList([CachedBlock(dim), CachedBlock(dim)])
        self.head = nn.Linear(dim, vocab)

    def forward(self, input_ids, past_key_values):
        x = self.emb(input_ids)
        presents = []
        for block, past in zip(self.blocks, past_key_values):
            x, present = block(x, past)
            presents.append(present)
        return self.head(x), tuple(presents)


class ScriptedPastLM(PastKeyValuesLM):
    """The same, scripted, with the cache as a List[Tuple[Tensor, Tensor]]."""

    def forward(self, input_ids, past_key_values: List[Tuple[torch.Tensor, torch.Tensor]]
                ) -> Tuple[torch.Tensor, List[Tuple[torch.Tensor, torch.Tensor]]]:
        x = self.emb(input_ids)
        presents: List[Tuple[torch.Tensor, torch.Tensor]] = []
        for i, block in enumerate(self.blocks):
            x, present = block(x, past_key_values[i])
            presents.append(present)
        return self.head(x), presents


class DictBatch(nn.Module):
    """forward(batch: Dict[str, Tensor]) -> Dict[str, Tensor], as data-loader-driven training code
    writes it: an image, token ids and their padding mask by key, and an optional key tested with
    `in`."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.emb = nn.Embedding(20, 8)
        self.head = nn.Linear(8, 4)

    def forward(self, batch: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
        img = self.conv(batch["image"]).mean(dim=(2, 3))
        mask = batch["mask"].unsqueeze(-1).float()
        txt = (self.emb(batch["tokens"]) * mask).sum(1) / mask.sum(1).clamp(min=1)
        out = {"logits": self.head(img + txt)}
        if "scale" in batch:
            out["logits"] = out["logits"] * batch["scale"]
        return out


class StepSchedule(nn.Module):
    """A sampler whose step count is an argument (diffusers' num_inference_steps): timesteps from
    torch.arange(0, 1000, 1000 // num_steps), looped over by their count, and a weight vector of
    num_steps entries whose size is read back. Every size here follows num_steps' value."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.register_buffer("alphas", torch.linspace(0.99, 0.5, 1000))

    def forward(self, x, num_steps: int):
        timesteps = torch.arange(0, 1000, 1000 // num_steps).flip(0)
        for i in range(timesteps.shape[0]):
            a = self.alphas[timesteps[i]]
            x = a.sqrt() * x + (1 - a).sqrt() * torch.tanh(self.proj(x))
        w = torch.linspace(0, 1, num_steps)
        return x, x.mean(-1, keepdim=True) * w.numel() + w[: x.shape[0]].sum()


def save_step_schedule(out):
    """step_schedule (scripted) with (x, num_steps) at 5, 8 and 3 steps (.inputs<n>.pt) and what
    torch.jit.load of the saved file returns on each (.expected<n>.pt)."""
    torch.manual_seed(4)
    path = os.path.join(out, "step_schedule.pt")
    save_module(torch.jit.script(StepSchedule().eval()), path)
    x = torch.randn(2, 8)
    for n in (5, 8, 3):
        with torch.no_grad():
            y = torch.jit.load(path)(x, n)
        torch.save((x, torch.tensor(n)), os.path.join(out, f"step_schedule.inputs{n}.pt"))
        torch.save(y, os.path.join(out, f"step_schedule.expected{n}.pt"))
    print(f"step_schedule\t{path}")


def save_dict_models(out):
    """dict_batch (scripted) and dict_batch_traced, with (batch,) as .inputs.pt and the outputs
    torch.jit.load of each saved file gives on it as a tuple (.expected.pt; LibTorch cannot read a
    one-entry dict)."""
    torch.manual_seed(3)
    model = DictBatch().eval()
    batch = {"image": torch.randn(3, 3, 12, 12), "tokens": torch.randint(0, 20, (3, 6)),
             "mask": torch.ones(3, 6, dtype=torch.bool)}
    batch["mask"][1, 4:] = False
    with torch.no_grad():
        traced = torch.jit.trace(model, (batch,), strict=False)
    for name, module in (("dict_batch", torch.jit.script(model)), ("dict_batch_traced", traced)):
        path = os.path.join(out, name + ".pt")
        save_module(module, path)
        with torch.no_grad():
            y = torch.jit.load(path)(batch)
        torch.save((batch,), os.path.join(out, name + ".inputs.pt"))
        torch.save(tuple(y.values()), os.path.join(out, name + ".expected.pt"))
        print(f"{name}\t{path}")


def past_example(batch: int = 2, seq: int = 3, past: int = 5):
    ids = torch.randint(0, 50, (batch, seq))
    pkv = tuple((torch.randn(batch, 4, past, 8), torch.randn(batch, 4, past, 8)) for _ in range(2))
    return ids, pkv


def save_past_models(out):
    """past_lm (traced) and past_lm_scripted, with an example (.inputs.pt: (ids, cache)) and what
    torch.jit.load of each saved file returns on it (.expected.pt)."""
    torch.manual_seed(2)
    traced_model = PastKeyValuesLM().eval()
    ids, pkv = past_example()
    with torch.no_grad():
        traced = torch.jit.trace(traced_model, (ids, pkv))
    scripted_model = ScriptedPastLM().eval()
    scripted_model.load_state_dict(traced_model.state_dict())
    scripted = torch.jit.script(scripted_model)
    for name, module, cache in (("past_lm", traced, pkv), ("past_lm_scripted", scripted,
                                                            list(pkv))):
        path = os.path.join(out, name + ".pt")
        save_module(module, path)
        ids2, pkv2 = past_example(batch=3, seq=4, past=7)
        cache2 = pkv2 if name == "past_lm" else list(pkv2)
        with torch.no_grad():
            expected = torch.jit.load(path)(ids2, cache2)
        torch.save((ids2, cache2), os.path.join(out, name + ".inputs.pt"))
        torch.save(expected, os.path.join(out, name + ".expected.pt"))
        print(f"{name}\t{path}")


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
    x = torch.randn(2, 4, 8)
    np.save(os.path.join(out, "kv_cache.x.npy"), x.numpy())
    np.save(os.path.join(out, "kv_cache.start_pos.npy"), np.int64(3))
    # start_pos as an ONNX input: what the saved file returns at two positions, each from a fresh
    # load (forward writes into its cache).
    np.save(os.path.join(out, "kv_cache.start_pos11.npy"), np.int64(11))
    for pos in (3, 11):
        with torch.no_grad():
            y = torch.jit.load(os.path.join(out, "kv_cache.pt"))(x, pos)
        torch.save(y, os.path.join(out, f"kv_cache.expected{pos}.pt"))
    # scale and use_norm as ONNX inputs (0-d tensors in the saved tuple), both branches.
    x = torch.randn(2, 5, 16)
    for flag in (True, False):
        torch.save((x, None, torch.tensor(0.7), torch.tensor(flag)),
                   os.path.join(out, f"optional_args.inputs_{int(flag)}.pt"))
        torch.save((x, None, 0.7, flag), os.path.join(out, f"optional_args.pynum_{int(flag)}.pt"))
        with torch.no_grad():
            y = torch.jit.load(os.path.join(out, "optional_args.pt"))(x, None, 0.7, flag)
        torch.save(y, os.path.join(out, f"optional_args.expected_{int(flag)}.pt"))


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
    save_past_models(args.out)
    save_dict_models(args.out)
    save_step_schedule(args.out)
    save_rotary_cache(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
