#!/usr/bin/env bash
# Builds gpt_benchmark and runs it side by side with gpt_reference.py (the same model in
# PyTorch), taking turns, for two configurations. Prints a Markdown table; the raw JSON lines
# go to $BUILD_DIR/benchmarks/results.jsonl. About 2 minutes on 2 cores.
#
#   tests/benchmarks/run_benchmarks.sh
#   BUILD_DIR=build/other THREADS=4 tests/benchmarks/run_benchmarks.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build/release}"
PYTHON="${PYTHON:-/usr/bin/python3}"  # Debian's python3-torch; a pyenv python has no torch
THREADS="${THREADS:-$(nproc)}"
if (($# > 0)); then
  echo "usage: [BUILD_DIR=...] [THREADS=...] [PYTHON=...] $0" >&2
  exit 2
fi

if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]]; then
  cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$BUILD_DIR" --target gpt_benchmark -j"$THREADS" >/dev/null
CPP="$BUILD_DIR/tests/benchmarks/gpt_benchmark"
REFERENCE="$ROOT/tests/benchmarks/gpt_reference.py"
"$PYTHON" -c 'import torch' 2>/dev/null || { echo "$PYTHON has no torch (apt-get install python3-torch)" >&2; exit 2; }

# Both processes get the same environment (runtime_tuning.sh says why; docs/BENCHMARKS.md
# has the measurements).
source "$ROOT/tests/benchmarks/runtime_tuning.sh"
if [[ -n "$OPENBLAS_DETECTED" ]]; then
  echo "OpenBLAS core: $OPENBLAS_DETECTED${OPENBLAS_CORETYPE:+ -> $OPENBLAS_CORETYPE (OPENBLAS_CORETYPE)}" >&2
fi
echo "threads: $THREADS, OMP_WAIT_POLICY=$OMP_WAIT_POLICY," \
  "MALLOC_MMAP_THRESHOLD_=$MALLOC_MMAP_THRESHOLD_ MALLOC_TRIM_THRESHOLD_=$MALLOC_TRIM_THRESHOLD_," \
  "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-} DNNL_MAX_CPU_ISA=${DNNL_MAX_CPU_ISA:-}" >&2

RESULTS="$BUILD_DIR/benchmarks/results.jsonl"
mkdir -p "$(dirname "$RESULTS")"
: >"$RESULTS"
RING="$(mktemp -d)"
trap 'rm -rf "$RING"' EXIT

# name | model and batch options | warm-up steps, timed steps, steps per turn
CONFIGS=(
  "small|--layers 4 --heads 4 --dim 128 --seq 64 --batch 12 --vocab 257|--warmup 10 --steps 100 --turn-steps 10"
  "10M|--layers 6 --heads 6 --dim 384 --seq 256 --batch 16 --vocab 257|--warmup 2 --steps 12 --turn-steps 2"
)
# cpp-torch-adamw: the same C++ program with torch::optim::AdamW and clip_grad_norm_, to show
# what the fused optimizer contributes; cpp-blas and cpp-onednn: with the Linear layers' GEMMs
# forced to ATen's BLAS (HEADROOM_GEMM=blas) or to oneDNN (=onednn), to show what the choice
# compat::preferredCpuGemm made for "cpp" is worth on this machine.
IMPLS=(cpp python cpp-torch-adamw cpp-blas cpp-onednn)

# The processes of one configuration run at the same time but take turns, a block of steps
# each, passing a token around a ring of FIFOs: whatever else the machine is doing hits all
# of them alike. Each reports the median of its own step times.
for config in "${CONFIGS[@]}"; do
  IFS='|' read -r name model steps <<<"$config"
  count=${#IMPLS[@]}
  # The driver holds every FIFO open (read-write: such an open never waits) until the run
  # ends: a byte in a FIFO that nobody has open is dropped, and the processes open theirs
  # only after loading their libraries.
  holders=()
  for ((index = 0; index < count; ++index)); do
    rm -f "$RING/turn$index"
    mkfifo "$RING/turn$index"
    exec {holder}<>"$RING/turn$index"
    holders+=("$holder")
  done
  pids=()
  declare -A impl_of=()
  for ((index = 0; index < count; ++index)); do
    turn=(--turn-in "$RING/turn$index" --turn-out "$RING/turn$(((index + 1) % count))")
    # shellcheck disable=SC2086
    case "${IMPLS[$index]}" in
      cpp) "$CPP" $model $steps --threads "$THREADS" "${turn[@]}" >"$RING/out$index" & ;;
      cpp-torch-adamw) "$CPP" --optimizer torch $model $steps --threads "$THREADS" "${turn[@]}" >"$RING/out$index" & ;;
      cpp-blas) HEADROOM_GEMM=blas "$CPP" $model $steps --threads "$THREADS" "${turn[@]}" >"$RING/out$index" & ;;
      cpp-onednn) HEADROOM_GEMM=onednn "$CPP" $model $steps --threads "$THREADS" "${turn[@]}" >"$RING/out$index" & ;;
      python) "$PYTHON" "$REFERENCE" $model $steps --threads "$THREADS" "${turn[@]}" >"$RING/out$index" & ;;
    esac
    pids+=($!)
    impl_of[$!]="${IMPLS[$index]}"
  done
  printf t >&"${holders[0]}"
  # A process that dies would leave the others waiting for the token forever: stop them.
  while ((${#pids[@]} > 0)); do
    status=0
    wait -n -p finished "${pids[@]}" || status=$?
    if ((status != 0)); then
      echo "$name ${impl_of[$finished]} failed (exit status $status); stopping the others" >&2
      kill "${pids[@]}" 2>/dev/null || true
      exit 1
    fi
    running=()
    for pid in "${pids[@]}"; do
      [[ "$pid" == "$finished" ]] || running+=("$pid")
    done
    pids=("${running[@]}")
  done
  for holder in "${holders[@]}"; do
    exec {holder}>&-
  done
  for ((index = 0; index < count; ++index)); do
    line="$(cat "$RING/out$index")"
    echo "{\"config\":\"$name\",\"label\":\"${IMPLS[$index]}\",\"run\":$line}" >>"$RESULTS"
    echo "  $name ${IMPLS[$index]}: median step $(sed -n 's/.*"median_step_ms":\([0-9.]*\).*/\1/p' <<<"$line") ms" >&2
  done
done

"$PYTHON" "$ROOT/tests/benchmarks/summarize.py" "$RESULTS"
