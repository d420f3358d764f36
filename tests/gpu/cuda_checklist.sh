#!/usr/bin/env bash
# The CUDA checklist, one command, on a machine with an NVIDIA GPU and a CUDA build of LibTorch
# (a PyTorch wheel's, or Debian 13's libtorch-cuda-dev). Builds the engine and headroom-cli
# without the GUI (build/headless), then runs tests/gpu/cuda_checklist.py, which prints a table:
# real CUDA OOM recovered under memory.budget=8GiB with identical sample digests, fp16 with the
# loss scaler, bf16, optimizer offload, estimator vs measured CUDA peak, tok/s and MFU of a
# GPT-2 124M-shaped model, and with 2 or more GPUs `train --nproc 2` over NCCL against one
# process (losses, and an out-of-memory error on rank 1). About 10 minutes on an H100.
#
#   tests/gpu/cuda_checklist.sh [--only oom,fp16,...]
#
# Environment: HEADROOM_BUILD_DIR (default build/headless), CMAKE_PREFIX_PATH (LibTorch; default:
# the installed PyTorch's torch.utils.cmake_prefix_path when python3 has torch).
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build_dir="${HEADROOM_BUILD_DIR:-$repo_root/build/headless}"
jobs="${HEADROOM_JOBS:-$(nproc 2>/dev/null || echo 2)}"

if [ -z "${CMAKE_PREFIX_PATH:-}" ] && python3 -c 'import torch' 2>/dev/null; then
  CMAKE_PREFIX_PATH="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')"
  export CMAKE_PREFIX_PATH
fi
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  cmake -S "$repo_root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHEADROOM_GUI=OFF \
    -DHEADROOM_REQUIRE_CUDA=ON
fi
cmake --build "$build_dir" --parallel "$jobs" --target headroom-cli
exec python3 "$repo_root/tests/gpu/cuda_checklist.py" "$build_dir/app/headroom-cli" "$@"
