#!/usr/bin/env bash
# Causal self-attention, forward + backward, per path (LibTorch 2.x's fused
# scaled_dot_product_attention vs the explicit baddbmm + softmax + bmm) and sequence length
# 512-4096 (B=1, 8 heads of 64): median time, bytes saved for backward, peak above the inputs
# (Headroom's counting CPU allocator), and the path model.attention=auto takes. Runs on
# Debian 12's LibTorch 1.13 (host, build/release; it has no fused path, so its sdpa columns
# repeat the explicit ones) and on Debian 13's LibTorch 2.6 (the root of
# ./headroom.sh test --torch2, build/torch2). One Markdown table on stdout; a few minutes on
# 2 cores after the builds.
#
#   tests/benchmarks/attention_memory.sh            both LibTorch versions, T = 512..4096
#   tests/benchmarks/attention_memory.sh --sweep    T 64..2048, D 32..128, B*H 8 and 96
#   LIBTORCH=2.6 tests/benchmarks/attention_memory.sh   one of them (1.13 or 2.6)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
LIBTORCH="${LIBTORCH:-1.13 2.6}"
THREADS="${THREADS:-$(nproc)}"
ARGS=("$@")
if (($# > 1)) || { (($# == 1)) && [[ "$1" != --sweep ]]; }; then
  echo "usage: [LIBTORCH=1.13|2.6|here] [THREADS=...] $0 [--sweep]" >&2
  exit 2
fi

# here: build and run in $BUILD_DIR with whatever LibTorch this system has (the root's
# command for 2.6).
run_here() {
  local build_dir="$1"
  if [[ ! -f "$build_dir/CMakeCache.txt" ]]; then
    cmake -S "$ROOT" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  fi
  cmake --build "$build_dir" --target attention_benchmark -j"$THREADS" >/dev/null
  # The runtime settings headroom-cli applies to itself (runtime_tuning.sh says why).
  PYTHON="${PYTHON:-/usr/bin/python3}"
  source "$ROOT/tests/benchmarks/runtime_tuning.sh"
  "$build_dir/tests/benchmarks/attention_benchmark" "${ARGS[@]}"
}

header_done=""
for version in $LIBTORCH; do
  case "$version" in
    here) run_here "${BUILD_DIR:-$ROOT/build/release}" ;;
    1.13) run_here "${BUILD_DIR:-$ROOT/build/release}" ;;
    2.6)
      "$ROOT/tests/debian13/debian13.sh" run env THREADS="$THREADS" LIBTORCH=here \
        BUILD_DIR=/src/build/torch2 tests/benchmarks/attention_memory.sh "${ARGS[@]}"
      ;;
    *)
      echo "LIBTORCH: '$version' is not 1.13, 2.6 or here" >&2
      exit 2
      ;;
  esac | if [[ -n "$header_done" ]]; then tail -n +3; else cat; fi
  header_done=1
done
