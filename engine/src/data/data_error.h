#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace headroom::data {

// Bad input data. what() reads "FILE:LINE: problem" (or "FILE: problem" without a line), e.g.
// "corpus.jsonl:17: malformed JSON: unexpected end of input".
class DataError : public std::runtime_error {
public:
    DataError(const std::string &file, std::int64_t line, const std::string &problem);

    const std::string &file() const { return file_; }
    std::int64_t line() const { return line_; } // 0 when not about one line
    const std::string &problem() const { return problem_; }

private:
    std::string file_;
    std::int64_t line_;
    std::string problem_;
};

} // namespace headroom::data
