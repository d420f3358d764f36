// oneDNN's single-precision GEMM. LibTorch's CPU library links oneDNN (its mkldnn operators),
// but ATen's float32 matmul on CPU calls the system BLAS (OpenBLAS on Debian); oneDNN's JIT
// kernels were faster on the shapes of a GPT's Linear layers here (docs/BENCHMARKS.md). Where
// the library carries no oneDNN (or does not export it) the engine stays with ATen.
#pragma once

#include <cstdint>

namespace headroom::compat {

// True when oneDNN's sgemm can be called and HEADROOM_GEMM is not "blas" (the way to compare
// with, or fall back to, ATen's BLAS path).
bool dnnlSgemmAvailable();

// Row-major C[m, n] = alpha * op(A) * op(B) + beta * C, op transposing when asked; threads as
// OpenMP (at::set_num_threads) allows. Throws std::runtime_error when oneDNN refuses.
void dnnlSgemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k,
               float alpha, const float *a, std::int64_t lda, const float *b, std::int64_t ldb,
               float beta, float *c, std::int64_t ldc);

} // namespace headroom::compat
