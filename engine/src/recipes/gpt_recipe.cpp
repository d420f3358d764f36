#include "compat/attention_path.h"
#include "models/gpt.h"
#include "recipes/language_model_recipe.h"

#include <headroom/config.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace headroom::train {

std::int64_t countParameters(const torch::nn::Module &module) {
    std::int64_t count = 0;
    for (const torch::Tensor &parameter : module.parameters()) {
        count += parameter.numel();
    }
    return count;
}

void maskUntrainedTargets(torch::Tensor &targets, const ExampleBatch &batch) {
    const std::int64_t length = targets.size(1);
    for (std::size_t row = 0; row < batch.size(); ++row) {
        const data::Example &example = *batch[row];
        if (!example.trained.empty()) {
            // Target t predicts token t + 1.
            const auto kept = static_cast<std::int64_t>(example.trained.size()) - 1;
            torch::Tensor untrained = torch::empty({length}, torch::kBool);
            bool *out = untrained.data_ptr<bool>();
            for (std::int64_t t = 0; t < length; ++t) {
                out[t] = t >= kept || example.trained[static_cast<std::size_t>(t + 1)] == 0;
            }
            torch::Tensor row_targets = targets.select(0, static_cast<std::int64_t>(row));
            row_targets.masked_fill_(untrained.to(row_targets.device()), -100);
            continue;
        }
        if (example.prompt_tokens == 0 && example.real_tokens == 0) {
            continue;
        }
        // Target t predicts token t + 1.
        const std::int64_t first = std::max<std::int64_t>(0, example.prompt_tokens - 1);
        const std::int64_t end = example.real_tokens > 0
                                     ? std::min<std::int64_t>(length, example.real_tokens - 1)
                                     : length;
        torch::Tensor row_targets = targets.select(0, static_cast<std::int64_t>(row));
        row_targets.narrow(0, 0, first).fill_(-100);
        if (end < length) {
            row_targets.narrow(0, end, length - end).fill_(-100);
        }
    }
}

namespace {

class GptRecipe final : public LanguageModelRecipe {
public:
    GptRecipe(const models::GptOptions &options, torch::Device device)
        : LanguageModelRecipe(options.seq_len()), model_(options), device_(device) {
        model_->to(device_);
    }

    std::shared_ptr<torch::nn::Module> module() override { return model_.ptr(); }
    void moveTo(const torch::Device &device) override {
        device_ = device;
        model_->to(device_);
    }

    torch::Tensor loss(const ExampleBatch &batch) override { return lossTerms(batch).loss; }

    TrainingLoss trainingLoss(const ExampleBatch &batch) override {
        models::GptLoss terms = lossTerms(batch);
        TrainingLoss result;
        result.loss = terms.loss;
        result.objective = terms.loss;
        if (terms.moe) {
            const models::MoeOptions &moe = model_->options().moe();
            // Weights of 0 leave the losses out of backward; they are still reported.
            if (moe.aux_loss() > 0) {
                result.objective = result.objective + moe.aux_loss() * terms.moe->aux_loss;
            }
            if (moe.z_loss() > 0) {
                result.objective = result.objective + moe.z_loss() * terms.moe->z_loss;
            }
            result.moe = std::move(terms.moe);
        }
        return result;
    }

    std::unique_ptr<models::NextTokenLogits> nextTokenLogits() override {
        return models::gptLogits(*model_, device_);
    }
    bool setActivationCheckpointing(std::int64_t every) override {
        model_->setCheckpointEvery(every);
        return true;
    }
    bool reportsAccuracy() const override { return false; }
    bool reportsRmse() const override { return false; }

    std::string describe() const override {
        const models::GptOptions &options = model_->options();
        char text[160];
        std::snprintf(
            text, sizeof text,
            "GPT · %lld layers · dim %lld · %lld heads · context %lld · vocab %lld · "
            "%.2f M parameters",
            static_cast<long long>(options.layers()), static_cast<long long>(options.dim()),
            static_cast<long long>(options.heads()), static_cast<long long>(options.seq_len()),
            static_cast<long long>(options.vocab_size()),
            static_cast<double>(models::gptParameterCount(options)) / 1e6);
        const models::MoeOptions &moe = options.moe();
        if (moe.experts() == 0) {
            return text;
        }
        char experts[120];
        std::snprintf(experts, sizeof experts, " · MoE %lld experts, top-%lld, every %lld",
                      static_cast<long long>(moe.experts()), static_cast<long long>(moe.top_k()),
                      static_cast<long long>(moe.every()));
        return std::string(text) + experts;
    }

protected:
    torch::Device device() const override { return device_; }
    torch::Tensor targetLosses(const LanguageModelBatch &tokens) override {
        return model_->targetLosses(tokens.inputs, tokens.targets, tokens.packed());
    }

private:
    models::GptLoss lossTerms(const ExampleBatch &batch) {
        const LanguageModelBatch tokens = trainingBatch(batch);
        return model_->lossTerms(tokens.inputs, tokens.targets, tokens.packed());
    }

    models::Gpt model_;
    torch::Device device_;
};

} // namespace

models::GptOptions gptOptionsFromConfig(const Config &config, std::int64_t vocab_size) {
    const std::int64_t seq_len = config.integer("model.seq_len");
    models::GptOptions options(vocab_size, seq_len);
    if (config.integer("model.params") > 0) {
        options = models::gptOptionsForParameterCount(config.integer("model.params"), vocab_size,
                                                      seq_len);
    } else {
        options.layers(config.integer("model.layers"))
            .heads(config.integer("model.heads"))
            .dim(config.integer("model.dim"));
    }
    options.dropout(config.real("model.dropout"));
    options.attention(compat::parseAttentionPath(config.text("model.attention")))
        .memory_budget(config.bytes("memory.budget"));
    const std::string refusal =
        compat::attentionPathRefusal(options.attention(), false, options.dropout() > 0,
                                     "model.dropout=" + config.text("model.dropout"));
    if (!refusal.empty()) {
        throw ConfigError(refusal);
    }
    options.moe()
        .experts(config.integer("moe.experts"))
        .top_k(config.integer("moe.top_k"))
        .capacity_factor(config.real("moe.capacity_factor"))
        .every(config.integer("moe.every"))
        .expert_hidden(config.integer("moe.expert_hidden"))
        .aux_loss(config.real("moe.aux_loss"))
        .z_loss(config.real("moe.z_loss"))
        .jitter(config.real("moe.jitter"));
    try {
        if (options.moe().experts() != 0) {
            models::validateGptOptions(options);
        }
    } catch (const std::invalid_argument &error) {
        // "GPT option moe.top_k ..." names the key the config calls moe.top_k.
        throw ConfigError(error.what());
    }
    return options;
}

std::unique_ptr<Recipe> makeGptRecipe(const Config &config, std::int64_t vocab_size,
                                      torch::Device device) {
    return std::make_unique<GptRecipe>(gptOptionsFromConfig(config, vocab_size), device);
}

} // namespace headroom::train
