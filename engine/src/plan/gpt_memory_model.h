#pragma once

// Analytic memory models of one training step, per recipe. Every coefficient is in bytes per
// element of a shape product and comes from the counting CPU allocator (LibTorch 1.13): what
// autograd saves for backward in each op of the model, and the largest transient of the
// backward pass. See docs/PLANNER.md for the derivation and the measured error.

#include <headroom/config.h>
#include <headroom/plan.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace headroom::plan {

// Measured above weights + gradients + state during the optimizer step of small models
// (gradient-norm partials, scalars); it matters only where activations are tiny.
constexpr std::uint64_t kOptimizerStepWorkspace = 64 * 1024;

enum class EstimatePrecision { Fp32, Half }; // Half: bf16 or fp16 autocast

// What a step's peak is made of; the recipe models fill it, the estimator adds the rest.
struct StepMemory {
    std::uint64_t weights = 0;
    std::uint64_t gradients = 0; // alive at the peak
    std::uint64_t optimizer = 0; // state on the training device
    std::uint64_t host = 0;      // offloaded optimizer state
    std::uint64_t activations = 0;
    std::uint64_t overhead = 0;
    std::int64_t parameters = 0;
    std::int64_t trainable = 0;
    std::string model;
    std::string attention; // GPT: the attention path the run takes ("sdpa", "explicit")
};

struct StepTechniques {
    EstimatePrecision precision = EstimatePrecision::Fp32;
    std::int64_t checkpoint_every = 0;
    bool adamw8bit = false;
    bool offload = false;
    std::int64_t micro_batch = 1;
    std::int64_t accumulation = 1;
    // LoRA (gpt): rank 0 = off
    std::int64_t lora_rank = 0;
    double lora_dropout = 0;
    std::set<std::string> lora_targets;
    bool cpu = true; // the device kind decides the attention path (compat/attention_path.h)
};

// Bytes of optimizer state for parameters of these sizes (fused fp32 AdamW: 8 per element;
// 8-bit: 256-element blocks of two uint8 codes and two fp32 absmax, small tensors fp32).
std::uint64_t optimizerStateBytes(const std::vector<std::int64_t> &parameter_sizes, bool adamw8bit);

StepMemory gptStepMemory(const Config &config, std::int64_t vocab_size,
                         const StepTechniques &techniques);
StepMemory tabularStepMemory(const Config &config, const ModelFacts &facts,
                             const StepTechniques &techniques);

} // namespace headroom::plan
