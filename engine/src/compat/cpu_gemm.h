// oneDNN's single-precision GEMM. LibTorch's CPU library links oneDNN (its mkldnn operators),
// but ATen's float32 matmul on CPU calls the system BLAS (OpenBLAS on Debian). Which of the two
// is faster for a GPT's Linear layers depends on the kernels the BLAS runs (docs/BENCHMARKS.md,
// "Which GEMM"): oneDNN's JIT kernels against OpenBLAS's AVX2 ones, OpenBLAS against oneDNN
// where OpenBLAS runs its AVX-512 kernels. Where the library carries no oneDNN (or does not
// export it) the engine stays with ATen.
#pragma once

#include <cstdint>
#include <string>

namespace headroom::compat {

enum class CpuGemm { Blas, OneDnn };

// The rule behind preferredCpuGemm, without the environment: `setting` is HEADROOM_GEMM ("",
// "blas", "onednn"), `openblas_core` what openblas_get_corename() says ("" without OpenBLAS).
// "blas" always gives Blas; otherwise OneDnn where oneDNN is present, except that without
// "onednn" OpenBLAS running AVX-512 kernels (SkylakeX, Cooperlake, SapphireRapids) keeps Blas.
CpuGemm chooseCpuGemm(const std::string &setting, bool onednn_present,
                      const std::string &openblas_core);

// The choice for this process (decided once): HEADROOM_GEMM=blas|onednn overrides the rule.
CpuGemm preferredCpuGemm();

// What serves float32 GEMMs in words, for benchmarks and logs: "oneDNN" or "BLAS (OpenBLAS
// Cooperlake kernels)".
std::string cpuGemmDescription();

// True when oneDNN's sgemm can be called at all (exported by this LibTorch, HEADROOM_GEMM not
// "blas"); dnnlSgemm works whenever this is true, whatever preferredCpuGemm says.
bool dnnlSgemmAvailable();

// Row-major C[m, n] = alpha * op(A) * op(B) + beta * C, op transposing when asked; threads as
// OpenMP (at::set_num_threads) allows. Throws std::runtime_error when oneDNN refuses.
void dnnlSgemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k,
               float alpha, const float *a, std::int64_t lda, const float *b, std::int64_t ldb,
               float beta, float *c, std::int64_t ldc);

} // namespace headroom::compat
