"""LeViT-style blocks (issue 30): every Linear followed by a BatchNorm1d over its output features,
written as LeViT writes it, `bn(linear(x).flatten(0, 1)).reshape_as(...)` on [B, N, C] tokens.
ONNX Runtime's own MatMulBnFusion turned the MatMul + BatchNormalization of such a file into a Gemm
that refuses the rank-3 input ("First input does not have rank 2"); torch2onnx folds the
BatchNorm into the weights (fold-matmul-batchnorm). Attention and MLP residual blocks, traced."""
import torch
import torch.nn as nn


class LinearNorm(nn.Module):
    def __init__(self, a, b, bias=False):
        super().__init__()
        self.c = nn.Linear(a, b, bias=bias)
        self.bn = nn.BatchNorm1d(b)

    def forward(self, x):
        x = self.c(x)
        return self.bn(x.flatten(0, 1)).reshape_as(x)


class Attention(nn.Module):
    def __init__(self, dim=32, heads=4, key_dim=8):
        super().__init__()
        self.heads, self.key_dim = heads, key_dim
        self.qkv = LinearNorm(dim, heads * key_dim * 3)
        self.proj = nn.Sequential(nn.Hardswish(), LinearNorm(heads * key_dim, dim))
        self.scale = key_dim ** -0.5

    def forward(self, x):
        b, n, _ = x.shape
        q, k, v = self.qkv(x).view(b, n, self.heads, 3, self.key_dim).permute(3, 0, 2, 1, 4)
        attn = (q @ k.transpose(-2, -1)) * self.scale
        y = (attn.softmax(dim=-1) @ v).transpose(1, 2).reshape(b, n, -1)
        return self.proj(y)


class Block(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.attn = Attention(dim)
        self.mlp = nn.Sequential(LinearNorm(dim, 2 * dim, bias=True), nn.Hardswish(),
                                 LinearNorm(2 * dim, dim))

    def forward(self, x):
        x = x + self.attn(x)
        return x + self.mlp(x)


def make(name, blocks=2):
    torch.manual_seed(0)
    model = nn.Sequential(*[Block() for _ in range(blocks)])
    for m in model.modules():  # trained-looking statistics, not the identity
        if isinstance(m, nn.BatchNorm1d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
            with torch.no_grad():
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
    model.eval()
    x = torch.randn(2, 16, 32)
    with torch.no_grad():
        return torch.jit.trace(model, x), None
