#pragma once

#include <headroom/config.h>
#include <headroom/devices.h>
#include <headroom/plan.h>

#include <QString>

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
};

} // namespace headroom::ui
