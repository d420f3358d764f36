#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace headroom {

// Bad input from the user: a data file, an argument, a value. The message names the problem.
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A bad key or value. The message names the key and the accepted values.
class ConfigError : public InputError {
public:
    using InputError::InputError;
};

enum class KeyType { String, Choice, Integer, Real, Boolean, Bytes, Path };

struct KeySpec {
    std::string name;
    KeyType type = KeyType::String;
    std::string default_value;
    std::vector<std::string> choices; // Choice: the accepted values
    double minimum = 0;               // Integer / Real: inclusive bounds
    double maximum = 0;
    std::string description;
    // Integer keys with a natural on/off reading: the value "true"/"on"/"yes" stands for
    // (e.g. "1" for checkpointing); "false"/"off"/"no" is 0. Empty: numbers only.
    std::string true_value;
};

// Every key a project, the wizard and `--set` understand, in display order.
const std::vector<KeySpec> &configKeys();
const KeySpec *findConfigKey(const std::string &name);

// A recipe that trains a causal language model: gpt (from scratch; in projects written before
// causal_lm existed, also with a model.base) or causal_lm (a pretrained base fine-tuned).
bool isLanguageModelRecipe(const std::string &recipe);
// Why a grpo.reward text (with this grpo.answer_pattern) cannot be used, naming the term; empty
// when it can.
std::string rewardSpecProblem(const std::string &spec, const std::string &answer_pattern);

// The run configuration: dotted keys with typed, validated values. Values are kept in their
// normalized text form ("512MiB" stays as typed for bytes, numbers are canonical).
class Config {
public:
    Config(); // every key at its default

    // Throws ConfigError naming the key and the accepted values.
    void set(const std::string &key, const std::string &value);
    // "key=value", as given to --set.
    void setAssignment(const std::string &assignment);

    const std::string &text(const std::string &key) const;
    std::int64_t integer(const std::string &key) const;
    double real(const std::string &key) const;
    bool boolean(const std::string &key) const;
    std::uint64_t bytes(const std::string &key) const; // 0 when the value is "none"

    // Keys whose value differs from the default.
    std::map<std::string, std::string> changed() const;
    const std::map<std::string, std::string> &values() const { return values_; }

    // isLanguageModelRecipe(text("recipe")).
    bool isLanguageModel() const;

    // Checks that involve several keys (e.g. model.dim divisible by model.heads).
    void validate() const;

    // A JSON object {key: value-text}. fromJson rejects unknown keys and bad values.
    std::string toJson(int indent = -1) const;
    static Config fromJson(const std::string &json);

private:
    // The moe.* keys: only with recipe=gpt and no model.base, top_k <= experts, every <= layers.
    void validateMoe() const;
    // train.objective and the pref.* keys: preference objectives on a pretrained base only.
    void validatePreference() const;
    // train.objective=grpo: a pretrained base, a reward, whole groups per step.
    void validateGrpo() const;

    std::map<std::string, std::string> values_;
};

} // namespace headroom
