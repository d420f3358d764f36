#include "config/changed_keys.h"

#include <headroom/config.h>
#include <headroom/units.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

namespace headroom {

namespace {

std::string joined(const std::vector<std::string> &items, const char *separator) {
    std::string text;
    for (const std::string &item : items) {
        if (!text.empty()) {
            text += separator;
        }
        text += item;
    }
    return text;
}

std::string formatLimit(double value) {
    std::ostringstream text;
    text << value;
    return text.str();
}

[[noreturn]] void reject(const KeySpec &spec, const std::string &value,
                         const std::string &accepted) {
    throw ConfigError("bad value '" + value + "' for " + spec.name + ": expected " + accepted);
}

std::string rangeText(const KeySpec &spec, const char *kind) {
    return std::string(kind) + " from " + formatLimit(spec.minimum) + " to " +
           formatLimit(spec.maximum);
}

bool parseInteger(const std::string &text, long long &value) {
    if (text.empty()) {
        return false;
    }
    errno = 0;
    char *end = nullptr;
    value = std::strtoll(text.c_str(), &end, 10);
    return errno == 0 && end == text.c_str() + text.size();
}

bool parseReal(const std::string &text, double &value) {
    if (text.empty()) {
        return false;
    }
    errno = 0;
    char *end = nullptr;
    value = std::strtod(text.c_str(), &end);
    return errno == 0 && end == text.c_str() + text.size() && std::isfinite(value);
}

bool isDeviceName(const std::string &value) {
    if (value == "auto" || value == "cpu" || value == "cuda" || value == "mps") {
        return true;
    }
    long long index = 0;
    return value.rfind("cuda:", 0) == 0 && parseInteger(value.substr(5), index) && index >= 0 &&
           index < 64;
}

bool isPositiveIntegerList(const std::string &value) {
    std::stringstream items(value);
    std::string item;
    int count = 0;
    while (std::getline(items, item, ',')) {
        long long width = 0;
        if (!parseInteger(item, width) || width < 1 || width > 1048576) {
            return false;
        }
        ++count;
    }
    return count > 0 && value.back() != ',';
}

// true/on/yes and false/off/no in any letter case; nothing for other text.
std::optional<bool> booleanWord(const std::string &value) {
    std::string lower;
    for (const char c : value) {
        lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
    if (lower == "true" || lower == "on" || lower == "yes") {
        return true;
    }
    if (lower == "false" || lower == "off" || lower == "no") {
        return false;
    }
    return std::nullopt;
}

bool isOnOffChoice(const KeySpec &spec) {
    return spec.type == KeyType::Choice && spec.choices.size() == 2 &&
           std::find(spec.choices.begin(), spec.choices.end(), "on") != spec.choices.end() &&
           std::find(spec.choices.begin(), spec.choices.end(), "off") != spec.choices.end();
}

// Validates one value against its key and returns the stored (normalized) text.
std::string normalize(const KeySpec &spec, const std::string &value) {
    if (isOnOffChoice(spec) && (booleanWord(value) || value == "1" || value == "0")) {
        const bool on = value == "1" || (value != "0" && *booleanWord(value));
        return on ? "on" : "off";
    }
    switch (spec.type) {
    case KeyType::Choice:
        for (const std::string &accepted : spec.choices) {
            if (value == accepted) {
                return value;
            }
        }
        reject(spec, value, "one of " + joined(spec.choices, ", "));
    case KeyType::Integer: {
        if (!spec.true_value.empty()) {
            if (const std::optional<bool> word = booleanWord(value)) {
                return *word ? spec.true_value : "0";
            }
        }
        long long number = 0;
        if (!parseInteger(value, number) || static_cast<double>(number) < spec.minimum ||
            static_cast<double>(number) > spec.maximum) {
            reject(spec, value,
                   rangeText(spec, "a whole number") +
                       (spec.true_value.empty() ? std::string()
                                                : ", or true/on/yes (= " + spec.true_value +
                                                      ") or false/off/no (= 0)"));
        }
        return std::to_string(number);
    }
    case KeyType::Real: {
        double number = 0;
        if (!parseReal(value, number) || number < spec.minimum || number > spec.maximum) {
            reject(spec, value, rangeText(spec, "a number"));
        }
        return value;
    }
    case KeyType::Boolean:
        if (const std::optional<bool> word = booleanWord(value)) {
            return *word ? "true" : "false";
        }
        if (value == "1" || value == "0") {
            return value == "1" ? "true" : "false";
        }
        reject(spec, value, "true or false (on/off, yes/no, 1/0)");
    case KeyType::Bytes:
        if (value == "none" || parseBytes(value)) {
            return value;
        }
        reject(spec, value, "a size such as 512MiB or 8GiB, or none");
    case KeyType::Path:
        if (value.find('\0') != std::string::npos) {
            reject(spec, value, "a file path");
        }
        return value;
    case KeyType::String:
        if (spec.name == "device" && !isDeviceName(value)) {
            reject(spec, value, "auto, cpu, cuda, cuda:N or mps");
        }
        if (spec.name == "model.hidden" && !isPositiveIntegerList(value)) {
            reject(spec, value, "comma-separated layer widths such as 128,64");
        }
        return value;
    }
    return value;
}

const KeySpec &requireKey(const std::string &key) {
    const KeySpec *spec = findConfigKey(key);
    if (spec == nullptr) {
        std::vector<std::string> names;
        for (const KeySpec &known : configKeys()) {
            names.push_back(known.name);
        }
        throw ConfigError("unknown key '" + key + "'; known keys: " + joined(names, ", "));
    }
    return *spec;
}

} // namespace

const KeySpec *firstChangedKey(const Config &config, const std::string &prefix) {
    for (const KeySpec &spec : configKeys()) {
        if (spec.name.rfind(prefix, 0) == 0 && config.text(spec.name) != spec.default_value) {
            return &spec;
        }
    }
    return nullptr;
}

Config::Config() {
    for (const KeySpec &spec : configKeys()) {
        values_[spec.name] = spec.default_value;
    }
}

void Config::set(const std::string &key, const std::string &value) {
    const KeySpec &spec = requireKey(key);
    values_[key] = normalize(spec, value);
}

void Config::setAssignment(const std::string &assignment) {
    const auto equals = assignment.find('=');
    if (equals == std::string::npos || equals == 0) {
        throw ConfigError("bad --set '" + assignment + "': expected KEY=VALUE");
    }
    set(assignment.substr(0, equals), assignment.substr(equals + 1));
}

bool isLanguageModelRecipe(const std::string &recipe) {
    return recipe == "gpt" || recipe == "causal_lm";
}

bool Config::isLanguageModel() const {
    return isLanguageModelRecipe(text("recipe"));
}

const std::string &Config::text(const std::string &key) const {
    requireKey(key);
    return values_.at(key);
}

std::int64_t Config::integer(const std::string &key) const {
    return std::stoll(text(key));
}

double Config::real(const std::string &key) const {
    return std::stod(text(key));
}

bool Config::boolean(const std::string &key) const {
    return text(key) == "true";
}

std::uint64_t Config::bytes(const std::string &key) const {
    const std::string &value = text(key);
    return value == "none" ? 0 : parseBytes(value).value_or(0);
}

std::map<std::string, std::string> Config::changed() const {
    std::map<std::string, std::string> result;
    for (const KeySpec &spec : configKeys()) {
        const std::string &value = values_.at(spec.name);
        if (value != spec.default_value) {
            result[spec.name] = value;
        }
    }
    return result;
}

void Config::validate() const {
    if (text("data.path").empty()) {
        throw ConfigError("data.path is empty: give the training data file");
    }
    const std::string &recipe = text("recipe");
    const std::string &format = text("data.format");
    const bool pretrained = !text("model.base").empty();
    if (pretrained != (text("tokenizer") == "base")) {
        throw ConfigError(pretrained ? "model.base is set: a pretrained model needs its own "
                                       "tokenizer, tokenizer=base (not " +
                                           text("tokenizer") + ")"
                                     : "tokenizer=base needs model.base, the Hugging Face "
                                       "model folder whose tokenizer it is");
    }
    if (pretrained && recipe == "tabular") {
        throw ConfigError("model.base works with recipe=causal_lm (a language model) or "
                          "recipe=splade (a BERT-family encoder), not tabular");
    }
    if (recipe == "causal_lm" && !pretrained) {
        throw ConfigError("recipe=causal_lm fine-tunes a pretrained causal language model: set "
                          "model.base to its Hugging Face folder (recipe=gpt trains one from "
                          "scratch)");
    }
    if (recipe == "splade" && !pretrained) {
        throw ConfigError("recipe=splade fine-tunes a pretrained masked language model: set "
                          "model.base to a BERT or DistilBERT folder (a SPLADE checkpoint "
                          "works too)");
    }
    const std::string &base_dtype = text("model.base_dtype");
    if (base_dtype != "fp32") {
        if (!pretrained) {
            throw ConfigError("model.base_dtype=" + base_dtype +
                              " sets how a pretrained base (model.base) is held; this project "
                              "has none (use model.base_dtype=fp32)");
        }
        if (integer("lora.rank") == 0) {
            throw ConfigError("model.base_dtype=" + base_dtype +
                              " holds the base frozen in a compact format, but lora.rank=0 "
                              "fine-tunes every weight, which needs them in fp32: set lora.rank "
                              "(e.g. 16) to train adapters on the frozen base, or "
                              "model.base_dtype=fp32");
        }
    }
    validateMoe();
    validatePreference();
    validateGrpo();
    if (recipe != "splade") {
        if (const KeySpec *changed = firstChangedKey(*this, "splade.")) {
            throw ConfigError(changed->name + "=" + text(changed->name) +
                              " is a setting of recipe=splade, not of " + recipe +
                              " (leave the splade.* keys at their defaults)");
        }
    }
    if (isLanguageModelRecipe(recipe)) {
        if (integer("model.params") == 0 && integer("model.dim") % integer("model.heads") != 0) {
            throw ConfigError("model.dim (" + text("model.dim") +
                              ") must be divisible by model.heads (" + text("model.heads") + ")");
        }
        if (real("train.epochs") > 0) {
            throw ConfigError("train.epochs works for recipe=tabular, whose row count is known; "
                              "for recipe=" +
                              recipe + " set train.steps instead (and train.epochs=0)");
        }
    } else if (recipe == "splade") {
        if (format != "auto" && format != "json" && format != "jsonl") {
            throw ConfigError("data.format=" + format +
                              " does not work with recipe=splade: retrieval data is json or "
                              "jsonl with \"query\" and \"positive\" fields");
        }
        if (real("train.epochs") > 0) {
            throw ConfigError("train.epochs works for recipe=tabular; for recipe=splade set "
                              "train.steps instead (and train.epochs=0)");
        }
        if (integer("model.seq_len") < 3) {
            throw ConfigError("model.seq_len (" + text("model.seq_len") +
                              ") must be at least 3 for recipe=splade: [CLS], one token, [SEP]");
        }
    } else if (recipe == "tabular") {
        if (format != "auto" && format != "csv") {
            throw ConfigError("data.format=" + format +
                              " does not work with recipe=tabular: tabular data must be csv");
        }
    }
    if (integer("data.stride") > integer("model.seq_len")) {
        throw ConfigError("data.stride (" + text("data.stride") +
                          ") is larger than model.seq_len (" + text("model.seq_len") +
                          "): tokens between windows would be skipped");
    }
    if (integer("data.packing") == 1) {
        if (!isLanguageModelRecipe(recipe)) {
            throw ConfigError("data.packing=1 is for language models (recipe=gpt or causal_lm), "
                              "not recipe=" +
                              recipe);
        }
        if (integer("data.stride") != 0) {
            throw ConfigError("data.packing=1 places whole records in the windows; data.stride (" +
                              text("data.stride") +
                              ") cuts one stream of text and cannot go with it: set one of them");
        }
    }
}

void Config::validateMoe() const {
    const std::string &recipe = text("recipe");
    if (!isLanguageModelRecipe(recipe)) {
        if (const KeySpec *changed = firstChangedKey(*this, "moe.")) {
            throw ConfigError(changed->name + "=" + text(changed->name) +
                              ": Mixture-of-Experts blocks are part of the gpt recipe; the " +
                              recipe + " recipe has none (leave the moe.* keys at their defaults)");
        }
        return;
    }
    const std::int64_t experts = integer("moe.experts");
    if (experts == 0) {
        return;
    }
    if (!text("model.base").empty()) {
        throw ConfigError("moe.experts=" + text("moe.experts") +
                          " builds Mixture-of-Experts blocks into a GPT trained from scratch; a "
                          "pretrained model (model.base) keeps its own architecture (use "
                          "moe.experts=0)");
    }
    if (integer("moe.top_k") > experts) {
        throw ConfigError("moe.top_k (" + text("moe.top_k") + ") must be at most moe.experts (" +
                          text("moe.experts") + ")");
    }
    if (integer("model.params") == 0 && integer("moe.every") > integer("model.layers")) {
        throw ConfigError("moe.every (" + text("moe.every") + ") is larger than model.layers (" +
                          text("model.layers") + "): no block would be an MoE block");
    }
}

std::string Config::toJson(int indent) const {
    nlohmann::ordered_json document = nlohmann::ordered_json::object();
    for (const KeySpec &spec : configKeys()) {
        document[spec.name] = values_.at(spec.name);
    }
    return document.dump(indent);
}

Config Config::fromJson(const std::string &json) {
    // A config is a flat object of short values; anything far larger comes from a damaged or
    // hostile file and is refused before it is parsed.
    constexpr std::size_t kMaxConfigBytes = std::size_t{1} << 20;
    constexpr int kMaxConfigDepth = 16;
    if (json.size() > kMaxConfigBytes) {
        throw ConfigError("config is " + std::to_string(json.size()) +
                          " bytes; a config is at most 1 MiB");
    }
    nlohmann::json document;
    try {
        document = nlohmann::json::parse(
            json, [](int depth, nlohmann::json::parse_event_t, nlohmann::json &) {
                if (depth > kMaxConfigDepth) {
                    throw ConfigError("config is not valid: JSON nested deeper than " +
                                      std::to_string(kMaxConfigDepth) + " levels");
                }
                return true;
            });
    } catch (const nlohmann::json::exception &error) {
        throw ConfigError(std::string("config is not valid JSON: ") + error.what());
    }
    if (!document.is_object()) {
        throw ConfigError("config must be a JSON object of \"key\": \"value\" pairs");
    }
    Config config;
    for (const auto &item : document.items()) {
        const nlohmann::json &value = item.value();
        std::string text;
        if (value.is_string()) {
            text = value.get<std::string>();
        } else if (value.is_boolean()) {
            text = value.get<bool>() ? "true" : "false";
        } else if (value.is_number_integer()) {
            text = std::to_string(value.get<long long>());
        } else if (value.is_number()) {
            text = value.dump();
        } else {
            throw ConfigError("bad value for " + item.key() + ": expected a string or a number");
        }
        config.set(item.key(), text);
    }
    return config;
}

} // namespace headroom
