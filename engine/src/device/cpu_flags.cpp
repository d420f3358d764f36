#include "device/cpu_flags.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace headroom::device {

namespace {

bool isVectorFlag(const std::string &flag) {
    static const char *const prefixes[] = {"avx", "amx",  "fma",  "f16c", "sse4",   "asimd",
                                           "sve", "bf16", "i8mm", "fphp", "asimdhp"};
    return std::any_of(std::begin(prefixes), std::end(prefixes),
                       [&](const char *prefix) { return flag.rfind(prefix, 0) == 0; });
}

} // namespace

std::vector<std::string> vectorFlagsOf(const std::string &flags_line) {
    std::vector<std::string> flags;
    std::istringstream words(flags_line);
    std::string word;
    while (words >> word) {
        if (isVectorFlag(word) && std::find(flags.begin(), flags.end(), word) == flags.end()) {
            flags.push_back(word);
        }
    }
    std::sort(flags.begin(), flags.end());
    return flags;
}

std::vector<std::string> readCpuVectorFlags() {
#if defined(__linux__)
    std::ifstream file("/proc/cpuinfo");
    std::string line;
    while (std::getline(file, line)) {
        if (line.rfind("flags", 0) == 0 || line.rfind("Features", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos) {
                return vectorFlagsOf(line.substr(colon + 1));
            }
        }
    }
#endif
    return {};
}

} // namespace headroom::device
