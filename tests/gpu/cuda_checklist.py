#!/usr/bin/env python3
"""The CUDA checklist: runs headroom-cli on an NVIDIA GPU and prints one table row per check.

    tests/gpu/cuda_checklist.sh            (builds headroom-cli against the CUDA LibTorch first)
    python3 tests/gpu/cuda_checklist.py CLI [--only NAME,...] [--work DIR]

Checks (each trains the bundled sample corpus with the GPT recipe on `device=cuda`):
  oom        a real CUDA out-of-memory under memory.budget=8GiB (GPT-2 124M shape, seq 1024,
             micro-batch 32) is recovered by halving the micro-batch; every step's samples_digest
             and loss equal a run started at the recovered micro-batch with the same effective batch
  fp16       fp16 with the dynamic loss scaler: loss falls, skipped steps counted
  bf16       bf16 autocast: loss falls
  offload    the optimizer offloaded to the host: the same losses as on the device
  estimate   the estimator's peak against the measured CUDA peak (fp32 and bf16+checkpointing)
  speed      tokens/s and MFU of the GPT-2 124M-shaped model in bf16
  nccl       (2 or more GPUs; skipped otherwise) `train --nproc 2` with distributed.backend=nccl:
             each rank on cuda:LOCAL_RANK, losses and samples equal one process within 1e-5
             relative, the same with overlap off, and an out-of-memory failpoint on rank 1
             recovered on both ranks (micro-batch 4 -> 2 everywhere, the same losses)
Exit status 0 when every check that ran passed.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "resources", "sample", "corpus.txt")

GPT2_SHAPE = ["model.layers=12", "model.heads=12", "model.dim=768", "model.seq_len=1024"]
SMALL_SHAPE = ["model.layers=6", "model.heads=6", "model.dim=384", "model.seq_len=256"]
QUIET = ["model.dropout=0", "train.eval_every=0", "train.checkpoint_every=0", "device=cuda"]

# Dense bf16 tensor-core peaks (FLOP/s) by a name fragment, longest fragment first.
PEAK_BF16 = [
    ("H200", 989e12), ("H100 PCIe", 756e12), ("H100", 989e12), ("A100", 312e12),
    ("L40S", 362e12), ("L4", 121e12), ("A10", 125e12), ("RTX 4090", 165e12),
    ("RTX 3090", 71e12), ("T4", 65e12),
]


class Checklist:
    def __init__(self, cli, work):
        self.cli = cli
        self.work = work
        self.rows = []
        self.count = 0

    def project(self, settings):
        self.count += 1
        path = os.path.join(self.work, f"p{self.count}.headroom")
        command = [self.cli, "new", path, "--recipe", "gpt", "--data", CORPUS]
        for setting in settings + QUIET:
            command += ["--set", setting]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        return path

    def train(self, settings, arguments=(), environment=None, stderr=None):
        path = self.project(settings)
        done = subprocess.run([self.cli, "train", path, "--json", *arguments],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=dict(os.environ, **(environment or {})))
        lines = [json.loads(l) for l in done.stdout.splitlines() if l.startswith("{")]
        steps = [l for l in lines if l.get("type") == "step"]
        events = [l for l in lines if l.get("type") == "event"]
        if done.returncode != 0:
            raise RuntimeError(f"train exited {done.returncode}: {done.stderr.strip()[-400:]}")
        if stderr is not None:
            stderr.append(done.stderr)
        return path, steps, events

    def estimate(self, settings):
        path = self.project(settings)
        out = subprocess.run([self.cli, "estimate", path, "--json"], check=True,
                             stdout=subprocess.PIPE, text=True).stdout
        return json.loads(out)["estimate"]

    def row(self, name, passed, detail):
        self.rows.append((name, "pass" if passed else "FAIL", detail))

    def check_oom(self):
        common = GPT2_SHAPE + ["train.steps=4", "memory.budget=8GiB", "train.seed=7"]
        _, steps, events = self.train(common + ["train.micro_batch=32", "train.accumulation=1"])
        recovered = [e for e in events if e.get("kind") == "oom_recovered"]
        if not recovered:
            self.row("oom", False, "no oom_recovered event: micro-batch 32 fitted in 8 GiB?")
            return
        final = steps[-1]["micro_batch"]
        _, reference, _ = self.train(common + [f"train.micro_batch={final}",
                                               f"train.accumulation={32 // final}"])
        same_digests = [s["samples_digest"] for s in steps] == \
            [s["samples_digest"] for s in reference]
        worst = max(abs(a["loss"] - b["loss"]) / abs(b["loss"]) for a, b in zip(steps, reference))
        self.row("oom", same_digests and worst < 1e-3,
                 f"{len(recovered)} recoveries, 32 -> {final}; digests "
                 f"{'identical' if same_digests else 'DIFFER'}; worst loss diff {worst:.1e}")

    def check_precision(self, precision):
        _, steps, _ = self.train(SMALL_SHAPE + [f"precision={precision}", "train.steps=60",
                                                "train.micro_batch=16"])
        first = statistics.mean(s["loss"] for s in steps[:5])
        last = statistics.mean(s["loss"] for s in steps[-5:])
        detail = f"loss {first:.3f} -> {last:.3f}"
        if precision == "fp16":
            detail += (f"; {steps[-1]['skipped_steps']} skipped steps, "
                       f"loss scale {steps[-1]['loss_scale']:g}")
        self.row(precision, last < first * 0.8, detail)

    def check_offload(self):
        base = SMALL_SHAPE + ["train.steps=20", "train.micro_batch=8", "train.seed=3"]
        _, device_steps, _ = self.train(base)
        _, host_steps, _ = self.train(base + ["offload.optimizer=on"])
        worst = max(abs(a["loss"] - b["loss"]) / abs(a["loss"])
                    for a, b in zip(device_steps, host_steps))
        peak_device = max(s["mem_peak"] for s in device_steps)
        peak_host = max(s["mem_peak"] for s in host_steps)
        self.row("offload", worst < 1e-3,
                 f"worst loss diff {worst:.1e}; device peak {peak_device / 2**20:.0f} MiB -> "
                 f"{peak_host / 2**20:.0f} MiB")

    def check_estimate(self):
        for label, extra in (("fp32", ["train.micro_batch=4"]),
                             ("bf16+ckpt", ["train.micro_batch=8", "precision=bf16",
                                            "checkpointing=1"])):
            settings = GPT2_SHAPE + extra + ["train.steps=5"]
            predicted = self.estimate(settings)["peak"]
            _, steps, _ = self.train(settings)
            measured = max(s["mem_peak"] for s in steps[1:])
            error = predicted / measured - 1
            self.row(f"estimate {label}", abs(error) <= 0.10,
                     f"predicted {predicted / 2**30:.2f} GiB, measured "
                     f"{measured / 2**30:.2f} GiB ({error:+.1%})")

    def check_speed(self):
        settings = GPT2_SHAPE + ["precision=bf16", "train.micro_batch=16", "train.steps=30"]
        parameters = self.estimate(settings)["parameters"]
        _, steps, _ = self.train(settings)
        rate = statistics.median(s["tokens_per_s"] for s in steps[10:])
        # 6 N per token for the weights plus the attention scores (12 layers x seq x dim x 12).
        flops_per_token = 6 * parameters + 12 * 12 * 1024 * 768
        name = device_name(self.cli)
        peak = next((p for fragment, p in PEAK_BF16 if fragment in name), None)
        mfu = f"MFU {rate * flops_per_token / peak:.1%} of {peak / 1e12:.0f} TFLOP/s" \
            if peak else "MFU n/a (unknown GPU peak)"
        self.row("speed", rate > 0, f"{name}: {rate:,.0f} tok/s, "
                 f"{parameters / 1e6:.1f} M parameters, {mfu}")


    def check_nccl(self):
        gpus = cuda_device_count(self.cli)
        if gpus < 2:
            self.row("nccl", True, f"skipped: {gpus} GPU(s) visible, 2 needed")
            return
        # Each rank trains 4 of a step's 8 examples: micro-batch 4, accumulation 2 in one
        # process is the same effective batch.
        base = SMALL_SHAPE + ["train.steps=8", "train.micro_batch=4", "train.accumulation=2",
                              "train.seed=5"]
        nccl = ["distributed.backend=nccl"]
        _, one, _ = self.train(base)
        details, passed = [], True

        def compare(label, steps):
            if [s["samples_digest"] for s in steps] != [s["samples_digest"] for s in one]:
                return False, f"{label}: other samples"
            worst = max(abs(a["loss"] - b["loss"]) / abs(b["loss"]) for a, b in zip(steps, one))
            return worst <= 1e-5 and len(steps) == len(one), f"{label} worst {worst:.1e}"

        logs = []
        _, two, _ = self.train(base + nccl, ["--nproc", "2"], stderr=logs)
        on_gpus = "(nccl, cuda:0)" in logs[-1]
        ok, text = compare("2 ranks", two)
        passed &= ok and on_gpus
        details.append(text + ("" if on_gpus else " (rank 0 not on nccl, cuda:0)"))
        _, after, _ = self.train(base + nccl + ["distributed.overlap=0"], ["--nproc", "2"])
        ok, text = compare("overlap=0", after)
        passed &= ok
        details.append(text)
        _, oom, events = self.train(base + nccl, ["--nproc", "2"],
                                    {"HEADROOM_FAILPOINT": "oom_backward@step:2@rank:1"})
        ok, text = compare("oom on rank 1", oom)
        recovered = [e for e in events if e.get("kind") == "oom_recovered"]
        halved = [s["micro_batch"] for s in oom] == [4] + [2] * (len(oom) - 1)
        passed &= ok and len(recovered) == 1 and halved
        details.append(text + f", {len(recovered)} recoveries, micro-batch "
                       f"{'4 -> 2 on every rank' if halved else 'NOT HALVED'}")
        self.row("nccl", passed, "; ".join(details))


def cuda_device_count(cli):
    devices = json.loads(subprocess.run([cli, "devices", "--json"], check=True,
                                        stdout=subprocess.PIPE, text=True).stdout)
    return len(devices.get("cuda", {}).get("devices", []))


def device_name(cli):
    devices = json.loads(subprocess.run([cli, "devices", "--json"], check=True,
                                        stdout=subprocess.PIPE, text=True).stdout)
    listed = devices.get("cuda", {}).get("devices", [])
    return listed[0].get("name", "?") if listed else "no CUDA device"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cli", help="path of headroom-cli built against a CUDA LibTorch")
    parser.add_argument("--only", default="", help="comma-separated checks to run")
    parser.add_argument("--work", default="", help="folder for the projects (default: temporary)")
    args = parser.parse_args()

    name = device_name(args.cli)
    if name == "no CUDA device":
        print("cuda_checklist: headroom-cli sees no CUDA device (devices --json)", file=sys.stderr)
        return 2
    work = args.work or tempfile.mkdtemp(prefix="headroom-gpu-")
    checklist = Checklist(args.cli, work)
    checks = {
        "oom": checklist.check_oom,
        "fp16": lambda: checklist.check_precision("fp16"),
        "bf16": lambda: checklist.check_precision("bf16"),
        "offload": checklist.check_offload,
        "estimate": checklist.check_estimate,
        "speed": checklist.check_speed,
        "nccl": checklist.check_nccl,
    }
    wanted = [n for n in args.only.split(",") if n] or list(checks)
    for check in wanted:
        try:
            checks[check]()
        except Exception as error:  # a failed check is a row, not the end of the checklist
            checklist.row(check, False, f"error: {error}")
    print(f"CUDA checklist on {name}\n")
    print("| check | result | detail |\n|---|---|---|")
    for row in checklist.rows:
        print("| " + " | ".join(row) + " |")
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if all(result == "pass" for _, result, _ in checklist.rows) else 1


if __name__ == "__main__":
    sys.exit(main())
