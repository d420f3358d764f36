// A SentencePiece tokenizer.model (Llama 2, Mistral v0.1, TinyLlama, Gemma) read the way
// transformers' slow tokenizers (LlamaTokenizer, legacy mode) use it: added and special tokens
// are found in the raw text first, every stretch of text between them is encoded by the
// SentencePiece processor on its own, BOS/EOS come from tokenizer_config.json, and decoding
// hands each run of model pieces to SentencePiece.

#include "tokenizers/sentencepiece/sentencepiece_loader.h"
#include "tokenizers/tokenizer_impl.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

namespace headroom::tokenizers {

namespace {

using data::SentencePieceEntry;
using data::SentencePieceKind;
using data::SentencePieceModuleApi;
using data::SentencePieceRole;
using data::SentencePieceSpan;

struct Processor {
    const SentencePieceModuleApi *api = nullptr;
    std::shared_ptr<void> handle; // shared by the model and the decoder
    std::string source;
};

class SentencePieceModel final : public Model {
public:
    SentencePieceModel(Processor processor, const std::vector<SentencePieceEntry> &pieces)
        : processor_(std::move(processor)) {
        for (std::size_t id = 0; id < pieces.size(); ++id) {
            vocab_.add(pieces[id].piece, static_cast<std::int32_t>(id));
            if (pieces[id].kind == SentencePieceKind::Unknown) {
                unknown_ids_.insert(static_cast<std::int32_t>(id));
            }
        }
    }

    void tokenize(const std::string &word, std::vector<ModelToken> &out) const override {
        std::vector<SentencePieceSpan> spans;
        std::string error;
        if (!processor_.api->encodeSpans(processor_.handle.get(), word, &spans, &error)) {
            throw TokenizerError(processor_.source + ": SentencePiece could not encode: " + error);
        }
        const auto limit = static_cast<std::uint32_t>(word.size());
        for (const SentencePieceSpan &span : spans) {
            const std::uint32_t end = std::min<std::uint32_t>(span.end, limit);
            const std::uint32_t begin = std::min<std::uint32_t>(span.begin, end);
            // An unknown piece shows the text it stands for, as SentencePiece's pieces do.
            const bool unknown = unknown_ids_.count(span.id) != 0;
            out.push_back(ModelToken{span.id, begin, end, unknown && begin < end});
        }
    }

private:
    Processor processor_;
    std::set<std::int32_t> unknown_ids_;
};

// Runs of model pieces are decoded by SentencePiece (it drops the dummy-prefix space, joins
// byte pieces); added tokens between them are written as they are.
class SentencePieceDecoder final : public Decoder {
public:
    SentencePieceDecoder(Processor processor, std::set<std::string> added)
        : processor_(std::move(processor)), added_(std::move(added)) {}

    void decodeChain(std::vector<std::string> &tokens) const override {
        std::vector<std::string> out;
        std::vector<std::string> run;
        const auto flush = [&] {
            if (run.empty()) {
                return;
            }
            std::string text;
            std::string error;
            if (!processor_.api->decodePieces(processor_.handle.get(), run, &text, &error)) {
                throw TokenizerError(processor_.source +
                                     ": SentencePiece could not decode: " + error);
            }
            out.push_back(std::move(text));
            run.clear();
        };
        for (std::string &token : tokens) {
            if (added_.count(token) != 0) {
                flush();
                out.push_back(std::move(token));
            } else {
                run.push_back(std::move(token));
            }
        }
        flush();
        tokens = std::move(out);
    }

private:
    Processor processor_;
    std::set<std::string> added_;
};

struct SpecialToken {
    std::int32_t id;
    std::string token;
};

// LlamaTokenizer's build_inputs_with_special_tokens: [BOS] ids [EOS], each if asked for.
class BosEosProcessor final : public PostProcessor {
public:
    BosEosProcessor(std::optional<SpecialToken> bos, std::optional<SpecialToken> eos)
        : bos_(std::move(bos)), eos_(std::move(eos)) {}

    void process(TokenizedText &encoding, bool add_special_tokens) const override {
        if (!add_special_tokens) {
            return;
        }
        if (bos_) {
            encoding.ids.insert(encoding.ids.begin(), bos_->id);
            encoding.pieces.insert(encoding.pieces.begin(), bos_->token);
            encoding.offsets.insert(encoding.offsets.begin(), {0, 0});
            encoding.special.insert(encoding.special.begin(), true);
        }
        if (eos_) {
            encoding.ids.push_back(eos_->id);
            encoding.pieces.push_back(eos_->token);
            encoding.offsets.emplace_back(0, 0);
            encoding.special.push_back(true);
        }
    }
    std::size_t addedTokens() const override { return (bos_ ? 1 : 0) + (eos_ ? 1 : 0); }

private:
    std::optional<SpecialToken> bos_;
    std::optional<SpecialToken> eos_;
};

bool isFile(const std::filesystem::path &path) {
    std::error_code error;
    return std::filesystem::is_regular_file(path, error);
}

// A JSON file of the folder, or an empty object when it is missing or unreadable (transformers
// falls back to its defaults then, and so do we).
nlohmann::json readConfig(const std::filesystem::path &path) {
    if (!isFile(path)) {
        return nlohmann::json::object();
    }
    try {
        nlohmann::json json = nlohmann::json::parse(readFile(path.string()));
        if (json.is_object()) {
            return json;
        }
    } catch (const nlohmann::json::exception &) {
    }
    throw TokenizerError(path.string() + ": not a JSON object");
}

// "bos_token": "<s>" or {"content": "<s>", ...}.
std::optional<std::string> tokenText(const nlohmann::json &value) {
    if (value.is_string()) {
        return value.get<std::string>();
    }
    if (value.is_object() && value.contains("content") && value["content"].is_string()) {
        return value["content"].get<std::string>();
    }
    return std::nullopt;
}

bool flag(const nlohmann::json &json, const std::string &key, bool fallback) {
    const auto it = json.find(key);
    return it != json.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

bool flagOf(const nlohmann::json &entry, const char *key, bool fallback, const std::string &file,
            const std::string &where) {
    const auto it = entry.find(key);
    if (it == entry.end()) {
        return fallback;
    }
    if (!it->is_boolean()) {
        throw TokenizerError(file + ": /added_tokens_decoder/" + where + "/" + key +
                             ": expected true or false");
    }
    return it->get<bool>();
}

// tokenizer_config.json's "added_tokens_decoder": {"32000": {"content": "<pad>", ...}}.
std::vector<AddedToken> readAddedTokensDecoder(const nlohmann::json &config,
                                               const std::string &file) {
    std::vector<AddedToken> tokens;
    const auto list = config.find("added_tokens_decoder");
    if (list == config.end()) {
        return tokens;
    }
    if (!list->is_object()) {
        throw TokenizerError(file + ": /added_tokens_decoder: expected an object");
    }
    for (const auto &[key, entry] : list->items()) {
        const std::string where = "/added_tokens_decoder/" + key;
        std::size_t used = 0;
        long long id = -1;
        try {
            id = std::stoll(key, &used);
        } catch (const std::exception &) {
            used = 0;
        }
        if (used != key.size() || id < 0 || id > INT32_MAX) {
            throw TokenizerError(file + ": " + where + ": the key must be a token id");
        }
        const std::optional<std::string> content = tokenText(entry);
        if (!content || content->empty()) {
            throw TokenizerError(file + ": " + where + ": expected {\"content\": TOKEN, ...}");
        }
        AddedToken token;
        token.id = static_cast<std::int32_t>(id);
        token.content = *content;
        token.special = flagOf(entry, "special", false, file, key);
        token.single_word = flagOf(entry, "single_word", false, file, key);
        token.lstrip = flagOf(entry, "lstrip", false, file, key);
        token.rstrip = flagOf(entry, "rstrip", false, file, key);
        token.normalized = flagOf(entry, "normalized", !token.special, file, key);
        tokens.push_back(std::move(token));
    }
    return tokens;
}

Processor openProcessor(const std::string &model_path) {
    Processor processor;
    processor.source = model_path;
    try {
        processor.api = &data::sentencePieceModule();
    } catch (const std::runtime_error &error) {
        throw TokenizerError(model_path + ": " + error.what());
    }
    std::string error;
    void *handle = processor.api->load(readFile(model_path), &error);
    if (handle == nullptr) {
        throw TokenizerError(model_path + ": not a SentencePiece model (" + error + ")");
    }
    processor.handle = std::shared_ptr<void>(handle, processor.api->release);
    return processor;
}

} // namespace

std::unique_ptr<HfTokenizer::Impl> loadSentencePieceModel(const std::string &model_path) {
    namespace fs = std::filesystem;
    const fs::path folder = fs::path(model_path).parent_path();
    const nlohmann::json config = readConfig(folder / "tokenizer_config.json");
    const nlohmann::json special_map = readConfig(folder / "special_tokens_map.json");

    Processor processor = openProcessor(model_path);
    std::vector<SentencePieceEntry> pieces;
    processor.api->describe(processor.handle.get(), &pieces);
    if (pieces.empty()) {
        throw TokenizerError(model_path + ": the SentencePiece model has no pieces");
    }
    const auto roleId = [&](SentencePieceRole role) {
        return processor.api->specialId(processor.handle.get(), role);
    };

    auto impl = std::make_unique<HfTokenizer::Impl>();
    impl->source = model_path;
    auto model = std::make_unique<SentencePieceModel>(processor, pieces);
    const Vocab &vocab = model->vocab();

    std::vector<AddedToken> added =
        readAddedTokensDecoder(config, (folder / "tokenizer_config.json").string());
    std::set<std::string> known;
    for (const AddedToken &token : added) {
        known.insert(token.content);
    }
    // Special tokens named by the configs (or, without them, the model's own unk/bos/eos
    // pieces) are special added tokens too, as transformers registers them.
    const auto addSpecial = [&](const std::string &content, std::int32_t id) {
        if (content.empty() || id < 0 || known.count(content) != 0) {
            return;
        }
        AddedToken token;
        token.content = content;
        token.id = id;
        token.special = true;
        known.insert(content);
        added.push_back(std::move(token));
    };
    const auto namedToken = [&](const std::string &key) -> std::optional<std::string> {
        for (const nlohmann::json *json : {&config, &special_map}) {
            const auto it = json->find(key);
            if (it != json->end()) {
                return tokenText(*it); // null: the config says there is none
            }
        }
        return std::nullopt;
    };
    const std::pair<const char *, SentencePieceRole> roles[] = {
        {"unk_token", SentencePieceRole::Unknown},
        {"bos_token", SentencePieceRole::Bos},
        {"eos_token", SentencePieceRole::Eos},
        {"pad_token", SentencePieceRole::Pad},
    };
    std::optional<SpecialToken> bos;
    std::optional<SpecialToken> eos;
    for (const auto &[key, role] : roles) {
        const bool named = config.contains(key) || special_map.contains(key);
        std::optional<std::string> content = namedToken(key);
        if (!named) {
            const int id = roleId(role);
            if (id >= 0 && static_cast<std::size_t>(id) < pieces.size()) {
                content = pieces[static_cast<std::size_t>(id)].piece;
            }
        }
        if (!content) {
            continue;
        }
        std::optional<std::int32_t> id = vocab.find(*content);
        for (const AddedToken &token : added) {
            if (token.content == *content) {
                id = token.id;
            }
        }
        if (!id) {
            continue;
        }
        addSpecial(*content, *id);
        if (role == SentencePieceRole::Bos) {
            bos = SpecialToken{*id, *content};
        } else if (role == SentencePieceRole::Eos) {
            eos = SpecialToken{*id, *content};
        }
    }
    for (const nlohmann::json *json : {&config, &special_map}) {
        const auto extra = json->find("additional_special_tokens");
        if (extra != json->end() && extra->is_array()) {
            for (const nlohmann::json &entry : *extra) {
                if (const auto content = tokenText(entry)) {
                    if (const auto id = vocab.find(*content)) {
                        addSpecial(*content, *id);
                    }
                }
            }
        }
    }

    if (!flag(config, "add_bos_token", true)) {
        bos.reset();
    }
    if (!flag(config, "add_eos_token", false)) {
        eos.reset();
    }
    impl->post_processor = std::make_unique<BosEosProcessor>(std::move(bos), std::move(eos));
    impl->decoder = std::make_unique<SentencePieceDecoder>(processor, known);
    impl->model = std::move(model);
    impl->added.build(std::move(added), nullptr);
    return impl;
}

} // namespace headroom::tokenizers
