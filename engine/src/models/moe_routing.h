#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace headroom::models {

// The routing of one forward pass over a model's MoE blocks (a GPT's, or an imported Mixtral's,
// models/sparse_moe_block.h), for the step's statistics (models/moe_statistics.h).
struct MoeRouting {
    // The balancing loss of the forward pass, attached: a GPT's mean over its MoE blocks
    // (1 = balanced), a Mixtral's transformers form over all its layers (top_k = balanced).
    torch::Tensor aux_loss;
    torch::Tensor z_loss;                     // the router z-loss, mean over the MoE blocks
    std::vector<torch::Tensor> expert_counts; // per MoE block: int64 [experts], before drops
    std::vector<torch::Tensor> dropped;       // per MoE block: int64 scalar
    std::int64_t assignments = 0;             // per MoE block: tokens * top_k
};

} // namespace headroom::models
