"""DETR written the way facebookresearch/detr (and HF's DetrForObjectDetection) writes it, small:

- backbone: a few Conv2d + FrozenBatchNorm2d (buffers, scale = w * (rv + eps).rsqrt()) + ReLU;
- the pixel mask (1 = real pixel, as HF's pixel_mask) resized to the feature map by
  F.interpolate(mask[None].float(), size=...).to(torch.bool)[0];
- PositionEmbeddingSine: not_mask.cumsum (float32), normalised by the last row / column,
  temperature ** (2 * (dim_t // 2) / d), stack(sin of even, cos of odd).flatten(3);
- a 1x1 input projection, then either DETR's own post-norm encoder/decoder layers (positional
  embeddings added to queries and keys, nn.MultiheadAttention sequence-first, a key padding mask
  from the pixel mask) or nn.TransformerDecoder with learned queries;
- class head Linear(num_classes + 1) and an MLP box head with sigmoid.

Also a scripted user model around nn.MultiheadAttention that returns (attn_output, attn_weights).
"""
from typing import Optional, Tuple

import torch
import torch.nn.functional as F
from torch import Tensor, nn


class FrozenBatchNorm2d(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("weight", torch.ones(n) + 0.1 * torch.randn(n))
        self.register_buffer("bias", 0.1 * torch.randn(n))
        self.register_buffer("running_mean", 0.1 * torch.randn(n))
        self.register_buffer("running_var", torch.ones(n) + 0.1 * torch.rand(n))

    def forward(self, x):
        w = self.weight.reshape(1, -1, 1, 1)
        b = self.bias.reshape(1, -1, 1, 1)
        rv = self.running_var.reshape(1, -1, 1, 1)
        rm = self.running_mean.reshape(1, -1, 1, 1)
        eps = 1e-5
        scale = w * (rv + eps).rsqrt()
        bias = b - rm * scale
        return x * scale + bias


def conv_bn(cin, cout, stride):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), FrozenBatchNorm2d(cout), nn.ReLU(inplace=True))


class PositionEmbeddingSine(nn.Module):
    def __init__(self, num_pos_feats=16, temperature=10000, normalize=True):
        super().__init__()
        self.num_pos_feats, self.temperature, self.normalize = num_pos_feats, temperature, normalize
        self.scale = 2 * 3.141592653589793

    def forward(self, mask):
        not_mask = ~mask
        y_embed = not_mask.cumsum(1, dtype=torch.float32)
        x_embed = not_mask.cumsum(2, dtype=torch.float32)
        if self.normalize:
            eps = 1e-6
            y_embed = y_embed / (y_embed[:, -1:, :] + eps) * self.scale
            x_embed = x_embed / (x_embed[:, :, -1:] + eps) * self.scale
        dim_t = torch.arange(self.num_pos_feats, dtype=torch.float32, device=mask.device)
        dim_t = self.temperature ** (2 * (dim_t // 2) / self.num_pos_feats)
        pos_x = x_embed[:, :, :, None] / dim_t
        pos_y = y_embed[:, :, :, None] / dim_t
        pos_x = torch.stack((pos_x[:, :, :, 0::2].sin(), pos_x[:, :, :, 1::2].cos()), dim=4).flatten(3)
        pos_y = torch.stack((pos_y[:, :, :, 0::2].sin(), pos_y[:, :, :, 1::2].cos()), dim=4).flatten(3)
        return torch.cat((pos_y, pos_x), dim=3).permute(0, 3, 1, 2)


def with_pos_embed(t, pos: Optional[Tensor]):
    return t if pos is None else t + pos


class EncoderLayer(nn.Module):
    def __init__(self, d, heads, ffn):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d, heads, dropout=0.1)
        self.linear1, self.linear2 = nn.Linear(d, ffn), nn.Linear(ffn, d)
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.dropout = nn.Dropout(0.1)

    def forward(self, src, key_padding_mask: Optional[Tensor], pos: Optional[Tensor]):
        q = k = with_pos_embed(src, pos)
        src2 = self.self_attn(q, k, value=src, key_padding_mask=key_padding_mask)[0]
        src = self.norm1(src + self.dropout(src2))
        src2 = self.linear2(self.dropout(F.relu(self.linear1(src))))
        return self.norm2(src + self.dropout(src2))


class DecoderLayer(nn.Module):
    def __init__(self, d, heads, ffn):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d, heads, dropout=0.1)
        self.multihead_attn = nn.MultiheadAttention(d, heads, dropout=0.1)
        self.linear1, self.linear2 = nn.Linear(d, ffn), nn.Linear(ffn, d)
        self.norm1, self.norm2, self.norm3 = nn.LayerNorm(d), nn.LayerNorm(d), nn.LayerNorm(d)

    def forward(self, tgt, memory, memory_key_padding_mask: Optional[Tensor], pos: Optional[Tensor],
                query_pos: Optional[Tensor]):
        q = k = with_pos_embed(tgt, query_pos)
        tgt = self.norm1(tgt + self.self_attn(q, k, value=tgt)[0])
        tgt2 = self.multihead_attn(query=with_pos_embed(tgt, query_pos), key=with_pos_embed(memory, pos),
                                   value=memory, key_padding_mask=memory_key_padding_mask)[0]
        tgt = self.norm2(tgt + tgt2)
        return self.norm3(tgt + self.linear2(F.relu(self.linear1(tgt))))


class MLP(nn.Module):
    def __init__(self, d, hidden, out, layers):
        super().__init__()
        h = [hidden] * (layers - 1)
        self.layers = nn.ModuleList(nn.Linear(n, k) for n, k in zip([d] + h, h + [out]))

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = F.relu(layer(x)) if i < len(self.layers) - 1 else layer(x)
        return x


class DETR(nn.Module):
    def __init__(self, d=32, heads=4, ffn=64, queries=10, classes=5, torch_decoder=False):
        super().__init__()
        self.backbone = nn.Sequential(conv_bn(3, 16, 2), conv_bn(16, 32, 2), conv_bn(32, 64, 2))
        self.position_embedding = PositionEmbeddingSine(d // 2)
        self.input_proj = nn.Conv2d(64, d, 1)
        self.query_embed = nn.Embedding(queries, d)
        self.encoder = nn.ModuleList([EncoderLayer(d, heads, ffn)])
        self.torch_decoder = torch_decoder
        self.decoder = nn.ModuleList([DecoderLayer(d, heads, ffn) for _ in range(2)])
        layer = nn.TransformerDecoderLayer(d, heads, ffn, dropout=0.1)
        self.nn_decoder = nn.TransformerDecoder(layer, 2, norm=nn.LayerNorm(d))
        self.decoder_norm = nn.LayerNorm(d)
        self.class_embed = nn.Linear(d, classes + 1)
        self.bbox_embed = MLP(d, d, 4, 3)

    def forward(self, pixel_values, pixel_mask):
        features = self.backbone(pixel_values)
        mask = F.interpolate(pixel_mask[None].float(), size=features.shape[-2:]).to(torch.bool)[0]
        mask = ~mask  # DETR's mask: True = padding
        pos = self.position_embedding(mask)
        src = self.input_proj(features)
        bs, c, h, w = src.shape
        src = src.flatten(2).permute(2, 0, 1)
        pos = pos.flatten(2).permute(2, 0, 1)
        query_pos = self.query_embed.weight.unsqueeze(1).repeat(1, bs, 1)
        mask = mask.flatten(1)
        memory = src
        for layer in self.encoder:
            memory = layer(memory, mask, pos)
        tgt = torch.zeros_like(query_pos)
        if self.torch_decoder:
            hs = self.nn_decoder(tgt + query_pos, memory + pos, memory_key_padding_mask=mask)
        else:
            hs = tgt
            for dec_layer in self.decoder:
                hs = dec_layer(hs, memory, mask, pos, query_pos)
            hs = self.decoder_norm(hs)
        hs = hs.transpose(0, 1)
        return self.class_embed(hs), self.bbox_embed(hs).sigmoid()


class SelfAttentionBlock(nn.Module):
    """A user model around nn.MultiheadAttention: returns the output and, when asked, the weights."""

    def __init__(self, d=32, heads=4, need_weights=True):
        super().__init__()
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.norm = nn.LayerNorm(d)
        self.need_weights = need_weights

    def forward(self, x, key_padding_mask: Optional[Tensor] = None) -> Tuple[Tensor, Optional[Tensor]]:
        h = self.norm(x)
        out, weights = self.attn(h, h, h, key_padding_mask=key_padding_mask, need_weights=self.need_weights)
        return x + out, weights


def pixel_mask(batch, size):
    m = torch.ones(batch, size, size, dtype=torch.int64)
    m[1, :, size * 3 // 4:] = 0  # the second image was padded on the right (HF's pixel_mask)
    return m


def make(name, kind="detr", script=False, torch_decoder=False, need_weights=True):
    torch.manual_seed(0)
    if kind == "detr":
        model = DETR(torch_decoder=torch_decoder).eval()
        inputs = [torch.randn(2, 3, 64, 64), pixel_mask(2, 64)]
    else:
        model = SelfAttentionBlock(need_weights=need_weights).eval()
        mask = torch.zeros(2, 8, dtype=torch.bool)
        mask[1, 6:] = True
        inputs = [torch.randn(2, 8, 32), mask]
    with torch.no_grad():
        module = torch.jit.script(model) if script else torch.jit.trace(model, tuple(inputs))
    return module, inputs
