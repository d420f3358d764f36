#include "tokenizers/json_reader.h"
#include "tokenizers/tokenizer_impl.h"
#include "tokenizers/unicode.h"

#include <fstream>
#include <sstream>

namespace headroom::tokenizers {

namespace {

// tokenizer.json files of real models are 2-20 MB; refuse what cannot be one.
constexpr std::size_t kMaxTokenizerFileBytes = std::size_t{512} << 20;

std::string fileName(const std::string &path) {
    const std::size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::vector<AddedToken> readAddedTokens(const JsonNode &root) {
    std::vector<AddedToken> tokens;
    if (!root.has("added_tokens")) {
        return tokens;
    }
    const JsonNode list = root.at("added_tokens");
    list.expectArray();
    for (std::size_t i = 0; i < list.size(); ++i) {
        const JsonNode entry = list.at(i);
        AddedToken token;
        const std::int64_t id = entry.at("id").integer();
        if (id < 0 || id > INT32_MAX) {
            entry.at("id").fail("token id out of range");
        }
        token.id = static_cast<std::int32_t>(id);
        token.content = entry.at("content").string();
        if (token.content.empty()) {
            entry.at("content").fail("an added token cannot be empty");
        }
        token.special = entry.boolean("special", false);
        token.single_word = entry.boolean("single_word", false);
        token.lstrip = entry.boolean("lstrip", false);
        token.rstrip = entry.boolean("rstrip", false);
        token.normalized = entry.boolean("normalized", !token.special);
        tokens.push_back(std::move(token));
    }
    return tokens;
}

std::size_t size(const JsonNode &node) {
    const std::int64_t value = node.integer();
    if (value < 0) {
        node.fail("expected a non-negative integer");
    }
    return static_cast<std::size_t>(value);
}

bool leftOrRight(const JsonNode &node, const std::string &key) {
    if (!node.has(key)) {
        return false;
    }
    const std::string direction = node.at(key).string();
    if (direction != "Left" && direction != "Right") {
        node.at(key).fail("unknown direction '" + direction + "' (expected Left or Right)");
    }
    return direction == "Left";
}

Truncation readTruncation(const JsonNode &node) {
    node.expectObject();
    Truncation truncation;
    truncation.max_length = size(node.at("max_length"));
    truncation.from_left = leftOrRight(node, "direction");
    const std::string strategy = node.string("strategy", "LongestFirst");
    if (strategy != "LongestFirst" && strategy != "OnlyFirst" && strategy != "OnlySecond") {
        node.at("strategy")
            .fail("unknown truncation strategy '" + strategy +
                  "' (expected LongestFirst, OnlyFirst, OnlySecond)");
    }
    truncation.only_second = strategy == "OnlySecond";
    return truncation;
}

Padding readPadding(const JsonNode &node) {
    node.expectObject();
    Padding padding;
    if (node.has("strategy")) {
        const JsonNode strategy = node.at("strategy");
        if (strategy.json().is_object()) {
            padding.fixed = size(strategy.at("Fixed"));
        } else if (strategy.string() != "BatchLongest") {
            strategy.fail("unknown padding strategy (expected \"BatchLongest\" or {\"Fixed\": N})");
        }
    }
    // A padded sequence is allocated: refuse lengths no model takes.
    constexpr std::size_t kMaxPadding = std::size_t{1} << 24;
    if (padding.fixed > kMaxPadding) {
        node.at("strategy").fail("padding length too large");
    }
    padding.on_left = leftOrRight(node, "direction");
    if (node.has("pad_to_multiple_of")) {
        padding.multiple_of = size(node.at("pad_to_multiple_of"));
        if (padding.multiple_of > kMaxPadding) {
            node.at("pad_to_multiple_of").fail("padding multiple too large");
        }
    }
    const std::int64_t pad_id = node.integer("pad_id", 0);
    if (pad_id < 0 || pad_id > INT32_MAX) {
        node.at("pad_id").fail("token id out of range");
    }
    padding.pad_id = static_cast<std::int32_t>(pad_id);
    padding.pad_token = node.string("pad_token", "[PAD]");
    return padding;
}

} // namespace

std::string readFile(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw TokenizerError(path + ": cannot be read");
    }
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    if (size < 0 || static_cast<std::uint64_t>(size) > kMaxTokenizerFileBytes) {
        throw TokenizerError(path + ": too large for a tokenizer file");
    }
    in.seekg(0);
    std::string data(static_cast<std::size_t>(size), '\0');
    in.read(data.data(), size);
    if (!in) {
        throw TokenizerError(path + ": cannot be read");
    }
    return data;
}

std::unique_ptr<HfTokenizer::Impl> loadTokenizerJson(const std::string &json,
                                                     const std::string &name) {
    const std::string &file = name;
    nlohmann::json document;
    try {
        document = nlohmann::json::parse(json);
    } catch (const nlohmann::json::exception &error) { // or out_of_range: 1e9999
        throw TokenizerError(file + ": not valid JSON (" + error.what() + ")");
    }
    const JsonNode root(document, file);
    root.expectObject();
    auto impl = std::make_unique<HfTokenizer::Impl>();
    impl->source = name;
    try {
        if (root.has("truncation")) {
            impl->truncation = readTruncation(root.at("truncation"));
        }
        if (root.has("padding")) {
            impl->padding = readPadding(root.at("padding"));
        }
        if (root.has("normalizer")) {
            impl->normalizer = makeNormalizer(root.at("normalizer"));
        }
        if (root.has("pre_tokenizer")) {
            impl->pre_tokenizer = makePreTokenizer(root.at("pre_tokenizer"));
        }
        impl->model = makeModel(root.at("model"));
        if (root.has("post_processor")) {
            impl->post_processor = makePostProcessor(root.at("post_processor"));
        }
        if (root.has("decoder")) {
            impl->decoder = makeDecoder(root.at("decoder"));
        }
        impl->added.build(readAddedTokens(root), impl->normalizer.get());
    } catch (const nlohmann::json::exception &error) {
        throw TokenizerError(file + ": " + error.what());
    }
    return impl;
}

std::unique_ptr<HfTokenizer::Impl> loadVocabAndMerges(const std::string &vocab_path,
                                                      const std::string &merges_path) {
    const std::string vocab_file = fileName(vocab_path);
    nlohmann::json document;
    try {
        document = nlohmann::json::parse(readFile(vocab_path));
    } catch (const nlohmann::json::exception &error) { // or out_of_range: 1e9999
        throw TokenizerError(vocab_file + ": not valid JSON (" + error.what() + ")");
    }
    const JsonNode root(document, vocab_file);
    root.expectObject();
    Vocab vocab;
    for (const auto &[token, id] : document.items()) {
        const JsonNode entry(id, vocab_file, "/" + token);
        const std::int64_t value = entry.integer();
        if (value < 0 || value > INT32_MAX) {
            entry.fail("token id out of range");
        }
        vocab.add(token, static_cast<std::int32_t>(value));
    }
    std::vector<std::pair<std::string, std::string>> merges;
    std::istringstream lines(readFile(merges_path));
    std::string line;
    std::size_t number = 0;
    while (std::getline(lines, line)) {
        ++number;
        if (!line.empty() && line.back() == '\r') {
            line.pop_back();
        }
        if (line.rfind("#version", 0) == 0 || line.empty()) {
            continue;
        }
        const std::size_t space = line.find(' ');
        if (space == std::string::npos || line.find(' ', space + 1) != std::string::npos) {
            throw TokenizerError(fileName(merges_path) + ": line " + std::to_string(number) +
                                 ": expected two tokens separated by one space");
        }
        merges.emplace_back(line.substr(0, space), line.substr(space + 1));
    }
    auto impl = std::make_unique<HfTokenizer::Impl>();
    impl->source = vocab_path;
    const auto eot = vocab.find("<|endoftext|>");
    try {
        impl->model = makeBpe(std::move(vocab), merges, BpeOptions{});
    } catch (const std::invalid_argument &error) {
        throw TokenizerError(fileName(merges_path) + ": " + error.what());
    }
    impl->pre_tokenizer = makeByteLevelPreTokenizer(false, true);
    impl->decoder = makeByteLevelDecoder();
    std::vector<AddedToken> added;
    if (eot) {
        AddedToken token;
        token.content = "<|endoftext|>";
        token.id = *eot;
        token.special = true;
        added.push_back(token);
    }
    impl->added.build(std::move(added), nullptr);
    return impl;
}

std::unique_ptr<HfTokenizer::Impl> loadWordPieceVocab(const std::string &vocab_path,
                                                      bool lowercase) {
    Vocab vocab;
    std::istringstream lines(readFile(vocab_path));
    std::string line;
    std::int32_t id = 0;
    while (std::getline(lines, line)) {
        if (!line.empty() && line.back() == '\r') {
            line.pop_back();
        }
        if (findInvalidUtf8(line) != line.size()) {
            throw TokenizerError(fileName(vocab_path) + ": line " + std::to_string(id + 1) +
                                 ": not valid UTF-8");
        }
        vocab.add(line, id++);
    }
    std::vector<AddedToken> added;
    for (const char *name : {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}) {
        if (const auto token_id = vocab.find(name)) {
            AddedToken token;
            token.content = name;
            token.id = *token_id;
            token.special = true;
            added.push_back(token);
        }
    }
    const auto cls = vocab.find("[CLS]");
    const auto sep = vocab.find("[SEP]");
    if (!vocab.find("[UNK]")) {
        throw TokenizerError(fileName(vocab_path) + ": no [UNK] token in the vocabulary");
    }
    auto impl = std::make_unique<HfTokenizer::Impl>();
    impl->source = vocab_path;
    impl->normalizer = std::make_unique<BertNormalizer>(true, true, lowercase, lowercase);
    impl->pre_tokenizer = makeBertPreTokenizer();
    impl->model = makeWordPiece(std::move(vocab), "[UNK]", "##", 100);
    if (cls && sep) {
        impl->post_processor = makeBertPostProcessor("[CLS]", *cls, "[SEP]", *sep);
    }
    impl->decoder = makeWordPieceDecoder("##", true);
    impl->added.build(std::move(added), impl->normalizer.get());
    return impl;
}

} // namespace headroom::tokenizers
