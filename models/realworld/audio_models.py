"""Speech and audio models written the way people write them, small: torchaudio.transforms front
ends inside a model (MelSpectrogram, MFCC, Spectrogram power / complex, AmplitudeToDB, Resample),
a keyword-spotting CNN on MFCC, a CTC recognizer (conv subsampling, BiLSTM or Transformer,
log_softmax) and a HiFi-GAN / VITS style vocoder (ConvTranspose1d upsampling, leaky_relu, residual
dilated convolutions, weight_norm removed as inference code does). Inputs are real audio (a chirp plus noise)."""
import math
from typing import Optional

import torch
import torch.nn.functional as F
import torchaudio
from torch import nn
from torch.nn.utils import remove_weight_norm, weight_norm


def chirp(batch, samples, sr=16000):
    t = torch.arange(samples, dtype=torch.float32) / sr
    rows = [0.5 * torch.sin(2 * math.pi * (200.0 + 150.0 * b + 2000.0 * t) * t)
            + 0.02 * torch.randn(samples) for b in range(batch)]
    return torch.stack(rows)


class FrontEnd(nn.Module):
    """One torchaudio transform on a waveform, then a small projection so weights matter too."""

    def __init__(self, kind):
        super().__init__()
        self.kind = kind
        T = torchaudio.transforms
        if kind == "melspec_db":
            self.t = nn.Sequential(T.MelSpectrogram(16000, n_fft=256, hop_length=128, n_mels=32),
                                   T.AmplitudeToDB(top_db=80.0))
        elif kind == "mfcc":
            self.t = T.MFCC(16000, n_mfcc=13, melkwargs={"n_fft": 256, "hop_length": 128,
                                                          "n_mels": 32})
        elif kind == "spectrogram":
            self.t = T.Spectrogram(n_fft=256, hop_length=64, power=2.0, normalized=True)
        elif kind == "spectrogram_complex":
            self.t = T.Spectrogram(n_fft=128, hop_length=32, power=None)
        elif kind == "resample":
            self.t = T.Resample(16000, 8000)
        elif kind == "melspec_centerless":
            self.t = T.MelSpectrogram(16000, n_fft=200, win_length=160, hop_length=80, n_mels=24,
                                      center=False, power=1.0, norm="slaney", mel_scale="slaney")
        else:
            raise ValueError(kind)

    def forward(self, audio):
        return self.t(audio)


class ComplexFrontEnd(FrontEnd):
    def forward(self, audio):
        y = self.t(audio)
        # the complex spectrogram as real/imag pairs, and split into magnitude and phase and
        # rebuilt (phase-aware enhancement does this); the phase alone is ill-conditioned: it jumps
        # by 2 pi where a bin's imaginary part is within rounding of 0 (the nearly even first
        # frame of centre padding) and is noise in bins of magnitude near 0
        mag, phase = y.abs(), torch.angle(y)
        return torch.view_as_real(y), mag, torch.view_as_real(torch.polar(mag * 0.5, phase))


class KaldiFbank(nn.Module):
    """torchaudio.compliance.kaldi.fbank per utterance (WeNet / SpeechBrain style front ends):
    framing by as_strided, DC removal, pre-emphasis, povey window, rfft power, mel banks, log;
    dither 0 (dither adds noise), then utterance mean normalisation."""

    def forward(self, waveform):
        feats = []
        for i in range(waveform.size(0)):
            f = torchaudio.compliance.kaldi.fbank(waveform[i:i + 1] * 32768, num_mel_bins=40,
                                                  frame_length=25, frame_shift=10, dither=0.0,
                                                  energy_floor=0.0, sample_frequency=16000)
            feats.append(f - f.mean(dim=0, keepdim=True))
        return torch.stack(feats)


class KeywordSpotter(nn.Module):
    """MFCC -> 2 conv blocks (BN, ReLU, pooling) -> global average pool -> classes."""

    def __init__(self, n_classes=12):
        super().__init__()
        self.mfcc = torchaudio.transforms.MFCC(
            16000, n_mfcc=20, melkwargs={"n_fft": 400, "hop_length": 160, "n_mels": 32})
        self.net = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(32, n_classes))

    def forward(self, audio):
        x = self.mfcc(audio).unsqueeze(1)  # [B, 1, n_mfcc, frames]
        x = (x - x.mean(dim=(2, 3), keepdim=True)) / (x.std(dim=(2, 3), keepdim=True) + 1e-5)
        return F.softmax(self.net(x), dim=-1)


class LstmEncoder(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.rnn = nn.LSTM(d, d // 2, num_layers=2, batch_first=True, bidirectional=True)

    def forward(self, x, lengths):
        return self.rnn(x)[0]


class TransformerEncoder(nn.Module):
    """Learned positions and nn.TransformerEncoder with a padding mask from the lengths."""

    def __init__(self, d):
        super().__init__()
        self.pos = nn.Parameter(torch.randn(1, 64, d) * 0.1)
        layer = nn.TransformerEncoderLayer(d, 4, 2 * d, dropout=0.1, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2)

    def forward(self, x, lengths):
        t = x.size(1)
        mask = torch.arange(t, device=x.device)[None, :] >= lengths[:, None]
        return self.enc(x + self.pos[:, :t], src_key_padding_mask=mask)


class CtcRecognizer(nn.Module):
    """log-mel features -> Conv2d subsampling x4 -> BiLSTM or Transformer -> log_softmax; returns
    the log-probabilities and the output lengths (the CTC loss / greedy decoder inputs)."""

    def __init__(self, encoder="lstm", n_mels=32, d=48, vocab=29):
        super().__init__()
        self.mel = torchaudio.transforms.MelSpectrogram(16000, n_fft=400, win_length=400,
                                                        hop_length=160, n_mels=n_mels)
        self.sub = nn.Sequential(nn.Conv2d(1, d, 3, 2), nn.ReLU(), nn.Conv2d(d, d, 3, 2), nn.ReLU())
        f = ((n_mels - 1) // 2 - 1) // 2
        self.proj = nn.Linear(d * f, d)
        self.enc = LstmEncoder(d) if encoder == "lstm" else TransformerEncoder(d)
        self.head = nn.Linear(d, vocab)

    def forward(self, audio, audio_lengths):
        x = (self.mel(audio) + 1e-6).log().transpose(1, 2).unsqueeze(1)  # [B, 1, T, mels]
        x = self.sub(x)  # [B, d, T', f]
        b, c, t, f = x.size()
        x = self.proj(x.transpose(1, 2).contiguous().view(b, t, c * f))
        frames = audio_lengths // 160 + 1
        lengths = torch.div(torch.div(frames - 3, 2, rounding_mode="floor") - 1, 2,
                            rounding_mode="floor") + 1
        x = self.enc(x, lengths)
        return F.log_softmax(self.head(x), dim=-1), lengths


LRELU_SLOPE = 0.1


class ResBlock(nn.Module):
    """HiFi-GAN ResBlock1: pairs of dilated / plain Conv1d with leaky_relu and residuals."""

    def __init__(self, ch, kernel_size=3, dilations=(1, 3, 5), norm=True):
        super().__init__()
        self.slope = LRELU_SLOPE
        wn = weight_norm if norm else (lambda m: m)
        pad = lambda k, d: (k * d - d) // 2  # noqa: E731
        self.convs1 = nn.ModuleList(wn(nn.Conv1d(ch, ch, kernel_size, 1, dilation=d,
                                                 padding=pad(kernel_size, d))) for d in dilations)
        self.convs2 = nn.ModuleList(wn(nn.Conv1d(ch, ch, kernel_size, 1, dilation=1,
                                                 padding=pad(kernel_size, 1))) for _ in dilations)

    def forward(self, x):
        for c1, c2 in zip(self.convs1, self.convs2):
            xt = F.leaky_relu(x, self.slope)
            xt = c1(xt)
            xt = F.leaky_relu(xt, self.slope)
            xt = c2(xt)
            x = xt + x
        return x


class HifiGanGenerator(nn.Module):
    """mel [B, n_mels, frames] -> waveform [B, 1, frames * prod(rates)]; VITS adds a speaker
    embedding as a conditioning input (g), included here as an optional global conditioning."""

    def __init__(self, n_mels=16, ch=64, rates=(4, 4), kernels=(8, 8), res_kernels=(3, 5),
                 res_dilations=((1, 3), (1, 3)), gin_channels=0):
        super().__init__()
        self.num_kernels = len(res_kernels)
        self.slope = LRELU_SLOPE
        self.conv_pre = weight_norm(nn.Conv1d(n_mels, ch, 7, 1, padding=3))
        self.cond = nn.Conv1d(gin_channels, ch, 1) if gin_channels else None
        self.ups = nn.ModuleList()
        self.mrfs = nn.ModuleList()  # multi-receptive-field fusion: one set of ResBlocks per stage
        for i, (u, k) in enumerate(zip(rates, kernels)):
            self.ups.append(weight_norm(nn.ConvTranspose1d(ch // 2 ** i, ch // 2 ** (i + 1), k, u,
                                                           padding=(k - u) // 2)))
            self.mrfs.append(nn.ModuleList(ResBlock(ch // 2 ** (i + 1), rk, rd)
                                           for rk, rd in zip(res_kernels, res_dilations)))
        self.conv_post = weight_norm(nn.Conv1d(ch // 2 ** len(rates), 1, 7, 1, padding=3,
                                               bias=False))

    def forward(self, x, g: Optional[torch.Tensor] = None):
        x = self.conv_pre(x)
        if g is not None and self.cond is not None:
            x = x + self.cond(g)
        for up, mrf in zip(self.ups, self.mrfs):
            x = F.leaky_relu(x, self.slope)
            x = up(x)
            xs = torch.zeros_like(x)
            for block in mrf:
                xs = xs + block(x)
            x = xs / self.num_kernels
        x = F.leaky_relu(x)
        return torch.tanh(self.conv_post(x))

    def remove_weight_norm(self):
        for m in self.modules():
            if isinstance(m, (nn.Conv1d, nn.ConvTranspose1d)) and hasattr(m, "weight_g"):
                remove_weight_norm(m)


def make(name, kind="mfcc", batch=2, samples=4000, script=False, encoder="lstm", speaker=False):
    if kind == "wenet_conformer":
        return make_wenet(name, batch=batch, script=script)
    if kind == "vits":
        return make_vits(name, batch=batch, script=script)
    torch.manual_seed(0)
    audio = chirp(batch, samples)
    if kind == "kws":
        model, inputs = KeywordSpotter(), [audio]
    elif kind == "ctc":
        model = CtcRecognizer(encoder)
        inputs = [audio, torch.tensor([samples, samples * 3 // 4][:batch])]
    elif kind == "hifigan":
        model = HifiGanGenerator(gin_channels=(8 if speaker else 0))
        # inference code removes weight_norm first (torch 1.13 cannot trace its pre-hooks)
        model.remove_weight_norm()
        inputs = [torch.randn(batch, 16, 12)]
        if speaker:
            inputs.append(torch.randn(batch, 8, 1))
    elif kind == "spectrogram_complex":
        model, inputs = ComplexFrontEnd(kind), [audio]
    elif kind == "kaldi_fbank":
        model, inputs = KaldiFbank(), [audio]
    else:
        model, inputs = FrontEnd(kind), [audio]
    model.eval()
    # BatchNorm statistics that are not the identity
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 1.5)
    with torch.no_grad():
        if script:
            return torch.jit.script(model), inputs
        return torch.jit.trace(model, tuple(inputs), check_trace=False), inputs


# ---- WeNet / ESPnet style Conformer encoder --------------------------------------------------


class Conv2dSubsampling4(nn.Module):
    """WeNet's Conv2dSubsampling4: two stride-2 convs; the mask follows by slicing [:-2:2]."""

    def __init__(self, idim, odim):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, odim, 3, 2), nn.ReLU(), nn.Conv2d(odim, odim, 3, 2),
                                  nn.ReLU())
        self.out = nn.Linear(odim * (((idim - 1) // 2 - 1) // 2), odim)

    def forward(self, x, x_mask):
        x = self.conv(x.unsqueeze(1))
        b, c, t, f = x.size()
        x = self.out(x.transpose(1, 2).contiguous().view(b, t, c * f))
        return x, x_mask[:, :, 2::2][:, :, 2::2]


class RelPositionalEncoding(nn.Module):
    def __init__(self, d, max_len=128):
        super().__init__()
        self.xscale = math.sqrt(d)
        pe = torch.zeros(max_len, d)
        position = torch.arange(0, max_len, dtype=torch.float32).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d, 2, dtype=torch.float32) * -(math.log(10000.0) / d))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x):
        return x * self.xscale, self.pe[:, : x.size(1)]


class RelPositionAttention(nn.Module):
    """Transformer-XL style attention with pos_bias_u / pos_bias_v and ESPnet's rel_shift (a
    zero column, a view to [.., t + 1, t], dropping the first row)."""

    def __init__(self, d, heads):
        super().__init__()
        self.h, self.d_k = heads, d // heads
        self.linear_q, self.linear_k = nn.Linear(d, d), nn.Linear(d, d)
        self.linear_v, self.linear_out = nn.Linear(d, d), nn.Linear(d, d)
        self.linear_pos = nn.Linear(d, d, bias=False)
        self.pos_bias_u = nn.Parameter(torch.randn(heads, self.d_k) * 0.1)
        self.pos_bias_v = nn.Parameter(torch.randn(heads, self.d_k) * 0.1)

    def rel_shift(self, x):
        zero_pad = torch.zeros((x.size(0), x.size(1), x.size(2), 1), device=x.device,
                               dtype=x.dtype)
        x_padded = torch.cat([zero_pad, x], dim=-1)
        x_padded = x_padded.view(x.size(0), x.size(1), x.size(3) + 1, x.size(2))
        return x_padded[:, :, 1:].view_as(x)

    def forward(self, x, mask, pos_emb):
        b = x.size(0)
        q = self.linear_q(x).view(b, -1, self.h, self.d_k)
        k = self.linear_k(x).view(b, -1, self.h, self.d_k).transpose(1, 2)
        v = self.linear_v(x).view(b, -1, self.h, self.d_k).transpose(1, 2)
        p = self.linear_pos(pos_emb).view(pos_emb.size(0), -1, self.h, self.d_k).transpose(1, 2)
        q_u = (q + self.pos_bias_u).transpose(1, 2)
        q_v = (q + self.pos_bias_v).transpose(1, 2)
        ac = torch.matmul(q_u, k.transpose(-2, -1))
        bd = self.rel_shift(torch.matmul(q_v, p.transpose(-2, -1)))
        scores = (ac + bd) / math.sqrt(self.d_k)
        m = mask.unsqueeze(1).eq(0)  # [B, 1, 1, T]
        scores = scores.masked_fill(m, -float("inf"))
        attn = torch.softmax(scores, dim=-1).masked_fill(m, 0.0)
        out = torch.matmul(attn, v).transpose(1, 2).contiguous().view(b, -1, self.h * self.d_k)
        return self.linear_out(out)


class ConvModule(nn.Module):
    """Pointwise conv + GLU, depthwise conv with the padding masked, BatchNorm, Swish."""

    def __init__(self, d, kernel=7):
        super().__init__()
        self.pw1 = nn.Conv1d(d, 2 * d, 1)
        self.dw = nn.Conv1d(d, d, kernel, padding=kernel // 2, groups=d)
        self.norm = nn.BatchNorm1d(d)
        self.pw2 = nn.Conv1d(d, d, 1)

    def forward(self, x, mask_pad):
        x = x.transpose(1, 2).masked_fill(~mask_pad, 0.0)
        x = F.glu(self.pw1(x), dim=1)
        x = self.dw(x)
        x = self.pw2(F.silu(self.norm(x)))
        return x.masked_fill(~mask_pad, 0.0).transpose(1, 2)


class ConformerBlock(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ff1 = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 2 * d), nn.SiLU(), nn.Linear(2 * d, d))
        self.ff2 = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 2 * d), nn.SiLU(), nn.Linear(2 * d, d))
        self.norm_mha, self.norm_conv, self.norm_final = nn.LayerNorm(d), nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = RelPositionAttention(d, heads)
        self.conv = ConvModule(d)

    def forward(self, x, mask, pos_emb):
        x = x + 0.5 * self.ff1(x)
        x = x + self.attn(self.norm_mha(x), mask, pos_emb)
        x = x + self.conv(self.norm_conv(x), mask)
        x = x + 0.5 * self.ff2(x)
        return self.norm_final(x)


class WenetConformer(nn.Module):
    """fbank-like features + lengths -> (CTC log-probs, encoder lengths), WeNet's layout."""

    def __init__(self, idim=40, d=48, heads=4, layers=2, vocab=30):
        super().__init__()
        self.global_cmvn_mean = nn.Parameter(torch.randn(idim) * 0.1, requires_grad=False)
        self.embed = Conv2dSubsampling4(idim, d)
        self.pos = RelPositionalEncoding(d)
        self.blocks = nn.ModuleList(ConformerBlock(d, heads) for _ in range(layers))
        self.ctc = nn.Linear(d, vocab)

    def forward(self, speech, speech_lengths):
        t = speech.size(1)
        masks = ~(torch.arange(t, device=speech.device).unsqueeze(0) >= speech_lengths.unsqueeze(1))
        masks = masks.unsqueeze(1)  # [B, 1, T]
        x, masks = self.embed(speech - self.global_cmvn_mean, masks)
        x, pos_emb = self.pos(x)
        for block in self.blocks:
            x = block(x, masks, pos_emb)
        out_lens = masks.squeeze(1).sum(1)
        return F.log_softmax(self.ctc(x), dim=-1), out_lens


def make_wenet(name, batch=2, frames=60, script=False):
    torch.manual_seed(0)
    model = WenetConformer().eval()
    for m in model.modules():
        if isinstance(m, nn.BatchNorm1d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 1.5)
    speech = torch.randn(batch, frames, 40)
    lengths = torch.tensor([frames, frames * 2 // 3][:batch])
    speech[1, lengths[1]:] = 0.0
    with torch.no_grad():
        if script:
            return torch.jit.script(model), [speech, lengths]
        return torch.jit.trace(model, (speech, lengths), check_trace=False), [speech, lengths]


# ---- VITS-style inference: durations -> alignment path -> flow -> vocoder ---------------------


@torch.jit.script
def fused_add_tanh_sigmoid_multiply(input_a, input_b, n_channels):
    n_channels_int = n_channels[0]
    in_act = input_a + input_b
    t_act = torch.tanh(in_act[:, :n_channels_int, :])
    s_act = torch.sigmoid(in_act[:, n_channels_int:, :])
    return t_act * s_act


def sequence_mask(length, max_length: Optional[int] = None):
    if max_length is None:
        max_length = int(length.max())
    x = torch.arange(max_length, dtype=length.dtype, device=length.device)
    return x.unsqueeze(0) < length.unsqueeze(1)


def generate_path(duration, mask):
    """VITS's monotonic alignment from durations: cumsum, a sequence mask, a shifted difference
    (F.pad on the token axis)."""
    b, _, t_y, t_x = mask.shape
    cum_duration = torch.cumsum(duration, -1)
    cum_duration_flat = cum_duration.view(b * t_x)
    path = sequence_mask(cum_duration_flat, t_y).to(mask.dtype)
    path = path.view(b, t_x, t_y)
    path = path - F.pad(path, [0, 0, 1, 0, 0, 0])[:, :-1]
    return path.unsqueeze(1).transpose(2, 3) * mask


class WN(nn.Module):
    """WaveNet-style gated dilated convs (VITS / WaveGlow), n_channels as an IntTensor."""

    def __init__(self, hidden, kernel=5, layers=2):
        super().__init__()
        self.hidden = hidden
        self.in_layers = nn.ModuleList(nn.Conv1d(hidden, 2 * hidden, kernel, dilation=2 ** i,
                                                 padding=(kernel * 2 ** i - 2 ** i) // 2)
                                       for i in range(layers))
        self.res_skip = nn.ModuleList(nn.Conv1d(hidden, 2 * hidden if i < layers - 1 else hidden, 1)
                                      for i in range(layers))

    def forward(self, x, x_mask):
        output = torch.zeros_like(x)
        n_channels_tensor = torch.IntTensor([self.hidden])
        for i, (conv, rs) in enumerate(zip(self.in_layers, self.res_skip)):
            acts = fused_add_tanh_sigmoid_multiply(conv(x), torch.zeros_like(conv(x)),
                                                   n_channels_tensor)
            res_skip_acts = rs(acts)
            if i < len(self.in_layers) - 1:
                x = (x + res_skip_acts[:, : self.hidden, :]) * x_mask
                output = output + res_skip_acts[:, self.hidden:, :]
            else:
                output = output + res_skip_acts
        return output * x_mask


class CouplingLayer(nn.Module):
    def __init__(self, channels, hidden):
        super().__init__()
        self.half = channels // 2
        self.pre = nn.Conv1d(self.half, hidden, 1)
        self.enc = WN(hidden)
        self.post = nn.Conv1d(hidden, self.half, 1)

    def forward(self, x, x_mask):  # the reverse (inference) direction, mean only
        x0, x1 = torch.split(x, [self.half] * 2, 1)
        h = self.enc(self.pre(x0) * x_mask, x_mask)
        m = self.post(h) * x_mask
        x1 = (x1 - m) * x_mask
        return torch.flip(torch.cat([x0, x1], 1), [1])


class VitsLike(nn.Module):
    def __init__(self, n_vocab=30, d=32, n_mels=16):
        super().__init__()
        self.emb = nn.Embedding(n_vocab, d)
        self.enc = nn.Conv1d(d, d, 5, padding=2)
        self.proj = nn.Conv1d(d, 2 * d, 1)
        self.dp = nn.Sequential(nn.Conv1d(d, d, 3, padding=1), nn.ReLU(), nn.Conv1d(d, 1, 1))
        self.flow = nn.ModuleList(CouplingLayer(d, d) for _ in range(2))
        self.to_mel = nn.Conv1d(d, n_mels, 1)
        self.dec = HifiGanGenerator(n_mels=n_mels, ch=32, rates=(2, 2), kernels=(4, 4),
                                    res_kernels=(3,), res_dilations=((1, 3),))
        self.dec.remove_weight_norm()

    def forward(self, x, x_lengths, noise_scale: float = 0.0, length_scale: float = 1.0):
        h = self.emb(x).transpose(1, 2) * math.sqrt(32)
        x_mask = sequence_mask(x_lengths, x.size(1)).unsqueeze(1).to(h.dtype)
        h = torch.relu(self.enc(h * x_mask)) * x_mask
        m_p, logs_p = torch.split(self.proj(h) * x_mask, [32, 32], 1)
        logw = self.dp(h) * x_mask
        w = torch.exp(logw) * x_mask * length_scale
        w_ceil = torch.ceil(w)
        y_lengths = torch.clamp_min(torch.sum(w_ceil, [1, 2]), 1).long()
        y_mask = sequence_mask(y_lengths, None).unsqueeze(1).to(x_mask.dtype)
        attn_mask = torch.unsqueeze(x_mask, 2) * torch.unsqueeze(y_mask, -1)
        attn = generate_path(w_ceil, attn_mask)
        m_p = torch.matmul(attn.squeeze(1), m_p.transpose(1, 2)).transpose(1, 2)
        logs_p = torch.matmul(attn.squeeze(1), logs_p.transpose(1, 2)).transpose(1, 2)
        z = m_p + torch.exp(logs_p) * noise_scale
        for flow in self.flow:
            z = flow(z, y_mask)
        return self.dec(self.to_mel(z * y_mask)), y_lengths


def make_vits(name, batch=2, script=False):
    torch.manual_seed(0)
    model = VitsLike().eval()
    tokens = torch.randint(1, 30, (batch, 9))
    lengths = torch.tensor([9, 6][:batch])
    tokens[1, 6:] = 0
    with torch.no_grad():
        if script:
            return torch.jit.script(model), [tokens, lengths]
        return torch.jit.trace(model, (tokens, lengths), check_trace=False), [tokens, lengths]
