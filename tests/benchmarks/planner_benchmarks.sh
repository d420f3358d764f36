#!/usr/bin/env bash
# The planner's benchmarks (issue #6), one after the other, each printing a Markdown table:
# - estimator_benchmark: predicted vs measured peak on 15 configurations larger than the
#   test grid's, and the in-process time of estimate and plan (about 5 minutes on 2 cores);
# - capacity_benchmark: under memory.budget=1GiB on the CPU, the largest GPT (seq 256,
#   effective batch 16) that trains STEPS steps plainly vs with the planner's plan (the
#   planner's side trains a ~100 M-parameter model: about 1 h for 50 steps on 2 cores).
#
#   tests/benchmarks/planner_benchmarks.sh                 (both, STEPS=50)
#   STEPS=5 BENCHMARKS=capacity tests/benchmarks/planner_benchmarks.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build/release}"
STEPS="${STEPS:-50}"
BENCHMARKS="${BENCHMARKS:-estimator capacity}"
if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]]; then
  cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
targets=()
for name in $BENCHMARKS; do targets+=("${name}_benchmark"); done
cmake --build "$BUILD_DIR" --target "${targets[@]}" >/dev/null
for name in $BENCHMARKS; do
  case "$name" in
    estimator) "$BUILD_DIR/tests/benchmarks/estimator_benchmark" ;;
    capacity) "$BUILD_DIR/tests/benchmarks/capacity_benchmark" "$STEPS" ;;
    *) echo "unknown benchmark $name (estimator, capacity)" >&2; exit 2 ;;
  esac
  echo
done
