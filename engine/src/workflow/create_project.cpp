#include "data/data_error.h"
#include "data/example_stream.h"
#include "hf/base_identity.h"
#include "hf/encoder_config.h"
#include "hf/model_folder.h"
#include "plan/tabular_defaults.h"
#include "recipes/recipe.h"
#include "train/prepared_data.h"
#include "train/step_count.h"
#include "workflow/data_checks.h"
#include "workflow/pretrained_info.h"

#include <headroom/config.h>
#include <headroom/pretrained.h>
#include <headroom/project.h>
#include <headroom/units.h>
#include <headroom/workflow.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

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

void removeProjectAndData(const std::string &project_path) {
    std::error_code ignored;
    for (const char *suffix : {"", "-wal", "-shm", "-journal", "-lock", ".d"}) {
        fs::remove_all(project_path + suffix, ignored);
    }
}

std::vector<std::string> describeData(const data::DataSummary &summary, const std::string &path) {
    const char *unit =
        summary.format == data::Format::Csv                                             ? "rows"
        : summary.format == data::Format::Jsonl || summary.format == data::Format::Json ? "records"
                                                                                        : "lines";
    return {"data     " + path + " (" + data::toString(summary.format) + ", " +
            std::to_string(summary.records) + " " + unit + ", " + formatBytes(summary.bytes) + ")"};
}

std::vector<std::string> describeBase(const PretrainedInfo &info) {
    const auto millions = [](std::int64_t count) {
        char text[32];
        std::snprintf(text, sizeof text, "%.1f M", static_cast<double>(count) / 1e6);
        return std::string(text);
    };
    const std::string experts = info.experts > 0 ? ", " + std::to_string(info.experts) +
                                                       " experts per layer, top-" +
                                                       std::to_string(info.experts_per_token)
                                                 : "";
    return {"base     " + info.architecture + " from " + info.folder,
            "         " + std::to_string(info.layers) + " layers, dim " + std::to_string(info.dim) +
                ", " + std::to_string(info.heads) + " heads (" + std::to_string(info.kv_heads) +
                " key/value)" + experts + ", context " + std::to_string(info.context) + ", " +
                millions(info.parameters) + " parameters, " + info.dtype + " on disk (" +
                formatBytes(info.weight_bytes) + ")",
            "tokenizer " + info.tokenizer};
}

void requireRecipeFitsBase(const std::string &recipe, const PretrainedInfo &base) {
    if (base.encoder && recipe != "splade") {
        throw ConfigError("model.base " + base.folder + " is a " + base.architecture +
                          ", a masked language model: it fine-tunes with recipe=splade (a "
                          "sparse retrieval encoder), not " +
                          recipe);
    }
    if (!base.encoder && recipe == "splade") {
        throw ConfigError("recipe=splade needs a BERT-family masked language model "
                          "(BertForMaskedLM, DistilBertForMaskedLM); model.base " +
                          base.folder + " is a " + base.architecture);
    }
}

// The settings a pretrained base implies unless the user chose them: its tokenizer, and a
// context no longer than it was trained for.
void applyBaseSettings(Config &config, const PretrainedInfo &info,
                       const std::set<std::string> &given) {
    if (given.count("tokenizer") == 0) {
        config.set("tokenizer", "base");
    }
    if (given.count("model.seq_len") == 0) {
        // A retrieval text is a query or a passage, not a stretch of a document.
        const std::int64_t length = info.encoder ? 128 : 256;
        config.set("model.seq_len", std::to_string(std::min<std::int64_t>(length, info.context)));
    }
    if (given.count("train.lr") == 0) {
        config.set("train.lr", config.integer("lora.rank") > 0 ? "0.0002" : "0.00002");
    }
}

std::vector<std::string> describePrepared(const Config &config,
                                          const train::PreparedData &prepared) {
    std::vector<std::string> lines;
    if (prepared.tokenizer && prepared.base) {
        // The base's lines say what the model and tokenizer are.
    } else if (prepared.tokenizer) {
        lines.push_back("tokenizer " + config.text("tokenizer") + " (vocabulary " +
                        std::to_string(prepared.tokenizer->vocabSize()) + ")");
        const models::GptOptions options =
            train::gptOptionsFromConfig(config, prepared.tokenizer->vocabSize());
        lines.push_back("model    GPT, " + std::to_string(options.layers()) + " layers, dim " +
                        std::to_string(options.dim()) + ", " + std::to_string(options.heads()) +
                        " heads, context " + std::to_string(options.seq_len()) + ", " +
                        std::to_string(models::gptParameterCount(options)) + " parameters");
        const models::MoeOptions &moe = options.moe();
        if (moe.experts() > 0) {
            lines.push_back("experts  " + std::to_string(moe.experts()) + " per MoE block, top-" +
                            std::to_string(moe.top_k()) + ", every " + std::to_string(moe.every()) +
                            " block(s), capacity factor " + config.text("moe.capacity_factor"));
        }
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
    std::string length = config.text("train.steps") + " steps";
    if (prepared.schema && config.real("train.epochs") > 0) {
        length = "up to " + config.text("train.epochs") + " epochs (" +
                 std::to_string(train::stepsForEpochs(config.real("train.epochs"),
                                                      prepared.schema->train_rows,
                                                      micro_batch * accumulation)) +
                 " steps)";
    }
    if (config.integer("train.early_stopping") > 0) {
        length += ", early stopping after " + config.text("train.early_stopping") +
                  " validation passes without a lower validation loss";
    }
    lines.push_back("training " + length + ", effective batch " +
                    std::to_string(micro_batch * accumulation) + " (micro-batch " +
                    std::to_string(micro_batch) + " x " + std::to_string(accumulation) + "), lr " +
                    config.text("train.lr") + ", device " + config.text("device"));
    return lines;
}

// Keys the user chose: every key of the config JSON (the wizard writes them all) and of --set.
std::set<std::string> givenKeys(const NewProjectRequest &request) {
    std::set<std::string> keys;
    if (!request.config_json.empty()) {
        const nlohmann::json document = nlohmann::json::parse(request.config_json);
        for (const auto &item : document.items()) {
            keys.insert(item.key());
        }
    }
    for (const std::string &assignment : request.overrides) {
        keys.insert(assignment.substr(0, assignment.find('=')));
    }
    return keys;
}

// Tabular settings chosen from the data for every key the user left alone; one line each.
std::vector<std::string> applyTabularDefaults(Config &config, const data::TabularSchema &schema,
                                              const std::set<std::string> &given) {
    std::vector<std::string> lines;
    for (const PlanDecision &decision : plan::tabularDefaults(schema, config, given)) {
        config.set(decision.setting, decision.value);
        lines.push_back((lines.empty() ? "defaults " : "         ") + decision.setting + "=" +
                        decision.value + " (" + decision.reason + ")");
    }
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
    std::string recipe = request.recipe;
    // The base folder, located once: from --base, or from model.base when the recipe is given
    // or --set names another folder.
    std::optional<hf::ModelFolder> located;
    if (recipe.empty() && !request.base_path.empty()) {
        located = hf::locateModelFolder(request.base_path);
        // A masked language model trains as a retrieval encoder, a causal one as itself.
        recipe = hf::isEncoderArchitecture(located->config_path) ? "splade" : "causal_lm";
    }
    config.set("recipe", recipe);
    if (!request.config_json.empty()) {
        for (const auto &[key, value] : Config::fromJson(request.config_json).changed()) {
            config.set(key, value);
        }
    }
    config.set("data.path", storedDataPath(request.data_path, request.project_path));
    std::string stored_base;
    if (!request.base_path.empty()) {
        stored_base = storedDataPath(request.base_path, request.project_path);
        config.set("model.base", stored_base);
    }
    for (const std::string &assignment : request.overrides) {
        config.setAssignment(assignment);
    }
    std::optional<PretrainedInfo> base;
    if (!config.text("model.base").empty()) {
        progress("checking the base model " + config.text("model.base"));
        if (!located || config.text("model.base") != stored_base) {
            located = hf::locateModelFolder(
                train::resolveDataPath(config.text("model.base"), request.project_path));
        }
        base = workflow::inspectPretrained(*located);
        if (config.text("recipe") == "gpt" && !base->encoder) {
            config.set("recipe", "causal_lm"); // what gpt with a base meant before causal_lm
        }
        requireRecipeFitsBase(config.text("recipe"), *base);
        applyBaseSettings(config, *base, givenKeys(request));
        if (config.integer("model.seq_len") > base->context) {
            throw ConfigError("model.seq_len=" + config.text("model.seq_len") +
                              " is longer than the base model's context (" +
                              std::to_string(base->context) + " positions)");
        }
    }
    config.validate();

    const data::DataSpec spec = train::dataSpecFromConfig(config, request.project_path);
    workflow::requireCsvForTabular(config, spec, request.data_path);
    workflow::requireJsonForRetrieval(config, spec, request.data_path);
    std::vector<std::string> lines;
    try {
        progress("checking " + request.data_path);
        lines = describeData(data::inspectData(spec), request.data_path);
    } catch (const data::DataError &error) {
        throw InputError(error.what());
    }

    std::optional<Project> project = Project::create(request.project_path, config.toJson());
    try {
        if (base) {
            progress("recording the base model's digest");
            project->putBlob(train::kBaseModelBlob, hf::identifyBase(*located).toJson());
            const std::vector<std::string> base_lines = describeBase(*base);
            lines.insert(lines.end(), base_lines.begin(), base_lines.end());
        }
        const train::PreparedData prepared =
            train::prepareData(config, *project, progress, base ? &*located : nullptr);
        if (prepared.schema) {
            const std::vector<std::string> chosen =
                applyTabularDefaults(config, *prepared.schema, givenKeys(request));
            if (!chosen.empty()) {
                config.validate();
                project->setConfigJson(config.toJson());
            }
            lines.insert(lines.end(), chosen.begin(), chosen.end());
        }
        for (const std::string &line : describePrepared(config, prepared)) {
            lines.push_back(line);
        }
    } catch (const data::DataError &error) {
        project.reset();
        removeProjectAndData(request.project_path);
        throw InputError(error.what());
    } catch (...) {
        project.reset();
        removeProjectAndData(request.project_path);
        throw;
    }
    lines.insert(lines.begin(),
                 "created  " + request.project_path + " (recipe " + config.text("recipe") + ")");
    return lines;
}

} // namespace headroom
