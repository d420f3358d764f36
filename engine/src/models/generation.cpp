#include "models/generation.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace headroom::models {

namespace {

torch::Tensor idsTensor(const std::int64_t *ids, std::int64_t count, torch::Device device) {
    torch::Tensor tokens = torch::empty({1, count}, torch::kLong);
    std::copy(ids, ids + count, tokens.data_ptr<std::int64_t>());
    return device.is_cpu() ? tokens : tokens.to(device);
}

class CachedCausalLm final : public NextTokenLogits {
public:
    CachedCausalLm(CausalLmImpl &model, torch::Device device, bool use_cache)
        : model_(model), device_(device), use_cache_(use_cache) {}

    torch::Tensor next(const std::vector<std::int64_t> &sequence) override {
        const auto length = static_cast<std::int64_t>(sequence.size());
        if (!use_cache_) {
            return model_.forward(idsTensor(sequence.data(), length, device_), nullptr, true)
                .view({-1})
                .to(torch::kFloat)
                .cpu();
        }
        // A sequence that is not a continuation of the cached one starts over.
        if (cache_.length > length || !std::equal(seen_.begin(), seen_.end(), sequence.begin())) {
            cache_ = KvCache();
            seen_.clear();
        }
        const std::int64_t fresh = length - cache_.length;
        const torch::Tensor logits = model_.forward(
            idsTensor(sequence.data() + cache_.length, fresh, device_), &cache_, true);
        seen_.assign(sequence.begin(), sequence.end());
        return logits.view({-1}).to(torch::kFloat).cpu();
    }

    std::int64_t context() const override { return model_.options().max_positions; }

private:
    CausalLmImpl &model_;
    torch::Device device_;
    bool use_cache_;
    KvCache cache_;
    std::vector<std::int64_t> seen_;
};

class WindowedGpt final : public NextTokenLogits {
public:
    WindowedGpt(GptImpl &model, torch::Device device) : model_(model), device_(device) {}

    torch::Tensor next(const std::vector<std::int64_t> &sequence) override {
        const auto length = static_cast<std::int64_t>(sequence.size());
        const std::int64_t window = std::min(length, context());
        const torch::Tensor logits =
            model_.forward(idsTensor(sequence.data() + (length - window), window, device_));
        return logits.select(1, window - 1).view({-1}).to(torch::kFloat).cpu();
    }

    // The GPT has learned positions for seq_len tokens; generation slides over longer text.
    std::int64_t context() const override { return model_.options().seq_len(); }

private:
    GptImpl &model_;
    torch::Device device_;
};

} // namespace

std::unique_ptr<NextTokenLogits> causalLmLogits(CausalLmImpl &model, torch::Device device,
                                                bool use_cache) {
    return std::make_unique<CachedCausalLm>(model, device, use_cache);
}

std::unique_ptr<NextTokenLogits> gptLogits(GptImpl &model, torch::Device device) {
    return std::make_unique<WindowedGpt>(model, device);
}

std::int64_t sampleToken(const torch::Tensor &logits, const SamplingOptions &options,
                         torch::Generator &generator) {
    if (!(options.temperature > 0)) {
        return logits.argmax().item<std::int64_t>();
    }
    torch::Tensor scores = logits / options.temperature;
    const double minus_infinity = -std::numeric_limits<double>::infinity();
    if (options.top_k > 0 && options.top_k < scores.size(0)) {
        const torch::Tensor kth = std::get<0>(scores.topk(options.top_k)).select(0, -1);
        scores = scores.masked_fill(scores < kth, minus_infinity);
    }
    if (options.top_p < 1.0) {
        // Drop the least likely tokens whose probabilities add up to at most 1 - top_p; the
        // most likely token always stays.
        const auto sorted = scores.sort(/*dim=*/0, /*descending=*/false);
        const torch::Tensor cumulative = std::get<0>(sorted).softmax(0).cumsum(0);
        torch::Tensor remove = cumulative <= (1.0 - options.top_p);
        remove.index_put_({-1}, false);
        scores = scores.index_put({std::get<1>(sorted).masked_select(remove)},
                                  torch::tensor(minus_infinity));
    }
    const torch::Tensor probabilities = scores.softmax(0);
    return torch::multinomial(probabilities, 1, false, generator).item<std::int64_t>();
}

std::vector<std::int64_t> generateTokens(NextTokenLogits &model,
                                         const std::vector<std::int64_t> &prompt,
                                         const SamplingOptions &options,
                                         const std::function<void(std::int64_t)> &on_token,
                                         const std::atomic<bool> *stop) {
    if (prompt.empty()) {
        throw std::invalid_argument("the prompt has no tokens");
    }
    const auto context = model.context();
    if (static_cast<std::int64_t>(prompt.size()) > context) {
        throw std::invalid_argument("the prompt has " + std::to_string(prompt.size()) +
                                    " tokens; the model's context is " + std::to_string(context));
    }
    torch::NoGradGuard no_grad;
    torch::Generator generator = at::detail::createCPUGenerator(options.seed);
    std::vector<std::int64_t> sequence = prompt;
    std::vector<std::int64_t> generated;
    // A model with learned positions (the GPT recipe) slides its window; a cached one stops at
    // its context.
    const bool slides = dynamic_cast<WindowedGpt *>(&model) != nullptr;
    while (static_cast<std::int64_t>(generated.size()) < options.max_new_tokens) {
        if (stop != nullptr && stop->load()) {
            break;
        }
        if (!slides && static_cast<std::int64_t>(sequence.size()) >= context) {
            break;
        }
        const std::int64_t token = sampleToken(model.next(sequence), options, generator);
        sequence.push_back(token);
        generated.push_back(token);
        if (on_token) {
            on_token(token);
        }
        if (std::find(options.eos_ids.begin(), options.eos_ids.end(), token) !=
            options.eos_ids.end()) {
            break;
        }
    }
    return generated;
}

} // namespace headroom::models
