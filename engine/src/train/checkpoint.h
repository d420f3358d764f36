#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>

namespace headroom::train {

// Everything besides weights and optimizer state that exact resume needs.
struct CheckpointMeta {
    std::int64_t step = 0;      // optimizer steps completed
    std::int64_t run_id = 0;    // run that wrote it
    std::string config_json;    // the run's effective config
    std::string data_state;     // ExampleStream::saveState at the start of step + 1
    torch::Tensor cpu_rng_state; // default CPU generator (dropout)
};

// Writes model, optimizer and meta to `path` through a temporary file and an atomic rename.
void saveCheckpoint(const std::string &path, torch::nn::Module &model,
                    torch::optim::Optimizer &optimizer, const CheckpointMeta &meta);

// Reads meta only (to rebuild the model with the checkpoint's config before loading it).
CheckpointMeta readCheckpointMeta(const std::string &path);

// Loads weights and optimizer state into already-constructed objects; returns the meta.
CheckpointMeta loadCheckpoint(const std::string &path, torch::nn::Module &model,
                              torch::optim::Optimizer &optimizer);

// Loads only the weights (for export).
CheckpointMeta loadCheckpointWeights(const std::string &path, torch::nn::Module &model);

} // namespace headroom::train
