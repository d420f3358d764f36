#pragma once

// Verifiable rewards for GRPO: the grpo.reward setting, the built-in scorers and how their
// scores combine. Torch-free and Qt-free.

#include <cstdint>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

namespace headroom::rewards {

// One completion to score.
struct Sample {
    std::string prompt;     // the prompt's text as the model saw it
    std::string completion; // the generated text
    std::int64_t completion_tokens = 0;
    std::string record_json; // the data record's whole JSON object (every field, e.g. "answer")
};

enum class RewardKind { Regex, Exact, Format, Length, Command };

struct RewardTerm {
    RewardKind kind = RewardKind::Regex;
    std::string argument; // pattern / field name / target length text / command line
    double weight = 1;
    std::string name; // as written without the weight, e.g. "exact:answer"; shown in step lines
};

// A reward that cannot be computed (a record lacking the field exact: names, a failing
// command). what() is a complete sentence a user can act on.
class RewardError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Parses the grpo.reward setting: terms separated by commas, each KIND[:ARGUMENT][*WEIGHT]:
//   regex:PATTERN   1 when PATTERN is found anywhere in the completion, else 0
//   format:PATTERN  1 when the whole completion (whitespace-trimmed) matches PATTERN, else 0
//   exact:FIELD     1 when the completion's final answer equals the record's FIELD, else 0
//   length:N        max(0, 1 - |tokens - N| / N)
//   command:CMD     one number per completion from an external program (reward_command.h)
// The weight is taken only when the text after the last '*' is a whole number ("regex:a.*"
// keeps its star). A comma separates terms only when the next term (spaces allowed) starts with
// a kind and a colon, so "regex:a{1,3}" keeps its comma. Throws std::invalid_argument naming the
// term and the problem.
std::vector<RewardTerm> parseRewardSpec(const std::string &text);

// The terms as they would be written in grpo.reward (parseRewardSpec reads it back unchanged).
std::string formatRewardSpec(const std::vector<RewardTerm> &terms);

// An ECMAScript pattern in which '.' also matches line breaks. Throws std::regex_error.
std::regex compileRewardPattern(const std::string &pattern);

// A plain decimal number ("1", "-0.5", ".5", "1e-1"), read the same in every locale; nullopt
// for anything else, including nan, inf and numbers out of range.
std::optional<double> parseRewardNumber(const std::string &text);
// A number as grpo.reward writes it, read back unchanged by parseRewardNumber ("0.2", "1e-07").
std::string formatRewardNumber(double value);

struct RewardOptions {
    // Locates the final answer in a completion for exact: (with '.' matching line breaks). The
    // last match counts: its first participating capture group when the pattern has groups,
    // else the whole match. No match: the reward is 0.
    std::string answer_pattern = "-?[0-9][0-9,]*(?:\\.[0-9]+)?";
    double command_timeout_s = 60;
    std::string working_directory; // where command: runs; empty = the current directory
};

// Both sides trimmed; when both read as numbers after removing '$', ',' and a trailing '.',
// they match within 1e-6 * max(1, |expected|); otherwise the trimmed texts must be equal.
bool answersMatch(const std::string &given, const std::string &expected);

// The final answer per RewardOptions::answer_pattern, or nullopt when the pattern is not found.
std::optional<std::string> finalAnswer(const std::string &completion,
                                       const std::regex &answer_pattern);

class RewardSet {
public:
    // Compiles the patterns once. Throws std::invalid_argument for a bad answer_pattern or a
    // term that parseRewardSpec would refuse.
    RewardSet(std::vector<RewardTerm> terms, RewardOptions options);

    // scores[i][t]: sample i, term t. Every command term runs once for all samples. Throws
    // RewardError.
    std::vector<std::vector<double>> score(const std::vector<Sample> &samples) const;

    // The weighted sum of each sample's scores.
    std::vector<double> combine(const std::vector<std::vector<double>> &scores) const;

    const std::vector<RewardTerm> &terms() const { return terms_; }
    const RewardOptions &options() const { return options_; }

private:
    double builtInScore(std::size_t term, const Sample &sample) const;

    std::vector<RewardTerm> terms_;
    RewardOptions options_;
    std::vector<std::optional<std::regex>> patterns_; // per term; set for regex: and format:
    std::vector<std::int64_t> target_lengths_;        // per term; set for length:
    std::regex answer_pattern_;
};

} // namespace headroom::rewards
