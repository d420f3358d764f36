#!/usr/bin/python3
"""Self-check of reference_preference.py on the tiny llama and gpt2 fixture folders.

    /usr/bin/python3 self_check.py [MODELS_DIR]

MODELS_DIR holds the folders that ../pretrained/setup.sh writes under OUT/reference (without it,
setup.sh is run into a temporary folder). For each folder, mode (lora, full) and objective (dpo,
ipo, simpo, orpo) it writes a random IN file, runs the reference as the C++ tests will (a
subprocess, fp32), and checks:
  * the outputs' names, shapes and finiteness;
  * the gradients against central finite differences of the loss, both in float64 (the reference
    run with float64 weights), on the largest-gradient entry and two random ones per tensor;
  * the fp32 gradients against the float64 ones;
  * zero adapters (lora_b = 0) or an unchanged policy (full): dpo loss is ln 2 to 1e-7 with zero
    rewards, ipo loss is (1 / (2 beta))^2.
"""

import math
import os
import subprocess
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import reference_preference as ref  # noqa: E402

lm = ref.lm
META = {"beta": "0.5", "label_smoothing": "0.1", "simpo_gamma": "0.4", "orpo_lambda": "0.3"}
results = {"passed": 0, "failed": 0}


def check(ok, what):
    results["passed" if ok else "failed"] += 1
    if not ok:
        print("FAIL", what)


def pairs(config, gen, batch=2, length=10):
    """Random right-padded prompt ++ completion rows and their scored masks."""
    vocab = config["vocab_size"]
    tensors = {}
    for side in ("chosen", "rejected"):
        ids = torch.randint(0, vocab, (batch, length), generator=gen)
        scored = torch.zeros(batch, length)
        for row in range(batch):
            prompt = int(torch.randint(1, 4, (), generator=gen))  # >= 1: position 0 is prompt
            size = int(torch.randint(2, length - prompt + 1, (), generator=gen))
            scored[row, prompt:prompt + size] = 1
        tensors[side + "_ids"], tensors[side + "_scored"] = ids, scored
    return tensors


def policy_inputs(folder, mode, gen, zero):
    """lora: adapters on every block linear (lora_b zero when `zero`); full: the folder's weights,
    perturbed unless `zero`, under their checkpoint names (GPT-2 mask buffers left out)."""
    config, base = lm.load_folder(folder)
    tensors = {}
    if mode == "lora":
        model = lm.ReferenceLM(config, base)
        for linear in model.linear_names():
            fan_in, fan_out = model.linear_shape(linear)
            tensors["lora_a." + linear] = 0.3 * torch.randn(2, fan_in, generator=gen)
            b = 0.3 * torch.randn(fan_out, 2, generator=gen)
            tensors["lora_b." + linear] = torch.zeros_like(b) if zero else b
    else:
        for name, weight in base.items():
            if ref.is_gpt2_buffer(name):
                continue
            noise = 0.0 if zero else 0.05 * torch.randn(weight.shape, generator=gen)
            tensors["policy." + name] = weight + noise
    return config, tensors


def run_cli(tensors, meta, tmp):
    path_in, path_out = os.path.join(tmp, "in.safetensors"), os.path.join(tmp, "out.safetensors")
    lm.save_safetensors(path_in, tensors, meta)
    subprocess.run([sys.executable, os.path.join(HERE, "reference_preference.py"), path_in,
                    path_out], check=True, stdout=subprocess.DEVNULL)
    return lm.load_safetensors(path_out)


def expected_names(objective, inputs):
    names = {"loss", "chosen_logps", "rejected_logps", "chosen_rewards", "rejected_rewards"}
    if objective in ("dpo", "ipo"):
        names |= {"ref_chosen_logps", "ref_rejected_logps"}
    if objective == "orpo":
        names.add("nll")
    return names | {"grad." + n for n in inputs}


def finite_differences(tensors, meta, out64, names, gen, label):
    """Central differences (h = 1e-5, float64) on three entries of each named tensor."""
    loss_at = lambda t: ref.compute(t, meta, torch.float64, with_grad=False)["loss"].item()
    for name in names:
        grad = out64["grad." + name].reshape(-1)
        picks = [int(grad.abs().argmax())] + torch.randint(0, grad.numel(), (2,),
                                                           generator=gen).tolist()
        for index in picks:
            moved = dict(tensors)
            values = []
            for step in (1e-5, -1e-5):
                flat = tensors[name].double().clone().reshape(-1)
                flat[index] += step
                moved[name] = flat.reshape(tensors[name].shape)
                values.append(loss_at(moved))
            fd = (values[0] - values[1]) / 2e-5
            g = grad[index].item()
            check(abs(fd - g) <= 1e-7 + 1e-5 * abs(g),
                  f"{label}: d loss / d {name}[{index}]: finite differences {fd:.10g}, "
                  f"gradient {g:.10g}")


def check_case(folder, mode, objective, gen, tmp):
    label = f"{os.path.basename(folder)} {mode} {objective}"
    config, inputs = policy_inputs(folder, mode, gen, zero=False)
    tensors = {**pairs(config, gen), **inputs}
    meta = {**META, "folder": folder, "objective": objective, "mode": mode, "lora_scale": "2.0"}
    out = run_cli(tensors, meta, tmp)
    check(set(out) == expected_names(objective, inputs), f"{label}: output names {sorted(out)}")
    for name, value in out.items():
        check(bool(torch.isfinite(value).all()), f"{label}: {name} is not finite")
        if name.startswith("grad."):
            check(value.shape == tensors[name[5:]].shape, f"{label}: {name} shape")
    out64 = ref.compute(tensors, meta, torch.float64)
    check(abs(out["loss"].item() - out64["loss"].item()) <= 1e-5 * max(1, abs(out64["loss"].item())),
          f"{label}: fp32 loss {out['loss'].item()} vs float64 {out64['loss'].item()}")
    for name in inputs:
        g32, g64 = out["grad." + name].double(), out64["grad." + name]
        scale = g64.abs().max().item()
        check((g32 - g64).abs().max().item() <= 1e-3 * scale + 1e-9,
              f"{label}: fp32 vs float64 grad.{name}")
    names = sorted(inputs)
    if mode == "lora":  # one attention and one MLP adapter, both halves
        picked = [n for n in names if n.endswith(("q_proj", "c_attn", "down_proj", "mlp.c_proj"))]
        names = picked[:2] + picked[-2:]
    else:  # the embedding, the first layer's first weight, the final norm
        names = [names[0], names[len(names) // 2], names[-1]]
    finite_differences(tensors, meta, out64, names, gen, label)
    print(f"{label}: loss {out['loss'].item():.6f}, checked {len(names)} tensors")

    # Zero adapters / unchanged policy: the policy is the reference model.
    _, inputs = policy_inputs(folder, mode, gen, zero=True)
    out = run_cli({**pairs(config, gen), **inputs}, meta, tmp)
    beta = float(META["beta"])
    if objective == "dpo":
        check(abs(out["loss"].item() - math.log(2)) <= 1e-7,
              f"{label}: zero-change dpo loss {out['loss'].item():.9f}, not ln 2")
        check(bool((out["chosen_rewards"] == 0).all() and (out["rejected_rewards"] == 0).all()),
              f"{label}: zero-change dpo rewards {out['chosen_rewards']}, "
              f"{out['rejected_rewards']}")
    if objective == "ipo":
        want = (1 / (2 * beta)) ** 2
        check(abs(out["loss"].item() - want) <= 1e-6 * want,
              f"{label}: zero-change ipo loss {out['loss'].item()}, not {want}")


def main(argv):
    tmp = tempfile.mkdtemp(prefix="preference-self-check-")
    if len(argv) > 1:
        models = argv[1]
    else:
        setup = os.path.join(HERE, "..", "pretrained", "setup.sh")
        subprocess.run(["bash", setup, os.path.join(tmp, "models")], check=True,
                       stdout=subprocess.DEVNULL)
        models = os.path.join(tmp, "models", "reference")
    gen = torch.Generator().manual_seed(1234)
    for name in ("llama", "gpt2"):
        for mode in ("lora", "full"):
            for objective in ref.OBJECTIVES:
                check_case(os.path.join(models, name), mode, objective, gen, tmp)
    print(f"{results['passed']} passed, {results['failed']} failed")
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
