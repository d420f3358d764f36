#include "data/split.h"

#include "data/data_error.h"

#include <fstream>
#include <limits>
#include <vector>

namespace headroom::data {

std::uint64_t mix64(std::uint64_t value) {
    value ^= value >> 30;
    value *= 0xbf58476d1ce4e5b9ULL;
    value ^= value >> 27;
    value *= 0x94d049bb133111ebULL;
    value ^= value >> 31;
    return value;
}

bool isValidationRecord(std::uint64_t split_seed, std::int64_t ordinal, double fraction) {
    if (fraction <= 0) {
        return false;
    }
    const std::uint64_t hash =
        mix64(mix64(split_seed + 0x9e3779b97f4a7c15ULL) ^ static_cast<std::uint64_t>(ordinal));
    const double unit = static_cast<double>(hash >> 11) * 0x1.0p-53;
    return unit < fraction;
}

std::uint64_t ShuffleRng::next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    return mix64(state_);
}

std::uint64_t ShuffleRng::below(std::uint64_t bound) {
    // Reject the few values of the top partial range so every residue is equally likely.
    const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() -
                                std::numeric_limits<std::uint64_t>::max() % bound;
    std::uint64_t value = next();
    while (value >= limit) {
        value = next();
    }
    return value % bound;
}

std::uint64_t fnv1a(const void *data, std::size_t size, std::uint64_t hash) {
    const auto *bytes = static_cast<const unsigned char *>(data);
    for (std::size_t i = 0; i < size; ++i) {
        hash ^= bytes[i];
        hash *= 0x100000001b3ULL;
    }
    return hash;
}

FileFingerprint fingerprintFile(const std::string &path) {
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    if (!file) {
        throw DataError(path, 0, "cannot open the file: it does not exist or is unreadable");
    }
    FileFingerprint fingerprint;
    fingerprint.size = static_cast<std::uint64_t>(file.tellg());
    file.seekg(0);
    std::vector<char> head(4096);
    file.read(head.data(), static_cast<std::streamsize>(head.size()));
    fingerprint.head_hash = fnv1a(head.data(), static_cast<std::size_t>(file.gcount()));
    return fingerprint;
}

} // namespace headroom::data
