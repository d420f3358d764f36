#pragma once

#include "models/gpt.h"
#include "models/lora.h"

#include <torch/torch.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace headroom {
class Config;
class Project;
} // namespace headroom

namespace headroom::train {

class Recipe;

// The lora.* settings; std::nullopt when lora.rank is 0. Throws ConfigError naming the key:
// an unknown lora.targets entry (listing the valid ones), lora.rank > 0 on the tabular recipe,
// or lora.rank > 0 without lora.base_run.
std::optional<models::LoraOptions> loraOptionsFromConfig(const Config &config);

// The trainer's hook, called right after the recipe is built. With lora.rank > 0: a fresh run
// loads the latest checkpoint of lora.base_run into the model (refusing a base of another
// shape with a ConfigError naming the run and the differing key; a LoRA base run counts with
// its adapters merged), then LoRA is enabled, which freezes the base. A resumed run (resuming =
// true) skips the base: its own checkpoint, loaded afterwards, holds the frozen base and the
// adapters. Does nothing with lora.rank = 0.
void setUpLora(const Config &config, Project &project, Recipe &recipe, bool resuming,
               const std::function<void(const std::string &)> &progress);

// Enables LoRA on the recipe's model as the config says, loading nothing (export: the run's own
// checkpoint is loaded next). False when the config has no LoRA.
bool enableLoraFromConfig(const Config &config, Recipe &recipe);

// What the optimizer updates: every parameter, or only the adapters of a LoRA run.
std::vector<torch::Tensor> trainableParameters(Recipe &recipe);

} // namespace headroom::train
