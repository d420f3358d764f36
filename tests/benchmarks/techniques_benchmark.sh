#!/usr/bin/env bash
# What each memory-saving technique saves on the 10 M-parameter GPT (6 layers, 6 heads,
# dim 384, seq 256, byte tokenizer) at a fixed effective batch of 16, side by side in one run:
# peak tensor memory (Headroom's allocator), peak RSS, the activation and optimizer parts of
# the memory breakdown, tokens/s and the validation loss after the same number of steps.
#
#   tests/benchmarks/techniques_benchmark.sh            (STEPS=300 by default; ~1 h on 2 cores)
#   STEPS=40 CONFIGS="baseline checkpointing" tests/benchmarks/techniques_benchmark.sh
#
# Every configuration trains the same samples with the same seed; only the technique differs.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build/release}"
PYTHON="${PYTHON:-/usr/bin/python3}"
STEPS="${STEPS:-300}"
CONFIGS="${CONFIGS:-baseline checkpointing bf16 adamw8bit all}"
if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]]; then
  cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$BUILD_DIR" --target headroom-cli >/dev/null
CLI="$BUILD_DIR/app/headroom-cli"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$CLI" new "$work/bench.headroom" --recipe gpt --data "$ROOT/resources/sample/corpus.txt" \
  --set model.layers=6 --set model.heads=6 --set model.dim=384 --set model.seq_len=256 \
  --set model.dropout=0.1 --set train.micro_batch=16 --set train.accumulation=1 \
  --set "train.steps=$STEPS" --set train.warmup_steps=20 --set train.lr=0.0006 \
  --set train.eval_every=0 --set train.eval_batches=8 --set train.checkpoint_every=0 \
  --set recovery.ladder=none >/dev/null 2>&1

settings_for() {
  case "$1" in
    baseline) echo "" ;;
    checkpointing) echo "--set checkpointing=1" ;;
    bf16) echo "--set precision=bf16" ;;
    adamw8bit) echo "--set optimizer=adamw8bit" ;;
    all) echo "--set checkpointing=1 --set precision=bf16 --set optimizer=adamw8bit" ;;
    *) echo "unknown configuration $1" >&2; exit 2 ;;
  esac
}

for config in $CONFIGS; do
  # shellcheck disable=SC2046
  "$CLI" train "$work/bench.headroom" --json $(settings_for "$config") \
    2>"$work/$config.log" >"$work/$config.jsonl" || { cat "$work/$config.log" >&2; exit 1; }
done
"$CLI" runs "$work/bench.headroom" --json >"$work/runs.json"

"$PYTHON" - "$work" "$CONFIGS" "$STEPS" <<'PY'
import json, statistics, sys
work, configs, steps = sys.argv[1], sys.argv[2].split(), int(sys.argv[3])
runs = json.load(open(f"{work}/runs.json"))
rows = {}
for config, run in zip(configs, runs):
    lines = [json.loads(l) for l in open(f"{work}/{config}.jsonl")]
    step_lines = [l for l in lines if l["type"] == "step"]
    evals = [l for l in lines if l["type"] == "eval"]
    summary = run["summary"]
    parts = summary.get("memory_breakdown", {})
    rows[config] = {
        "peak": max(l["mem_peak"] for l in step_lines),
        "rss": max(l["mem_rss"] for l in step_lines),
        "activations": parts.get("activations", 0),
        "optimizer_per_param": parts.get("optimizer", 0) / max(summary.get("parameters", 1), 1),
        "tokens_per_s": statistics.median(l["tokens_per_s"] for l in step_lines[2:] or step_lines),
        "val_loss": evals[-1]["loss"] if evals else float("nan"),
        "techniques": summary.get("techniques", config),
    }
base = rows.get("baseline")
mib = lambda b: f"{b / 2**20:.1f} MiB"
print(f"{steps} steps, effective batch 16, seq 256, {runs[0]['summary'].get('parameters', 0)/1e6:.2f} M parameters\n")
print("| configuration | peak tensor memory | vs fp32 | peak RSS | activations | vs fp32 | optimizer bytes/param | tokens/s | vs fp32 | val loss |")
print("|---|---|---|---|---|---|---|---|---|---|")
for config in configs:
    r = rows[config]
    rel = lambda key: f"{r[key] / base[key] * 100:.0f} %" if base and base[key] else "-"
    print(f"| {r['techniques']} | {mib(r['peak'])} | {rel('peak')} | {mib(r['rss'])} | "
          f"{mib(r['activations'])} | {rel('activations')} | {r['optimizer_per_param']:.2f} | "
          f"{r['tokens_per_s']:.0f} | {rel('tokens_per_s')} | {r['val_loss']:.4f} |")
PY
