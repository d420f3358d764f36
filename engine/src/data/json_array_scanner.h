#pragma once

#include "data/line_reader.h"

#include <cstdint>
#include <string>

namespace headroom::data {

// Cuts a file holding one JSON array of objects ("[{...}, {...}]", pretty-printed or not) into
// the text of its objects, one at a time, without reading the file whole. Only the array
// structure is checked here; each object's text is parsed by the caller.
class JsonArrayScanner {
public:
    explicit JsonArrayScanner(LineReader &lines) : lines_(lines) {}

    // The next object's text and the line it starts on; false after the closing ']'. Throws
    // DataError (file, line, problem) when the file is not an array of objects.
    bool next(std::string &object, std::int64_t &line);

    // The offset of the first byte not consumed yet and the number of the last line read
    // before it, as LineReader::seek takes them.
    std::uint64_t offset() const;
    std::int64_t lineBefore() const;
    // Continues from a position taken with offset()/lineBefore(); `at_start`: that position is
    // the file's start (the '[' is still to come).
    void seek(std::uint64_t offset, std::int64_t line_before, bool at_start);

private:
    bool fillPending();
    // The next non-blank character at the front of the pending text, or '\0' at the end.
    char peek();
    void consume(std::size_t count);

    LineReader &lines_;
    std::string pending_;              // unconsumed rest of the current line
    std::uint64_t pending_offset_ = 0; // file offset of pending_'s first byte
    std::int64_t pending_line_ = 0;    // line number of pending_
    bool started_ = false;             // the '[' was read
    bool finished_ = false;            // the ']' was read
};

} // namespace headroom::data
