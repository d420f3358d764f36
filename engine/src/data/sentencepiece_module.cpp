#include "data/sentencepiece_module.h"

#include "../../sentencepiece/headroom_spm.h"

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <stdexcept>

#if !defined(_WIN32)
#include <dlfcn.h>
#endif

namespace headroom::data {

struct SentencePieceModule::Functions {
    decltype(&hr_spm_train) train = nullptr;
    decltype(&hr_spm_load) load = nullptr;
    decltype(&hr_spm_free_model) free_model = nullptr;
    decltype(&hr_spm_vocab_size) vocab_size = nullptr;
    decltype(&hr_spm_eos_id) eos_id = nullptr;
    decltype(&hr_spm_encode) encode = nullptr;
    decltype(&hr_spm_decode) decode = nullptr;
    decltype(&hr_spm_free_buffer) free_buffer = nullptr;
};

namespace {

#if defined(__APPLE__)
constexpr const char *kModuleName = "libheadroom_spm.so";
#else
constexpr const char *kModuleName = "libheadroom_spm.so";
#endif

std::filesystem::path executableFolder() {
#if defined(__linux__)
    std::error_code error;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
    if (!error) {
        return exe.parent_path();
    }
#endif
    return {};
}

// Where the module may be: an explicit override, the installed layout, the build tree.
std::vector<std::string> candidatePaths() {
    std::vector<std::string> paths;
    if (const char *override_path = std::getenv("HEADROOM_SPM_MODULE")) {
        paths.emplace_back(override_path);
    }
    const std::filesystem::path folder = executableFolder();
    if (!folder.empty()) {
        paths.push_back((folder / ".." / "lib" / "headroom" / kModuleName).string());
        paths.push_back((folder / kModuleName).string());
    }
#if defined(HEADROOM_SPM_BUILD_PATH)
    paths.emplace_back(HEADROOM_SPM_BUILD_PATH);
#endif
    return paths;
}

struct Loaded {
    SentencePieceModule::Functions functions;
    std::string error;
};

Loaded loadModule() {
    Loaded loaded;
#if !defined(HEADROOM_WITH_SENTENCEPIECE) || defined(_WIN32)
    loaded.error = "this Headroom build has no SentencePiece; use tokenizer=byte";
#else
    int flags = RTLD_NOW | RTLD_LOCAL;
#if defined(RTLD_DEEPBIND) && !defined(__SANITIZE_ADDRESS__)
    flags |= RTLD_DEEPBIND;
#endif
    void *handle = nullptr;
    std::string tried;
    for (const std::string &path : candidatePaths()) {
        if (!std::filesystem::exists(path)) {
            tried += " " + path;
            continue;
        }
        handle = dlopen(path.c_str(), flags);
        if (handle == nullptr) {
            loaded.error = std::string("cannot load the SentencePiece module: ") + dlerror();
            return loaded;
        }
        break;
    }
    if (handle == nullptr) {
        loaded.error = "the SentencePiece module (" + std::string(kModuleName) +
                       ") is missing; looked in:" + tried + ". Use tokenizer=byte";
        return loaded;
    }
    auto resolve = [&](auto &slot, const char *name) {
        slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(dlsym(handle, name));
        if (slot == nullptr && loaded.error.empty()) {
            loaded.error = std::string("the SentencePiece module lacks ") + name;
        }
    };
    SentencePieceModule::Functions &f = loaded.functions;
    resolve(f.train, "hr_spm_train");
    resolve(f.load, "hr_spm_load");
    resolve(f.free_model, "hr_spm_free_model");
    resolve(f.vocab_size, "hr_spm_vocab_size");
    resolve(f.eos_id, "hr_spm_eos_id");
    resolve(f.encode, "hr_spm_encode");
    resolve(f.decode, "hr_spm_decode");
    resolve(f.free_buffer, "hr_spm_free_buffer");
#endif
    return loaded;
}

const Loaded &loadedModule() {
    static const Loaded loaded = loadModule();
    return loaded;
}

class ModuleModel final : public SentencePieceModule::Model {
public:
    ModuleModel(const SentencePieceModule::Functions &functions, hr_spm_model *model)
        : functions_(functions), model_(model) {}
    ~ModuleModel() override { functions_.free_model(model_); }

    std::int32_t vocabSize() const override { return functions_.vocab_size(model_); }
    std::int32_t eosId() const override { return functions_.eos_id(model_); }

    std::vector<std::int32_t> encode(const std::string &text) const override {
        std::int32_t *ids = nullptr;
        std::size_t count = 0;
        char *error = nullptr;
        if (functions_.encode(model_, text.data(), text.size(), &ids, &count, &error) != 0) {
            throw std::runtime_error("SentencePiece cannot encode: " + take(error));
        }
        std::vector<std::int32_t> result(ids, ids + count);
        functions_.free_buffer(ids);
        return result;
    }

    std::string decode(const std::vector<std::int32_t> &ids) const override {
        char *text = nullptr;
        std::size_t size = 0;
        char *error = nullptr;
        if (functions_.decode(model_, ids.data(), ids.size(), &text, &size, &error) != 0) {
            throw std::runtime_error("SentencePiece cannot decode: " + take(error));
        }
        std::string result(text, size);
        functions_.free_buffer(text);
        return result;
    }

private:
    std::string take(char *error) const {
        std::string message = error != nullptr ? error : "unknown error";
        functions_.free_buffer(error);
        return message;
    }

    const SentencePieceModule::Functions &functions_;
    hr_spm_model *model_;
};

} // namespace

bool SentencePieceModule::available() { return loadedModule().error.empty(); }

const SentencePieceModule &SentencePieceModule::instance() {
    const Loaded &loaded = loadedModule();
    if (!loaded.error.empty()) {
        throw std::runtime_error(loaded.error);
    }
    static const SentencePieceModule module(&loaded.functions);
    return module;
}

std::string SentencePieceModule::train(const std::string &sentences_path,
                                       const std::string &options) const {
    char *model = nullptr;
    std::size_t size = 0;
    char *error = nullptr;
    if (functions_->train(sentences_path.c_str(), options.c_str(), &model, &size, &error) != 0) {
        std::string message = error != nullptr ? error : "unknown error";
        functions_->free_buffer(error);
        throw std::runtime_error("SentencePiece training failed: " + message);
    }
    std::string serialized(model, size);
    functions_->free_buffer(model);
    return serialized;
}

std::unique_ptr<SentencePieceModule::Model>
SentencePieceModule::load(const std::string &serialized) const {
    hr_spm_model *model = nullptr;
    char *error = nullptr;
    if (functions_->load(serialized.data(), serialized.size(), &model, &error) != 0) {
        std::string message = error != nullptr ? error : "unknown error";
        functions_->free_buffer(error);
        throw std::runtime_error("cannot load the SentencePiece model: " + message);
    }
    return std::make_unique<ModuleModel>(*functions_, model);
}

} // namespace headroom::data
