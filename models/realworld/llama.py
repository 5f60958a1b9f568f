"""A LLaMA-style decoder written the way Meta's llama/model.py writes it: RMSNorm, rotary
embeddings as complex multiplication (freqs_cis = torch.polar(...) precomputed as a complex64
buffer, sliced by position; view_as_complex / view_as_real around the product), grouped-query
attention (n_kv_heads < n_heads, repeat_kv by expand + reshape), a SwiGLU MLP, the causal mask
built with triu/hstack, and a KV cache written by slice assignment (cache[:b, start:start+seq] = k):
into the module's buffers as Meta does (cache_in_buffer=True), or into a per-call copy of them.

The cache is prefilled (as after earlier tokens) and forward starts at position `start_pos`, so
the attention reads both cached and fresh keys."""
import math

import torch
import torch.nn.functional as F
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim) + 0.1 * torch.randn(dim))

    def _norm(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

    def forward(self, x):
        output = self._norm(x.float()).type_as(x)
        return output * self.weight


def precompute_freqs_cis(dim, end, theta=10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device)
    freqs = torch.outer(t, freqs).float()
    return torch.polar(torch.ones_like(freqs), freqs)  # complex64


def reshape_for_broadcast(freqs_cis, x):
    ndim = x.ndim
    assert freqs_cis.shape == (x.shape[1], x.shape[-1])
    shape = [d if i == 1 or i == ndim - 1 else 1 for i, d in enumerate(x.shape)]
    return freqs_cis.view(*shape)


def apply_rotary_emb(xq, xk, freqs_cis):
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    freqs_cis = reshape_for_broadcast(freqs_cis, xq_)
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


def repeat_kv(x, n_rep):
    bs, slen, n_kv_heads, head_dim = x.shape
    if n_rep == 1:
        return x
    return (
        x[:, :, :, None, :]
        .expand(bs, slen, n_kv_heads, n_rep, head_dim)
        .reshape(bs, slen, n_kv_heads * n_rep, head_dim)
    )


class Attention(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads, max_batch, max_seq, cache_in_buffer):
        super().__init__()
        self.cache_in_buffer = cache_in_buffer
        self.n_local_heads = n_heads
        self.n_local_kv_heads = n_kv_heads
        self.n_rep = n_heads // n_kv_heads
        self.head_dim = dim // n_heads
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=False)
        # Prefilled, as after earlier tokens: positions before start_pos hold keys and values.
        shape = (max_batch, max_seq, n_kv_heads, self.head_dim)
        self.register_buffer("cache_k", 0.5 * torch.randn(shape))
        self.register_buffer("cache_v", 0.5 * torch.randn(shape))

    def forward(self, x, start_pos: int, freqs_cis, mask):
        bsz, seqlen, _ = x.shape
        xq, xk, xv = self.wq(x), self.wk(x), self.wv(x)
        xq = xq.view(bsz, seqlen, self.n_local_heads, self.head_dim)
        xk = xk.view(bsz, seqlen, self.n_local_kv_heads, self.head_dim)
        xv = xv.view(bsz, seqlen, self.n_local_kv_heads, self.head_dim)
        xq, xk = apply_rotary_emb(xq, xk, freqs_cis=freqs_cis)

        self.cache_k = self.cache_k.to(xq)
        self.cache_v = self.cache_v.to(xq)
        if self.cache_in_buffer:  # Meta's code: the buffers are the cache, written in place
            cache_k, cache_v = self.cache_k, self.cache_v
        else:  # a copy per call: the module's buffers are not mutated
            cache_k, cache_v = self.cache_k.clone(), self.cache_v.clone()
        cache_k[:bsz, start_pos : start_pos + seqlen] = xk
        cache_v[:bsz, start_pos : start_pos + seqlen] = xv
        keys = cache_k[:bsz, : start_pos + seqlen]
        values = cache_v[:bsz, : start_pos + seqlen]

        keys = repeat_kv(keys, self.n_rep)
        values = repeat_kv(values, self.n_rep)
        xq = xq.transpose(1, 2)
        keys = keys.transpose(1, 2)
        values = values.transpose(1, 2)
        scores = torch.matmul(xq, keys.transpose(2, 3)) / math.sqrt(self.head_dim)
        if mask is not None:
            scores = scores + mask
        scores = F.softmax(scores.float(), dim=-1).type_as(xq)
        output = torch.matmul(scores, values)
        output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)
        return self.wo(output)


class FeedForward(nn.Module):
    def __init__(self, dim, hidden_dim, multiple_of):
        super().__init__()
        hidden_dim = int(2 * hidden_dim / 3)
        hidden_dim = multiple_of * ((hidden_dim + multiple_of - 1) // multiple_of)
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class TransformerBlock(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads, max_batch, max_seq, multiple_of, cache_in_buffer):
        super().__init__()
        self.attention = Attention(dim, n_heads, n_kv_heads, max_batch, max_seq, cache_in_buffer)
        self.feed_forward = FeedForward(dim, 4 * dim, multiple_of)
        self.attention_norm = RMSNorm(dim)
        self.ffn_norm = RMSNorm(dim)

    def forward(self, x, start_pos: int, freqs_cis, mask):
        h = x + self.attention(self.attention_norm(x), start_pos, freqs_cis, mask)
        return h + self.feed_forward(self.ffn_norm(h))


class Transformer(nn.Module):
    def __init__(self, dim=64, n_layers=2, n_heads=4, n_kv_heads=2, vocab_size=128,
                 multiple_of=32, max_batch=1, max_seq=16, start_pos=4, cache_in_buffer=True):
        super().__init__()
        self.start_pos = start_pos
        self.tok_embeddings = nn.Embedding(vocab_size, dim)
        self.layers = nn.ModuleList(
            TransformerBlock(dim, n_heads, n_kv_heads, max_batch, max_seq, multiple_of,
                             cache_in_buffer)
            for _ in range(n_layers))
        self.norm = RMSNorm(dim)
        self.output = nn.Linear(dim, vocab_size, bias=False)
        self.register_buffer("freqs_cis", precompute_freqs_cis(dim // n_heads, max_seq * 2),
                             persistent=False)

    def forward(self, tokens):
        start_pos = self.start_pos
        _bsz, seqlen = tokens.shape
        h = self.tok_embeddings(tokens)
        self.freqs_cis = self.freqs_cis.to(h.device)
        freqs_cis = self.freqs_cis[start_pos : start_pos + seqlen]
        mask = None
        if seqlen > 1:
            mask = torch.full((seqlen, seqlen), float("-inf"), device=tokens.device)
            mask = torch.triu(mask, diagonal=1)
            mask = torch.hstack([torch.zeros((seqlen, start_pos), device=tokens.device), mask]).type_as(h)
        for layer in self.layers:
            h = layer(h, start_pos, freqs_cis, mask)
        h = self.norm(h)
        return self.output(h).float()


def make(name, seq=8, **kwargs):
    model = Transformer(**kwargs).eval()
    vocab = model.output.out_features
    tokens = torch.randint(0, vocab, (1, seq))
    # Tracing runs forward, which writes the cache: trace a copy so the saved module keeps the
    # prefilled cache it was built with (LibTorch and ONNX then start from the same contents).
    with torch.no_grad():
        state = {k: v.clone() for k, v in model.state_dict().items()}
        traced = torch.jit.trace(model, (tokens,), check_trace=False)
        model.load_state_dict(state)
    return traced, [tokens]
