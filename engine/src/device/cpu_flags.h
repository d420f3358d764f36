#pragma once

#include <string>
#include <vector>

namespace headroom::device {

// The CPU's vector-instruction flags that decide matmul speed per precision ("avx2",
// "avx512f", "avx512_bf16", "amx_bf16", "fma"; on ARM "asimd", "bf16", "sve", ...), sorted.
// From /proc/cpuinfo on Linux; empty elsewhere.
std::vector<std::string> readCpuVectorFlags();

// The same filter over one "flags" (x86) or "Features" (ARM) line's value, for tests.
std::vector<std::string> vectorFlagsOf(const std::string &flags_line);

} // namespace headroom::device
