// The only translation unit that includes SentencePiece: built as a module the engine loads
// with its own symbol scope (see headroom_spm.h for why).
#include "headroom_spm.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <sstream>
#include <string>
#include <vector>

struct hr_spm_model {
    sentencepiece::SentencePieceProcessor processor;
};

namespace {

char *copyOut(const std::string &text) {
    char *buffer = static_cast<char *>(std::malloc(text.size() + 1));
    if (buffer != nullptr) {
        std::memcpy(buffer, text.data(), text.size());
        buffer[text.size()] = '\0';
    }
    return buffer;
}

int fail(char **error, const std::string &message) {
    if (error != nullptr) {
        *error = copyOut(message);
    }
    return 1;
}

} // namespace

extern "C" {

int hr_spm_train(const char *input_path, const char *options, char **model, size_t *model_size,
                 char **error) {
    try {
        std::string serialized;
        const std::string arguments =
            std::string("--input=") + input_path + " " + (options != nullptr ? options : "");
        // model_prefix is required by the flag parser even when the model comes back in
        // memory; point it at a private temporary location and clean up afterwards.
        const std::filesystem::path prefix =
            std::filesystem::temp_directory_path() /
            ("headroom-spm-" + std::to_string(reinterpret_cast<std::uintptr_t>(&serialized)));
        const auto status = sentencepiece::SentencePieceTrainer::Train(
            arguments + " --model_prefix=" + prefix.string(), nullptr, &serialized);
        std::error_code ignored;
        std::filesystem::remove(prefix.string() + ".model", ignored);
        std::filesystem::remove(prefix.string() + ".vocab", ignored);
        if (!status.ok()) {
            return fail(error, status.ToString());
        }
        if (serialized.empty()) {
            std::ifstream file(prefix.string() + ".model", std::ios::binary);
            std::ostringstream bytes;
            bytes << file.rdbuf();
            serialized = bytes.str();
        }
        *model = static_cast<char *>(std::malloc(serialized.size()));
        if (*model == nullptr) {
            return fail(error, "out of memory");
        }
        std::memcpy(*model, serialized.data(), serialized.size());
        *model_size = serialized.size();
        return 0;
    } catch (const std::exception &exception) {
        return fail(error, exception.what());
    }
}

int hr_spm_load(const char *model, size_t model_size, hr_spm_model **out, char **error) {
    auto *loaded = new (std::nothrow) hr_spm_model;
    if (loaded == nullptr) {
        return fail(error, "out of memory");
    }
    const auto status =
        loaded->processor.LoadFromSerializedProto(absl::string_view(model, model_size));
    if (!status.ok()) {
        delete loaded;
        return fail(error, status.ToString());
    }
    *out = loaded;
    return 0;
}

void hr_spm_free_model(hr_spm_model *model) { delete model; }

int32_t hr_spm_vocab_size(const hr_spm_model *model) { return model->processor.GetPieceSize(); }

int32_t hr_spm_eos_id(const hr_spm_model *model) { return model->processor.eos_id(); }

int hr_spm_encode(const hr_spm_model *model, const char *text, size_t text_size, int32_t **ids,
                  size_t *count, char **error) {
    std::vector<int> pieces;
    const auto status = model->processor.Encode(absl::string_view(text, text_size), &pieces);
    if (!status.ok()) {
        return fail(error, status.ToString());
    }
    *ids = static_cast<int32_t *>(std::malloc(pieces.size() * sizeof(int32_t) + 1));
    if (*ids == nullptr) {
        return fail(error, "out of memory");
    }
    for (size_t i = 0; i < pieces.size(); ++i) {
        (*ids)[i] = static_cast<int32_t>(pieces[i]);
    }
    *count = pieces.size();
    return 0;
}

int hr_spm_decode(const hr_spm_model *model, const int32_t *ids, size_t count, char **text,
                  size_t *text_size, char **error) {
    const std::vector<int> pieces(ids, ids + count);
    std::string decoded;
    const auto status = model->processor.Decode(pieces, &decoded);
    if (!status.ok()) {
        return fail(error, status.ToString());
    }
    *text = copyOut(decoded);
    if (*text == nullptr) {
        return fail(error, "out of memory");
    }
    *text_size = decoded.size();
    return 0;
}

void hr_spm_free_buffer(void *buffer) { std::free(buffer); }

} // extern "C"
