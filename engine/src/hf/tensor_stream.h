// Reads byte ranges of files, in order, on a thread of its own ahead of the one that converts
// them: plain large reads, as fast as read(2) of the whole file, overlapped with the
// conversion (a cold import then costs about the longer of reading and converting, not their
// sum). Page faults on a memory mapping read a cold file in much smaller requests than this.
// Torch-free.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace headroom::hf {

class TensorStream {
public:
    struct Range {
        std::size_t file = 0;     // index into the paths
        std::uint64_t offset = 0; // from the start of the file
        std::uint64_t bytes = 0;
        // The same bytes in a memory mapping of the file, or null: only to ask whether they are
        // in the page cache (Linux; a cold range is then read with O_DIRECT).
        const void *mapped = nullptr;
    };

    // Starts reading at once. At most the largest range plus ahead_bytes are held at a time
    // (read and not yet released), and the buffers, reused from range to range, stay within
    // that too, so the memory this needs beside the model stays small.
    TensorStream(std::vector<std::string> paths, std::vector<Range> ranges,
                 std::uint64_t ahead_bytes = std::uint64_t{64} << 20);
    ~TensorStream();
    TensorStream(const TensorStream &) = delete;
    TensorStream &operator=(const TensorStream &) = delete;

    // The bytes of the next range (ranges come in the order given), waiting until they are
    // read; the previous range's bytes are released. The pointer has the alignment of the
    // range's offset modulo 4096 and is valid until the next call. Throws ModelFolderError naming
    // the file when a read fails or comes up short (a file changed since its header was checked).
    const std::uint8_t *next();

private:
    struct Release {
        std::uint64_t mapped_bytes; // 0: allocated with new[] (value-initialized: 0)
        void operator()(std::uint8_t *storage) const;
    };
    struct Buffer {
        std::unique_ptr<std::uint8_t, Release> storage;
        std::uint64_t capacity = 0;
        std::uint64_t skip = 0; // where the range starts in data()
        std::uint8_t *data() const;
    };
    static Buffer allocate(std::uint64_t bytes); // capacity bytes after data()'s alignment
    void run();
    Buffer takeBuffer(std::uint64_t bytes); // with mutex_ held
    void read(const Range &range, Buffer &buffer);
    bool readDirect(const Range &range, Buffer &buffer); // false: not possible here

    std::vector<std::string> paths_;
    std::vector<Range> ranges_;
    std::uint64_t budget_ = 0;
    std::ifstream in_; // the reading thread's
    std::size_t open_file_ = static_cast<std::size_t>(-1);
    int direct_fd_ = -1; // O_DIRECT descriptor of direct_file_ (Linux)
    std::size_t direct_file_ = static_cast<std::size_t>(-1);

    std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<Buffer> free_;         // to reuse: a reused buffer takes no new page faults
    std::deque<Buffer> ready_;         // read, in range order
    std::size_t consumed_ = 0;         // ranges handed out by next()
    std::uint64_t held_ = 0;           // bytes of the ranges read and not released
    std::uint64_t total_capacity_ = 0; // of every buffer, free or not
    bool has_current_ = false;
    Buffer current_; // the range next() returned last
    std::exception_ptr error_;
    bool stop_ = false;
    std::thread thread_;
};

} // namespace headroom::hf
