#pragma once

#include "optim/loss_scaler.h"
#include "optim/optimizer.h"

#include <torch/torch.h>

#include <cstdint>
#include <string>

namespace headroom::train {

// Everything besides weights and optimizer state that exact resume needs.
struct CheckpointMeta {
    std::int64_t step = 0;        // optimizer steps completed
    std::int64_t run_id = 0;      // run that wrote it
    std::string config_json;      // the run's effective config
    std::string data_state;       // ExampleStream::saveState at the start of step + 1
    std::int64_t micro_batch = 0; // after out-of-memory recoveries; 0 = the config's
    std::string techniques;       // Techniques::toJson in effect (the ladder may have added some)
    torch::Tensor cpu_rng_state;  // default CPU generator (dropout)
};

// Writes model, optimizer and meta to `path` through a temporary file and an atomic rename.
// An enabled loss scaler's state (fp16) is saved too. A LoRA model on a pretrained base
// (models::CausalLm) saves its trainable tensors only: the base is read from its folder.
void saveCheckpoint(const std::string &path, torch::nn::Module &model, Optimizer &optimizer,
                    const CheckpointMeta &meta, const DynamicLossScaler *scaler = nullptr);

// The bytes saveCheckpoint would write, kept in memory (a small model's best checkpoint is held
// until it is worth a file), and writing such bytes as saveCheckpoint does.
std::string serializeCheckpoint(torch::nn::Module &model, Optimizer &optimizer,
                                const CheckpointMeta &meta,
                                const DynamicLossScaler *scaler = nullptr);
void writeCheckpointBytes(const std::string &path, const std::string &bytes);

// Reads meta only (to rebuild the model with the checkpoint's config before loading it).
CheckpointMeta readCheckpointMeta(const std::string &path);

// Loads the weights (replacing the parameters' storage, so do it before an optimizer takes
// the parameters over) and returns the meta. A trainable-only checkpoint is copied into the
// model's trainable parameters: load the base and enable LoRA first.
CheckpointMeta loadCheckpointWeights(const std::string &path, torch::nn::Module &model);

// Loads the optimizer state into an optimizer built over the loaded parameters. Throws when
// the state does not fit (another model shape).
void loadCheckpointOptimizer(const std::string &path, Optimizer &optimizer);

// Restores the loss scale and its counters when the checkpoint has them (an fp16 run).
void loadCheckpointLossScaler(const std::string &path, DynamicLossScaler &scaler);

} // namespace headroom::train
