#include "data/state_codec.h"

#include "data/data_error.h"

#include <cstring>

namespace headroom::data {

namespace {

// Little-endian, whatever the host: the bytes go into checkpoints that move between machines.
template <typename Word> void appendLittleEndian(std::string &bytes, Word value) {
    char buffer[sizeof(Word)];
    for (std::size_t i = 0; i < sizeof(Word); ++i) {
        buffer[i] = static_cast<char>((value >> (8 * i)) & 0xFF);
    }
    bytes.append(buffer, sizeof(Word));
}

} // namespace

void StateWriter::u64(std::uint64_t value) {
    appendLittleEndian(bytes_, value);
}

void StateWriter::f64(double value) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    u64(bits);
}

void StateWriter::str(const std::string &value) {
    u64(value.size());
    bytes_ += value;
}

void StateWriter::tokens(const std::vector<std::int32_t> &values) {
    u64(values.size());
    bytes_.reserve(bytes_.size() + 4 * values.size());
    for (const std::int32_t value : values) {
        appendLittleEndian(bytes_, static_cast<std::uint32_t>(value));
    }
}

void StateWriter::example(const Example &value) {
    u64(value.id);
    tokens(value.tokens);
    u64(value.numeric.size());
    bytes_.reserve(bytes_.size() + 8 * (value.numeric.size() + value.categorical.size() + 2));
    for (const float number : value.numeric) {
        f64(number);
    }
    u64(value.categorical.size());
    for (const std::int64_t category : value.categorical) {
        i64(category);
    }
    f64(value.target);
    i64(value.prompt_tokens);
    i64(value.real_tokens);
    tokens(value.segment_lengths);
    i64(value.positive_passages);
    str(std::string(value.trained.begin(), value.trained.end()));
    u64(value.rejected.size());
    for (const Example &rejected : value.rejected) {
        example(rejected);
    }
    str(value.record);
}

StateReader::StateReader(const std::string &bytes, std::string path)
    : bytes_(bytes), path_(std::move(path)) {}

void StateReader::fail(const std::string &why) const {
    throw DataError(path_, 0, "the saved data position is damaged: " + why);
}

void StateReader::take(void *out, std::size_t size) {
    if (bytes_.size() - pos_ < size) {
        fail("it ends early");
    }
    std::memcpy(out, bytes_.data() + pos_, size);
    pos_ += size;
}

std::uint64_t StateReader::u64() {
    unsigned char raw[8];
    take(raw, sizeof raw);
    std::uint64_t value = 0;
    for (int i = 7; i >= 0; --i) {
        value = (value << 8) | raw[i];
    }
    return value;
}

double StateReader::f64() {
    const std::uint64_t bits = u64();
    double value = 0;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

std::uint64_t StateReader::count(std::size_t item_bytes) {
    const std::uint64_t n = u64();
    if (n > (bytes_.size() - pos_) / item_bytes) {
        fail("a length is larger than the data");
    }
    return n;
}

std::string StateReader::str() {
    const std::uint64_t n = count(1);
    std::string value = bytes_.substr(pos_, n);
    pos_ += n;
    return value;
}

std::vector<std::int32_t> StateReader::tokens() {
    const std::uint64_t n = count(4);
    std::vector<std::int32_t> values(n);
    for (std::uint64_t i = 0; i < n; ++i) {
        unsigned char raw[4];
        take(raw, sizeof raw);
        const std::uint32_t bits =
            raw[0] | (raw[1] << 8) | (raw[2] << 16) | (static_cast<std::uint32_t>(raw[3]) << 24);
        values[i] = static_cast<std::int32_t>(bits);
    }
    return values;
}

Example StateReader::example(int version) {
    Example value;
    value.id = u64();
    value.tokens = tokens();
    value.numeric.resize(count(8));
    for (float &number : value.numeric) {
        number = static_cast<float>(f64());
    }
    value.categorical.resize(count(8));
    for (std::int64_t &category : value.categorical) {
        category = i64();
    }
    value.target = f64();
    if (version >= 2) {
        const std::int64_t prompt = i64();
        const std::int64_t real = i64();
        const auto tokens = static_cast<std::int64_t>(value.tokens.size());
        if (prompt < 0 || real < 0 || prompt > tokens || real > tokens) {
            fail("an example's prompt or padding span lies outside its tokens");
        }
        value.prompt_tokens = static_cast<std::int32_t>(prompt);
        value.real_tokens = static_cast<std::int32_t>(real);
    }
    if (version >= 3) {
        value.segment_lengths = tokens();
        const std::int64_t positives = i64();
        std::int64_t total = 0;
        for (const std::int32_t length : value.segment_lengths) {
            if (length < 0) {
                fail("an example's segment has a negative length");
            }
            total += length;
        }
        const auto segments = static_cast<std::int64_t>(value.segment_lengths.size());
        const bool fits = segments == 0 ? positives == 0
                                        : total == static_cast<std::int64_t>(value.tokens.size()) &&
                                              positives >= 0 && positives < segments;
        if (!fits) {
            fail("an example's query and passage segments do not fit its tokens");
        }
        value.positive_passages = static_cast<std::int32_t>(positives);
    }
    if (version >= 4) {
        const std::string trained = str();
        if (!trained.empty() && trained.size() != value.tokens.size()) {
            fail("an example's trained-token mask does not fit its tokens");
        }
        value.trained.assign(trained.begin(), trained.end());
    }
    if (version >= 5) {
        const std::uint64_t rejected = u64();
        if (rejected > 1) {
            fail("an example holds more than one rejected sequence");
        }
        for (std::uint64_t i = 0; i < rejected; ++i) {
            value.rejected.push_back(example(version));
        }
    }
    if (version >= 6) {
        value.record = str();
    }
    return value;
}

} // namespace headroom::data
