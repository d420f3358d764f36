#include "tokenizers/pattern.h"

#include "tokenizers/json_reader.h"

#include <stdexcept>

namespace headroom::tokenizers {

Pattern Pattern::fromJson(const JsonNode &node) {
    Pattern pattern;
    if (node.has("Regex")) {
        try {
            pattern.regex_ = std::make_shared<const Regex>(node.at("Regex").string());
        } catch (const std::invalid_argument &error) {
            node.at("Regex").fail(error.what());
        }
    } else {
        pattern.literal_ = node.at("String").string();
    }
    return pattern;
}

void Pattern::findMatches(std::string_view text,
                          std::vector<std::pair<std::size_t, std::size_t>> &out) const {
    if (regex_) {
        regex_->findMatches(text, out);
    } else {
        findLiteral(text, literal_, out);
    }
}

void Pattern::replaceAll(std::string &text, const std::string &content) const {
    std::vector<std::pair<std::size_t, std::size_t>> matches;
    findMatches(text, matches);
    if (matches.empty()) {
        return;
    }
    std::string out;
    out.reserve(text.size());
    std::size_t previous = 0;
    for (const auto &[start, end] : matches) {
        out.append(text, previous, start - previous);
        out += content;
        previous = end;
    }
    out.append(text, previous, std::string::npos);
    text = std::move(out);
}

} // namespace headroom::tokenizers
