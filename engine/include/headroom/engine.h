#pragma once

namespace headroom {

// Process-wide engine setup, called once from main() before anything trains.
// Uses every logical core for intra-op parallelism unless OMP_NUM_THREADS says otherwise:
// Debian's LibTorch starts with one OpenMP thread on a 2-core machine.
void initializeEngine();

} // namespace headroom
