#!/usr/bin/python3
"""Turns pretrained.sh's pretrained.jsonl into the Markdown table of docs/BENCHMARKS.md.

Each figure is the median over the rounds (REPEATS); a ratio is the median of the rounds'
ratios (each round's two measurements were taken next to each other), and "rounds" lists them. Targets are the pretrained-models issue's:
  import:   time within 2x of reading the file with read(2) (cold page cache: the file evicted
            first; the warm figures are shown beside), peak RSS within 1.3x of the model's fp32
            size;
  lora:     Headroom's tokens/s at least 1.0x the PyTorch reference's (tokens per step over
            the median step time of each process; the two take turns step by step);
  generate: with the KV cache at least 5x faster than recomputing the prefix, 256 new tokens.
"""

import json
import statistics
import sys
from collections import defaultdict

GIB = 2**30


def load(path):
    runs = defaultdict(list)
    with open(path) as results:
        for line in results:
            record = json.loads(line)
            runs[(record["bench"], record["impl"])].append(record["run"])
    return runs


def median(values):
    return statistics.median(values) if values else float("nan")


def listed(values, form):
    return ", ".join(form.format(v) for v in values)


def verdict(ok):
    return "yes" if ok else "**no**"


def main(path):
    runs = load(path)
    rows = []
    if runs.get(("import", "import-warm")):
        imports_cold = [r["seconds"] for r in runs[("import", "import-cold")]]
        reads_cold = [r["seconds"] for r in runs[("import", "read-cold")]]
        imports_warm = [r["seconds"] for r in runs[("import", "import-warm")]]
        reads_warm = [r["seconds"] for r in runs[("import", "read-warm")]]
        touches = [r["seconds"] for r in runs[("import", "touch")]]
        first = runs[("import", "import-warm")][0]
        model_bytes = first["model_bytes"]
        peaks = [r["peak_rss_kib"] * 1024 for key in ("import-warm", "import-cold")
                 for r in runs[("import", key)]]
        cold_ratios = [i / r for i, r in zip(imports_cold, reads_cold)]
        warm_ratios = [i / r for i, r in zip(imports_warm, reads_warm)]
        cold_ratio = median(cold_ratios)
        rss_ratio = max(peaks) / model_bytes
        params = first["params"] / 1e9
        rows.append([f"import {params:.2f} B params, BF16 -> fp32, cold page cache",
                     f"{median(imports_cold):.2f} s",
                     f"read(2) of the file, cold: {median(reads_cold):.2f} s",
                     f"{cold_ratio:.2f}x", "<= 2x", verdict(cold_ratio <= 2),
                     listed(cold_ratios, "{:.2f}")])
        rows.append(["import, warm page cache", f"{median(imports_warm):.2f} s",
                     f"read(2), warm: {median(reads_warm):.2f} s; allocating and writing "
                     f"{model_bytes / GIB:.1f} GiB once: {median(touches):.2f} s",
                     f"{median(warm_ratios):.2f}x (vs writing: "
                     f"{median([i / t for i, t in zip(imports_warm, touches)]):.2f}x)", "-", "-",
                     listed(warm_ratios, "{:.2f}")])
        rows.append(["import peak RSS (VmHWM, whole process)", f"{max(peaks) / GIB:.2f} GiB",
                     f"model in fp32: {model_bytes / GIB:.2f} GiB", f"{rss_ratio:.3f}x",
                     "<= 1.3x", verdict(rss_ratio <= 1.3),
                     listed([p / model_bytes for p in peaks], "{:.3f}")])
    if runs.get(("lora", "cpp")):
        first = runs[("lora", "cpp")][0]
        tokens = first["batch"] * first["seq"]
        cpp = [tokens * 1000 / r["median_step_ms"] for r in runs[("lora", "cpp")]]
        python = [tokens * 1000 / r["median_step_ms"] for r in runs[("lora", "python")]]
        ratios = [c / p for c, p in zip(cpp, python)]
        rows.append([f"LoRA r=8 q/v, {first['params'] / 1e6:.1f} M params, batch "
                     f"{first['batch']}x{first['seq']}, {first['threads']} threads",
                     f"{median(cpp):.0f} tokens/s",
                     f"PyTorch reference: {median(python):.0f} tokens/s",
                     f"{median(ratios):.2f}x", ">= 1.0x", verdict(median(ratios) >= 1.0),
                     listed(ratios, "{:.2f}")])
    if runs.get(("generate", "cpp")):
        g = runs[("generate", "cpp")][0]
        rows.append([f"generate {g['new_tokens']} tokens after {g['prompt']}, KV cache "
                     f"(whole runs, median of {g['repeats']})",
                     f"{g['cached_tokens_per_s']:.1f} tokens/s",
                     f"recomputing the prefix: {g['recomputed_tokens_per_s']:.1f} tokens/s",
                     f"{g['speedup']:.2f}x", ">= 5x", verdict(g["speedup"] >= 5),
                     "same tokens" if g["same_tokens"] else "**tokens differ**"])
        rows.append(["generate, token by token in turns",
                     f"{g['interleaved_cached_tokens_per_s']:.1f} tokens/s",
                     f"recomputing: {g['interleaved_recomputed_tokens_per_s']:.1f} tokens/s",
                     f"{g['interleaved_speedup']:.2f}x", ">= 5x",
                     verdict(g["interleaved_speedup"] >= 5), ""])
    if runs.get(("cli", "headroom-cli")):
        cli = runs[("cli", "headroom-cli")]
        rows.append([f"headroom-cli generate, 0.17 M-param Llama, {cli[0]['tokens']} tokens",
                     f"{median([r['tokens_per_s'] for r in cli]):.0f} tokens/s",
                     f"whole command {median([r['wall_ms'] for r in cli]) / 1000:.2f} s", "-",
                     "-", "-", listed([r["tokens_per_s"] for r in cli], "{:.0f}")])
    header = ["benchmark", "Headroom", "reference", "ratio", "target", "met", "rounds"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: summarize_pretrained.py pretrained.jsonl")
    main(sys.argv[1])
