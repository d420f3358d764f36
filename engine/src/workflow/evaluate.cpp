// evaluateRun: a run's result weights measured on another data file (a held-out test set).
#include "data/data_error.h"
#include "data/example_stream.h"
#include "recipes/recipe.h"
#include "train/checkpoint.h"
#include "train/evaluation.h"
#include "train/lora_setup.h"
#include "train/prepared_data.h"
#include "workflow/run_lookup.h"

#include <headroom/config.h>
#include <headroom/project.h>
#include <headroom/workflow.h>

#include <filesystem>
#include <limits>

namespace headroom {

namespace {

// The run asked for, or the newest run that has a checkpoint.
RunRecord runToEvaluate(const Project &project, std::int64_t run_id) {
    if (run_id != 0) {
        return workflow::requireRun(project, run_id);
    }
    const std::vector<RunRecord> runs = project.runs();
    for (auto run = runs.rbegin(); run != runs.rend(); ++run) {
        if (project.resultCheckpoint(run->id)) {
            return *run;
        }
    }
    throw InputError(project.path() + " has no run with a checkpoint yet: train first");
}

} // namespace

EvaluationReport evaluateRun(const std::string &project_path, std::int64_t run_id,
                             const std::string &data_path) {
    if (!std::filesystem::is_regular_file(data_path)) {
        throw InputError(data_path + ": no such file");
    }
    Project project = Project::openForReading(project_path);
    const RunRecord run = runToEvaluate(project, run_id);
    const std::optional<CheckpointRecord> checkpoint = project.resultCheckpoint(run.id);
    if (!checkpoint) {
        throw InputError("run " + std::to_string(run.id) + " has no checkpoint to evaluate");
    }
    const std::string path =
        (std::filesystem::path(project.dataDirectory()) / checkpoint->path).string();
    const Config config = Config::fromJson(train::readCheckpointMeta(path).config_json);

    EvaluationReport report;
    report.run_id = run.id;
    report.step = checkpoint->step;
    report.latest = project.latestCheckpoint(run.id)->step == checkpoint->step;
    try {
        train::PreparedData prepared =
            train::prepareData(config, project, [](const std::string &) {});
        const torch::Device cpu(torch::kCPU);
        std::unique_ptr<train::Recipe> recipe = train::makeRecipe(config, prepared, cpu);
        train::enableLoraFromConfig(config, *recipe);
        train::loadCheckpointWeights(path, *recipe->module());

        // Every record of the file, in file order: the whole file is the evaluation split.
        data::DataSpec spec = prepared.spec;
        spec.path = std::filesystem::absolute(data_path).string();
        spec.validation_fraction = 1.0;
        spec.max_examples = 0;
        const data::TabularSchema *schema = prepared.schema ? &*prepared.schema : nullptr;
        data::ExampleStream stream(spec, data::Split::Validation, prepared.tokenizer.get(), schema);
        const train::EvaluationOutcome outcome =
            train::evaluateSplit(*recipe, stream, std::numeric_limits<std::int64_t>::max(),
                                 std::max<std::int64_t>(config.integer("train.micro_batch"), 64));
        if (outcome.totals.examples == 0) {
            throw InputError(data_path + " holds no examples to evaluate");
        }
        report.metrics = train::evalMetrics(outcome.totals, *recipe, checkpoint->step);
        report.task = config.text("recipe") == "splade" ? "retrieval"
                      : !prepared.schema                ? "language-model"
                      : prepared.schema->classification ? "classification"
                                                        : "regression";
    } catch (const data::DataError &error) {
        throw InputError(error.what());
    }
    return report;
}

} // namespace headroom
