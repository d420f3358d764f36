#include "data/utf8.h"

namespace headroom::data {
namespace {

bool isContinuation(unsigned char byte) {
    return (byte & 0xC0) == 0x80;
}

// Length of the well-formed sequence starting at data[i], or 0 when it is malformed.
std::size_t sequenceLength(const unsigned char *data, std::size_t i, std::size_t size) {
    const unsigned char lead = data[i];
    if (lead < 0x80) {
        return 1;
    }
    std::size_t length = 0;
    unsigned char second_min = 0x80;
    unsigned char second_max = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0) {
            second_min = 0xA0; // overlong
        } else if (lead == 0xED) {
            second_max = 0x9F; // surrogates
        }
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0) {
            second_min = 0x90; // overlong
        } else if (lead == 0xF4) {
            second_max = 0x8F; // above U+10FFFF
        }
    } else {
        return 0;
    }
    if (i + length > size || data[i + 1] < second_min || data[i + 1] > second_max) {
        return 0;
    }
    for (std::size_t k = 2; k < length; ++k) {
        if (!isContinuation(data[i + k])) {
            return 0;
        }
    }
    return length;
}

} // namespace

std::size_t findInvalidUtf8(const char *data, std::size_t size) {
    const auto *bytes = reinterpret_cast<const unsigned char *>(data);
    std::size_t i = 0;
    while (i < size) {
        // Fast path over ASCII.
        if (bytes[i] < 0x80) {
            ++i;
            continue;
        }
        const std::size_t length = sequenceLength(bytes, i, size);
        if (length == 0) {
            return i;
        }
        i += length;
    }
    return size;
}

std::string previewUtf8(const std::string &text, std::size_t max_bytes) {
    if (text.size() <= max_bytes) {
        return text;
    }
    std::size_t cut = max_bytes;
    while (cut > 0 && isContinuation(static_cast<unsigned char>(text[cut]))) {
        --cut;
    }
    return text.substr(0, cut) + "\xE2\x80\xA6";
}

} // namespace headroom::data
