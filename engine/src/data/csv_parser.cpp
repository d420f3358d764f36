#include "data/csv_parser.h"

#include "data/data_error.h"

namespace headroom::data {
namespace {

bool isBlank(const std::string &line) {
    return line.empty() || line == "\r";
}

} // namespace

bool readCsvRecord(LineReader &reader, std::vector<std::string> &fields, std::int64_t &first_line) {
    fields.clear();
    std::string line;
    do {
        if (!reader.readLine(line)) {
            return false;
        }
    } while (isBlank(line));
    first_line = reader.lineNumber();

    enum class State { FieldStart, Unquoted, Quoted, AfterQuote };
    State state = State::FieldStart;
    std::string field;
    std::size_t record_bytes = 0;
    while (true) {
        record_bytes += line.size() + 1;
        if (record_bytes > kMaxRecordBytes) {
            throw DataError(reader.path(), first_line,
                            "CSV record is longer than 16 MiB (the limit for one record); is a "
                            "quote left open?");
        }
        // A '\r' that ends the physical line belongs to the line break unless quoted.
        std::size_t end = line.size();
        const bool has_cr = end > 0 && line[end - 1] == '\r';
        for (std::size_t i = 0; i < end; ++i) {
            const char c = line[i];
            if (state == State::Quoted) {
                if (c != '"') {
                    field.push_back(c);
                } else if (i + 1 < end && line[i + 1] == '"') {
                    field.push_back('"');
                    ++i;
                } else {
                    state = State::AfterQuote;
                }
                continue;
            }
            if (c == ',') {
                if (fields.size() + 1 >= kMaxCsvFields) {
                    throw DataError(reader.path(), first_line,
                                    "CSV record has more than " + std::to_string(kMaxCsvFields) +
                                        " fields (the limit for one record)");
                }
                fields.push_back(std::move(field));
                field.clear();
                state = State::FieldStart;
                continue;
            }
            if (has_cr && i + 1 == end) {
                break; // the CR of a CRLF
            }
            if (state == State::FieldStart && c == '"') {
                state = State::Quoted;
            } else if (state == State::AfterQuote) {
                throw DataError(reader.path(), reader.lineNumber(),
                                "unexpected character '" + std::string(1, c) +
                                    "' after the closing quote of field " +
                                    std::to_string(fields.size() + 1) +
                                    " (a quote inside a quoted field is written \"\")");
            } else {
                state = State::Unquoted;
                field.push_back(c);
            }
        }
        if (state != State::Quoted) {
            fields.push_back(std::move(field));
            return true;
        }
        // Inside quotes: the line break is part of the field.
        if (!reader.lineWasTerminated()) {
            break;
        }
        field.push_back('\n');
        if (!reader.readLine(line)) {
            break;
        }
    }
    throw DataError(reader.path(), first_line,
                    "unterminated quote: the quoted field " + std::to_string(fields.size() + 1) +
                        " starting on this line is never closed");
}

} // namespace headroom::data
