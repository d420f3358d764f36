#pragma once

#include <string>

namespace headroom::util {

inline bool startsWith(const std::string &text, const std::string &prefix) {
    return text.rfind(prefix, 0) == 0;
}

inline bool endsWith(const std::string &text, const std::string &suffix) {
    return text.size() >= suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

inline bool contains(const std::string &text, const std::string &part) {
    return text.find(part) != std::string::npos;
}

// The text up to its first line break (all of it when there is none).
inline std::string firstLine(const std::string &text) {
    return text.substr(0, text.find('\n'));
}

} // namespace headroom::util
