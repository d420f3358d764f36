#include "compat/c10d_gloo.h"

#include "compat/torch_compat.h"

#include <stdexcept>
#include <vector>

#if defined(HEADROOM_HAS_GLOO)
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

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

c10d::TCPStoreOptions storeOptions(const ProcessGroupAddress &address) {
    c10d::TCPStoreOptions options;
    options.port = address.master_port;
    options.isServer = address.rank == 0;
    options.numWorkers = static_cast<std::size_t>(address.world_size);
    options.waitWorkers = true;
    options.timeout = address.timeout;
#if HEADROOM_TORCH_AT_LEAST(2, 2)
    // The libuv server (default since 2.4) is optional in distribution builds; the classic one
    // is in every build.
    options.useLibUV = false;
#endif
    return options;
}

void wait(const c10::intrusive_ptr<c10d::Work> &work) {
    // Both versions rethrow the collective's failure (peer gone, timeout) from wait().
    work->wait();
}

} // namespace

struct PendingCollective::Work {
    c10::intrusive_ptr<c10d::Work> work;
};

void PendingCollective::wait() {
    if (work_) {
        const c10::intrusive_ptr<c10d::Work> work = std::move(work_->work);
        work_.reset();
        compat::wait(work);
    }
}

struct GlooProcessGroup::Parts {
    c10::intrusive_ptr<c10d::TCPStore> store;
    c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
    std::chrono::milliseconds timeout{0};
};

bool glooAvailable() {
    return true;
}

std::unique_ptr<GlooProcessGroup> GlooProcessGroup::connect(const ProcessGroupAddress &address) {
    auto parts = std::make_unique<Parts>();
    parts->timeout = address.timeout;
    parts->store = c10::make_intrusive<c10d::TCPStore>(address.master_addr, storeOptions(address));
    auto options = c10d::ProcessGroupGloo::Options::create(address.timeout);
    options->devices.push_back(glooDevice(address.master_addr));
    options->threads = 2;
    parts->group = c10::make_intrusive<c10d::ProcessGroupGloo>(parts->store, address.rank,
                                                               address.world_size, options);
    return std::unique_ptr<GlooProcessGroup>(new GlooProcessGroup(std::move(parts)));
}

void GlooProcessGroup::allReduceSum(torch::Tensor &tensor) {
    std::vector<at::Tensor> tensors{tensor};
    c10d::AllreduceOptions options;
    options.reduceOp = c10d::ReduceOp::SUM;
    options.timeout = parts_->timeout;
    wait(parts_->group->allreduce(tensors, options));
}

PendingCollective GlooProcessGroup::allReduceSumAsync(const torch::Tensor &tensor) {
    std::vector<at::Tensor> tensors{tensor};
    c10d::AllreduceOptions options;
    options.reduceOp = c10d::ReduceOp::SUM;
    options.timeout = parts_->timeout;
    PendingCollective pending;
    pending.work_ = std::make_unique<PendingCollective::Work>();
    pending.work_->work = parts_->group->allreduce(tensors, options);
    return pending;
}

void GlooProcessGroup::broadcast(torch::Tensor &tensor, int root) {
    std::vector<at::Tensor> tensors{tensor};
    c10d::BroadcastOptions options;
    options.rootRank = root;
    options.timeout = parts_->timeout;
    wait(parts_->group->broadcast(tensors, options));
}

void GlooProcessGroup::barrier() {
    c10d::BarrierOptions options;
    options.timeout = parts_->timeout;
    wait(parts_->group->barrier(options));
}

void GlooProcessGroup::storeSet(const std::string &key, const std::string &value) {
    parts_->store->set(key, std::vector<std::uint8_t>(value.begin(), value.end()));
}

std::string GlooProcessGroup::storeGet(const std::string &key) {
    const std::vector<std::uint8_t> value = parts_->store->get(key);
    return std::string(value.begin(), value.end());
}

bool GlooProcessGroup::storeHas(const std::string &key) {
    return parts_->store->check({key});
}

void GlooProcessGroup::storeDelete(const std::string &key) {
    parts_->store->deleteKey(key);
}

#else // no Gloo in this build

struct GlooProcessGroup::Parts {};

bool glooAvailable() {
    return false;
}

std::unique_ptr<GlooProcessGroup> GlooProcessGroup::connect(const ProcessGroupAddress &) {
    throw std::runtime_error("this build of LibTorch has no Gloo backend (c10d "
                             "ProcessGroupGloo), so it cannot train on more than one process; "
                             "rebuild Headroom against a LibTorch with Gloo (Debian: install "
                             "libgloo-dev and reconfigure)");
}

void GlooProcessGroup::allReduceSum(torch::Tensor &) {}
struct PendingCollective::Work {};
void PendingCollective::wait() {
    work_.reset();
}
PendingCollective GlooProcessGroup::allReduceSumAsync(const torch::Tensor &) {
    return {};
}
void GlooProcessGroup::broadcast(torch::Tensor &, int) {}
void GlooProcessGroup::barrier() {}
void GlooProcessGroup::storeSet(const std::string &, const std::string &) {}
std::string GlooProcessGroup::storeGet(const std::string &) {
    return {};
}
bool GlooProcessGroup::storeHas(const std::string &) {
    return false;
}
void GlooProcessGroup::storeDelete(const std::string &) {}

#endif

PendingCollective::PendingCollective() = default;
PendingCollective::~PendingCollective() = default;
PendingCollective::PendingCollective(PendingCollective &&) noexcept = default;
PendingCollective &PendingCollective::operator=(PendingCollective &&) noexcept = default;

GlooProcessGroup::GlooProcessGroup(std::unique_ptr<Parts> parts) : parts_(std::move(parts)) {}
GlooProcessGroup::~GlooProcessGroup() = default;

} // namespace headroom::compat
