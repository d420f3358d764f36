// A c10d process group behind one small interface: Gloo on the CPU (c10d_gloo.cpp), NCCL on
// CUDA (c10d_nccl.cpp), both meeting at a TCPStore (c10d_store.h). LibTorch 1.13 and 2.x differ
// there (ProcessGroupGloo is a ProcessGroup in 1.13, a Backend in 2.x; TCPStore grew libuv and
// listen-fd options); nothing else in the engine includes c10d. A backend this build lacks
// (HEADROOM_HAS_GLOO / HEADROOM_HAS_NCCL unset by CMake) compiles to a refusal.
#pragma once

#include <torch/torch.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

namespace headroom::compat {

// A collective in flight. wait() blocks until it is done on this rank and rethrows its failure
// (peer gone, timeout); the tensor it works on must not be touched before that.
class PendingCollective {
public:
    PendingCollective() = default;
    explicit PendingCollective(std::function<void()> wait) : wait_(std::move(wait)) {}
    void wait() {
        if (wait_) {
            const std::function<void()> run = std::move(wait_);
            wait_ = nullptr;
            run();
        }
    }

private:
    std::function<void()> wait_;
};

struct ProcessGroupAddress {
    std::string master_addr;
    std::uint16_t master_port = 0;
    int rank = 0;
    int world_size = 1;
    // Rendezvous, every collective and every store read give up after this.
    std::chrono::milliseconds timeout{std::chrono::minutes(5)};
};

class ProcessGroup {
public:
    virtual ~ProcessGroup() = default;
    ProcessGroup(const ProcessGroup &) = delete;
    ProcessGroup &operator=(const ProcessGroup &) = delete;

    // "gloo" or "nccl".
    virtual std::string backend() const = 0;
    // Where the tensors of the collectives must be: the CPU for Gloo, the rank's GPU for NCCL.
    virtual torch::Device device() const = 0;

    // In place, on a contiguous tensor on device(); every rank calls each collective in the
    // same order.
    virtual void allReduceSum(torch::Tensor &tensor) = 0;
    // The same without waiting: the sum is in `tensor` once the result's wait() returns.
    virtual PendingCollective allReduceSumAsync(const torch::Tensor &tensor) = 0;
    virtual void broadcast(torch::Tensor &tensor, int root) = 0;
    virtual void barrier() = 0;

    // The rendezvous store (rank 0 hosts it), the same for every backend.
    virtual void storeSet(const std::string &key, const std::string &value) = 0;
    // Waits for the key up to the timeout.
    virtual std::string storeGet(const std::string &key) = 0;
    // Does not wait.
    virtual bool storeHas(const std::string &key) = 0;
    virtual void storeDelete(const std::string &key) = 0;

protected:
    ProcessGroup() = default;
};

// Whether this build can create a Gloo (CPU) or NCCL (CUDA) process group.
bool glooAvailable();
bool ncclAvailable();

// Rank 0 hosts the TCPStore at the address, the others connect to it; all then join one group.
// Throws std::runtime_error (no such backend in this build, or ranks that chose different
// backends) or c10::Error (c10d's failures: unreachable store, port in use, a peer that never
// came).
std::unique_ptr<ProcessGroup> connectGloo(const ProcessGroupAddress &address);
// Collectives on the GPU cuda:`device_index`, which becomes this thread's current device.
std::unique_ptr<ProcessGroup> connectNccl(const ProcessGroupAddress &address, int device_index);

} // namespace headroom::compat
