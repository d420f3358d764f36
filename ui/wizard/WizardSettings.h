#pragma once

#include <headroom/config.h>
#include <headroom/devices.h>
#include <headroom/plan.h>
#include <headroom/pretrained.h>

#include <QString>

#include <optional>
#include <vector>

namespace headroom::ui {

// What the config wizard's pages fill in, shared by all of them. The config holds every key the
// pages set (device, memory.budget, recipe, tokenizer, data.target, model.*, techniques,
// batch); the data path stays apart until the project is created (createProject stores it
// relative to the project).
struct WizardSettings {
    Config config;
    DeviceReport devices;
    HardwareProfile profile; // planned for; budget_bytes follows the edited budget
    QString data_path;
    ModelFacts facts; // of the data file with the current recipe, tokenizer and target
    bool facts_known = false;
    // Training settings chosen from the data (tabular: batch, learning rate, epochs, early
    // stopping...), applied to config when the data page is accepted.
    std::vector<PlanDecision> data_defaults;
    // The Hugging Face folder a pretrained project starts from, as inspected on the data page
    // (config: recipe=gpt, or splade for a masked language model, tokenizer=base,
    // model.base=its folder); empty for a new model.
    std::optional<PretrainedInfo> base;

    bool pretrained() const { return base.has_value(); }
};

} // namespace headroom::ui
