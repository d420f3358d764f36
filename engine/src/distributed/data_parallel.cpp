#include "distributed/data_parallel.h"

#include "util/text.h"

#include <headroom/config.h>

#include <algorithm>
#include <thread>

namespace headroom::distributed {

namespace {

// Bounds the extra memory of a reduction: gradients are copied through one buffer this big.
constexpr std::int64_t kBucketBytes = 16 << 20;

using util::firstLine;

std::string seconds(std::chrono::milliseconds duration) {
    return std::to_string(duration.count() / 1000) + " s";
}

std::string arrivalKey(const std::string &collective, int rank) {
    return "arrived/" + collective + "/" + std::to_string(rank);
}

std::string stepLabel(std::int64_t step) {
    return "step " + std::to_string(step);
}

} // namespace

RankShare rankShare(std::size_t total, int rank, int world_size) {
    const auto ranks = static_cast<std::size_t>(world_size);
    const auto index = static_cast<std::size_t>(rank);
    const std::size_t base = total / ranks;
    const std::size_t extra = total % ranks;
    RankShare share;
    share.count = base + (index < extra ? 1 : 0);
    share.first = index * base + std::min(index, extra);
    return share;
}

const char *backendName(Backend backend) {
    return backend == Backend::Nccl ? "nccl" : "gloo";
}

Backend chooseBackend(const std::string &requested, const torch::Device &device, bool nccl_built,
                      bool gloo_built) {
    if (requested == "nccl") {
        if (!nccl_built) {
            throw ConfigError("distributed.backend=nccl: this build of LibTorch has no NCCL "
                              "backend; use distributed.backend=gloo");
        }
        if (!device.is_cuda()) {
            throw ConfigError("distributed.backend=nccl exchanges GPU tensors, but the run's "
                              "device is " +
                              device.str() +
                              "; set device=cuda (each rank takes cuda:LOCAL_RANK) or "
                              "distributed.backend=gloo");
        }
        return Backend::Nccl;
    }
    if (requested == "auto" && nccl_built && device.is_cuda()) {
        return Backend::Nccl;
    }
    if (requested != "auto" && requested != "gloo") {
        throw ConfigError("distributed.backend=" + requested +
                          " is not a backend: auto, gloo or nccl");
    }
    if (!gloo_built) {
        throw ConfigError("distributed training needs a c10d backend, but this build of LibTorch "
                          "has no Gloo backend (c10d ProcessGroupGloo)" +
                          std::string(device.is_cuda() ? " and no NCCL backend" : "") +
                          "; rebuild Headroom against a LibTorch with Gloo (Debian: install "
                          "libgloo-dev and reconfigure)");
    }
    return Backend::Gloo;
}

std::unique_ptr<DataParallel> DataParallel::connect(const LaunchEnvironment &environment,
                                                    std::chrono::milliseconds timeout,
                                                    Backend backend, const torch::Device &device) {
    compat::ProcessGroupAddress address;
    address.master_addr = environment.master_addr;
    address.master_port = environment.master_port;
    address.rank = environment.rank;
    address.world_size = environment.world_size;
    address.timeout = timeout;
    const std::string where =
        environment.master_addr + ":" + std::to_string(environment.master_port);
    try {
        std::unique_ptr<compat::ProcessGroup> group =
            backend == Backend::Nccl ? compat::connectNccl(address, device.index())
                                     : compat::connectGloo(address);
        return std::unique_ptr<DataParallel>(
            new DataParallel(environment, std::move(group), timeout));
    } catch (const std::exception &error) {
        const std::string rank = "rank " + std::to_string(environment.rank) + ": ";
        if (environment.rank == 0) {
            throw DistributedError(
                rank + "not all " + std::to_string(environment.world_size) +
                " ranks joined the rendezvous at " + where + " within " + seconds(timeout) +
                " (distributed.timeout_s) (c10d: " + firstLine(error.what()) + ")");
        }
        throw DistributedError(rank + "cannot join the rendezvous at " + where + " within " +
                               seconds(timeout) +
                               " (distributed.timeout_s): is rank 0 running, and MASTER_ADDR "
                               "and MASTER_PORT reachable from here? (c10d: " +
                               firstLine(error.what()) + ")");
    }
}

DataParallel::DataParallel(LaunchEnvironment environment,
                           std::unique_ptr<compat::ProcessGroup> group,
                           std::chrono::milliseconds timeout)
    : environment_(std::move(environment)), group_(std::move(group)), timeout_(timeout) {}

std::string DataParallel::failureMessage(const std::string &collective,
                                         const std::exception &error) {
    std::string cause;
    try {
        std::vector<int> missing;
        for (int other = 0; other < worldSize(); ++other) {
            if (other != rank() && !group_->storeHas(arrivalKey(collective, other))) {
                missing.push_back(other);
            }
        }
        for (std::size_t i = 0; i < missing.size(); ++i) {
            cause += (i == 0 ? "rank " : ", rank ") + std::to_string(missing[i]);
        }
        cause = missing.empty() ? "a peer rank stopped or became unreachable during it"
                                : cause +
                                      " did not reach it (stopped, killed or hanging longer than "
                                      "distributed.timeout_s = " +
                                      seconds(timeout_) + ")";
    } catch (const std::exception &) {
        cause = "rank 0, which hosts the rendezvous store at " + environment_.master_addr + ":" +
                std::to_string(environment_.master_port) + ", is unreachable (stopped or killed)";
    }
    return "rank " + std::to_string(rank()) + ": the gradient exchange of " + collective +
           " failed: " + cause + " (c10d: " + firstLine(error.what()) + ")";
}

void DataParallel::enableOverlap(std::int64_t bucket_bytes) {
    overlap_ = std::make_unique<OverlappedReducer>(
        *group_, bucket_bytes, [this] { checkIn(current_step_); },
        [this](const std::exception &error) {
            throw DistributedError(failureMessage(stepLabel(current_step_), error));
        });
}

void DataParallel::beginStep(const std::vector<torch::Tensor> &parameters, std::int64_t step) {
    current_step_ = step;
    if (overlap_) {
        overlap_->beginStep(parameters);
    }
}

void DataParallel::checkIn(std::int64_t step) {
    if (checked_in_step_ == step) {
        return;
    }
    group_->storeSet(arrivalKey(stepLabel(step), rank()), "1");
    if (step > 1) {
        group_->storeDelete(arrivalKey(stepLabel(step - 1), rank()));
    }
    checked_in_step_ = step;
}

void DataParallel::reduceInBuckets(const std::vector<torch::Tensor> &tensors, int root) {
    std::int64_t total = 0;
    for (const torch::Tensor &tensor : tensors) {
        total += tensor.numel();
    }
    if (total == 0) {
        return;
    }
    std::int64_t capacity = kBucketBytes / static_cast<std::int64_t>(sizeof(float));
    torch::Tensor buffer;
    if (overlap_ && overlap_->buffers().defined() &&
        overlap_->buffers().numel() >= std::min(capacity, total)) {
        // The overlapped buckets' buffers are idle outside the gradient exchange.
        buffer = overlap_->buffers().view({-1});
        capacity = buffer.numel();
    } else {
        buffer = torch::empty({std::min(capacity, total)},
                              torch::TensorOptions(torch::kFloat32).device(group_->device()));
    }
    struct Piece {
        torch::Tensor flat;
        std::int64_t offset;
        std::int64_t length;
        std::int64_t at;
    };
    std::vector<Piece> pending;
    std::int64_t used = 0;
    const auto flush = [&] {
        torch::Tensor filled = buffer.narrow(0, 0, used);
        if (root >= 0) {
            group_->broadcast(filled, root);
        } else {
            group_->allReduceSum(filled);
        }
        for (const Piece &piece : pending) {
            piece.flat.narrow(0, piece.offset, piece.length)
                .copy_(filled.narrow(0, piece.at, piece.length));
        }
        pending.clear();
        used = 0;
    };
    torch::NoGradGuard no_grad;
    for (const torch::Tensor &tensor : tensors) {
        TORCH_CHECK(tensor.is_contiguous(), "data parallel: a non-contiguous tensor");
        const torch::Tensor flat = tensor.view({-1});
        for (std::int64_t offset = 0; offset < flat.numel();) {
            const std::int64_t length = std::min(flat.numel() - offset, capacity - used);
            buffer.narrow(0, used, length).copy_(flat.narrow(0, offset, length));
            pending.push_back({flat, offset, length, used});
            used += length;
            offset += length;
            if (used == capacity) {
                flush();
            }
        }
    }
    if (used > 0) {
        flush();
    }
}

DataParallel::StepExchange
DataParallel::allReduceGradients(const std::vector<torch::Tensor> &parameters, double &loss,
                                 std::int64_t step, const StepReport &report) {
    const std::string collective = stepLabel(step);
    current_step_ = step;
    // One flag per parameter (did this rank produce its gradient), the loss, one slot per
    // rank for its micro-batch and one for its failure (the others' slots are zero), and the
    // stop requests, summed too.
    const auto count = static_cast<std::int64_t>(parameters.size());
    const std::int64_t failure_slots = count + 1 + worldSize();
    const std::int64_t figure_slots = failure_slots + worldSize(); // 3 per rank
    const std::int64_t stop_slot = figure_slots + 3 * worldSize();
    torch::Tensor extras = torch::zeros({stop_slot + 1}, torch::kFloat64);
    auto flags = extras.accessor<double, 1>();
    flags[count] = loss;
    flags[count + 1 + rank()] = static_cast<double>(report.micro_batch);
    flags[failure_slots + rank()] = report.cannot_continue ? 1.0 : 0.0;
    flags[figure_slots + 3 * rank()] = static_cast<double>(report.peak_bytes);
    flags[figure_slots + 3 * rank() + 1] = report.compute_seconds;
    flags[figure_slots + 3 * rank() + 2] = static_cast<double>(report.examples);
    flags[stop_slot] = report.stop_requested ? 1.0 : 0.0;
    std::vector<torch::Tensor> gradients;
    try {
        checkIn(step);
        if (overlap_) {
            // Buckets that went out during backward, then the rest; every reduced gradient
            // is defined now (zeros where this rank had none).
            const std::vector<bool> produced = overlap_->finish(parameters);
            for (std::size_t i = 0; i < parameters.size(); ++i) {
                flags[static_cast<std::int64_t>(i)] = produced[i] ? 1.0 : 0.0;
            }
        } else {
            gradients.reserve(parameters.size());
            for (std::size_t i = 0; i < parameters.size(); ++i) {
                const torch::Tensor &grad = parameters[i].grad();
                flags[static_cast<std::int64_t>(i)] = grad.defined() ? 1.0 : 0.0;
                gradients.push_back(grad.defined() ? grad : torch::zeros_like(parameters[i]));
            }
            reduceInBuckets(gradients, -1);
        }
        if (group_->device().is_cpu()) {
            group_->allReduceSum(extras);
        } else {
            // NCCL: a few hundred bytes through the GPU, in order with the gradients.
            torch::Tensor on_device = extras.to(group_->device());
            group_->allReduceSum(on_device);
            extras.copy_(on_device);
        }
    } catch (const DistributedError &) {
        throw;
    } catch (const std::exception &error) {
        throw DistributedError(failureMessage(collective, error));
    }
    for (std::size_t i = 0; i < parameters.size(); ++i) {
        torch::Tensor parameter = parameters[i];
        const bool any = flags[static_cast<std::int64_t>(i)] > 0;
        if (overlap_) {
            if (!any && parameter.grad().defined()) {
                parameter.mutable_grad() = torch::Tensor(); // no rank produced it
            }
        } else if (!parameter.grad().defined() && any) {
            parameter.mutable_grad() = gradients[i];
        }
    }
    loss = flags[count];
    StepExchange exchange;
    for (int r = 0; r < worldSize(); ++r) {
        exchange.micro_batches.push_back(static_cast<std::int64_t>(flags[count + 1 + r]));
    }
    exchange.stop = flags[stop_slot] > 0;
    for (int r = worldSize() - 1; r >= 0; --r) {
        if (flags[failure_slots + r] > 0) {
            exchange.failed_rank = r;
        }
    }
    for (int r = 0; r < worldSize(); ++r) {
        RankFigures figures;
        figures.peak_bytes = static_cast<std::uint64_t>(flags[figure_slots + 3 * r]);
        figures.compute_seconds = flags[figure_slots + 3 * r + 1];
        figures.examples = static_cast<std::int64_t>(flags[figure_slots + 3 * r + 2]);
        exchange.figures.push_back(figures);
    }
    return exchange;
}

void DataParallel::broadcastParameters(const std::vector<torch::Tensor> &parameters) {
    try {
        group_->storeSet(arrivalKey("setup", rank()), "1");
        reduceInBuckets(parameters, 0);
    } catch (const std::exception &error) {
        throw DistributedError(failureMessage("setup", error));
    }
}

void DataParallel::broadcastRanges(const std::vector<torch::Tensor> &parameters,
                                   const std::vector<std::size_t> &boundaries,
                                   const std::string &label) {
    try {
        for (int owner = 0; owner < worldSize(); ++owner) {
            const auto first = static_cast<std::ptrdiff_t>(boundaries.at(owner));
            const auto end = static_cast<std::ptrdiff_t>(boundaries.at(owner + 1));
            reduceInBuckets({parameters.begin() + first, parameters.begin() + end}, owner);
        }
    } catch (const std::exception &error) {
        throw DistributedError(failureMessage(label, error));
    }
}

void DataParallel::sendToLeader(const std::string &what, const std::string &bytes) {
    try {
        group_->storeSet("to-leader/" + what + "/" + std::to_string(rank()), bytes);
    } catch (const std::exception &error) {
        throw DistributedError("rank " + std::to_string(rank()) + ": cannot hand its " + what +
                               " to rank 0 (c10d: " + firstLine(error.what()) + ")");
    }
}

std::string DataParallel::receiveFromRank(const std::string &what, int from) {
    const std::string key = "to-leader/" + what + "/" + std::to_string(from);
    try {
        std::string bytes = group_->storeGet(key);
        group_->storeDelete(key);
        return bytes;
    } catch (const std::exception &error) {
        throw DistributedError("rank 0: rank " + std::to_string(from) + " did not hand over its " +
                               what + " within " + seconds(timeout_) +
                               " (distributed.timeout_s): stopped, killed or hanging (c10d: " +
                               firstLine(error.what()) + ")");
    }
}

void DataParallel::publish(const std::string &what, const std::string &text) {
    try {
        group_->storeSet("published/" + what + "/" + std::to_string(rank()), text);
    } catch (const std::exception &error) {
        throw DistributedError("rank " + std::to_string(rank()) + ": cannot publish its " + what +
                               " (c10d: " + firstLine(error.what()) + ")");
    }
}

std::string DataParallel::readPublished(const std::string &what, int from) {
    try {
        return group_->storeGet("published/" + what + "/" + std::to_string(from));
    } catch (const std::exception &error) {
        throw DistributedError("rank " + std::to_string(rank()) + ": rank " + std::to_string(from) +
                               " did not publish its " + what +
                               " (c10d: " + firstLine(error.what()) + ")");
    }
}

void DataParallel::requireSameOnAllRanks(const std::string &what, const std::string &value) {
    const std::string key = "same/" + what;
    try {
        if (isLeader()) {
            group_->storeSet(key, value);
            return;
        }
        if (group_->storeGet(key) == value) {
            return;
        }
    } catch (const std::exception &error) {
        throw DistributedError("rank " + std::to_string(rank()) + ": cannot compare its " + what +
                               " with rank 0's (c10d: " + firstLine(error.what()) + ")");
    }
    throw DistributedError("rank " + std::to_string(rank()) + ": its " + what +
                           " differs from rank 0's; start every rank with the same project, "
                           "options and --set values");
}

void DataParallel::leaderFinished(const std::string &what) {
    group_->storeSet("done/" + what, "1");
}

void DataParallel::waitForLeader(const std::string &what) {
    // Polled rather than a store wait: rank 0's part may take longer than any timeout
    // (training a tokenizer), and a poll notices at once when rank 0 is gone.
    try {
        while (!group_->storeHas("done/" + what)) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    } catch (const std::exception &error) {
        throw DistributedError("rank " + std::to_string(rank()) + ": rank 0 stopped while " + what +
                               " (c10d: " + firstLine(error.what()) + ")");
    }
}

} // namespace headroom::distributed
