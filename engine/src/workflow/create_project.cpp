#include "data/data_error.h"
#include "data/example_stream.h"
#include "train/recipe.h"
#include "train/run_setup.h"
#include "workflow/data_checks.h"

#include <headroom/config.h>
#include <headroom/project.h>
#include <headroom/units.h>
#include <headroom/workflow.h>

#include <filesystem>
#include <optional>

namespace headroom {

namespace fs = std::filesystem;

namespace {

// Inside the project's folder the data path is stored relative, so project and data move
// together; elsewhere it is stored absolute.
std::string storedDataPath(const std::string &data_path, const std::string &project_path) {
    const fs::path data = fs::absolute(data_path).lexically_normal();
    const fs::path folder = fs::absolute(project_path).parent_path();
    const fs::path relative = data.lexically_relative(folder);
    if (!relative.empty() && *relative.begin() != "..") {
        return relative.generic_string();
    }
    return data.string();
}

void removeProjectFiles(const std::string &project_path) {
    std::error_code ignored;
    for (const char *suffix : {"", "-wal", "-shm", ".d"}) {
        fs::remove_all(project_path + suffix, ignored);
    }
}

std::vector<std::string> describeData(const data::DataSummary &summary, const std::string &path) {
    const char *unit = summary.format == data::Format::Csv     ? "rows"
                       : summary.format == data::Format::Jsonl ? "records"
                                                               : "lines";
    return {"data     " + path + " (" + data::toString(summary.format) + ", " +
            std::to_string(summary.records) + " " + unit + ", " + formatBytes(summary.bytes) + ")"};
}

std::vector<std::string> describePrepared(const Config &config,
                                          const train::PreparedData &prepared) {
    std::vector<std::string> lines;
    if (prepared.tokenizer) {
        lines.push_back("tokenizer " + config.text("tokenizer") + " (vocabulary " +
                        std::to_string(prepared.tokenizer->vocabSize()) + ")");
        const models::GptOptions options =
            train::gptOptionsFromConfig(config, prepared.tokenizer->vocabSize());
        lines.push_back("model    GPT, " + std::to_string(options.layers()) + " layers, dim " +
                        std::to_string(options.dim()) + ", " + std::to_string(options.heads()) +
                        " heads, context " + std::to_string(options.seq_len()) + ", " +
                        std::to_string(models::gptParameterCount(options)) + " parameters");
    }
    if (prepared.schema) {
        const data::TabularSchema &schema = *prepared.schema;
        lines.push_back(
            "target   '" + schema.target + "': " +
            (schema.classification
                 ? "classification, " + std::to_string(schema.classes.size()) + " classes"
                 : std::string("regression")));
        if (!schema.task_reason.empty()) {
            lines.push_back("         " + schema.task_reason);
        }
        lines.push_back("columns  " + std::to_string(schema.numeric.size()) + " numeric, " +
                        std::to_string(schema.categorical.size()) + " categorical; " +
                        std::to_string(schema.train_rows) + " training rows, " +
                        std::to_string(schema.validation_rows) + " validation rows");
    }
    const std::int64_t micro_batch = config.integer("train.micro_batch");
    const std::int64_t accumulation = config.integer("train.accumulation");
    lines.push_back("training " + config.text("train.steps") + " steps, effective batch " +
                    std::to_string(micro_batch * accumulation) + " (micro-batch " +
                    std::to_string(micro_batch) + " x " + std::to_string(accumulation) + "), lr " +
                    config.text("train.lr") + ", device " + config.text("device"));
    return lines;
}

} // namespace

std::vector<std::string> createProject(const NewProjectRequest &request,
                                       const std::function<void(const std::string &)> &progress) {
    if (request.project_path.empty()) {
        throw InputError("the project path is empty");
    }
    if (fs::exists(request.project_path)) {
        throw InputError(request.project_path +
                         " already exists; choose another name (new never overwrites a project)");
    }
    const fs::path folder = fs::absolute(request.project_path).parent_path();
    if (!fs::is_directory(folder)) {
        throw InputError("cannot create " + request.project_path + ": folder " + folder.string() +
                         " does not exist");
    }
    if (!fs::is_regular_file(request.data_path)) {
        throw InputError(request.data_path + ": no such file");
    }

    Config config;
    config.set("recipe", request.recipe);
    if (!request.config_json.empty()) {
        for (const auto &[key, value] : Config::fromJson(request.config_json).changed()) {
            config.set(key, value);
        }
    }
    config.set("data.path", storedDataPath(request.data_path, request.project_path));
    for (const std::string &assignment : request.overrides) {
        config.setAssignment(assignment);
    }
    config.validate();

    const data::DataSpec spec = train::dataSpecFromConfig(config, request.project_path);
    workflow::requireCsvForTabular(config, spec, request.data_path);
    std::vector<std::string> lines;
    try {
        progress("checking " + request.data_path);
        lines = describeData(data::inspectData(spec), request.data_path);
    } catch (const data::DataError &error) {
        throw InputError(error.what());
    }

    std::optional<Project> project = Project::create(request.project_path, config.toJson());
    try {
        const train::PreparedData prepared = train::prepareData(config, *project, progress);
        for (const std::string &line : describePrepared(config, prepared)) {
            lines.push_back(line);
        }
    } catch (const data::DataError &error) {
        project.reset();
        removeProjectFiles(request.project_path);
        throw InputError(error.what());
    } catch (...) {
        project.reset();
        removeProjectFiles(request.project_path);
        throw;
    }
    lines.insert(lines.begin(),
                 "created  " + request.project_path + " (recipe " + config.text("recipe") + ")");
    return lines;
}

} // namespace headroom
