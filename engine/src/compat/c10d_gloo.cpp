#include "compat/process_group.h"

#include <stdexcept>
#include <vector>

#if defined(HEADROOM_HAS_GLOO)
#include "compat/c10d_store.h"

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#include <cstdlib>
#endif

namespace headroom::compat {

#if defined(HEADROOM_HAS_GLOO)

namespace {

// Where this rank's Gloo connections listen. GLOO_SOCKET_IFNAME wins, as in PyTorch; a
// loopback rendezvous keeps every rank on loopback (one machine, nothing exposed); otherwise
// the address the machine's host name resolves to.
std::shared_ptr<::gloo::transport::Device> glooDevice(const std::string &master_addr) {
    if (const char *interface = std::getenv("GLOO_SOCKET_IFNAME");
        interface != nullptr && *interface != '\0') {
        return c10d::ProcessGroupGloo::createDeviceForInterface(interface);
    }
    if (master_addr == "localhost" || master_addr.rfind("127.", 0) == 0) {
        return c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1");
    }
    return c10d::ProcessGroupGloo::createDefaultDevice();
}

class GlooProcessGroup final : public StoreGroup {
public:
    explicit GlooProcessGroup(const ProcessGroupAddress &address) : StoreGroup(address, "gloo") {
        auto options = c10d::ProcessGroupGloo::Options::create(address.timeout);
        options->devices.push_back(glooDevice(address.master_addr));
        options->threads = 2;
        group_ = c10::make_intrusive<c10d::ProcessGroupGloo>(store(), address.rank,
                                                             address.world_size, options);
    }

    std::string backend() const override { return "gloo"; }
    torch::Device device() const override { return torch::Device(torch::kCPU); }

    void allReduceSum(torch::Tensor &tensor) override { allReduceSumAsync(tensor).wait(); }

    PendingCollective allReduceSumAsync(const torch::Tensor &tensor) override {
        std::vector<at::Tensor> tensors{tensor};
        c10d::AllreduceOptions options;
        options.reduceOp = c10d::ReduceOp::SUM;
        options.timeout = timeout();
        return pending(group_->allreduce(tensors, options));
    }

    void broadcast(torch::Tensor &tensor, int root) override {
        std::vector<at::Tensor> tensors{tensor};
        c10d::BroadcastOptions options;
        options.rootRank = root;
        options.timeout = timeout();
        pending(group_->broadcast(tensors, options)).wait();
    }

    void barrier() override {
        c10d::BarrierOptions options;
        options.timeout = timeout();
        pending(group_->barrier(options)).wait();
    }

private:
    // Both versions rethrow the collective's failure (peer gone, timeout) from wait().
    static PendingCollective pending(c10::intrusive_ptr<c10d::Work> work) {
        return PendingCollective([work = std::move(work)] { work->wait(); });
    }

    c10::intrusive_ptr<c10d::ProcessGroupGloo> group_;
};

} // namespace

bool glooAvailable() {
    return true;
}

std::unique_ptr<ProcessGroup> connectGloo(const ProcessGroupAddress &address) {
    return std::make_unique<GlooProcessGroup>(address);
}

#else // no Gloo in this build

bool glooAvailable() {
    return false;
}

std::unique_ptr<ProcessGroup> connectGloo(const ProcessGroupAddress &) {
    throw std::runtime_error("this build of LibTorch has no Gloo backend (c10d "
                             "ProcessGroupGloo), so it cannot train on more than one process; "
                             "rebuild Headroom against a LibTorch with Gloo (Debian: install "
                             "libgloo-dev and reconfigure)");
}

#endif

} // namespace headroom::compat
