#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace headroom::models {

// Dropout whose mask for an example depends only on the optimizer step, the example's place in
// the step's effective batch and the dropout's place in the model — not on how the step is cut
// into micro-batches, nor on what drew random numbers before. Out-of-memory recovery replays a
// step in smaller micro-batches, and activation checkpointing recomputes a block in backward:
// both then see the masks of the original pass, so a recovered run trains exactly like one
// started at the smaller micro-batch.
//
// The trainer opens a scope per micro-batch (forward and backward). Without a scope (tests,
// probes) or off the CPU, keyedDropout is plain torch::dropout on the global generator.
class ScopedDropoutKey {
public:
    struct Key {
        std::uint64_t step_seed = 0;
        std::int64_t first_row = 0;
        std::int64_t rows = 0;
        // When set, row r is keyed by (*row_ids)[r] instead of first_row + r: rows that are not
        // consecutive within the step (a retrieval example's passages).
        std::shared_ptr<const std::vector<std::int64_t>> row_ids;

        std::int64_t row(std::int64_t index) const {
            return row_ids ? (*row_ids)[static_cast<std::size_t>(index)] : first_row + index;
        }
    };

    // step_seed: one value per optimizer step; first_row: the micro-batch's first example within
    // the step; rows: its examples.
    ScopedDropoutKey(std::uint64_t step_seed, std::int64_t first_row, std::int64_t rows);
    // Rows keyed by explicit ids within the step.
    ScopedDropoutKey(std::uint64_t step_seed, std::vector<std::int64_t> row_ids);
    // Puts a key taken with current() back in force (activation checkpointing's recompute).
    explicit ScopedDropoutKey(const Key &key);

    // The key in force on this thread, or nullptr outside any scope.
    static const Key *current();
    ~ScopedDropoutKey();
    ScopedDropoutKey(const ScopedDropoutKey &) = delete;
    ScopedDropoutKey &operator=(const ScopedDropoutKey &) = delete;

private:
    Key key_;
    const Key *previous_;
};

// The seed of one optimizer step of a run.
std::uint64_t dropoutStepSeed(std::uint64_t run_seed, std::int64_t step);

// x holds the scope's examples outermost ([B, ...] or [B*T, ...] or [B*H, T, T]); site is a
// number unique to this dropout within the model. p in [0, 1).
torch::Tensor keyedDropout(const torch::Tensor &x, double p, std::uint64_t site);

// Dropout of rows gathered from a [tokens, width] tensor of the scope (tokens = the scope's rows
// times the tokens per row), such as the tokens routed to one Mixture-of-Experts expert: x
// [M, width] holds the rows `positions` (int64 [M], values in [0, tokens)) of that tensor, and
// each element is kept or dropped exactly as keyedDropout would decide for the full tensor.
torch::Tensor keyedDropoutRows(const torch::Tensor &x, double p, std::uint64_t site,
                               const torch::Tensor &positions, std::int64_t tokens);

// Uniform noise in [low, high), float32, shaped like x and keyed like keyedDropout's masks (the
// same per example whatever the micro-batch, and again when checkpointing recomputes). Without
// a scope or off the CPU it comes from the global generator.
torch::Tensor keyedUniform(const torch::Tensor &x, double low, double high, std::uint64_t site);

} // namespace headroom::models
