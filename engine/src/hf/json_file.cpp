#include "hf/json_file.h"

#include "data/utf8.h"
#include "hf/hf_error.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <locale>
#include <sstream>
#include <utility>

namespace headroom::hf {

namespace {

namespace fs = std::filesystem;

std::string formatNumber(double value) {
    // 1e-05 reads better than 1.0000000000000001e-05: the shortest text that reads back equal.
    // The classic locale: a decimal point whatever locale the application set.
    std::ostringstream out;
    out.imbue(std::locale::classic());
    for (int precision = 1; precision <= std::numeric_limits<double>::max_digits10; ++precision) {
        out.str({});
        out.precision(precision);
        out << value;
        std::istringstream in(out.str());
        in.imbue(std::locale::classic());
        double back = 0;
        if (in >> back && back == value) {
            break;
        }
    }
    return out.str();
}

template <typename Json> std::string describe(const Json &value) {
    switch (value.type()) {
    case nlohmann::json::value_t::null:
        return "null";
    case nlohmann::json::value_t::boolean:
        return value.template get<bool>() ? "true" : "false";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
        return value.dump();
    case nlohmann::json::value_t::number_float:
        return formatNumber(value.template get<double>());
    case nlohmann::json::value_t::string:
        return "\"" + data::previewUtf8(value.template get_ref<const std::string &>(), 60) + "\"";
    case nlohmann::json::value_t::object:
        return "an object";
    case nlohmann::json::value_t::array:
        return "an array";
    default:
        return "a value";
    }
}

template <typename Json> Json parse(const std::string &text, const std::string &source) {
    try {
        return Json::parse(text);
    } catch (const nlohmann::json::exception &error) {
        throw ModelFolderError(source + ": malformed JSON: " + jsonErrorText(error));
    }
}

std::string integerRange(std::int64_t minimum, std::int64_t maximum) {
    return "an integer from " + std::to_string(minimum) + " to " + std::to_string(maximum);
}

} // namespace

std::string jsonErrorText(const nlohmann::json::exception &error) {
    // "[json.exception.parse_error.101] parse error at line 1, column 3: ..." without the tag; cut,
    // since "last read" can quote a whole unterminated string.
    std::string what = error.what();
    const std::size_t tag = what.find("] ");
    if (what.rfind("[json.exception.", 0) == 0 && tag != std::string::npos) {
        what = what.substr(tag + 2);
    }
    return data::previewUtf8(what, 300);
}

std::string readTextFile(const std::string &path, std::uint64_t max_bytes) {
    std::error_code error;
    const fs::file_status status = fs::status(path, error);
    if (error || !fs::is_regular_file(status)) {
        throw ModelFolderError(path + ": " +
                               (error ? error.message() : std::string("not a regular file")));
    }
    const std::uint64_t size = fs::file_size(path, error);
    if (error) {
        throw ModelFolderError(path + ": " + error.message());
    }
    if (size > max_bytes) {
        throw ModelFolderError(path + ": " + std::to_string(size) + " bytes, more than the " +
                               std::to_string(max_bytes) + " this file may have");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw ModelFolderError(path + ": cannot be opened for reading");
    }
    std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (in.bad() || text.size() > max_bytes) {
        throw ModelFolderError(path + ": could not be read whole");
    }
    const std::size_t invalid = data::findInvalidUtf8(text.data(), text.size());
    if (invalid != text.size()) {
        throw ModelFolderError(path + ": not UTF-8 text (byte " + std::to_string(invalid) + ")");
    }
    return text;
}

nlohmann::json parseJson(const std::string &text, const std::string &source) {
    return parse<nlohmann::json>(text, source);
}

nlohmann::ordered_json parseOrderedJson(const std::string &text, const std::string &source) {
    return parse<nlohmann::ordered_json>(text, source);
}

std::string describeJson(const nlohmann::json &value) {
    return describe(value);
}
std::string describeJson(const nlohmann::ordered_json &value) {
    return describe(value);
}

JsonFields::JsonFields(const nlohmann::json &object, std::string source, std::string prefix)
    : object_(object), source_(std::move(source)), prefix_(std::move(prefix)) {}

bool JsonFields::has(const std::string &key) const {
    const auto found = object_.find(key);
    return found != object_.end() && !found->is_null();
}

std::string JsonFields::name(const std::string &key) const {
    return source_ + ": " + prefix_ + key;
}

void JsonFields::fail(const std::string &key, const std::string &expected) const {
    const auto found = object_.find(key);
    throw ModelFolderError(name(key) +
                           (found == object_.end() ? " is missing" : " is " + describe(*found)) +
                           ", expected " + expected);
}

std::optional<std::int64_t> JsonFields::optionalInteger(const std::string &key,
                                                        std::int64_t minimum,
                                                        std::int64_t maximum) const {
    if (!has(key)) {
        return std::nullopt;
    }
    const nlohmann::json &value = object_.at(key);
    const std::string expected = integerRange(minimum, maximum);
    if (!value.is_number_integer()) {
        fail(key, expected);
    }
    if (value.is_number_unsigned()) {
        // The parser gives every non-negative integer this type; it may exceed int64.
        const auto number = value.get<std::uint64_t>();
        if (maximum < 0 || number > static_cast<std::uint64_t>(maximum) ||
            (minimum > 0 && number < static_cast<std::uint64_t>(minimum))) {
            fail(key, expected);
        }
        return static_cast<std::int64_t>(number);
    }
    const auto number = value.get<std::int64_t>();
    if (number < minimum || number > maximum) {
        fail(key, expected);
    }
    return number;
}

std::int64_t JsonFields::integer(const std::string &key, std::int64_t fallback,
                                 std::int64_t minimum, std::int64_t maximum) const {
    if (!object_.contains(key)) {
        return fallback;
    }
    if (object_.at(key).is_null()) {
        fail(key, integerRange(minimum, maximum));
    }
    return *optionalInteger(key, minimum, maximum);
}

std::optional<double> JsonFields::optionalNumber(const std::string &key, double minimum,
                                                 double maximum,
                                                 const std::string &expected) const {
    if (!has(key)) {
        return std::nullopt;
    }
    const nlohmann::json &value = object_.at(key);
    const std::string wanted =
        expected.empty() ? "a number from " + formatNumber(minimum) + " to " + formatNumber(maximum)
                         : expected;
    if (!value.is_number()) {
        fail(key, wanted);
    }
    const auto number = value.get<double>();
    if (!(number >= minimum && number <= maximum)) {
        fail(key, wanted);
    }
    return number;
}

double JsonFields::number(const std::string &key, double fallback, double minimum, double maximum,
                          const std::string &expected) const {
    if (!object_.contains(key)) {
        return fallback;
    }
    if (object_.at(key).is_null()) {
        fail(key, expected.empty() ? "a number" : expected);
    }
    return *optionalNumber(key, minimum, maximum, expected);
}

std::optional<bool> JsonFields::optionalBoolean(const std::string &key) const {
    if (!has(key)) {
        return std::nullopt;
    }
    if (!object_.at(key).is_boolean()) {
        fail(key, "true or false");
    }
    return object_.at(key).get<bool>();
}

bool JsonFields::boolean(const std::string &key, bool fallback) const {
    if (object_.contains(key) && object_.at(key).is_null()) {
        fail(key, "true or false");
    }
    return optionalBoolean(key).value_or(fallback);
}

std::optional<std::string> JsonFields::optionalString(const std::string &key) const {
    if (!has(key)) {
        return std::nullopt;
    }
    if (!object_.at(key).is_string()) {
        fail(key, "a string");
    }
    return object_.at(key).get<std::string>();
}

std::string shapeText(const std::vector<std::int64_t> &shape) {
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        text += (i == 0 ? "" : ", ") + std::to_string(shape[i]);
    }
    return text + "]";
}

std::optional<std::int64_t> JsonFields::optionalTokenId(const std::string &key,
                                                        std::int64_t vocab_size) const {
    if (!has(key)) {
        return std::nullopt;
    }
    const nlohmann::json &value = object_.at(key);
    if (!value.is_number_integer()) {
        fail(key, "an integer or null");
    }
    if (value.is_number_unsigned() &&
        value.get<std::uint64_t>() < static_cast<std::uint64_t>(vocab_size)) {
        return value.get<std::int64_t>();
    }
    return std::nullopt;
}

std::string JsonFields::torchDtype() const {
    return optionalString(has("torch_dtype") ? "torch_dtype" : "dtype").value_or("");
}

} // namespace headroom::hf
