// ZeRO stage 1: each rank keeps the optimizer state of a contiguous range of the parameters
// (about 1/N of them by size), updates only those after the gradient all-reduce, and the
// owners broadcast the updated values so every rank holds the whole model again.
#pragma once

#include "distributed/data_parallel.h"
#include "optim/optimizer.h"

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace headroom::distributed {

// Where rank r's parameters start: boundaries[r] .. boundaries[r + 1] (world_size + 1
// entries). Contiguous and balanced by element count; a parameter is never split, so a rank
// may own none when there are more ranks than large parameters.
std::vector<std::size_t> shardBoundaries(const std::vector<std::int64_t> &sizes, int world_size);

class ShardedOptimizer final : public train::Optimizer {
public:
    // Builds the inner optimizer (fused, 8-bit or offloaded AdamW) over a list of parameters.
    using Factory =
        std::function<std::unique_ptr<train::Optimizer>(const std::vector<torch::Tensor> &)>;

    // `parameters` once each, in the same order on every rank; `kind` is what `factory` makes.
    ShardedOptimizer(const std::vector<torch::Tensor> &parameters, DataParallel &group,
                     std::string kind, Factory factory);

    // The inner optimizer's kind: checkpoints of 1 and N ranks hold the same kind of state.
    std::string kind() const override { return kind_; }
    void setLearningRate(double lr) override;
    // The norm of every gradient (all ranks hold all of them after the all-reduce), so the
    // clip factor is the single-process one; applied to the owned gradients at step().
    double clipGradNorm(double max_norm) override;
    // Updates the owned parameters, then each rank broadcasts its range to the others.
    void step() override;
    void zeroGrad() override;
    const std::vector<torch::Tensor> &parameters() const override { return parameters_; }
    std::int64_t parameterCount() const override { return parameter_count_; }
    // This rank's share: what sharding saves is the point.
    std::uint64_t stateBytes() const override;
    // Rank 0 writes every rank's state, parameter by parameter (collectShards() first); a
    // checkpoint of this kind resumes on any number of ranks, sharded or not.
    void saveState(torch::serialize::OutputArchive &archive) override;
    // Reads the owned parameters' state from a checkpoint written without sharding (the whole
    // state is loaded once into a temporary optimizer). Per-parameter checkpoints go through
    // loadPerParameterState (train/checkpoint.cpp picks).
    void loadState(torch::serialize::InputArchive &archive) override;
    // Global parameter indices; empty / ignored for parameters another rank owns.
    std::vector<torch::Tensor> parameterState(std::size_t index) const override;
    void setParameterState(std::size_t index, const std::vector<torch::Tensor> &state) override;

    // Every rank calls it before rank 0 writes a checkpoint: the other ranks hand their state
    // to rank 0 through the rendezvous store, rank 0 waits for them (up to the timeout).
    // `label` names the checkpoint in keys and messages ("step 40").
    void collectShards(const std::string &label);
    // Replaces the inner optimizer (the escalation ladder's conversions), same parameters.
    void convertInner(
        const std::string &kind,
        const std::function<std::unique_ptr<train::Optimizer>(train::Optimizer &)> &convert);

    std::size_t firstOwned() const { return first_; }
    std::size_t endOwned() const { return end_; }

private:
    bool owns(std::size_t index) const { return index >= first_ && index < end_; }
    std::string serializeOwned() const;

    std::vector<torch::Tensor> parameters_;
    DataParallel &group_;
    Factory factory_;
    std::vector<std::size_t> boundaries_;
    std::size_t first_ = 0;
    std::size_t end_ = 0;
    std::unique_ptr<train::Optimizer> inner_; // null when this rank owns no parameter
    std::string kind_;
    std::int64_t parameter_count_ = 0;
    double pending_clip_ = 1.0;
    // Rank 0's copies of the other ranks' serialized state, from collectShards().
    std::vector<std::string> collected_;
};

// Writes / reads the per-parameter layout ShardedOptimizer::saveState writes, through any
// optimizer's parameterState(); for checkpoint.cpp, which loads such a state into an
// optimizer of one rank.
bool isPerParameterState(torch::serialize::InputArchive &archive);
void loadPerParameterState(torch::serialize::InputArchive &archive, train::Optimizer &optimizer);

} // namespace headroom::distributed
