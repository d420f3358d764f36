#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace headroom {

// How the Mixture-of-Experts blocks routed the tokens of one optimizer step (gpt with
// moe.experts > 0, or a pretrained Mixtral base). The losses are the unweighted values, averaged
// over the step's sequences (and over a GPT's MoE blocks); moe.aux_loss and moe.z_loss weigh a
// GPT's in the objective, router_aux_loss_coef a Mixtral's (with output_router_logits).
struct MoeStepMetrics {
    // Load balancing: the GPT recipe's Switch/GShard form (1 = perfectly balanced), or an
    // imported Mixtral's transformers form (top_k = perfectly balanced).
    double aux_loss = 0;
    double z_loss = 0;           // router z-loss (ST-MoE; measured only for Mixtral)
    double dropped_fraction = 0; // share of token-to-expert assignments over capacity
    // Per MoE block (in model order), the share of its assignments each expert received before
    // capacity dropped any; each row sums to 1.
    std::vector<std::vector<double>> expert_load;
};

// What the SPLADE recipe's step measured: the FLOPS regularizers (unweighted) of the step's
// queries and passages, their weights after the warm-up, and the mean number of non-zero
// vocabulary weights per query and per passage.
struct RetrievalStepMetrics {
    double flops_q = 0;
    double flops_d = 0;
    double lambda_q = 0;
    double lambda_d = 0;
    double query_nonzeros = 0;
    double passage_nonzeros = 0;
};

// What a preference objective (train.objective dpo, ipo, simpo, orpo) measured in one step,
// means over the step's pairs: the policy's log-probabilities of the chosen and the rejected
// completions (summed over their tokens for dpo, per token for the others), their implicit
// rewards (beta times the log-ratio to the reference for dpo/ipo, beta (simpo) or lambda (orpo)
// times the log-probability otherwise), the reward margin and the share of pairs whose chosen
// reward is the higher.
// KTO's records are unpaired: "chosen" figures are the means over its desirable records,
// "rejected" over its undesirable ones (NaN for a step without any), the accuracy is the share of
// records whose reward has the sign of their label, and kl its KL estimate (NaN for the others).
struct PreferenceStepMetrics {
    double chosen_logps = 0;
    double rejected_logps = 0;
    double chosen_rewards = 0;
    double rejected_rewards = 0;
    double reward_margin = 0;
    double reward_accuracy = 0;
    double kl = std::numeric_limits<double>::quiet_NaN();

    // Every figure in the order above, for code that treats them alike.
    std::array<double *, 7> figures() {
        return {&chosen_logps,
                &rejected_logps,
                &chosen_rewards,
                &rejected_rewards,
                &reward_margin,
                &reward_accuracy,
                &kl};
    }
};

// Online RL (grpo) over one step's completions: their rewards (the weighted sum, and each reward
// term's mean by its name, e.g. "exact:answer"), the mean of each group's reward standard
// deviation, the share of completions in groups whose rewards were all equal (they teach
// nothing), the mean completion length in tokens, and over the completion tokens the mean KL
// to the reference (NaN without one) and the share whose policy ratio was clipped.
struct GrpoStepMetrics {
    double reward_mean = 0;
    double reward_std = 0;
    double zero_std_fraction = 0;
    double completion_length = 0;
    double kl = std::numeric_limits<double>::quiet_NaN();
    double clip_ratio = 0;
    std::vector<std::pair<std::string, double>> reward_terms;
};

// One rank of a distributed run in one step: its peak memory and the throughput of its share
// of the step (its examples over the time it spent on them, the exchange not counted).
struct RankStepMetrics {
    int rank = 0;
    std::uint64_t mem_peak = 0;
    double samples_per_s = 0;
};

// [{"rank":…,"mem_peak":…,"samples_per_s":…}, …]: how the project file stores a step's ranks
// and `train --json` prints them.
std::string rankStepMetricsJson(const std::vector<RankStepMetrics> &ranks);

// One optimizer step, as observers, the project file and `train --json` see it.
struct StepMetrics {
    std::int64_t step = 0; // 1-based optimizer step
    double loss = 0;
    double lr = 0;
    double grad_norm = 0;
    int micro_batch = 0;
    int accumulation = 0;
    double tokens_per_s = 0; // real tokens, padding not counted
    double samples_per_s = 0;
    // Language models: the share of the tokens the step computed on that were padding (short
    // examples padded to the longest of their micro-batch, the end of a packed window).
    double padding_fraction = 0;
    std::uint64_t mem_live = 0;
    std::uint64_t mem_peak = 0;
    std::uint64_t mem_reserved = 0; // device allocator cache (CUDA, MPS); 0 on CPU
    std::uint64_t mem_rss = 0;      // resident set of the process
    double loss_scale = 0;          // fp16 dynamic loss scale; 0 when not scaling
    std::int64_t skipped_steps = 0; // steps skipped so far because scaled gradients overflowed
    double elapsed_s = 0;           // since the run (or resumed run) started
    std::string samples_digest;
    std::optional<MoeStepMetrics> moe;               // with Mixture-of-Experts blocks
    std::optional<RetrievalStepMetrics> retrieval;   // splade
    std::optional<PreferenceStepMetrics> preference; // preference objectives
    std::optional<GrpoStepMetrics> grpo;             // online RL (train.objective grpo)
    std::vector<RankStepMetrics> ranks;              // distributed runs, by rank
};

// A validation pass. accuracy is for classifiers (and, for preference objectives, the share of
// held-out pairs whose chosen completion earns the higher reward), rmse for regressors; NaN when
// not applicable.
struct EvalMetrics {
    std::int64_t step = 0;
    double loss = 0;
    double accuracy = 0;
    double rmse = 0;
    std::int64_t examples = 0;
    double r2 = 0; // regression: 1 - squared error / variance of the targets; NaN otherwise
    // splade: ranking the validation split's passages for its queries through an inverted
    // index; NaN otherwise.
    double mrr_at_10 = 0;
    double recall_at_100 = 0;
    // grpo: the mean reward of the completions sampled for the validation prompts (the loss
    // is its negative); NaN otherwise.
    double reward = std::numeric_limits<double>::quiet_NaN();
};

// Something that happened during a run: "checkpoint", "nan_loss", "eval", "oom_recovered", ...
// details is a JSON object text with the kind-specific fields.
struct EngineEvent {
    std::string kind;
    std::int64_t step = 0;
    std::string message;
    std::string details = "{}";
};

} // namespace headroom
