#!/usr/bin/python3
"""The SPLADE benchmark's Python reference training speed (tests/benchmarks/splade.sh).

  splade_reference.py DATA_DIR STEPS BATCH MAX_LENGTH

Trains the benchmark's base (DATA_DIR/base) as plain PyTorch would, on the same build
(python3-torch): the pure-torch encoder of tests/interop/encoder/reference_encoder.py, SPLADE
max pooling, in-batch cross-entropy with one hard negative per query, FLOPS terms, AdamW, in
fp32 with the whole batch in one pass. Prints the median tokens per second over the steps after
the first (real tokens, not padding), as "TOKENS_PER_S".
"""

import json
import os
import statistics
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "interop", "encoder"))
sys.path.insert(0, os.path.join(HERE, "..", "interop"))
import reference_encoder as encoder  # noqa: E402
from reference_safetensors import read_safetensors  # noqa: E402


def padded(texts, max_length):
    texts = [t[:max_length - 1] + [t[-1]] if len(t) > max_length else t for t in texts]
    width = max(len(t) for t in texts)
    ids = torch.zeros(len(texts), width, dtype=torch.long)
    mask = torch.zeros(len(texts), width, dtype=torch.long)
    for i, t in enumerate(texts):
        ids[i, :len(t)] = torch.tensor(t)
        mask[i, :len(t)] = 1
    return ids, mask, int(mask.sum())


def pool(model, ids, mask):
    _, logits = model.forward(ids, mask)
    return torch.max(torch.log1p(torch.relu(logits)) * mask.unsqueeze(-1), dim=1).values


def main():
    data, steps, batch, max_length = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(
        sys.argv[4])
    torch.set_num_threads(int(os.environ.get("THREADS", "2")))
    with open(os.path.join(data, "base", "config.json")) as f:
        config = json.load(f)
    state, _ = read_safetensors(os.path.join(data, "base", "model.safetensors"))
    for tensor in state.values():
        tensor.requires_grad_(True)
    model = encoder.ReferenceEncoder(config, state)
    optimizer = torch.optim.AdamW(list(state.values()), lr=1e-3, weight_decay=0.01)
    with open(os.path.join(data, "ids.json")) as f:
        records = json.load(f)
    rates = []
    for step in range(steps):
        chunk = [records[(step * batch + i) % len(records)] for i in range(batch)]
        started = time.perf_counter()
        q_ids, q_mask, q_tokens = padded([r[0] for r in chunk], max_length)
        p_ids, p_mask, p_tokens = padded([t for r in chunk for t in r[1:]], max_length)
        queries = pool(model, q_ids, q_mask)
        passages = pool(model, p_ids, p_mask)
        scores = queries @ passages.t()
        positive = torch.arange(batch) * 2
        loss = torch.nn.functional.cross_entropy(scores, positive)
        loss = loss + 5e-4 * (queries.mean(0) ** 2).sum() + 3e-4 * (passages.mean(0) ** 2).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        rates.append((q_tokens + p_tokens) / (time.perf_counter() - started))
    print(f"{statistics.median(rates[1:]):.0f}")


if __name__ == "__main__":
    main()
