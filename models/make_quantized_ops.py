#!/usr/bin/env python3
"""Make the quantized-op fixtures of tests/test_quantized.cpp (issue 29; docs/quantized.md).

    /usr/bin/python3 models/make_quantized_ops.py --out ~/.cache/torch2onnx/quantized_ops

Each model calls quantized ops the way TorchScript records them (torch.ops.quantized.*, the
quantization functions of torch, packed parameters made with LibTorch's own *_prepack ops),
scripted, with seeded random weights. Inputs are random, so every rounding path is exercised;
outputs are dequantized (the file's outputs are the real values). Beside each OUT/NAME.pt it
writes NAME.inputs.pt and NAME.expected.pt (Python's outputs of a fresh torch.jit.load: the test's
oracle, models/fixture_io.py save_oracle). Prints one line per model: name, path.

- functional: quantize/dequantize/int_repr/q_scale/q_zero_point, the elementwise and activation
  ops (prelu, threshold included), matmul, cat, pooling, and the quantized normalizations (x: f32[2,4,6,6], y: f32[2,4,6,6]).
- packed: conv1d/2d/3d (+relu), conv_transpose1d/2d/3d, linear (+relu) with per-tensor weights,
  and dynamic linear (x: f32[2,4,6,6]).
- per_channel: conv2d and linear with per-channel weights, quantize_per_channel (opset 13+);
  per_channel_conv: only the conv (refused below opset 13, naming the weight).
- rnn: quantize_dynamic of a bidirectional LSTM and a 2-layer batch-first GRU
  (aten::quantized_lstm / quantized_gru; x: f32[2,5,8]).
- rnn_cells: quantize_dynamic of nn.LSTMCell, GRUCell and RNNCell (tanh, relu), one step each
  (x: f32[2,8], h: f32[2,6], c: f32[2,6]).
- rnn_packed: the same kinds on a packed sequence of lengths 7, 3, 5 (unsorted): a 2-layer
  bidirectional LSTM and a GRU (the .data overloads; x: f32[3,7,8], lengths: i64[3]).
- fake: fake quantization (per tensor, per channel, learnable, fused observer with its observer
  off) in the full uint8/int8 ranges and in a 4-bit range (x: f32[2,4,6,6]).
- embedding: 8-bit embedding tables as quantize_dynamic with float_qparams_weight_only_qconfig
  makes them: an nn.Embedding (quantized::embedding_byte), an nn.EmbeddingBag summing bags given
  by offsets with per-sample weights (one bag empty), one over 2-D indices without offsets, and
  quantized::embedding_bag_byte called with include_last_offset and mode 1, and a 4-bit
  EmbeddingBag (quantized::embedding_bag_4bit) (ids: i64[2,5],
  bag_ids: i64[9], offsets: i64[4], weights: f32[9]).
"""
import argparse
import os
import sys
from typing import List

import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture_io import save_module, save_oracle  # noqa: E402

Q = torch.ops.quantized


def q(x: torch.Tensor, scale: float = 0.05, zp: int = 64) -> torch.Tensor:
    return torch.quantize_per_tensor(x, scale, zp, torch.quint8)


class Functional(nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(1)
        self.w = torch.rand(4, generator=g) + 0.5
        self.b = torch.randn(4, generator=g) * 0.1
        self.mean = torch.randn(4, generator=g) * 0.1
        self.var = torch.rand(4, generator=g) + 0.5
        self.ln_w = torch.rand(6, generator=g) + 0.5
        self.ln_b = torch.randn(6, generator=g) * 0.1
        # nn.quantized.PReLU's weight: a quantized tensor (slopes in [0, 0.5))
        self.prelu_w = torch.quantize_per_tensor(torch.rand(4, generator=g) * 0.5, 0.01, 0,
                                                 torch.quint8)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> List[torch.Tensor]:
        qx, qy = q(x), q(y, 0.04, 128)
        out: List[torch.Tensor] = []
        out.append(Q.add(qx, qy, 0.06, 100).dequantize())
        out.append(Q.add_relu(qx, qy, 0.03, 0).dequantize())
        out.append(Q.add_scalar(qx, 0.5).dequantize())
        out.append(Q.add_scalar_relu(qx, -0.25).dequantize())
        out.append(Q.mul(qx, qy, 0.02, 128).dequantize())
        out.append(Q.mul_relu(qx, qy, 0.01, 0).dequantize())
        out.append(Q.mul_scalar(qx, 1.5).dequantize())
        out.append(Q.mul_scalar_relu(qx, -0.5).dequantize())
        out.append(Q.cat([qx, qy], 1, 0.05, 90).dequantize())
        out.append(Q.cat_relu([qx, qy], 2, 0.025, 0).dequantize())
        out.append(Q.hardswish(qx, 0.03, 20).dequantize())
        out.append(Q.sigmoid(qx, 1.0 / 256, 0).dequantize())
        out.append(Q.leaky_relu(qx, 0.1, False, 0.04, 40).dequantize())
        out.append(Q.relu6(qy, False).dequantize())
        out.append(Q.elu(qx, 0.03, 60, 1.0, 1.0, 1.0).dequantize())
        out.append(Q.celu(qx, 0.03, 60, 0.5).dequantize())
        out.append(Q.clamp(qx, -1.0, 1.5).dequantize())
        out.append(Q.softmax(qx, 1, 1.0 / 256, 0).dequantize())
        out.append(Q.dropout(qx, 0.05, 64, 0.5, False).dequantize())
        out.append(Q.matmul(qx, qy, 0.2, 64).dequantize())
        out.append(Q.prelu(qx, self.prelu_w, 0.04, 64).dequantize())
        out.append(Q.threshold(qx, 0.2, -1.0).dequantize())
        out.append(Q.max_pool2d(qx, [2, 2], [2, 2], [0, 0], [1, 1], False).dequantize())
        out.append(Q.batch_norm2d(qx, self.w, self.b, self.mean, self.var, 1e-5, 0.07, 70).dequantize())
        out.append(Q.batch_norm2d_relu(qx, self.w, self.b, self.mean, self.var, 1e-5, 0.04, 0).dequantize())
        out.append(Q.batch_norm(qx, self.w, self.b, self.mean, self.var, 1e-5, 0.07, 70).dequantize())
        out.append(Q.batch_norm_relu(qx, self.w, self.b, self.mean, self.var, 1e-5, 0.04, 0).dequantize())
        q3 = q(x.flatten(2))
        out.append(Q.batch_norm1d(q3, self.w, self.b, self.mean, self.var, 1e-5, 0.07, 70).dequantize())
        out.append(Q.batch_norm1d_relu(q3, self.w, self.b, self.mean, self.var, 1e-5, 0.04, 0).dequantize())
        q5 = q(x.unsqueeze(2))
        out.append(Q.batch_norm3d(q5, self.w, self.b, self.mean, self.var, 1e-5, 0.07, 70).dequantize())
        out.append(Q.batch_norm3d_relu(q5, self.w, self.b, self.mean, self.var, 1e-5, 0.04, 0).dequantize())
        out.append(torch.quantized_batch_norm(qx, self.w, self.b, self.mean, self.var, 1e-5, 0.07, 70).dequantize())
        out.append(Q.layer_norm(qx, [6], self.ln_w, self.ln_b, 1e-5, 0.05, 64).dequantize())
        out.append(Q.group_norm(qx, 2, self.w, self.b, 1e-5, 0.05, 64).dequantize())
        out.append(Q.instance_norm(qx, self.w, self.b, 1e-5, 0.05, 64).dequantize())
        out.append(torch.quantized_max_pool2d(qx, [2, 2], [2, 2], [0, 0], [1, 1], False).dequantize())
        out.append(torch.quantized_max_pool1d(q3, [3], [2], [1], [1], False).dequantize())
        out.append(Q.max_pool1d(q3, [3], [2], [1], [1], False).dequantize())
        out.append(torch.nn.functional.adaptive_avg_pool2d(qx, [3, 3]).dequantize())
        out.append(torch.nn.functional.interpolate(qx, scale_factor=2.0, mode="nearest").dequantize())
        out.append(torch.relu(qx).flatten(1).dequantize())
        out.append(torch.quantize_per_tensor_dynamic(x, torch.quint8, False).dequantize())
        out.append(qx.int_repr().float() + qx.q_scale() + float(qx.q_zero_point()))
        return out


def qweight(shape, per_channel=False, seed=2):
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(*shape, generator=g) * 0.2
    if per_channel:
        scales = w.abs().flatten(1).amax(1).double() / 127
        return torch.quantize_per_channel(w, scales, torch.zeros(shape[0], dtype=torch.long), 0,
                                          torch.qint8)
    return torch.quantize_per_tensor(w, float(w.abs().max()) / 127, 0, torch.qint8)


def bias(n, seed=3):
    return torch.randn(n, generator=torch.Generator().manual_seed(seed)) * 0.1


class Packed(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = Q.conv1d_prepack(qweight((6, 4, 3)), bias(6), [1], [1], [1], 1)
        self.c2 = Q.conv2d_prepack(qweight((6, 2, 3, 3)), bias(6), [1, 1], [1, 1], [1, 1], 2)
        self.c3 = Q.conv3d_prepack(qweight((6, 4, 1, 3, 3)), bias(6), [1, 1, 1], [0, 1, 1],
                                   [1, 1, 1], 1)
        self.t1 = Q.conv_transpose1d_prepack(qweight((4, 3, 3)), bias(3), [2], [1], [0], [1], 1)
        self.t2 = Q.conv_transpose2d_prepack(qweight((4, 3, 2, 2)), bias(3), [2, 2], [0, 0],
                                             [0, 0], [1, 1], 1)
        self.t3 = Q.conv_transpose3d_prepack(qweight((4, 3, 1, 2, 2)), None, [1, 2, 2],
                                             [0, 0, 0], [0, 0, 0], [1, 1, 1], 1)
        self.l = Q.linear_prepack(qweight((5, 6)), bias(5))
        self.ld = Q.linear_prepack(qweight((5, 6), seed=4), bias(5, seed=5))

    def forward(self, x: torch.Tensor) -> List[torch.Tensor]:
        qx = q(x)
        q3 = q(x.flatten(2))
        q5 = q(x.unsqueeze(2))
        out: List[torch.Tensor] = []
        out.append(Q.conv1d(q3, self.c1, 0.05, 60).dequantize())
        out.append(Q.conv1d_relu(q3, self.c1, 0.03, 0).dequantize())
        out.append(Q.conv2d(qx, self.c2, 0.05, 60).dequantize())
        out.append(Q.conv2d_relu(qx, self.c2, 0.03, 0).dequantize())
        out.append(Q.conv3d(q5, self.c3, 0.05, 60).dequantize())
        out.append(Q.conv3d_relu(q5, self.c3, 0.03, 0).dequantize())
        out.append(Q.conv_transpose1d(q3, self.t1, 0.05, 60).dequantize())
        out.append(Q.conv_transpose2d(qx, self.t2, 0.05, 60).dequantize())
        out.append(Q.conv_transpose3d(q5, self.t3, 0.05, 60).dequantize())
        out.append(Q.linear(qx, self.l, 0.05, 60).dequantize())
        out.append(Q.linear_relu(qx, self.l, 0.03, 0).dequantize())
        # (linear_relu_dynamic: LibTorch 1.13's onednn engine returns it without the ReLU)
        out.append(Q.linear_dynamic(x, self.ld, True))
        out.append(Q.linear_dynamic(x, self.ld, False))
        return out


class PerChannel(nn.Module):
    def __init__(self):
        super().__init__()
        self.c2 = Q.conv2d_prepack(qweight((6, 4, 3, 3), True), bias(6), [1, 1], [1, 1], [1, 1], 1)
        self.l = Q.linear_prepack(qweight((5, 6), True), bias(5))
        self.scales = torch.tensor([0.05, 0.03, 0.04, 0.06], dtype=torch.double)
        self.zps = torch.tensor([64, 0, 128, 10])

    def forward(self, x: torch.Tensor) -> List[torch.Tensor]:
        qx = q(x)
        out: List[torch.Tensor] = []
        out.append(Q.conv2d(qx, self.c2, 0.05, 60).dequantize())
        out.append(Q.linear(qx, self.l, 0.05, 60).dequantize())
        out.append(torch.quantize_per_channel(x, self.scales, self.zps, 1, torch.quint8).dequantize())
        return out


class PerChannelConv(nn.Module):
    """Only a per-channel weight: what stops an export below opset 13."""

    def __init__(self):
        super().__init__()
        self.c2 = Q.conv2d_prepack(qweight((6, 4, 3, 3), True), bias(6), [1, 1], [1, 1], [1, 1], 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return Q.conv2d(q(x), self.c2, 0.05, 60).dequantize()


class Fake(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.tensor([0.05])
        self.zp = torch.tensor([10], dtype=torch.int32)
        self.ch_scale = torch.tensor([0.05, 0.03, 0.04, 0.06])
        self.ch_zp = torch.tensor([0, 3, -2, 1], dtype=torch.int32)
        self.learn_scale = torch.tensor([0.04])
        self.learn_zp = torch.tensor([2.6])
        self.off = torch.tensor([0], dtype=torch.long)
        self.on = torch.tensor([1], dtype=torch.long)
        self.rmin = torch.tensor([-3.0])
        self.rmax = torch.tensor([3.0])
        self.fq_scale = torch.tensor([0.03])
        self.fq_zp = torch.tensor([128], dtype=torch.int32)

    def forward(self, x: torch.Tensor) -> List[torch.Tensor]:
        out: List[torch.Tensor] = []
        out.append(torch.fake_quantize_per_tensor_affine(x, 0.05, 64, 0, 255))
        out.append(torch.fake_quantize_per_tensor_affine(x, 0.05, 0, -128, 127))
        out.append(torch.fake_quantize_per_tensor_affine(x, 0.3, 3, 0, 15))  # 4-bit
        out.append(torch.fake_quantize_per_tensor_affine(x, self.scale, self.zp, 0, 255))
        out.append(torch.fake_quantize_per_channel_affine(x, self.ch_scale, self.ch_zp, 1, -128, 127))
        out.append(torch.fake_quantize_per_channel_affine(x, self.ch_scale, self.ch_zp, 1, -8, 7))
        out.append(torch._fake_quantize_learnable_per_tensor_affine(x, self.learn_scale, self.learn_zp,
                                                                    0, 255, 1.0))
        out.append(torch._fake_quantize_learnable_per_channel_affine(
            x, self.ch_scale, self.ch_zp.float(), 1, -128, 127, 1.0))
        out.append(torch.fused_moving_avg_obs_fake_quant(
            x, self.off, self.on, self.rmin, self.rmax, self.fq_scale, self.fq_zp, 0.01, 0, 255, 0,
            False, False))
        return out


class Rnn(nn.Module):
    """A bidirectional time-major LSTM and a 2-layer batch-first GRU (quantize_dynamic below)."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 6, bidirectional=True)
        self.gru = nn.GRU(12, 5, num_layers=2, batch_first=True)

    def forward(self, x: torch.Tensor):
        y, (h, c) = self.lstm(x.transpose(0, 1))
        z, hz = self.gru(y.transpose(0, 1))
        return y, h, c, z, hz


class PackedRnn(nn.Module):
    """Batches of different lengths as taggers feed them: pack_padded_sequence (unsorted), a
    2-layer bidirectional batch-first LSTM and a GRU on the packed sequence, pad_packed_sequence
    (quantize_dynamic below: aten::quantized_lstm.data / quantized_gru.data)."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 6, num_layers=2, bidirectional=True, batch_first=True)
        self.gru = nn.GRU(12, 5, batch_first=True)

    def forward(self, x: torch.Tensor, lengths: torch.Tensor):
        packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        y, (h, c) = self.lstm(packed)
        z, hz = self.gru(y)
        out, _ = pad_packed_sequence(z, batch_first=True)
        return out, h, c, hz


def packed_rnn_model():
    return torch.ao.quantization.quantize_dynamic(PackedRnn().eval(), {nn.LSTM, nn.GRU},
                                                  dtype=torch.qint8)


class Cells(nn.Module):
    """One step of each recurrent cell, as decoders loop them (quantize_dynamic below:
    quantized::quantized_lstm_cell_dynamic, gru_cell, rnn_tanh_cell, rnn_relu_cell)."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTMCell(8, 6)
        self.gru = nn.GRUCell(8, 6)
        self.tanh = nn.RNNCell(8, 6)
        self.relu = nn.RNNCell(8, 6, nonlinearity="relu")

    def forward(self, x: torch.Tensor, h: torch.Tensor, c: torch.Tensor):
        h1, c1 = self.lstm(x, (h, c))
        return h1, c1, self.gru(x, h), self.tanh(x, h), self.relu(x, h)


def cells_model():
    return torch.ao.quantization.quantize_dynamic(
        Cells().eval(), {nn.LSTMCell, nn.GRUCell, nn.RNNCell}, dtype=torch.qint8)


def rnn_model():
    return torch.ao.quantization.quantize_dynamic(Rnn().eval(), {nn.LSTM, nn.GRU}, dtype=torch.qint8)


class Embeddings(nn.Module):
    """Embedding lookups of a recommender: ids, and bags of ids with weights (quantized below)."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 16)
        self.bag = nn.EmbeddingBag(40, 8, mode="sum", include_last_offset=True)
        self.mean_bag = nn.EmbeddingBag(30, 8, mode="mean")
        self.bag4 = nn.EmbeddingBag(40, 8, mode="sum")  # 4-bit below

    def forward(self, ids: torch.Tensor, bag_ids: torch.Tensor, offsets: torch.Tensor,
                weights: torch.Tensor):
        # nn.quantized.EmbeddingBag always passes mode 0 and drops include_last_offset (LibTorch
        # 1.13): the op itself is called with include_last_offset (and mode 1, which its kernel
        # ignores: it sums).
        mean = torch.ops.quantized.embedding_bag_byte(
            self.bag._packed_params._packed_weight, bag_ids, offsets, False, 1, False, None, None,
            True)
        return (self.emb(ids), self.bag(bag_ids, offsets, per_sample_weights=weights),
                self.mean_bag(ids % 30), mean, self.bag4(bag_ids, offsets))


def embedding_model():
    from torch.ao.quantization import (float_qparams_weight_only_qconfig,
                                       float_qparams_weight_only_qconfig_4bit)
    q8, q4 = float_qparams_weight_only_qconfig, float_qparams_weight_only_qconfig_4bit
    return torch.ao.quantization.quantize_dynamic(
        Embeddings().eval(), {"emb": q8, "bag": q8, "mean_bag": q8, "bag4": q4})


def embedding_inputs(g):
    return [torch.randint(0, 50, (2, 5), generator=g), torch.randint(0, 40, (9,), generator=g),
            torch.tensor([0, 4, 4, 9]), torch.rand(9, generator=g)]


MODELS = {"functional": (Functional, 2), "packed": (Packed, 1), "per_channel": (PerChannel, 1),
          "per_channel_conv": (PerChannelConv, 1), "fake": (Fake, 1), "rnn": (rnn_model, 1),
          "embedding": (embedding_model, 0), "rnn_packed": (packed_rnn_model, 0),
          "rnn_cells": (cells_model, 0)}

# The example inputs of the models whose inputs are not n_inputs f32[2,4,6,6] tensors.
SPECIAL_INPUTS = {
    "rnn": lambda g: [torch.randn(2, 5, 8, generator=g)],
    "embedding": lambda g: embedding_inputs(g),
    "rnn_packed": lambda g: [torch.randn(3, 7, 8, generator=g), torch.tensor([7, 3, 5])],
    "rnn_cells": lambda g: [torch.randn(2, 8, generator=g), torch.randn(2, 6, generator=g),
                            torch.randn(2, 6, generator=g)],
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("models", nargs="*", help="model names (default: all)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name in args.models or MODELS:
        cls, n_inputs = MODELS[name]
        torch.manual_seed(0)
        module = torch.jit.script(cls().eval())
        path = os.path.join(args.out, name + ".pt")
        save_module(module, path)
        g = torch.Generator().manual_seed(7)
        if name in SPECIAL_INPUTS:
            inputs = SPECIAL_INPUTS[name](g)
        else:
            inputs = [torch.randn(2, 4, 6, 6, generator=g) for _ in range(n_inputs)]
        save_oracle(path, inputs=inputs)
        print(f"{name}\t{path}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
