#!/usr/bin/python3
"""Independent pure-torch reference for preference-tuning objectives (DPO, IPO, SimPO, ORPO).

    /usr/bin/python3 reference_preference.py IN.safetensors OUT.safetensors

The model is ../pretrained/reference_lm.py (fp32). The objectives follow Hugging Face TRL v0.25.1
(tag v0.25.1, commit 1cf8d56c06ce095aeaa92d0853fca68e5834a928), written from its math, not copied:

  dpo    trl/trainer/dpo_trainer.py, loss_type="sigmoid": concatenated_forward() sums the
         completion tokens' log-probs; dpo_loss(): logits = (pi_c - pi_r) - (ref_c - ref_r),
         loss = -logsigmoid(beta*logits)*(1-ls) - logsigmoid(-beta*logits)*ls; rewards
         beta*(pi - ref); get_batch_loss_metrics() returns losses.mean().
  ipo    the same file, loss_type="ipo": concatenated_forward() divides the summed log-probs by
         loss_mask.sum(-1) (the completion size) for the policy AND the reference (both go
         through it); loss = (logits - 1/(2*beta))^2 (label smoothing unused); rewards as dpo.
  simpo  trl/trainer/cpo_trainer.py, loss_type="simpo", cpo_alpha=0, alpha=0 (AlphaPO off):
         get_batch_logps(average_log_prob=True); cpo_loss(): logits = (pi_c - pi_r) - gamma/beta,
         the label-smoothed sigmoid loss as dpo; rewards beta*pi; loss = losses.mean() (+ 0*nll).
  orpo   trl/trainer/orpo_trainer.py: averaged log-probs; odds_ratio_loss(): log_odds =
         (pi_c - pi_r) - (log1p(-exp(pi_c)) - log1p(-exp(pi_r))), ratio = logsigmoid(log_odds),
         rewards lambda*pi (TRL's `beta` is ORPO's lambda); loss = nll - lambda*mean(ratio).
         TRL's nll: concatenated_forward() cross-entropy of the chosen rows with labels = input
         ids wherever the attention mask is 1, "computed over the full prompt and response":
         every real token from position 1 on (prompt included, padding excluded).

  kto    trl/trainer/kto_trainer.py, loss_type="kto": summed log-probs; KL estimate z0 from the
         mismatched prompt/completion sequences (policy under no_grad), clamped at 0; see kto().

Defined here (deviations from TRL or choices TRL leaves to the data):
  * ORPO nll: the mean over pairs of each pair's per-token mean NLL, where TRL takes one token
    mean over the whole micro-batch (identical when the batch holds one pair). A row's real
    tokens are positions 0 .. its last scored position (the completion ends in a scored eos; the
    right padding after it is not seen). Metadata orpo_nll_tokens=completion (optional; default
    prompt_and_completion, TRL's) restricts the nll to the scored tokens instead.
  * Scored tokens are given by the caller (chosen_scored / rejected_scored), standing for TRL's
    completion mask (completion ++ eos). Causal attention with right padding needs no mask.

IN: chosen_ids, rejected_ids I64 [B,T]; chosen_scored, rejected_scored F32 [B,T]; the policy:
metadata mode=lora (lora_a.<linear> [r,in], lora_b.<linear> [out,r], lora_scale; the reference
model is the bare base) or mode=full (policy.<checkpoint name> for every weight of the folder; the
reference model is the folder). Metadata: folder, objective, beta, label_smoothing, simpo_gamma,
orpo_lambda, mode (kto: kto_desirable_weight, kto_undesirable_weight, and the tensor labels [B];
chosen_ids are the records, rejected_ids their mismatched sequences for the KL estimate).
OUT (F32): loss [1], chosen_logps/rejected_logps [B], ref_chosen_logps/ref_rejected_logps [B]
(dpo, ipo), chosen_rewards/rejected_rewards [B], nll [1] (orpo), grad.<input> per policy input.
"""

import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pretrained"))
import reference_lm as lm  # noqa: E402

OBJECTIVES = ("dpo", "ipo", "simpo", "orpo", "kto")


def is_gpt2_buffer(name):
    """GPT-2's causal-mask buffers: in old checkpoints, not weights; reference_lm drops them."""
    return name.endswith(".attn.bias") or name.endswith(".attn.masked_bias")


def build_model(config, named, dtype):
    """ReferenceLM over the tensors `named` (kept as they are, so gradients reach them and a float64
    run stays float64). ReferenceLM renames (GPT-2 "transformer."), drops buffers, ties lm_head and
    casts with .float(); it is built on fp32 stand-ins (.float() of an fp32 tensor is the tensor
    itself) and each state entry then swapped back for the tensor it came from."""
    proxies = {n: t.float() if t.dtype != torch.float32 else t for n, t in named.items()}
    model = lm.ReferenceLM(config, proxies)
    origin = {id(t): n for n, t in proxies.items()}
    model.state = {k: named[origin[id(v)]].to(dtype) for k, v in model.state.items()}
    return model


def token_logps(model, ids, scored):
    """ids [N,T], scored [N,T] -> (log p(ids[t] | ids[<t]) on the scored tokens, their mask,
    the same on the row's real tokens t = 1 .. last scored position, their mask), each [N,T-1]
    with entry t-1 about token t (zero log-prob where the mask is 0)."""
    log_probs = torch.log_softmax(model.forward(ids)[:, :-1], dim=-1)
    logps = log_probs.gather(-1, ids[:, 1:].unsqueeze(-1)).squeeze(-1)
    mask = scored[:, 1:].to(logps.dtype)
    # The row's real tokens end at its last scored one (argmax: the first index of the cumsum's
    # maximum); past it is right padding, which ORPO's nll skips as TRL's attention mask does.
    last = (scored > 0).to(torch.int64).cumsum(1).argmax(1, keepdim=True)
    real = (torch.arange(1, ids.shape[1]).expand_as(mask) <= last).to(logps.dtype)
    # where(), not a product: a padding token's log-prob never enters, even as 0 * value.
    zero = torch.zeros_like(logps)
    return torch.where(mask > 0, logps, zero), mask, torch.where(real > 0, logps, zero), real


def sequence_logps(model, chosen, rejected, cs, rs, average):
    """One forward over the 2B rows -> (chosen, rejected) logps [B], summed or averaged over the
    scored tokens, and the chosen rows' (nll-all-tokens, nll-scored-tokens) per-row means."""
    b = chosen.shape[0]
    logps, mask, all_logps, real = token_logps(model, torch.cat((chosen, rejected)),
                                               torch.cat((cs, rs)))
    total = logps.sum(-1)
    if average:
        total = total / mask.sum(-1)
    nll_all = -all_logps[:b].sum(-1) / real[:b].sum(-1)
    nll_scored = -logps[:b].sum(-1) / mask[:b].sum(-1)
    return total[:b], total[b:], nll_all, nll_scored


def smoothed_sigmoid_loss(logits, beta, ls):
    return -F.logsigmoid(beta * logits) * (1 - ls) - F.logsigmoid(-beta * logits) * ls


def compute(tensors, meta, dtype=torch.float32, with_grad=True):
    """tensors, meta: the IN file's contents -> {output name: tensor} (grads included unless
    with_grad is false). dtype: float32 as specified; float64 for finite-difference checks."""
    objective = meta["objective"]
    if objective not in OBJECTIVES:
        raise ValueError(f"objective {objective!r} is not one of {OBJECTIVES}")
    mode = meta["mode"]
    config, base = lm.load_folder(meta["folder"])
    chosen, rejected = tensors["chosen_ids"].long(), tensors["rejected_ids"].long()
    cs, rs = tensors["chosen_scored"], tensors["rejected_scored"]
    if chosen.shape != rejected.shape or cs.shape != chosen.shape or rs.shape != chosen.shape:
        raise ValueError("chosen/rejected ids and scored masks must all be [B, T]")
    for name, s in (("chosen_scored", cs), ("rejected_scored", rs)):
        if ((s != 0) & (s != 1)).any() or (s[:, 0] != 0).any() or (s.sum(1) == 0).any():
            raise ValueError(f"{name}: 0/1 only, 0 at position 0, one scored token per row")

    # The policy's inputs become leaves in `dtype`; the gradient is taken against them.
    if mode == "lora":
        prefix = ("lora_a.", "lora_b.")
    elif mode == "full":
        prefix = ("policy.",)
    else:
        raise ValueError(f"mode {mode!r} is neither lora nor full")
    leaves = {n: t.to(dtype).detach().requires_grad_(with_grad)
              for n, t in tensors.items() if n.startswith(prefix)}

    if mode == "lora":
        policy = build_model(config, base, dtype)
        scale = float(meta["lora_scale"])
        linears = set(policy.linear_names()) | {"lm_head"}
        for name in leaves:
            linear = name[len("lora_a."):]
            if linear not in linears:
                raise ValueError(f"{name}: {linear} is not a linear of the model")
            a, b = leaves.get("lora_a." + linear), leaves.get("lora_b." + linear)
            if a is None or b is None:
                raise ValueError(f"{linear}: lora_a and lora_b must both be given")
            fan_in, fan_out = policy.linear_shape(linear)
            if a.shape[1] != fan_in or b.shape[0] != fan_out or a.shape[0] != b.shape[1]:
                raise ValueError(f"{linear}: adapter shapes {list(a.shape)}, {list(b.shape)}")
            policy.adapters[linear] = (a, b, scale)
        reference = policy  # the same base; its adapters are taken off for the reference pass
    else:
        named = {n[len("policy."):]: t for n, t in leaves.items()}
        missing = [n for n in base if n not in named and not is_gpt2_buffer(n)]
        unknown = [n for n in named if n not in base]
        if missing or unknown:
            raise ValueError(f"mode=full: missing {missing[:5]}, not in the folder {unknown[:5]}")
        for n, t in named.items():
            if t.shape != base[n].shape:
                raise ValueError(f"policy.{n}: shape {list(t.shape)}, folder {list(base[n].shape)}")
        policy = build_model(config, named, dtype)
        reference = build_model(config, base, dtype)

    if objective == "kto":
        loss, out = kto(policy, reference, chosen, rejected, cs, rs, tensors["labels"], meta)
        return finish(loss, out, leaves, with_grad)

    average = objective != "dpo"
    pi_c, pi_r, nll_all, nll_scored = sequence_logps(policy, chosen, rejected, cs, rs, average)
    out = {"chosen_logps": pi_c, "rejected_logps": pi_r}

    if objective in ("dpo", "ipo"):
        beta = float(meta["beta"])
        with torch.no_grad():
            adapters, reference.adapters = reference.adapters, {}
            ref_c, ref_r, _, _ = sequence_logps(reference, chosen, rejected, cs, rs, average)
            reference.adapters = adapters
        logits = (pi_c - pi_r) - (ref_c - ref_r)
        if objective == "dpo":
            losses = smoothed_sigmoid_loss(logits, beta, float(meta["label_smoothing"]))
        else:
            losses = (logits - 1 / (2 * beta)) ** 2
        loss = losses.mean()
        out.update(ref_chosen_logps=ref_c, ref_rejected_logps=ref_r,
                   chosen_rewards=beta * (pi_c - ref_c), rejected_rewards=beta * (pi_r - ref_r))
    elif objective == "simpo":
        beta = float(meta["beta"])
        logits = (pi_c - pi_r) - float(meta["simpo_gamma"]) / beta
        loss = smoothed_sigmoid_loss(logits, beta, float(meta["label_smoothing"])).mean()
        out.update(chosen_rewards=beta * pi_c, rejected_rewards=beta * pi_r)
    else:
        lam = float(meta["orpo_lambda"])
        span = meta.get("orpo_nll_tokens", "prompt_and_completion")
        if span not in ("prompt_and_completion", "completion"):
            raise ValueError(f"orpo_nll_tokens {span!r}")
        nll = (nll_all if span == "prompt_and_completion" else nll_scored).mean()
        log_odds = (pi_c - pi_r) - (torch.log1p(-torch.exp(pi_c)) - torch.log1p(-torch.exp(pi_r)))
        loss = nll - lam * F.logsigmoid(log_odds).mean()
        out.update(nll=nll.reshape(1), chosen_rewards=lam * pi_c, rejected_rewards=lam * pi_r)

    return finish(loss, out, leaves, with_grad)


def finish(loss, out, leaves, with_grad):
    out["loss"] = loss.reshape(1)
    if with_grad:
        loss.backward()
        for name, leaf in leaves.items():
            grad = leaf.grad if leaf.grad is not None else torch.zeros_like(leaf)
            out["grad." + name] = grad
    return {k: v.detach() for k, v in out.items()}


def kto(policy, reference, records, mismatched, rs, ms, labels, meta):
    """KTO as trl/trainer/kto_trainer.py v0.25.1 (loss_type "kto") computes it: the records'
    (chosen_ids) summed completion log-probs; the KL estimate z0 from the mismatched sequences
    (rejected_ids: record i's prompt with record i-1's completion, as _get_kl_dataset pairs them),
    the policy's under no_grad as _compute_kl_logps runs it: clamp(mean(policy - reference), 0);
    desirable (labels 1) loss w_d (1 - sigmoid(beta (r - z0))), undesirable w_u (1 - sigmoid(beta
    (z0 - r))), r = policy - reference; the mean over the records (nanmean of the concatenation)."""
    beta = float(meta["beta"])
    weights = float(meta["kto_desirable_weight"]), float(meta["kto_undesirable_weight"])
    logps, _, _, _ = token_logps(policy, records, rs)
    pi = logps.sum(-1)
    with torch.no_grad():
        pi_kl = token_logps(policy, mismatched, ms)[0].sum(-1)
        adapters, reference.adapters = reference.adapters, {}
        ref = token_logps(reference, records, rs)[0].sum(-1)
        ref_kl = token_logps(reference, mismatched, ms)[0].sum(-1)
        reference.adapters = adapters
        kl = (pi_kl - ref_kl).mean().clamp(min=0)
    logratios = pi - ref
    desirable = labels > 0.5
    losses = torch.where(desirable, weights[0] * (1 - torch.sigmoid(beta * (logratios - kl))),
                         weights[1] * (1 - torch.sigmoid(beta * (kl - logratios))))
    out = {"chosen_logps": pi, "rejected_logps": pi_kl, "ref_chosen_logps": ref,
           "chosen_rewards": beta * logratios, "rejected_rewards": beta * logratios,
           "kl": kl.reshape(1)}
    return losses.mean(), out


def read_input(path):
    tensors = lm.load_safetensors(path)
    _, meta, _ = lm.read_safetensors_header(path)
    return tensors, meta


def main(argv):
    if len(argv) != 3:
        raise SystemExit("usage: reference_preference.py IN.safetensors OUT.safetensors")
    tensors, meta = read_input(argv[1])
    out = compute(tensors, meta)
    lm.save_safetensors(argv[2], {k: v.float().contiguous() for k, v in out.items()},
                        {"objective": meta["objective"], "mode": meta["mode"]})
    print(f"{meta['objective']} ({meta['mode']}): loss {out['loss'].item():.8f}")


if __name__ == "__main__":
    main(sys.argv)
