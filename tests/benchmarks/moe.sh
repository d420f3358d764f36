#!/usr/bin/env bash
# Mixture-of-Experts benchmarks (issue #21), one command, Markdown tables on stdout:
#  1. training speed of a 4-expert top-2 GPT in Headroom (gpt_benchmark --experts) against the
#     same model in PyTorch (gpt_reference.py + moe_reference.py, same LibTorch build) and
#     against the dense Headroom GPT with the same active parameters per token, side by side in
#     turns (as run_benchmarks.sh);
#  2. peak memory of one MoE layer's forward + backward, sort/gather dispatch vs a dense-mask
#     layer, at 4 and 16 experts (moe_benchmark dispatch);
#  3. the largest MoE GPT that trains under memory.budget=1GiB with and without the
#     techniques (moe_benchmark capacity).
# About 10 minutes on 2 cores. Raw JSON lines of part 1: $BUILD_DIR/benchmarks/moe.jsonl.
#
#   tests/benchmarks/moe.sh
#   PARTS="speed dispatch" CONFIGS="small" THREADS=2 tests/benchmarks/moe.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build/release}"
PYTHON="${PYTHON:-/usr/bin/python3}" # Debian's python3-torch
THREADS="${THREADS:-$(nproc)}"
PARTS="${PARTS:-speed dispatch capacity}"
CONFIGS="${CONFIGS:-small small-h4d 10M}"
CAPACITY_STEPS="${CAPACITY_STEPS:-3}"
if (($# > 0)); then
  echo "usage: [BUILD_DIR=...] [THREADS=...] [PARTS=...] [CONFIGS=...] $0" >&2
  exit 2
fi
"$PYTHON" -c 'import torch' 2>/dev/null || { echo "$PYTHON has no torch (apt-get install python3-torch)" >&2; exit 2; }
if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]]; then
  cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$BUILD_DIR" --target gpt_benchmark moe_benchmark -j"$THREADS" >/dev/null
CPP="$BUILD_DIR/tests/benchmarks/gpt_benchmark"
REFERENCE="$ROOT/tests/benchmarks/gpt_reference.py"

# The runtime settings of run_benchmarks.sh (docs/BENCHMARKS.md explains each), for both sides.
source "$ROOT/tests/benchmarks/runtime_tuning.sh"

echo "CPU: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1), $(nproc) cores, threads $THREADS"
echo "CPU flags: $(grep -o 'avx512[a-z_0-9]*\|avx2\|amx[a-z_0-9]*' /proc/cpuinfo | sort -u | tr '\n' ' ')"
echo

# name | model and batch | MoE options | steps | impls (cpp-moe, python-moe, cpp-dense)
# expert hidden 2 x dim with top-2: the same active parameters per token as the dense GPT of
# the shape (its MLP is 4 x dim wide); small-h4d keeps the default 4 x dim experts.
moe_config() {
  case "$1" in
    small) echo "--layers 4 --heads 4 --dim 128 --seq 64 --batch 12 --vocab 257|--experts 4 --top-k 2 --capacity-factor 1.25 --expert-hidden 256|--warmup 10 --steps 100 --turn-steps 10|cpp-moe python-moe cpp-dense" ;;
    small-h4d) echo "--layers 4 --heads 4 --dim 128 --seq 64 --batch 12 --vocab 257|--experts 4 --top-k 2 --capacity-factor 1.25|--warmup 10 --steps 60 --turn-steps 10|cpp-moe python-moe" ;;
    10M) echo "--layers 6 --heads 6 --dim 384 --seq 256 --batch 16 --vocab 257|--experts 4 --top-k 2 --capacity-factor 1.25 --expert-hidden 768|--warmup 2 --steps 10 --turn-steps 2|cpp-moe python-moe cpp-dense" ;;
    *) echo "unknown configuration $1" >&2; exit 2 ;;
  esac
}

speed() {
  local results="$BUILD_DIR/benchmarks/moe.jsonl" ring
  mkdir -p "$(dirname "$results")"
  : >"$results"
  ring="$(mktemp -d)"
  for name in $CONFIGS; do
    IFS='|' read -r model moe steps impl_list <<<"$(moe_config "$name")"
    read -r -a impls <<<"$impl_list"
    local count=${#impls[@]} holders=() pids=() index holder
    # The processes take turns, a block of steps each, passing a token around a ring of FIFOs
    # that this shell holds open (see run_benchmarks.sh).
    for ((index = 0; index < count; ++index)); do
      rm -f "$ring/turn$index"
      mkfifo "$ring/turn$index"
      exec {holder}<>"$ring/turn$index"
      holders+=("$holder")
    done
    for ((index = 0; index < count; ++index)); do
      local turn=(--turn-in "$ring/turn$index" --turn-out "$ring/turn$(((index + 1) % count))")
      # shellcheck disable=SC2086
      case "${impls[$index]}" in
        cpp-moe) "$CPP" $model $moe $steps --threads "$THREADS" "${turn[@]}" >"$ring/out$index" & ;;
        python-moe) "$PYTHON" "$REFERENCE" $model $moe $steps --threads "$THREADS" "${turn[@]}" >"$ring/out$index" & ;;
        cpp-dense) "$CPP" $model $steps --threads "$THREADS" "${turn[@]}" >"$ring/out$index" & ;;
      esac
      pids+=($!)
    done
    printf t >&"${holders[0]}"
    local failed=0
    for pid in "${pids[@]}"; do
      wait "$pid" || failed=1
    done
    for holder in "${holders[@]}"; do
      exec {holder}>&-
    done
    if ((failed)); then
      echo "$name: a benchmark process failed" >&2
      rm -rf "$ring"
      exit 1
    fi
    for ((index = 0; index < count; ++index)); do
      echo "{\"config\":\"$name\",\"impl\":\"${impls[$index]}\",\"run\":$(cat "$ring/out$index")}" >>"$results"
    done
  done
  rm -rf "$ring"
  "$PYTHON" - "$results" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
print("Training speed, median step (tokens/s); the processes of a configuration ran in turns.\n")
print("| config | impl | parameters | active | tokens/s | median step | first / last loss | peak RSS |")
print("|---|---|---|---|---|---|---|---|")
by = {}
for row in rows:
    run = row["run"]
    by[(row["config"], row["impl"])] = run
    print(f"| {row['config']} | {row['impl']} | {run['params'] / 1e6:.2f} M | "
          f"{run['active_params'] / 1e6:.2f} M | {run['tokens_per_s_median_step']:.0f} | "
          f"{run['median_step_ms']:.1f} ms | {run['first_loss']:.4f} / {run['last_loss']:.4f} | "
          f"{run['peak_rss_kib'] / 1024:.0f} MiB |")
print()
for config in dict.fromkeys(row["config"] for row in rows):
    moe = by.get((config, "cpp-moe"))
    parts = []
    for other, label in (("python-moe", "Headroom MoE / PyTorch MoE"),
                         ("cpp-dense", "Headroom MoE / Headroom dense (same active parameters)")):
        if moe and (config, other) in by:
            ratio = moe["tokens_per_s_median_step"] / by[(config, other)]["tokens_per_s_median_step"]
            parts.append(f"{label}: {ratio:.2f}x")
    print(f"- {config}: " + "; ".join(parts))
print()
PY
}

for part in $PARTS; do
  case "$part" in
    speed) speed ;;
    dispatch) "$BUILD_DIR/tests/benchmarks/moe_benchmark" dispatch; echo ;;
    capacity) "$BUILD_DIR/tests/benchmarks/moe_benchmark" capacity "$CAPACITY_STEPS"; echo ;;
    *) echo "unknown part $part (speed, dispatch, capacity)" >&2; exit 2 ;;
  esac
done
