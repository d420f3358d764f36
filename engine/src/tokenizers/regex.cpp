#include "tokenizers/regex.h"

#include "tokenizers/regex_unicode.h"
#include "tokenizers/unicode.h"

#include <headroom/tokenizer.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdexcept>

namespace headroom::tokenizers {

struct Regex::Impl {
    pcre2_code *code = nullptr;
    bool jit = false;
};

namespace {

// One match-data block per thread: matching is const and may run on several threads.
struct MatchData {
    pcre2_match_data *data = pcre2_match_data_create(1, nullptr);
    ~MatchData() { pcre2_match_data_free(data); }
};

pcre2_match_data *threadMatchData() {
    thread_local MatchData match_data;
    return match_data.data;
}

} // namespace

Regex::Regex(const std::string &pattern) : pattern_(pattern), impl_(std::make_unique<Impl>()) {
    int error = 0;
    PCRE2_SIZE offset = 0;
    const std::string extended = withNewerUnicode(pattern);
    if (extended != pattern) {
        impl_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(extended.data()), extended.size(),
                                    PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
    }
    if (impl_->code == nullptr) { // unchanged, or the rewrite failed: errors name the original
        impl_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                    PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
    }
    if (impl_->code == nullptr) {
        PCRE2_UCHAR message[256];
        pcre2_get_error_message(error, message, sizeof message);
        throw std::invalid_argument("bad regular expression at offset " + std::to_string(offset) +
                                    ": " + reinterpret_cast<const char *>(message));
    }
    impl_->jit = pcre2_jit_compile(impl_->code, PCRE2_JIT_COMPLETE) == 0;
}

Regex::~Regex() {
    if (impl_ && impl_->code != nullptr) {
        pcre2_code_free(impl_->code);
    }
}

void Regex::findMatches(std::string_view text,
                        std::vector<std::pair<std::size_t, std::size_t>> &out) const {
    pcre2_match_data *data = threadMatchData();
    const auto *subject = reinterpret_cast<PCRE2_SPTR>(text.data());
    std::size_t search_from = 0;
    std::size_t last_match_end = static_cast<std::size_t>(-1);
    while (search_from <= text.size()) {
        const int rc = impl_->jit ? pcre2_jit_match(impl_->code, subject, text.size(), search_from,
                                                    0, data, nullptr)
                                  : pcre2_match(impl_->code, subject, text.size(), search_from,
                                                PCRE2_NO_UTF_CHECK, data, nullptr);
        if (rc < 0) {
            if (rc == PCRE2_ERROR_NOMATCH) {
                return;
            }
            PCRE2_UCHAR message[256];
            pcre2_get_error_message(rc, message, sizeof message);
            throw TokenizerError("regular expression '" + pattern_ +
                                 "' failed: " + reinterpret_cast<const char *>(message));
        }
        const PCRE2_SIZE *ovector = pcre2_get_ovector_pointer(data);
        const std::size_t start = ovector[0], end = ovector[1];
        if (start == end && end == last_match_end) {
            if (search_from >= text.size()) {
                return;
            }
            search_from += charLength(static_cast<unsigned char>(text[search_from]));
            continue;
        }
        out.emplace_back(start, end);
        search_from = end;
        last_match_end = end;
    }
}

std::string escapeRegex(std::string_view literal) {
    std::string out;
    for (const char c : literal) {
        if (std::string_view("\\^$.|?*+()[]{}-/#&~ ").find(c) != std::string_view::npos) {
            out.push_back('\\');
        }
        out.push_back(c);
    }
    return out;
}

void matchesToSpans(std::string_view text,
                    const std::vector<std::pair<std::size_t, std::size_t>> &matches,
                    std::vector<Span> &out) {
    if (text.empty()) {
        out.push_back({0, 0, false});
        return;
    }
    std::size_t previous = 0;
    for (const auto &[start, end] : matches) {
        if (previous != start) {
            out.push_back({previous, start, false});
        }
        out.push_back({start, end, true});
        previous = end;
    }
    if (previous != text.size()) {
        out.push_back({previous, text.size(), false});
    }
}

void findLiteral(std::string_view text, std::string_view literal,
                 std::vector<std::pair<std::size_t, std::size_t>> &out) {
    if (literal.empty()) {
        return;
    }
    for (std::size_t pos = text.find(literal); pos != std::string_view::npos;
         pos = text.find(literal, pos + literal.size())) {
        out.emplace_back(pos, pos + literal.size());
    }
}

} // namespace headroom::tokenizers
