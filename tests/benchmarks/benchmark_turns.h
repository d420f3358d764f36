// Benchmark processes taking turns on a shared machine through a ring of FIFOs (the scheme of
// gpt_benchmark.cpp and gpt_reference.py): a process waits for the token before each block of
// steps and hands it on after the block, so every process sees the same background load, block
// by block. The driver script makes the FIFOs and holds them open.
#pragma once

#include <cstdint>
#include <fcntl.h>
#include <stdexcept>
#include <string>
#include <unistd.h>

namespace headroom::benchmarks {

class Turns {
public:
    // Empty paths: no turns (every call below does nothing).
    Turns(const std::string &in, const std::string &out, std::int64_t block) : block_(block) {
        if (in.empty() != out.empty()) {
            throw std::invalid_argument("--turn-in and --turn-out go together");
        }
        if (block < 1) {
            throw std::invalid_argument("--turn-steps must be at least 1");
        }
        if (in.empty()) {
            return;
        }
        // O_RDWR: opening a FIFO this way never blocks, whichever process comes first.
        in_ = ::open(in.c_str(), O_RDWR);
        out_ = ::open(out.c_str(), O_RDWR);
        if (in_ < 0 || out_ < 0) {
            throw std::runtime_error("cannot open the turn FIFOs " + in + ", " + out);
        }
    }
    ~Turns() {
        if (in_ >= 0) {
            ::close(in_);
        }
        if (out_ >= 0) {
            ::close(out_);
        }
    }
    Turns(const Turns &) = delete;
    Turns &operator=(const Turns &) = delete;

    void beforeStep(std::int64_t step) {
        char token = 0;
        if (in_ >= 0 && step % block_ == 0 && ::read(in_, &token, 1) != 1) {
            throw std::runtime_error("turn FIFO closed");
        }
    }
    void afterStep(std::int64_t step, bool last) {
        const char token = 't';
        if (out_ >= 0 && ((step + 1) % block_ == 0 || last) && ::write(out_, &token, 1) != 1) {
            throw std::runtime_error("turn FIFO closed");
        }
    }

private:
    std::int64_t block_;
    int in_ = -1;
    int out_ = -1;
};

} // namespace headroom::benchmarks
