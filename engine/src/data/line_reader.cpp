#include "data/line_reader.h"

#include "data/data_error.h"
#include "data/utf8.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace headroom::data {
namespace {

constexpr std::size_t kBufferBytes = 256 * 1024;

} // namespace

LineReader::LineReader(std::string path) : path_(std::move(path)), buffer_(kBufferBytes) {
    std::error_code error;
    const auto status = std::filesystem::status(path_, error);
    if (error || !std::filesystem::exists(status)) {
        throw DataError(path_, 0, "cannot open the file: it does not exist");
    }
    if (std::filesystem::is_directory(status)) {
        throw DataError(path_, 0, "cannot open the file: it is a directory");
    }
    file_.open(path_, std::ios::binary);
    if (!file_) {
        throw DataError(path_, 0, std::string("cannot open the file: ") + std::strerror(errno));
    }
    file_size_ = std::filesystem::file_size(path_, error);
    if (error) {
        throw DataError(path_, 0, "cannot read the file size: " + error.message());
    }
    if (file_size_ == 0) {
        throw DataError(path_, 0, "the file is empty");
    }
}

bool LineReader::fillBuffer() {
    file_.read(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    buffer_len_ = static_cast<std::size_t>(file_.gcount());
    buffer_pos_ = 0;
    if (buffer_len_ == 0 && file_.bad()) {
        throw DataError(path_, line_ + 1, "read error: " + std::string(std::strerror(errno)));
    }
    return buffer_len_ > 0;
}

bool LineReader::readLine(std::string &line) {
    line.clear();
    const std::uint64_t line_start = offset_;
    bool found_any = false;
    terminated_ = false;
    while (true) {
        if (buffer_pos_ == buffer_len_ && !fillBuffer()) {
            break;
        }
        found_any = true;
        const char *start = buffer_.data() + buffer_pos_;
        const std::size_t available = buffer_len_ - buffer_pos_;
        const void *newline = std::memchr(start, '\n', available);
        const std::size_t take =
            newline ? static_cast<std::size_t>(static_cast<const char *>(newline) - start)
                    : available;
        if (line.size() + take > kMaxRecordBytes) {
            throw DataError(path_, line_ + 1,
                            "line is longer than 16 MiB (the limit for one record); is this a "
                            "line-based text file?");
        }
        line.append(start, take);
        buffer_pos_ += take;
        offset_ += take;
        if (newline) {
            ++buffer_pos_;
            ++offset_;
            terminated_ = true;
            break;
        }
    }
    if (!found_any) {
        return false;
    }
    ++line_;
    if (line_start == 0 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) {
        line.erase(0, 3);
    }
    const std::size_t bad = findInvalidUtf8(line.data(), line.size());
    if (bad != line.size()) {
        throw DataError(path_, line_,
                        "invalid UTF-8 at byte column " + std::to_string(bad + 1) +
                            " (the data must be UTF-8 text)");
    }
    return true;
}

void LineReader::seek(std::uint64_t offset, std::int64_t line_number) {
    file_.clear();
    file_.seekg(static_cast<std::streamoff>(offset));
    if (!file_) {
        throw DataError(path_, 0, "cannot seek to byte " + std::to_string(offset));
    }
    buffer_pos_ = 0;
    buffer_len_ = 0;
    offset_ = offset;
    line_ = line_number;
    terminated_ = true;
}

} // namespace headroom::data
