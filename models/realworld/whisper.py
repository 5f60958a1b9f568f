"""A Whisper-style audio encoder written the way openai/whisper writes it: the log-mel front end
(torch.stft with return_complex=True, power spectrum by .abs() ** 2, a mel filterbank matmul,
log10 with a clamp, the dynamic-range clamp to log_spec.max() - 8, rescaling), then two Conv1d with
GELU, sinusoidal positions and pre-norm attention blocks. Small: n_fft 64, hop 16, 16 mels."""
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


def mel_filters(sr, n_fft, n_mels):
    """Triangular mel filterbank [n_mels, n_fft // 2 + 1] (librosa's slaney-style layout)."""
    def hz_to_mel(f):
        return 2595.0 * np.log10(1.0 + f / 700.0)

    def mel_to_hz(m):
        return 700.0 * (10 ** (m / 2595.0) - 1.0)

    bins = n_fft // 2 + 1
    freqs = np.linspace(0, sr / 2, bins)
    edges = mel_to_hz(np.linspace(hz_to_mel(0.0), hz_to_mel(sr / 2), n_mels + 2))
    fb = np.zeros((n_mels, bins), dtype=np.float32)
    for m in range(n_mels):
        lo, mid, hi = edges[m], edges[m + 1], edges[m + 2]
        up = (freqs - lo) / (mid - lo)
        down = (hi - freqs) / (hi - mid)
        fb[m] = np.maximum(0, np.minimum(up, down)) * 2.0 / (hi - lo)
    return torch.from_numpy(fb)


def sinusoids(length, channels, max_timescale=10000):
    assert channels % 2 == 0
    log_timescale_increment = np.log(max_timescale) / (channels // 2 - 1)
    inv_timescales = torch.exp(-log_timescale_increment * torch.arange(channels // 2))
    scaled_time = torch.arange(length)[:, np.newaxis] * inv_timescales[np.newaxis, :]
    return torch.cat([torch.sin(scaled_time), torch.cos(scaled_time)], dim=1)


class LayerNorm(nn.LayerNorm):
    def forward(self, x):
        return super().forward(x.float()).type(x.dtype)


class Linear(nn.Linear):
    def forward(self, x):
        return F.linear(x, self.weight.to(x.dtype),
                        None if self.bias is None else self.bias.to(x.dtype))


class Conv1d(nn.Conv1d):
    def _conv_forward(self, x, weight, bias):
        return super()._conv_forward(x, weight.to(x.dtype),
                                     None if bias is None else bias.to(x.dtype))


class MultiHeadAttention(nn.Module):
    def __init__(self, n_state, n_head):
        super().__init__()
        self.n_head = n_head
        self.query = Linear(n_state, n_state)
        self.key = Linear(n_state, n_state, bias=False)
        self.value = Linear(n_state, n_state)
        self.out = Linear(n_state, n_state)

    def forward(self, x):
        q, k, v = self.query(x), self.key(x), self.value(x)
        n_batch, n_ctx, n_state = q.shape
        scale = (n_state // self.n_head) ** -0.25
        q = q.view(*q.shape[:2], self.n_head, -1).permute(0, 2, 1, 3) * scale
        k = k.view(*k.shape[:2], self.n_head, -1).permute(0, 2, 3, 1) * scale
        v = v.view(*v.shape[:2], self.n_head, -1).permute(0, 2, 1, 3)
        w = F.softmax((q @ k).float(), dim=-1).to(q.dtype)
        return self.out((w @ v).permute(0, 2, 1, 3).flatten(start_dim=2))


class ResidualAttentionBlock(nn.Module):
    def __init__(self, n_state, n_head):
        super().__init__()
        self.attn = MultiHeadAttention(n_state, n_head)
        self.attn_ln = LayerNorm(n_state)
        n_mlp = n_state * 4
        self.mlp = nn.Sequential(Linear(n_state, n_mlp), nn.GELU(), Linear(n_mlp, n_state))
        self.mlp_ln = LayerNorm(n_state)

    def forward(self, x):
        x = x + self.attn(self.attn_ln(x))
        return x + self.mlp(self.mlp_ln(x))


class AudioEncoder(nn.Module):
    def __init__(self, samples=1600, sr=1600, n_fft=64, hop=16, n_mels=16, n_state=32, n_head=4,
                 n_layer=2):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        self.register_buffer("mel_filters", mel_filters(sr, n_fft, n_mels))
        n_ctx = (samples // hop) // 2
        self.conv1 = Conv1d(n_mels, n_state, kernel_size=3, padding=1)
        self.conv2 = Conv1d(n_state, n_state, kernel_size=3, stride=2, padding=1)
        self.register_buffer("positional_embedding", sinusoids(n_ctx, n_state))
        self.blocks = nn.ModuleList(ResidualAttentionBlock(n_state, n_head) for _ in range(n_layer))
        self.ln_post = LayerNorm(n_state)

    def log_mel_spectrogram(self, audio):
        window = torch.hann_window(self.n_fft).to(audio.device)
        stft = torch.stft(audio, self.n_fft, self.hop, window=window, return_complex=True)
        magnitudes = stft[..., :-1].abs() ** 2
        mel_spec = self.mel_filters @ magnitudes
        log_spec = torch.clamp(mel_spec, min=1e-10).log10()
        log_spec = torch.maximum(log_spec, log_spec.max() - 8.0)
        return (log_spec + 4.0) / 4.0

    def forward(self, audio):
        x = self.log_mel_spectrogram(audio)
        x = F.gelu(self.conv1(x))
        x = F.gelu(self.conv2(x))
        x = x.permute(0, 2, 1)
        x = (x + self.positional_embedding).to(x.dtype)
        for block in self.blocks:
            x = block(x)
        return self.ln_post(x)


def make(name, samples=1600, **kwargs):
    model = AudioEncoder(samples=samples, **kwargs).eval()
    # A chirp plus noise: a signal with structure across the mel bands.
    t = torch.arange(samples, dtype=torch.float32) / samples
    audio = (0.5 * torch.sin(2 * math.pi * (50 + 300 * t) * t * 4) + 0.05 * torch.randn(samples))
    audio = audio.unsqueeze(0)
    with torch.no_grad():
        return torch.jit.trace(model, (audio,)), [audio]
