// lora.targets of a pretrained model, one resolution for the planner (from config.json) and the
// trainer (from the built model): the model's projection names, the GPT recipe's roles (qkv,
// attn_out, mlp_in, mlp_out, mapped to GPT-2's or the Llama family's names) or all-linear.
#pragma once

#include <set>
#include <string>

namespace headroom::hf {

// `projections` are the model's projection names (q_proj, …, or c_attn, c_proj, c_fc); `gpt2`
// picks the role mapping. Throws ConfigError naming an unknown target and the valid ones, or
// for an empty list.
std::set<std::string> resolveLoraTargets(const std::string &text,
                                         const std::set<std::string> &projections, bool gpt2);

} // namespace headroom::hf
