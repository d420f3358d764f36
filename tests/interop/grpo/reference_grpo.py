#!/usr/bin/python3
"""Independent pure-torch reference for the GRPO loss on fixed completions and rewards.

    /usr/bin/python3 reference_grpo.py IN.safetensors OUT.safetensors

Follows Hugging Face TRL v0.25.1 (tag v0.25.1, commit 1cf8d56c06ce095aeaa92d0853fca68e5834a928),
trl/trainer/grpo_trainer.py, written from its math, not copied:

  _generate_and_score_completions(): rewards grouped by num_generations consecutive completions;
      advantages = rewards - group mean; scale_rewards "group" divides by the group's std
      (torch.std, unbiased) + 1e-4, "batch" by the std of all rewards + 1e-4, "none" not at all.
      reward_std logged = the mean over completions of their group's std.
  _compute_loss() per micro-batch (per_device_train_batch_size completions):
      ratio = exp(logp - old_logp) (old = logp.detach() when no old log-probs exist),
      token loss = -min(ratio * A, clamp(ratio, 1 - eps_low, 1 + eps_high) * A)
                   + beta * (exp(ref - logp) - (ref - logp) - 1)
      grpo:    mean over the micro-batch's completions of their token mean, / accumulation steps
      bnpo:    token sum / the micro-batch's completion tokens, / accumulation steps
      dr_grpo: token sum / (completions in the micro-batch * max_completion_length), / accum.
      dapo:    token sum / num_items_in_batch (completion tokens of the whole generation batch)
  The trainer's backward of the micro-batch losses accumulates the gradient; the step's loss is
  their sum. kl and clip_ratio here are token means over the whole step (TRL logs one mean per
  micro-batch; equal for one micro-batch).

IN:  logps, old_logps, ref_logps, mask F32 [N, T]; rewards F32 [N]; metadata: group_size,
     micro_batch, loss_type, scale_rewards, beta, epsilon, epsilon_high, max_completion_length,
     use_old ("1": ratio against old_logps).
OUT: advantages [N], loss [1], grad [N, T] (d loss / d logps), kl [1], clip_ratio [1],
     reward_std [1].
"""
import json
import struct
import sys

import torch


def read_safetensors(path):
    with open(path, "rb") as handle:
        size = struct.unpack("<Q", handle.read(8))[0]
        header = json.loads(handle.read(size))
        data = handle.read()
    metadata = header.pop("__metadata__", {})
    tensors = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        dtype = {"F32": torch.float32, "I64": torch.int64}[info["dtype"]]
        tensors[name] = torch.frombuffer(bytearray(data[begin:end]), dtype=dtype).reshape(
            info["shape"]).clone()
    return tensors, metadata


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, tensor in tensors.items():
        raw = tensor.detach().contiguous().to(torch.float32).numpy().tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensor.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as handle:
        handle.write(struct.pack("<Q", len(text)))
        handle.write(text)
        for blob in blobs:
            handle.write(blob)


def advantages_of(rewards, group, scaling):
    grouped = rewards.view(-1, group)
    centred = rewards - grouped.mean(dim=1).repeat_interleave(group)
    group_std = grouped.std(dim=1).repeat_interleave(group)
    if scaling == "group":
        return centred / (group_std + 1e-4), group_std
    if scaling == "batch":
        return centred / (rewards.std().expand_as(rewards) + 1e-4), group_std
    return centred, group_std


def main():
    tensors, meta = read_safetensors(sys.argv[1])
    group = int(meta["group_size"])
    micro = int(meta["micro_batch"])
    loss_type = meta["loss_type"]
    beta = float(meta["beta"])
    eps_low, eps_high = float(meta["epsilon"]), float(meta["epsilon_high"])
    max_len = int(meta["max_completion_length"])
    use_old = meta.get("use_old", "0") == "1"

    logps = tensors["logps"].double().requires_grad_(True)
    old_all = tensors["old_logps"].double()
    ref_all = tensors["ref_logps"].double()
    mask_all = tensors["mask"].double()
    rewards = tensors["rewards"].double()
    advantages, group_std = advantages_of(rewards, group, meta["scale_rewards"])

    rows = logps.shape[0]
    accumulation = rows // micro
    items_in_batch = mask_all.sum()
    total = torch.zeros((), dtype=torch.float64)
    kl_sum = torch.zeros((), dtype=torch.float64)
    clipped_sum = torch.zeros((), dtype=torch.float64)
    for first in range(0, rows, micro):
        part = slice(first, first + micro)
        lp, mask = logps[part], mask_all[part]
        old = old_all[part] if use_old else lp.detach()
        adv = advantages[part].unsqueeze(1)
        ratio = torch.exp(lp - old)
        clipped = torch.clamp(ratio, 1 - eps_low, 1 + eps_high)
        token_loss = -torch.min(ratio * adv, clipped * adv)
        if beta != 0.0:
            diff = ref_all[part] - lp
            kl = torch.exp(diff) - diff - 1
            token_loss = token_loss + beta * kl
            kl_sum = kl_sum + (kl.detach() * mask).sum()
        if loss_type == "grpo":
            loss = ((token_loss * mask).sum(-1) / mask.sum(-1).clamp(min=1.0)).mean() / accumulation
        elif loss_type == "bnpo":
            loss = (token_loss * mask).sum() / mask.sum().clamp(min=1.0) / accumulation
        elif loss_type == "dr_grpo":
            loss = (token_loss * mask).sum() / (token_loss.size(0) * max_len) / accumulation
        elif loss_type == "dapo":
            loss = (token_loss * mask).sum() / items_in_batch
        else:
            raise SystemExit("unknown loss type " + loss_type)
        region = ((ratio < 1 - eps_low) & (adv < 0)) | ((ratio > 1 + eps_high) & (adv > 0))
        clipped_sum = clipped_sum + (region.double() * mask).sum()
        total = total + loss
    total.backward()
    write_safetensors(sys.argv[2], {
        "advantages": advantages,
        "loss": total.detach().reshape(1),
        "grad": logps.grad,
        "kl": (kl_sum / items_in_batch).reshape(1),
        "clip_ratio": (clipped_sum / items_in_batch).reshape(1),
        "reward_std": group_std.mean().reshape(1),
    })


if __name__ == "__main__":
    main()
