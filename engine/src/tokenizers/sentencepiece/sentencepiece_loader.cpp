#include "tokenizers/sentencepiece/sentencepiece_loader.h"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#ifdef HEADROOM_WITH_SENTENCEPIECE
#include "util/shared_library.h"
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

// Where the module may be: an explicit override, the install layout relative to the
// executable's folder (../lib/headroom on Linux and Windows, ../Frameworks/headroom in the
// macOS bundle), beside the executable, and the build tree this engine was built in.
std::vector<std::filesystem::path> moduleCandidates() {
    if (const char *path = std::getenv("HEADROOM_SENTENCEPIECE_MODULE")) {
        return {path};
    }
    std::vector<std::filesystem::path> candidates;
    const std::filesystem::path executable = util::executablePath();
    if (!executable.empty()) {
        const std::filesystem::path dir = executable.parent_path();
        const std::filesystem::path built = HEADROOM_SENTENCEPIECE_MODULE_BUILD_PATH;
        candidates.push_back((dir / HEADROOM_SENTENCEPIECE_MODULE_INSTALL_PATH).lexically_normal());
        candidates.push_back(dir / built.filename());
    }
    candidates.emplace_back(HEADROOM_SENTENCEPIECE_MODULE_BUILD_PATH);
    return candidates;
}

LoadedModule loadModule() {
    LoadedModule loaded;
    std::string tried;
    for (const std::filesystem::path &path : moduleCandidates()) {
        std::error_code error;
        if (!std::filesystem::exists(path, error)) {
            tried += "\n  " + path.string() + ": not found";
            continue;
        }
        // Private symbols keep SentencePiece's bundled protobuf away from LibTorch's.
        std::string open_error;
        void *handle = util::openPrivateLibrary(path, open_error);
        if (!handle) {
            tried += "\n  " + path.string() + ": " + open_error;
            continue;
        }
        using Entry = const SentencePieceModuleApi *(*)();
        const auto entry =
            reinterpret_cast<Entry>(util::librarySymbol(handle, kSentencePieceModuleEntry));
        const SentencePieceModuleApi *api = entry ? entry() : nullptr;
        if (!api || api->version != kSentencePieceModuleVersion) {
            tried += "\n  " + path.string() + ": not a matching Headroom SentencePiece module";
            util::closeLibrary(handle);
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
