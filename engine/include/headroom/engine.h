#pragma once

namespace headroom {

// Re-executes the program once with the runtime settings LibTorch on CPU needs, when they
// are missing; call it first thing in main(). These are read by libgomp, OpenBLAS and glibc
// while they load, before main() runs, so only a fresh exec can apply them (measured in
// docs/BENCHMARKS.md):
// - OMP_WAIT_POLICY=PASSIVE: spinning OpenMP workers starve OpenBLAS's GEMM threads (a step
//   ran 4-9x slower on 2 cores);
// - OPENBLAS_CORETYPE when OpenBLAS does not recognise the CPU and falls back to its SSE3
//   kernels (a third of the GEMM speed on recent Xeons);
// - MALLOC_MMAP_THRESHOLD_/MALLOC_TRIM_THRESHOLD_: keep large blocks in the heap instead of
//   faulting them in again every step.
// Values the user set are kept. Linux only; elsewhere it returns at once.
void relaunchWithTunedRuntime(int argc, char **argv);

// Process-wide engine setup, called once from main() before anything trains.
// Uses every logical core for intra-op parallelism unless OMP_NUM_THREADS says otherwise:
// Debian's LibTorch starts with one OpenMP thread on a 2-core machine.
void initializeEngine();

} // namespace headroom
