#include "recipes/sample_text.h"

#include "compat/autocast.h"
#include "models/generation.h"
#include "recipes/recipe.h"
#include "tokenizers/unicode.h"

#include <algorithm>

namespace headroom::train {

namespace {
constexpr std::int64_t kPromptTokens = 16;
} // namespace

std::optional<SampleContinuation> continueValidationSample(Recipe &recipe,
                                                           const data::Tokenizer &tokenizer,
                                                           data::ExampleStream &validation,
                                                           std::int64_t new_tokens) {
    std::unique_ptr<models::NextTokenLogits> model = recipe.nextTokenLogits();
    if (!model || new_tokens < 1) {
        return std::nullopt;
    }
    data::Example example;
    validation.reset();
    const bool found = validation.next(example);
    validation.reset();
    if (!found || example.tokens.empty()) {
        return std::nullopt;
    }
    const auto available = static_cast<std::int64_t>(example.tokens.size());
    std::int64_t length =
        example.prompt_tokens > 0
            ? example.prompt_tokens
            : std::min({kPromptTokens, available, std::max<std::int64_t>(1, model->context() / 2)});
    // A conversation: everything before the first reply (system, user, the assistant's header).
    const auto reply = std::find(example.trained.begin(), example.trained.end(), 1);
    if (reply != example.trained.end() && reply != example.trained.begin()) {
        length = std::min<std::int64_t>(reply - example.trained.begin(),
                                        std::max<std::int64_t>(1, model->context() - 1));
    }
    const std::vector<std::int64_t> prompt(example.tokens.begin(), example.tokens.begin() + length);
    models::SamplingOptions greedy;
    greedy.max_new_tokens = new_tokens;
    greedy.eos_ids = {tokenizer.endOfTextId()};
    const std::shared_ptr<torch::nn::Module> module = recipe.module();
    module->eval();
    std::vector<std::int64_t> generated;
    // In the weights' own precision: decoding one token at a time takes kernels autocast does
    // not cover, which would meet low-precision activations with float32 weights.
    const compat::ScopedAutocastState full_precision(compat::AutocastState{});
    try {
        generated = models::generateTokens(*model, prompt, greedy);
    } catch (...) {
        module->train();
        throw;
    }
    module->train();
    if (!generated.empty() && generated.back() == tokenizer.endOfTextId()) {
        generated.pop_back();
    }
    SampleContinuation sample;
    // Byte-level ids may cut a character: stored and shown as text, so made valid UTF-8.
    sample.prompt = tokenizers::utf8Lossy(
        tokenizer.decode(std::vector<std::int32_t>(prompt.begin(), prompt.end())));
    sample.continuation = tokenizers::utf8Lossy(
        tokenizer.decode(std::vector<std::int32_t>(generated.begin(), generated.end())));
    return sample;
}

} // namespace headroom::train
