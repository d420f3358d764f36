#include "tokenizers/models/models.h"
#include "tokenizers/unicode.h"

#include <headroom/tokenizer.h>

#include <stdexcept>

namespace headroom::tokenizers {

namespace {

class WordPieceModel : public Model {
public:
    WordPieceModel(Vocab vocab, std::string unk_token, std::string prefix, std::size_t max_chars)
        : unk_token_(std::move(unk_token)), prefix_(std::move(prefix)), max_chars_(max_chars) {
        vocab_ = std::move(vocab);
    }

    void tokenize(const std::string &word, std::vector<ModelToken> &out) const override {
        const auto size = static_cast<std::uint32_t>(word.size());
        if (countChars(word) > max_chars_) {
            out.push_back({unkId(), 0, size});
            return;
        }
        const std::size_t mark = out.size();
        std::string candidate;
        std::size_t start = 0;
        while (start < word.size()) {
            std::size_t end = word.size();
            bool found = false;
            while (start < end) {
                candidate.clear();
                if (start > 0) {
                    candidate += prefix_;
                }
                candidate.append(word, start, end - start);
                if (const auto id = vocab_.find(candidate)) {
                    out.push_back(
                        {*id, static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(end)});
                    found = true;
                    break;
                }
                std::size_t previous = 0;
                previousChar(word, end, previous);
                end = previous;
            }
            if (!found) {
                out.resize(mark);
                out.push_back({unkId(), 0, size});
                return;
            }
            start = end;
        }
    }

private:
    std::int32_t unkId() const {
        const auto id = vocab_.find(unk_token_);
        if (!id) {
            throw TokenizerError("WordPiece: unknown token '" + unk_token_ +
                                 "' is not in the vocabulary");
        }
        return *id;
    }

    std::string unk_token_;
    std::string prefix_;
    std::size_t max_chars_;
};

class WordLevelModel : public Model {
public:
    WordLevelModel(Vocab vocab, std::string unk_token) : unk_token_(std::move(unk_token)) {
        vocab_ = std::move(vocab);
    }

    void tokenize(const std::string &word, std::vector<ModelToken> &out) const override {
        auto id = vocab_.find(word);
        if (!id) {
            id = vocab_.find(unk_token_);
            if (!id) {
                throw TokenizerError("WordLevel: unknown token '" + unk_token_ +
                                     "' is not in the vocabulary");
            }
        }
        out.push_back({*id, 0, static_cast<std::uint32_t>(word.size())});
    }

private:
    std::string unk_token_;
};

} // namespace

std::unique_ptr<Model> makeWordPiece(Vocab vocab, std::string unk_token, std::string prefix,
                                     std::size_t max_input_chars_per_word) {
    return std::make_unique<WordPieceModel>(std::move(vocab), std::move(unk_token),
                                            std::move(prefix), max_input_chars_per_word);
}

std::unique_ptr<Model> makeWordLevel(Vocab vocab, std::string unk_token) {
    return std::make_unique<WordLevelModel>(std::move(vocab), std::move(unk_token));
}

} // namespace headroom::tokenizers
