#pragma once

#include <cstddef>
#include <string>

namespace headroom::data {

// Index of the first byte that does not belong to well-formed UTF-8 (overlong forms,
// surrogates and code points above U+10FFFF are rejected), or `size` when all is valid.
std::size_t findInvalidUtf8(const char *data, std::size_t size);

// At most `max_bytes` bytes of `text`, cut on a character boundary, with "…" appended when
// something was cut.
std::string previewUtf8(const std::string &text, std::size_t max_bytes);

} // namespace headroom::data
