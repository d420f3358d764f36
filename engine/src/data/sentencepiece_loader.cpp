#include "data/sentencepiece_loader.h"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#ifdef HEADROOM_WITH_SENTENCEPIECE
#include <dlfcn.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define HEADROOM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HEADROOM_ASAN 1
#endif
#endif

namespace headroom::data {
namespace {

const char *const kUseByte = "; use tokenizer=byte";

#ifdef HEADROOM_WITH_SENTENCEPIECE

struct LoadedModule {
    const SentencePieceModuleApi *api = nullptr;
    std::string error;
};

#ifdef HEADROOM_ASAN

LoadedModule loadModule() {
    LoadedModule loaded;
    loaded.error = "SentencePiece needs RTLD_DEEPBIND, which AddressSanitizer builds cannot use" +
                   std::string(kUseByte);
    return loaded;
}

#else

// Where the module may be: an explicit override, the install layout next to the executable,
// beside the executable, and the build tree this engine was built in.
std::vector<std::string> moduleCandidates() {
    if (const char *path = std::getenv("HEADROOM_SENTENCEPIECE_MODULE")) {
        return {path};
    }
    std::vector<std::string> candidates;
    std::error_code error;
    const std::filesystem::path executable = std::filesystem::read_symlink("/proc/self/exe", error);
    if (!error) {
        const std::filesystem::path dir = executable.parent_path();
        const std::filesystem::path built = HEADROOM_SENTENCEPIECE_MODULE_BUILD_PATH;
        candidates.push_back(
            (dir.parent_path() / HEADROOM_SENTENCEPIECE_MODULE_INSTALL_PATH).string());
        candidates.push_back((dir / built.filename()).string());
    }
    candidates.push_back(HEADROOM_SENTENCEPIECE_MODULE_BUILD_PATH);
    return candidates;
}

LoadedModule loadModule() {
    LoadedModule loaded;
    int flags = RTLD_NOW | RTLD_LOCAL;
#ifdef RTLD_DEEPBIND
    flags |= RTLD_DEEPBIND; // keeps SentencePiece's bundled protobuf away from LibTorch's
#endif
    std::string tried;
    for (const std::string &path : moduleCandidates()) {
        std::error_code error;
        if (!std::filesystem::exists(path, error)) {
            tried += "\n  " + path + ": not found";
            continue;
        }
        void *handle = dlopen(path.c_str(), flags);
        if (!handle) {
            tried += "\n  " + path + ": " + dlerror();
            continue;
        }
        using Entry = const SentencePieceModuleApi *(*)();
        const auto entry = reinterpret_cast<Entry>(dlsym(handle, kSentencePieceModuleEntry));
        const SentencePieceModuleApi *api = entry ? entry() : nullptr;
        if (!api || api->version != kSentencePieceModuleVersion) {
            tried += "\n  " + path + ": not a matching Headroom SentencePiece module";
            dlclose(handle);
            continue;
        }
        loaded.api = api; // stays loaded for the life of the process
        return loaded;
    }
    loaded.error =
        "the SentencePiece module could not be loaded (set HEADROOM_SENTENCEPIECE_MODULE "
        "to its path)" +
        std::string(kUseByte) + "; tried:" + tried;
    return loaded;
}

#endif // HEADROOM_ASAN
#endif // HEADROOM_WITH_SENTENCEPIECE

} // namespace

const SentencePieceModuleApi &sentencePieceModule() {
#ifdef HEADROOM_WITH_SENTENCEPIECE
    static const LoadedModule loaded = loadModule();
    if (!loaded.api) {
        throw std::runtime_error(loaded.error);
    }
    return *loaded.api;
#else
    throw std::runtime_error("this build of Headroom has no SentencePiece, so BPE and unigram "
                             "tokenizers are unavailable" +
                             std::string(kUseByte));
#endif
}

} // namespace headroom::data
