// lora.targets of a pretrained model, one resolution for the planner (from config.json) and the
// trainer (from the built model): the model's projection names, the GPT recipe's roles (qkv,
// attn_out, mlp_in, mlp_out, experts_in, experts_out, mapped to GPT-2's, the Llama family's or
// Mixtral's experts' names) or all-linear.
#pragma once

#include <set>
#include <string>

namespace headroom::hf {

// `projections` are the model's projection names (q_proj, …, c_attn, c_proj, c_fc, or a
// Mixtral's w1, w2, w3), which also decide what a role maps to. Throws ConfigError naming an
// unknown target and the valid ones, a role the model has nothing for, or an empty list.
std::set<std::string> resolveLoraTargets(const std::string &text,
                                         const std::set<std::string> &projections);

} // namespace headroom::hf
