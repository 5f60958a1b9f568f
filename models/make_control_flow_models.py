#!/usr/bin/env python3
"""Make the scripted TorchScript models the control-flow tests use (random weights, seeded).

    /usr/bin/python3 models/make_control_flow_models.py --out ~/.cache/torch2onnx/control_flow

Each model keeps its data-dependent `if`, `for` and `while` as prim::If / prim::Loop (made with
torch.jit.script; the nn.LSTM / nn.GRU ones also traced, as `<name>_traced`). Writes OUT/<name>.pt
and prints: name, path, --input specs.
"""
import argparse
import math
import warnings
import os
import sys
from typing import Dict, List, Optional, Tuple, Union

import torch
import torch.nn as nn
import torch.nn.functional as F

from fixture_io import save_module


class IfSum(nn.Module):
    """A data-dependent if, an early return, and a branch whose outputs are constants."""

    def forward(self, x):
        if x.sum() > 0:
            y = torch.relu(x) * 2.0
            s = 3
        else:
            y = x - 1.0
            s = -2
        if bool(x.mean() < -0.3):
            return y * 0.5 - float(s)
        return y + s


class ForStack(nn.Module):
    """A for loop over a tensor dim that collects a list, then torch.stack (and a cat)."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        outs: List[torch.Tensor] = []
        acc = torch.zeros(x.size(1), x.size(2))
        for i in range(x.size(0)):
            acc = torch.tanh(self.lin(x[i]) + acc) * (i + 1)
            outs.append(acc)
        n = len(outs)
        return torch.stack(outs, 0), torch.cat(outs, 1) / n, outs[-1]


class WhileLoop(nn.Module):
    """A while loop on a runtime condition, with a counter returned as a 0-d tensor."""

    def forward(self, x):
        i = 0
        y = x
        while bool(y.abs().sum() < 100.0) and i < 50:
            y = y * 1.5 + 0.25
            i += 1
        return y, torch.tensor(i)


class CellLoop(nn.Module):
    """nn.LSTMCell and nn.GRUCell stepped in a for loop over time (x: [T, B, 8])."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTMCell(8, 16)
        self.gru = nn.GRUCell(16, 12)

    def forward(self, x):
        h = torch.zeros(x.size(1), 16)
        c = torch.zeros(x.size(1), 16)
        g = torch.zeros(x.size(1), 12)
        outs: List[torch.Tensor] = []
        for t in range(x.size(0)):
            h, c = self.lstm(x[t], (h, c))
            g = self.gru(h, g)
            outs.append(g)
        return torch.stack(outs), h, c


class Lstm(nn.Module):
    """nn.LSTM (2 layers, bidirectional, batch_first) then a 1-layer nn.LSTM; h0 optional."""

    def __init__(self, with_state: bool):
        super().__init__()
        self.with_state = with_state
        self.rnn = nn.LSTM(6, 10, num_layers=2, bidirectional=True, batch_first=True)
        self.rnn2 = nn.LSTM(20, 5, num_layers=1)

    def forward(self, x, h0):
        state: Optional[Tuple[torch.Tensor, torch.Tensor]] = None
        if self.with_state:
            state = (h0, h0 * 0.5)
        y, (h, c) = self.rnn(x, state)
        z, _ = self.rnn2(y.transpose(0, 1))
        return y, h, c, z


class ProjectedLstm(nn.Module):
    """nn.LSTM with proj_size (LSTMP, as speech encoders use it): 2 layers, bidirectional,
    batch_first, with and without biases; its own (h0, c0) of sizes proj_size and hidden_size."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(6, 10, num_layers=2, bidirectional=True, batch_first=True, proj_size=4)
        self.rnn2 = nn.LSTM(8, 7, proj_size=3, bias=False)

    def forward(self, x, h0):
        c0 = torch.zeros(4, x.size(0), 10) + 0.25
        y, (h, c) = self.rnn(x, (h0, c0))
        z, (h2, c2) = self.rnn2(y.transpose(0, 1))
        return y, h, c, z, h2, c2


class Gru(nn.Module):
    """nn.GRU (2 layers, bidirectional, batch_first) then a 1-layer nn.GRU; h0 optional."""

    def __init__(self, with_state: bool):
        super().__init__()
        self.with_state = with_state
        self.rnn = nn.GRU(6, 10, num_layers=2, bidirectional=True, batch_first=True)
        self.rnn2 = nn.GRU(20, 5, num_layers=1)

    def forward(self, x, h0):
        state: Optional[torch.Tensor] = None
        if self.with_state:
            state = h0
        y, h = self.rnn(x, state)
        z, _ = self.rnn2(y.transpose(0, 1))
        return y, h, z


class ListMethods(nn.Module):
    """Python list methods on sizes, as users write shape bookkeeping: reverse, sort, index,
    count, sum, min/max, `in`; some depend on a symbolic dim."""

    def forward(self, x, y):
        dims: List[int] = []
        for d in x.shape:
            dims.append(d)
        dims.reverse()
        warnings.warn("list_methods: sizes reordered")
        order = [x.size(0), 3, 1]
        order.sort()
        k = dims.index(x.size(0)) + dims.count(3) + sum(dims)
        n = min([x.size(1), y.size(1)])
        m = max(order)
        scale = float(k + m) if 3 in dims else 1.0
        return x[:, :n] * scale + y[:, :n], torch.full([1], float(n))


class DictMethods(nn.Module):
    """A dict of tensors by name (a feature pyramid, heads' outputs): keys(), values(),
    items(), get with a default, `in`, str methods on the names."""

    def __init__(self):
        super().__init__()
        self.names = ["p3", "p4", "head"]
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        feats: Dict[str, torch.Tensor] = {}
        for i, name in enumerate(self.names):
            feats[name] = self.lin(x) * float(i + 1)
        total = torch.zeros_like(x)
        for name in feats.keys():
            if name.startswith("p"):
                total = total + feats[name]
        for v in feats.values():
            total = total + v.mean()
        for name, v in feats.items():
            total = total - v * float(len(name))
        extra = feats.get("extra", x)
        out = total + extra
        if "head".upper().lower() in feats:
            out = out + feats["head"]
        return out * float(len(feats))


class DictInIf(nn.Module):
    """A dict of outputs filled in the branches of an if on a runtime value (a detector's
    "has objects" path): the same keys on both paths, one of them set before the if and
    overwritten, and a nested if."""

    def forward(self, x):
        out: Dict[str, torch.Tensor] = {"y": x * 2.0}
        if bool(x.sum() > 0):
            out["flag"] = torch.ones(1)
            out["y"] = out["y"] + 1.0
        else:
            out["flag"] = torch.zeros(1)
            if bool(x.max() > 1.0):
                out["y"] = out["y"] - x.max()
        return out


class DictKeysDiffer(nn.Module):
    """A key set on one path of a runtime if only: not exportable (an ONNX If has fixed outputs)."""

    def forward(self, x):
        out: Dict[str, torch.Tensor] = {"y": x}
        if bool(x.sum() > 0):
            out["pos"] = x
        else:
            out["neg"] = -x
        return out


class IsInstance(nn.Module):
    """isinstance on values typed Union / Optional (a scripted model's input checks)."""

    def forward(self, x, mask: Optional[torch.Tensor] = None):
        feats: Union[torch.Tensor, List[torch.Tensor]] = [x, x.flip(0)]
        if isinstance(feats, torch.Tensor):
            y = feats
        else:
            y = feats[0] + feats[1]
        if isinstance(mask, torch.Tensor):
            y = y * mask
        return y


class WritesInLoops(nn.Module):
    """Writes into slices of a tensor made before a loop or an if, as decoders and CRF Viterbi
    backtracking fill their output buffers: a while loop, a for loop with break, a for loop over a
    runtime length, an if, and a row of a row (a view of a view)."""

    def forward(self, x):
        t = x.size(1)
        a = torch.zeros_like(x)
        i = 0
        while i < t:
            a[:, i] = x[:, i] * 2
            i += 1
        b = torch.zeros_like(x)
        for j in range(t):
            if j == 3:
                break
            b[:, j] = x[:, j] + 1
        c = torch.zeros_like(x)
        for j in range(t):
            c[:, j:j + 1] = x[:, j:j + 1].abs()
        d = torch.zeros_like(x)
        if bool(x.sum() > 0):
            d[0, :2] = 5.0
        else:
            d[:, 0] = -5.0
        e = torch.zeros(2, x.size(0), t)
        for j in range(t):
            e[1][:, j] = x[:, j] * 3
        return a, b, c, d, e


class ClassLoopInIf(nn.Module):
    """torchvision's batched_nms shape: above a size, a loop over the classes present (unique,
    where, indexing, writes into a mask); below it, another path. Recorded on few boxes, the loop's
    branch is never run at export time, and its ops' shapes are inferred with symbolic sizes."""

    def forward(self, boxes, scores, idxs):
        if boxes.numel() > 200:
            keep_mask = torch.zeros_like(scores, dtype=torch.bool)
            for class_id in torch.unique(idxs):
                curr = torch.where(idxs == class_id)[0]
                area = (boxes[curr, 2] - boxes[curr, 0]) * (boxes[curr, 3] - boxes[curr, 1])
                best = curr[(scores[curr] * area).argmax()]
                keep_mask[best] = True
            keep = torch.where(keep_mask)[0]
        else:
            keep = torch.where(scores > 0.5)[0]
        return keep[scores[keep].sort(descending=True)[1]]


class OptionalInLoop(nn.Module):
    """An Optional chosen by a module flag and only tested inside a loop over a runtime length
    (torchaudio's Emformer): TorchScript carries it through the loop, refined by an if whose
    branches both give it back unchanged."""

    def __init__(self, use_mem: bool):
        super().__init__()
        self.use_mem = use_mem

    def forward(self, x):
        if self.use_mem:
            s: Optional[List[bool]] = [True, False]
        else:
            s = None
        out: List[torch.Tensor] = []
        for i in range(x.size(0)):
            out.append(x[i] * 2)
            if s is not None:
                out.append(x[i] + float(len(s)))
        return torch.stack(out)


class NoGradBlocks(nn.Module):
    """`with torch.no_grad():` blocks inside forward, also in
    an if branch (teacher / EMA features computed without gradients)."""

    def __init__(self):
        super().__init__()
        self.teacher = nn.Linear(4, 4)
        self.student = nn.Linear(4, 4)

    def forward(self, x):
        with torch.no_grad():
            t = self.teacher(x)
        if bool(x.sum() > 0):
            with torch.no_grad():
                t = t * 2
        return self.student(x) - t


class ViewsAcrossControlFlow(nn.Module):
    """Views taken before a loop or an if and changed in place inside it: a column scaled in a
    loop over a runtime length, a row changed in one branch and again after the if."""

    def forward(self, x):
        y = x.clone()
        col = y[:, 1]
        for i in range(x.size(0)):
            col.mul_(2)
        row = y[0]
        if bool(x.sum() > 0):
            row += 10
        row.mul_(3)
        return y, col * 1


class PadIfNeeded(nn.Module):
    """Pad to a multiple of 32 only when needed, then crop the centre, as segmentation and
    detection preprocessing does: the examples (64x96) never take the branch, whose F.pad has
    amounts computed at run time and whose result's size is read after it."""

    def forward(self, x):
        h, w = x.shape[2], x.shape[3]
        if h % 32 != 0 or w % 32 != 0:
            ph = (32 - h % 32) % 32
            pw = (32 - w % 32) % 32
            x = F.pad(x, [pw // 2, pw - pw // 2, ph // 2, ph - ph // 2], mode="replicate")
            h = x.shape[2]
        top = (h - 32) // 2
        return x[:, :, top:top + 32].mean((2, 3))


class ContinueBreak(nn.Module):
    """A scan over rows with `continue` and `break` and int, float and bool counters carried
    through the loop, as greedy decoders and early-exit filters write it: TorchScript leaves the
    counters prim::Uninitialized on the paths that continue or break."""

    def forward(self, x):
        count = 0
        best = -1
        score = 0.0
        found = False
        for i in range(x.size(0)):
            s = x[i].sum()
            if bool(s < 0):
                continue
            count += 1
            score += float(s) * 0.5
            if count > 2:
                best = i
                found = True
                break
        y = x * count + best + score
        return y if found else -y


class ResizeCropNet(nn.Module):
    """Preprocessing scripted into the model, as deployments ship it: torchvision's
    T.Resize([72]) (the short side to 72: a branch on `w <= h`, an early return when the size is
    already right), T.CenterCrop(64) (pads when the image is smaller: an early return inside a
    branch) and T.Normalize, then a small conv net."""

    def __init__(self):
        super().__init__()
        import torchvision.transforms as T
        self.pre = nn.Sequential(T.Resize([72]), T.CenterCrop(64),
                                 T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]))
        self.conv = nn.Conv2d(3, 8, 3, stride=2)
        self.head = nn.Linear(8, 5)

    def forward(self, x):
        y = torch.relu(self.conv(self.pre(x)))
        return self.head(y.mean((2, 3))), y


class GreedyDecode(nn.Module):
    """A greedy decoder whose length is an input: `for i in range(int(max_len))` with the tokens
    carried (growing by one column a step) and the step scores appended to a list, stacked
    after the loop. The recordings all run the example's max_len, so the sizes that follow it
    are dynamic only by what the loop is."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(12, 8)
        self.cell = nn.GRUCell(8, 16)
        self.out = nn.Linear(16, 12)

    def forward(self, start, max_len):
        tokens = start.unsqueeze(1)
        h = torch.zeros(start.size(0), 16)
        scores: List[torch.Tensor] = []
        for i in range(int(max_len)):
            h = self.cell(self.emb(tokens[:, -1]), h)
            logits = self.out(h)
            scores.append(logits.max(-1)[0])
            tokens = torch.cat([tokens, logits.argmax(-1, keepdim=True)], 1)
        return tokens, torch.stack(scores, 1)


class LengthRegulator(nn.Module):
    """FastSpeech's length regulator: each frame repeated by its predicted duration, the
    utterances of different lengths padded with nn.utils.rnn.pad_sequence (a list built in a
    loop), and a padding mask from the lengths."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x, durations):
        outs: List[torch.Tensor] = []
        for i in range(x.size(0)):
            outs.append(torch.repeat_interleave(self.proj(x[i]), durations[i], dim=0))
        padded = nn.utils.rnn.pad_sequence(outs, batch_first=True, padding_value=-1.0)
        frames = nn.utils.rnn.pad_sequence(outs)  # [T, B, 4], padded with 0
        return padded, frames.sum(0)


class CausalMaskBlock(nn.Module):
    """One attention layer of a decoder (Meta's LLaMA reference code): the causal mask is None
    when one token is decoded and a [seq, seq] -inf upper triangle otherwise, decided from the
    sequence length at run time, and tested with `if mask is not None` inside the layer."""

    def __init__(self, d: int = 16):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)

    def forward(self, x, mask: Optional[torch.Tensor]):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = q @ k.transpose(1, 2) / math.sqrt(q.shape[-1])
        if mask is not None:
            scores = scores + mask
        return x + self.out(torch.softmax(scores, dim=-1) @ v)


class OptionalCausalMask(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([CausalMaskBlock(), CausalMaskBlock()])

    def forward(self, x):
        seqlen = x.shape[1]
        mask: Optional[torch.Tensor] = None
        if seqlen > 1:
            mask = torch.full((seqlen, seqlen), float("-inf"), device=x.device)
            mask = torch.triu(mask, diagonal=1).type_as(x)
        for layer in self.layers:
            x = layer(x, mask)
        return x


class OptionalCarried(nn.Module):
    """Optionals that start as None: a running sum over a runtime number of steps (`acc = x if
    acc is None else acc + x`, refined by an assert), and a bool keep-mask that is None on the
    branch written first."""

    def forward(self, x):
        keep: Optional[torch.Tensor] = None
        if x.size(1) <= 2:
            keep = None
        else:
            keep = x.sum(-1) > 0
        acc: Optional[torch.Tensor] = None
        for i in range(x.size(0)):
            if acc is None:
                acc = x[i]
            else:
                acc = acc + x[i] * (i + 1)
        assert acc is not None
        if keep is not None:
            return x.masked_fill(keep.unsqueeze(-1), 0.0) + acc
        return x - acc


class OptionalUnchecked(nn.Module):
    """A bias that is None on one path passed straight to F.linear, which takes an Optional:
    refused (the file would need a None value at run time)."""

    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(4, 4))
        self.bias = nn.Parameter(torch.randn(4))

    def forward(self, x):
        bias: Optional[torch.Tensor] = None
        if x.size(0) > 1:
            bias = self.bias
        return nn.functional.linear(x, self.weight, bias)


class EarlyReturnPad(nn.Module):
    """Pad short inputs to 10 rows with an early return inside whose condition is static (5
    columns, never 4), then crop: the flag TorchScript makes for the return is false on both paths
    of the runtime if."""

    def forward(self, x):
        if x.shape[0] < 10:
            x = F.pad(x, [0, 0, 10 - x.shape[0], 0])
            if x.shape[1] == 4:
                return x
        return x[:10]


def models():
    """name -> (module, example inputs, --input specs, also traced)"""
    torch.manual_seed(0)
    rnn_in = (torch.randn(3, 7, 6), torch.randn(4, 3, 10))
    rnn_specs = ["x:f32[3,7,6]", "h0:f32[4,3,10]"]
    return {
        "if_sum": (IfSum(), (torch.randn(2, 3),), ["x:f32[2,3]"], False),
        "for_stack": (ForStack(), (torch.randn(5, 3, 4),), ["x:f32[5,3,4]"], False),
        "while_loop": (WhileLoop(), (torch.randn(2, 3),), ["x:f32[2,3]"], False),
        "cell_loop": (CellLoop(), (torch.randn(6, 2, 8),), ["x:f32[6,2,8]"], False),
        "lstm": (Lstm(False), rnn_in, rnn_specs, True),
        "lstm_h0": (Lstm(True), rnn_in, rnn_specs, True),
        "lstm_proj": (ProjectedLstm(), (torch.randn(3, 7, 6), torch.randn(4, 3, 4)),
                      ["x:f32[3,7,6]", "h0:f32[4,3,4]"], True),
        "gru": (Gru(False), rnn_in, rnn_specs, True),
        "gru_h0": (Gru(True), rnn_in, rnn_specs, True),
        "list_methods": (ListMethods(), (torch.randn(3, 6), torch.randn(3, 5)),
                         ["x:f32[3,6]", "y:f32[3,5]"], False),
        "dict_methods": (DictMethods(), (torch.randn(2, 4),), ["x:f32[2,4]"], False),
        "dict_in_if": (DictInIf(), (torch.randn(2, 3),), ["x:f32[2,3]"], False),
        "dict_keys_differ": (DictKeysDiffer(), (torch.randn(2, 3),), ["x:f32[2,3]"], False),
        "isinstance": (IsInstance(), (torch.randn(2, 3), torch.rand(2, 3)),
                       ["x:f32[2,3]", "mask:f32[2,3]"], False),
        "writes_in_loops": (WritesInLoops(), (torch.randn(3, 5),), ["x:f32[b=3,t=5]"], False),
        "optional_in_loop": (OptionalInLoop(False), (torch.randn(5, 3),), ["x:f32[n=5,3]"], False),
        "optional_in_loop_set": (OptionalInLoop(True), (torch.randn(5, 3),), ["x:f32[n=5,3]"],
                                 False),
        "views_across_control_flow": (ViewsAcrossControlFlow(), (torch.randn(3, 4),),
                                      ["x:f32[b=3,4]"], False),
        "length_regulator": (LengthRegulator(), (torch.randn(2, 5, 4),
                                                 torch.randint(0, 4, (2, 5))),
                             ["x:f32[b=2,t=5,4]", "dur:i64[b,t]:0..3"], False),
        "pad_if_needed": (PadIfNeeded(), (torch.randn(1, 3, 64, 96),), ["x:f32[1,3,h=64,w=96]"],
                          False),
        "resize_crop_net": (ResizeCropNet(), (torch.rand(1, 3, 100, 120),),
                            ["x:f32[1,3,h=100,w=120]"], False),
        "greedy_decode": (GreedyDecode(), (torch.tensor([1, 5]), torch.tensor(4)),
                          ["start:i64[b=2]:0..11", "max_len:i64[]:4..4"], False),
        "continue_break": (ContinueBreak(), (torch.randn(8, 3),), ["x:f32[n=8,3]"], False),
        "no_grad_blocks": (NoGradBlocks(), (torch.randn(3, 4),), ["x:f32[b=3,4]"], False),
        "optional_causal_mask": (OptionalCausalMask(), (torch.randn(2, 5, 16),),
                                 ["x:f32[b=2,s=5,16]"], False),
        "optional_carried": (OptionalCarried(), (torch.randn(3, 4, 5),), ["x:f32[n=3,t=4,5]"],
                             False),
        "optional_unchecked": (OptionalUnchecked(), (torch.randn(2, 4),), ["x:f32[b=2,4]"], False),
        "early_return_pad": (EarlyReturnPad(), (torch.randn(3, 5),), ["x:f32[n=3,5]"], False),
        "class_loop_in_if": (ClassLoopInIf(), (torch.rand(30, 4), torch.rand(30),
                                                torch.randint(0, 4, (30,))),
                             ["boxes:f32[n=30,4]", "scores:f32[n]", "idxs:i64[n]:0..3"], False),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name, (module, example, specs, traced_too) in models().items():
        module.eval()
        variants = [(name, False)] + ([(name + "_traced", True)] if traced_too else [])
        for vname, traced in variants:
            path = os.path.join(args.out, vname + ".pt")
            if not os.path.exists(path):
                with torch.no_grad():
                    m = torch.jit.trace(module, example) if traced else torch.jit.script(module)
                save_module(m, path)
            print(f"{vname}\t{path}\t{' '.join(specs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
