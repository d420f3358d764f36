// The SPLADE recipe over a pretrained BERT-family masked language model (model.base).
#include "hf/encoder_config.h"
#include "hf/encoder_layout.h"
#include "hf/model_folder.h"
#include "hf/pretrained_encoder.h"
#include "models/bert_encoder.h"
#include "recipes/recipe.h"
#include "recipes/splade_recipe.h"

#include <headroom/config.h>

#include <cstdio>

namespace headroom::train {

namespace {

class PretrainedEncoder final : public MaskedLanguageModel {
public:
    PretrainedEncoder(hf::EncoderConfig config, models::BertEncoder encoder)
        : config_(std::move(config)), encoder_(std::move(encoder)) {}

    std::shared_ptr<torch::nn::Module> module() override { return encoder_.ptr(); }
    torch::Tensor logits(const torch::Tensor &ids, const torch::Tensor &mask) override {
        return encoder_->mlmLogits(ids, mask);
    }
    void setCheckpointEvery(std::int64_t every) override { encoder_->setCheckpointEvery(every); }
    std::int64_t vocabSize() const override { return config_.vocab_size; }
    std::string describe() const override {
        char text[256];
        std::snprintf(text, sizeof text,
                      "%s · %lld layers · dim %lld · %lld heads · vocab %lld · %.2f M parameters",
                      config_.architecture.c_str(), static_cast<long long>(config_.layers),
                      static_cast<long long>(config_.hidden_size),
                      static_cast<long long>(config_.heads),
                      static_cast<long long>(config_.vocab_size),
                      static_cast<double>(hf::parameterCount(config_)) / 1e6);
        return text;
    }

private:
    hf::EncoderConfig config_;
    models::BertEncoder encoder_;
};

} // namespace

std::unique_ptr<Recipe> makeSpladeRecipe(const Config &config, const hf::ModelFolder &folder,
                                         torch::Device device) {
    hf::EncoderConfig encoder_config = hf::readEncoderConfig(folder.config_path);
    if (config.integer("model.seq_len") > encoder_config.max_positions) {
        throw ConfigError("model.seq_len=" + config.text("model.seq_len") + " is longer than " +
                          encoder_config.architecture + "'s " +
                          std::to_string(encoder_config.max_positions) + " positions");
    }
    SpladeSettings settings;
    settings.lambda_q = config.real("splade.lambda_q");
    settings.lambda_d = config.real("splade.lambda_d");
    settings.warmup_steps = config.integer("splade.warmup_steps");
    settings.hard_negatives = config.integer("splade.hard_negatives");
    settings.max_length = config.integer("model.seq_len");
    settings.pad_id = static_cast<std::int32_t>(encoder_config.pad_token_id.value_or(0));
    models::BertEncoder encoder = hf::loadPretrainedEncoder(folder);
    return makeSpladeRecipe(
        std::make_unique<PretrainedEncoder>(std::move(encoder_config), std::move(encoder)),
        settings, device);
}

} // namespace headroom::train
