#!/usr/bin/python3
"""Turns run_benchmarks.sh's results.jsonl into the Markdown table of docs/BENCHMARKS.md.

tokens/s: tokens per step / the median step time of the run. ratio: C++ / Python of those.
GFLOP/s: tokens/s * (6 * params + 12 * layers * dim *
seq) / 1e9, the usual training estimate (PaLM, nanoGPT): 6 FLOPs per parameter per token for
forward and backward, plus the attention score and value products. Peak RSS: VmHWM of the
process at its end. Loss: after the last step (the same seed gives both the same weights and
batches, so the two should agree to rounding).
"""

import json
import sys
from collections import OrderedDict


def main(path):
    runs = OrderedDict()
    with open(path) as results:
        for line in results:
            record = json.loads(line)
            run = record["run"]
            impl = record.get("label") or run["impl"]
            if "label" not in record and impl == "cpp" and run["optimizer"] != "fused":
                impl = "cpp-torch-adamw"
            elif "label" not in record and impl == "cpp" and run.get("gemm") == "blas":
                impl = "cpp-blas"
            runs.setdefault(record["config"], {}).setdefault(impl, []).append(run)

    has_torch_adamw = any("cpp-torch-adamw" in impls for impls in runs.values())
    has_blas = any("cpp-blas" in impls for impls in runs.values())
    has_onednn = any("cpp-onednn" in impls for impls in runs.values())
    header = ["config", "params", "tokens/s C++ (GEMM)", "tokens/s Python", "ratio C++/Python",
              "GFLOP/s C++", "GFLOP/s Python", "peak RSS C++", "peak RSS Python",
              "loss C++ / Python"]
    if has_onednn:
        header.insert(5, "tokens/s C++ with oneDNN")
    if has_blas:
        header.insert(5, "tokens/s C++ with ATen's BLAS")
    if has_torch_adamw:
        header.insert(5, "tokens/s C++ with torch::optim::AdamW")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for config, impls in runs.items():
        if "cpp" not in impls or "python" not in impls:
            continue
        cpp, python = impls["cpp"][0], impls["python"][0]
        flops_per_token = 6 * cpp["params"] + 12 * cpp["layers"] * cpp["dim"] * cpp["seq"]
        cpp_rate, python_rate = cpp["tokens_per_s_median_step"], python["tokens_per_s_median_step"]
        row = [
            config, f"{cpp['params']:,}", f"{cpp_rate:,.0f} ({cpp.get('gemm', '?')})",
            f"{python_rate:,.0f}",
            f"**{cpp_rate / python_rate:.2f}x**",
            f"{cpp_rate * flops_per_token / 1e9:.1f}", f"{python_rate * flops_per_token / 1e9:.1f}",
            f"{cpp['peak_rss_kib'] / 1024:.0f} MiB", f"{python['peak_rss_kib'] / 1024:.0f} MiB",
            f"{cpp['last_loss']:.4f} / {python['last_loss']:.4f}",
        ]
        for present, name in ((has_onednn, "cpp-onednn"), (has_blas, "cpp-blas"),
                              (has_torch_adamw, "cpp-torch-adamw")):
            if present:
                other = impls.get(name)
                row.insert(5, f"{other[0]['tokens_per_s_median_step']:,.0f}" if other else "-")
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
