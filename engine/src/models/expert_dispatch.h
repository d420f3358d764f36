// Token-to-expert dispatch shared by the Mixture-of-Experts layers (models/moe.h for the GPT
// recipe, models/sparse_moe_block.h for imported Mixtral models): the N*k assignments of a
// router's top-k choices sorted so each expert's tokens form one contiguous slice, each expert
// run once on its slice, and the gate-weighted outputs index-added back per token. No
// tokens x experts x dim buffer exists.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <functional>

namespace headroom::models {

// x W^T in fp32 whatever the autocast state: routing decisions are sensitive to rounding, so
// routers run in full precision (Switch Transformer's selective precision). x: the router's
// input [tokens, dim] (any floating dtype), weight [experts, dim].
torch::Tensor routerLogits(const torch::Tensor &x, const torch::Tensor &weight);

struct ExpertAssignments {
    // Assignment ids (token * k + slot, token = row * length + position) in dispatch order:
    // by expert, then row, then slot, then position; those over capacity removed.
    torch::Tensor kept;
    // int64 [experts, rows] on the routing device: assignments per expert and row before
    // capacity dropped any.
    torch::Tensor group_sizes;
    torch::Tensor expert_counts; // int64 [experts] on the CPU, before drops
    torch::Tensor kept_counts;   // int64 [experts] on the CPU, after drops
};

// top_experts: int64 [rows * length, k], each token's chosen experts in slot order. capacity:
// assignments one expert may take from one row (all first choices in token order first, then
// the second choices, ...: GShard's priority); 0 = unlimited. One small copy to the host (the
// counts decide the slices).
ExpertAssignments sortAssignments(const torch::Tensor &top_experts, std::int64_t rows,
                                  std::int64_t length, std::int64_t experts, std::int64_t capacity);

// One expert on its slice: inputs [M, dim] are the rows `positions` (int64 [M]) of the layer's
// [tokens, dim] input, which key the LoRA adapters' dropout (keyedDropoutRows).
using ExpertFunction = std::function<torch::Tensor(std::int64_t expert, const torch::Tensor &inputs,
                                                   const torch::Tensor &positions)>;

// [tokens, dim]: for every kept assignment, gates[token, slot] times the expert's output for
// the token, added in expert order (a token's lower-numbered expert first). flat [tokens, dim];
// gates [tokens, k] (any floating dtype; cast to the experts' output dtype). Tokens without a
// kept assignment get zeros.
torch::Tensor runExperts(const torch::Tensor &flat, const ExpertAssignments &assignments,
                         const torch::Tensor &gates, const ExpertFunction &expert);

} // namespace headroom::models
