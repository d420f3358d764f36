#pragma once

// The analytic memory model of one training step of a pretrained causal language model
// (models/causal_lm.cpp: GPT-2 and the Llama family), op by op: what each op of LibTorch 1.13's
// CPU kernels keeps for backward given which of its inputs need gradients, and the backward's
// largest moments, measured with the counting CPU allocator. See docs/PLANNER.md for the
// derivation and the measured error.

#include "hf/architecture_config.h"
#include "plan/gpt_memory_model.h"

#include <headroom/config.h>

#include <cstdint>
#include <set>
#include <string>

namespace headroom::plan {

// The projections lora.targets names on this architecture: its own names (q_proj, c_attn, ...),
// the GPT recipe's roles (qkv, attn_out, mlp_in, mlp_out) or all-linear, resolved as
// train/lora_setup.cpp resolves them on the model. Throws ConfigError for a name the
// architecture does not have.
std::set<std::string> pretrainedLoraTargets(const std::string &text,
                                            const hf::ArchitectureConfig &architecture);

// "LlamaForCausalLM · 22 layers · dim 2048 · 32 heads (4 key/value) · context 256 · vocab 32000 ·
// 1.10 B parameters"
std::string describePretrained(const hf::ArchitectureConfig &architecture, std::int64_t seq_len,
                               std::int64_t parameters);

// Weights (fp32 parameters and LoRA adapters; under LoRA the projections in model.base_dtype, whose
// dequantization buffer is overhead), optimizer state and the largest of: the start of backward
// (everything saved plus the cross-entropy gradients), each layer's backward (after a checkpointed
// layer's recompute), the end of backward and the optimizer step.
StepMemory pretrainedStepMemory(const Config &config, const hf::ArchitectureConfig &architecture,
                                const StepTechniques &techniques);

} // namespace headroom::plan
