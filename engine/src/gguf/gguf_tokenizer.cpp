#include "gguf/gguf_tokenizer.h"

#include "tokenizers/byte_level.h"

#include <map>
#include <nlohmann/json.hpp>

namespace headroom::gguf {

namespace {

using nlohmann::json;

// The regexes of the Split pre-tokenizer in tokenizer.json files and the names llama.cpp
// (llama-vocab.cpp) gives the pre-tokenizers that split text the same way.
const std::map<std::string, std::string> &knownSplitRegexes() {
    static const std::map<std::string, std::string> regexes = {
        {"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| "
         "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
         "llama-bpe"},
        {"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| "
         "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
         "qwen2"},
        {"'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)", "gpt-2"},
    };
    return regexes;
}

[[noreturn]] void refuse(const std::string &source, const std::string &why) {
    throw GgufError(source + ": " + why +
                    "; llama.cpp would tokenize text differently from this tokenizer, so no GGUF "
                    "file is written");
}

void checkByteLevel(const json &byte_level, bool regex_expected, const std::string &source) {
    if (byte_level.value("add_prefix_space", false)) {
        refuse(source, "the ByteLevel pre-tokenizer adds a prefix space (add_prefix_space), "
                       "which llama.cpp's byte-level BPE does not");
    }
    if (byte_level.value("use_regex", true) != regex_expected) {
        refuse(source, std::string("the ByteLevel pre-tokenizer ") +
                           (regex_expected ? "does not split with GPT-2's regex (use_regex false)"
                                           : "splits again with GPT-2's regex after a Split"));
    }
}

std::string preTokenizerNameOf(const json &pre, const std::string &source) {
    if (!pre.is_object()) {
        refuse(source, "it has no pre-tokenizer (llama.cpp's byte-level BPE always splits text)");
    }
    const std::string type = pre.value("type", "");
    if (type == "ByteLevel") {
        checkByteLevel(pre, true, source);
        return "gpt-2";
    }
    if (type == "Metaspace") {
        refuse(source, "SentencePiece-style BPE (a Metaspace pre-tokenizer) is not exported to "
                       "GGUF yet");
    }
    const json &steps = pre.contains("pretokenizers") ? pre["pretokenizers"] : json();
    if (type != "Sequence" || !steps.is_array() || steps.size() != 2 ||
        steps[0].value("type", "") != "Split" || steps[1].value("type", "") != "ByteLevel") {
        refuse(source, "its pre-tokenizer (" + pre.dump().substr(0, 200) +
                           ") is not one of those llama.cpp knows (ByteLevel, or a Split regex "
                           "then ByteLevel)");
    }
    const json &split = steps[0];
    checkByteLevel(steps[1], false, source);
    if (split.value("behavior", "") != "Isolated" || split.value("invert", false) ||
        !split.contains("pattern") || !split["pattern"].contains("Regex")) {
        refuse(source, "its Split pre-tokenizer is not an isolating regex split");
    }
    const std::string regex = split["pattern"]["Regex"].get<std::string>();
    const auto known = knownSplitRegexes().find(regex);
    if (known == knownSplitRegexes().end()) {
        refuse(source, "llama.cpp has no pre-tokenizer name for the split regex " + regex +
                           " (known: the regexes of GPT-2, Llama 3 and Qwen2)");
    }
    return known->second;
}

// Whether the tokenizer NFC-normalizes: that changes nothing in text already composed, which
// llama.cpp (like convert_hf_to_gguf for Qwen2) accepts.
bool checkNormalizer(const json &normalizer, const std::string &source) {
    if (normalizer.is_null()) {
        return false;
    }
    if (normalizer.value("type", "") == "NFC") {
        return true;
    }
    refuse(source, "its normalizer (" + normalizer.dump().substr(0, 200) +
                       ") has no equivalent in llama.cpp's byte-level BPE");
}

void setToken(Vocabulary &vocabulary, std::int64_t id, const std::string &text, TokenType type,
              const std::string &source) {
    if (id < 0 || id >= static_cast<std::int64_t>(vocabulary.tokens.size())) {
        throw GgufError(source + ": token id " + std::to_string(id) + " (" + text +
                        ") is outside the model's vocab_size " +
                        std::to_string(vocabulary.tokens.size()));
    }
    vocabulary.tokens[static_cast<std::size_t>(id)] = text;
    vocabulary.token_types[static_cast<std::size_t>(id)] = static_cast<std::int32_t>(type);
}

void padVocabulary(Vocabulary &vocabulary, std::int64_t vocab_size) {
    vocabulary.tokens.resize(static_cast<std::size_t>(vocab_size));
    vocabulary.token_types.assign(static_cast<std::size_t>(vocab_size),
                                  static_cast<std::int32_t>(TokenType::Unused));
    for (std::int64_t id = 0; id < vocab_size; ++id) {
        vocabulary.tokens[static_cast<std::size_t>(id)] = "[PAD" + std::to_string(id) + "]";
    }
}

// The ids a TemplateProcessing post-processor puts around a single text: llama.cpp can only add
// one BOS before and one EOS after it.
void readTemplateProcessing(const json &processor, const std::string &source,
                            Vocabulary &vocabulary) {
    const json &single = processor.contains("single") ? processor["single"] : json::array();
    const json &specials =
        processor.contains("special_tokens") ? processor["special_tokens"] : json::object();
    const auto idOf = [&](const json &item) -> std::int64_t {
        const std::string name = item["SpecialToken"].value("id", "");
        if (!specials.contains(name) || !specials[name].contains("ids") ||
            specials[name]["ids"].size() != 1) {
            refuse(source,
                   "its post-processor adds the special token '" + name + "' as other than one id");
        }
        return specials[name]["ids"][0].get<std::int64_t>();
    };
    std::size_t sequences = 0;
    for (std::size_t i = 0; i < single.size(); ++i) {
        const json &item = single[i];
        if (item.contains("Sequence")) {
            ++sequences;
        } else if (item.contains("SpecialToken") && i == 0 && single.size() > 1) {
            vocabulary.add_bos = true;
            vocabulary.bos = idOf(item);
        } else if (item.contains("SpecialToken") && i + 1 == single.size() && sequences == 1) {
            vocabulary.add_eos = true;
            vocabulary.eos = idOf(item);
        } else {
            refuse(source, "its post-processor adds special tokens elsewhere than one before and "
                           "one after the text");
        }
    }
}

void readPostProcessor(const json &processor, const std::string &source, Vocabulary &vocabulary) {
    if (!processor.is_object()) {
        return;
    }
    const std::string type = processor.value("type", "");
    if (type == "Sequence" && processor.contains("processors")) {
        for (const json &step : processor["processors"]) {
            readPostProcessor(step, source, vocabulary);
        }
    } else if (type == "TemplateProcessing") {
        readTemplateProcessing(processor, source, vocabulary);
    } else if (type != "ByteLevel") {
        refuse(source, "its post-processor " + type + " has no equivalent in llama.cpp");
    }
}

} // namespace

std::string preTokenizerName(const std::string &pre_tokenizer_json, const std::string &source) {
    return preTokenizerNameOf(json::parse(pre_tokenizer_json), source);
}

Vocabulary vocabularyFromTokenizerJson(const std::string &json_text, const std::string &source,
                                       std::int64_t vocab_size) {
    json tokenizer;
    try {
        tokenizer = json::parse(json_text);
    } catch (const json::exception &error) {
        throw GgufError(source + ": not JSON: " + error.what());
    }
    const json &model = tokenizer.contains("model") ? tokenizer["model"] : json();
    if (!model.is_object() || model.value("type", "") != "BPE") {
        refuse(source, "its model is " +
                           (model.is_object() ? model.value("type", "?") : std::string("missing")) +
                           "; GGUF export supports byte-level BPE tokenizers");
    }
    if (model.value("byte_fallback", false)) {
        refuse(source, "its BPE falls back to bytes (SentencePiece-style BPE), which is not "
                       "exported to GGUF yet");
    }
    const bool nfc = checkNormalizer(
        tokenizer.contains("normalizer") ? tokenizer["normalizer"] : json(), source);
    Vocabulary vocabulary;
    vocabulary.normalizes_nfc = nfc;
    vocabulary.pre = preTokenizerNameOf(
        tokenizer.contains("pre_tokenizer") ? tokenizer["pre_tokenizer"] : json(), source);
    padVocabulary(vocabulary, vocab_size);
    for (const auto &[text, id] : model.at("vocab").items()) {
        setToken(vocabulary, id.get<std::int64_t>(), text, TokenType::Normal, source);
    }
    if (tokenizer.contains("added_tokens") && tokenizer["added_tokens"].is_array()) {
        for (const json &added : tokenizer["added_tokens"]) {
            setToken(vocabulary, added.at("id").get<std::int64_t>(),
                     added.at("content").get<std::string>(),
                     added.value("special", false) ? TokenType::Control : TokenType::UserDefined,
                     source);
        }
    }
    if (model.contains("merges")) {
        for (const json &merge : model["merges"]) {
            vocabulary.merges.push_back(merge.is_array() ? merge[0].get<std::string>() + " " +
                                                               merge[1].get<std::string>()
                                                         : merge.get<std::string>());
        }
    }
    readPostProcessor(tokenizer.contains("post_processor") ? tokenizer["post_processor"] : json(),
                      source, vocabulary);
    if (model.contains("unk_token") && model["unk_token"].is_string()) {
        const std::string unk = model["unk_token"].get<std::string>();
        for (std::size_t id = 0; id < vocabulary.tokens.size(); ++id) {
            if (vocabulary.tokens[id] == unk) {
                vocabulary.unk = static_cast<std::int64_t>(id);
                break;
            }
        }
    }
    return vocabulary;
}

Vocabulary byteTokenizerVocabulary(std::int64_t vocab_size) {
    constexpr std::int64_t kEndOfText = 256;
    Vocabulary vocabulary;
    vocabulary.pre = "gpt-2";
    padVocabulary(vocabulary, std::max<std::int64_t>(vocab_size, kEndOfText + 1));
    for (std::int64_t byte = 0; byte < kEndOfText; ++byte) {
        setToken(vocabulary, byte,
                 tokenizers::byteLevelEncode(std::string(1, static_cast<char>(byte))),
                 TokenType::Normal, "byte tokenizer");
    }
    setToken(vocabulary, kEndOfText, "<|endoftext|>", TokenType::Control, "byte tokenizer");
    vocabulary.bos = kEndOfText;
    vocabulary.eos = kEndOfText;
    return vocabulary;
}

void addVocabulary(const Vocabulary &vocabulary, Metadata &metadata) {
    metadata.setString("tokenizer.ggml.model", vocabulary.model);
    metadata.setString("tokenizer.ggml.pre", vocabulary.pre);
    metadata.setStrings("tokenizer.ggml.tokens", vocabulary.tokens);
    metadata.setI32s("tokenizer.ggml.token_type", vocabulary.token_types);
    metadata.setStrings("tokenizer.ggml.merges", vocabulary.merges);
    const auto id = [&metadata](const char *key, const std::optional<std::int64_t> &value) {
        if (value) {
            metadata.setU32(key, static_cast<std::uint32_t>(*value));
        }
    };
    id("tokenizer.ggml.bos_token_id", vocabulary.bos);
    id("tokenizer.ggml.eos_token_id", vocabulary.eos);
    id("tokenizer.ggml.eot_token_id", vocabulary.eot);
    id("tokenizer.ggml.unknown_token_id", vocabulary.unk);
    id("tokenizer.ggml.padding_token_id", vocabulary.pad);
    metadata.setBool("tokenizer.ggml.add_bos_token", vocabulary.add_bos);
    metadata.setBool("tokenizer.ggml.add_eos_token", vocabulary.add_eos);
    if (vocabulary.chat_template) {
        metadata.setString("tokenizer.chat_template", *vocabulary.chat_template);
    }
}

} // namespace headroom::gguf
