#include "tokenizers/json_reader.h"

#include <algorithm>

namespace headroom::tokenizers {

namespace {

const char *typeName(const nlohmann::json &value) {
    return value.type_name();
}

} // namespace

void JsonNode::fail(const std::string &what) const {
    throw TokenizerError(file_ + ": " + (path_.empty() ? "/" : path_) + ": " + what);
}

bool JsonNode::has(const std::string &key) const {
    if (!value_->is_object()) {
        return false;
    }
    const auto it = value_->find(key);
    return it != value_->end() && !it->is_null();
}

JsonNode JsonNode::at(const std::string &key) const {
    expectObject();
    const auto it = value_->find(key);
    if (it == value_->end()) {
        JsonNode(*value_, file_, path_ + "/" + key).fail("missing (required)");
    }
    return JsonNode(*it, file_, path_ + "/" + key);
}

JsonNode JsonNode::at(std::size_t index) const {
    expectArray();
    if (index >= value_->size()) {
        fail("index " + std::to_string(index) + " out of range");
    }
    return JsonNode((*value_)[index], file_, path_ + "/" + std::to_string(index));
}

std::size_t JsonNode::size() const {
    return value_->size();
}

void JsonNode::expectObject() const {
    if (!value_->is_object()) {
        fail(std::string("expected an object, found ") + typeName(*value_));
    }
}

void JsonNode::expectArray() const {
    if (!value_->is_array()) {
        fail(std::string("expected an array, found ") + typeName(*value_));
    }
}

std::string JsonNode::string() const {
    if (!value_->is_string()) {
        fail(std::string("expected a string, found ") + typeName(*value_));
    }
    return value_->get<std::string>();
}

bool JsonNode::boolean() const {
    if (!value_->is_boolean()) {
        fail(std::string("expected true or false, found ") + typeName(*value_));
    }
    return value_->get<bool>();
}

double JsonNode::number() const {
    if (!value_->is_number()) {
        fail(std::string("expected a number, found ") + typeName(*value_));
    }
    return value_->get<double>();
}

std::int64_t JsonNode::integer() const {
    if (value_->is_number_unsigned()) {
        const auto v = value_->get<std::uint64_t>();
        if (v > static_cast<std::uint64_t>(INT64_MAX)) {
            fail("integer out of range");
        }
        return static_cast<std::int64_t>(v);
    }
    if (!value_->is_number_integer()) {
        fail(std::string("expected an integer, found ") + typeName(*value_));
    }
    return value_->get<std::int64_t>();
}

std::string JsonNode::string(const std::string &key, const std::string &fallback) const {
    return has(key) ? at(key).string() : fallback;
}

bool JsonNode::boolean(const std::string &key, bool fallback) const {
    return has(key) ? at(key).boolean() : fallback;
}

std::int64_t JsonNode::integer(const std::string &key, std::int64_t fallback) const {
    return has(key) ? at(key).integer() : fallback;
}

std::string JsonNode::type() const {
    expectObject();
    if (std::count(path_.begin(), path_.end(), '/') > 32) {
        fail("components nested too deeply");
    }
    return at("type").string();
}

} // namespace headroom::tokenizers
