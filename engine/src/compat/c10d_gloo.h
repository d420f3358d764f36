// c10d's Gloo process group and TCPStore behind one small interface. LibTorch 1.13 and 2.x
// differ here (ProcessGroupGloo is a ProcessGroup in 1.13, a Backend in 2.x; TCPStore grew
// libuv and listen-fd options); nothing else in the engine includes c10d. Builds without Gloo
// (HEADROOM_HAS_GLOO unset by CMake) compile this file to a refusal.
#pragma once

#include <torch/torch.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace headroom::compat {

// A collective in flight. wait() blocks until it is done on this rank and rethrows its failure
// (peer gone, timeout); the tensor it works on must not be touched before that.
class PendingCollective {
public:
    PendingCollective();
    ~PendingCollective();
    PendingCollective(PendingCollective &&) noexcept;
    PendingCollective &operator=(PendingCollective &&) noexcept;
    void wait();

private:
    friend class GlooProcessGroup;
    struct Work;
    std::unique_ptr<Work> work_;
};

// Whether this build can create a Gloo process group.
bool glooAvailable();

struct ProcessGroupAddress {
    std::string master_addr;
    std::uint16_t master_port = 0;
    int rank = 0;
    int world_size = 1;
    // Rendezvous, every collective and every store read give up after this.
    std::chrono::milliseconds timeout{std::chrono::minutes(5)};
};

class GlooProcessGroup {
public:
    // Rank 0 hosts the TCPStore at the address, the others connect to it; all then join one
    // Gloo group. Throws std::runtime_error (no Gloo in this build) or c10::Error (c10d's
    // failures: unreachable store, port in use, a peer that never came).
    static std::unique_ptr<GlooProcessGroup> connect(const ProcessGroupAddress &address);
    ~GlooProcessGroup();
    GlooProcessGroup(const GlooProcessGroup &) = delete;
    GlooProcessGroup &operator=(const GlooProcessGroup &) = delete;

    // In place, on a contiguous CPU tensor; every rank calls each collective in the same order.
    void allReduceSum(torch::Tensor &tensor);
    // The same without waiting: the sum is in `tensor` once the result's wait() returns.
    PendingCollective allReduceSumAsync(const torch::Tensor &tensor);
    void broadcast(torch::Tensor &tensor, int root);
    void barrier();

    void storeSet(const std::string &key, const std::string &value);
    // Waits for the key up to the timeout.
    std::string storeGet(const std::string &key);
    // Does not wait.
    bool storeHas(const std::string &key);
    void storeDelete(const std::string &key);

private:
    struct Parts;
    explicit GlooProcessGroup(std::unique_ptr<Parts> parts);
    std::unique_ptr<Parts> parts_;
};

} // namespace headroom::compat
