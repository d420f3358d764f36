#include "tokenizers/tokenizer_impl.h"
#include "tokenizers/unicode.h"

#include <filesystem>
#include <nlohmann/json.hpp>

namespace headroom {

TokenizedText HfTokenizer::Impl::encode(const std::string &text, bool add_special_tokens) const {
    const std::size_t bad = tokenizers::findInvalidUtf8(text);
    if (bad != text.size()) {
        throw InvalidUtf8Error("text is not valid UTF-8 at byte " + std::to_string(bad), bad);
    }
    tokenizers::Pieces pieces;
    added.extract(text, normalizer.get(), pieces);
    if (pre_tokenizer) {
        pre_tokenizer->preTokenize(pieces);
    }
    TokenizedText out;
    out.ids.reserve(text.size() / 3 + 4);
    std::vector<tokenizers::ModelToken> tokens;
    for (const tokenizers::Piece &piece : pieces) {
        if (piece.added_id >= 0) {
            const tokenizers::AddedToken *token = added.byId(piece.added_id);
            out.ids.push_back(piece.added_id);
            out.pieces.push_back(piece.text); // as matched: " [MASK] " with lstrip/rstrip
            out.offsets.emplace_back(piece.begin, piece.end);
            out.special.push_back(token != nullptr && token->special);
            continue;
        }
        if (piece.text.empty()) {
            continue;
        }
        tokens.clear();
        model->tokenize(piece.text, tokens);
        for (const tokenizers::ModelToken &token : tokens) {
            out.ids.push_back(token.id);
            const std::string *spelled =
                token.spelled_as_text ? nullptr : model->vocab().token(token.id);
            out.pieces.push_back(spelled != nullptr
                                     ? *spelled
                                     : piece.text.substr(token.start, token.end - token.start));
            out.offsets.push_back(tokenizers::inputRange(piece, token.start, token.end));
            out.special.push_back(false);
        }
    }
    if (truncation) {
        truncate(out, add_special_tokens);
    }
    if (post_processor) {
        post_processor->process(out, add_special_tokens);
    }
    if (padding) {
        pad(out);
    }
    return out;
}

namespace {

template <typename T> void keep(std::vector<T> &items, std::size_t count, bool from_left) {
    if (items.size() <= count) {
        return;
    }
    if (from_left) {
        items.erase(items.begin(), items.end() - static_cast<std::ptrdiff_t>(count));
    } else {
        items.resize(count);
    }
}

} // namespace

void HfTokenizer::Impl::truncate(TokenizedText &encoding, bool add_special_tokens) const {
    if (truncation->only_second) {
        throw TokenizerError(source + ": truncation strategy OnlySecond needs a second sequence");
    }
    const std::size_t added_count =
        add_special_tokens && post_processor ? post_processor->addedTokens() : 0;
    // The reference subtracts without a check (an underflow there); zero room keeps nothing.
    const std::size_t max_length =
        truncation->max_length > added_count ? truncation->max_length - added_count : 0;
    const bool left = truncation->from_left;
    keep(encoding.ids, max_length, left);
    keep(encoding.pieces, max_length, left);
    keep(encoding.offsets, max_length, left);
    keep(encoding.special, max_length, left);
}

void HfTokenizer::Impl::pad(TokenizedText &encoding) const {
    std::size_t length = padding->fixed != 0 ? padding->fixed : encoding.ids.size();
    if (padding->multiple_of > 0 && length % padding->multiple_of != 0) {
        length += padding->multiple_of - length % padding->multiple_of;
    }
    if (encoding.ids.size() >= length) {
        return;
    }
    const std::size_t count = length - encoding.ids.size();
    const auto at = [&](auto &items) {
        return padding->on_left ? items.begin() : items.end();
    };
    encoding.ids.insert(at(encoding.ids), count, padding->pad_id);
    encoding.pieces.insert(at(encoding.pieces), count, padding->pad_token);
    encoding.offsets.insert(at(encoding.offsets), count, std::pair<std::size_t, std::size_t>(0, 0));
    encoding.special.insert(at(encoding.special), count, true);
}

std::string HfTokenizer::Impl::decode(const std::vector<std::int32_t> &ids,
                                      bool skip_special_tokens) const {
    std::vector<std::string> tokens;
    tokens.reserve(ids.size());
    for (const std::int32_t id : ids) {
        if (const tokenizers::AddedToken *token = added.byId(id)) {
            if (!(skip_special_tokens && token->special)) {
                tokens.push_back(token->content);
            }
            continue;
        }
        if (const std::string *spelled = model->vocab().token(id)) {
            // A model token that is also registered as a special added token is skipped too.
            const tokenizers::AddedToken *same = added.byContent(*spelled);
            if (!(skip_special_tokens && same != nullptr && same->special)) {
                tokens.push_back(*spelled);
            }
        }
    }
    if (decoder) {
        return decoder->decode(std::move(tokens));
    }
    std::string out;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (i > 0) {
            out.push_back(' ');
        }
        out += tokens[i];
    }
    return out;
}

namespace {

bool isFile(const std::filesystem::path &path) {
    std::error_code error;
    return std::filesystem::is_regular_file(path, error);
}

// do_lower_case from a BERT folder's tokenizer_config.json (default true).
bool folderLowercases(const std::filesystem::path &folder) {
    const auto config = folder / "tokenizer_config.json";
    if (!isFile(config)) {
        return true;
    }
    try {
        const auto json = nlohmann::json::parse(tokenizers::readFile(config.string()));
        if (json.is_object() && json.contains("do_lower_case") &&
            json["do_lower_case"].is_boolean()) {
            return json["do_lower_case"].get<bool>();
        }
    } catch (const nlohmann::json::exception &) {
        // An unreadable config does not stop the vocabulary from loading.
    }
    return true;
}

} // namespace

HfTokenizer HfTokenizer::load(const std::string &path) {
    namespace fs = std::filesystem;
    const fs::path where(path);
    std::error_code error;
    if (fs::is_directory(where, error)) {
        if (isFile(where / "tokenizer.json")) {
            const std::string file = (where / "tokenizer.json").string();
            return HfTokenizer(tokenizers::loadTokenizerJson(tokenizers::readFile(file), file));
        }
        if (isFile(where / "vocab.json") && isFile(where / "merges.txt")) {
            return HfTokenizer(tokenizers::loadVocabAndMerges((where / "vocab.json").string(),
                                                              (where / "merges.txt").string()));
        }
        if (isFile(where / "vocab.txt")) {
            return HfTokenizer(tokenizers::loadWordPieceVocab((where / "vocab.txt").string(),
                                                              folderLowercases(where)));
        }
        if (isFile(where / "tokenizer.model")) {
            return HfTokenizer(
                tokenizers::loadSentencePieceModel((where / "tokenizer.model").string()));
        }
        throw TokenizerError(path + ": no tokenizer.json, vocab.json + merges.txt, vocab.txt or "
                                    "tokenizer.model in this folder");
    }
    if (!isFile(where)) {
        throw TokenizerError(path + ": no such file or folder");
    }
    if (where.extension() == ".model") {
        return HfTokenizer(tokenizers::loadSentencePieceModel(path));
    }
    if (where.extension() == ".txt") {
        return HfTokenizer(
            tokenizers::loadWordPieceVocab(path, folderLowercases(where.parent_path())));
    }
    return HfTokenizer(tokenizers::loadTokenizerJson(tokenizers::readFile(path), path));
}

HfTokenizer HfTokenizer::fromJson(const std::string &json, const std::string &name) {
    return HfTokenizer(tokenizers::loadTokenizerJson(json, name));
}

HfTokenizer::HfTokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HfTokenizer::HfTokenizer(HfTokenizer &&) noexcept = default;
HfTokenizer &HfTokenizer::operator=(HfTokenizer &&) noexcept = default;
HfTokenizer::~HfTokenizer() = default;

TokenizedText HfTokenizer::encode(const std::string &text, bool add_special_tokens) const {
    return impl_->encode(text, add_special_tokens);
}

std::vector<std::int32_t> HfTokenizer::encodeIds(const std::string &text,
                                                 bool add_special_tokens) const {
    return impl_->encode(text, add_special_tokens).ids;
}

std::string HfTokenizer::decode(const std::vector<std::int32_t> &ids,
                                bool skip_special_tokens) const {
    return impl_->decode(ids, skip_special_tokens);
}

std::int32_t HfTokenizer::vocabSize() const {
    std::size_t size = impl_->model->vocab().size();
    for (const tokenizers::AddedToken &token : impl_->added.tokens()) {
        if (!impl_->model->vocab().find(token.content)) {
            ++size;
        }
    }
    return static_cast<std::int32_t>(size);
}

std::optional<std::string> HfTokenizer::idToToken(std::int32_t id) const {
    if (const tokenizers::AddedToken *token = impl_->added.byId(id)) {
        return token->content;
    }
    if (const std::string *spelled = impl_->model->vocab().token(id)) {
        return *spelled;
    }
    return std::nullopt;
}

std::optional<std::int32_t> HfTokenizer::tokenToId(const std::string &token) const {
    if (const tokenizers::AddedToken *added = impl_->added.byContent(token)) {
        return added->id;
    }
    return impl_->model->vocab().find(token);
}

bool HfTokenizer::isSpecial(std::int32_t id) const {
    const tokenizers::AddedToken *token = impl_->added.byId(id);
    return token != nullptr && token->special;
}

const std::string &HfTokenizer::source() const {
    return impl_->source;
}

} // namespace headroom
