"""Recurrent text models written the way users write them: token ids and their lengths go through
an Embedding, pack_padded_sequence, an nn.LSTM or nn.GRU and pad_packed_sequence, then a Linear
per token (a tagger) and one on the final hidden states (a classifier). The lengths are real
lengths (each in [1, T]; sorted when enforce_sorted=True), so make() returns example inputs."""
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


class PackedTagger(nn.Module):
    def __init__(self, cell="lstm", vocab=50, dim=32, hidden=32, layers=2, bidirectional=True,
                 enforce_sorted=False, tags=8, classes=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        rnn = nn.LSTM if cell == "lstm" else nn.GRU
        self.rnn = rnn(dim, hidden, num_layers=layers, batch_first=True,
                       bidirectional=bidirectional)
        self.enforce_sorted = enforce_sorted
        dirs = 2 if bidirectional else 1
        self.tagger = nn.Linear(dirs * hidden, tags)
        self.classifier = nn.Linear(dirs * hidden, classes)
        self.dirs = dirs

    def forward(self, tokens, lengths):
        x = self.embed(tokens)
        packed = pack_padded_sequence(x, lengths, batch_first=True,
                                      enforce_sorted=self.enforce_sorted)
        out, hidden = self.rnn(packed)
        if isinstance(hidden, tuple):  # LSTM: (h_n, c_n)
            hidden = hidden[0]
        y, _ = pad_packed_sequence(out, batch_first=True)
        # the last layer's final state of each direction, per sequence
        last = torch.cat([hidden[-i] for i in range(self.dirs, 0, -1)], dim=1)
        # (returning pad_packed_sequence's lengths too makes torch.jit.freeze keep the traced
        # module's weights as attributes when enforce_sorted=False: a PyTorch limitation)
        return self.tagger(y), self.classifier(last)


def example_inputs(batch=4, steps=12, vocab=50, sorted_lengths=False):
    g = torch.Generator().manual_seed(0)
    lengths = torch.tensor([steps, 7, 9, 3][:batch], dtype=torch.int64)
    if sorted_lengths:
        lengths = lengths.sort(descending=True).values
    tokens = torch.randint(1, vocab, (batch, steps), generator=g)
    tokens = tokens * (torch.arange(steps)[None, :] < lengths[:, None])  # padding_idx 0
    return tokens, lengths


def make(name, script=False, **kwargs):
    torch.manual_seed(0)
    model = PackedTagger(**kwargs).eval()
    inputs = example_inputs(sorted_lengths=kwargs.get("enforce_sorted", False))
    with torch.no_grad():
        m = torch.jit.script(model) if script else torch.jit.trace(model, inputs)
    return m, list(inputs)
