#include "data/data_spec.h"

#include "util/text.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace headroom::data {
namespace {

using util::endsWith;

std::string lowercase(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

} // namespace

Format guessFormat(const std::string &path) {
    const std::string lower = lowercase(path);
    if (endsWith(lower, ".jsonl") || endsWith(lower, ".ndjson")) {
        return Format::Jsonl;
    }
    if (endsWith(lower, ".json")) {
        return Format::Json;
    }
    if (endsWith(lower, ".csv")) {
        return Format::Csv;
    }
    return Format::Text;
}

Format parseFormat(const std::string &text) {
    const std::string lower = lowercase(text);
    if (lower == "text") {
        return Format::Text;
    }
    if (lower == "jsonl") {
        return Format::Jsonl;
    }
    if (lower == "json") {
        return Format::Json;
    }
    if (lower == "csv") {
        return Format::Csv;
    }
    throw std::invalid_argument("unknown data format '" + text +
                                "' (accepted: text, jsonl, json, csv)");
}

std::string toString(Format format) {
    switch (format) {
    case Format::Text:
        return "text";
    case Format::Jsonl:
        return "jsonl";
    case Format::Json:
        return "json";
    case Format::Csv:
        return "csv";
    }
    return "text";
}

} // namespace headroom::data
