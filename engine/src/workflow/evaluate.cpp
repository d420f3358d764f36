// evaluateRun: a run's result weights, or a pretrained project's base, measured on another data
// file (a held-out test set).
#include "data/data_error.h"
#include "data/example_stream.h"
#include "train/evaluation.h"
#include "workflow/run_model.h"

#include <headroom/config.h>
#include <headroom/project.h>
#include <headroom/workflow.h>

#include <filesystem>
#include <limits>

namespace headroom {

EvaluationReport evaluateRun(const std::string &project_path, std::int64_t run_id,
                             const std::string &data_path) {
    if (!std::filesystem::is_regular_file(data_path)) {
        throw InputError(data_path + ": no such file");
    }
    Project project = Project::openForReading(project_path);
    workflow::RunModel model = workflow::loadRunModel(project, run_id);
    const Config &config = model.config;
    EvaluationReport report;
    report.run_id = model.run_id;
    report.step = model.step;
    report.latest = model.run_id == 0 || project.latestCheckpoint(model.run_id)->step == model.step;
    try {
        // Every record of the file, in file order: the whole file is the evaluation split.
        data::DataSpec spec = model.prepared.spec;
        spec.path = std::filesystem::absolute(data_path).string();
        spec.validation_fraction = 1.0;
        spec.max_examples = 0;
        const data::TabularSchema *schema =
            model.prepared.schema ? &*model.prepared.schema : nullptr;
        data::ExampleStream stream(spec, data::Split::Validation, model.prepared.tokenizer.get(),
                                   schema);
        const train::EvaluationOutcome outcome =
            train::evaluateSplit(*model.recipe, stream, std::numeric_limits<std::int64_t>::max(),
                                 std::max<std::int64_t>(config.integer("train.micro_batch"), 64));
        if (outcome.totals.examples == 0) {
            throw InputError(data_path + " holds no examples to evaluate");
        }
        report.metrics = train::evalMetrics(outcome.totals, *model.recipe, model.step);
        report.task = config.text("recipe") == "splade"       ? "retrieval"
                      : !model.prepared.schema                ? "language-model"
                      : model.prepared.schema->classification ? "classification"
                                                              : "regression";
    } catch (const data::DataError &error) {
        throw InputError(error.what());
    }
    return report;
}

} // namespace headroom
