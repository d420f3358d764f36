// GRPO (online RL with verifiable rewards) as TRL's GRPOTrainer computes it (trl v0.25.1,
// trl/trainer/grpo_trainer.py: _generate_and_score_completions and _compute_loss; the version
// and files are named in docs/FINE_TUNING.md): rewards standardized within each prompt's group,
// the clipped policy ratio per completion token, the k3 KL estimate to a reference, and the
// four normalisations of the token losses.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace headroom {
class Config;
}

namespace headroom::train {

enum class GrpoLossType { Dapo, Grpo, DrGrpo, Bnpo };
enum class RewardScaling { Group, Batch, None };

struct GrpoOptions {
    std::int64_t group_size = 8;
    std::int64_t max_new_tokens = 256;
    double temperature = 1;
    double top_p = 1;
    std::int64_t top_k = 0;
    double beta = 0;
    double epsilon = 0.2;
    double epsilon_high = 0.2;
    GrpoLossType loss_type = GrpoLossType::Dapo;
    RewardScaling scale_rewards = RewardScaling::Group;
    std::int64_t log_completions = 2;
    std::string reward;
    std::string answer_pattern;
    double reward_timeout_s = 60;
};

// train.objective=grpo and the grpo.* keys; nothing for other objectives.
std::optional<GrpoOptions> grpoOptions(const Config &config);
std::string lossTypeName(GrpoLossType type);

// Rewards [N] of N / group_size groups of consecutive completions, as advantages.
struct GroupAdvantages {
    std::vector<double> advantages; // reward minus its group's mean, scaled as asked
    double mean_group_std = 0;      // the mean over completions of their group's std (TRL's
                                    // reward_std), the unbiased std as torch's
    double zero_std_fraction = 0;   // completions whose group's rewards are all equal
};
GroupAdvantages groupAdvantages(const std::vector<double> &rewards, std::int64_t group_size,
                                RewardScaling scaling);

// The weight of each completion token's loss in the step's loss, per completion: the loss type's
// normalisation over the whole step (all its micro-batches), so that summing the weighted token
// losses of any cut of the step into micro-batches gives the same step loss. `tokens`: each
// completion's scored tokens, in step order. bnpo normalises by the tokens of each block of
// `bnpo_block` completions (the configured micro-batch, as TRL does) and averages the blocks.
std::vector<double> completionWeights(const std::vector<std::int64_t> &tokens, GrpoLossType type,
                                      std::int64_t max_new_tokens, std::int64_t bnpo_block);

// One micro-batch of R completions, each a row of T target positions.
struct GrpoInputs {
    torch::Tensor logps;      // [R, T] the policy's log-probabilities (attached to the graph)
    torch::Tensor old_logps;  // [R, T] the sampling policy's when it was not this one (several
                              // updates per rollout); undefined = logps detached (ratio 1)
    torch::Tensor ref_logps;  // [R, T] the reference's; undefined when beta is 0
    torch::Tensor mask;       // [R, T] 1 at completion tokens, 0 elsewhere (float)
    torch::Tensor advantages; // [R]
    torch::Tensor weights;    // [R] completionWeights of the rows
};
struct GrpoTerms {
    torch::Tensor loss;     // sum over tokens of weight x token loss (attached)
    double kl_sum = 0;      // sum of the per-token KL over completion tokens (beta > 0)
    double clipped_sum = 0; // completion tokens whose ratio was clipped (region)
    double token_count = 0; // completion tokens
};
GrpoTerms grpoTerms(const GrpoOptions &options, const GrpoInputs &inputs);

} // namespace headroom::train
