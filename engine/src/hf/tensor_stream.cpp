#include "hf/tensor_stream.h"

#include "hf/hf_error.h"

#include <algorithm>
#include <fstream>

namespace headroom::hf {

namespace {
constexpr std::uint64_t kAlignment = 64;
} // namespace

std::uint8_t *TensorStream::Buffer::data() const {
    const auto address = reinterpret_cast<std::uintptr_t>(storage.get());
    return storage.get() + (kAlignment - address % kAlignment) % kAlignment;
}

TensorStream::TensorStream(std::vector<std::string> paths, std::vector<Range> ranges,
                           std::uint64_t ahead_bytes)
    : paths_(std::move(paths)), ranges_(std::move(ranges)) {
    std::uint64_t largest = 0;
    for (const Range &range : ranges_) {
        largest = std::max(largest, range.bytes);
    }
    budget_ = largest + ahead_bytes;
    thread_ = std::thread([this] { run(); });
}

TensorStream::~TensorStream() {
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
}

void TensorStream::read(const Range &range, Buffer &buffer) {
    if (buffer.capacity < range.bytes) {
        buffer.storage.reset();
        buffer.storage.reset(new std::uint8_t[range.bytes + kAlignment]);
        buffer.capacity = range.bytes;
    }
    const std::string &path = paths_[range.file];
    if (open_file_ != range.file) {
        in_.close();
        in_.clear();
        in_.open(path, std::ios::binary);
        open_file_ = range.file;
    }
    in_.seekg(static_cast<std::streamoff>(range.offset));
    in_.read(reinterpret_cast<char *>(buffer.data()), static_cast<std::streamsize>(range.bytes));
    if (!in_ || static_cast<std::uint64_t>(in_.gcount()) != range.bytes) {
        throw ModelFolderError(path + ": reading " + std::to_string(range.bytes) +
                               " bytes at offset " + std::to_string(range.offset) +
                               " failed (was the file changed or truncated while it was read?)");
    }
}

TensorStream::Buffer TensorStream::takeBuffer(std::uint64_t bytes) {
    // The smallest free buffer that holds `bytes`, else the largest (to grow), else a new one.
    auto best = free_.end();
    for (auto it = free_.begin(); it != free_.end(); ++it) {
        if (best == free_.end()) {
            best = it;
        } else if (it->capacity >= bytes) {
            if (best->capacity < bytes || it->capacity < best->capacity) {
                best = it;
            }
        } else if (best->capacity < bytes && it->capacity > best->capacity) {
            best = it;
        }
    }
    Buffer buffer;
    if (best != free_.end()) {
        buffer = std::move(*best);
        free_.erase(best);
    }
    if (buffer.capacity < bytes) {
        // Growing: the buffers together stay within the budget where dropping free ones can
        // make room (their pages would otherwise stay resident beside the model).
        total_capacity_ += bytes - buffer.capacity;
        while (total_capacity_ > budget_ && !free_.empty()) {
            const auto largest =
                std::max_element(free_.begin(), free_.end(), [](const Buffer &a, const Buffer &b) {
                    return a.capacity < b.capacity;
                });
            total_capacity_ -= largest->capacity;
            free_.erase(largest);
        }
    }
    return buffer;
}

void TensorStream::run() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (const Range &range : ranges_) {
        // The first range read after everything is released always fits, however large.
        changed_.wait(lock, [&] { return stop_ || held_ == 0 || held_ + range.bytes <= budget_; });
        if (stop_) {
            return;
        }
        held_ += range.bytes;
        Buffer buffer = takeBuffer(range.bytes);
        lock.unlock();
        try {
            read(range, buffer);
        } catch (...) {
            lock.lock();
            error_ = std::current_exception();
            changed_.notify_all();
            return;
        }
        lock.lock();
        ready_.push_back(std::move(buffer));
        changed_.notify_all();
    }
}

const std::uint8_t *TensorStream::next() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (has_current_) {
        held_ -= ranges_[consumed_ - 1].bytes;
        free_.push_back(std::move(current_));
        has_current_ = false;
        changed_.notify_all();
    }
    if (consumed_ >= ranges_.size()) {
        throw std::logic_error("TensorStream::next called after the last range");
    }
    changed_.wait(lock, [&] { return !ready_.empty() || error_; });
    if (ready_.empty()) {
        std::rethrow_exception(error_);
    }
    current_ = std::move(ready_.front());
    ready_.pop_front();
    has_current_ = true;
    ++consumed_;
    return current_.data();
}

} // namespace headroom::hf
