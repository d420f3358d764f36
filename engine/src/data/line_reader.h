#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace headroom::data {

// The longest line (or CSV record) the data layer accepts: memory stays bounded even when a
// binary file or an unbalanced quote makes a "line" endless.
constexpr std::size_t kMaxRecordBytes = std::size_t{16} << 20;
// The most fields a CSV record may have: a record of commas would otherwise cost 32 bytes of
// memory per byte of input.
constexpr std::size_t kMaxCsvFields = 65536;
// The longest CSV column name (header field).
constexpr std::size_t kMaxColumnNameBytes = 1024;
// The deepest nesting of a JSONL record: parsing and freeing stay cheap and shallow.
constexpr int kMaxJsonDepth = 64;

// Reads a file line by line through a fixed buffer, tracking the byte offset and line number
// so a position can be saved and sought back exactly. Every line is checked to be UTF-8; a
// UTF-8 byte order mark at the start of the file is skipped.
class LineReader {
public:
    // Throws DataError when the file is missing, unreadable, a directory or empty.
    explicit LineReader(std::string path);

    // The next line without its '\n' (a trailing '\r' is kept; callers decide). False at the
    // end of the file. Throws DataError for invalid UTF-8 or a line over kMaxRecordBytes.
    bool readLine(std::string &line);
    // Whether the line just read ended with '\n' (false only for a last unterminated line).
    bool lineWasTerminated() const { return terminated_; }

    std::uint64_t offset() const { return offset_; }  // bytes consumed so far
    std::int64_t lineNumber() const { return line_; } // 1-based number of the last line read
    std::uint64_t fileSize() const { return file_size_; }
    const std::string &path() const { return path_; }

    void seek(std::uint64_t offset, std::int64_t line_number);

private:
    bool fillBuffer();

    std::string path_;
    std::ifstream file_;
    std::uint64_t file_size_ = 0;
    std::vector<char> buffer_;
    std::size_t buffer_pos_ = 0;
    std::size_t buffer_len_ = 0;
    std::uint64_t offset_ = 0;
    std::int64_t line_ = 0;
    bool terminated_ = true;
};

} // namespace headroom::data
