"""PyTorch Mixture-of-Experts feed-forward layer for the speed comparison in moe.sh (imported by
gpt_reference.py when it runs with --experts N).

The routing rules of engine/src/models/moe.h, written the way a PyTorch user would vectorize
them: fp32 router without bias, softmax over all experts, top-k, gates renormalised over the
chosen experts (k >= 2), capacity ceil(cf * T * k / E) per expert and sequence with GShard's
priority (first choices in token order, then second choices, ...). The N*k assignments are
sorted by (expert, row, slot, position), those over capacity removed, the kept tokens gathered
once, each expert run on its contiguous slice and the gated outputs index-added back. Balancing
loss E * sum_e f_e * P_e and router z-loss, each per row and averaged over the rows.
(tests/interop/moe/reference_moe.py is the correctness reference; it walks tokens one by one.)
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Expert(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.fc = nn.Linear(dim, hidden)
        self.fc_out = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.fc_out(F.gelu(self.fc(x)))


class MoeMlp(nn.Module):
    def __init__(self, dim, experts, top_k, capacity_factor, hidden):
        super().__init__()
        self.top_k = top_k
        self.capacity_factor = capacity_factor
        self.router = nn.Linear(dim, experts, bias=False)
        self.experts = nn.ModuleList(Expert(dim, hidden) for _ in range(experts))

    def reset_parameters(self, std, residual_std):
        with torch.no_grad():
            nn.init.normal_(self.router.weight, 0.0, std)
            for expert in self.experts:
                nn.init.normal_(expert.fc.weight, 0.0, std)
                nn.init.zeros_(expert.fc.bias)
                nn.init.normal_(expert.fc_out.weight, 0.0, residual_std)
                nn.init.zeros_(expert.fc_out.bias)

    def capacity(self, length):
        if self.capacity_factor <= 0:
            return 0
        return math.ceil(self.capacity_factor * (length * self.top_k) / len(self.experts))

    def forward(self, x):
        """x [B, T, dim] -> (output [B, T, dim], aux loss, z loss)."""
        rows, length, dim = x.shape
        tokens = rows * length
        k = self.top_k
        experts = len(self.experts)
        flat = x.reshape(tokens, dim)
        logits = F.linear(flat.float(), self.router.weight.float())
        probabilities = torch.softmax(logits, -1)
        top_probabilities, top_experts = probabilities.topk(k, -1)
        gates = top_probabilities if k == 1 else top_probabilities / top_probabilities.sum(
            -1, keepdim=True)

        expert = top_experts.reshape(-1)
        assignment = torch.arange(tokens * k)
        token = assignment.div(k, rounding_mode="floor")
        slot = assignment.remainder(k)
        row = token.div(length, rounding_mode="floor")
        position = token.remainder(length)
        group = expert * rows + row
        order = ((group * k + slot) * length + position).argsort()
        group_sizes = torch.bincount(group, minlength=experts * rows)
        capacity = self.capacity(length)
        kept = order
        sizes = group_sizes.view(experts, rows)
        if capacity > 0:
            group_start = group_sizes.cumsum(0) - group_sizes
            rank = assignment - group_start.index_select(0, group.index_select(0, order))
            kept = order.masked_select(rank < capacity)
            kept_counts = sizes.clamp_max(capacity).sum(1).tolist()
        else:
            kept_counts = sizes.sum(1).tolist()

        kept_token = kept.div(k, rounding_mode="floor")
        kept_gate = gates.reshape(-1).index_select(0, kept)
        inputs = flat.index_select(0, kept_token)
        output = torch.zeros(tokens, dim, dtype=flat.dtype)
        offset = 0
        for index, count in enumerate(kept_counts):
            if count == 0:
                continue
            where = kept_token.narrow(0, offset, count)
            y = self.experts[index](inputs.narrow(0, offset, count))
            y = y * kept_gate.narrow(0, offset, count).to(y.dtype).unsqueeze(1)
            output.index_add_(0, where, y)
            offset += count

        shares = sizes.t().float() / (length * k)
        mean_probability = probabilities.view(rows, length, experts).mean(1)
        aux = (shares * mean_probability).sum(1).mean() * experts
        z = torch.logsumexp(logits, -1).pow(2).view(rows, length).mean(1).mean()
        return output.view(rows, length, dim), aux, z
