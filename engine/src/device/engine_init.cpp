#include "device/system_memory.h"

#include <headroom/engine.h>

#include <ATen/Parallel.h>

#include <cstdlib>

namespace headroom {

void initializeEngine() {
    const char *requested = std::getenv("OMP_NUM_THREADS");
    if (requested == nullptr || *requested == '\0') {
        at::set_num_threads(device::logicalCoreCount());
    }
}

} // namespace headroom
