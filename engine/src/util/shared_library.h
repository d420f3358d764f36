#pragma once

// Loading a shared library at run time, and finding the running executable, on Linux, macOS
// and Windows: the one place for dlopen / LoadLibrary and /proc/self/exe /
// _NSGetExecutablePath / GetModuleFileName.

#include <filesystem>
#include <string>

namespace headroom::util {

// The running executable, empty when the platform cannot say.
std::filesystem::path executablePath();

// Opens a library whose symbols stay private to it: RTLD_LOCAL (and RTLD_DEEPBIND on Linux,
// so its own dependencies bind to each other first), LoadLibraryEx with the library's own
// folder searched for its DLLs on Windows. Returns nullptr and sets `error` on failure.
void *openPrivateLibrary(const std::filesystem::path &path, std::string &error);
void *librarySymbol(void *library, const char *name);
void closeLibrary(void *library);

} // namespace headroom::util
