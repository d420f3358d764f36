#include "util/hashing.h"

#include <array>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace headroom::util {

namespace {

class Sha256 {
public:
    void update(const unsigned char *data, std::size_t size) {
        for (std::size_t i = 0; i < size; ++i) {
            block_[block_size_++] = data[i];
            if (block_size_ == 64) {
                compress();
                block_size_ = 0;
            }
        }
        length_bits_ += static_cast<std::uint64_t>(size) * 8;
    }

    std::string hex() {
        const std::uint64_t length_bits = length_bits_;
        const unsigned char pad_start = 0x80;
        update(&pad_start, 1);
        const unsigned char zero = 0;
        while (block_size_ != 56) {
            update(&zero, 1);
        }
        unsigned char length[8];
        for (int i = 0; i < 8; ++i) {
            length[i] = static_cast<unsigned char>(length_bits >> (56 - 8 * i));
        }
        update(length, 8);
        std::string text;
        char digits[9];
        for (std::uint32_t word : state_) {
            std::snprintf(digits, sizeof digits, "%08x", word);
            text += digits;
        }
        return text;
    }

private:
    static std::uint32_t rotate(std::uint32_t value, int bits) {
        return (value >> bits) | (value << (32 - bits));
    }

    void compress() {
        static const std::uint32_t k[64] = {
            0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
            0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
            0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
            0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
            0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
            0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
            0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
            0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
            0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
            0xc67178f2};
        std::uint32_t w[64];
        for (int i = 0; i < 16; ++i) {
            w[i] = (std::uint32_t{block_[4 * i]} << 24) | (std::uint32_t{block_[4 * i + 1]} << 16) |
                   (std::uint32_t{block_[4 * i + 2]} << 8) | std::uint32_t{block_[4 * i + 3]};
        }
        for (int i = 16; i < 64; ++i) {
            const std::uint32_t s0 =
                rotate(w[i - 15], 7) ^ rotate(w[i - 15], 18) ^ (w[i - 15] >> 3);
            const std::uint32_t s1 = rotate(w[i - 2], 17) ^ rotate(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        std::uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3];
        std::uint32_t e = state_[4], f = state_[5], g = state_[6], h = state_[7];
        for (int i = 0; i < 64; ++i) {
            const std::uint32_t s1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25);
            const std::uint32_t choose = (e & f) ^ (~e & g);
            const std::uint32_t t1 = h + s1 + choose + k[i] + w[i];
            const std::uint32_t s0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22);
            const std::uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
            const std::uint32_t t2 = s0 + majority;
            h = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        state_[0] += a;
        state_[1] += b;
        state_[2] += c;
        state_[3] += d;
        state_[4] += e;
        state_[5] += f;
        state_[6] += g;
        state_[7] += h;
    }

    std::array<std::uint32_t, 8> state_{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                        0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    unsigned char block_[64] = {};
    std::size_t block_size_ = 0;
    std::uint64_t length_bits_ = 0;
};

} // namespace

std::string sha256Hex(const void *data, std::size_t size) {
    Sha256 hash;
    hash.update(static_cast<const unsigned char *>(data), size);
    return hash.hex();
}

std::string sha256File(const std::string &path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        throw std::runtime_error(path + ": cannot open for hashing");
    }
    Sha256 hash;
    std::array<char, 1 << 16> buffer{};
    while (file) {
        file.read(buffer.data(), buffer.size());
        hash.update(reinterpret_cast<const unsigned char *>(buffer.data()),
                    static_cast<std::size_t>(file.gcount()));
    }
    if (file.bad()) {
        throw std::runtime_error(path + ": read error while hashing");
    }
    return hash.hex();
}

std::string digestIds(const std::vector<std::uint64_t> &ids) {
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    for (std::uint64_t id : ids) {
        for (int byte = 0; byte < 8; ++byte) {
            hash ^= (id >> (8 * byte)) & 0xff;
            hash *= 0x100000001b3ULL;
        }
    }
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
    return text;
}

namespace {

constexpr std::uint64_t kMixPrime1 = 0x9e3779b185ebca87ULL;
constexpr std::uint64_t kMixPrime2 = 0xc2b2ae3d27d4eb4fULL;

std::uint64_t rotateLeft(std::uint64_t value, int bits) {
    return (value << bits) | (value >> (64 - bits));
}

std::uint64_t mixWord(std::uint64_t lane, std::uint64_t word) {
    return rotateLeft(lane + word * kMixPrime2, 31) * kMixPrime1;
}

std::uint64_t loadWord(const unsigned char *bytes) {
    std::uint64_t word = 0;
    std::memcpy(&word, bytes, sizeof word); // little-endian machines only write these files
    return word;
}

} // namespace

std::string checksum64(const void *data, std::size_t size) {
    const auto *bytes = static_cast<const unsigned char *>(data);
    std::uint64_t lanes[4] = {kMixPrime1, kMixPrime2, ~kMixPrime1, ~kMixPrime2};
    std::size_t offset = 0;
    for (; offset + 32 <= size; offset += 32) {
        for (int lane = 0; lane < 4; ++lane) {
            lanes[lane] = mixWord(lanes[lane], loadWord(bytes + offset + 8 * lane));
        }
    }
    std::uint64_t value = rotateLeft(lanes[0], 1) + rotateLeft(lanes[1], 7) +
                          rotateLeft(lanes[2], 12) + rotateLeft(lanes[3], 18) + size;
    for (; offset < size; ++offset) {
        value = mixWord(value, bytes[offset]);
    }
    value ^= value >> 33;
    value *= kMixPrime2;
    value ^= value >> 29;
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
    return text;
}

} // namespace headroom::util
