#include "tokenizers/processors/post_processors.h"

#include <map>

namespace headroom::tokenizers {

namespace {

struct SpecialPiece {
    std::vector<std::int32_t> ids;
    std::vector<std::string> tokens;
};

void append(TokenizedText &out, const SpecialPiece &piece) {
    for (std::size_t i = 0; i < piece.ids.size(); ++i) {
        out.ids.push_back(piece.ids[i]);
        out.pieces.push_back(i < piece.tokens.size() ? piece.tokens[i] : std::string());
        out.offsets.emplace_back(0, 0);
        out.special.push_back(true);
    }
}

void appendAll(TokenizedText &out, TokenizedText &&sequence) {
    out.ids.insert(out.ids.end(), sequence.ids.begin(), sequence.ids.end());
    for (auto &piece : sequence.pieces) {
        out.pieces.push_back(std::move(piece));
    }
    out.offsets.insert(out.offsets.end(), sequence.offsets.begin(), sequence.offsets.end());
    out.special.insert(out.special.end(), sequence.special.begin(), sequence.special.end());
}

// Template items: a special piece, or the sequence itself (empty optional).
class TemplateProcessor : public PostProcessor {
public:
    explicit TemplateProcessor(std::map<std::string, SpecialPiece> specials)
        : specials_(std::move(specials)) {}
    void process(TokenizedText &encoding, bool add_special_tokens) const override {
        if (!add_special_tokens) {
            return;
        }
        TokenizedText out;
        for (const SpecialPiece *item : items_) {
            if (item == nullptr) {
                appendAll(out, std::move(encoding));
            } else {
                append(out, *item);
            }
        }
        encoding = std::move(out);
    }
    std::size_t addedTokens() const override {
        std::size_t count = 0;
        for (const SpecialPiece *item : items_) {
            count += item != nullptr ? item->ids.size() : 0;
        }
        return count;
    }
    // Items point into specials_: build them after the map has its final address.
    static std::unique_ptr<TemplateProcessor> make(std::map<std::string, SpecialPiece> specials,
                                                   const std::vector<std::string> &names) {
        auto processor = std::make_unique<TemplateProcessor>(std::move(specials));
        for (const std::string &name : names) {
            processor->items_.push_back(name.empty() ? nullptr : &processor->specials_.at(name));
        }
        return processor;
    }

private:
    std::vector<const SpecialPiece *> items_;
    std::map<std::string, SpecialPiece> specials_;
};

class SequenceProcessor : public PostProcessor {
public:
    explicit SequenceProcessor(std::vector<std::unique_ptr<PostProcessor>> parts)
        : parts_(std::move(parts)) {}
    void process(TokenizedText &encoding, bool add_special_tokens) const override {
        for (const auto &part : parts_) {
            part->process(encoding, add_special_tokens);
        }
    }
    std::size_t addedTokens() const override {
        std::size_t count = 0;
        for (const auto &part : parts_) {
            count += part->addedTokens();
        }
        return count;
    }

private:
    std::vector<std::unique_ptr<PostProcessor>> parts_;
};

class NoOpProcessor : public PostProcessor {
public:
    void process(TokenizedText &, bool) const override {}
    std::size_t addedTokens() const override { return 0; }
};

std::pair<std::string, std::int32_t> tokenPair(const JsonNode &node) {
    node.expectArray();
    if (node.size() != 2) {
        node.fail("expected [token, id]");
    }
    const std::int64_t id = node.at(1).integer();
    if (id < 0 || id > INT32_MAX) {
        node.at(1).fail("token id out of range");
    }
    return {node.at(0).string(), static_cast<std::int32_t>(id)};
}

std::unique_ptr<PostProcessor> makeTemplate(const JsonNode &node) {
    std::map<std::string, SpecialPiece> specials;
    if (node.has("special_tokens")) {
        const JsonNode map = node.at("special_tokens");
        map.expectObject();
        for (const auto &item : map.json().items()) {
            const JsonNode entry = map.at(item.key());
            SpecialPiece piece;
            const JsonNode ids = entry.at("ids");
            ids.expectArray();
            for (std::size_t i = 0; i < ids.size(); ++i) {
                const std::int64_t id = ids.at(i).integer();
                if (id < 0 || id > INT32_MAX) {
                    ids.at(i).fail("token id out of range");
                }
                piece.ids.push_back(static_cast<std::int32_t>(id));
            }
            const JsonNode tokens = entry.at("tokens");
            tokens.expectArray();
            for (std::size_t i = 0; i < tokens.size(); ++i) {
                piece.tokens.push_back(tokens.at(i).string());
            }
            if (piece.tokens.size() != piece.ids.size()) {
                entry.fail("ids and tokens differ in length");
            }
            specials.emplace(entry.string("id", item.key()), std::move(piece));
        }
    }
    const JsonNode single = node.at("single");
    single.expectArray();
    std::vector<std::string> names;
    for (std::size_t i = 0; i < single.size(); ++i) {
        const JsonNode item = single.at(i);
        if (item.has("SpecialToken")) {
            const JsonNode id = item.at("SpecialToken").at("id");
            const std::string name = id.string();
            if (name.empty() || specials.count(name) == 0) {
                id.fail("special token '" + name + "' is not in /post_processor/special_tokens");
            }
            names.push_back(name);
        } else if (item.has("Sequence")) {
            const JsonNode id = item.at("Sequence").at("id");
            const std::string which = id.string();
            if (which != "A") {
                id.fail("only sequence A can be encoded (one text at a time), found '" + which +
                        "'");
            }
            names.emplace_back();
        } else {
            item.fail("expected a SpecialToken or a Sequence item");
        }
    }
    return TemplateProcessor::make(std::move(specials), names);
}

std::unique_ptr<PostProcessor> makeAround(const JsonNode &node) {
    const auto [cls, cls_id] = tokenPair(node.at("cls"));
    const auto [sep, sep_id] = tokenPair(node.at("sep"));
    return makeBertPostProcessor(cls, cls_id, sep, sep_id);
}

} // namespace

std::unique_ptr<PostProcessor> makeBertPostProcessor(std::string cls, std::int32_t cls_id,
                                                     std::string sep, std::int32_t sep_id) {
    std::map<std::string, SpecialPiece> specials;
    specials["\x01"
             "cls"] = {{cls_id}, {std::move(cls)}};
    specials["\x01"
             "sep"] = {{sep_id}, {std::move(sep)}};
    return TemplateProcessor::make(std::move(specials), {"\x01"
                                                         "cls",
                                                         "",
                                                         "\x01"
                                                         "sep"});
}

std::unique_ptr<PostProcessor> makePostProcessor(const JsonNode &node) {
    const std::string type = node.type();
    if (type == "TemplateProcessing") {
        return makeTemplate(node);
    }
    if (type == "BertProcessing" || type == "RobertaProcessing") {
        return makeAround(node);
    }
    if (type == "ByteLevel") {
        return std::make_unique<NoOpProcessor>();
    }
    if (type == "Sequence") {
        const JsonNode list = node.at("processors");
        list.expectArray();
        std::vector<std::unique_ptr<PostProcessor>> parts;
        for (std::size_t i = 0; i < list.size(); ++i) {
            parts.push_back(makePostProcessor(list.at(i)));
        }
        return std::make_unique<SequenceProcessor>(std::move(parts));
    }
    node.at("type").fail("unknown post-processor '" + type +
                         "' (expected TemplateProcessing, BertProcessing, RobertaProcessing, "
                         "ByteLevel, Sequence)");
}

} // namespace headroom::tokenizers
