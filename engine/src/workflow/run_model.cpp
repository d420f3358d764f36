#include "workflow/run_model.h"

#include "data/data_error.h"
#include "train/checkpoint.h"
#include "train/lora_setup.h"
#include "train/techniques.h"
#include "workflow/run_lookup.h"

#include <filesystem>
#include <optional>

namespace headroom::workflow {

RunModel loadRunModel(Project &project, std::int64_t run_id) {
    RunModel model;
    const Config project_config = Config::fromJson(project.configJson());
    const bool pretrained = !project_config.text("model.base").empty();
    std::optional<RunRecord> run;
    if (run_id > 0) {
        run = requireRun(project, run_id);
        if (!project.resultCheckpoint(run_id)) {
            throw InputError("run " + std::to_string(run_id) + " has no checkpoint yet");
        }
    } else if (run_id == 0) {
        const std::vector<RunRecord> runs = project.runs();
        for (auto item = runs.rbegin(); item != runs.rend() && !run; ++item) {
            if (project.resultCheckpoint(item->id)) {
                run = *item;
            }
        }
    }
    std::string checkpoint_path;
    std::string techniques_json;
    if (run) {
        const CheckpointRecord checkpoint = *project.resultCheckpoint(run->id);
        model.run_id = run->id;
        model.step = checkpoint.step;
        checkpoint_path =
            (std::filesystem::path(project.dataDirectory()) / checkpoint.path).string();
        const train::CheckpointMeta meta = train::readCheckpointMeta(checkpoint_path);
        model.config = Config::fromJson(meta.config_json);
        techniques_json = meta.techniques;
        if (pretrained && !model.config.text("model.base").empty()) {
            // Where the base is now (Locate Base Model, --set model.base): the recorded digest
            // still makes sure it is the same model.
            model.config.set("model.base", project_config.text("model.base"));
        }
    } else if (pretrained) {
        model.config = project_config;
    } else {
        throw InputError(project.path() +
                         (run_id < 0 ? " is not a pretrained project: it has no base model"
                                     : " has no run with a checkpoint yet: train first"));
    }
    try {
        model.prepared = train::prepareData(model.config, project, [](const std::string &) {});
    } catch (const data::DataError &error) {
        throw InputError(error.what());
    }
    model.recipe = train::makeRecipe(model.config, model.prepared, torch::Device(torch::kCPU));
    if (!checkpoint_path.empty()) {
        train::enableLoraFromConfig(model.config, *model.recipe);
        train::loadCheckpointWeights(checkpoint_path, *model.recipe->module());
        // A ladder rung may have quantized the base during the run: its adapters were trained
        // on that base, so generation and export use it too.
        if (!techniques_json.empty()) {
            model.recipe->setBaseFormat(train::Techniques::fromJson(techniques_json).base_format);
        }
    }
    model.recipe->module()->eval();
    return model;
}

} // namespace headroom::workflow
