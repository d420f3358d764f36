#include "recipes/grpo_rollouts.h"

#include "data/utf8.h"
#include "memory/oom.h"
#include "models/group_sampling.h"
#include "models/lora.h"
#include "tokenizers/unicode.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace headroom::train {

namespace {

// A completion's sampling key: the run's seed, the step (0 for validation), the prompt, its place
// in the group.
std::uint64_t rolloutKey(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
    using models::mixSamplingKey;
    return mixSamplingKey(mixSamplingKey(mixSamplingKey(seed ^ a) ^ b) ^ c);
}

// Up to `limit` bytes of a text on one line (cut on a character), for the log.
std::string oneLine(const std::string &text, std::size_t limit = 160) {
    std::string line;
    for (const char c : text) {
        line += c == '\n' ? ' ' : c;
    }
    return data::previewUtf8(line, limit);
}

// A temperature-scaled per-target log-probability [R, T] of `model` on the rows.
torch::Tensor targetLogps(models::CausalLmImpl &model, const LanguageModelBatch &tokens,
                          double temperature) {
    return -model.targetLosses(tokens.inputs, tokens.targets, nullptr, temperature)
                .to(torch::kFloat32);
}

} // namespace

GrpoRollouts::GrpoRollouts(GrpoOptions options, rewards::RewardSet rewards,
                           models::CausalLm reference, const data::Tokenizer &tokenizer,
                           std::vector<std::int64_t> eos_ids, std::int64_t seq_len,
                           std::int64_t bnpo_block, std::uint64_t seed)
    : options_(std::move(options)), rewards_(std::move(rewards)), reference_(std::move(reference)),
      tokenizer_(tokenizer), eos_ids_(std::move(eos_ids)), seq_len_(seq_len),
      bnpo_block_(bnpo_block), seed_(seed),
      sampling_rows_(static_cast<std::size_t>(options_.group_size)) {}

void GrpoRollouts::moveTo(const torch::Device &device) {
    if (reference_) {
        reference_->to(device);
    }
}

std::string GrpoRollouts::describe() const {
    char text[160];
    std::snprintf(text, sizeof text, "GRPO (groups of %lld, %s loss, beta %g) rewarded by ",
                  static_cast<long long>(options_.group_size),
                  lossTypeName(options_.loss_type).c_str(), options_.beta);
    return text + rewards::formatRewardSpec(rewards_.terms());
}

// Sampling runs in eval mode; the policy trains again afterwards, also when sampling threw (the
// step's replay needs its activation checkpointing).
class ScopedEvalMode {
public:
    explicit ScopedEvalMode(models::CausalLmImpl &model)
        : model_(model), was_training_(model.is_training()) {
        model_.eval();
    }
    ~ScopedEvalMode() {
        if (was_training_) {
            model_.train();
        }
    }
    ScopedEvalMode(const ScopedEvalMode &) = delete;
    ScopedEvalMode &operator=(const ScopedEvalMode &) = delete;

private:
    models::CausalLmImpl &model_;
    bool was_training_;
};

std::vector<std::vector<GrpoRollouts::Completion>> GrpoRollouts::sampleGroups(
    models::CausalLmImpl &policy, const std::vector<const data::Example *> &prompts,
    const std::function<std::uint64_t(const data::Example &, std::size_t)> &key_of,
    const torch::Device &device) {
    models::SamplingOptions sampling;
    sampling.temperature = options_.temperature;
    sampling.top_k = options_.top_k;
    sampling.top_p = options_.top_p;
    sampling.eos_ids = eos_ids_;
    const auto group = static_cast<std::size_t>(options_.group_size);
    const ScopedEvalMode sampling_mode(policy);
    std::vector<std::vector<Completion>> groups(prompts.size());
    std::vector<rewards::Sample> samples;
    for (std::size_t p = 0; p < prompts.size(); ++p) {
        const data::Example &prompt = *prompts[p];
        const std::vector<std::int64_t> prompt_ids(prompt.tokens.begin(),
                                                   prompt.tokens.begin() + prompt.real_tokens);
        // A completion fits the row of seq_len + 1 tokens.
        sampling.max_new_tokens =
            std::min<std::int64_t>(options_.max_new_tokens, seq_len_ + 1 - prompt.real_tokens);
        // Byte-level ids may cut a character: the rewards and the log get valid UTF-8.
        const std::string prompt_text = tokenizers::utf8Lossy(
            tokenizer_.decode({prompt.tokens.begin(), prompt.tokens.begin() + prompt.real_tokens}));
        for (std::size_t first = 0; first < group;) {
            const std::size_t rows = std::min(sampling_rows_, group - first);
            std::vector<std::uint64_t> keys;
            for (std::size_t member = first; member < first + rows; ++member) {
                keys.push_back(key_of(prompt, member));
            }
            std::vector<std::vector<std::int64_t>> continuations;
            try {
                continuations =
                    models::sampleContinuations(policy, prompt_ids, keys, sampling, device);
            } catch (const std::exception &error) {
                if (!memory::isOutOfMemory(error) || sampling_rows_ <= 1) {
                    throw; // the trainer's out-of-memory recovery takes it from here
                }
                // Fewer rows at a time sample the same completions (keyed draws).
                sampling_rows_ = std::max<std::size_t>(1, sampling_rows_ / 2);
                continue;
            }
            first += rows;
            for (std::vector<std::int64_t> &ids : continuations) {
                Completion completion;
                completion.ids = std::move(ids);
                std::vector<std::int32_t> text_ids(completion.ids.begin(), completion.ids.end());
                if (!text_ids.empty() && std::find(eos_ids_.begin(), eos_ids_.end(),
                                                   text_ids.back()) != eos_ids_.end()) {
                    text_ids.pop_back(); // as skip_special_tokens drops it
                }
                completion.text = tokenizers::utf8Lossy(tokenizer_.decode(text_ids));
                samples.push_back({prompt_text, completion.text,
                                   static_cast<std::int64_t>(completion.ids.size()),
                                   prompt.record});
                groups[p].push_back(std::move(completion));
            }
        }
    }
    const std::vector<std::vector<double>> scores = rewards_.score(samples);
    const std::vector<double> combined = rewards_.combine(scores);
    std::size_t index = 0;
    for (std::vector<Completion> &completions : groups) {
        for (Completion &completion : completions) {
            completion.term_rewards = scores[index];
            completion.reward = combined[index];
            ++index;
        }
    }
    return groups;
}

std::vector<std::vector<float>>
GrpoRollouts::completionLogps(models::CausalLmImpl &model, bool adapters_off,
                              const std::vector<data::Example> &rows, std::size_t rows_at_once,
                              const torch::Device &device) {
    torch::NoGradGuard no_grad;
    std::optional<models::ScopedAdaptersOff> base_only;
    if (adapters_off) {
        base_only.emplace();
    }
    std::vector<std::vector<float>> values;
    for (std::size_t first = 0; first < rows.size(); first += rows_at_once) {
        ExampleBatch chunk;
        for (std::size_t i = first; i < std::min(rows.size(), first + rows_at_once); ++i) {
            chunk.push_back(&rows[i]);
        }
        const LanguageModelBatch tokens = languageModelBatch(chunk, seq_len_, device);
        const torch::Tensor logps =
            targetLogps(model, tokens, options_.temperature).cpu().contiguous();
        const std::int64_t width = logps.size(1);
        for (std::size_t r = 0; r < chunk.size(); ++r) {
            const data::Example &row = *chunk[r];
            const float *start = logps.data_ptr<float>() + static_cast<std::int64_t>(r) * width;
            // The target at t predicts token t + 1: the completion's tokens are targets
            // prompt_tokens - 1 .. real_tokens - 2.
            values.emplace_back(start + row.prompt_tokens - 1, start + row.real_tokens - 1);
        }
    }
    return values;
}

std::vector<data::Example> GrpoRollouts::expand(models::CausalLmImpl &policy,
                                                const std::vector<data::Example> &prompts,
                                                std::size_t micro_batch, std::int64_t step,
                                                const torch::Device &device) {
    kl_sum_ = clipped_sum_ = token_sum_ = 0;
    std::vector<std::uint64_t> prompt_ids;
    for (const data::Example &prompt : prompts) {
        prompt_ids.push_back(prompt.id);
    }
    if (step == step_ && prompt_ids == prompt_ids_) {
        return rows_; // a replay after an out-of-memory error: the same completions
    }
    step_ = -1;
    prompt_ids_ = std::move(prompt_ids);
    const auto group = static_cast<std::size_t>(options_.group_size);
    const std::size_t rows_at_once = std::max<std::size_t>(1, std::min(group, micro_batch));
    std::vector<const data::Example *> prompt_list;
    for (const data::Example &prompt : prompts) {
        prompt_list.push_back(&prompt);
    }
    const auto step_key = static_cast<std::uint64_t>(step);
    const std::vector<std::vector<Completion>> groups = sampleGroups(
        policy, prompt_list,
        [&](const data::Example &prompt, std::size_t member) {
            return rolloutKey(seed_, step_key, prompt.id, member);
        },
        device);

    std::vector<data::Example> rows;
    std::vector<double> rewards;
    std::vector<std::int64_t> lengths;
    figures_ = GrpoStepMetrics();
    std::vector<double> term_sums(rewards_.terms().size(), 0.0);
    for (std::size_t p = 0; p < prompts.size(); ++p) {
        const data::Example &prompt = prompts[p];
        for (const Completion &completion : groups[p]) {
            data::Example row;
            row.id = rows.size();
            row.tokens.assign(prompt.tokens.begin(), prompt.tokens.begin() + prompt.real_tokens);
            row.tokens.insert(row.tokens.end(), completion.ids.begin(), completion.ids.end());
            row.prompt_tokens = prompt.real_tokens;
            row.real_tokens = static_cast<std::int32_t>(row.tokens.size());
            row.tokens.resize(static_cast<std::size_t>(seq_len_ + 1), tokenizer_.endOfTextId());
            rows.push_back(std::move(row));
            rewards.push_back(completion.reward);
            lengths.push_back(static_cast<std::int64_t>(completion.ids.size()));
            for (std::size_t t = 0; t < term_sums.size(); ++t) {
                term_sums[t] += completion.term_rewards[t];
            }
        }
    }
    const GroupAdvantages advantages =
        groupAdvantages(rewards, options_.group_size, options_.scale_rewards);
    ref_logps_.clear();
    if (options_.beta != 0) {
        ref_logps_ = reference_ ? completionLogps(*reference_, false, rows, rows_at_once, device)
                                : completionLogps(policy, true, rows, rows_at_once, device);
    }
    const auto count = static_cast<double>(std::max<std::size_t>(1, rows.size()));
    double reward_sum = 0;
    double length_sum = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        reward_sum += rewards[i];
        length_sum += static_cast<double>(lengths[i]);
    }
    figures_.reward_mean = reward_sum / count;
    figures_.reward_std = advantages.mean_group_std;
    figures_.zero_std_fraction = advantages.zero_std_fraction;
    figures_.completion_length = length_sum / count;
    for (std::size_t t = 0; t < term_sums.size(); ++t) {
        figures_.reward_terms.emplace_back(rewards_.terms()[t].name, term_sums[t] / count);
    }
    advantages_ = advantages.advantages;
    weights_ = completionWeights(lengths, options_.loss_type, options_.max_new_tokens, bnpo_block_);
    rows_ = rows;
    step_ = step;
    return rows;
}

torch::Tensor GrpoRollouts::rowValues(const ExampleBatch &rows,
                                      const std::vector<std::vector<float>> &values,
                                      const torch::Tensor &like) const {
    torch::Tensor out = torch::zeros(like.sizes(), torch::kFloat32);
    const std::int64_t width = out.size(1);
    float *data = out.data_ptr<float>();
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const data::Example &row = *rows[r];
        const std::vector<float> &row_values = values[static_cast<std::size_t>(row.id)];
        std::copy(row_values.begin(), row_values.end(),
                  data + static_cast<std::int64_t>(r) * width + row.prompt_tokens - 1);
    }
    return out.to(like.device());
}

TrainingLoss GrpoRollouts::trainingLoss(models::CausalLmImpl &policy, const ExampleBatch &rows,
                                        const LanguageModelBatch &tokens) {
    GrpoInputs inputs;
    inputs.logps = targetLogps(policy, tokens, options_.temperature);
    inputs.mask = tokens.targets.ne(-100).to(torch::kFloat32);
    std::vector<float> advantages;
    std::vector<float> weights;
    for (const data::Example *row : rows) {
        advantages.push_back(static_cast<float>(advantages_[static_cast<std::size_t>(row->id)]));
        weights.push_back(static_cast<float>(weights_[static_cast<std::size_t>(row->id)]));
    }
    inputs.advantages = torch::tensor(advantages).to(inputs.logps.device());
    inputs.weights = torch::tensor(weights).to(inputs.logps.device());
    if (!ref_logps_.empty()) {
        inputs.ref_logps = rowValues(rows, ref_logps_, inputs.logps);
    }
    const GrpoTerms terms = grpoTerms(options_, inputs);
    kl_sum_ += terms.kl_sum;
    clipped_sum_ += terms.clipped_sum;
    token_sum_ += terms.token_count;
    TrainingLoss result;
    result.objective = terms.loss;
    // Reported as the step's loss: this micro-batch's part over its share of the step.
    result.loss =
        terms.loss.detach() * (static_cast<double>(rows_.size()) /
                               static_cast<double>(std::max<std::size_t>(1, rows.size())));
    result.step_total = true;
    return result;
}

std::optional<GrpoStepMetrics> GrpoRollouts::stepMetrics() const {
    if (step_ < 0) {
        return std::nullopt;
    }
    GrpoStepMetrics figures = figures_;
    const double tokens = std::max(1.0, token_sum_);
    figures.kl = options_.beta != 0 ? kl_sum_ / tokens : std::nan("");
    figures.clip_ratio = clipped_sum_ / tokens;
    return figures;
}

void GrpoRollouts::evaluate(models::CausalLmImpl &policy, const ExampleBatch &prompts,
                            EvalTotals &totals, const torch::Device &device) {
    const std::vector<const data::Example *> prompt_list(prompts.begin(), prompts.end());
    const std::vector<std::vector<Completion>> groups = sampleGroups(
        policy, prompt_list,
        [&](const data::Example &prompt, std::size_t member) {
            return rolloutKey(seed_ ^ 0x5EEDULL, 0, data::exampleOrdinal(prompt.id), member);
        },
        device);
    for (std::size_t p = 0; p < groups.size(); ++p) {
        double sum = 0;
        for (const Completion &completion : groups[p]) {
            sum += completion.reward;
        }
        totals.loss_sum -= sum / static_cast<double>(std::max<std::size_t>(1, groups[p].size()));
        totals.examples += 1;
        if (static_cast<std::int64_t>(samples_.size()) < options_.log_completions &&
            !groups[p].empty()) {
            const Completion &first = groups[p].front();
            const data::Example &prompt = *prompts[p];
            // The prompt's end: where the completion goes on from.
            const std::int32_t shown = std::min<std::int32_t>(prompt.real_tokens, 24);
            std::string prompt_text = oneLine(tokenizers::utf8Lossy(
                tokenizer_.decode({prompt.tokens.begin() + prompt.real_tokens - shown,
                                   prompt.tokens.begin() + prompt.real_tokens})));
            if (shown < prompt.real_tokens) {
                prompt_text = "…" + prompt_text;
            }
            char reward[64];
            std::snprintf(reward, sizeof reward, "reward %.3g · ", first.reward);
            samples_.push_back(reward + prompt_text + " → " + oneLine(first.text));
        }
    }
}

} // namespace headroom::train
