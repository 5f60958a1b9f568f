"""An MLP-Mixer written as in timm-style user code: patch embedding by a strided Conv2d, token-
and channel-mixing MLPs with LayerNorm and GELU, einops-free rearrangement by flatten/transpose."""
import torch
from torch import nn


class MixerBlock(nn.Module):
    def __init__(self, tokens, dim, hidden=64):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.token_mlp = nn.Sequential(nn.Linear(tokens, hidden), nn.GELU(), nn.Linear(hidden, tokens))
        self.norm2 = nn.LayerNorm(dim)
        self.channel_mlp = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))

    def forward(self, x):
        x = x + self.token_mlp(self.norm1(x).transpose(1, 2)).transpose(1, 2)
        return x + self.channel_mlp(self.norm2(x))


class Mixer(nn.Module):
    def __init__(self, image=32, patch=8, dim=32, depth=2, classes=10):
        super().__init__()
        self.stem = nn.Conv2d(3, dim, patch, stride=patch)
        tokens = (image // patch) ** 2
        self.blocks = nn.Sequential(*[MixerBlock(tokens, dim) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.stem(x).flatten(2).transpose(1, 2)
        x = self.norm(self.blocks(x))
        return self.head(x.mean(dim=1))


def make(name, **kwargs):
    model = Mixer(**kwargs).eval()
    x = torch.randn(2, 3, 32, 32)
    with torch.no_grad():
        return torch.jit.trace(model, (x,)), None
