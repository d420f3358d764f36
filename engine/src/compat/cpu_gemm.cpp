#include "compat/cpu_gemm.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <stdexcept>
#include <string>

#if defined(__linux__) || defined(__APPLE__)
#include <dlfcn.h>
#endif

namespace headroom::compat {

namespace {

// dnnl_sgemm from oneDNN's C API (dnnl.h, the same in oneDNN 2 and 3); looked up at run time
// because LibTorch ships no oneDNN headers and not every build exports it.
using DnnlSgemm = int (*)(char transa, char transb, std::int64_t m, std::int64_t n, std::int64_t k,
                          float alpha, const float *a, std::int64_t lda, const float *b,
                          std::int64_t ldb, float beta, float *c, std::int64_t ldc);

std::string gemmSetting() {
    const char *setting = std::getenv("HEADROOM_GEMM");
    return setting != nullptr ? setting : "";
}

void *globalSymbol(const char *name) {
#if defined(__linux__) || defined(__APPLE__)
    return dlsym(RTLD_DEFAULT, name);
#else
    (void)name;
    return nullptr;
#endif
}

DnnlSgemm lookUp() {
    if (gemmSetting() == "blas") {
        return nullptr;
    }
    return reinterpret_cast<DnnlSgemm>(globalSymbol("dnnl_sgemm"));
}

DnnlSgemm sgemm() {
    static const DnnlSgemm function = lookUp();
    return function;
}

// dnnl_get_effective_cpu_isa() (DNNL_MAX_CPU_ISA lowers it); 0 when oneDNN cannot be called.
unsigned oneDnnIsa() {
    if (sgemm() == nullptr) {
        return 0;
    }
    using EffectiveIsa = int (*)();
    const auto isa = reinterpret_cast<EffectiveIsa>(globalSymbol("dnnl_get_effective_cpu_isa"));
    // An export of sgemm without the ISA query: some ISA, not known to be AVX-512.
    return isa != nullptr ? static_cast<unsigned>(isa()) | 1u : 1u;
}

std::string openBlasCore() {
    using CoreName = char *(*)();
    const auto core_name = reinterpret_cast<CoreName>(globalSymbol("openblas_get_corename"));
    const char *name = core_name != nullptr ? core_name() : nullptr;
    return name != nullptr ? name : "";
}

} // namespace

CpuGemm chooseCpuGemm(const std::string &setting, unsigned onednn_isa,
                      const std::string &openblas_core) {
    if (setting == "blas" || onednn_isa == 0) {
        return CpuGemm::Blas;
    }
    if (setting == "onednn") {
        return CpuGemm::OneDnn;
    }
    std::string core = openblas_core;
    std::transform(core.begin(), core.end(), core.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const bool openblas_avx512 =
        core == "skylakex" || core == "cooperlake" || core == "sapphirerapids";
    const bool onednn_avx512 = (onednn_isa & kOneDnnAvx512CoreBit) != 0;
    return onednn_avx512 && !core.empty() && !openblas_avx512 ? CpuGemm::OneDnn : CpuGemm::Blas;
}

CpuGemm preferredCpuGemm() {
    static const CpuGemm choice = chooseCpuGemm(gemmSetting(), oneDnnIsa(), openBlasCore());
    return choice;
}

std::string cpuGemmDescription() {
    if (preferredCpuGemm() == CpuGemm::OneDnn) {
        return "oneDNN";
    }
    const std::string core = openBlasCore();
    return core.empty() ? "BLAS" : "BLAS (OpenBLAS " + core + " kernels)";
}

bool dnnlSgemmAvailable() {
    return sgemm() != nullptr;
}

void dnnlSgemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k,
               float alpha, const float *a, std::int64_t lda, const float *b, std::int64_t ldb,
               float beta, float *c, std::int64_t ldc) {
    const DnnlSgemm function = sgemm();
    if (function == nullptr) {
        throw std::runtime_error("oneDNN's sgemm is not available in this LibTorch");
    }
    const int status = function(transpose_a ? 'T' : 'N', transpose_b ? 'T' : 'N', m, n, k, alpha, a,
                                lda, b, ldb, beta, c, ldc);
    if (status != 0) {
        throw std::runtime_error("oneDNN sgemm failed (status " + std::to_string(status) +
                                 ") for " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                                 std::to_string(k));
    }
}

} // namespace headroom::compat
