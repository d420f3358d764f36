#include "compat/attention_path.h"
#include "compat/torch_compat.h"
#include "device/resolve_device.h"
#include "plan/encoder_memory_model.h"
#include "plan/gpt_memory_model.h"
#include "plan/model_facts.h"
#include "plan/planner_request.h"
#include "plan/pretrained_memory_model.h"
#include "train/prepared_data.h"
#include "train/techniques.h"

#include <headroom/plan.h>
#include <headroom/units.h>

#include <algorithm>
#include <cmath>

namespace headroom {

namespace {

plan::StepTechniques stepTechniques(const Config &config) {
    const train::Techniques techniques = train::techniquesFromConfig(config);
    plan::StepTechniques step;
    step.precision = techniques.precision == train::Precision::Fp32 ? plan::EstimatePrecision::Fp32
                                                                    : plan::EstimatePrecision::Half;
    step.checkpoint_every = techniques.checkpoint_every;
    step.adamw8bit = techniques.adamw8bit;
    step.offload = techniques.offload;
    // A preference pair is two sequences (chosen and rejected) through one forward pass; a grpo
    // micro-batch is train.micro_batch completions.
    const std::string &objective = config.text("train.objective");
    const bool one_row = objective == "sft" || objective == "kto" || objective == "grpo";
    step.micro_batch = config.integer("train.micro_batch") * (one_row ? 1 : 2);
    step.accumulation = config.integer("train.accumulation");
    step.lora_rank = config.integer("lora.rank");
    step.lora_dropout = config.text("train.objective") == "sft" ? config.real("lora.dropout") : 0.0;
    std::string targets = config.text("lora.targets");
    std::size_t start = 0;
    while (start <= targets.size()) {
        const std::size_t comma = std::min(targets.find(',', start), targets.size());
        if (comma > start) {
            step.lora_targets.insert(targets.substr(start, comma - start));
        }
        start = comma + 1;
    }
    return step;
}

// The device kind the config trains on, without touching a GPU: "auto" is what this build
// and machine would pick; an explicit device may be one this machine lacks (planning for a
// profile).
std::string deviceKind(const Config &config) {
    std::string device = config.text("device");
    if (device == "auto") {
        device = device::resolveDevice(device).str();
    }
    return device.substr(0, device.find(':'));
}

} // namespace

namespace {

plan::StepMemory stepMemory(const Config &config, const ModelFacts &facts,
                            const plan::StepTechniques &techniques) {
    if (config.text("recipe") == "splade") {
        const ModelFacts base = plan::withPretrained(config, facts);
        if (!base.pretrained || !base.pretrained->encoder) {
            throw ConfigError("recipe=splade needs a BERT-family model.base");
        }
        return plan::encoderStepMemory(config, plan::encoderOf(*base.pretrained, base.vocab_size),
                                       techniques);
    }
    if (!config.isLanguageModel()) {
        return plan::tabularStepMemory(config, facts, techniques);
    }
    if (config.text("model.base").empty()) {
        return plan::gptStepMemory(config, facts.vocab_size, techniques);
    }
    // A pretrained base: its config.json's shapes (read here when the caller has none).
    const ModelFacts pretrained = plan::withPretrained(config, facts);
    return plan::pretrainedStepMemory(
        config, plan::architectureOf(*pretrained.pretrained, pretrained.vocab_size), techniques);
}

// Per rank of a distributed run: a sharded optimizer keeps about 1/ranks of the state (whole
// parameters per rank, so the largest share can be somewhat more), and the gradient exchange
// copies through one buffer of up to 16 MiB (distributed/data_parallel.cpp).
void applyDistributed(const Config &config, std::int64_t trainable, MemoryEstimate &estimate) {
    const auto ranks = static_cast<std::uint64_t>(config.integer("distributed.ranks"));
    if (ranks <= 1) {
        return;
    }
    constexpr std::uint64_t kExchangeBufferBytes = 16 << 20;
    estimate.overhead += std::min(kExchangeBufferBytes, 4 * static_cast<std::uint64_t>(trainable));
    if (config.integer("distributed.shard_optimizer") == 0) {
        return;
    }
    estimate.optimizer = (estimate.optimizer + ranks - 1) / ranks;
    estimate.host_bytes = (estimate.host_bytes + ranks - 1) / ranks;
    estimate.notes.push_back("optimizer state sharded over " + std::to_string(ranks) +
                             " ranks (distributed.shard_optimizer): 1/" + std::to_string(ranks) +
                             " of it per rank");
}

// Preference objectives: the rows of a pair, and the frozen reference copy a full fine-tune
// compares with for dpo and ipo (with LoRA the base itself is the reference: no bytes).
// GRPO: the sampling before the step's passes holds a KV cache of a whole group's rows over the
// whole window (and their logits), released before the training passes; a full
// fine-tune with a KL penalty keeps a frozen fp32 copy of the base as its reference.
void applyGrpo(const Config &config, const ModelFacts &facts, MemoryEstimate &estimate) {
    const std::int64_t rows = config.integer("grpo.group_size");
    std::uint64_t cache = 0;
    if (facts.pretrained) {
        const PretrainedArchitecture &model = *facts.pretrained;
        const std::int64_t kv_heads = model.kv_heads > 0 ? model.kv_heads : model.heads;
        const std::int64_t head_dim = model.head_dim > 0 ? model.head_dim : model.dim / model.heads;
        const std::string &precision = config.text("precision");
        const std::uint64_t bytes = precision == "bf16" || precision == "fp16" ? 2 : 4;
        cache = static_cast<std::uint64_t>(2 * model.layers * kv_heads * head_dim * rows *
                                           (config.integer("model.seq_len") + 1)) *
                    bytes +
                static_cast<std::uint64_t>(rows * facts.vocab_size) * 12;
    }
    const std::uint64_t training = estimate.gradients + estimate.activations;
    estimate.notes.push_back(
        "train.objective=grpo: each step first samples grpo.group_size completions per prompt, " +
        std::to_string(rows) + " rows at a time, with a KV cache of " + formatBytes(cache) +
        (cache > training ? " (more than the training passes: it sets the peak)"
                          : " (released before the training passes, which need more)"));
    if (cache > training) {
        estimate.activations += cache - training;
    }
    if (config.real("grpo.beta") != 0 && config.integer("lora.rank") == 0) {
        estimate.weights += estimate.weights;
        estimate.notes.push_back("grpo.beta > 0 without LoRA: a frozen fp32 copy of the base is "
                                 "the KL reference");
    }
}

void applyPreference(const Config &config, const ModelFacts &facts, MemoryEstimate &estimate) {
    const std::string &objective = config.text("train.objective");
    if (objective == "sft") {
        return;
    }
    if (objective == "grpo") {
        applyGrpo(config, facts, estimate);
        return;
    }
    estimate.notes.push_back(
        objective == "kto"
            ? std::string("train.objective=kto: each step also runs every record's mismatched "
                          "sequence forward without gradients (its KL estimate)")
            : "train.objective=" + objective +
                  ": each pair's chosen and rejected sequences go through one pass "
                  "(activations of 2 x micro_batch rows)");
    if ((objective != "dpo" && objective != "ipo" && objective != "kto") ||
        config.integer("lora.rank") > 0) {
        return;
    }
    if (config.integer("pref.precompute_reference") == 1) {
        estimate.notes.push_back("the reference log-probabilities are computed once before "
                                 "training (pref.precompute_reference): no reference copy while "
                                 "training");
        return;
    }
    const std::string &format = config.text("pref.reference_dtype");
    std::uint64_t reference = estimate.weights;
    if (format != "fp32") {
        // The copy is held as a LoRA run's frozen base in that format would be.
        Config held = config;
        held.set("model.base_dtype", format);
        held.set("lora.rank", "8");
        plan::StepTechniques techniques = stepTechniques(held);
        reference = stepMemory(held, facts, techniques).weights;
    }
    estimate.weights += reference;
    estimate.notes.push_back("a frozen " + format + " copy of the base is the reference (" +
                             formatBytes(reference) +
                             "); with LoRA the base with its adapters off is, at no extra memory");
}

} // namespace

MemoryEstimate estimateMemory(const Config &config, const ModelFacts &facts) {
    plan::StepTechniques techniques = stepTechniques(config);
    MemoryEstimate estimate;
    estimate.recipe = config.text("recipe");
    estimate.device = deviceKind(config);
    techniques.cpu = estimate.device == "cpu";
    estimate.techniques = train::techniquesFromConfig(config).describe();
    estimate.micro_batch = config.integer("train.micro_batch");
    estimate.accumulation = techniques.accumulation;
    const plan::StepMemory memory = stepMemory(config, facts, techniques);
    estimate.model = memory.model;
    estimate.parameters = memory.parameters;
    estimate.trainable = memory.trainable;
    estimate.weights = memory.weights;
    // The models say what is alive at the peak moment, when (without accumulation) gradients
    // may not exist yet. A run's measured breakdown counts every gradient of the step as
    // gradients and the rest of the step's peak as activations: the estimate is split the same
    // way, so the Plan tab and `runs` name the same bytes alike. The sum does not change.
    const std::uint64_t step_gradients = 4 * static_cast<std::uint64_t>(memory.trainable);
    const std::uint64_t dynamic = memory.gradients + memory.activations;
    estimate.gradients = std::min(step_gradients, dynamic);
    estimate.activations = dynamic - estimate.gradients;
    estimate.optimizer = memory.optimizer;
    estimate.overhead = memory.overhead;
    estimate.host_bytes = memory.host;
    applyDistributed(config, memory.trainable, estimate);
    applyPreference(config, facts, estimate);
    if (estimate.device != "cpu") {
        // The caching allocators round blocks up and keep workspaces (cuBLAS); the
        // coefficients above come from the exact CPU counts.
        const std::uint64_t dynamic = estimate.gradients + estimate.activations;
        estimate.overhead += dynamic / 32 + 8 * 1024 * 1024;
        estimate.notes.push_back("calibrated on the CPU allocator; on " + estimate.device +
                                 " allocator rounding and workspaces are estimated (+3 % of "
                                 "activations and gradients, +8 MiB)");
    }
    // On 1.13 every run takes the explicit path: the note tells only where there is a choice.
    if (!memory.attention.empty() && compat::sdpaAvailable()) {
        estimate.notes.push_back(
            "attention: " +
            std::string(memory.attention == "sdpa"
                            ? "scaled_dot_product_attention (no T x T weights kept)"
                            : "explicit softmax (keeps micro_batch x heads x T x T weights)") +
            ", model.attention=" + config.text("model.attention") + " on LibTorch " +
            compat::torchVersion());
    }
    estimate.model_peak = estimate.weights + estimate.gradients + estimate.optimizer +
                          estimate.activations + estimate.overhead;
    estimate.peak = estimate.model_peak;
    estimate.budget = config.bytes("memory.budget");
    estimate.fits = estimate.budget == 0 || estimate.peak <= estimate.budget;
    return estimate;
}

namespace plan {

void applyHistoryCorrection(MemoryEstimate &estimate,
                            const std::vector<MemoryHistoryRecord> &history) {
    std::vector<double> ratios;
    for (const MemoryHistoryRecord &record : history) {
        if (record.predicted_peak > 0 && record.measured_peak > 0) {
            ratios.push_back(static_cast<double>(record.measured_peak) /
                             static_cast<double>(record.predicted_peak));
        }
    }
    if (ratios.empty()) {
        return;
    }
    std::sort(ratios.begin(), ratios.end());
    const std::size_t middle = ratios.size() / 2;
    const double median =
        ratios.size() % 2 == 1 ? ratios[middle] : 0.5 * (ratios[middle - 1] + ratios[middle]);
    estimate.correction = std::clamp(median, kMinCorrection, kMaxCorrection);
    estimate.history_samples = static_cast<int>(ratios.size());
    estimate.peak = static_cast<std::uint64_t>(
        std::llround(static_cast<double>(estimate.model_peak) * estimate.correction));
    estimate.fits = estimate.budget == 0 || estimate.peak <= estimate.budget;
}

} // namespace plan

} // namespace headroom
