// The GPT recipe on a pretrained Hugging Face model (model.base): the same
// token windows and next-token loss, over a models::CausalLm imported from the
// folder.
#include "hf/architecture_config.h"
#include "hf/checkpoint_layout.h"
#include "hf/generation_defaults.h"
#include "hf/model_folder.h"
#include "hf/pretrained_model.h"
#include "models/causal_lm.h"
#include "recipes/grpo_rollouts.h"
#include "recipes/language_model_recipe.h"
#include "recipes/preference_scoring.h"

#include <headroom/config.h>

#include <algorithm>
#include <cstdio>
#include <optional>

namespace headroom::train {

namespace {

class PretrainedRecipe final : public LanguageModelRecipe {
public:
    PretrainedRecipe(hf::ArchitectureConfig architecture, models::CausalLm model,
                     std::int64_t seq_len, torch::Device device,
                     std::optional<PreferenceScorer> preference, bool precompute_reference,
                     std::unique_ptr<GrpoRollouts> grpo)
        : LanguageModelRecipe(seq_len), architecture_(std::move(architecture)),
          model_(std::move(model)), device_(device), preference_(std::move(preference)),
          precompute_reference_(precompute_reference), grpo_(std::move(grpo)) {
        model_->to(device_);
        if (preference_) {
            preference_->moveTo(device_);
        }
        if (grpo_) {
            grpo_->moveTo(device_);
        }
    }

    std::shared_ptr<torch::nn::Module> module() override { return model_.ptr(); }
    void moveTo(const torch::Device &device) override {
        device_ = device;
        model_->to(device_);
        if (preference_) {
            preference_->moveTo(device_);
        }
        if (grpo_) {
            grpo_->moveTo(device_);
        }
    }

    std::int64_t rowsPerExample() const override { return grpo_ ? grpo_->options().group_size : 1; }
    bool expandsStep() const override { return grpo_ != nullptr; }
    std::vector<data::Example> expandStep(const std::vector<data::Example> &examples,
                                          std::size_t micro_batch, std::int64_t step) override {
        return grpo_->expand(*model_, examples, micro_batch, step, device_);
    }
    std::optional<GrpoStepMetrics> grpoStepMetrics() const override {
        return grpo_ ? grpo_->stepMetrics() : std::nullopt;
    }
    void beginEvaluation() override {
        if (grpo_) {
            grpo_->beginEvaluation();
        }
    }
    std::vector<std::string> evaluationSamples() override {
        return grpo_ ? grpo_->evaluationSamples() : std::vector<std::string>();
    }

    torch::Tensor loss(const ExampleBatch &batch) override {
        if (grpo_) {
            return grpo_->trainingLoss(*model_, batch, trainingBatch(batch)).objective;
        }
        if (unpaired()) {
            return preference_->scoreUnpaired(*model_, batch, trainingBatch(batch), kl_).loss;
        }
        return preference_ ? scorePairs(batch, true).loss : lossTerms(batch).loss;
    }
    // KTO's KL estimate is the step's: every micro-batch of a step (cut as out-of-memory
    // recovery may cut it) uses the same.
    bool couplesExamples() const override { return unpaired(); }
    void prepareStep(const ExampleBatch &all, std::size_t micro_batch, std::uint64_t,
                     std::int64_t) override {
        if (unpaired()) {
            kl_ = klEstimate(all, micro_batch);
        }
    }

    TrainingLoss trainingLoss(const ExampleBatch &batch) override {
        if (grpo_) {
            return grpo_->trainingLoss(*model_, batch, trainingBatch(batch));
        }
        if (preference_) {
            const PreferenceTerms terms =
                unpaired() ? preference_->scoreUnpaired(*model_, batch, trainingBatch(batch), kl_)
                           : scorePairs(batch, true);
            TrainingLoss result;
            result.loss = terms.loss;
            result.objective = terms.loss;
            result.preference = preferenceStepMetrics(terms);
            return result;
        }
        models::CausalLmLoss terms = lossTerms(batch);
        TrainingLoss result;
        result.loss = terms.loss;
        result.objective = terms.loss;
        if (terms.moe) {
            // As transformers' MixtralForCausalLM: the balancing loss joins the training loss
            // only with output_router_logits; it is measured and reported either way.
            const double weight =
                architecture_.output_router_logits ? architecture_.router_aux_loss_coef : 0.0;
            if (weight > 0) {
                result.objective = result.objective + weight * terms.moe->aux_loss;
            }
            result.moe = std::move(terms.moe);
        }
        return result;
    }

    std::unique_ptr<models::NextTokenLogits> nextTokenLogits() override {
        return models::causalLmLogits(*model_, device_);
    }
    bool setActivationCheckpointing(std::int64_t every) override {
        model_->setCheckpointEvery(every);
        return true;
    }
    std::int64_t parameterCount() override {
        return countParameters(*model_) + model_->quantizedParameterCount();
    }
    bool setBaseFormat(BaseFormat format) override {
        if (format != model_->baseFormat()) {
            model_->storeBaseWeights(format);
        }
        return true;
    }
    void evaluate(const ExampleBatch &batch, EvalTotals &totals) override {
        if (grpo_) {
            grpo_->evaluate(*model_, batch, totals, device_);
            return;
        }
        if (!preference_) {
            LanguageModelRecipe::evaluate(batch, totals);
            return;
        }
        if (unpaired()) {
            const LanguageModelBatch rows = languageModelBatch(batch, seq_len_, device_);
            addPreferenceTotals(
                preference_->scoreUnpaired(*model_, batch, rows, klEstimate(batch, batch.size())),
                totals);
            return;
        }
        addPreferenceTotals(scorePairs(batch, false), totals);
    }
    bool precomputesReference() const override { return precompute_reference_; }
    std::vector<std::array<float, 2>> referenceLogps(const ExampleBatch &batch) override {
        return preference_->referenceSums(*model_,
                                          languageModelBatch(pairRows(batch), seq_len_, device_));
    }
    void useReferenceTable(std::shared_ptr<const ReferenceTable> table) override {
        preference_->useTable(std::move(table));
    }
    // A preference objective's validation accuracy: held-out pairs ranked right by the rewards.
    bool reportsAccuracy() const override { return preference_.has_value(); }
    bool reportsRmse() const override { return false; }

    std::string describe() const override {
        const models::CausalLmOptions &options = model_->options();
        char text[256];
        std::snprintf(text, sizeof text,
                      "%s · %lld layers · dim %lld · %lld heads (%lld key/value) · "
                      "context %lld "
                      "of %lld · vocab %lld · %.2f M parameters",
                      architecture_.architecture.c_str(), static_cast<long long>(options.layers),
                      static_cast<long long>(options.dim), static_cast<long long>(options.heads),
                      static_cast<long long>(options.kv_heads), static_cast<long long>(seq_len_),
                      static_cast<long long>(options.max_positions),
                      static_cast<long long>(options.vocab_size),
                      static_cast<double>(hf::parameterCount(architecture_)) / 1e6);
        std::string description = text;
        if (options.experts > 0) {
            description += " · MoE " + std::to_string(options.experts) + " experts, top-" +
                           std::to_string(options.experts_per_token);
        }
        if (model_->baseFormat() != BaseFormat::Fp32) {
            description += " · frozen projections held as " + baseFormatName(model_->baseFormat());
        }
        if (preference_) {
            description += " · " + preference_->describe();
        }
        if (grpo_) {
            description += " · " + grpo_->describe();
        }
        return description;
    }

protected:
    torch::Device device() const override { return device_; }
    torch::Tensor targetLosses(const LanguageModelBatch &tokens) override {
        return model_->targetLosses(tokens.inputs, tokens.targets, tokens.packed());
    }

private:
    bool unpaired() const {
        return preference_ && preference_->options().objective == PreferenceObjective::Kto;
    }
    // KTO's KL estimate z0 over the records' mismatched sequences, in micro-batches.
    double klEstimate(const ExampleBatch &records, std::size_t micro_batch) {
        const std::vector<data::Example> mismatched = ktoMismatchedSequences(records, seq_len_);
        double sum = 0;
        for (std::size_t start = 0; start < mismatched.size(); start += micro_batch) {
            ExampleBatch rows;
            for (std::size_t i = start; i < std::min(mismatched.size(), start + micro_batch); ++i) {
                rows.push_back(&mismatched[i]);
            }
            sum += preference_->mismatchedLogRatioSum(*model_,
                                                      languageModelBatch(rows, seq_len_, device_));
        }
        return std::max(0.0, sum / static_cast<double>(std::max<std::size_t>(1, records.size())));
    }
    // A training batch is padded to the step's longest sequence, a validation batch to its own.
    PreferenceTerms scorePairs(const ExampleBatch &batch, bool training) {
        const ExampleBatch rows = pairRows(batch);
        const LanguageModelBatch tokens =
            training ? trainingBatch(rows) : languageModelBatch(rows, seq_len_, device_);
        torch::Tensor chosen_targets;
        if (preference_->options().objective == PreferenceObjective::Orpo) {
            const std::vector<data::Example> chosen = chosenWithPrompts(batch);
            ExampleBatch chosen_rows;
            for (const data::Example &sequence : chosen) {
                chosen_rows.push_back(&sequence);
            }
            chosen_targets =
                languageModelBatch(chosen_rows, seq_len_, device_, tokens.inputs.size(1) + 1)
                    .targets;
        }
        return preference_->score(*model_, batch, tokens, chosen_targets);
    }
    models::CausalLmLoss lossTerms(const ExampleBatch &batch) {
        const LanguageModelBatch tokens = trainingBatch(batch);
        return model_->lossTerms(tokens.inputs, tokens.targets, tokens.packed());
    }

    hf::ArchitectureConfig architecture_;
    models::CausalLm model_;
    torch::Device device_;
    std::optional<PreferenceScorer> preference_; // train.objective other than sft
    bool precompute_reference_ = false;          // pref.precompute_reference
    std::unique_ptr<GrpoRollouts> grpo_;         // train.objective grpo
    double kl_ = 0;                              // kto: the current step's KL estimate
};

void tell(const std::function<void(const std::string &)> &progress, const std::string &message) {
    if (progress) {
        progress(message);
    }
}

// The import, with the projections from the project's quantized-base cache when it holds
// this base in this format; after a fresh quantization the cache is (re)written.
void loadWithCache(models::CausalLmImpl &model, const hf::ModelFolder &folder,
                   const hf::ArchitectureConfig &architecture, models::BaseFormat format,
                   const hf::QuantizedBaseCache &cache,
                   const std::function<void(const std::string &)> &progress) {
    if (!cache.enabled() || !models::isQuantized(format)) {
        hf::loadPretrainedWeights(model, folder, architecture, {}, format);
        return;
    }
    std::string why;
    std::optional<hf::QuantizedWeights> cached = hf::readQuantizedBase(cache, format, &why);
    if (cached && !hf::coversDeferredProjections(*cached, model, &why)) {
        why = cache.path(format) + ": " + why;
        cached.reset();
    }
    if (cached) {
        tell(progress, "quantized projections from the cache " + cache.path(format));
        hf::loadPretrainedWeights(model, folder, architecture, {}, format, &*cached);
        return;
    }
    if (!why.empty()) {
        tell(progress, "not using the quantized-base cache (" + why + "); quantizing again");
    }
    hf::loadPretrainedWeights(model, folder, architecture, {}, format);
    try {
        tell(progress,
             "quantized base cached for the next run: " + hf::writeQuantizedBase(cache, model));
    } catch (const std::exception &failure) {
        tell(progress, std::string("could not cache the quantized base: ") + failure.what());
    }
}

// A full fine-tune's preference reference: the base once more, frozen, in eval mode, its
// projections held in `format`.
models::CausalLm loadReferenceCopy(models::CausalLmOptions options, const hf::ModelFolder &folder,
                                   const hf::ArchitectureConfig &architecture,
                                   models::BaseFormat format,
                                   const std::function<void(const std::string &)> &progress) {
    tell(progress, "loading a frozen reference copy of the base" +
                       (format == models::BaseFormat::Fp32
                            ? std::string()
                            : ", projections held as " + models::baseFormatName(format)));
    options.deferred_projections = format != models::BaseFormat::Fp32;
    models::CausalLm reference(options);
    hf::loadPretrainedWeights(*reference, folder, architecture, {}, format);
    models::freezeParameters(*reference);
    reference->eval();
    return reference;
}

// GRPO's rollouts: the rewards (grpo.reward, refused with ConfigError when they do not parse),
// the end-of-sequence ids generation stops at, and with a KL penalty and no LoRA a frozen
// reference copy.
std::unique_ptr<GrpoRollouts>
makeRollouts(const Config &config, const GrpoOptions &grpo, const models::CausalLmOptions &options,
             const hf::ModelFolder &folder, const hf::ArchitectureConfig &architecture,
             const data::Tokenizer *tokenizer,
             const std::function<void(const std::string &)> &progress) {
    if (tokenizer == nullptr) {
        throw ConfigError("train.objective=grpo needs the base's tokenizer to read completions");
    }
    rewards::RewardOptions reward_options;
    reward_options.answer_pattern = grpo.answer_pattern;
    reward_options.command_timeout_s = grpo.reward_timeout_s;
    std::optional<rewards::RewardSet> rewards;
    try {
        rewards.emplace(rewards::parseRewardSpec(grpo.reward), reward_options);
    } catch (const std::invalid_argument &error) {
        throw ConfigError(error.what());
    }
    std::vector<std::int64_t> eos_ids =
        hf::readGenerationDefaults(folder, architecture).eos_token_ids;
    if (eos_ids.empty()) {
        eos_ids.push_back(tokenizer->endOfTextId());
    }
    models::CausalLm reference{nullptr};
    if (grpo.beta != 0 && config.integer("lora.rank") == 0) {
        reference =
            loadReferenceCopy(options, folder, architecture, models::BaseFormat::Fp32, progress);
    }
    return std::make_unique<GrpoRollouts>(
        grpo, std::move(*rewards), std::move(reference), *tokenizer, std::move(eos_ids),
        config.integer("model.seq_len"), config.integer("train.micro_batch"),
        static_cast<std::uint64_t>(config.integer("train.seed")));
}

} // namespace

std::unique_ptr<Recipe>
makePretrainedRecipe(const Config &config, const hf::ModelFolder &folder, torch::Device device,
                     const std::function<void(const std::string &)> &progress,
                     const hf::QuantizedBaseCache &cache, const data::Tokenizer *tokenizer) {
    hf::ArchitectureConfig architecture = hf::readArchitectureConfig(folder.config_path);
    const std::int64_t seq_len = config.integer("model.seq_len");
    if (seq_len > architecture.max_positions) {
        throw ConfigError("model.seq_len=" + std::to_string(seq_len) + " is longer than " +
                          folder.config_path + " allows (" +
                          std::to_string(architecture.max_positions) + " positions)");
    }
    models::CausalLmOptions options = hf::causalLmOptions(architecture);
    const std::optional<PreferenceOptions> preference = preferenceOptions(config);
    const std::optional<GrpoOptions> grpo = grpoOptions(config);
    // Preference objectives and GRPO train without dropout, as TRL does by default.
    if (config.real("model.dropout") == 0 || preference || grpo) {
        options.embedding_dropout = options.residual_dropout = options.attention_dropout = 0;
    }
    options.attention = compat::parseAttentionPath(config.text("model.attention"));
    options.memory_budget = config.bytes("memory.budget");
    const std::string refusal =
        compat::attentionPathRefusal(options.attention, true, options.attention_dropout > 0,
                                     folder.config_path + " sets attention dropout " +
                                         std::to_string(options.attention_dropout));
    if (!refusal.empty()) {
        throw ConfigError(refusal);
    }
    const models::BaseFormat base_format = models::parseBaseFormat(config.text("model.base_dtype"));
    if (progress) {
        progress("loading " + architecture.architecture + " weights from " + folder.folder +
                 (base_format == models::BaseFormat::Fp32
                      ? std::string()
                      : ", projections held as " + models::baseFormatName(base_format)));
    }
    options.deferred_projections = base_format != models::BaseFormat::Fp32;
    models::CausalLm model(options);
    loadWithCache(*model, folder, architecture, base_format, cache, progress);
    std::optional<PreferenceScorer> scorer;
    if (preference) {
        models::CausalLm reference{nullptr};
        if (needsReference(preference->objective) && config.integer("lora.rank") == 0) {
            reference = loadReferenceCopy(
                options, folder, architecture,
                models::parseBaseFormat(config.text("pref.reference_dtype")), progress);
        }
        scorer.emplace(*preference, std::move(reference));
    }
    const bool precompute = scorer && needsReference(preference->objective) &&
                            config.integer("pref.precompute_reference") == 1;
    std::unique_ptr<GrpoRollouts> rollouts;
    if (grpo) {
        rollouts = makeRollouts(config, *grpo, options, folder, architecture, tokenizer, progress);
    }
    return std::make_unique<PretrainedRecipe>(std::move(architecture), std::move(model), seq_len,
                                              device, std::move(scorer), precompute,
                                              std::move(rollouts));
}

} // namespace headroom::train
