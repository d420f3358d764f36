#pragma once

#include <cstdint>
#include <string>

namespace headroom::data {

// SplitMix64's finalizer: a fast, well-mixed 64-bit hash of one word.
std::uint64_t mix64(std::uint64_t value);

// The train/validation assignment of a record: a hash of (split_seed, ordinal) mapped to
// [0, 1) and compared with the fraction. Independent of shuffling by construction.
bool isValidationRecord(std::uint64_t split_seed, std::int64_t ordinal, double fraction);

// Shuffle generator whose whole state is one word (SplitMix64), so it is trivially saved.
class ShuffleRng {
public:
    explicit ShuffleRng(std::uint64_t seed = 0) : state_(seed) {}
    std::uint64_t next();
    // Uniform in [0, bound), without modulo bias; bound > 0.
    std::uint64_t below(std::uint64_t bound);
    std::uint64_t state() const { return state_; }
    void setState(std::uint64_t state) { state_ = state; }

private:
    std::uint64_t state_;
};

// FNV-1a, for fingerprints (not security).
std::uint64_t fnv1a(const void *data, std::size_t size, std::uint64_t hash = 0xcbf29ce484222325ULL);

// What identifies a data file's content cheaply: its size and a hash of its first 4 KiB.
struct FileFingerprint {
    std::uint64_t size = 0;
    std::uint64_t head_hash = 0;
};
// Throws DataError when the file cannot be read.
FileFingerprint fingerprintFile(const std::string &path);

} // namespace headroom::data
