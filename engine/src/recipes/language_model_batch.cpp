// Batches of language-model examples: padded to their longest, packed rows with their document
// layout, and the per-document losses evaluation reports.
#include "recipes/recipe.h"

#include <algorithm>

namespace headroom::train {

namespace {

// Tokens of an example that are not padding (at most its window).
std::int64_t realTokens(const data::Example &example) {
    const auto window = static_cast<std::int64_t>(example.tokens.size());
    return example.real_tokens > 0 ? std::min<std::int64_t>(example.real_tokens, window) : window;
}

bool isPacked(const data::Example &example) {
    return !example.segment_lengths.empty();
}

} // namespace

LanguageModelBatch languageModelBatch(const ExampleBatch &batch, std::int64_t seq_len,
                                      const torch::Device &device, std::int64_t min_width) {
    const auto rows = static_cast<std::int64_t>(batch.size());
    const std::int64_t window = seq_len + 1;
    std::int64_t width = std::min(window, std::max<std::int64_t>(2, min_width));
    bool packed = false;
    for (const data::Example *example : batch) {
        TORCH_CHECK(static_cast<std::int64_t>(example->tokens.size()) == window, "example has ",
                    example->tokens.size(), " tokens, expected ", window);
        width = std::max(width, realTokens(*example));
        packed = packed || isPacked(*example);
    }
    torch::Tensor tokens = torch::empty({rows, width}, torch::kInt64);
    auto *out = tokens.data_ptr<std::int64_t>();
    std::vector<std::vector<std::int32_t>> documents;
    for (std::int64_t row = 0; row < rows; ++row) {
        const data::Example &example = *batch[static_cast<std::size_t>(row)];
        std::copy(example.tokens.begin(), example.tokens.begin() + width, out + row * width);
        if (packed) {
            documents.push_back(example.segment_lengths);
        }
    }
    using torch::indexing::Slice;
    LanguageModelBatch result;
    result.targets = tokens.index({Slice(), Slice(1, width)}).clone();
    maskUntrainedTargets(result.targets, batch);
    result.inputs = tokens.index({Slice(), Slice(0, width - 1)});
    if (!device.is_cpu()) {
        result.inputs = result.inputs.to(device);
        result.targets = result.targets.to(device);
    }
    if (packed) {
        result.layout = models::documentLayout(documents, width - 1, device);
    }
    return result;
}

// A preference pair's rejected sequence is a row of its own.
std::int64_t realInputTokens(const std::vector<data::Example> &examples, std::int64_t seq_len) {
    std::int64_t total = 0;
    for (const data::Example &example : examples) {
        total += std::min(seq_len, realTokens(example));
        for (const data::Example &rejected : example.rejected) {
            total += std::min(seq_len, realTokens(rejected));
        }
    }
    return total;
}

std::int64_t longestExample(const std::vector<data::Example> &examples) {
    std::int64_t longest = 2;
    for (const data::Example &example : examples) {
        longest = std::max(longest, realTokens(example));
        for (const data::Example &rejected : example.rejected) {
            longest = std::max(longest, realTokens(rejected));
        }
    }
    return longest;
}

std::int64_t paddedInputTokens(const std::vector<data::Example> &examples, std::int64_t seq_len) {
    std::int64_t rows = 0;
    for (const data::Example &example : examples) {
        rows += 1 + static_cast<std::int64_t>(example.rejected.size());
    }
    return rows * std::min(seq_len, longestExample(examples));
}

void addDocumentLosses(const torch::Tensor &target_losses, const torch::Tensor &targets,
                       const ExampleBatch &batch, EvalTotals &totals) {
    const torch::Tensor losses = target_losses.to(torch::kCPU, torch::kDouble).contiguous();
    const torch::Tensor kept = targets.ne(-100).to(torch::kCPU, torch::kDouble).contiguous();
    const std::int64_t length = losses.size(1);
    const auto *loss = losses.data_ptr<double>();
    const auto *counted = kept.data_ptr<double>();
    const auto add = [&](std::int64_t row, std::int64_t begin, std::int64_t end) {
        double sum = 0;
        double count = 0;
        for (std::int64_t t = begin; t < std::min(end, length); ++t) {
            sum += loss[row * length + t];
            count += counted[row * length + t];
        }
        if (count > 0) {
            totals.loss_sum += sum / count;
            ++totals.examples;
        }
    };
    for (std::size_t row = 0; row < batch.size(); ++row) {
        const auto index = static_cast<std::int64_t>(row);
        if (!isPacked(*batch[row])) {
            add(index, 0, length);
            continue;
        }
        // A document of tokens [begin, begin + size) is predicted by targets [begin, begin +
        // size - 1); the target before it predicts its first token and is never kept.
        std::int64_t begin = 0;
        for (const std::int32_t size : batch[row]->segment_lengths) {
            add(index, begin, begin + size - 1);
            begin += size;
        }
    }
}

} // namespace headroom::train
