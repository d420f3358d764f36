#include "models/group_sampling.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace headroom::models {

std::uint64_t mixSamplingKey(std::uint64_t value) {
    value += 0x9E3779B97F4A7C15ULL;
    value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9ULL;
    value = (value ^ (value >> 27)) * 0x94D049BB133111EBULL;
    return value ^ (value >> 31);
}

namespace {

// The logits of the rows' last positions as float32 on the CPU, [R, V].
torch::Tensor lastLogits(const torch::Tensor &logits, std::int64_t rows) {
    return logits.reshape({rows, -1, logits.size(-1)}).select(1, -1).to(torch::kFloat32).cpu();
}

} // namespace

double keyedUniform(std::uint64_t key, std::int64_t index) {
    const std::uint64_t bits = mixSamplingKey(
        mixSamplingKey(key) ^ static_cast<std::uint64_t>(index) * 0xD1B54A32D192ED03ULL);
    return (static_cast<double>(bits >> 11) + 0.5) / 9007199254740992.0; // 2^53
}

std::vector<std::int64_t> sampleRows(const torch::Tensor &logits, const SamplingOptions &options,
                                     const std::vector<double> &uniforms) {
    const std::int64_t rows = logits.size(0);
    std::vector<std::int64_t> tokens(static_cast<std::size_t>(rows));
    if (!(options.temperature > 0)) {
        const torch::Tensor best = logits.argmax(1).contiguous();
        std::copy(best.data_ptr<std::int64_t>(), best.data_ptr<std::int64_t>() + rows,
                  tokens.begin());
        return tokens;
    }
    torch::Tensor scores = logits / options.temperature;
    const double minus_infinity = -std::numeric_limits<double>::infinity();
    if (options.top_k > 0 && options.top_k < scores.size(1)) {
        const torch::Tensor kth = std::get<0>(scores.topk(options.top_k, 1)).narrow(1, -1, 1);
        scores = scores.masked_fill(scores < kth, minus_infinity);
    }
    if (options.top_p < 1.0) {
        // As sampleToken: drop the least likely tokens whose probabilities add up to at most
        // 1 - top_p; each row's most likely token stays.
        const auto sorted = scores.sort(1, false);
        const torch::Tensor cumulative = std::get<0>(sorted).softmax(1).cumsum(1);
        torch::Tensor remove = cumulative <= (1.0 - options.top_p);
        remove.select(1, -1).fill_(false);
        scores = scores.scatter(1, std::get<1>(sorted),
                                std::get<0>(sorted).masked_fill(remove, minus_infinity));
    }
    const torch::Tensor cumulative = scores.softmax(1).to(torch::kFloat64).cumsum(1).contiguous();
    const std::int64_t vocab = cumulative.size(1);
    const double *values = cumulative.data_ptr<double>();
    for (std::int64_t row = 0; row < rows; ++row) {
        const double *begin = values + row * vocab;
        const double target = uniforms[static_cast<std::size_t>(row)] * begin[vocab - 1];
        const double *found = std::lower_bound(begin, begin + vocab, target);
        tokens[static_cast<std::size_t>(row)] = std::min<std::int64_t>(found - begin, vocab - 1);
    }
    return tokens;
}

std::vector<std::vector<std::int64_t>>
sampleContinuations(CausalLmImpl &model, const std::vector<std::int64_t> &prompt,
                    const std::vector<std::uint64_t> &row_keys, const SamplingOptions &options,
                    const torch::Device &device) {
    if (prompt.empty()) {
        throw std::invalid_argument("the prompt has no tokens");
    }
    const std::int64_t context = model.options().max_positions;
    const auto prompt_length = static_cast<std::int64_t>(prompt.size());
    if (prompt_length > context) {
        throw std::invalid_argument("the prompt has " + std::to_string(prompt.size()) +
                                    " tokens; the model's context is " + std::to_string(context));
    }
    const auto rows = static_cast<std::int64_t>(row_keys.size());
    std::vector<std::vector<std::int64_t>> completions(row_keys.size());
    if (rows == 0) {
        return completions;
    }
    torch::NoGradGuard no_grad;
    KvCache cache;
    torch::Tensor prompt_ids = torch::tensor(prompt, torch::kLong).view({1, -1}).to(device);
    torch::Tensor logits =
        lastLogits(model.forward(prompt_ids, &cache, true), 1).expand({rows, -1});
    for (std::size_t layer = 0; layer < cache.keys.size(); ++layer) {
        cache.keys[layer] = cache.keys[layer].repeat({rows, 1, 1, 1});
        cache.values[layer] = cache.values[layer].repeat({rows, 1, 1, 1});
    }
    std::vector<bool> finished(row_keys.size(), false);
    std::vector<double> uniforms(row_keys.size());
    std::vector<std::int64_t> fed(row_keys.size());
    const std::int64_t longest = std::min(options.max_new_tokens, context - prompt_length);
    for (std::int64_t index = 0; index < longest; ++index) {
        for (std::size_t row = 0; row < row_keys.size(); ++row) {
            uniforms[row] = keyedUniform(row_keys[row], index);
        }
        const std::vector<std::int64_t> tokens = sampleRows(logits, options, uniforms);
        bool all_finished = true;
        for (std::size_t row = 0; row < row_keys.size(); ++row) {
            fed[row] = finished[row] ? fed[row] : tokens[row];
            if (finished[row]) {
                continue;
            }
            completions[row].push_back(tokens[row]);
            finished[row] = std::find(options.eos_ids.begin(), options.eos_ids.end(),
                                      tokens[row]) != options.eos_ids.end();
            all_finished = all_finished && finished[row];
        }
        if (all_finished || index + 1 == longest) {
            break;
        }
        const torch::Tensor next = torch::tensor(fed, torch::kLong).view({rows, 1}).to(device);
        logits = lastLogits(model.forward(next, &cache, true), rows);
    }
    return completions;
}

} // namespace headroom::models
