#!/usr/bin/env python3
"""Reference SPLADE pooling and loss for tests/engine/test_splade_interop.cpp.

Written from the SPLADE v2 paper (Formal et al., 2021), in its usual form: the log-saturated
ReLU of every token's MLM logits, zeroed at padding by multiplying with the mask, then the max
over the tokens. (The C++ code takes the max first; both must agree.) The loss is the
cross-entropy of each query's scores over all passages, plus the FLOPS regularizer
sum_v (mean_n w[n, v])^2 of the queries and of the passages, each with its own weight.

  reference_splade.py IN.safetensors OUT.safetensors

IN holds query_logits [Q, Tq, V], query_mask [Q, Tq], passage_logits [P, Tp, V],
passage_mask [P, Tp] and positive [Q] (F32 holding integers); its metadata holds lambda_q and
lambda_d. OUT holds queries [Q, V], passages [P, V], contrastive, flops_q, flops_d, objective,
and grad.query_logits / grad.passage_logits, the gradients of the objective.
"""

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from reference_safetensors import read_safetensors, write_safetensors  # noqa: E402


def pool(logits, mask):
    weights = torch.log(1 + torch.relu(logits)) * mask.unsqueeze(-1)
    return torch.max(weights, dim=1).values


def flops(vectors):
    return torch.sum(torch.mean(torch.abs(vectors), dim=0) ** 2)


def main():
    tensors, metadata = read_safetensors(sys.argv[1])
    lambda_q = float(metadata["lambda_q"])
    lambda_d = float(metadata["lambda_d"])
    query_logits = tensors["query_logits"].double().requires_grad_(True)
    passage_logits = tensors["passage_logits"].double().requires_grad_(True)
    queries = pool(query_logits, tensors["query_mask"].double())
    passages = pool(passage_logits, tensors["passage_mask"].double())
    scores = queries @ passages.T
    positive = tensors["positive"].long()
    contrastive = torch.nn.functional.cross_entropy(scores, positive)
    flops_q = flops(queries)
    flops_d = flops(passages)
    objective = contrastive + lambda_q * flops_q + lambda_d * flops_d
    objective.backward()
    out = {
        "queries": queries,
        "passages": passages,
        "contrastive": contrastive.reshape(1),
        "flops_q": flops_q.reshape(1),
        "flops_d": flops_d.reshape(1),
        "objective": objective.reshape(1),
        "grad.query_logits": query_logits.grad,
        "grad.passage_logits": passage_logits.grad,
    }
    write_safetensors(sys.argv[2], {name: value.float() for name, value in out.items()})


if __name__ == "__main__":
    main()
