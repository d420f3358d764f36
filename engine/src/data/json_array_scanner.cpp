#include "data/json_array_scanner.h"

#include "data/data_error.h"

namespace headroom::data {
namespace {

bool isBlank(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

std::string describe(char c) {
    return c == '\0' ? std::string("the end of the file") : "'" + std::string(1, c) + "'";
}

} // namespace

bool JsonArrayScanner::fillPending() {
    if (!lines_.readLine(pending_)) {
        return false;
    }
    const std::uint64_t terminator = lines_.lineWasTerminated() ? 1 : 0;
    pending_offset_ = lines_.offset() - terminator - pending_.size();
    pending_line_ = lines_.lineNumber();
    return true;
}

char JsonArrayScanner::peek() {
    for (;;) {
        std::size_t blank = 0;
        while (blank < pending_.size() && isBlank(pending_[blank])) {
            ++blank;
        }
        consume(blank);
        if (!pending_.empty()) {
            return pending_.front();
        }
        if (!fillPending()) {
            return '\0';
        }
    }
}

void JsonArrayScanner::consume(std::size_t count) {
    pending_.erase(0, count);
    pending_offset_ += count;
}

bool JsonArrayScanner::next(std::string &object, std::int64_t &line) {
    if (finished_) {
        return false;
    }
    if (!started_) {
        const char first = peek();
        if (first != '[') {
            throw DataError(lines_.path(), pending_line_,
                            "a .json data file must hold one JSON array of objects "
                            "([{...}, {...}]); it starts with " +
                                describe(first) + " (use a .jsonl file for one object per line)");
        }
        consume(1);
        started_ = true;
    }
    char c = peek();
    if (c == ',') {
        consume(1);
        c = peek();
    }
    if (c == ']') {
        consume(1);
        finished_ = true;
        const char after = peek();
        if (after != '\0') {
            throw DataError(lines_.path(), pending_line_,
                            "unexpected " + describe(after) + " after the end of the JSON array");
        }
        return false;
    }
    if (c != '{') {
        throw DataError(lines_.path(), c == '\0' ? lines_.lineNumber() : pending_line_,
                        c == '\0' ? "the JSON array is not closed (a ']' is missing)"
                                  : "expected a JSON object or the end of the array, found " +
                                        describe(c));
    }
    object.clear();
    line = pending_line_;
    int depth = 0;
    bool in_string = false;
    bool escaped = false;
    for (;;) {
        std::size_t i = 0;
        for (; i < pending_.size(); ++i) {
            const char ch = pending_[i];
            if (in_string) {
                if (escaped) {
                    escaped = false;
                } else if (ch == '\\') {
                    escaped = true;
                } else if (ch == '"') {
                    in_string = false;
                }
            } else if (ch == '"') {
                in_string = true;
            } else if (ch == '{' || ch == '[') {
                ++depth;
            } else if (ch == '}' || ch == ']') {
                if (--depth == 0) {
                    ++i;
                    break;
                }
            }
        }
        object.append(pending_, 0, i);
        consume(i);
        if (object.size() > kMaxRecordBytes) {
            throw DataError(lines_.path(), line,
                            "a JSON object longer than 16 MiB (the limit for one record)");
        }
        if (depth == 0) {
            return true;
        }
        object.push_back('\n');
        if (!fillPending()) {
            throw DataError(lines_.path(), line,
                            "the JSON object starting here is not closed before the end of the "
                            "file");
        }
    }
}

std::uint64_t JsonArrayScanner::offset() const {
    return pending_.empty() ? lines_.offset() : pending_offset_;
}

std::int64_t JsonArrayScanner::lineBefore() const {
    return pending_.empty() ? lines_.lineNumber() : pending_line_ - 1;
}

void JsonArrayScanner::seek(std::uint64_t offset, std::int64_t line_before, bool at_start) {
    lines_.seek(offset, line_before);
    pending_.clear();
    pending_offset_ = offset;
    pending_line_ = line_before;
    started_ = !at_start;
    finished_ = false;
}

} // namespace headroom::data
