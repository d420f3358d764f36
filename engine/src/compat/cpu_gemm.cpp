#include "compat/cpu_gemm.h"

#include <cstdlib>
#include <cstring>
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

DnnlSgemm lookUp() {
    const char *choice = std::getenv("HEADROOM_GEMM");
    if (choice != nullptr && std::strcmp(choice, "blas") == 0) {
        return nullptr;
    }
#if defined(__linux__) || defined(__APPLE__)
    return reinterpret_cast<DnnlSgemm>(dlsym(RTLD_DEFAULT, "dnnl_sgemm"));
#else
    return nullptr;
#endif
}

DnnlSgemm sgemm() {
    static const DnnlSgemm function = lookUp();
    return function;
}

} // namespace

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
