"""nn.TransformerEncoder and nn.MultiheadAttention used as BERT-style user code does: a small
encoder stack in eval mode under no_grad, so PyTorch takes its fast paths
(aten::_transformer_encoder_layer_fwd, aten::_native_multi_head_attention and, with a padding mask
and enable_nested_tensor, the nested-tensor path aten::_nested_tensor_from_mask ->
aten::to_padded_tensor).

The padding mask marks real padding: row 0 is full, row 1 ends in padding (True = padding, as
PyTorch wants). make() returns those inputs so they are saved beside the model. With random bools
instead (torch2onnx's --verify inputs without --input-data) a row may be all padding: PyTorch gives
NaN there (no key to attend to) on the slow paths, so such entries need the saved inputs.
"""
import torch
from torch import nn

D_MODEL, HEADS, LAYERS, FFN, BATCH, SEQ = 32, 4, 2, 64, 2, 8


def padding_mask():
    mask = torch.zeros(BATCH, SEQ, dtype=torch.bool)
    mask[1, 5:] = True  # row 1 has 5 real tokens, then padding
    return mask


class Encoder(nn.Module):
    """An embedding-free encoder: src -> TransformerEncoder -> (optional final norm)."""

    def __init__(self, batch_first, norm_first, activation, nested):
        super().__init__()
        layer = nn.TransformerEncoderLayer(D_MODEL, HEADS, FFN, dropout=0.1, activation=activation,
                                           batch_first=batch_first, norm_first=norm_first)
        self.encoder = nn.TransformerEncoder(layer, LAYERS, norm=nn.LayerNorm(D_MODEL),
                                             enable_nested_tensor=nested)

    def forward(self, src):
        return self.encoder(src)


class PaddedEncoder(Encoder):
    def forward(self, src, src_key_padding_mask):
        return self.encoder(src, src_key_padding_mask=src_key_padding_mask)


class Attention(nn.Module):
    """Self-attention with a residual, returning the output and the attention weights. With
    `causal` ("bool" or "float", the two forms nn.MultiheadAttention takes) it also passes a causal
    attn_mask, which makes PyTorch 1.13 take its slow path (F.multi_head_attention_forward)."""

    def __init__(self, average, causal):
        super().__init__()
        self.attn = nn.MultiheadAttention(D_MODEL, HEADS, batch_first=True)
        self.average = average
        future = torch.ones(SEQ, SEQ, dtype=torch.bool).triu(1)
        if causal == "float":
            future = torch.zeros(SEQ, SEQ).masked_fill(future, float("-inf"))
        self.register_buffer("causal", future if causal else None)

    def forward(self, x, key_padding_mask):
        y, w = self.attn(x, x, x, key_padding_mask=key_padding_mask, attn_mask=self.causal,
                         average_attn_weights=self.average)
        return x + y, w


def make(name, kind="encoder", batch_first=True, norm_first=False, activation="relu",
         padding=False, nested=True, script=False, average=True, causal=None):
    torch.manual_seed(0)
    src = torch.randn(BATCH, SEQ, D_MODEL)
    mask = padding_mask()
    if kind == "attention":
        model, inputs = Attention(average, causal), [src, mask]
    else:
        cls = PaddedEncoder if padding else Encoder
        model = cls(batch_first, norm_first, activation, nested)
        if not batch_first:
            src = src.transpose(0, 1).contiguous()
        inputs = [src, mask] if padding else [src]
    model.eval()
    with torch.no_grad():
        module = torch.jit.script(model) if script else torch.jit.trace(model, tuple(inputs))
    return module, inputs
