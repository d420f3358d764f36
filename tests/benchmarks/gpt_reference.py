#!/usr/bin/python3
"""PyTorch reference of Headroom's GPT recipe (engine/src/models/gpt.cpp), for speed comparison.

The same model op for op: token embedding + a slice of the learned position embedding,
pre-LayerNorm blocks working on [B*T, dim] (fused qkv Linear, one copy to head-major q/k/v,
causal attention as baddbmm with an additive mask + softmax + bmm, output projection, GELU MLP
of width 4*dim), final LayerNorm, logits through the token embedding (weight tying), GPT-2
initialization. A training step is forward, cross-entropy, backward, clip_grad_norm_(1.0),
torch.optim.AdamW, zero_grad(set_to_none=True). Prints one JSON line like gpt_benchmark.

With --experts N the MLP of every --every-th block is a Mixture-of-Experts layer
(moe_reference.py) and the objective adds aux_loss * balancing loss + z_loss * router z-loss,
both averaged over the MoE blocks, as Headroom's GPT recipe does.

Run with Debian's /usr/bin/python3 (python3-torch).
"""

import argparse
import json
import math
import os
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

from moe_reference import MoeMlp

INIT_STD = 0.02


def causal_self_attention(q, k, v, dropout_p):
    """q, k, v: [B, H, T, D] contiguous -> [B, H, T, D] (engine/src/compat/attention.cpp)."""
    batch, heads, length, head_dim = q.shape
    mask = torch.full((length, length), -math.inf, dtype=q.dtype, device=q.device).triu_(1)
    scores = torch.baddbmm(mask, q.reshape(batch * heads, length, head_dim),
                           k.reshape(batch * heads, length, head_dim).transpose(1, 2),
                           beta=1.0, alpha=1.0 / math.sqrt(head_dim))
    weights = torch.softmax(scores, -1)
    if dropout_p > 0:
        weights = F.dropout(weights, dropout_p, True)
    return torch.bmm(weights, v.reshape(batch * heads, length, head_dim)).view(
        batch, heads, length, head_dim)


class Block(nn.Module):
    def __init__(self, dim, heads, layers, dropout, moe=None):
        """moe: None (dense) or (experts, top_k, capacity_factor, expert_hidden)."""
        super().__init__()
        self.heads = heads
        self.dropout_p = dropout
        self.ln1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.ln2 = nn.LayerNorm(dim)
        self.moe = MoeMlp(dim, *moe) if moe else None
        if not self.moe:
            self.fc = nn.Linear(dim, 4 * dim)
            self.fc_out = nn.Linear(4 * dim, dim)
        self.reset_parameters(layers)

    def reset_parameters(self, layers):
        residual_std = INIT_STD / math.sqrt(2.0 * layers)
        linears = [(self.qkv, INIT_STD), (self.proj, residual_std)]
        if not self.moe:
            linears += [(self.fc, INIT_STD), (self.fc_out, residual_std)]
        with torch.no_grad():
            for linear, std in linears:
                nn.init.normal_(linear.weight, 0.0, std)
                nn.init.zeros_(linear.bias)
        if self.moe:
            self.moe.reset_parameters(INIT_STD, residual_std)

    def dropout(self, x):
        return F.dropout(x, self.dropout_p, True) if self.dropout_p > 0 and self.training else x

    def attention(self, x, batch, length):
        dim = x.shape[1]
        head_dim = dim // self.heads
        qkv = self.qkv(x).view(batch, length, 3, self.heads, head_dim).permute(
            2, 0, 3, 1, 4).contiguous()
        attended = causal_self_attention(qkv[0], qkv[1], qkv[2],
                                         self.dropout_p if self.training else 0.0)
        return self.proj(attended.transpose(1, 2).reshape(batch * length, dim))

    def forward(self, x, losses):
        """losses: the MoE block's (aux, z) are appended to it."""
        batch, length, dim = x.shape
        h = x.reshape(batch * length, dim)
        h = h + self.dropout(self.attention(self.ln1(h), batch, length))
        if self.moe:
            routed, aux, z = self.moe(self.ln2(h).view(batch, length, dim))
            losses.append((aux, z))
            h = h + self.dropout(routed.view(batch * length, dim))
        else:
            h = h + self.dropout(self.fc_out(F.gelu(self.fc(self.ln2(h)))))
        return h.view(batch, length, -1)


class Gpt(nn.Module):
    def __init__(self, vocab, seq_len, layers, heads, dim, dropout, moe=None, every=1,
                 loss_weights=(0.0, 0.0)):
        super().__init__()
        self.dim = dim
        self.seq_len = seq_len
        self.dropout_p = dropout
        self.loss_weights = loss_weights  # (aux, z)
        self.token_embedding = nn.Embedding(vocab, dim)
        self.position_embedding = nn.Embedding(seq_len, dim)
        self.blocks = nn.ModuleList(
            Block(dim, heads, layers, dropout, moe if index % every == every - 1 else None)
            for index in range(layers))
        self.ln_final = nn.LayerNorm(dim)
        # GptImpl::resetParameters, in its order, so the same seed gives the same weights.
        with torch.no_grad():
            nn.init.normal_(self.token_embedding.weight, 0.0, INIT_STD)
            nn.init.normal_(self.position_embedding.weight, 0.0, INIT_STD)
        for block in self.blocks:
            block.reset_parameters(layers)

    def hidden(self, tokens, losses):
        length = tokens.shape[1]
        x = self.token_embedding(tokens) + self.position_embedding.weight[:length]
        if self.dropout_p > 0 and self.training:
            x = F.dropout(x, self.dropout_p, True)
        for block in self.blocks:
            x = block(x, losses)
        return self.ln_final(x.view(-1, self.dim))

    def loss(self, inputs, targets):
        losses = []
        logits = F.linear(self.hidden(inputs, losses), self.token_embedding.weight)
        loss = F.cross_entropy(logits, targets.reshape(-1))
        if losses:
            aux_weight, z_weight = self.loss_weights
            if aux_weight > 0:
                loss = loss + aux_weight * torch.stack([aux for aux, _ in losses]).mean()
            if z_weight > 0:
                loss = loss + z_weight * torch.stack([z for _, z in losses]).mean()
        return loss


def peak_rss_kib():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return -1


class Turns:
    """Takes turns with the other benchmark processes through a ring of FIFOs (gpt_benchmark's
    Turns): wait for the token before each block of steps, hand it on after the block."""

    def __init__(self, turn_in, turn_out, block):
        self.block = block
        # O_RDWR: opening a FIFO this way never blocks, whichever process comes first.
        self.fd_in = os.open(turn_in, os.O_RDWR) if turn_in else None
        self.fd_out = os.open(turn_out, os.O_RDWR) if turn_out else None

    def before_step(self, step):
        if self.fd_in is not None and step % self.block == 0 and len(os.read(self.fd_in, 1)) != 1:
            raise RuntimeError("turn FIFO closed")

    def after_step(self, step, last):
        if self.fd_out is not None and ((step + 1) % self.block == 0 or last):
            os.write(self.fd_out, b"t")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, default in (("layers", 4), ("heads", 4), ("dim", 128), ("seq", 64), ("batch", 12),
                          ("vocab", 257), ("warmup", 5), ("steps", 20), ("threads", 0),
                          ("seed", 1234), ("turn-steps", 1), ("experts", 0), ("top-k", 2),
                          ("expert-hidden", 0), ("every", 1)):
        parser.add_argument("--" + name, type=int, default=default)
    parser.add_argument("--dropout", type=float, default=0.0)
    parser.add_argument("--capacity-factor", type=float, default=1.25)
    parser.add_argument("--aux-loss", type=float, default=0.01)
    parser.add_argument("--z-loss", type=float, default=0.001)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--weight-decay", type=float, default=0.01)
    parser.add_argument("--foreach", action="store_true",
                        help="AdamW's multi-tensor (foreach) implementation")
    parser.add_argument("--phases", action="store_true")
    parser.add_argument("--turn-in", default="")
    parser.add_argument("--turn-out", default="")
    args = parser.parse_args()
    if bool(args.turn_in) != bool(args.turn_out):
        parser.error("--turn-in and --turn-out go together")
    if args.steps < 1 or args.turn_steps < 1:
        parser.error("--steps and --turn-steps must be at least 1")
    if args.experts < 0 or (args.experts > 0 and not 1 <= args.top_k <= args.experts):
        parser.error("--experts must be 0 or more and --top-k in 1..experts")

    if args.threads > 0:
        torch.set_num_threads(args.threads)
    turns = Turns(args.turn_in, args.turn_out, args.turn_steps)
    torch.manual_seed(args.seed)
    moe = None
    if args.experts > 0:
        moe = (args.experts, args.top_k, args.capacity_factor,
               args.expert_hidden if args.expert_hidden > 0 else 4 * args.dim)
    model = Gpt(args.vocab, args.seq, args.layers, args.heads, args.dim, args.dropout, moe,
                args.every, (args.aux_loss, args.z_loss))
    model.train()
    parameters = list(model.parameters())
    optimizer = torch.optim.AdamW(parameters, lr=args.lr, weight_decay=args.weight_decay,
                                  foreach=args.foreach)

    batches = []
    for _ in range(4):
        tokens = torch.randint(args.vocab, (args.batch, args.seq + 1), dtype=torch.long)
        batches.append((tokens[:, :-1].contiguous(), tokens[:, 1:].contiguous()))

    phase_ms = {"forward": 0.0, "backward": 0.0, "optimizer": 0.0}
    first_loss = last_loss = 0.0
    step_ms = []
    total = args.warmup + args.steps
    for step in range(total):
        turns.before_step(step)
        timed = step >= args.warmup
        inputs, targets = batches[step % len(batches)]
        start = phase = time.perf_counter()
        loss = model.loss(inputs, targets)
        if args.phases and timed:
            now = time.perf_counter()
            phase_ms["forward"] += (now - phase) * 1e3
            phase = now
        loss.backward()
        if args.phases and timed:
            now = time.perf_counter()
            phase_ms["backward"] += (now - phase) * 1e3
            phase = now
        torch.nn.utils.clip_grad_norm_(parameters, 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if args.phases and timed:
            phase_ms["optimizer"] += (time.perf_counter() - phase) * 1e3
        if timed:
            step_ms.append((time.perf_counter() - start) * 1e3)
        if step == 0:
            first_loss = loss.item()
        if step == total - 1:
            last_loss = loss.item()
        turns.after_step(step, step == total - 1)

    seconds = sum(step_ms) / 1e3
    tokens_per_step = args.batch * args.seq
    median_ms = statistics.median(step_ms)
    params = sum(p.numel() for p in parameters)
    active = params
    for block in model.blocks:
        if block.moe:
            unchosen = block.moe.experts[args.top_k:]
            active -= sum(p.numel() for expert in unchosen for p in expert.parameters())
    result = {
        "impl": "python", "optimizer": "foreach" if args.foreach else "torch",
        "params": params, "active_params": active, "experts": args.experts,
        "top_k": args.top_k if args.experts else 0, "layers": args.layers, "dim": args.dim,
        "seq": args.seq, "threads": torch.get_num_threads(), "steps": len(step_ms),
        "seconds": round(seconds, 4),
        "tokens_per_s": round(tokens_per_step * len(step_ms) / seconds, 1),
        "median_step_ms": round(median_ms, 3), "min_step_ms": round(min(step_ms), 3),
        "tokens_per_s_median_step": round(tokens_per_step * 1e3 / median_ms, 1),
        "first_loss": round(first_loss, 5), "last_loss": round(last_loss, 5),
        "peak_rss_kib": peak_rss_kib(),
    }
    if args.phases:
        result["phase_ms"] = {k: round(v / len(step_ms), 3) for k, v in phase_ms.items()}
    print(json.dumps(result, separators=(",", ":")))


if __name__ == "__main__":
    main()
