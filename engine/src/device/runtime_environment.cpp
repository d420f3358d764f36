#include <headroom/engine.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#if defined(__linux__)
#include <dlfcn.h>
#include <unistd.h>
#endif

namespace headroom {

#if defined(__linux__)
namespace {

constexpr const char *kTunedMarker = "HEADROOM_RUNTIME_TUNED";

bool cpuHasFlag(const std::string &flag) {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("flags", 0) == 0) {
            return (line + " ").find(" " + flag + " ") != std::string::npos;
        }
    }
    return false;
}

// The kernel family OpenBLAS picked for this CPU, or "" when OpenBLAS is not the BLAS.
std::string openBlasCoreName() {
    using CoreName = char *(*)();
    auto core_name = reinterpret_cast<CoreName>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
    return core_name != nullptr && core_name() != nullptr ? std::string(core_name())
                                                          : std::string();
}

bool setIfUnset(const char *name, const char *value) {
    if (std::getenv(name) != nullptr) {
        return false;
    }
    setenv(name, value, 0);
    return true;
}

} // namespace

void relaunchWithTunedRuntime(int argc, char **argv) {
    (void)argc;
    if (std::getenv(kTunedMarker) != nullptr) {
        return;
    }
    bool changed = false;
    changed |= setIfUnset("OMP_WAIT_POLICY", "PASSIVE");
    changed |= setIfUnset("MALLOC_MMAP_THRESHOLD_", "33554432");
    changed |= setIfUnset("MALLOC_TRIM_THRESHOLD_", "1073741824");
    const std::string core = openBlasCoreName();
    if (core == "Prescott" || core == "Nehalem" || core == "Sandybridge") {
        if (cpuHasFlag("avx512f")) {
            changed |= setIfUnset("OPENBLAS_CORETYPE", "SkylakeX");
        } else if (cpuHasFlag("avx2")) {
            changed |= setIfUnset("OPENBLAS_CORETYPE", "Haswell");
        }
    }
    setenv(kTunedMarker, "1", 1);
    if (changed) {
        execv("/proc/self/exe", argv);
        // exec failed: carry on untuned rather than not at all.
    }
}

#else

void relaunchWithTunedRuntime(int, char **) {}

#endif

} // namespace headroom
