#pragma once

#include "data/line_reader.h"

#include <cstdint>
#include <string>
#include <vector>

namespace headroom::data {

// Reads the next RFC 4180 record: fields separated by commas, fields in double quotes may hold
// commas, line breaks and "" (one quote). CRLF line ends are accepted; blank lines between
// records are skipped. Returns false at the end of the file. `first_line` receives the line the
// record starts on. Throws DataError for an unterminated quote, text after a closing quote or
// a record over kMaxRecordBytes.
bool readCsvRecord(LineReader &reader, std::vector<std::string> &fields, std::int64_t &first_line);

} // namespace headroom::data
