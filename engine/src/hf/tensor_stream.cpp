#include "hf/tensor_stream.h"

#include "hf/hf_error.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#if defined(__linux__)
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace headroom::hf {

namespace {

// Buffers start on a page, and a direct read covers whole pages around the range.
constexpr std::uint64_t kAlignment = 4096;

// Whether most of the range's pages are in the page cache already: then a buffered read only
// copies them, where a direct read would go to the disk again.
bool mostlyCached(const void *mapped, std::uint64_t bytes) {
#if defined(__linux__)
    if (mapped == nullptr || bytes == 0) {
        return true;
    }
    const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
    const auto begin = reinterpret_cast<std::uintptr_t>(mapped) / page * page;
    const std::uintptr_t length = reinterpret_cast<std::uintptr_t>(mapped) + bytes - begin;
    std::vector<unsigned char> pages((length + page - 1) / page);
    if (mincore(reinterpret_cast<void *>(begin), length, pages.data()) != 0) {
        return true;
    }
    const auto cached = std::count_if(pages.begin(), pages.end(),
                                      [](unsigned char flags) { return (flags & 1) != 0; });
    return static_cast<std::size_t>(cached) * 2 >= pages.size();
#else
    (void)mapped;
    (void)bytes;
    return true;
#endif
}

#if defined(__linux__)
constexpr std::uint64_t kHugePage = std::uint64_t{2} << 20;
#endif

} // namespace

void TensorStream::Release::operator()(std::uint8_t *storage) const {
#if defined(__linux__)
    if (mapped_bytes != 0) {
        ::munmap(storage, mapped_bytes);
        return;
    }
#endif
    delete[] storage;
}

// Read buffers sit on transparent huge pages where the kernel offers them: a direct read pins
// the buffer's pages, and into 4 KiB pages it ran at 1.6-2.4 GB/s on a VM that filled 2 MiB pages
// at 5.6-8.2 GB/s from the same cold file. The buffers are reused from range to range, so the
// huge pages are faulted in once (the model's own memory stays on small pages: see
// docs/BENCHMARKS.md on the import). Buffers under a huge page stay on small pages: rounded up,
// the many small ranges (norms, biases) the budget lets in flight would hold far more memory.
TensorStream::Buffer TensorStream::allocate(std::uint64_t bytes) {
    Buffer buffer;
    buffer.capacity = bytes;
#if defined(__linux__)
    const std::uint64_t length = (bytes + kAlignment + kHugePage - 1) / kHugePage * kHugePage;
    void *mapped = bytes < kHugePage ? MAP_FAILED
                                     : ::mmap(nullptr, length + kHugePage, PROT_READ | PROT_WRITE,
                                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped != MAP_FAILED) {
        // Trim the mapping to a huge-page boundary on both sides.
        const auto start = reinterpret_cast<std::uintptr_t>(mapped);
        const std::uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
        if (aligned > start) {
            ::munmap(mapped, aligned - start);
        }
        const std::uintptr_t tail = start + length + kHugePage - (aligned + length);
        if (tail > 0) {
            ::munmap(reinterpret_cast<void *>(aligned + length), tail);
        }
        auto *storage = reinterpret_cast<std::uint8_t *>(aligned);
        ::madvise(storage, length, MADV_HUGEPAGE);
        buffer.storage = std::unique_ptr<std::uint8_t, Release>(storage, Release{length});
        return buffer;
    }
#endif
    buffer.storage =
        std::unique_ptr<std::uint8_t, Release>(new std::uint8_t[bytes + kAlignment], Release{0});
    return buffer;
}

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
#if defined(__linux__)
    if (direct_fd_ >= 0) {
        ::close(direct_fd_);
    }
#endif
}

bool TensorStream::readDirect(const Range &range, Buffer &buffer) {
#if defined(__linux__)
    const std::string &path = paths_[range.file];
    if (direct_file_ != range.file) {
        if (direct_fd_ >= 0) {
            ::close(direct_fd_);
        }
        direct_fd_ = ::open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
        direct_file_ = range.file;
    }
    if (direct_fd_ < 0) {
        return false; // a file system without O_DIRECT (tmpfs)
    }
    const std::uint64_t begin = range.offset / kAlignment * kAlignment;
    const std::uint64_t end = range.offset + range.bytes;
    const std::uint64_t length = (end - begin + kAlignment - 1) / kAlignment * kAlignment;
    std::uint64_t done = 0;
    while (begin + done < end) {
        const ssize_t got =
            ::pread(direct_fd_, buffer.data() + done, static_cast<std::size_t>(length - done),
                    static_cast<off_t>(begin + done));
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got < 0 && done == 0 && errno == EINVAL) {
            ::close(direct_fd_); // the file system wants another alignment: read buffered
            direct_fd_ = -1;
            return false;
        }
        if (got <= 0) {
            break;
        }
        done += static_cast<std::uint64_t>(got);
    }
    if (begin + done < end) {
        throw ModelFolderError(path + ": reading " + std::to_string(range.bytes) +
                               " bytes at offset " + std::to_string(range.offset) + " failed (" +
                               (errno != 0 ? std::strerror(errno) : "end of file") +
                               "; was the file changed or truncated while it was read?)");
    }
    buffer.skip = range.offset - begin;
    return true;
#else
    (void)range;
    (void)buffer;
    return false;
#endif
}

void TensorStream::read(const Range &range, Buffer &buffer) {
    const std::uint64_t needed = range.bytes + 2 * kAlignment;
    if (buffer.capacity < needed) {
        buffer.storage.reset();
        buffer = allocate(needed);
    }
    // Both paths place the range at its offset's position within a page.
    buffer.skip = range.offset % kAlignment;
    // A cold file is read past the page cache, straight into the buffer: no copy for the CPU.
    errno = 0;
    if (!mostlyCached(range.mapped, range.bytes) && readDirect(range, buffer)) {
        return;
    }
    const std::string &path = paths_[range.file];
    if (open_file_ != range.file) {
        in_.close();
        in_.clear();
        in_.open(path, std::ios::binary);
        open_file_ = range.file;
    }
    in_.seekg(static_cast<std::streamoff>(range.offset));
    in_.read(reinterpret_cast<char *>(buffer.data() + buffer.skip),
             static_cast<std::streamsize>(range.bytes));
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
        Buffer buffer = takeBuffer(range.bytes + 2 * kAlignment);
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
    return current_.data() + current_.skip;
}

} // namespace headroom::hf
