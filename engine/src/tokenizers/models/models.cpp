#include "tokenizers/models/models.h"

#include <stdexcept>

namespace headroom::tokenizers {

void Vocab::add(const std::string &token, std::int32_t id) {
    to_id_[token] = id;
    if (id < 0) {
        return;
    }
    const auto index = static_cast<std::size_t>(id);
    if (index >= to_token_.size() && index > 2 * to_id_.size() + 4096) {
        sparse_[id] = token;
        return;
    }
    if (index >= to_token_.size()) {
        to_token_.resize(index + 1);
        has_.resize(index + 1, false);
    }
    to_token_[index] = token;
    has_[index] = true;
}

namespace {

Vocab readVocab(const JsonNode &node) {
    node.expectObject();
    Vocab vocab;
    for (const auto &[token, id] : node.json().items()) {
        const JsonNode entry(id, node.file(), node.path() + "/" + token);
        const std::int64_t value = entry.integer();
        if (value < 0 || value >= (std::int64_t{1} << 31) - 1) {
            entry.fail("token id out of range");
        }
        vocab.add(token, static_cast<std::int32_t>(value));
    }
    return vocab;
}

std::unique_ptr<Model> readBpe(const JsonNode &node) {
    BpeOptions options;
    if (node.has("unk_token")) {
        options.unk_token = node.at("unk_token").string();
    }
    options.continuing_subword_prefix = node.string("continuing_subword_prefix", "");
    options.end_of_word_suffix = node.string("end_of_word_suffix", "");
    options.fuse_unk = node.boolean("fuse_unk", false);
    options.byte_fallback = node.boolean("byte_fallback", false);
    options.ignore_merges = node.boolean("ignore_merges", false);
    Vocab vocab = readVocab(node.at("vocab"));
    std::vector<std::pair<std::string, std::string>> merges;
    if (node.has("merges")) {
        const JsonNode list = node.at("merges");
        list.expectArray();
        merges.reserve(list.size());
        for (std::size_t i = 0; i < list.size(); ++i) {
            const JsonNode merge = list.at(i);
            if (merge.json().is_array()) {
                if (merge.size() != 2) {
                    merge.fail("expected a pair of tokens");
                }
                merges.emplace_back(merge.at(0).string(), merge.at(1).string());
            } else {
                const std::string text = merge.string();
                const std::size_t space = text.find(' ');
                if (space == std::string::npos) {
                    merge.fail("expected two tokens separated by a space, found '" + text + "'");
                }
                merges.emplace_back(text.substr(0, space), text.substr(space + 1));
            }
        }
    }
    try {
        return makeBpe(std::move(vocab), merges, options);
    } catch (const std::invalid_argument &error) {
        node.at("merges").fail(error.what());
    }
}

} // namespace

std::unique_ptr<Model> makeModel(const JsonNode &node) {
    node.expectObject();
    std::string type;
    if (node.has("type")) {
        type = node.type();
    } else if (node.has("merges")) {
        type = "BPE"; // the reference accepts untagged models and guesses from their fields
    } else if (node.has("continuing_subword_prefix") || node.has("max_input_chars_per_word")) {
        type = "WordPiece";
    } else if (node.has("vocab") && node.at("vocab").json().is_array()) {
        type = "Unigram";
    } else {
        type = "WordLevel";
    }
    if (type == "BPE") {
        return readBpe(node);
    }
    if (type == "WordPiece") {
        const std::int64_t max_chars = node.integer("max_input_chars_per_word", 100);
        if (max_chars < 0) {
            node.at("max_input_chars_per_word").fail("expected a non-negative integer");
        }
        return makeWordPiece(readVocab(node.at("vocab")), node.string("unk_token", "[UNK]"),
                             node.string("continuing_subword_prefix", "##"),
                             static_cast<std::size_t>(max_chars));
    }
    if (type == "WordLevel") {
        return makeWordLevel(readVocab(node.at("vocab")), node.string("unk_token", "<unk>"));
    }
    if (type == "Unigram") {
        const JsonNode list = node.at("vocab");
        list.expectArray();
        std::vector<std::pair<std::string, double>> pieces;
        pieces.reserve(list.size());
        for (std::size_t i = 0; i < list.size(); ++i) {
            const JsonNode entry = list.at(i);
            entry.expectArray();
            if (entry.size() != 2) {
                entry.fail("expected [token, score]");
            }
            pieces.emplace_back(entry.at(0).string(), entry.at(1).number());
        }
        std::optional<std::int32_t> unk_id;
        if (node.has("unk_id")) {
            const std::int64_t id = node.at("unk_id").integer();
            if (id < 0 || static_cast<std::size_t>(id) >= pieces.size()) {
                node.at("unk_id").fail("unk_id is not an index of the vocabulary");
            }
            unk_id = static_cast<std::int32_t>(id);
        }
        return makeUnigram(pieces, unk_id, node.boolean("byte_fallback", false));
    }
    node.at("type").fail("unknown model '" + type +
                         "' (expected BPE, WordPiece, WordLevel, Unigram)");
}

} // namespace headroom::tokenizers
