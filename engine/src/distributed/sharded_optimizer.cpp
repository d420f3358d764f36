#include "distributed/sharded_optimizer.h"

#include "optim/optimizer_support.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace headroom::distributed {

namespace {

const char *const kLayoutKey = "layout";
const char *const kPerParameter = "per_parameter";

std::string parameterKey(std::size_t index) {
    return "p" + std::to_string(index);
}

void writeParameter(torch::serialize::OutputArchive &archive, std::size_t index,
                    const std::vector<torch::Tensor> &state) {
    torch::serialize::OutputArchive entry;
    for (std::size_t part = 0; part < state.size(); ++part) {
        entry.write(std::to_string(part), state[part].contiguous());
    }
    entry.write("parts", c10::IValue(static_cast<std::int64_t>(state.size())));
    archive.write(parameterKey(index), entry);
}

// False when the archive has no entry for the parameter.
bool readParameter(torch::serialize::InputArchive &archive, std::size_t index,
                   std::vector<torch::Tensor> &state) {
    torch::serialize::InputArchive entry;
    if (!archive.try_read(parameterKey(index), entry)) {
        return false;
    }
    c10::IValue parts;
    if (!entry.try_read("parts", parts) || !parts.isInt()) {
        throw std::runtime_error("the optimizer state of parameter " + std::to_string(index) +
                                 " has no part count");
    }
    state.assign(static_cast<std::size_t>(parts.toInt()), torch::Tensor());
    for (std::size_t part = 0; part < state.size(); ++part) {
        state[part] = train::readStateEntry(
            entry, std::to_string(part), "optimizer state of parameter " + std::to_string(index));
    }
    return true;
}

std::int64_t storedParameterCount(torch::serialize::InputArchive &archive) {
    c10::IValue count;
    if (!archive.try_read("parameters", count) || !count.isInt()) {
        throw std::runtime_error("the per-parameter optimizer state has no parameter count");
    }
    return count.toInt();
}

} // namespace

std::vector<std::size_t> shardBoundaries(const std::vector<std::int64_t> &sizes, int world_size) {
    std::int64_t total = 0;
    for (const std::int64_t size : sizes) {
        total += size;
    }
    std::vector<std::size_t> boundaries(static_cast<std::size_t>(world_size) + 1, sizes.size());
    boundaries[0] = 0;
    std::size_t index = 0;
    std::int64_t before = 0; // elements of the parameters before `index`
    for (int rank = 1; rank < world_size; ++rank) {
        const double target = static_cast<double>(total) * rank / world_size;
        // Take parameters while that brings the boundary closer to the target.
        while (index < sizes.size() &&
               std::abs(static_cast<double>(before + sizes[index]) - target) <=
                   std::abs(static_cast<double>(before) - target)) {
            before += sizes[index];
            ++index;
        }
        boundaries[static_cast<std::size_t>(rank)] = index;
    }
    return boundaries;
}

ShardedOptimizer::ShardedOptimizer(const std::vector<torch::Tensor> &parameters,
                                   DataParallel &group, std::string kind, Factory factory)
    : parameters_(parameters), group_(group), factory_(std::move(factory)), kind_(std::move(kind)) {
    std::vector<std::int64_t> sizes;
    for (const torch::Tensor &parameter : parameters_) {
        sizes.push_back(parameter.numel());
        parameter_count_ += parameter.numel();
    }
    boundaries_ = shardBoundaries(sizes, group_.worldSize());
    first_ = boundaries_[static_cast<std::size_t>(group_.rank())];
    end_ = boundaries_[static_cast<std::size_t>(group_.rank()) + 1];
    if (end_ > first_) {
        inner_ = factory_({parameters_.begin() + static_cast<std::ptrdiff_t>(first_),
                           parameters_.begin() + static_cast<std::ptrdiff_t>(end_)});
    }
}

void ShardedOptimizer::setLearningRate(double lr) {
    if (inner_) {
        inner_->setLearningRate(lr);
    }
}

double ShardedOptimizer::clipGradNorm(double max_norm) {
    const double norm = train::gradientNorm(parameters_);
    pending_clip_ = std::isfinite(max_norm) ? std::min(1.0, max_norm / (norm + 1e-6)) : 1.0;
    return norm;
}

void ShardedOptimizer::step() {
    if (inner_) {
        if (pending_clip_ < 1.0) {
            torch::NoGradGuard no_grad;
            for (std::size_t index = first_; index < end_; ++index) {
                torch::Tensor &grad = parameters_[index].mutable_grad();
                if (grad.defined()) {
                    grad.mul_(pending_clip_);
                }
            }
        }
        inner_->step();
    }
    pending_clip_ = 1.0;
    group_.broadcastRanges(parameters_, boundaries_, "the parameter broadcast after a step");
}

void ShardedOptimizer::zeroGrad() {
    for (torch::Tensor &parameter : parameters_) {
        parameter.mutable_grad().reset();
    }
    if (inner_) {
        inner_->zeroGrad();
    }
    pending_clip_ = 1.0;
}

std::uint64_t ShardedOptimizer::stateBytes() const {
    return inner_ ? inner_->stateBytes() : 0;
}

std::vector<torch::Tensor> ShardedOptimizer::parameterState(std::size_t index) const {
    if (!owns(index)) {
        return {};
    }
    return inner_->parameterState(index - first_);
}

void ShardedOptimizer::setParameterState(std::size_t index,
                                         const std::vector<torch::Tensor> &state) {
    if (owns(index)) {
        inner_->setParameterState(index - first_, state);
    }
}

std::string ShardedOptimizer::serializeOwned() const {
    torch::serialize::OutputArchive archive;
    for (std::size_t index = first_; index < end_; ++index) {
        writeParameter(archive, index, parameterState(index));
    }
    std::ostringstream bytes;
    archive.save_to(bytes);
    return bytes.str();
}

void ShardedOptimizer::collectShards(const std::string &label) {
    const std::string what = "optimizer state of " + label;
    collected_.clear();
    if (!group_.isLeader()) {
        group_.sendToLeader(what, serializeOwned());
        return;
    }
    for (int rank = 1; rank < group_.worldSize(); ++rank) {
        collected_.push_back(group_.receiveFromRank(what, rank));
    }
}

void ShardedOptimizer::saveState(torch::serialize::OutputArchive &archive) {
    archive.write(kLayoutKey, c10::IValue(std::string(kPerParameter)));
    archive.write("parameters", c10::IValue(static_cast<std::int64_t>(parameters_.size())));
    for (std::size_t index = first_; index < end_; ++index) {
        writeParameter(archive, index, parameterState(index));
    }
    if (!group_.isLeader()) {
        return; // what rank 0 writes is the checkpoint; this copy is never stored
    }
    if (collected_.size() + 1 != static_cast<std::size_t>(group_.worldSize())) {
        throw std::logic_error("a sharded optimizer saved without collectShards()");
    }
    for (std::size_t rank = 1; rank < boundaries_.size() - 1; ++rank) {
        torch::serialize::InputArchive shard;
        const std::string &bytes = collected_[rank - 1];
        shard.load_from(bytes.data(), bytes.size());
        std::vector<torch::Tensor> state;
        for (std::size_t index = boundaries_[rank]; index < boundaries_[rank + 1]; ++index) {
            if (!readParameter(shard, index, state)) {
                throw std::runtime_error("rank " + std::to_string(rank) +
                                         " handed over no optimizer state for parameter " +
                                         std::to_string(index));
            }
            writeParameter(archive, index, state);
        }
    }
    collected_.clear();
}

void ShardedOptimizer::loadState(torch::serialize::InputArchive &archive) {
    if (!inner_) {
        return;
    }
    // Written by one process without sharding: load it whole into an optimizer over copies of
    // the parameters (memory for the whole state, once, at resume), keep this rank's range.
    std::vector<torch::Tensor> copies;
    for (const torch::Tensor &parameter : parameters_) {
        copies.push_back(parameter.detach().clone());
    }
    std::unique_ptr<train::Optimizer> whole = factory_(copies);
    whole->loadState(archive);
    for (std::size_t index = first_; index < end_; ++index) {
        setParameterState(index, whole->parameterState(index));
    }
}

void ShardedOptimizer::convertInner(
    const std::string &kind,
    const std::function<std::unique_ptr<train::Optimizer>(train::Optimizer &)> &convert) {
    if (inner_) {
        inner_ = convert(*inner_);
    }
    kind_ = kind;
}

bool isPerParameterState(torch::serialize::InputArchive &archive) {
    c10::IValue layout;
    return archive.try_read(kLayoutKey, layout) && layout.isString() &&
           layout.toStringRef() == kPerParameter;
}

void loadPerParameterState(torch::serialize::InputArchive &archive, train::Optimizer &optimizer) {
    const std::int64_t stored = storedParameterCount(archive);
    const auto count = static_cast<std::int64_t>(optimizer.parameters().size());
    if (stored != count) {
        throw std::runtime_error("the optimizer state covers " + std::to_string(stored) +
                                 " parameters, this model has " + std::to_string(count));
    }
    std::vector<torch::Tensor> state;
    for (std::size_t index = 0; index < optimizer.parameters().size(); ++index) {
        if (optimizer.parameterState(index).empty()) {
            continue; // another rank's
        }
        if (!readParameter(archive, index, state)) {
            throw std::runtime_error("the optimizer state has no entry for parameter " +
                                     std::to_string(index));
        }
        optimizer.setParameterState(index, state);
    }
}

} // namespace headroom::distributed
