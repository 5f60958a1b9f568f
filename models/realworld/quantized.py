"""Quantized models the way users make them (issue 29; docs/quantized.md).

make(name, kind=..., size=...) builds one, in eval mode with seeded weights, and returns the
TorchScript module and its example inputs (random images / features of the given size, seed 0):

- kind "torchvision": a builder of torchvision.models.quantization (`name` is the builder) with
  random weights, but not random statistics: the float model's BatchNorm running statistics are
  the averages of a few train-mode passes over random images (momentum None), so every layer sees
  normalized activations and the int8 outputs are not constant; then fused, calibrated on 8
  random images with per-tensor weights (what torchvision's quantize=True uses) and 7-bit
  activations (_qconfig: LibTorch's results then do not depend on the CPU) and converted. Traced; inception_v3 scripted as its users do (torchvision's own test does).
- kind "eager": a small network written with eager-mode quantization (QuantStub, fused
  Conv+BN+ReLU, FloatFunctional add/mul/cat, conv1d on a sequence, conv_transpose2d, hardswish,
  sigmoid, leaky_relu, LayerNorm, GroupNorm, InstanceNorm, upsampling, pooling, Linear+ReLU),
  per-channel weights (the x86 qconfig, reduce_range activations), scripted.
- kind "fx": FX graph mode (prepare_fx / convert_fx) of a plain float ResNet-style block with a
  residual add and a linear head, traced.
- kind "qat": quantization-aware training in FX mode, a few SGD steps, then eval with the
  observers off and the fake quantization kept (fused_moving_avg_obs_fake_quant in the graph),
  traced.
- kind "qat_eager": eager QAT (FakeQuantize modules: fake_quantize_per_tensor_affine and
  per-channel weights), observers off, traced.
- kind "dynamic": torch.ao.quantization.quantize_dynamic of a transformer-style MLP block
  (nn.Linear layers, per-tensor int8 weights, activations quantized at run time), scripted.
- kinds "dynamic_lstm", "dynamic_gru": quantize_dynamic of a sequence tagger (embedding, a
  2-layer batch-first LSTM / a 2-layer bidirectional time-major GRU, a linear head), scripted;
  the token ids are its example inputs.
"""
import copy

import torch
import torch.nn as nn
import torch.ao.quantization as tq


def _images(size, n=1, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, 3, size, size, generator=g)


def _settle_batchnorm(model, size, passes=4):
    """BatchNorm statistics from the model's own activations: cumulative averages of train-mode
    passes over random images, so the float model's activations are normalized."""
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            m.reset_running_stats()
            m.momentum = None
    model.train()
    with torch.no_grad():
        for k in range(passes):
            model(_images(size, 4, seed=100 + k))
    model.eval()


def _scale_residual_branches(model, factor=0.3):
    """Residual branches that add a fraction of the skip path, as in trained ResNets and
    MobileNets (trained from zero-initialized last BatchNorms): random full-size branches make a
    deep network chaotic, where one int8 rounding step anywhere moves the output by tens of steps
    and LibTorch's own engines (qnnpack, onednn) disagree by a third of the output range."""
    for mod in model.modules():
        adds = [n for n, c in mod.named_children()
                if isinstance(c, nn.quantized.FloatFunctional) and "add" in n]
        if not adds:  # torchvision names its residual adds skip_add, add_relu, ...; cats myop
            continue
        bns = [m for n, m in mod.named_modules()
               if isinstance(m, nn.modules.batchnorm._BatchNorm) and "downsample" not in n]
        if bns:
            with torch.no_grad():
                bns[-1].weight.mul_(factor)
                bns[-1].bias.mul_(factor)


def _qconfig():
    """The qnnpack qconfig (per-tensor int8 weights) with activations in 7 bits (reduce_range), as
    x86 deployments quantize: with full 8-bit activations LibTorch's int8 convolutions on CPUs
    without VNNI (AVX2 only) saturate their 16-bit pair sums (u8 x s8 products), so LibTorch's own
    outputs would depend on the machine's CPU; with 7 bits no sum can saturate."""
    return tq.QConfig(activation=tq.HistogramObserver.with_args(reduce_range=True),
                      weight=tq.default_weight_observer)


def _qconfig_mapping():
    """FX's qnnpack mapping (per-tensor weights, so opset 11 can take them) with _qconfig's 7-bit
    activations wherever it has the default qconfig (ops with fixed parameters keep theirs)."""
    mapping = tq.get_default_qconfig_mapping("qnnpack")
    default = mapping.global_qconfig
    mapping.set_global(_qconfig())
    for key, qconfig in list(mapping.object_type_qconfigs.items()):
        if qconfig is default or qconfig == default:
            mapping.set_object_type(key, _qconfig())
    return mapping


def _calibrate(model, inputs):
    with torch.no_grad():
        for x in inputs:
            model(x)


def torchvision_model(name, size):
    import torchvision.models.quantization as tvq

    kwargs = {"aux_logits": False, "init_weights": True} if name in ("googlenet", "inception_v3") else {}
    torch.manual_seed(0)
    model = getattr(tvq, name)(weights=None, quantize=False, **kwargs)
    _settle_batchnorm(model, size)
    _scale_residual_branches(model)
    model.fuse_model(is_qat=False)
    model.qconfig = _qconfig()
    tq.prepare(model, inplace=True)
    _calibrate(model, [_images(size, 2, seed=200 + k) for k in range(4)])
    tq.convert(model, inplace=True)
    x = _images(size)
    with torch.no_grad():
        module = torch.jit.script(model) if name == "inception_v3" else torch.jit.trace(model, x)
    return module, [x]


class EagerNet(nn.Module):
    """Eager-mode quantization as in the PyTorch tutorials: stubs, fused modules, FloatFunctional."""

    def __init__(self):
        super().__init__()
        self.quant = tq.QuantStub()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        self.branch = nn.Sequential(nn.Conv2d(16, 16, 3, padding=1, groups=4), nn.BatchNorm2d(16))
        self.skip = nn.quantized.FloatFunctional()
        self.gate = nn.Conv2d(16, 16, 1)
        self.sig = nn.Sigmoid()
        self.scale = nn.quantized.FloatFunctional()
        self.act = nn.Hardswish()
        self.pool = nn.MaxPool2d(2)
        self.norm = nn.GroupNorm(4, 16)
        self.inorm = nn.InstanceNorm2d(16, affine=True)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.deconv = nn.ConvTranspose2d(16, 8, 2, stride=2)
        self.leaky = nn.LeakyReLU(0.1)
        self.seq = nn.Conv1d(8, 8, 3, padding=1)
        self.cat = nn.quantized.FloatFunctional()
        self.lnorm = nn.LayerNorm(16)
        self.head = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 10))
        self.dequant = tq.DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        x = self.stem(x)
        x = self.skip.add_relu(x, self.branch(x))
        x = self.scale.mul(x, self.sig(self.gate(x)))
        x = self.pool(self.act(x))
        x = self.inorm(self.norm(x))
        y = self.up(self.leaky(self.deconv(self.pool(x))))  # [N, 8, H/2, W/2]
        s = self.seq(y.flatten(2))  # a sequence of H*W/4 steps
        z = self.cat.cat([y.flatten(2), s], dim=1)  # [N, 16, L]
        z = self.lnorm(z.transpose(1, 2))  # [N, L, 16]
        z = self.head(z)
        return self.dequant(z)


def eager_model(size):
    torch.manual_seed(0)
    model = EagerNet()
    _settle_batchnorm(model, size)
    tq.fuse_modules(model, [["stem.0", "stem.1", "stem.2"], ["branch.0", "branch.1"],
                            ["head.0", "head.1"]], inplace=True)
    model.qconfig = tq.QConfig(activation=tq.HistogramObserver.with_args(reduce_range=True),
                               weight=tq.default_per_channel_weight_observer)
    # PyTorch quantizes transposed convolutions per tensor only.
    model.deconv.qconfig = tq.QConfig(activation=model.qconfig.activation,
                                      weight=tq.default_weight_observer)
    tq.prepare(model, inplace=True)
    _calibrate(model, [_images(size, 2, seed=200 + k) for k in range(4)])
    tq.convert(model, inplace=True)
    x = _images(size)
    with torch.no_grad():
        return torch.jit.script(model), [x]


class ResBlockNet(nn.Module):
    """A plain float model as users write it; FX quantizes it without stubs."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, stride=2, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 16, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(16)
        self.conv3 = nn.Conv2d(16, 16, 3, padding=1)
        self.bn3 = nn.BatchNorm2d(16)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = torch.relu(self.bn1(self.conv1(x)))
        y = torch.relu(self.bn2(self.conv2(x)))
        y = self.bn3(self.conv3(y))
        x = torch.relu(x + y)
        x = torch.nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


def fx_model(size, qat=False):
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx, prepare_qat_fx

    torch.manual_seed(0)
    model = ResBlockNet()
    _settle_batchnorm(model, size)
    x = _images(size)
    qconfig = (tq.get_default_qat_qconfig_mapping("qnnpack") if qat
               else _qconfig_mapping())
    if qat:
        model.train()
        prepared = prepare_qat_fx(model, qconfig, example_inputs=(x,))
        opt = torch.optim.SGD(prepared.parameters(), lr=1e-3)
        for k in range(3):
            opt.zero_grad()
            prepared(_images(size, 4, seed=300 + k)).square().mean().backward()
            opt.step()
        prepared.apply(tq.disable_observer)
        prepared.eval()
        with torch.no_grad():
            return torch.jit.trace(prepared, x), [x]
    prepared = prepare_fx(model.eval(), qconfig, example_inputs=(x,))
    _calibrate(prepared, [_images(size, 2, seed=200 + k) for k in range(4)])
    converted = convert_fx(prepared)
    with torch.no_grad():
        return torch.jit.trace(converted, x), [x]


class QatNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = tq.QuantStub()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.relu = nn.ReLU()
        self.fc = nn.Linear(8, 4)
        self.dequant = tq.DeQuantStub()

    def forward(self, x):
        x = self.relu(self.bn(self.conv(self.quant(x))))
        x = x.mean(dim=(2, 3))
        return self.dequant(self.fc(x))


def qat_eager_model(size):
    torch.manual_seed(0)
    model = QatNet()
    _settle_batchnorm(model, size)
    model.train()
    tq.fuse_modules_qat(model, [["conv", "bn", "relu"]], inplace=True)
    # FakeQuantize modules (not the fused observer): fake_quantize_per_tensor_affine for
    # activations, per-channel for the weights.
    model.qconfig = tq.QConfig(
        activation=tq.FakeQuantize.with_args(observer=tq.MovingAverageMinMaxObserver, quant_min=0,
                                             quant_max=255),
        weight=tq.FakeQuantize.with_args(observer=tq.MovingAveragePerChannelMinMaxObserver,
                                         quant_min=-128, quant_max=127, dtype=torch.qint8,
                                         qscheme=torch.per_channel_symmetric))
    tq.prepare_qat(model, inplace=True)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    for k in range(3):
        opt.zero_grad()
        model(_images(size, 4, seed=300 + k)).square().mean().backward()
        opt.step()
    model.apply(tq.disable_observer)
    model.eval()
    x = _images(size)
    with torch.no_grad():
        return torch.jit.trace(model, x), [x]


class MlpBlock(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.up = nn.Linear(d, 4 * d)
        self.down = nn.Linear(4 * d, d)
        self.out = nn.Linear(d, 8)

    def forward(self, x):
        h = x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))
        return self.out(h)


class Tagger(nn.Module):
    """A sequence tagger as NLP users write one: embedding, a 2-layer batch-first LSTM, a head."""

    def __init__(self, rnn="lstm"):
        super().__init__()
        self.embed = nn.Embedding(100, 32)
        if rnn == "lstm":
            self.rnn = nn.LSTM(32, 48, num_layers=2, batch_first=True)
        else:  # a bidirectional, time-major GRU
            self.rnn = nn.GRU(32, 24, num_layers=2, bidirectional=True)
        self.head = nn.Linear(48, 7)
        self.time_major = rnn != "lstm"

    def forward(self, ids):
        x = self.embed(ids)
        if self.time_major:
            x = x.transpose(0, 1)
        out, _ = self.rnn(x)
        if self.time_major:
            out = out.transpose(0, 1)
        return self.head(out)


def dynamic_rnn_model(rnn):
    torch.manual_seed(0)
    model = torch.ao.quantization.quantize_dynamic(Tagger(rnn).eval(), {nn.LSTM, nn.GRU, nn.Linear},
                                                   dtype=torch.qint8)
    ids = torch.randint(0, 100, (2, 12), generator=torch.Generator().manual_seed(0))
    return torch.jit.script(model), [ids]


def dynamic_model():
    torch.manual_seed(0)
    model = torch.ao.quantization.quantize_dynamic(MlpBlock().eval(), {nn.Linear}, dtype=torch.qint8)
    x = torch.randn(2, 16, 64, generator=torch.Generator().manual_seed(0))
    return torch.jit.script(model), [x]


def make(name, kind="torchvision", size=64):
    if kind == "torchvision":
        return torchvision_model(name, size)
    if kind == "eager":
        return eager_model(size)
    if kind == "fx":
        return fx_model(size)
    if kind == "qat":
        return fx_model(size, qat=True)
    if kind == "qat_eager":
        return qat_eager_model(size)
    if kind == "dynamic":
        return dynamic_model()
    if kind in ("dynamic_lstm", "dynamic_gru"):
        return dynamic_rnn_model(kind[len("dynamic_"):])
    raise ValueError(f"unknown kind {kind!r}")
