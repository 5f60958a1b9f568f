"""Mixture-of-experts layers written the way Mixtral (HF MixtralSparseMoeBlock), Switch Transformer
and simple tutorial code do.

- mixtral: router Linear -> softmax (float) -> topk(2) -> renormalise -> one_hot(expert, E)
  .permute -> for each expert in an nn.ModuleList: torch.where(mask[e]) -> index rows -> SwiGLU
  expert -> scale by the routing weight -> index_add_ into the output;
- switch: top-1 routing by argmax / max, capacity-free dispatch by boolean masks and scatter of
  expert outputs back by index (out[idx] = ...), multiplied by the router probability;
- dense: every expert runs, outputs stacked [E, ...] and combined with a scatter'ed sparse gate
  (topk -> zeros.scatter(-1, idx, vals)) via einsum.

The token batch is [B, T, D]; D 32, 4 experts, hidden 64.
"""
from typing import List

import torch
import torch.nn.functional as F
from torch import nn


class Expert(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class MixtralMoE(nn.Module):
    def __init__(self, dim=32, hidden=64, experts=4, top_k=2):
        super().__init__()
        self.num_experts, self.top_k = experts, top_k
        self.gate = nn.Linear(dim, experts, bias=False)
        self.experts = nn.ModuleList([Expert(dim, hidden) for _ in range(experts)])

    def forward(self, hidden_states):
        b, t, d = hidden_states.shape
        hidden_states = hidden_states.view(-1, d)
        router_logits = self.gate(hidden_states)
        routing_weights = F.softmax(router_logits, dim=1, dtype=torch.float)
        routing_weights, selected_experts = torch.topk(routing_weights, self.top_k, dim=-1)
        routing_weights /= routing_weights.sum(dim=-1, keepdim=True)
        routing_weights = routing_weights.to(hidden_states.dtype)
        final = torch.zeros((b * t, d), dtype=hidden_states.dtype, device=hidden_states.device)
        expert_mask = F.one_hot(selected_experts, num_classes=self.num_experts).permute(2, 1, 0)
        for expert_idx, expert in enumerate(self.experts):
            idx, top_x = torch.where(expert_mask[expert_idx])
            current = hidden_states[None, top_x].reshape(-1, d)
            current = expert(current) * routing_weights[top_x, idx, None]
            final.index_add_(0, top_x, current.to(hidden_states.dtype))
        return final.reshape(b, t, d), router_logits


class SwitchMoE(nn.Module):
    def __init__(self, dim=32, hidden=64, experts=4):
        super().__init__()
        self.router = nn.Linear(dim, experts)
        self.experts = nn.ModuleList([nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, dim))
                                      for _ in range(experts)])

    def forward(self, x):
        b, t, d = x.shape
        tokens = x.reshape(-1, d)
        probs = torch.softmax(self.router(tokens), dim=-1)
        gate, expert_index = probs.max(dim=-1)
        out = tokens.clone()
        for i, expert in enumerate(self.experts):
            routed = (expert_index == i).nonzero().squeeze(-1)
            out[routed] = expert(tokens.index_select(0, routed))
        return (out * gate.unsqueeze(-1)).reshape(b, t, d)


class DenseGatedMoE(nn.Module):
    def __init__(self, dim=32, hidden=64, experts=4, k=2):
        super().__init__()
        self.k = k
        self.w_gate = nn.Linear(dim, experts, bias=False)
        self.experts = nn.ModuleList([Expert(dim, hidden) for _ in range(experts)])

    def forward(self, x):
        logits = self.w_gate(x)
        top_logits, top_idx = logits.topk(self.k, dim=-1)
        gates = torch.zeros_like(logits).scatter(-1, top_idx, F.softmax(top_logits, dim=-1))
        outs = torch.stack([e(x) for e in self.experts], dim=-2)  # [B, T, E, D]
        return torch.einsum("bte,bted->btd", gates, outs)


class CapacityMoE(nn.Module):
    """Switch / GShard with an expert capacity (HF SwitchTransformersTop1Router): one_hot of the
    argmax, cumsum for each token's position in its expert's queue, tokens over capacity dropped,
    dispatch and combine as einsum with a [tokens, experts, capacity] tensor."""

    def __init__(self, dim=32, hidden=64, experts=4, capacity_factor=1.0):
        super().__init__()
        self.num_experts, self.capacity_factor = experts, capacity_factor
        self.classifier = nn.Linear(dim, experts, bias=False)
        self.experts = nn.ModuleList([nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))
                                      for _ in range(experts)])

    def forward(self, x):
        b, t, d = x.shape
        tokens = x.reshape(b * t, d)
        probs = torch.softmax(self.classifier(tokens).float(), dim=-1)
        expert_index = torch.argmax(probs, dim=-1)
        mask = F.one_hot(expert_index, num_classes=self.num_experts)
        capacity = int(self.capacity_factor * b * t / self.num_experts)
        position = torch.cumsum(mask, dim=0) * mask
        mask = mask * torch.lt(position, capacity)
        gate = (probs * mask).sum(dim=-1)
        slot = F.one_hot(((position - 1) * mask).sum(-1), num_classes=capacity)
        dispatch = mask.unsqueeze(-1) * slot.unsqueeze(1)  # [tokens, experts, capacity]
        dispatch = dispatch.to(x.dtype)
        expert_in = torch.einsum("sec,sd->ecd", dispatch, tokens)
        expert_out = torch.stack([e(expert_in[i]) for i, e in enumerate(self.experts)], dim=0)
        out = torch.einsum("sec,ecd->sd", dispatch, expert_out) * gate.unsqueeze(-1)
        kept = mask.sum(-1, keepdim=True).to(x.dtype)
        return (out + (1.0 - kept) * tokens).reshape(b, t, d)  # dropped tokens pass through


class SortedMoE(nn.Module):
    """Sort-based dispatch (megablocks / fast MoE tutorials): flatten the top-k choices, argsort by
    expert, bincount the tokens per expert, split the sorted tokens by those counts, run each
    expert on its chunk, then scatter_add the weighted results back to their tokens."""

    def __init__(self, dim=32, hidden=64, experts=4, k=2):
        super().__init__()
        self.num_experts, self.k = experts, k
        self.router = nn.Linear(dim, experts, bias=False)
        self.experts = nn.ModuleList([Expert(dim, hidden) for _ in range(experts)])

    def forward(self, x):
        b, t, d = x.shape
        tokens = x.reshape(-1, d)
        weights, chosen = torch.topk(torch.softmax(self.router(tokens), dim=-1), self.k, dim=-1)
        weights = weights / weights.sum(-1, keepdim=True)
        flat_expert = chosen.reshape(-1)
        order = torch.argsort(flat_expert)
        token_of = order // self.k
        counts = torch.bincount(flat_expert, minlength=self.num_experts)
        sizes: List[int] = counts.tolist()
        chunks = torch.split(tokens[token_of], sizes, dim=0)
        outs = [expert(chunks[i]) for i, expert in enumerate(self.experts)]
        y = torch.cat(outs, dim=0) * weights.reshape(-1)[order].unsqueeze(-1)
        out = torch.zeros_like(tokens).scatter_add_(0, token_of.unsqueeze(-1).expand(-1, d), y)
        return out.reshape(b, t, d)


KINDS = {"mixtral": MixtralMoE, "switch": SwitchMoE, "dense": DenseGatedMoE, "capacity": CapacityMoE,
         "sorted": SortedMoE}


class Block(nn.Module):
    """A pre-norm residual block around the MoE layer (as inside a decoder layer)."""

    def __init__(self, kind, experts):
        super().__init__()
        self.norm = nn.LayerNorm(32)
        self.moe = KINDS[kind](experts=experts)
        self.mixtral = kind == "mixtral"

    def forward(self, x):
        y = self.moe(self.norm(x))
        if self.mixtral:
            return x + y[0], y[1]
        return x + y


class BlockSingle(Block):
    def forward(self, x):
        return x + self.moe(self.norm(x))


class BlockRouter(Block):
    def forward(self, x):
        y, logits = self.moe(self.norm(x))
        return x + y, logits


def make(name, kind="mixtral", script=False, experts=4, tokens=8):
    """With many experts and few tokens some experts get no token: empty batches through them."""
    torch.manual_seed(0)
    model = (BlockRouter if kind == "mixtral" else BlockSingle)(kind, experts).eval()
    x = torch.randn(2, tokens, 32)
    with torch.no_grad():
        module = torch.jit.script(model) if script else torch.jit.trace(model, (x,))
    return module, [x]
