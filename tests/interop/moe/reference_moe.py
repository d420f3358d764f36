#!/usr/bin/env python3
"""Reference Mixture-of-Experts layer for tests/engine/test_moe_interop.cpp.

Written from the routing rules in engine/src/models/moe.h, not from the C++ code, and on purpose
in a different shape: capacity is decided by walking each sequence in GShard's priority order
(all first choices in token order, then the second choices, ...) with per-expert counters, and
each kept assignment adds its token's expert output one by one. The C++ layer sorts and gathers
instead; both must agree.

  reference_moe.py IN.safetensors OUT.safetensors

IN holds router.weight [E, D], experts.N.fc.weight/.bias, experts.N.fc_out.weight/.bias, x
[B, T, D] and grad_output [B, T, D]; its metadata holds top_k, capacity_factor, aux_weight and
z_weight. The objective is sum(output * grad_output) + aux_weight * aux + z_weight * z. OUT holds
output, aux_loss, z_loss, dropped, expert_counts and grad.<name> for x and every weight.
"""

import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from reference_safetensors import read_safetensors, write_safetensors  # noqa: E402


def capacity_of(capacity_factor, length, top_k, experts):
    if capacity_factor <= 0:
        return None  # unlimited
    return math.ceil(capacity_factor * (length * top_k) / experts)


def moe_forward(x, weights, top_k, capacity_factor):
    rows, length, dim = x.shape
    router = weights["router.weight"]
    experts = router.shape[0]
    tokens = x.reshape(rows * length, dim)
    logits = tokens.float() @ router.t()
    probabilities = torch.softmax(logits, dim=-1)
    top_probabilities, top_experts = torch.topk(probabilities, top_k, dim=-1)
    if top_k == 1:
        gates = top_probabilities
    else:
        gates = top_probabilities / top_probabilities.sum(dim=-1, keepdim=True)

    capacity = capacity_of(capacity_factor, length, top_k, experts)
    expert_counts = [0] * experts
    dropped = 0
    kept = []  # (token, slot, expert)
    aux_rows = []
    z_rows = []
    choices = top_experts.tolist()
    for row in range(rows):
        taken = [0] * experts
        row_counts = [0] * experts
        for slot in range(top_k):
            for position in range(length):
                token = row * length + position
                expert = choices[token][slot]
                row_counts[expert] += 1
                expert_counts[expert] += 1
                if capacity is None or taken[expert] < capacity:
                    taken[expert] += 1
                    kept.append((token, slot, expert))
                else:
                    dropped += 1
        share = torch.tensor(row_counts, dtype=torch.float32) / (length * top_k)
        mean_probability = probabilities[row * length : (row + 1) * length].mean(dim=0)
        aux_rows.append(experts * (share * mean_probability).sum())
        row_logits = logits[row * length : (row + 1) * length]
        z_rows.append(torch.logsumexp(row_logits, dim=-1).pow(2).mean())

    def expert_mlp(expert, inputs):
        prefix = "experts.%d." % expert
        hidden = torch.nn.functional.linear(
            inputs, weights[prefix + "fc.weight"], weights[prefix + "fc.bias"])
        hidden = torch.nn.functional.gelu(hidden)
        return torch.nn.functional.linear(
            hidden, weights[prefix + "fc_out.weight"], weights[prefix + "fc_out.bias"])

    contributions = []
    targets = []
    for token, slot, expert in kept:
        value = expert_mlp(expert, tokens[token : token + 1]) * gates[token, slot]
        contributions.append(value)
        targets.append(token)
    output = torch.zeros(rows * length, dim)
    if contributions:
        output = output.index_add(0, torch.tensor(targets), torch.cat(contributions))
    aux = torch.stack(aux_rows).mean()
    z = torch.stack(z_rows).mean()
    return (output.reshape(rows, length, dim), aux, z, dropped,
            torch.tensor(expert_counts, dtype=torch.int64))


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: reference_moe.py IN.safetensors OUT.safetensors")
    tensors, metadata = read_safetensors(sys.argv[1])
    top_k = int(metadata["top_k"])
    capacity_factor = float(metadata["capacity_factor"])
    aux_weight = float(metadata["aux_weight"])
    z_weight = float(metadata["z_weight"])
    x = tensors.pop("x").requires_grad_(True)
    grad_output = tensors.pop("grad_output")
    weights = {name: tensor.requires_grad_(True) for name, tensor in tensors.items()}

    output, aux, z, dropped, expert_counts = moe_forward(x, weights, top_k, capacity_factor)
    objective = (output * grad_output).sum() + aux_weight * aux + z_weight * z
    objective.backward()

    result = {
        "output": output.detach(),
        "aux_loss": aux.detach().reshape([]),
        "z_loss": z.detach().reshape([]),
        "dropped": torch.tensor(dropped, dtype=torch.int64),
        "expert_counts": expert_counts,
        "grad.x": x.grad,
    }
    for name, tensor in weights.items():
        result["grad." + name] = tensor.grad if tensor.grad is not None else torch.zeros_like(tensor)
    write_safetensors(sys.argv[2], result)


if __name__ == "__main__":
    main()
