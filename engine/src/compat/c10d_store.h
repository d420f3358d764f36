// The TCPStore rendezvous every backend shares. Included only by c10d_gloo.cpp and
// c10d_nccl.cpp, inside their HEADROOM_HAS_* sections (it includes c10d).
#pragma once

#include "compat/process_group.h"
#include "compat/torch_compat.h"

#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <stdexcept>
#include <string>
#include <vector>

namespace headroom::compat {

class StoreGroup : public ProcessGroup {
public:
    // Rank 0 hosts the store and waits for the others; then every rank checks that rank 0
    // chose the same backend (a rank that picked another would wait for peers that never come).
    StoreGroup(const ProcessGroupAddress &address, const std::string &backend)
        : timeout_(address.timeout) {
        c10d::TCPStoreOptions options;
        options.port = address.master_port;
        options.isServer = address.rank == 0;
        options.numWorkers = static_cast<std::size_t>(address.world_size);
        options.waitWorkers = true;
        options.timeout = address.timeout;
#if HEADROOM_TORCH_AT_LEAST(2, 2)
        // The libuv server (default since 2.4) is optional in distribution builds; the classic
        // one is in every build.
        options.useLibUV = false;
#endif
        store_ = c10::make_intrusive<c10d::TCPStore>(address.master_addr, options);
        const std::string key = "headroom/backend";
        if (address.rank == 0) {
            storeSet(key, backend);
        } else if (const std::string leader = storeGet(key); leader != backend) {
            throw std::runtime_error("rank " + std::to_string(address.rank) + " uses the " +
                                     backend + " backend but rank 0 uses " + leader +
                                     "; give every rank the same device and "
                                     "distributed.backend, and the same build");
        }
    }

    void storeSet(const std::string &key, const std::string &value) override {
        store_->set(key, std::vector<std::uint8_t>(value.begin(), value.end()));
    }
    std::string storeGet(const std::string &key) override {
        const std::vector<std::uint8_t> value = store_->get(key);
        return std::string(value.begin(), value.end());
    }
    bool storeHas(const std::string &key) override {
        return store_->check({key});
    }
    void storeDelete(const std::string &key) override {
        store_->deleteKey(key);
    }

protected:
    const c10::intrusive_ptr<c10d::TCPStore> &store() const {
        return store_;
    }
    std::chrono::milliseconds timeout() const {
        return timeout_;
    }

private:
    c10::intrusive_ptr<c10d::TCPStore> store_;
    std::chrono::milliseconds timeout_;
};

} // namespace headroom::compat
