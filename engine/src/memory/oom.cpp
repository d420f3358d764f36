#include "memory/oom.h"

#include <c10/util/Exception.h>

#include <new>
#include <string>

namespace headroom::memory {

bool isOutOfMemory(const std::exception &error) {
    if (dynamic_cast<const c10::OutOfMemoryError *>(&error) != nullptr ||
        dynamic_cast<const std::bad_alloc *>(&error) != nullptr) {
        return true;
    }
    if (const auto *torch_error = dynamic_cast<const c10::Error *>(&error)) {
        const std::string &message = torch_error->msg();
        return message.find("MPS backend out of memory") != std::string::npos ||
               message.find("can't allocate memory") != std::string::npos ||
               message.find("CUDA out of memory") != std::string::npos;
    }
    return false;
}

} // namespace headroom::memory
