# Sourced by the benchmark scripts: the runtime settings headroom-cli applies to itself
# (engine/src/device/runtime_environment.cpp), for both sides of a comparison. Needs $PYTHON.
# - passive OpenMP waiting: spinning workers starve OpenBLAS's threads;
# - OpenBLAS 0.3.21 does not know recent Xeons and falls back to its Prescott (SSE3) kernels,
#   a third of the GEMM speed: name the core type from the CPU's instruction sets;
# - glibc hands large freed blocks back to the kernel and faults them in again on the next
#   step: keep blocks up to 32 MiB in the heap and do not trim it.
# Sets OPENBLAS_DETECTED to the core OpenBLAS reported.
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"
export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-33554432}"
export MALLOC_TRIM_THRESHOLD_="${MALLOC_TRIM_THRESHOLD_:-1073741824}"
OPENBLAS_DETECTED=""
if [[ -z "${OPENBLAS_CORETYPE:-}" ]]; then
  OPENBLAS_DETECTED="$(OPENBLAS_VERBOSE=2 "$PYTHON" -c 'import torch; torch.ones(64, 64) @ torch.ones(64, 64)' 2>&1 |
                       sed -n 's/^Core: //p' | head -n 1)"
  if [[ "$OPENBLAS_DETECTED" == "Prescott" || "$OPENBLAS_DETECTED" == "Nehalem" ||
        "$OPENBLAS_DETECTED" == "Sandybridge" ]]; then
    if grep -qw avx512f /proc/cpuinfo; then
      export OPENBLAS_CORETYPE=SkylakeX
    elif grep -qw avx2 /proc/cpuinfo; then
      export OPENBLAS_CORETYPE=Haswell
    fi
  fi
fi
