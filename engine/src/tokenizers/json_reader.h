#pragma once

// Reading tokenizer.json with the JSON path of every value, so errors name where they are:
// `tokenizer.json: /pre_tokenizer/pretokenizers/2/type: unknown pre-tokenizer 'Foo'`.

#include <headroom/tokenizer.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace headroom::tokenizers {

class JsonNode {
public:
    JsonNode(const nlohmann::json &value, std::string file, std::string path = "")
        : value_(&value), file_(std::move(file)), path_(std::move(path)) {}

    const nlohmann::json &json() const { return *value_; }
    const std::string &path() const { return path_; }
    const std::string &file() const { return file_; }

    [[noreturn]] void fail(const std::string &what) const;

    bool has(const std::string &key) const;    // present and not null
    JsonNode at(const std::string &key) const; // required member (object)
    JsonNode at(std::size_t index) const;
    std::size_t size() const; // array or object size

    void expectObject() const;
    void expectArray() const;
    std::string string() const;
    bool boolean() const;
    double number() const;
    std::int64_t integer() const;

    std::string string(const std::string &key, const std::string &fallback) const;
    bool boolean(const std::string &key, bool fallback) const;
    std::int64_t integer(const std::string &key, std::int64_t fallback) const;
    // The "type" member, required.
    std::string type() const;

private:
    const nlohmann::json *value_;
    std::string file_;
    std::string path_;
};

} // namespace headroom::tokenizers
