// Reading the small JSON files of a model folder (config.json, the shard index, the generation and
// tokenizer configs) with messages that name the file and the key.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace headroom::hf {

// The whole file, refused when it is larger than max_bytes or is not UTF-8.
std::string readTextFile(const std::string &path, std::uint64_t max_bytes);

// Parses JSON text; a syntax error names `source` and the parser's line and column.
nlohmann::json parseJson(const std::string &text, const std::string &source);
nlohmann::ordered_json parseOrderedJson(const std::string &text, const std::string &source);

// The parser's message without the library's tag, cut to a few hundred characters.
std::string jsonErrorText(const nlohmann::json::exception &error);

// A value as a message shows it: numbers, booleans and null as written, strings quoted and cut to a
// few dozen characters, containers by kind ("an object", "an array").
std::string describeJson(const nlohmann::json &value);
std::string describeJson(const nlohmann::ordered_json &value);

// Typed reads of the keys of one JSON object. Each throws ModelFolderError naming the source file,
// the key (after `prefix`, e.g. "rope_scaling."), the value found and what was expected. A missing
// key gives the fallback; null counts as missing only for the optional forms.
class JsonFields {
public:
    JsonFields(const nlohmann::json &object, std::string source, std::string prefix = {});

    const nlohmann::json &object() const { return object_; }
    const std::string &source() const { return source_; }
    bool has(const std::string &key) const; // present and not null
    // "SOURCE: PREFIXKEY"
    std::string name(const std::string &key) const;
    [[noreturn]] void fail(const std::string &key, const std::string &expected) const;

    std::int64_t integer(const std::string &key, std::int64_t fallback, std::int64_t minimum,
                         std::int64_t maximum) const;
    std::optional<std::int64_t> optionalInteger(const std::string &key, std::int64_t minimum,
                                                std::int64_t maximum) const;
    // `expected` replaces the "a number from MIN to MAX" of the message when given.
    double number(const std::string &key, double fallback, double minimum, double maximum,
                  const std::string &expected = {}) const;
    std::optional<double> optionalNumber(const std::string &key, double minimum, double maximum,
                                         const std::string &expected = {}) const;
    bool boolean(const std::string &key, bool fallback) const;
    std::optional<bool> optionalBoolean(const std::string &key) const;
    std::optional<std::string> optionalString(const std::string &key) const;
    // A token id such as pad_token_id: the integer when it lies in [0, vocab_size); nullopt when
    // it is absent, null, negative (the old -1 for "none") or outside the vocabulary. Fails for
    // a value that is not an integer.
    std::optional<std::int64_t> optionalTokenId(const std::string &key,
                                                std::int64_t vocab_size) const;
    // torch_dtype, or dtype as transformers 5 writes it; "" when neither is given.
    std::string torchDtype() const;

private:
    const nlohmann::json &object_;
    std::string source_;
    std::string prefix_;
};

// "[64, 32]"
std::string shapeText(const std::vector<std::int64_t> &shape);

} // namespace headroom::hf
