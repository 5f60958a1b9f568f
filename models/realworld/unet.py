"""A small diffusion UNet written the way DDPM / Stable-Diffusion code (diffusers' UNet2DConditionModel,
CompVis' openaimodel.py) does: forward(sample, timestep, encoder_hidden_states).

- the timestep is a tensor: int64 [B] (diffusers pipelines) or a float scalar that is broadcast to
  the batch (timesteps.expand / `timesteps[None]`), then a sinusoidal embedding
  (exp(-log(10000) * arange / half) * t, cat(sin, cos)) -> Linear, SiLU, Linear;
- ResBlocks: GroupNorm(8) + SiLU + Conv3x3, the time embedding projected and added as [:, :, None, None],
  a 1x1 shortcut when channels change;
- a spatial transformer: GroupNorm, 1x1 proj_in, [B, HW, C] tokens, self-attention, cross-attention
  over the text context [B, 77, Ctx] (head split by reshape/permute, baddbmm-free softmax(QK^T*scale)V),
  GEGLU feed-forward (chunk(2) * gelu), proj_out, residual;
- a strided-conv Downsample, nearest F.interpolate(scale_factor=2) Upsample, skip concatenations.
"""
import math

import torch
import torch.nn.functional as F
from torch import nn


def timestep_embedding(timesteps, dim: int, flip_sin_to_cos: bool = True, shift: float = 0.0,
                       max_period: int = 10000):
    """diffusers' get_timestep_embedding (flip_sin_to_cos, downscale_freq_shift, odd dims padded)."""
    half = dim // 2
    exponent = -math.log(max_period) * torch.arange(start=0, end=half, dtype=torch.float32, device=timesteps.device)
    exponent = exponent / (half - shift)
    emb = torch.exp(exponent)
    emb = timesteps[:, None].float() * emb[None, :]
    emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=-1)
    if flip_sin_to_cos:
        emb = torch.cat([emb[:, half:], emb[:, :half]], dim=-1)
    if dim % 2 == 1:
        emb = F.pad(emb, (0, 1, 0, 0))
    return emb


class ResBlock(nn.Module):
    def __init__(self, cin, cout, temb):
        super().__init__()
        self.norm1 = nn.GroupNorm(8, cin, eps=1e-5)
        self.conv1 = nn.Conv2d(cin, cout, 3, padding=1)
        self.time_emb_proj = nn.Linear(temb, cout)
        self.norm2 = nn.GroupNorm(8, cout, eps=1e-5)
        self.dropout = nn.Dropout(0.1)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1)
        self.shortcut = nn.Conv2d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x, temb):
        h = self.conv1(F.silu(self.norm1(x)))
        h = h + self.time_emb_proj(F.silu(temb))[:, :, None, None]
        h = self.conv2(self.dropout(F.silu(self.norm2(h))))
        return self.shortcut(x) + h


class Attention(nn.Module):
    def __init__(self, dim, ctx_dim, heads, baddbmm=False):
        super().__init__()
        self.heads = heads
        self.baddbmm = baddbmm
        self.scale = (dim // heads) ** -0.5
        self.to_q = nn.Linear(dim, dim, bias=False)
        self.to_k = nn.Linear(ctx_dim, dim, bias=False)
        self.to_v = nn.Linear(ctx_dim, dim, bias=False)
        self.to_out = nn.Sequential(nn.Linear(dim, dim), nn.Dropout(0.0))

    def split(self, t):
        b, n, c = t.shape
        return t.reshape(b, n, self.heads, c // self.heads).permute(0, 2, 1, 3).reshape(b * self.heads, n, -1)

    def forward(self, x, context: torch.Tensor):
        b, n, c = x.shape
        q, k, v = self.split(self.to_q(x)), self.split(self.to_k(context)), self.split(self.to_v(context))
        if self.baddbmm:  # diffusers' AttnProcessor: beta=0 ignores the uninitialised input
            empty = torch.empty(q.shape[0], q.shape[1], k.shape[1], dtype=q.dtype, device=q.device)
            attn = torch.baddbmm(empty, q, k.transpose(-1, -2), beta=0, alpha=self.scale)
        else:
            attn = torch.bmm(q, k.transpose(1, 2)) * self.scale
        out = torch.bmm(attn.softmax(dim=-1), v)
        out = out.reshape(b, self.heads, n, -1).permute(0, 2, 1, 3).reshape(b, n, c)
        return self.to_out(out)


class GEGLU(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.proj = nn.Linear(dim, hidden * 2)

    def forward(self, x):
        x, gate = self.proj(x).chunk(2, dim=-1)
        return x * F.gelu(gate)


class Transformer2D(nn.Module):
    def __init__(self, dim, ctx_dim, heads, baddbmm=False):
        super().__init__()
        self.norm = nn.GroupNorm(8, dim, eps=1e-6)
        self.proj_in = nn.Conv2d(dim, dim, 1)
        self.norm1, self.norm2, self.norm3 = nn.LayerNorm(dim), nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn1 = Attention(dim, dim, heads, baddbmm)
        self.attn2 = Attention(dim, ctx_dim, heads, baddbmm)
        self.ff = nn.Sequential(GEGLU(dim, 2 * dim), nn.Linear(2 * dim, dim))
        self.proj_out = nn.Conv2d(dim, dim, 1)

    def forward(self, x, context):
        b, c, h, w = x.shape
        residual = x
        x = self.proj_in(self.norm(x))
        x = x.permute(0, 2, 3, 1).reshape(b, h * w, c)
        n1 = self.norm1(x)
        x = self.attn1(n1, n1) + x
        x = self.attn2(self.norm2(x), context) + x
        x = self.ff(self.norm3(x)) + x
        x = x.reshape(b, h, w, c).permute(0, 3, 1, 2).contiguous()
        return self.proj_out(x) + residual


class UNet(nn.Module):
    def __init__(self, ch=32, ctx_dim=48, heads=4, diffusers=False):
        super().__init__()
        self.ch = ch
        self.diffusers = diffusers
        temb = ch * 4
        self.time_embedding = nn.Sequential(nn.Linear(ch, temb), nn.SiLU(), nn.Linear(temb, temb))
        self.conv_in = nn.Conv2d(4, ch, 3, padding=1)
        self.down_res = ResBlock(ch, ch, temb)
        self.down_attn = Transformer2D(ch, ctx_dim, heads, diffusers)
        self.downsample = nn.Conv2d(ch, ch, 3, stride=2, padding=1)
        self.mid_res1 = ResBlock(ch, 2 * ch, temb)
        self.mid_attn = Transformer2D(2 * ch, ctx_dim, heads, diffusers)
        self.mid_res2 = ResBlock(2 * ch, 2 * ch, temb)
        self.up_conv = nn.Conv2d(2 * ch, ch, 3, padding=1)
        self.up_res = ResBlock(2 * ch, ch, temb)
        self.up_attn = Transformer2D(ch, ctx_dim, heads, diffusers)
        self.out_res = ResBlock(2 * ch, ch, temb)
        self.norm_out = nn.GroupNorm(8, ch)
        self.conv_out = nn.Conv2d(ch, 4, 3, padding=1)

    def forward(self, sample, timestep, encoder_hidden_states):
        timesteps = timestep
        if timesteps.dim() == 0:
            timesteps = timesteps[None]
        timesteps = timesteps.expand(sample.shape[0])
        emb = timestep_embedding(timesteps, self.ch, self.diffusers, 1.0 if self.diffusers else 0.0)
        emb = self.time_embedding(emb.to(dtype=sample.dtype))
        x = self.conv_in(sample)
        skips = [x]
        x = self.down_attn(self.down_res(x, emb), encoder_hidden_states)
        skips.append(x)
        x = self.downsample(x)
        x = self.mid_res2(self.mid_attn(self.mid_res1(x, emb), encoder_hidden_states), emb)
        if self.diffusers:  # diffusers' Upsample2D: upsample to the skip's size when given
            if x.shape[0] >= 64:
                x = x.contiguous()
            x = F.interpolate(x, size=skips[-1].shape[2:], mode="nearest")
        else:
            x = F.interpolate(x, scale_factor=2.0, mode="nearest")
        x = self.up_conv(x)
        x = self.up_res(torch.cat([x, skips.pop()], dim=1), emb)
        x = self.up_attn(x, encoder_hidden_states)
        x = self.out_res(torch.cat([x, skips.pop()], dim=1), emb)
        return self.conv_out(F.silu(self.norm_out(x)))


def make(name, timestep="int", script=False, size=16, batch=2, diffusers=False):
    torch.manual_seed(0)
    model = UNet(diffusers=diffusers).eval()
    sample = torch.randn(batch, 4, size, size)
    if timestep == "int":
        t = torch.tensor([999, 17][:batch] + [500] * max(0, batch - 2), dtype=torch.int64)
    else:
        t = torch.tensor(261.0)
    context = torch.randn(batch, 77, 48)
    inputs = [sample, t, context]
    with torch.no_grad():
        module = torch.jit.script(model) if script else torch.jit.trace(model, tuple(inputs))
    return module, inputs
