#include "train/techniques.h"

#include <headroom/config.h>
#include <headroom/project.h>
#include <headroom/workflow.h>

#include <nlohmann/json.hpp>

namespace headroom {

std::string describeTechniques(const RunRecord &run) {
    const nlohmann::json summary =
        nlohmann::json::parse(run.summary_json.empty() ? "{}" : run.summary_json, nullptr, false);
    if (summary.is_object() && summary.contains("techniques") &&
        summary["techniques"].is_string()) {
        return summary["techniques"].get<std::string>();
    }
    try {
        return train::techniquesFromConfig(Config::fromJson(run.config_json)).describe();
    } catch (const std::exception &) {
        return "fp32"; // a config this build cannot read: nothing to report
    }
}

} // namespace headroom
