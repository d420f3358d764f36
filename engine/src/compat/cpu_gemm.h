// oneDNN's single-precision GEMM. LibTorch's CPU library links oneDNN (its mkldnn operators),
// but ATen's float32 matmul on CPU calls the system BLAS (OpenBLAS on Debian). oneDNN is the
// faster of the two for a GPT's Linear layers only when it runs wider vector kernels than the
// BLAS: AVX-512 against OpenBLAS's AVX2 kernels on an AVX-512 CPU (what OPENBLAS_CORETYPE=Haswell
// gives). With the same width on both sides ATen's BLAS was as fast or faster
// (docs/BENCHMARKS.md, "Which GEMM"). Where the library carries no oneDNN (or does not export
// it) the engine stays with ATen.
#pragma once

#include <cstdint>
#include <string>

namespace headroom::compat {

enum class CpuGemm { Blas, OneDnn };

// The rule behind preferredCpuGemm, without the environment: `setting` is HEADROOM_GEMM ("",
// "blas", "onednn"); `onednn_isa` what dnnl_get_effective_cpu_isa() returns (0 without
// oneDNN), `openblas_core` what openblas_get_corename() says ("" without OpenBLAS). "blas" or
// no oneDNN gives Blas, "onednn" OneDnn; otherwise OneDnn only where oneDNN runs AVX-512 and
// the BLAS is OpenBLAS on narrower kernels than its SkylakeX/Cooperlake/SapphireRapids ones.
CpuGemm chooseCpuGemm(const std::string &setting, unsigned onednn_isa,
                      const std::string &openblas_core);

// oneDNN's dnnl_cpu_isa_t values share this bit for every AVX-512 core ISA (avx512_core 0x27,
// _vnni 0x67, _bf16 0xe7, _amx 0x3e7, oneDNN 2 and 3); AVX2 (0x7) and AVX2-VNNI (0x407) lack it.
constexpr unsigned kOneDnnAvx512CoreBit = 0x20;

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
