#include "rewards/rewards.h"

#include "rewards/reward_command.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <iterator>
#include <locale>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

namespace headroom::rewards {

namespace {

// In the order of RewardKind.
const char *const kRewardKindNames[] = {"regex", "exact", "format", "length", "command"};
const char *const kRewardArgumentNames[] = {"PATTERN", "FIELD", "PATTERN", "N", "CMD"};
const char *const kRewardSpaces = " \t\n\r\f\v";

const char *const kRewardSpecExamples =
    "write terms such as regex:PATTERN, format:PATTERN, exact:FIELD, length:N or command:CMD, "
    "separated by commas, each optionally followed by *WEIGHT";

std::string rewardKindText(RewardKind kind) {
    return kRewardKindNames[static_cast<std::size_t>(kind)];
}

bool isRewardPattern(RewardKind kind) {
    return kind == RewardKind::Regex || kind == RewardKind::Format;
}

std::optional<RewardKind> rewardKindFromText(const std::string &text) {
    for (std::size_t i = 0; i < std::size(kRewardKindNames); ++i) {
        if (text == kRewardKindNames[i]) {
            return static_cast<RewardKind>(i);
        }
    }
    return std::nullopt;
}

std::string rewardTrimRight(const std::string &text) {
    return text.substr(0, text.find_last_not_of(kRewardSpaces) + 1);
}

std::string rewardTrim(const std::string &text) {
    const std::size_t begin = text.find_first_not_of(kRewardSpaces);
    return begin == std::string::npos ? std::string() : rewardTrimRight(text.substr(begin));
}

// Whether a term starts at `pos` (after spaces): a kind followed by ':'.
bool rewardTermStartsAt(const std::string &text, std::size_t pos) {
    pos = std::min(text.find_first_not_of(" \t", pos), text.size());
    return std::any_of(
        std::begin(kRewardKindNames), std::end(kRewardKindNames), [&](const char *kind) {
            return text.compare(pos, std::strlen(kind) + 1, std::string(kind) + ":") == 0;
        });
}

std::vector<std::string> splitRewardTerms(const std::string &text) {
    std::vector<std::string> terms;
    std::size_t start = 0;
    for (std::size_t pos = 0; pos < text.size(); ++pos) {
        if (text[pos] == ',' && rewardTermStartsAt(text, pos + 1)) {
            terms.push_back(rewardTrim(text.substr(start, pos - start)));
            start = pos + 1;
        }
    }
    terms.push_back(rewardTrim(text.substr(start)));
    return terms;
}

// The text after the last '*' when it is a number: the term's weight.
std::optional<std::pair<std::string, double>> splitRewardWeight(const std::string &term) {
    const std::size_t star = term.rfind('*');
    if (star == std::string::npos) {
        return std::nullopt;
    }
    const std::optional<double> weight = parseRewardNumber(rewardTrim(term.substr(star + 1)));
    if (!weight) {
        return std::nullopt;
    }
    return std::make_pair(rewardTrimRight(term.substr(0, star)), *weight);
}

std::string rewardTermLabel(std::size_t index, const std::string &term) {
    return "grpo.reward: term " + std::to_string(index + 1) + " \"" + term + "\"";
}

// Throws std::invalid_argument when the term cannot be scored at all.
void checkRewardTerm(std::size_t index, const std::string &term, const RewardTerm &parsed) {
    const std::string &argument = parsed.argument;
    if (argument.empty()) {
        throw std::invalid_argument(rewardTermLabel(index, term) + " needs an argument: write " +
                                    rewardKindText(parsed.kind) + ":" +
                                    kRewardArgumentNames[static_cast<std::size_t>(parsed.kind)]);
    }
    if (isRewardPattern(parsed.kind)) {
        try {
            compileRewardPattern(argument);
        } catch (const std::regex_error &error) {
            throw std::invalid_argument(rewardTermLabel(index, term) +
                                        " is not a valid regular expression: " + error.what());
        }
    }
    const bool whole_number =
        argument.size() <= 9 && argument.find_first_not_of("0123456789") == std::string::npos;
    if (parsed.kind == RewardKind::Length && (!whole_number || std::stoll(argument) == 0)) {
        throw std::invalid_argument(rewardTermLabel(index, term) +
                                    " needs a positive whole number of tokens, e.g. length:200");
    }
}

RewardTerm parseRewardTerm(std::size_t index, const std::string &term) {
    if (term.empty()) {
        throw std::invalid_argument("grpo.reward: term " + std::to_string(index + 1) +
                                    " is empty; " + kRewardSpecExamples);
    }
    RewardTerm parsed;
    std::string body = term;
    if (const auto weighted = splitRewardWeight(term)) {
        body = weighted->first;
        parsed.weight = weighted->second;
    }
    const std::size_t colon = body.find(':');
    const std::string kind_text = rewardTrim(body.substr(0, colon));
    const std::optional<RewardKind> kind = rewardKindFromText(kind_text);
    if (!kind) {
        throw std::invalid_argument(rewardTermLabel(index, term) + " has an unknown kind \"" +
                                    kind_text + "\"; " + kRewardSpecExamples);
    }
    parsed.kind = *kind;
    parsed.argument = colon == std::string::npos ? std::string() : body.substr(colon + 1);
    if (!isRewardPattern(parsed.kind)) {
        parsed.argument = rewardTrim(parsed.argument);
        // A field or a length cannot sensibly end in "*text": that is a weight written wrong.
        const std::size_t star = parsed.argument.rfind('*');
        if (parsed.kind != RewardKind::Command && star != std::string::npos) {
            throw std::invalid_argument(rewardTermLabel(index, term) + " has a bad weight \"" +
                                        parsed.argument.substr(star + 1) +
                                        "\"; write the weight as a number after the last '*', "
                                        "e.g. *0.5");
        }
    }
    parsed.name = kind_text + ":" + parsed.argument;
    checkRewardTerm(index, term, parsed);
    return parsed;
}

// Makes '.' match line breaks too: an unescaped '.' outside brackets becomes [\s\S].
std::string rewardDotMatchesAll(const std::string &pattern) {
    std::string translated;
    bool in_brackets = false;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        const char c = pattern[i];
        if (c == '\\' && i + 1 < pattern.size()) {
            translated += pattern.substr(i++, 2);
        } else if (c == '.' && !in_brackets) {
            translated += "[\\s\\S]";
        } else {
            translated += c;
            in_brackets = in_brackets ? c != ']' : c == '[';
        }
    }
    return translated;
}

std::optional<double> rewardAnswerNumber(std::string text) {
    text.erase(
        std::remove_if(text.begin(), text.end(), [](char c) { return c == '$' || c == ','; }),
        text.end());
    if (!text.empty() && text.back() == '.') {
        text.pop_back();
    }
    return parseRewardNumber(text);
}

// The record's FIELD as text, for exact:FIELD.
std::string expectedRewardAnswer(const RewardTerm &term, const std::string &record_json) {
    nlohmann::json record;
    if (!rewardTrim(record_json).empty()) {
        record = nlohmann::json::parse(record_json, nullptr, false);
        if (record.is_discarded()) {
            throw RewardError("The reward " + term.name +
                              " needs each data record as a JSON object, but a record is not "
                              "valid JSON.");
        }
    }
    const std::string &field = term.argument;
    if (!record.is_object() || !record.contains(field) || record[field].is_null()) {
        std::string fields;
        for (auto it = record.begin(); record.is_object() && it != record.end(); ++it) {
            fields += (fields.empty() ? "" : ", ") + it.key();
        }
        throw RewardError("The reward " + term.name + " compares with the record's field \"" +
                          field + "\", but a record has no such field (its fields: " +
                          (fields.empty() ? "none" : fields) +
                          "); name a field every record has after exact:.");
    }
    const nlohmann::json &value = record[field];
    if (value.is_string()) {
        return value.get<std::string>();
    }
    if (value.is_number()) {
        return value.dump();
    }
    throw RewardError("The reward " + term.name + " compares with the record's field \"" + field +
                      "\", but in a record it is " + value.type_name() +
                      ", not a string or a number; name a field that holds the answer.");
}

} // namespace

std::vector<RewardTerm> parseRewardSpec(const std::string &text) {
    if (rewardTrim(text).empty()) {
        throw std::invalid_argument(std::string("grpo.reward is empty; ") + kRewardSpecExamples);
    }
    const std::vector<std::string> texts = splitRewardTerms(text);
    std::vector<RewardTerm> terms;
    terms.reserve(texts.size());
    for (std::size_t i = 0; i < texts.size(); ++i) {
        terms.push_back(parseRewardTerm(i, texts[i]));
    }
    return terms;
}

std::string formatRewardSpec(const std::vector<RewardTerm> &terms) {
    std::string text;
    for (const RewardTerm &term : terms) {
        std::string written = rewardKindText(term.kind) + ":" + term.argument;
        // An argument that ends like a weight ("regex:a*2" meant literally) needs its own weight.
        if (term.weight != 1 || splitRewardWeight(written)) {
            written += "*" + formatRewardNumber(term.weight);
        }
        text += (text.empty() ? "" : ",") + written;
    }
    return text;
}

std::regex compileRewardPattern(const std::string &pattern) {
    const std::string translated = rewardDotMatchesAll(pattern);
#if defined(__GLIBCXX__)
    // libstdc++'s default matcher recurses once per character it consumes and overflows the
    // stack on completions of some 30,000 characters. Its polynomial matcher does not; it refuses
    // back-references, which keep the default.
    try {
        return std::regex(translated, std::regex::ECMAScript | std::regex_constants::__polynomial);
    } catch (const std::regex_error &) {
    }
#endif
    return std::regex(translated, std::regex::ECMAScript);
}

std::string formatRewardNumber(double value) {
    std::string text;
    for (int precision : {15, 17}) {
        std::ostringstream stream;
        stream.imbue(std::locale::classic());
        stream << std::setprecision(precision) << value;
        text = stream.str();
        if (parseRewardNumber(text) == value) {
            break;
        }
    }
    return text;
}

std::optional<double> parseRewardNumber(const std::string &text) {
    static const std::regex decimal("[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?");
    if (!std::regex_match(text, decimal)) {
        return std::nullopt;
    }
    std::istringstream stream(text);
    stream.imbue(std::locale::classic());
    double value = 0;
    stream >> value;
    if (stream.fail() || !std::isfinite(value)) {
        return std::nullopt;
    }
    return value;
}

bool answersMatch(const std::string &given, const std::string &expected) {
    const std::string given_text = rewardTrim(given);
    const std::string expected_text = rewardTrim(expected);
    const std::optional<double> given_number = rewardAnswerNumber(given_text);
    const std::optional<double> expected_number = rewardAnswerNumber(expected_text);
    if (given_number && expected_number) {
        return std::fabs(*given_number - *expected_number) <=
               1e-6 * std::max(1.0, std::fabs(*expected_number));
    }
    return given_text == expected_text;
}

std::optional<std::string> finalAnswer(const std::string &completion,
                                       const std::regex &answer_pattern) {
    std::smatch last;
    for (std::sregex_iterator it(completion.begin(), completion.end(), answer_pattern), end;
         it != end; ++it) {
        last = *it;
    }
    if (last.empty()) {
        return std::nullopt;
    }
    for (std::size_t group = 1; group < last.size(); ++group) {
        if (last[group].matched) {
            return last[group].str();
        }
    }
    return last[0].str();
}

RewardSet::RewardSet(std::vector<RewardTerm> terms, RewardOptions options)
    : terms_(std::move(terms)), options_(std::move(options)) {
    try {
        answer_pattern_ = compileRewardPattern(options_.answer_pattern);
    } catch (const std::regex_error &error) {
        throw std::invalid_argument("grpo.answer_pattern \"" + options_.answer_pattern +
                                    "\" is not a valid regular expression: " + error.what());
    }
    for (std::size_t i = 0; i < terms_.size(); ++i) {
        const RewardTerm &term = terms_[i];
        const std::string written = rewardKindText(term.kind) + ":" + term.argument;
        checkRewardTerm(i, written, term);
        patterns_.push_back(isRewardPattern(term.kind)
                                ? std::optional<std::regex>(compileRewardPattern(term.argument))
                                : std::nullopt);
        target_lengths_.push_back(term.kind == RewardKind::Length ? std::stoll(term.argument) : 0);
    }
}

std::vector<std::vector<double>> RewardSet::score(const std::vector<Sample> &samples) const {
    std::vector<std::vector<double>> scores(samples.size(), std::vector<double>(terms_.size(), 0));
    for (std::size_t t = 0; t < terms_.size(); ++t) {
        const RewardTerm &term = terms_[t];
        if (term.kind == RewardKind::Command) {
            const std::vector<double> column = runRewardCommand(
                term.argument, samples, options_.command_timeout_s, options_.working_directory);
            for (std::size_t i = 0; i < samples.size(); ++i) {
                scores[i][t] = column[i];
            }
            continue;
        }
        for (std::size_t i = 0; i < samples.size(); ++i) {
            scores[i][t] = builtInScore(t, samples[i]);
        }
    }
    return scores;
}

double RewardSet::builtInScore(std::size_t t, const Sample &sample) const {
    switch (terms_[t].kind) {
    case RewardKind::Regex:
        return std::regex_search(sample.completion, *patterns_[t]) ? 1 : 0;
    case RewardKind::Format:
        return std::regex_match(rewardTrim(sample.completion), *patterns_[t]) ? 1 : 0;
    case RewardKind::Exact: {
        const std::string expected = expectedRewardAnswer(terms_[t], sample.record_json);
        const std::optional<std::string> given = finalAnswer(sample.completion, answer_pattern_);
        return given && answersMatch(*given, expected) ? 1 : 0;
    }
    case RewardKind::Length: {
        const double target = static_cast<double>(target_lengths_[t]);
        const double tokens = static_cast<double>(sample.completion_tokens);
        return std::max(0.0, 1.0 - std::fabs(tokens - target) / target);
    }
    case RewardKind::Command:
        break;
    }
    return 0;
}

std::vector<double> RewardSet::combine(const std::vector<std::vector<double>> &scores) const {
    std::vector<double> totals;
    totals.reserve(scores.size());
    for (const std::vector<double> &row : scores) {
        if (row.size() != terms_.size()) {
            throw std::invalid_argument("RewardSet::combine: a row has " +
                                        std::to_string(row.size()) + " scores for " +
                                        std::to_string(terms_.size()) + " terms");
        }
        double total = 0;
        for (std::size_t t = 0; t < row.size(); ++t) {
            total += terms_[t].weight * row[t];
        }
        totals.push_back(total);
    }
    return totals;
}

} // namespace headroom::rewards
