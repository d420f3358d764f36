#!/usr/bin/env bash
# Predicted vs measured seconds per optimizer step, per precision, on this machine: the speed
# calibration (headroom-cli devices --calibrate, in a private cache folder) and the planner's
# step-time estimate against real training steps of the GPT recipe. The precisions train in
# turns, ROUNDS times, so a shared machine's changing load hits them alike.
#
#   tests/benchmarks/step_time.sh                      (about 3 minutes on 2 cores)
#   ROUNDS=3 STEPS=8 CONFIGS="sample" tests/benchmarks/step_time.sh
#   CONFIGS="sample moe 10m moe-10m" tests/benchmarks/step_time.sh   (Mixture-of-Experts too)
#   COMPARE_CLI=/path/to/other/headroom-cli ...   also prints that build's predictions
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build/release}"
PYTHON="${PYTHON:-/usr/bin/python3}"
ROUNDS="${ROUNDS:-2}"
STEPS="${STEPS:-8}"
CONFIGS="${CONFIGS:-sample sample-ckpt 10m}"
PRECISIONS="${PRECISIONS:-fp32 bf16}"
COMPARE_CLI="${COMPARE_CLI:-}"
cmake --build "$BUILD_DIR" --target headroom-cli >/dev/null
CLI="$BUILD_DIR/app/headroom-cli"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export HEADROOM_CACHE_DIR="$work/cache"

settings_for() {
  case "$1" in
    sample|sample-ckpt) echo "" ;; # resources/sample/sample-gpt.json: 4 layers, dim 128, seq 64
    10m) echo "--set model.layers=6 --set model.heads=6 --set model.dim=384 --set model.seq_len=256 --set train.micro_batch=16" ;;
    # 4 experts, top-2, capacity factor 1.25, experts 4 x dim wide (twice the dense MLP's work)
    moe) echo "--set moe.experts=4 --set moe.top_k=2" ;;
    moe-10m) echo "$(settings_for 10m) --set moe.experts=4 --set moe.top_k=2" ;;
    *) echo "unknown configuration $1" >&2; exit 2 ;;
  esac
}
techniques_for() {
  case "$1" in
    sample-ckpt) echo "--set checkpointing=1" ;;
    *) echo "" ;;
  esac
}

for config in $CONFIGS; do
  # shellcheck disable=SC2046
  "$CLI" new "$work/$config.headroom" --recipe gpt --data "$ROOT/resources/sample/corpus.txt" \
    $(settings_for "$config") --set train.accumulation=1 --set train.eval_every=0 \
    --set train.checkpoint_every=0 --set recovery.ladder=none >/dev/null 2>&1
done

"$CLI" devices --calibrate --json >"$work/calibration.json"
grep -o 'avx512[a-z_0-9]*\|avx2\|amx[a-z_0-9]*' /proc/cpuinfo 2>/dev/null | sort -u | tr '\n' ' ' \
  >"$work/flags.txt" || true

for config in $CONFIGS; do
  for precision in $PRECISIONS; do
    # shellcheck disable=SC2046
    "$CLI" estimate "$work/$config.headroom" --json --set "precision=$precision" \
      $(techniques_for "$config") >"$work/$config.$precision.estimate.json"
    if [[ -n "$COMPARE_CLI" ]]; then
      # shellcheck disable=SC2046
      "$COMPARE_CLI" estimate "$work/$config.headroom" --json --set "precision=$precision" \
        $(techniques_for "$config") >"$work/$config.$precision.compare.json"
    fi
  done
done
for round in $(seq "$ROUNDS"); do
  for config in $CONFIGS; do
    for precision in $PRECISIONS; do
      # shellcheck disable=SC2046
      "$CLI" train "$work/$config.headroom" --steps "$STEPS" --json \
        --set "precision=$precision" $(techniques_for "$config") \
        2>>"$work/train.log" >"$work/$config.$precision.$round.jsonl" ||
        { cat "$work/train.log" >&2; exit 1; }
    done
  done
done

"$PYTHON" - "$work" "$CONFIGS" "$PRECISIONS" "$ROUNDS" <<'PY'
import glob, json, statistics, sys
work, configs, precisions, rounds = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), int(sys.argv[4])
calibration = json.load(open(f"{work}/calibration.json"))["calibration"]
print(f"CPU flags: {open(f'{work}/flags.txt').read().strip()}")
print(f"device: {calibration['device']} ({calibration['device_name']}), LibTorch "
      f"{calibration['torch_version']}, {calibration['threads']} threads, calibration took "
      f"{calibration['seconds']:.1f} s")
for p in calibration["precisions"]:
    if p["supported"]:
        print(f"  {p['precision']}: matmul {p['matmul_gflops']:.1f} GFLOP/s, attention "
              f"{p['attention_gflops']:.1f} GFLOP/s, elementwise {p['elementwise_gelems']:.2f} G/s, "
              f"training block {p.get('training_gflops', 0):.1f} GFLOP/s "
              f"(small {p.get('small_training_gflops', 0):.1f}, tall {p.get('tall_training_gflops', 0):.1f})"
              + (" (stopped early)" if p["stopped_early"] else ""))
    else:
        print(f"  {p['precision']}: unsupported ({p['unsupported_reason']})")
print()
import os
compare = os.path.exists(f"{work}/{configs[0]}.{precisions[0]}.compare.json")
def predicted_of(path, config, precision):
    document = json.load(open(path))
    wanted = {f"precision={precision}", f"checkpointing={1 if 'ckpt' in config else 0}",
              "optimizer=adamw"}
    row = next((a for a in document["plan"]["alternatives"] if wanted <= set(a["overrides"])), None)
    return row["step_seconds"] if row else 0.0
extra = " COMPARE_CLI's prediction | its error |" if compare else ""
print("| config | parameters | precision | predicted step | measured step (median) | error |" + extra)
print("|---|---|---|---|---|---|" + ("---|---|" if compare else ""))
for config in configs:
    for precision in precisions:
        document = json.load(open(f"{work}/{config}.{precision}.estimate.json"))
        techniques = document["estimate"]["techniques"]
        predicted = predicted_of(f"{work}/{config}.{precision}.estimate.json", config, precision)
        times = []
        for round in range(1, rounds + 1):
            steps = [json.loads(l) for l in open(f"{work}/{config}.{precision}.{round}.jsonl")]
            steps = [s for s in steps if s["type"] == "step"]
            # the first two steps warm up (allocator, kernel selection)
            times += [b["elapsed_s"] - a["elapsed_s"] for a, b in zip(steps[1:], steps[2:])]
        measured = statistics.median(times) if times else float("nan")
        error = (predicted - measured) / measured * 100 if predicted and times else float("nan")
        line = (f"| {config} ({techniques}) | {document['estimate']['parameters'] / 1e6:.2f} M | "
                f"{precision} | {predicted * 1000:.0f} ms | {measured * 1000:.0f} ms | {error:+.0f} % |")
        if compare:
            other = predicted_of(f"{work}/{config}.{precision}.compare.json", config, precision)
            other_error = (other - measured) / measured * 100 if other and times else float("nan")
            line += f" {other * 1000:.0f} ms | {other_error:+.0f} % |"
        print(line)
PY
