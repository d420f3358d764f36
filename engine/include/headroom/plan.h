#pragma once

// The planner: hardware profiles, the memory estimator, the plan recommendation and auto-fit.
// Shared by `headroom-cli estimate` / `fit` and the desktop wizard, so both show the same
// numbers. No Torch types here.

#include <headroom/config.h>
#include <headroom/devices.h>
#include <headroom/speed_calibration.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace headroom {

// ---------------------------------------------------------------------------------------------
// Hardware profiles (engine/src/plan/hardware_profiles.cpp)

enum class ProfileKind { Cpu, Cuda, Mps };
std::string toString(ProfileKind kind); // "cpu" | "cuda" | "mps"

struct HardwareProfile {
    std::string id;      // "cuda-8gb", "mps-16gb", "cpu-32gb"; "detected-cpu", "detected-cuda:0"
    std::string label;   // "CUDA GPU · 8 GB (RTX 3070 / 4060 class)"
    std::string example; // catalogue CUDA: the cards of this class, "RTX 3070 / 4060"
    ProfileKind kind = ProfileKind::Cpu;
    std::string device;             // the `device` key it sets: "cpu", "cuda", "cuda:1", "mps"
    std::uint64_t memory_bytes = 0; // physical: VRAM, unified memory or RAM
    std::uint64_t budget_bytes = 0; // what training may use: the `memory.budget` it sets
    bool bf16 = false;              // bf16 autocast runs on it
    bool fp16 = false;              // fp16 autocast with loss scaling runs on it (CUDA)
    bool detected = false;          // describes this machine (else a machine to plan for)
    std::string note;               // where the budget comes from, in one line
};

// The catalogue changes only with this version (the planner stores it with fitted plans).
int hardwareProfilesVersion();
// Apple MPS (8-128 GB unified), CUDA (4-80 GB), CPU (RAM tiers), in display order.
const std::vector<HardwareProfile> &hardwareProfiles();
// One profile per device of this machine: the CPU always, each CUDA GPU, MPS when available.
std::vector<HardwareProfile> detectedProfiles(const DeviceReport &report);
// An id from the catalogue or detectedProfiles(), or "detected" (the device `auto` picks).
// Throws ConfigError listing the ids.
HardwareProfile findHardwareProfile(const std::string &id, const DeviceReport &report);
// Sets `device` and `memory.budget` to the profile's.
void applyHardwareProfile(const HardwareProfile &profile, Config &config);

// ---------------------------------------------------------------------------------------------
// Estimator (engine/src/plan/memory_estimator.cpp)

// What the planner works on: a project's config with this request's overrides, and the
// profile to plan for ("" = plan for the device and memory.budget the config names).
struct PlanRequest {
    std::string project_path;
    std::vector<std::string> overrides; // "key=value"
    std::string profile;                // "" | "detected" | a profile id
};

// Predicted peak bytes of a training step on the training device, by role.
struct MemoryEstimate {
    std::string recipe;             // "gpt" | "tabular"
    std::string model;              // "GPT · 4 layers · dim 128 · 4 heads · ...",
                                    // "LlamaForCausalLM · 22 layers · ... · 1.10 B parameters"
    std::string device;             // "cpu", "cuda", "mps"
    std::string techniques;         // "bf16 · checkpointing every block"; "fp32"
    std::int64_t parameters = 0;    // all, a tied weight once
    std::int64_t trainable = 0;     // with gradients and optimizer state (LoRA: the adapters)
    std::int64_t micro_batch = 0;   // examples per forward/backward
    std::int64_t accumulation = 0;  // micro-batches per optimizer step
    std::uint64_t weights = 0;      // parameters (and frozen base weights)
    std::uint64_t gradients = 0;    // gradients alive at the peak
    std::uint64_t optimizer = 0;    // optimizer state on the device (0 when offloaded)
    std::uint64_t activations = 0;  // saved for backward plus the largest backward transient
    std::uint64_t overhead = 0;     // workspace, allocator rounding, inputs
    std::uint64_t host_bytes = 0;   // kept in host memory instead (offloaded optimizer state)
    std::uint64_t model_peak = 0;   // the analytic prediction: the sum of the above
    double correction = 1.0;        // measured/predicted from this device's memory history
    int history_samples = 0;        // runs and probes the correction comes from
    std::uint64_t peak = 0;         // model_peak * correction: the number to plan with
    std::uint64_t budget = 0;       // memory.budget or the profile's; 0 = none
    bool fits = true;               // peak <= budget (always true without a budget)
    std::vector<std::string> notes; // caveats ("attention on LibTorch 2.x is not calibrated")
};

// Opens the project read-only (its tokenizer, tabular schema or pretrained base's config.json
// gives the model's shapes); allocates no model. Throws InputError (bad override, unknown profile),
// ConfigError or ProjectError.
MemoryEstimate estimateMemory(const PlanRequest &request);
// The same for a config and the shapes already known (vocabulary size for gpt, tabular
// schema facts for tabular), without the memory-history correction. For tests and the
// plan chooser.
// A pretrained base's architecture (model.base's config.json), in the sizes the estimator needs.
struct PretrainedArchitecture {
    std::string name;  // "LlamaForCausalLM", "GPT2LMHeadModel", "Qwen2ForCausalLM", ...
    bool gpt2 = false; // the GPT-2 family; else the Llama family (Llama, Qwen2, Mistral, Mixtral)
    std::int64_t dim = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0, hidden = 0,
                 max_positions = 0;
    // Mixtral: experts per layer (each of width `hidden`) and experts per token; 0 = dense.
    std::int64_t experts = 0, experts_per_token = 0;
    bool qkv_bias = false, o_bias = false, mlp_bias = false, tied_embeddings = false;
    double embedding_dropout = 0, residual_dropout = 0, attention_dropout = 0;
    // A BERT-family masked language model (recipe=splade): `hidden` is its intermediate size,
    // residual_dropout its hidden dropout.
    bool encoder = false;
    bool distilbert = false;
    std::int64_t type_vocab_size = 0;
};
struct ModelFacts {
    std::int64_t vocab_size = 0;             // gpt (with a pretrained base: its config.json's)
    std::int64_t numeric_features = 0;       // tabular
    std::vector<std::int64_t> cardinalities; // tabular, per categorical column
    std::int64_t outputs = 0;                // tabular: classes, or 1 for regression
    // gpt with model.base; when absent, the estimator reads model.base's config.json itself
    // (a relative path from the working directory).
    std::optional<PretrainedArchitecture> pretrained;
};
MemoryEstimate estimateMemory(const Config &config, const ModelFacts &facts);

// ---------------------------------------------------------------------------------------------
// Plan recommendation (engine/src/plan/plan_chooser.cpp)

struct PlanDecision {
    std::string setting; // "precision", "checkpointing", "train.micro_batch", ...
    std::string value;
    std::string reason; // one line: why
};

// One point of the time-memory table.
struct PlanAlternative {
    std::string techniques; // "bf16 · checkpointing every block"
    std::int64_t micro_batch = 0;
    std::int64_t accumulation = 0;
    std::uint64_t peak = 0;             // predicted
    double relative_speed = 1.0;        // 1.0 = fp32, no techniques, the same micro-batch
    double step_seconds = 0;            // predicted per optimizer step; 0 = not calibrated
    bool fits = false;                  // within the budget with the safety margin
    bool pareto = false;                // no other option is both faster and smaller
    std::vector<std::string> overrides; // "key=value" that select it
};

// A change to the model itself rather than a technique, priced with the plan's techniques and
// micro-batch: for a Mixture-of-Experts GPT, fewer experts, a lower top-k, a capacity factor of
// 1 or MoE in every other block (the memory guides' advice). The planner never applies one.
struct PlanVariant {
    std::string change;                 // "4 experts instead of 8"
    std::vector<std::string> overrides; // "moe.experts=4"
    std::uint64_t peak = 0;             // predicted, with the plan's techniques
    std::int64_t parameters = 0;
    double relative_speed = 0; // step speed against the plan's model; 0 = not modelled
    bool fits = false;
};

struct Plan {
    bool feasible = false;              // some option fits within the budget and margin
    std::string summary;                // "fits as configured" / "needs bf16 and checkpointing" /
                                        // "cannot fit: even ... needs 3.1 GiB of 2 GiB"
    HardwareProfile profile;            // planned for
    double safety_margin = 0.1;         // share of the budget kept free
    std::vector<std::string> overrides; // to apply (device, memory.budget, techniques, batch)
    std::vector<PlanDecision> decisions;
    MemoryEstimate estimate;                   // of the chosen plan
    std::vector<PlanAlternative> alternatives; // fastest first
    std::vector<PlanVariant> variants;         // model changes to consider (MoE); may be empty
    // Speeds come from a calibration of the planned device (else constant factors per
    // technique): step_seconds is the chosen plan's predicted seconds per optimizer step (0
    // when uncalibrated or not modelled for the recipe); speed_note says where speeds come from.
    bool speed_calibrated = false;
    double step_seconds = 0;
    std::string speed_note;
};

// The fastest plan that fits the profile's budget with the safety margin, keeping the
// effective batch (micro_batch x accumulation). Throws as estimateMemory does.
// Speeds come from the cached calibration of the device when the plan is for this machine
// (a detected profile, or the config's own device), else from constant factors.
Plan recommendPlan(const PlanRequest &request);
Plan recommendPlan(const Config &config, const ModelFacts &facts, const HardwareProfile &profile);
// With this calibration (nullopt: constant factors), for tests and callers that hold one.
Plan recommendPlan(const Config &config, const ModelFacts &facts, const HardwareProfile &profile,
                   const std::optional<SpeedCalibration> &calibration);

// ---------------------------------------------------------------------------------------------
// Auto-fit (engine/src/plan/auto_fit.cpp)

struct FitProbe {
    std::int64_t micro_batch = 0;
    bool fits = false;
    std::uint64_t peak = 0; // measured peak of the probe step (up to the failure when !fits)
    std::string error;      // the out-of-memory message when !fits
};

struct FitResult {
    Plan plan;                        // the recommendation the probes started from
    std::vector<FitProbe> probes;     // at most kMaxFitProbes
    std::int64_t largest_fitting = 0; // largest micro-batch a probe ran without OOM
    std::int64_t micro_batch = 0;     // chosen (with the margin; keeps the effective batch)
    std::int64_t accumulation = 0;
    std::uint64_t predicted_peak = 0;   // estimator, at the chosen micro-batch
    std::uint64_t measured_peak = 0;    // probe, at the chosen micro-batch
    std::vector<std::string> overrides; // the verified plan, as stored in the project config
    bool stored = false;
    std::string message;
};
constexpr int kMaxFitProbes = 8;

using FitProgress = std::function<void(const FitProbe &)>;
// Recommends a plan, verifies it with real training steps under the budget (grow, then
// bisect the micro-batch), stores the verified settings in the project's config and the
// probes in its memory history. The model and optimizer are rebuilt by the run that follows,
// so probing leaves nothing behind. Throws as estimateMemory does; a plan that cannot fit
// is a result (feasible false), not an exception.
FitResult fitPlan(const PlanRequest &request, const FitProgress &progress = {});

// ---------------------------------------------------------------------------------------------
// JSON (engine/src/plan/plan_json.cpp): the `--json` output of estimate and fit.
std::string toJson(const HardwareProfile &profile, int indent = -1);
std::string toJson(const MemoryEstimate &estimate, int indent = -1);
std::string toJson(const Plan &plan, int indent = -1);
std::string toJson(const FitResult &result, int indent = -1);

} // namespace headroom
