#include "recipes/grpo_objective.h"

#include <headroom/config.h>

#include <algorithm>
#include <cmath>

namespace headroom::train {

std::optional<GrpoOptions> grpoOptions(const Config &config) {
    if (config.text("train.objective") != "grpo") {
        return std::nullopt;
    }
    GrpoOptions options;
    options.group_size = config.integer("grpo.group_size");
    options.max_new_tokens = config.integer("grpo.max_new_tokens");
    options.temperature = config.real("grpo.temperature");
    options.top_p = config.real("grpo.top_p");
    options.top_k = config.integer("grpo.top_k");
    options.beta = config.real("grpo.beta");
    options.epsilon = config.real("grpo.epsilon");
    const double high = config.real("grpo.epsilon_high");
    options.epsilon_high = high > 0 ? high : options.epsilon;
    const std::string &type = config.text("grpo.loss_type");
    options.loss_type = type == "grpo"      ? GrpoLossType::Grpo
                        : type == "dr_grpo" ? GrpoLossType::DrGrpo
                        : type == "bnpo"    ? GrpoLossType::Bnpo
                                            : GrpoLossType::Dapo;
    const std::string &scaling = config.text("grpo.scale_rewards");
    options.scale_rewards = scaling == "batch"  ? RewardScaling::Batch
                            : scaling == "none" ? RewardScaling::None
                                                : RewardScaling::Group;
    options.log_completions = config.integer("grpo.log_completions");
    options.reward = config.text("grpo.reward");
    options.answer_pattern = config.text("grpo.answer_pattern");
    options.reward_timeout_s = config.real("grpo.reward_timeout");
    return options;
}

std::string lossTypeName(GrpoLossType type) {
    switch (type) {
    case GrpoLossType::Grpo:
        return "grpo";
    case GrpoLossType::DrGrpo:
        return "dr_grpo";
    case GrpoLossType::Bnpo:
        return "bnpo";
    case GrpoLossType::Dapo:
        break;
    }
    return "dapo";
}

namespace {

// The unbiased standard deviation of values[first, first + count), as torch.std.
double unbiasedStd(const std::vector<double> &values, std::size_t first, std::size_t count) {
    if (count < 2) {
        return std::nan("");
    }
    double mean = 0;
    for (std::size_t i = first; i < first + count; ++i) {
        mean += values[i];
    }
    mean /= static_cast<double>(count);
    double squares = 0;
    for (std::size_t i = first; i < first + count; ++i) {
        squares += (values[i] - mean) * (values[i] - mean);
    }
    return std::sqrt(squares / static_cast<double>(count - 1));
}

} // namespace

GroupAdvantages groupAdvantages(const std::vector<double> &rewards, std::int64_t group_size,
                                RewardScaling scaling) {
    const auto group = static_cast<std::size_t>(group_size);
    GroupAdvantages result;
    result.advantages.resize(rewards.size());
    const double batch_std = unbiasedStd(rewards, 0, rewards.size());
    double std_sum = 0;
    double zero_std = 0;
    for (std::size_t first = 0; first + group <= rewards.size(); first += group) {
        double mean = 0;
        for (std::size_t i = first; i < first + group; ++i) {
            mean += rewards[i];
        }
        mean /= static_cast<double>(group);
        const double group_std = unbiasedStd(rewards, first, group);
        // As TRL: the std reported is the group's, also when the advantages are scaled by
        // the batch's or not at all.
        const double scale = scaling == RewardScaling::Batch ? batch_std : group_std;
        const bool all_equal = std::abs(group_std) <= 1e-8; // torch.isclose(std, 0)
        for (std::size_t i = first; i < first + group; ++i) {
            const double centred = rewards[i] - mean;
            result.advantages[i] =
                scaling == RewardScaling::None ? centred : centred / (scale + 1e-4);
        }
        std_sum += group_std * static_cast<double>(group);
        zero_std += all_equal ? static_cast<double>(group) : 0;
    }
    const auto count = static_cast<double>(std::max<std::size_t>(1, rewards.size()));
    result.mean_group_std = std_sum / count;
    result.zero_std_fraction = zero_std / count;
    return result;
}

std::vector<double> completionWeights(const std::vector<std::int64_t> &tokens, GrpoLossType type,
                                      std::int64_t max_new_tokens, std::int64_t bnpo_block) {
    const auto completions = static_cast<double>(tokens.size());
    std::vector<double> weights(tokens.size());
    double all_tokens = 0;
    for (const std::int64_t count : tokens) {
        all_tokens += static_cast<double>(count);
    }
    const auto block = static_cast<std::size_t>(std::max<std::int64_t>(1, bnpo_block));
    const std::size_t blocks = (tokens.size() + block - 1) / block;
    std::vector<double> block_tokens(blocks, 0.0);
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        block_tokens[i / block] += static_cast<double>(tokens[i]);
    }
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const double own = std::max<double>(1, static_cast<double>(tokens[i]));
        switch (type) {
        case GrpoLossType::Dapo:
            weights[i] = 1 / std::max(1.0, all_tokens);
            break;
        case GrpoLossType::Grpo:
            weights[i] = 1 / (own * completions);
            break;
        case GrpoLossType::DrGrpo:
            weights[i] = 1 / (completions * static_cast<double>(max_new_tokens));
            break;
        case GrpoLossType::Bnpo:
            weights[i] = 1 / (std::max(1.0, block_tokens[i / block]) * static_cast<double>(blocks));
            break;
        }
    }
    return weights;
}

GrpoTerms grpoTerms(const GrpoOptions &options, const GrpoInputs &inputs) {
    const torch::Tensor &logps = inputs.logps;
    const torch::Tensor old = inputs.old_logps.defined() ? inputs.old_logps : logps.detach();
    const torch::Tensor ratio = torch::exp(logps - old);
    const torch::Tensor clipped =
        torch::clamp(ratio, 1 - options.epsilon, 1 + options.epsilon_high);
    const torch::Tensor advantages = inputs.advantages.unsqueeze(1);
    torch::Tensor token_losses = -torch::min(ratio * advantages, clipped * advantages);
    GrpoTerms terms;
    const torch::Tensor &mask = inputs.mask;
    torch::Tensor kl_sum = torch::zeros({}, mask.options());
    if (options.beta != 0 && inputs.ref_logps.defined()) {
        const torch::Tensor difference = inputs.ref_logps - logps;
        const torch::Tensor kl = torch::exp(difference) - difference - 1;
        token_losses = token_losses + options.beta * kl;
        kl_sum = (kl.detach() * mask).sum();
    }
    terms.loss = (token_losses * mask * inputs.weights.unsqueeze(1)).sum();
    const torch::Tensor region = ((ratio < 1 - options.epsilon) & (advantages < 0)) |
                                 ((ratio > 1 + options.epsilon_high) & (advantages > 0));
    // The figures reach the host in one copy (this runs in every micro-batch of a step).
    const torch::Tensor figures =
        torch::stack({kl_sum.to(torch::kFloat64),
                      (region.to(mask.dtype()) * mask).sum().to(torch::kFloat64),
                      mask.sum().to(torch::kFloat64)})
            .cpu();
    const double *values = figures.data_ptr<double>();
    terms.kl_sum = values[0];
    terms.clipped_sum = values[1];
    terms.token_count = values[2];
    return terms;
}

} // namespace headroom::train
