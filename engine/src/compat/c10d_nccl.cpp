#include "compat/process_group.h"

#include <stdexcept>

#if defined(HEADROOM_HAS_NCCL)
#include "compat/c10d_store.h"

#include <c10/cuda/CUDAFunctions.h>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>

#include <atomic>
#include <cstdlib>
#include <vector>
#endif

namespace headroom::compat {

#if defined(HEADROOM_HAS_NCCL)

namespace {

#if HEADROOM_TORCH_AT_LEAST(2, 2)
constexpr const char *kBlockingWait = "TORCH_NCCL_BLOCKING_WAIT";
#else
constexpr const char *kBlockingWait = "NCCL_BLOCKING_WAIT";
#endif

class NcclProcessGroup final : public StoreGroup {
public:
    NcclProcessGroup(const ProcessGroupAddress &address, int device_index)
        : StoreGroup(address, "nccl"),
          device_(torch::kCUDA, static_cast<c10::DeviceIndex>(device_index)) {
        c10::cuda::set_device(device_.index());
        // wait() then blocks until the collective finished or the timeout passed and throws on
        // a failure, as Gloo's does, so the caller can name the missing rank; without it a
        // timeout ends the process from NCCL's watchdog thread. A value the user set wins.
        ::setenv(kBlockingWait, "1", 0);
        auto options = c10d::ProcessGroupNCCL::Options::create();
        options->timeout = address.timeout;
        group_ = c10::make_intrusive<c10d::ProcessGroupNCCL>(store(), address.rank,
                                                             address.world_size, options);
    }

    ~NcclProcessGroup() override {
#if HEADROOM_TORCH_AT_LEAST(2, 4)
        // Without this 2.x warns that the group was not destroyed; after a failed collective
        // the communicators are aborted rather than drained (a peer may be gone).
        try {
            if (failed_->load()) {
                group_->abort();
            } else {
                group_->shutdown();
            }
        } catch (const std::exception &) {
        }
#endif
    }

    std::string backend() const override {
        return "nccl";
    }
    torch::Device device() const override {
        return device_;
    }

    void allReduceSum(torch::Tensor &tensor) override {
        allReduceSumAsync(tensor).wait();
    }

    PendingCollective allReduceSumAsync(const torch::Tensor &tensor) override {
        requireOnDevice(tensor);
        std::vector<at::Tensor> tensors{tensor};
        c10d::AllreduceOptions options;
        options.reduceOp = c10d::ReduceOp::SUM;
        options.timeout = timeout();
        return pending(group_->allreduce(tensors, options));
    }

    void broadcast(torch::Tensor &tensor, int root) override {
        requireOnDevice(tensor);
        std::vector<at::Tensor> tensors{tensor};
        c10d::BroadcastOptions options;
        options.rootRank = root;
        options.timeout = timeout();
        pending(group_->broadcast(tensors, options)).wait();
    }

    void barrier() override {
        // c10d's NCCL barrier guesses the GPU from the rank; a sum on this rank's GPU does not.
        torch::Tensor token = torch::zeros({1}, torch::TensorOptions().device(device_));
        allReduceSum(token);
    }

private:
    void requireOnDevice(const torch::Tensor &tensor) const {
        TORCH_CHECK(tensor.device() == device_ && tensor.is_contiguous(),
                    "NCCL process group: a collective on ", tensor.device().str(),
                    " (contiguous: ", tensor.is_contiguous(), "), expected a contiguous tensor on ",
                    device_.str());
    }

    PendingCollective pending(c10::intrusive_ptr<c10d::Work> work) {
        return PendingCollective([work = std::move(work), failed = failed_] {
            try {
                // With blocking wait: returns when done on the GPU; throws on a timeout or an
                // NCCL error (a peer gone).
                work->wait();
            } catch (...) {
                failed->store(true);
                throw;
            }
        });
    }

    torch::Device device_;
    c10::intrusive_ptr<c10d::ProcessGroupNCCL> group_;
    std::shared_ptr<std::atomic<bool>> failed_ = std::make_shared<std::atomic<bool>>(false);
};

} // namespace

bool ncclAvailable() {
    return true;
}

std::unique_ptr<ProcessGroup> connectNccl(const ProcessGroupAddress &address, int device_index) {
    return std::make_unique<NcclProcessGroup>(address, device_index);
}

#else // no NCCL in this build

bool ncclAvailable() {
    return false;
}

std::unique_ptr<ProcessGroup> connectNccl(const ProcessGroupAddress &, int) {
    throw std::runtime_error("this build of LibTorch has no NCCL backend; use "
                             "distributed.backend=gloo");
}

#endif

} // namespace headroom::compat
