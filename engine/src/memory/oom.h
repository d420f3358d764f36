#pragma once

#include <exception>

namespace headroom::memory {

// True for out-of-memory on any device: CUDA's and the budget allocator's
// c10::OutOfMemoryError, MPS's c10::Error "MPS backend out of memory", the default CPU
// allocator's "can't allocate memory", std::bad_alloc. Anything else is a real error and must
// not be retried.
bool isOutOfMemory(const std::exception &error);

} // namespace headroom::memory
