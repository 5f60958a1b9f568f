"""ConvNeXt and timm-style ViT written the way their reference code (facebookresearch/ConvNeXt,
timm) does.

ConvNeXt: a 4x4 patchify stem, blocks of depthwise 7x7 conv -> permute to channels-last ->
LayerNorm -> pointwise MLP (Linear, GELU, Linear) -> layer scale gamma -> permute back -> DropPath
(identity in eval), and a channels-first LayerNorm written by hand (mean / pow / sqrt) for the
downsampling layers.

ViT: patch embedding Conv2d, a cls token expanded over the batch and concatenated, a learned
position embedding resized by bicubic F.interpolate when the image grid differs from the one it
was trained for (timm's resample_abs_pos_embed), pre-norm blocks with fused qkv attention
(reshape / permute / unbind, scaled softmax), and the cls token's head.
"""
import math
from typing import List

import torch
import torch.nn.functional as F
from torch import nn


def drop_path(x, p: float = 0.0, training: bool = False):
    if p == 0.0 or not training:
        return x
    keep = 1 - p
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    mask = x.new_empty(shape).bernoulli_(keep)
    return x * mask.div_(keep)


class DropPath(nn.Module):
    def __init__(self, p=0.0):
        super().__init__()
        self.p = p

    def forward(self, x):
        return drop_path(x, self.p, self.training)


class LayerNorm2d(nn.Module):
    """ConvNeXt's LayerNorm for channels_first tensors [N, C, H, W]."""

    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim) + 0.1 * torch.randn(dim))
        self.bias = nn.Parameter(0.1 * torch.randn(dim))
        self.eps = eps

    def forward(self, x):
        u = x.mean(1, keepdim=True)
        s = (x - u).pow(2).mean(1, keepdim=True)
        x = (x - u) / torch.sqrt(s + self.eps)
        return self.weight[:, None, None] * x + self.bias[:, None, None]


class ConvNeXtBlock(nn.Module):
    def __init__(self, dim, drop=0.1, scale=1e-1):
        super().__init__()
        self.dwconv = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.pwconv1 = nn.Linear(dim, 4 * dim)
        self.act = nn.GELU()
        self.pwconv2 = nn.Linear(4 * dim, dim)
        self.gamma = nn.Parameter(scale * torch.ones(dim))
        self.drop_path = DropPath(drop)

    def forward(self, x):
        shortcut = x
        x = self.dwconv(x).permute(0, 2, 3, 1)
        x = self.pwconv2(self.act(self.pwconv1(self.norm(x))))
        x = (self.gamma * x).permute(0, 3, 1, 2)
        return shortcut + self.drop_path(x)


class ConvNeXt(nn.Module):
    def __init__(self, dims=(32, 64), classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, dims[0], 4, stride=4), LayerNorm2d(dims[0]))
        self.stage1 = nn.Sequential(ConvNeXtBlock(dims[0]), ConvNeXtBlock(dims[0]))
        self.down = nn.Sequential(LayerNorm2d(dims[0]), nn.Conv2d(dims[0], dims[1], 2, stride=2))
        self.stage2 = nn.Sequential(ConvNeXtBlock(dims[1]))
        self.norm = nn.LayerNorm(dims[1], eps=1e-6)
        self.head = nn.Linear(dims[1], classes)

    def forward(self, x):
        x = self.stage2(self.down(self.stage1(self.stem(x))))
        return self.head(self.norm(x.mean([-2, -1])))


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.scale = (dim // heads) ** -0.5
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, c = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        attn = (q @ k.transpose(-2, -1)) * self.scale
        attn = attn.softmax(dim=-1)
        return self.proj((attn @ v).transpose(1, 2).reshape(b, n, c))


class ViTBlock(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, eps=1e-6)
        self.attn = Attention(dim, heads)
        self.ls1 = nn.Parameter(0.5 * torch.ones(dim))
        self.norm2 = nn.LayerNorm(dim, eps=1e-6)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Dropout(0.1), nn.Linear(4 * dim, dim))
        self.drop_path = DropPath(0.1)

    def forward(self, x):
        x = x + self.drop_path(self.ls1 * self.attn(self.norm1(x)))
        return x + self.drop_path(self.mlp(self.norm2(x)))


def resample_pos_embed(pos, new_size: List[int], prefix: int = 1):
    """timm.layers.resample_abs_pos_embed: keep the prefix (cls) tokens, resize the grid."""
    old = int(math.sqrt(pos.shape[1] - prefix))
    prefix_tok, grid = pos[:, :prefix], pos[:, prefix:]
    grid = grid.reshape(1, old, old, -1).permute(0, 3, 1, 2)
    grid = F.interpolate(grid, size=new_size, mode="bicubic", align_corners=False)
    grid = grid.permute(0, 2, 3, 1).reshape(1, new_size[0] * new_size[1], -1)
    return torch.cat([prefix_tok, grid], dim=1)


class ViT(nn.Module):
    def __init__(self, trained_image=32, patch=8, dim=48, depth=2, heads=3, classes=10):
        super().__init__()
        self.patch = patch
        self.patch_embed = nn.Conv2d(3, dim, patch, stride=patch)
        self.cls_token = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        grid = trained_image // patch
        self.pos_embed = nn.Parameter(torch.randn(1, grid * grid + 1, dim) * 0.02)
        self.pos_drop = nn.Dropout(0.1)
        self.blocks = nn.Sequential(*[ViTBlock(dim, heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        h, w = x.shape[-2:]
        x = self.patch_embed(x)
        gh, gw = x.shape[-2:]
        x = x.flatten(2).transpose(1, 2)
        pos = resample_pos_embed(self.pos_embed, [gh, gw])
        x = torch.cat((self.cls_token.expand(x.shape[0], -1, -1), x), dim=1)
        x = self.pos_drop(x + pos)
        x = self.norm(self.blocks(x))
        return self.head(x[:, 0])


def make(name, kind="convnext", image=32, script=False):
    torch.manual_seed(0)
    model = (ConvNeXt() if kind == "convnext" else ViT()).eval()
    x = torch.randn(2, 3, image, image)
    with torch.no_grad():
        module = torch.jit.script(model) if script else torch.jit.trace(model, (x,))
    return module, [x]
