"""torchaudio's own speech and audio models (torchaudio.models), small configurations with random
(seeded) weights, traced or scripted the way their users do: wav2vec2 / HuBERT, Conformer, the
Emformer RNN-T, WaveRNN, Tacotron2 (teacher forcing), HDemucs, ConvTasNet and DeepSpeech. The
example inputs are real: audio (a chirp plus noise), valid lengths below the padded size, token
ids below the vocabulary size."""
import math

import torch
import torch.nn.functional as F
import torchaudio
from torch import nn
from torchaudio import models


def chirp(batch, samples, channels=None, sr=16000):
    """A rising tone plus a little noise per row: audio with structure across frequencies."""
    t = torch.arange(samples, dtype=torch.float32) / sr
    rows = []
    for b in range(batch):
        f0 = 200.0 + 150.0 * b
        rows.append(0.5 * torch.sin(2 * math.pi * (f0 + 2000.0 * t) * t) + 0.02 * torch.randn(samples))
    audio = torch.stack(rows)
    if channels is not None:
        audio = torch.stack([audio * (0.6 + 0.4 * c) for c in range(channels)], dim=1)
    return audio


def wav2vec2(hubert=False, layer_norm_first=False, aux=True):
    # wav2vec2 base / HuBERT base use group_norm in the feature extractor and post-norm layers;
    # the large models use layer_norm and pre-norm.
    return models.wav2vec2_model(
        extractor_mode="layer_norm" if layer_norm_first else "group_norm",
        extractor_conv_layer_config=[(32, 10, 5), (32, 3, 2), (32, 2, 2)],
        extractor_conv_bias=layer_norm_first, encoder_embed_dim=32, encoder_projection_dropout=0.0,
        encoder_pos_conv_kernel=16, encoder_pos_conv_groups=4, encoder_num_layers=2,
        encoder_num_heads=4, encoder_attention_dropout=0.0, encoder_ff_interm_features=64,
        encoder_ff_interm_dropout=0.0, encoder_dropout=0.0, encoder_layer_norm_first=layer_norm_first,
        encoder_layer_drop=0.0, aux_num_out=(29 if aux else None))


class RNNTForward(nn.Module):
    """RNNT.forward with no predictor state (training-style joint over all frames and targets)."""

    def __init__(self, rnnt):
        super().__init__()
        self.rnnt = rnnt

    def forward(self, sources, source_lengths, targets, target_lengths):
        out, src_len, tgt_len, _ = self.rnnt(sources, source_lengths, targets, target_lengths)
        return out, src_len, tgt_len


def emformer_rnnt():
    return models.emformer_rnnt_model(
        input_dim=16, encoding_dim=32, num_symbols=20, segment_length=4, right_context_length=2,
        time_reduction_input_dim=32, time_reduction_stride=2, transformer_num_heads=4,
        transformer_ffn_dim=64, transformer_num_layers=2, transformer_dropout=0.0,
        transformer_activation="gelu", transformer_left_context_length=8,
        transformer_max_memory_size=0, transformer_weight_init_scale_strategy="depthwise",
        transformer_tanh_on_mem=True, symbol_embedding_dim=32, num_lstm_layers=2,
        lstm_layer_norm=True, lstm_layer_norm_epsilon=1e-3, lstm_dropout=0.0)


class _EvalPrenet(nn.Module):
    """Tacotron2's prenet without its always-on dropout (it calls F.dropout(training=True) even in
    eval, so its output is random); inference exports use an eval-mode prenet like this one."""

    def forward(self, x):
        for linear in self.layers:
            x = F.relu(linear(x))
        return x


def deterministic_tacotron2(model):
    for module in model.modules():
        if type(module).__name__ == "_Prenet":
            module.__class__ = type("_EvalPrenet", (_EvalPrenet,), {})
    return model


def traceable(model):
    """torch 1.13's tracer also compiles a module's @torch.jit.export methods (WaveRNN.infer,
    Tacotron2.infer), which fails on their nn.GRU / nn.LSTM overloads; tracing needs only forward,
    so the class is swapped for a subclass whose infer is a plain method."""
    base = type(model)
    model.__class__ = type(base.__name__, (base,), {"infer": lambda self, *a: base.infer(self, *a)})
    return model


def without_weight_norm(model):
    """Exports remove weight_norm first (torchaudio's __prepare_scriptable__ does it for
    wav2vec2's positional convolution; torch 1.13's tracer cannot trace its pre-hook)."""
    for module in model.modules():
        for hook in list(module._forward_pre_hooks.values()):
            if type(hook).__name__ == "WeightNorm":
                torch.nn.utils.remove_weight_norm(module, hook.name)
    return model


def build(kind, batch, with_lengths=True):
    """(model, example inputs) for one torchaudio model."""
    if kind in ("wav2vec2", "hubert", "wav2vec2_large"):
        model = wav2vec2(layer_norm_first=(kind == "wav2vec2_large"), aux=(kind != "hubert"))
        audio = chirp(batch, 4000)
        if not with_lengths:  # model(waveforms): the output lengths are None
            return model, [audio]
        lengths = torch.tensor([4000, 3100][:batch])
        return model, [audio, lengths]
    if kind == "conformer":
        model = models.Conformer(input_dim=32, num_heads=4, ffn_dim=64, num_layers=2,
                                 depthwise_conv_kernel_size=7)
        feats = torch.randn(batch, 20, 32)
        return model, [feats, torch.tensor([20, 13][:batch])]
    if kind == "emformer_rnnt":
        model = RNNTForward(emformer_rnnt())
        feats = torch.randn(batch, 18, 16)  # segments of 4 frames plus 2 of right context
        targets = torch.randint(1, 20, (batch, 6))
        return model, [feats, torch.tensor([18, 14][:batch]), targets, torch.tensor([6, 4][:batch])]
    if kind == "emformer_transcriber":
        model = emformer_rnnt().transcriber
        return model, [torch.randn(batch, 18, 16), torch.tensor([18, 14][:batch])]
    if kind == "wavernn":
        model = models.WaveRNN(upsample_scales=[2, 4], n_classes=32, hop_length=8, n_res_block=2,
                               n_rnn=32, n_fc=32, kernel_size=5, n_freq=16, n_hidden=16,
                               n_output=16)
        n_time = 12
        spec = torch.rand(batch, 1, 16, n_time)
        wave = chirp(batch, (n_time - 5 + 1) * 8).unsqueeze(1)
        return model, [wave, spec]
    if kind == "tacotron2":
        model = deterministic_tacotron2(models.Tacotron2(
            mask_padding=True, n_mels=16, n_symbol=30, symbol_embedding_dim=32,
            encoder_embedding_dim=32, encoder_n_convolution=2, encoder_kernel_size=5,
            decoder_rnn_dim=32, decoder_max_step=50, decoder_dropout=0.0, attention_rnn_dim=32,
            attention_hidden_dim=16, attention_location_n_filter=8,
            attention_location_kernel_size=7, attention_dropout=0.0, prenet_dim=16,
            postnet_n_convolution=2, postnet_kernel_size=5, postnet_embedding_dim=32))
        tokens = torch.randint(1, 30, (batch, 10))
        token_lengths = torch.tensor([10, 7][:batch])
        mel = torch.randn(batch, 16, 12)
        mel_lengths = torch.tensor([12, 9][:batch])
        return model, [tokens, token_lengths, mel, mel_lengths]
    if kind == "hdemucs":
        model = models.HDemucs(sources=["drums", "vocals"], audio_channels=2, channels=8, growth=2,
                               nfft=64, depth=3, dconv_attn=4, dconv_lstm=4)
        return model, [chirp(batch, 2048, channels=2)]
    if kind == "convtasnet":
        model = models.ConvTasNet(num_sources=2, enc_kernel_size=16, enc_num_feats=32,
                                  msk_kernel_size=3, msk_num_feats=16, msk_num_hidden_feats=32,
                                  msk_num_layers=3, msk_num_stacks=1)
        return model, [chirp(batch, 1600).unsqueeze(1)]
    if kind == "deepspeech":
        model = models.DeepSpeech(n_feature=20, n_hidden=32, n_class=29)
        return model, [torch.randn(batch, 1, 16, 20)]
    raise ValueError(f"unknown torchaudio model '{kind}'")


def make(name, kind="wav2vec2", batch=2, script=False, with_lengths=True):
    torch.manual_seed(0)
    model, inputs = build(kind, batch, with_lengths)
    model.eval()
    with torch.no_grad():
        if script:
            return torch.jit.script(model), inputs
        model = without_weight_norm(model)
        if hasattr(type(model), "infer"):
            model = traceable(model)
        return torch.jit.trace(model, tuple(inputs), check_trace=False), inputs
