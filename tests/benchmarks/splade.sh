#!/usr/bin/env bash
# The SPLADE benchmarks (docs/BENCHMARKS.md, "SPLADE"), one command:
#   speed    training tokens per second of headroom-cli against the plain PyTorch reference
#            splade_reference.py on the same LibTorch build (same model, batch, loss, fp32),
#            each run REPEATS times in turns;
#   memory   peak memory of the same training per technique (fp32, bf16, checkpointing,
#            8-bit AdamW, micro-batch 8 x 4) with the estimator's prediction beside it;
#   quality  MRR@10 and Recall@100 on 300 held-out queries over 600 passages: BM25, the untuned
#            encoder and the fine-tuned one (splade_data.py: a synthetic task that needs query
#            expansion; see there).
# Prints a Markdown table. About 5 minutes on 2 cores after the build.
#
#   tests/benchmarks/splade.sh
#   REPEATS=5 STEPS=400 SKIP_BUILD=1 tests/benchmarks/splade.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build/release}"
PYTHON="${PYTHON:-/usr/bin/python3}" # Debian's python3-torch, the same LibTorch build
THREADS="${THREADS:-$(nproc)}"
REPEATS="${REPEATS:-3}"
STEPS="${STEPS:-300}"         # fine-tuning steps of the quality run
SPEED_STEPS="${SPEED_STEPS:-20}"
BATCH="${BATCH:-32}"
MAX_LENGTH="${MAX_LENGTH:-24}"
WORK_DIR="${WORK_DIR:-$BUILD_DIR/bench/splade}"
if (($# > 0)); then
  echo "usage: [BUILD_DIR=...] [THREADS=...] [REPEATS=...] [STEPS=...] [WORK_DIR=...]" \
    "[SKIP_BUILD=1] [PYTHON=...] $0" >&2
  exit 2
fi
if [[ -z "${SKIP_BUILD:-}" ]]; then
  if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]]; then
    cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  fi
  cmake --build "$BUILD_DIR" --target headroom-cli -j"$THREADS" >/dev/null
fi
CLI="$BUILD_DIR/app/headroom-cli"
HERE="$ROOT/tests/benchmarks"
"$PYTHON" -c 'import torch' 2>/dev/null ||
  { echo "$PYTHON has no torch (apt-get install python3-torch)" >&2; exit 2; }
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}" OMP_NUM_THREADS="$THREADS" THREADS
echo "threads: $THREADS, repeats: $REPEATS, load average: $(cut -d' ' -f1-3 /proc/loadavg)," \
  "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)," \
  "AVX-512: $(grep -qw avx512f /proc/cpuinfo && echo yes || echo no)" >&2

rm -rf "$WORK_DIR"
mkdir -p "$WORK_DIR"
"$PYTHON" "$HERE/splade_data.py" "$WORK_DIR" >/dev/null
cd "$WORK_DIR"
COMMON=(--set "model.seq_len=$MAX_LENGTH" --set "train.micro_batch=$BATCH" --set train.lr=0.001
  --set data.validation_fraction=0.05 --set splade.warmup_steps=100)

# Median tokens/s of a run's steps after the first, from train --json.
median_rate() {
  "$PYTHON" -c '
import json, statistics, sys
rates = [json.loads(l)["tokens_per_s"] for l in sys.stdin if "\"type\":\"step\"" in l]
print(f"{statistics.median(rates[1:]):.0f}")'
}
peak_of() {
  "$PYTHON" -c '
import json, sys
print(max(json.loads(l)["mem_peak"] for l in sys.stdin if "\"type\":\"step\"" in l))'
}
mib() { "$PYTHON" -c "print(f'{$1 / 2**20:.1f} MiB')"; }

echo "| measure | Headroom | reference | ratio |"
echo "|---|---|---|---|"
headroom_rates=() reference_rates=()
for ((r = 1; r <= REPEATS; r++)); do
  rm -rf speed.headroom speed.headroom.d
  "$CLI" new speed.headroom --base base --data train.jsonl "${COMMON[@]}" \
    --set "train.steps=$SPEED_STEPS" --set train.eval_every=0 >/dev/null 2>&1
  headroom_rates+=("$("$CLI" train speed.headroom --json 2>/dev/null | median_rate)")
  reference_rates+=("$("$PYTHON" "$HERE/splade_reference.py" . "$SPEED_STEPS" "$BATCH" "$MAX_LENGTH")")
done
joined() { local IFS=,; echo "$*"; }
read -r h p < <("$PYTHON" -c "
import statistics
print(statistics.median([$(joined "${headroom_rates[@]}")]),
      statistics.median([$(joined "${reference_rates[@]}")]))")
echo "| training tokens/s (median of $REPEATS, batch $BATCH, max length $MAX_LENGTH) | $h | $p |" \
  "$("$PYTHON" -c "print(f'{$h / $p:.2f}x')") |"

echo
echo "| technique | peak (measured) | estimate | error |"
echo "|---|---|---|---|"
for technique in "fp32" "precision=bf16" "checkpointing=1" "optimizer=adamw8bit" \
  "train.micro_batch=8 train.accumulation=4"; do
  sets=()
  if [[ "$technique" != fp32 ]]; then
    for assignment in $technique; do sets+=(--set "$assignment"); done
  fi
  rm -rf memory.headroom memory.headroom.d
  "$CLI" new memory.headroom --base base --data train.jsonl "${COMMON[@]}" --set train.steps=3 \
    --set train.eval_every=0 "${sets[@]}" >/dev/null 2>&1
  estimate="$("$CLI" estimate memory.headroom --json 2>/dev/null |
    "$PYTHON" -c 'import json, sys; print(json.load(sys.stdin)["estimate"]["model_peak"])')"
  peak="$("$CLI" train memory.headroom --json 2>/dev/null | peak_of)"
  echo "| $technique | $(mib "$peak") | $(mib "$estimate") |" \
    "$("$PYTHON" -c "print(f'{100 * ($estimate - $peak) / $peak:+.1f} %')") |"
done

rm -rf quality.headroom quality.headroom.d
"$CLI" new quality.headroom --base base --data train.jsonl "${COMMON[@]}" \
  --set "train.steps=$STEPS" --set train.eval_every=0 >/dev/null 2>&1
"$CLI" train quality.headroom >/dev/null 2>&1
for run in -1 1; do
  "$CLI" encode quality.headroom --run "$run" --input queries.txt --output "q$run.jsonl" 2>/dev/null
  "$CLI" encode quality.headroom --run "$run" --input corpus.txt --output "c$run.jsonl" 2>/dev/null
done
echo
echo "| retrieval (300 queries, 600 passages) | MRR@10 | Recall@100 |"
echo "|---|---|---|"
read -r m r < <("$PYTHON" "$HERE/splade_quality.py" . bm25)
echo "| BM25 (k1 0.9, b 0.4) | $m | $r |"
read -r m r < <("$PYTHON" "$HERE/splade_quality.py" . q-1.jsonl c-1.jsonl)
echo "| untuned encoder | $m | $r |"
read -r m r < <("$PYTHON" "$HERE/splade_quality.py" . q1.jsonl c1.jsonl)
echo "| fine-tuned ($STEPS steps) | $m | $r |"
