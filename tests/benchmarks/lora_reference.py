#!/usr/bin/python3
"""PyTorch reference of LoRA fine-tuning throughput on a Hugging Face causal LM folder.

  lora_reference.py MODEL_DIR [--rank 8] [--alpha 16]
                    [--targets q_proj,v_proj | c_attn | all-linear]
                    [--batch 4] [--seq 128] [--steps 10] [--warmup 2] [--lr 1e-4]
                    [--weight-decay 0.0] [--clip 1.0] [--seed 0] [--threads N]
                    [--turn-in FIFO --turn-out FIFO [--turn-steps 1]]

The frozen base is tests/interop/pretrained/reference_lm.py's fp32 forward of the folder's
weights (BF16/F16 files converted to fp32). Each targeted block linear y = base(x) gets
+ (x A^T B^T) * alpha / rank, A [rank, in] kaiming_uniform_(a=sqrt(5)), B [out, rank] zeros (as
PEFT initializes, no LoRA dropout). "all-linear" targets every block linear (q/k/v/o and
gate/up/down, or GPT-2's c_attn/c_proj/c_fc/mlp.c_proj), never the output head. A step: random
token ids [batch, seq + 1], inputs the first seq and targets the last seq, mean cross-entropy
over all batch * seq positions, backward (gradients only for the adapters), optional
clip_grad_norm_, torch.optim.AdamW over the adapters, zero_grad(set_to_none=True). After the
warm-up steps, `steps` steps are timed; the last line printed is tokens_per_s=<float>
(batch * seq * steps / seconds). torch.set_num_threads is left at its default unless --threads
is given (Debian's python3-torch may start with 1 thread: see the threads= it prints).
--turn-in/--turn-out take turns with another benchmark process, a block of --turn-steps steps
each, through a ring of FIFOs (gpt_reference.py's Turns; pretrained.sh runs it against
pretrained_benchmark lora): the seconds are the sum of the timed steps' own durations, so the
time spent waiting for a turn is not counted; median_ms_per_step is printed too.
Run with Debian's /usr/bin/python3 (python3-torch).
"""

import argparse
import math
import os
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "interop",
                                "pretrained"))
import reference_lm as ref  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpt_reference import Turns  # noqa: E402


def target_names(model, targets):
    names = model.linear_names()
    if targets == "all-linear":
        return names
    wanted = [t.strip() for t in targets.split(",") if t.strip()]
    chosen = [n for n in names
              if n.split(".")[-1] in wanted or ".".join(n.split(".")[-2:]) in wanted]
    if not chosen:
        raise SystemExit(f"no block linear matches --targets {targets!r} "
                         f"(names look like {names[:4]})")
    return chosen


def add_lora(model, names, rank, alpha, gen):
    params = []
    for name in names:
        fan_in, fan_out = model.linear_shape(name)
        a = torch.empty(rank, fan_in)
        # kaiming_uniform_(a=sqrt(5)) as nn.Linear and PEFT use: bound = 1 / sqrt(fan_in).
        bound = math.sqrt(6.0 / ((1 + 5.0) * fan_in))
        with torch.no_grad():
            a.uniform_(-bound, bound, generator=gen)
        a.requires_grad_(True)
        b = torch.zeros(fan_out, rank, requires_grad=True)
        model.adapters[name] = (a, b, alpha / rank)
        params += [a, b]
    return params


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model_dir")
    parser.add_argument("--rank", type=int, default=8)
    parser.add_argument("--alpha", type=float, default=16.0)
    parser.add_argument("--targets", default=None,
                        help="comma-separated linear names or all-linear (default: q_proj,v_proj; "
                             "GPT-2: c_attn, as PEFT defaults)")
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--weight-decay", type=float, default=0.0)
    parser.add_argument("--clip", type=float, default=1.0, help="max grad norm; 0 = no clipping")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=0,
                        help="torch.set_num_threads(N) when N > 0 (default: left as torch starts)")
    parser.add_argument("--turn-in", default="")
    parser.add_argument("--turn-out", default="")
    parser.add_argument("--turn-steps", type=int, default=1)
    args = parser.parse_args()
    if bool(args.turn_in) != bool(args.turn_out):
        parser.error("--turn-in and --turn-out go together")
    if args.turn_steps < 1:
        parser.error("--turn-steps must be at least 1")
    turns = Turns(args.turn_in, args.turn_out, args.turn_steps)
    if args.threads > 0:
        torch.set_num_threads(args.threads)

    torch.manual_seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed)
    started = time.time()
    config, state = ref.load_folder(args.model_dir)
    model = ref.ReferenceLM(config, state)
    if args.targets is None:
        args.targets = "c_attn" if model.kind == "gpt2" else "q_proj,v_proj"
    names = target_names(model, args.targets)
    params = add_lora(model, names, args.rank, args.alpha, gen)
    trainable = sum(p.numel() for p in params)
    frozen = sum(t.numel() for t in {id(t): t for t in model.state.values()}.values())
    print(f"model={config['model_type']} layers={model.layers} frozen_params={frozen} "
          f"lora_params={trainable} targets={len(names)} load_s={time.time() - started:.1f} "
          f"threads={torch.get_num_threads()}")
    optimizer = torch.optim.AdamW(params, lr=args.lr, weight_decay=args.weight_decay)
    vocab = config["vocab_size"]

    def step():
        tokens = torch.randint(0, vocab, (args.batch, args.seq + 1), generator=gen)
        logits = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1))
        loss.backward()
        if args.clip > 0:
            nn.utils.clip_grad_norm_(params, args.clip)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return float(loss)

    losses = []
    step_seconds = []
    total = args.warmup + args.steps
    for index in range(total):
        turns.before_step(index)
        begin = time.perf_counter()
        loss = step()
        if index >= args.warmup:
            step_seconds.append(time.perf_counter() - begin)
            losses.append(loss)
        turns.after_step(index, index == total - 1)
    seconds = sum(step_seconds)
    tokens = args.batch * args.seq * args.steps
    print(f"steps={args.steps} batch={args.batch} seq={args.seq} seconds={seconds:.3f} "
          f"ms_per_step={1000 * seconds / max(args.steps, 1):.1f} "
          f"median_ms_per_step={1000 * statistics.median(step_seconds):.1f} "
          f"loss_first={losses[0]:.4f} loss_last={losses[-1]:.4f}")
    print(f"tokens_per_s={tokens / seconds:.1f}")


if __name__ == "__main__":
    main()
