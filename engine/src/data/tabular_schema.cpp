#include "data/tabular_schema.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace headroom::data {
namespace {

constexpr int kSchemaVersion = 1;

} // namespace

std::string TabularSchema::toJson() const {
    nlohmann::json numeric_json = nlohmann::json::array();
    for (const NumericColumn &column : numeric) {
        numeric_json.push_back(
            {{"name", column.name}, {"mean", column.mean}, {"stddev", column.stddev}});
    }
    nlohmann::json categorical_json = nlohmann::json::array();
    for (const CategoricalColumn &column : categorical) {
        categorical_json.push_back({{"name", column.name}, {"categories", column.categories}});
    }
    const nlohmann::json root = {
        {"version", kSchemaVersion},
        {"numeric", numeric_json},
        {"categorical", categorical_json},
        {"target", target},
        {"task", classification ? "classification" : "regression"},
        {"classes", classes},
        {"class_counts", class_counts},
        {"target_mean", target_mean},
        {"target_stddev", target_stddev},
        {"train_rows", train_rows},
        {"validation_rows", validation_rows},
        {"task_reason", task_reason},
    };
    // nlohmann writes doubles in their shortest form that reads back to the same bits.
    return root.dump();
}

TabularSchema TabularSchema::fromJson(const std::string &json) {
    try {
        const nlohmann::json root = nlohmann::json::parse(json);
        const int version = root.at("version").get<int>();
        if (version != kSchemaVersion) {
            throw std::runtime_error("tabular schema version " + std::to_string(version) +
                                     " is not supported (expected " +
                                     std::to_string(kSchemaVersion) + ")");
        }
        TabularSchema schema;
        for (const nlohmann::json &column : root.at("numeric")) {
            schema.numeric.push_back({column.at("name").get<std::string>(),
                                      column.at("mean").get<double>(),
                                      column.at("stddev").get<double>()});
        }
        for (const nlohmann::json &column : root.at("categorical")) {
            schema.categorical.push_back({column.at("name").get<std::string>(),
                                          column.at("categories").get<std::vector<std::string>>()});
        }
        schema.target = root.at("target").get<std::string>();
        const std::string task = root.at("task").get<std::string>();
        if (task != "classification" && task != "regression") {
            throw std::runtime_error("tabular schema: unknown task '" + task + "'");
        }
        schema.classification = task == "classification";
        schema.classes = root.at("classes").get<std::vector<std::string>>();
        if (const auto counts = root.find("class_counts"); counts != root.end()) {
            schema.class_counts = counts->get<std::vector<std::int64_t>>();
            if (schema.class_counts.size() != schema.classes.size()) {
                throw std::runtime_error(
                    "tabular schema: " + std::to_string(schema.class_counts.size()) +
                    " class counts for " + std::to_string(schema.classes.size()) + " classes");
            }
        }
        schema.target_mean = root.at("target_mean").get<double>();
        schema.target_stddev = root.at("target_stddev").get<double>();
        schema.train_rows = root.at("train_rows").get<std::int64_t>();
        schema.validation_rows = root.at("validation_rows").get<std::int64_t>();
        schema.task_reason = root.at("task_reason").get<std::string>();
        return schema;
    } catch (const nlohmann::json::exception &error) {
        throw std::runtime_error(std::string("tabular schema is not valid JSON of the expected "
                                             "shape: ") +
                                 error.what());
    }
}

} // namespace headroom::data
