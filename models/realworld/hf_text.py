"""Language-model pieces written the way HF transformers writes them, small (hidden 32-64):

- bert: word + position + token_type embeddings, position_ids a registered buffer sliced to the
  sequence length, token_type_ids defaulting to a buffer of zeros expanded, attention_mask [B, T]
  turned into the extended mask (1.0 - mask[:, None, None, :]) * torch.finfo(dtype).min,
  scores / sqrt(d) + mask, softmax, pooler (tanh on the first token);
- neox: GPT-NeoX / LLaMA rotary embedding without complex numbers: inv_freq buffer, cos/sin caches
  built from einsum("i,j->ij") and sliced to seq_len, rotate_half by slicing and cat, partial
  rotary (rotary_pct), a causal mask from a tril buffer with torch.where and finfo.min, position_ids
  as an input;
- t5: T5 relative position buckets (bidirectional): abs, log of a float ratio, min with
  full_like, where on int64 tensors, an nn.Embedding bias [heads] permuted to [1, H, q, k], RMS
  T5LayerNorm (variance in float32), attention without scaling;
- mistral: sliding-window causal mask (triu / tril with diagonal offsets, masked_fill with
  finfo.min) with grouped-query attention (repeat_kv by expand + reshape) and RMSNorm, LLaMA-style
  rotary embedding.
"""
import math
from typing import Optional

import torch
import torch.nn.functional as F
from torch import nn

VOCAB = 100


# ---- BERT ----------------------------------------------------------------------------------

class BertEmbeddings(nn.Module):
    def __init__(self, d, max_pos=64):
        super().__init__()
        self.word_embeddings = nn.Embedding(VOCAB, d, padding_idx=0)
        self.position_embeddings = nn.Embedding(max_pos, d)
        self.token_type_embeddings = nn.Embedding(2, d)
        self.LayerNorm = nn.LayerNorm(d, eps=1e-12)
        self.dropout = nn.Dropout(0.1)
        self.register_buffer("position_ids", torch.arange(max_pos).expand((1, -1)), persistent=False)
        self.register_buffer("token_type_ids", torch.zeros(self.position_ids.size(), dtype=torch.long),
                             persistent=False)

    def forward(self, input_ids, token_type_ids: Optional[torch.Tensor] = None):
        seq_length = input_ids.size(1)
        position_ids = self.position_ids[:, 0:seq_length]
        if token_type_ids is None:
            token_type_ids = self.token_type_ids[:, :seq_length].expand(input_ids.size(0), seq_length)
        e = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        e = e + self.position_embeddings(position_ids)
        return self.dropout(self.LayerNorm(e))


class BertLayer(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads, self.head_dim = heads, d // heads
        self.query, self.key, self.value = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.dense = nn.Linear(d, d)
        self.ln1 = nn.LayerNorm(d, eps=1e-12)
        self.intermediate = nn.Linear(d, 4 * d)
        self.output = nn.Linear(4 * d, d)
        self.ln2 = nn.LayerNorm(d, eps=1e-12)

    def transpose_for_scores(self, x):
        new_shape = x.size()[:-1] + (self.heads, self.head_dim)
        return x.view(new_shape).permute(0, 2, 1, 3)

    def forward(self, h, ext_mask):
        q = self.transpose_for_scores(self.query(h))
        k = self.transpose_for_scores(self.key(h))
        v = self.transpose_for_scores(self.value(h))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        scores = scores + ext_mask
        probs = nn.functional.softmax(scores, dim=-1)
        ctx = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
        ctx = ctx.view(ctx.size()[:-2] + (self.heads * self.head_dim,))
        h = self.ln1(self.dense(ctx) + h)
        return self.ln2(self.output(F.gelu(self.intermediate(h))) + h)


class Bert(nn.Module):
    def __init__(self, d=32, heads=4, layers=2):
        super().__init__()
        self.embeddings = BertEmbeddings(d)
        self.layers = nn.ModuleList([BertLayer(d, heads) for _ in range(layers)])
        self.pooler = nn.Linear(d, d)

    def forward(self, input_ids, attention_mask, token_type_ids: Optional[torch.Tensor] = None):
        h = self.embeddings(input_ids, token_type_ids)
        ext = attention_mask[:, None, None, :].to(dtype=h.dtype)
        ext = (1.0 - ext) * torch.finfo(h.dtype).min
        for layer in self.layers:
            h = layer(h, ext)
        return h, torch.tanh(self.pooler(h[:, 0]))


class BertNoTypes(Bert):
    def forward(self, input_ids, attention_mask):
        return super().forward(input_ids, attention_mask)


# ---- rotary (GPT-NeoX / LLaMA) --------------------------------------------------------------

class RotaryEmbedding(nn.Module):
    def __init__(self, dim, max_pos=64, base=10000):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        t = torch.arange(max_pos, dtype=self.inv_freq.dtype)
        freqs = torch.einsum("i,j->ij", t, self.inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos_cached", emb.cos()[None, None, :, :], persistent=False)
        self.register_buffer("sin_cached", emb.sin()[None, None, :, :], persistent=False)

    def forward(self, x, seq_len: int):
        return self.cos_cached[:, :, :seq_len, ...].to(x.dtype), self.sin_cached[:, :, :seq_len, ...].to(x.dtype)


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, position_ids):
    cos = cos.squeeze(1).squeeze(0)  # [seq, dim]
    sin = sin.squeeze(1).squeeze(0)
    cos = cos[position_ids].unsqueeze(1)  # [bs, 1, seq, dim]
    sin = sin[position_ids].unsqueeze(1)
    return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)


class NeoXAttention(nn.Module):
    def __init__(self, d, heads, rotary_pct=0.5, max_pos=64):
        super().__init__()
        self.heads, self.head_size = heads, d // heads
        self.rotary_ndims = int(self.head_size * rotary_pct)
        self.rotary_emb = RotaryEmbedding(self.rotary_ndims, max_pos)
        self.query_key_value = nn.Linear(d, 3 * d)
        self.dense = nn.Linear(d, d)
        self.norm_factor = math.sqrt(self.head_size)
        self.register_buffer("bias", torch.tril(torch.ones((max_pos, max_pos), dtype=torch.bool))
                             .view(1, 1, max_pos, max_pos), persistent=False)

    def forward(self, h, attention_mask, position_ids):
        qkv = self.query_key_value(h)
        new_shape = qkv.size()[:-1] + (self.heads, 3 * self.head_size)
        qkv = qkv.view(*new_shape)
        q = qkv[..., : self.head_size].permute(0, 2, 1, 3)
        k = qkv[..., self.head_size: 2 * self.head_size].permute(0, 2, 1, 3)
        v = qkv[..., 2 * self.head_size:].permute(0, 2, 1, 3)
        q_rot, q_pass = q[..., : self.rotary_ndims], q[..., self.rotary_ndims:]
        k_rot, k_pass = k[..., : self.rotary_ndims], k[..., self.rotary_ndims:]
        seq_len = k.shape[-2]
        cos, sin = self.rotary_emb(v, seq_len=seq_len)
        q, k = apply_rotary_pos_emb(q_rot, k_rot, cos, sin, position_ids)
        q = torch.cat((q, q_pass), dim=-1)
        k = torch.cat((k, k_pass), dim=-1)
        b, nh, ql, hs = q.size()
        kl = k.size(-2)
        causal = self.bias[:, :, kl - ql: kl, :kl]
        scores = torch.matmul(q, k.transpose(-1, -2)) / self.norm_factor
        mask_value = torch.finfo(scores.dtype).min
        mask_value = torch.tensor(mask_value, dtype=scores.dtype).to(scores.device)
        scores = torch.where(causal, scores, mask_value)
        scores = scores + attention_mask
        w = nn.functional.softmax(scores, dim=-1)
        out = torch.matmul(w, v).permute(0, 2, 1, 3).contiguous().view(b, ql, nh * hs)
        return self.dense(out)


class NeoX(nn.Module):
    def __init__(self, d=32, heads=4, layers=2):
        super().__init__()
        self.embed_in = nn.Embedding(VOCAB, d)
        self.ln = nn.ModuleList([nn.LayerNorm(d) for _ in range(layers)])
        self.attn = nn.ModuleList([NeoXAttention(d, heads) for _ in range(layers)])
        self.mlp = nn.ModuleList([nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
                                  for _ in range(layers)])
        self.final = nn.LayerNorm(d)
        self.embed_out = nn.Linear(d, VOCAB, bias=False)

    def forward(self, input_ids, attention_mask, position_ids):
        h = self.embed_in(input_ids)
        mask = attention_mask[:, None, None, :].to(dtype=h.dtype)
        mask = (1.0 - mask) * torch.finfo(h.dtype).min
        for ln, attn, mlp in zip(self.ln, self.attn, self.mlp):
            x = ln(h)
            h = h + attn(x, mask, position_ids) + mlp(x)  # parallel residual
        return self.embed_out(self.final(h))


# ---- T5 relative position buckets -------------------------------------------------------------

class T5LayerNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d) + 0.1 * torch.randn(d))
        self.variance_epsilon = eps

    def forward(self, h):
        variance = h.to(torch.float32).pow(2).mean(-1, keepdim=True)
        h = h * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * h


def relative_position_bucket(relative_position, bidirectional: bool = True, num_buckets: int = 32,
                             max_distance: int = 128):
    relative_buckets = torch.zeros_like(relative_position)
    if bidirectional:
        num_buckets //= 2
        relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = torch.abs(relative_position)
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    rel_if_large = max_exact + (
        torch.log(relative_position.float() / max_exact) / math.log(max_distance / max_exact)
        * (num_buckets - max_exact)).to(torch.long)
    rel_if_large = torch.min(rel_if_large, torch.full_like(rel_if_large, num_buckets - 1))
    relative_buckets += torch.where(is_small, relative_position, rel_if_large)
    return relative_buckets


class T5Attention(nn.Module):
    def __init__(self, d, heads, has_bias, bidirectional, buckets=32, max_distance=128):
        super().__init__()
        self.heads, self.kv = heads, d // heads
        self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False) for _ in range(4))
        self.has_bias, self.bidirectional = has_bias, bidirectional
        self.buckets, self.max_distance = buckets, max_distance
        if has_bias:
            self.relative_attention_bias = nn.Embedding(buckets, heads)

    def compute_bias(self, query_length: int, key_length: int, device: torch.device):
        context_position = torch.arange(query_length, dtype=torch.long, device=device)[:, None]
        memory_position = torch.arange(key_length, dtype=torch.long, device=device)[None, :]
        relative_position = memory_position - context_position
        bucket = relative_position_bucket(relative_position, self.bidirectional, self.buckets, self.max_distance)
        values = self.relative_attention_bias(bucket)
        return values.permute([2, 0, 1]).unsqueeze(0)

    def forward(self, h, mask, position_bias: Optional[torch.Tensor] = None):
        b, n, _ = h.shape

        def shape(x):
            return x.view(b, -1, self.heads, self.kv).transpose(1, 2)

        q, k, v = shape(self.q(h)), shape(self.k(h)), shape(self.v(h))
        scores = torch.matmul(q, k.transpose(3, 2))
        if position_bias is None:
            position_bias = self.compute_bias(n, n, scores.device)
            position_bias = position_bias + mask
        scores += position_bias
        w = nn.functional.softmax(scores.float(), dim=-1).type_as(scores)
        out = torch.matmul(w, v).transpose(1, 2).contiguous().view(b, -1, self.heads * self.kv)
        return self.o(out), position_bias


class T5Encoder(nn.Module):
    def __init__(self, d=32, heads=4, layers=2, bidirectional=True):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, d)
        self.norms = nn.ModuleList([T5LayerNorm(d) for _ in range(2 * layers)])
        self.attn = nn.ModuleList([T5Attention(d, heads, i == 0, bidirectional) for i in range(layers)])
        self.ff = nn.ModuleList([nn.Sequential(nn.Linear(d, 2 * d, bias=False), nn.ReLU(), nn.Linear(2 * d, d, bias=False))
                                 for _ in range(layers)])
        self.final = T5LayerNorm(d)

    def forward(self, input_ids, attention_mask):
        h = self.embed(input_ids)
        mask = attention_mask[:, None, None, :].to(h.dtype)
        mask = (1.0 - mask) * torch.finfo(h.dtype).min
        position_bias: Optional[torch.Tensor] = None
        for i, (attn, ff) in enumerate(zip(self.attn, self.ff)):
            y, position_bias = attn(self.norms[2 * i](h), mask, position_bias)
            h = h + y
            h = h + ff(self.norms[2 * i + 1](h))
        return self.final(h)


# ---- Mistral sliding window ---------------------------------------------------------------------

class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, h):
        dtype = h.dtype
        h = h.to(torch.float32)
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * h.to(dtype)


def sliding_window_causal_mask(input_ids_shape: torch.Size, dtype: torch.dtype, device: torch.device,
                               sliding_window: int):
    bsz, tgt_len = input_ids_shape
    tensor = torch.full((tgt_len, tgt_len), fill_value=1, device=device)
    mask = torch.tril(tensor, diagonal=0)
    mask = torch.triu(mask, diagonal=-sliding_window)
    mask = torch.log(mask).to(dtype)
    return mask[None, None, :, :].expand(bsz, 1, tgt_len, tgt_len)


def repeat_kv(h, n_rep: int):
    b, kvh, slen, hd = h.shape
    if n_rep == 1:
        return h
    h = h[:, :, None, :, :].expand(b, kvh, n_rep, slen, hd)
    return h.reshape(b, kvh * n_rep, slen, hd)


class MistralAttention(nn.Module):
    def __init__(self, d, heads, kv_heads):
        super().__init__()
        self.heads, self.kv_heads, self.hd = heads, kv_heads, d // heads
        self.q_proj = nn.Linear(d, heads * self.hd, bias=False)
        self.k_proj = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.v_proj = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.o_proj = nn.Linear(d, d, bias=False)
        self.rotary_emb = RotaryEmbedding(self.hd)

    def forward(self, h, mask, position_ids):
        b, n, _ = h.size()
        q = self.q_proj(h).view(b, n, self.heads, self.hd).transpose(1, 2)
        k = self.k_proj(h).view(b, n, self.kv_heads, self.hd).transpose(1, 2)
        v = self.v_proj(h).view(b, n, self.kv_heads, self.hd).transpose(1, 2)
        cos, sin = self.rotary_emb(v, seq_len=n)
        q, k = apply_rotary_pos_emb(q, k, cos, sin, position_ids)
        k = repeat_kv(k, self.heads // self.kv_heads)
        v = repeat_kv(v, self.heads // self.kv_heads)
        w = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.hd)
        w = nn.functional.softmax(w + mask, dim=-1, dtype=torch.float32).to(q.dtype)
        return self.o_proj(torch.matmul(w, v).transpose(1, 2).reshape(b, n, -1))


class Mistral(nn.Module):
    def __init__(self, d=32, heads=4, kv_heads=2, layers=2, window=4):
        super().__init__()
        self.window = window
        self.embed_tokens = nn.Embedding(VOCAB, d)
        self.norms = nn.ModuleList([RMSNorm(d) for _ in range(2 * layers)])
        self.attn = nn.ModuleList([MistralAttention(d, heads, kv_heads) for _ in range(layers)])
        self.gate = nn.ModuleList([nn.Linear(d, 2 * d, bias=False) for _ in range(layers)])
        self.up = nn.ModuleList([nn.Linear(d, 2 * d, bias=False) for _ in range(layers)])
        self.down = nn.ModuleList([nn.Linear(2 * d, d, bias=False) for _ in range(layers)])
        self.norm = RMSNorm(d)
        self.lm_head = nn.Linear(d, VOCAB, bias=False)

    def forward(self, input_ids, attention_mask):
        b, n = input_ids.shape
        h = self.embed_tokens(input_ids)
        position_ids = torch.arange(0, n, dtype=torch.long, device=input_ids.device).unsqueeze(0).view(-1, n)
        mask = sliding_window_causal_mask(input_ids.shape, h.dtype, h.device, self.window)
        pad = attention_mask[:, None, None, :].expand(b, 1, n, n).to(h.dtype)
        inverted = 1.0 - pad
        mask = mask + inverted.masked_fill(inverted.to(torch.bool), torch.finfo(h.dtype).min)
        for i in range(len(self.attn)):
            h = h + self.attn[i](self.norms[2 * i](h), mask, position_ids)
            x = self.norms[2 * i + 1](h)
            h = h + self.down[i](F.silu(self.gate[i](x)) * self.up[i](x))
        return self.lm_head(self.norm(h))


def make(name, kind="bert", script=False, token_types=True):
    torch.manual_seed(0)
    b, n = 2, 12
    ids = torch.randint(1, VOCAB, (b, n))
    mask = torch.ones(b, n, dtype=torch.long)
    mask[1, 8:] = 0  # the second sequence is padded (left-aligned text)
    ids[1, 8:] = 0
    if kind == "bert":
        model = Bert() if token_types else BertNoTypes()
        types = torch.zeros(b, n, dtype=torch.long)
        types[:, 6:] = 1
        inputs = [ids, mask, types] if token_types else [ids, mask]
    elif kind == "neox":
        model = NeoX()
        positions = torch.arange(n).unsqueeze(0).expand(b, n).contiguous()
        inputs = [ids, mask, positions]
    elif kind == "t5":
        model, inputs = T5Encoder(), [ids, mask]
    else:
        model, inputs = Mistral(), [ids, mask]
    model.eval()
    with torch.no_grad():
        module = torch.jit.script(model) if script else torch.jit.trace(model, tuple(inputs))
    return module, inputs
