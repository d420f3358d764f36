#pragma once

#include "data/example.h"

#include <cstdint>
#include <string>
#include <vector>

namespace headroom::data {

// Little-endian, length-prefixed binary encoding of a stream position (saveState).
class StateWriter {
public:
    void u64(std::uint64_t value);
    void i64(std::int64_t value) { u64(static_cast<std::uint64_t>(value)); }
    void f64(double value);
    void str(const std::string &value);
    void tokens(const std::vector<std::int32_t> &values);
    void example(const Example &value);
    const std::string &bytes() const { return bytes_; }

private:
    std::string bytes_;
};

// Reads what StateWriter wrote; throws DataError("...: saved data position is damaged") when
// the bytes run out or a length is impossible.
class StateReader {
public:
    StateReader(const std::string &bytes, std::string path);
    std::uint64_t u64();
    std::int64_t i64() { return static_cast<std::int64_t>(u64()); }
    double f64();
    std::string str();
    std::vector<std::int32_t> tokens();
    // with_spans: the prompt/padding spans follow (positions saved since they exist).
    // version 1: no prompt/padding spans; 2: spans; 3: spans and retrieval segments; 4: and the
    // trained-token mask of chat examples.
    Example example(int version);
    bool atEnd() const { return pos_ == bytes_.size(); }
    [[noreturn]] void fail(const std::string &why) const;

private:
    std::uint64_t count(std::size_t item_bytes);
    void take(void *out, std::size_t size);

    const std::string &bytes_;
    std::string path_;
    std::size_t pos_ = 0;
};

} // namespace headroom::data
