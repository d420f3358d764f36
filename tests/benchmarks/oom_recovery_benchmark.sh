#!/usr/bin/env bash
# Cost of an out-of-memory recovery: the time from the OOM to the end of the recovered
# optimizer step, against the same step's own compute at the recovered micro-batch.
#
#   tests/benchmarks/oom_recovery_benchmark.sh          (about 30 s after the build)
#
# headroom-cli trains the sample corpus (GPT 4 layers, dim 128, seq 64, dropout 0) with an
# effective batch of 32 at micro-batch 32. HEADROOM_FAILPOINT makes the first sizeable
# allocation of steps 10, 20 and 30 fail with a real c10::OutOfMemoryError, so the OOM comes at
# the very start of the step: the step's duration is then "from the OOM to the end". Each
# recovery halves the micro-batch (32 -> 16 -> 8 -> 4). The table compares each recovered
# step with the median of the next five steps, which run at the new micro-batch on the same
# number of samples. Target: at most 1.2x.
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
"$CLI" new "$work/bench.headroom" --recipe gpt --data "$ROOT/resources/sample/corpus.txt" \
  --set model.dropout=0 --set train.micro_batch=32 --set train.steps=40 \
  --set train.eval_every=0 --set train.checkpoint_every=0 >/dev/null 2>&1
HEADROOM_FAILPOINT="oom@step:10,oom@step:20,oom@step:30" \
  "$CLI" train "$work/bench.headroom" --json 2>/dev/null >"$work/steps.jsonl"

"$PYTHON" - "$work/steps.jsonl" <<'PY'
import json, statistics, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
steps = {l["step"]: l for l in lines if l["type"] == "step"}
events = [l for l in lines if l["type"] == "event" and l["kind"] == "oom_recovered"]
def seconds(step):
    s = steps[step]
    return (s["micro_batch"] * s["accumulation"]) / s["samples_per_s"]
print("| step | micro-batch | recovered step (ms) | next 5 steps, median (ms) | ratio |")
print("|---|---|---|---|---|")
ratios = []
for event in events:
    n = event["step"]
    recovered = seconds(n)
    following = statistics.median(seconds(k) for k in range(n + 1, n + 6))
    ratios.append(recovered / following)
    print(f"| {n} | {event['from']} -> {event['to']} | {recovered*1e3:.1f} | {following*1e3:.1f} | {recovered/following:.2f}x |")
print(f"\nworst ratio {max(ratios):.2f}x (target <= 1.20x)")
PY
