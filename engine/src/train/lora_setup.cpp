#include "train/lora_setup.h"

#include "hf/lora_targets.h"
#include "models/causal_lm.h"
#include "recipes/recipe.h"
#include "train/checkpoint.h"
#include "util/hashing.h"

#include <headroom/config.h>
#include <headroom/project.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

namespace headroom::train {

namespace {

std::string baseLabel(std::int64_t base_run) {
    return "lora.base_run=" + std::to_string(base_run);
}

// Keys whose difference makes a checkpoint's tensors mean something else.
void requireSameShape(const Config &base, const Config &config, std::int64_t base_run,
                      std::int64_t vocab_size) {
    const auto differs = [&](const std::string &key, const std::string &base_value,
                             const std::string &value) {
        if (base_value != value) {
            throw ConfigError(baseLabel(base_run) + ": run " + std::to_string(base_run) +
                              " has another model shape: " + key + " is " + base_value +
                              " there and " + value +
                              " here; a LoRA run keeps the base's model settings");
        }
    };
    for (const char *key : {"recipe", "tokenizer", "model.seq_len"}) {
        differs(key, base.text(key), config.text(key));
    }
    if (config.text("tokenizer") != "byte") {
        differs("tokenizer.vocab_size", base.text("tokenizer.vocab_size"),
                config.text("tokenizer.vocab_size"));
    }
    // Compare the shapes the keys produce (model.params sizes layers, heads and dim itself).
    const models::GptOptions base_options = gptOptionsFromConfig(base, vocab_size);
    const models::GptOptions options = gptOptionsFromConfig(config, vocab_size);
    differs("model.layers", std::to_string(base_options.layers()),
            std::to_string(options.layers()));
    differs("model.heads", std::to_string(base_options.heads()), std::to_string(options.heads()));
    differs("model.dim", std::to_string(base_options.dim()), std::to_string(options.dim()));
    const models::MoeOptions &base_moe = base_options.moe();
    const models::MoeOptions &moe = options.moe();
    differs("moe.experts", std::to_string(base_moe.experts()), std::to_string(moe.experts()));
    if (moe.experts() > 0) {
        differs("moe.every", std::to_string(base_moe.every()), std::to_string(moe.every()));
        differs("moe.expert_hidden",
                std::to_string(models::expertHidden(base_moe, base_options.dim())),
                std::to_string(models::expertHidden(moe, options.dim())));
    }
}

// Module::load without its silent storage replacement: every tensor must exist in the
// archive with this module's shape, and is copied into the existing parameter.
void copyCheckedWeights(torch::nn::Module &module, torch::serialize::InputArchive &archive,
                        const std::string &prefix, const std::string &source) {
    const auto copy = [&](const std::string &name, torch::Tensor &target, bool is_buffer) {
        torch::Tensor stored;
        if (!archive.try_read(name, stored, is_buffer)) {
            throw ConfigError(source + " has no tensor " + prefix + name +
                              " (another model shape)");
        }
        if (stored.sizes() != target.sizes()) {
            throw ConfigError(source + ": tensor " + prefix + name + " has shape " +
                              c10::str(stored.sizes()) + ", this model needs " +
                              c10::str(target.sizes()));
        }
        torch::NoGradGuard no_grad;
        target.copy_(stored);
    };
    for (auto &item : module.named_parameters(/*recurse=*/false)) {
        copy(item.key(), item.value(), false);
    }
    for (auto &item : module.named_buffers(/*recurse=*/false)) {
        copy(item.key(), item.value(), true);
    }
    for (const auto &child : module.named_children()) {
        torch::serialize::InputArchive child_archive;
        if (!archive.try_read(child.key(), child_archive)) {
            throw ConfigError(source + " has no module " + prefix + child.key() +
                              " (another model shape)");
        }
        copyCheckedWeights(*child.value(), child_archive, prefix + child.key() + ".", source);
    }
}

void loadBaseWeights(const Config &config, Project &project, models::GptImpl &model) {
    const std::int64_t base_run = config.integer("lora.base_run");
    const std::string label = baseLabel(base_run);
    if (!project.run(base_run)) {
        throw ConfigError(label + ": run " + std::to_string(base_run) + " not found in " +
                          project.path() + "; `headroom-cli runs " + project.path() +
                          "` lists the runs");
    }
    const std::optional<CheckpointRecord> checkpoint = project.latestCheckpoint(base_run);
    if (!checkpoint) {
        throw ConfigError(label + ": run " + std::to_string(base_run) +
                          " has no checkpoint to start from; train it first");
    }
    const std::string path =
        (std::filesystem::path(project.dataDirectory()) / checkpoint->path).string();
    if (!std::filesystem::exists(path) || util::sha256File(path) != checkpoint->sha256) {
        throw ConfigError(label + ": the checkpoint " + path + " of run " +
                          std::to_string(base_run) + " is missing or damaged");
    }
    const CheckpointMeta meta = readCheckpointMeta(path);
    const Config base = Config::fromJson(meta.config_json);
    requireSameShape(base, config, base_run, model.options().vocab_size());

    torch::serialize::InputArchive archive;
    torch::serialize::InputArchive model_archive;
    try {
        archive.load_from(path);
        archive.read("model", model_archive);
    } catch (const c10::Error &error) {
        throw ConfigError(label + ": cannot read " + path + ": " + error.what_without_backtrace());
    }
    const std::string source = "run " + std::to_string(base_run) + "'s checkpoint " + path;
    const std::optional<models::LoraOptions> base_lora = loraOptionsFromConfig(base);
    if (!base_lora) {
        copyCheckedWeights(model, model_archive, "", source);
        return;
    }
    // The base is itself a LoRA run: its adapters are folded into its frozen weights, and
    // the new adapters train on top of that.
    models::Gpt staged(model.options());
    staged->enableLora(*base_lora);
    copyCheckedWeights(*staged, model_archive, "", source);
    auto parameters = model.named_parameters();
    auto buffers = model.named_buffers();
    torch::NoGradGuard no_grad;
    for (const auto &[name, tensor] : staged->mergedState()) {
        (parameters.contains(name) ? parameters[name] : buffers[name]).copy_(tensor);
    }
}

models::CausalLmImpl *pretrainedOf(Recipe &recipe) {
    return dynamic_cast<models::CausalLmImpl *>(recipe.module().get());
}

void enablePretrainedLora(const Config &config, models::CausalLmImpl &model,
                          models::LoraOptions options) {
    options.targets(hf::resolveLoraTargets(config.text("lora.targets"), model.projectionNames()));
    try {
        model.enableLora(options);
    } catch (const std::invalid_argument &error) {
        throw ConfigError(std::string("lora: ") + error.what());
    }
}

models::GptImpl &gptOf(Recipe &recipe) {
    auto *gpt = dynamic_cast<models::GptImpl *>(recipe.module().get());
    if (gpt == nullptr) {
        throw ConfigError("lora.rank > 0 needs the gpt recipe");
    }
    return *gpt;
}

} // namespace

std::optional<models::LoraOptions> loraOptionsFromConfig(const Config &config) {
    const std::int64_t rank = config.integer("lora.rank");
    if (rank == 0) {
        return std::nullopt;
    }
    if (!config.isLanguageModel()) {
        throw ConfigError("lora.rank=" + config.text("lora.rank") + ": LoRA adapts the " +
                          "attention and MLP projections of the gpt recipe; the " +
                          config.text("recipe") + " recipe has no LoRA (use lora.rank=0)");
    }
    const bool pretrained = !config.text("model.base").empty();
    models::LoraOptions options;
    // Preference objectives train without dropout, the adapters' included (as TRL does).
    const bool sft = config.text("train.objective") == "sft";
    options.rank(rank)
        .alpha(config.real("lora.alpha"))
        .dropout(sft ? config.real("lora.dropout") : 0.0);
    if (pretrained) {
        // The targets are the model's projection names, resolved when the model exists.
        try {
            models::validateLoraHyperparameters(options);
        } catch (const std::invalid_argument &error) {
            throw ConfigError(std::string("lora: ") + error.what());
        }
        return options;
    }
    if (config.integer("lora.base_run") < 1) {
        throw ConfigError("lora.rank=" + config.text("lora.rank") +
                          " needs lora.base_run: the run whose latest checkpoint is the frozen "
                          "base (`headroom-cli runs PROJECT` lists them), e.g. --set "
                          "lora.base_run=1");
    }
    try {
        options.targets(models::parseLoraTargets(config.text("lora.targets")));
        models::validateLoraOptions(options);
    } catch (const std::invalid_argument &error) {
        throw ConfigError(std::string("lora.targets: ") + error.what());
    }
    if (config.integer("moe.experts") == 0) {
        for (const char *target : {"experts_in", "experts_out"}) {
            if (options.targets().count(target) != 0) {
                throw ConfigError(std::string("lora.targets: ") + target +
                                  " adapts the experts of Mixture-of-Experts blocks, and this "
                                  "model has none (moe.experts=0)");
            }
        }
    }
    return options;
}

bool enableLoraFromConfig(const Config &config, Recipe &recipe) {
    const std::optional<models::LoraOptions> options = loraOptionsFromConfig(config);
    if (!options) {
        return false;
    }
    if (models::CausalLmImpl *model = pretrainedOf(recipe)) {
        enablePretrainedLora(config, *model, *options);
        return true;
    }
    models::GptImpl &gpt = gptOf(recipe);
    gpt.enableLora(*options);
    return true;
}

void setUpLora(const Config &config, Project &project, Recipe &recipe, bool resuming,
               const std::function<void(const std::string &)> &progress) {
    const std::optional<models::LoraOptions> options = loraOptionsFromConfig(config);
    if (!options) {
        return;
    }
    if (models::CausalLmImpl *model = pretrainedOf(recipe)) {
        // The frozen base is the imported model itself.
        enablePretrainedLora(config, *model, *options);
        std::int64_t trainable = 0;
        for (const torch::Tensor &parameter : model->parameters()) {
            trainable += parameter.requires_grad() ? parameter.numel() : 0;
        }
        std::string targets;
        for (const std::string &name : model->loraOptions()->targets()) {
            targets += (targets.empty() ? "" : ",") + name;
        }
        progress("LoRA rank " + config.text("lora.rank") + " on " + targets + ": " +
                 std::to_string(trainable) + " trainable of " +
                 std::to_string(recipe.parameterCount()) + " parameters");
        return;
    }
    models::GptImpl &gpt = gptOf(recipe);
    if (!resuming) {
        progress("loading the base weights of run " + config.text("lora.base_run"));
        loadBaseWeights(config, project, gpt);
    }
    gpt.enableLora(*options);
    std::int64_t trainable = 0;
    for (const torch::Tensor &parameter : gpt.trainableParameters()) {
        trainable += parameter.numel();
    }
    progress("LoRA rank " + config.text("lora.rank") + " on " +
             models::formatLoraTargets(options->targets()) + ": " + std::to_string(trainable) +
             " trainable of " + std::to_string(recipe.parameterCount()) + " parameters");
}

std::vector<torch::Tensor> trainableParameters(Recipe &recipe) {
    return models::trainableParameters(*recipe.module());
}

} // namespace headroom::train
