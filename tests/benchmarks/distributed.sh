#!/usr/bin/env bash
# Data parallel on one machine: 2 ranks x 1 thread against 1 rank x 2 threads, the gradient
# exchange after the whole backward against overlapped with it (distributed.overlap, default
# 4 MiB buckets and 256 KiB ones), and the optimizer state each rank keeps with and without
# ZeRO-1 (distributed.shard_optimizer).
#
#   tests/benchmarks/distributed.sh          (about 3 minutes after the build, on 2 cores)
#
# headroom-cli trains the sample corpus (GPT 4 layers, dim 128, 4 heads, seq 64, dropout 0,
# effective batch 16, 40 steps, no validation or checkpoints) once per row. Throughput is the
# median samples/s of steps 6-40 that rank 0 reports (the whole step's samples over its wall
# time, exchange included). State bytes are rank 0's measured optimizer state (the run's
# memory breakdown) over the model's trainable parameters.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build/release}"
PYTHON="${PYTHON:-/usr/bin/python3}"
if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]]; then
  cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$BUILD_DIR" --target headroom-cli >/dev/null
CLI="$BUILD_DIR/app/headroom-cli"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# name | optimizer | ranks | shard | extra --set (the gradient exchange: distributed.overlap)
rows=(
  "1 rank x 2 threads|adamw|1|0|"
  "2 ranks x 1 thread, exchange after bwd|adamw|2|0|distributed.overlap=0"
  "2 ranks x 1 thread|adamw|2|0|"
  "2 ranks x 1 thread, 256 KiB buckets|adamw|2|0|distributed.bucket_kib=256"
  "2 ranks x 1 thread, ZeRO-1|adamw|2|1|"
  "1 rank x 2 threads, 8-bit|adamw8bit|1|0|"
  "2 ranks x 1 thread, ZeRO-1, 8-bit|adamw8bit|2|1|"
)
index=0
for row in "${rows[@]}"; do
  IFS='|' read -r name optimizer ranks shard extra <<<"$row"
  project="$work/run-$index.headroom"
  "$CLI" new "$project" --recipe gpt --data "$ROOT/resources/sample/corpus.txt" \
    --set model.layers=4 --set model.dim=128 --set model.heads=4 --set model.seq_len=64 \
    --set model.dropout=0 --set train.micro_batch=16 --set train.steps=40 \
    --set train.eval_every=0 --set train.checkpoint_every=0 --set train.sample_tokens=0 \
    --set optimizer="$optimizer" --set distributed.shard_optimizer="$shard" \
    ${extra:+--set "$extra"} >/dev/null 2>&1
  if [[ "$ranks" == 1 ]]; then
    OMP_NUM_THREADS=2 "$CLI" train "$project" --json --set train.threads=2 \
      2>/dev/null >"$work/steps-$index.jsonl"
  else
    # The launcher gives each rank cores / ranks threads (OMP_NUM_THREADS unset).
    env -u OMP_NUM_THREADS "$CLI" train "$project" --json --nproc "$ranks" \
      2>/dev/null >"$work/steps-$index.jsonl"
  fi
  "$CLI" runs "$project" --json >"$work/runs-$index.json"
  "$CLI" estimate "$project" --set distributed.ranks="$ranks" --json >"$work/estimate-$index.json"
  echo "$name" >"$work/name-$index"
  index=$((index + 1))
done

"$PYTHON" - "$work" "$index" <<'PY'
import json, statistics, sys
work, count = sys.argv[1], int(sys.argv[2])
print("%-40s %10s %9s %14s %14s" % ("configuration", "samples/s", "vs first", "state B/param",
                                   "estimate B/p"))
base = None
for i in range(count):
    name = open(f"{work}/name-{i}").read().strip()
    steps = [json.loads(l) for l in open(f"{work}/steps-{i}.jsonl")]
    rates = [s["samples_per_s"] for s in steps if s.get("type") == "step" and s["step"] > 5]
    rate = statistics.median(rates)
    base = base or rate
    summary = json.load(open(f"{work}/runs-{i}.json"))[-1]["summary"]
    estimate = json.load(open(f"{work}/estimate-{i}.json"))["estimate"]
    trainable = estimate["trainable"]
    measured = summary["memory_breakdown"]["optimizer"] / trainable
    estimated = estimate["breakdown"]["optimizer"] / trainable
    print("%-40s %10.1f %8.2fx %14.2f %14.2f" % (name, rate, rate / base, measured, estimated))
PY
