#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/json_values.h"

#include <headroom/project.h>
#include <headroom/units.h>
#include <headroom/workflow.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

namespace headroom::cli {

namespace {

nlohmann::json optionalNumber(const std::optional<double> &value) {
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json moeStepJson(const StepMetrics &step) {
    return {{"step", step.step},
            {"aux_loss", finiteOrNull(step.moe->aux_loss)},
            {"z_loss", finiteOrNull(step.moe->z_loss)},
            {"dropped_fraction", finiteOrNull(step.moe->dropped_fraction)},
            {"expert_load", step.moe->expert_load}};
}

// The Mixture-of-Experts routing of a run, from its step metrics: the last step's figures and
// the means over its steps (per-step values: export --metrics). Null for a dense run. MoE blocks
// come from moe.experts, or from a pretrained base with them (Mixtral), which the steps show.
nlohmann::json moeJson(const Project &project, const RunRecord &run) {
    const nlohmann::json config =
        nlohmann::json::parse(run.config_json.empty() ? "{}" : run.config_json, nullptr, false);
    const bool configured =
        config.is_object() && config.value("moe.experts", std::string("0")) != "0";
    const StepMetrics *last = nullptr;
    const std::vector<StepMetrics> steps = project.metrics(run.id);
    MoeStepMetrics sum;
    std::int64_t count = 0;
    for (const StepMetrics &step : steps) {
        if (!step.moe) {
            continue;
        }
        last = &step;
        ++count;
        sum.aux_loss += step.moe->aux_loss;
        sum.z_loss += step.moe->z_loss;
        sum.dropped_fraction += step.moe->dropped_fraction;
        if (sum.expert_load.empty()) {
            sum.expert_load = step.moe->expert_load;
            continue;
        }
        const auto &load = step.moe->expert_load;
        for (std::size_t block = 0; block < std::min(sum.expert_load.size(), load.size());
             ++block) {
            for (std::size_t e = 0; e < std::min(sum.expert_load[block].size(), load[block].size());
                 ++e) {
                sum.expert_load[block][e] += load[block][e];
            }
        }
    }
    if (last == nullptr) {
        return configured ? nlohmann::json{{"steps", 0}} : nlohmann::json();
    }
    const double n = static_cast<double>(count);
    for (std::vector<double> &block : sum.expert_load) {
        for (double &share : block) {
            share /= n;
        }
    }
    return {{"steps", count},
            {"last", moeStepJson(*last)},
            {"mean",
             {{"aux_loss", finiteOrNull(sum.aux_loss / n)},
              {"z_loss", finiteOrNull(sum.z_loss / n)},
              {"dropped_fraction", finiteOrNull(sum.dropped_fraction / n)},
              {"expert_load", sum.expert_load}}}};
}

nlohmann::json runToJson(const RunRecord &run) {
    return {{"id", run.id},
            {"status", toString(run.status)},
            {"device", run.device},
            {"started_at", run.started_at},
            {"ended_at", run.ended_at},
            {"resumed_from", run.resumed_from},
            {"last_step", run.last_step},
            {"target_steps", run.target_steps},
            {"final_loss", optionalNumber(run.final_loss)},
            {"final_val_loss", optionalNumber(run.final_val_loss)},
            {"peak_bytes", run.peak_bytes},
            {"oom_recoveries", run.oom_recoveries},
            {"message", run.message},
            {"summary", nlohmann::json::parse(run.summary_json.empty() ? "{}" : run.summary_json)},
            {"config", nlohmann::json::parse(run.config_json.empty() ? "{}" : run.config_json)}};
}

std::string formatLoss(const std::optional<double> &value) {
    if (!value) {
        return "-";
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.4f", *value);
    return text;
}

} // namespace

CommandRunner addRunsCommand(CLI::App &app, Streams streams) {
    CLI::App *command = app.add_subcommand("runs", "List the runs of a project");
    auto project_path = std::make_shared<std::string>();
    auto as_json = std::make_shared<bool>(false);
    command->add_option("PROJECT", *project_path, "Project file")->required();
    command->add_flag("--json", *as_json, "Print a JSON array");

    return [streams, project_path, as_json]() {
        const Project project = Project::openForReading(*project_path);
        const std::vector<RunRecord> runs = project.runs();
        if (*as_json) {
            nlohmann::json list = nlohmann::json::array();
            for (const RunRecord &run : runs) {
                nlohmann::json item = runToJson(run);
                const nlohmann::json moe = moeJson(project, run);
                if (!moe.is_null()) {
                    item["moe"] = moe;
                }
                list.push_back(std::move(item));
            }
            streams.out << list.dump(2) << '\n';
            return static_cast<int>(kExitSuccess);
        }
        if (runs.empty()) {
            streams.out << "no runs yet: headroom-cli train " << *project_path << '\n';
            return static_cast<int>(kExitSuccess);
        }
        char line[512];
        std::snprintf(line, sizeof line,
                      "%-4s %-12s %-11s %-10s %-10s %-10s %-4s %-7s %-25s %-7s %s\n", "run",
                      "status", "steps", "loss", "val loss", "peak mem", "ooms", "device",
                      "started", "from", "techniques");
        streams.out << line;
        for (const RunRecord &run : runs) {
            const std::string steps =
                std::to_string(run.last_step) + "/" + std::to_string(run.target_steps);
            const std::string from =
                run.resumed_from ? "run " + std::to_string(run.resumed_from) : "-";
            std::snprintf(line, sizeof line,
                          "%-4lld %-12s %-11s %-10s %-10s %-10s %-4lld %-7s %-25s %-7s %s\n",
                          static_cast<long long>(run.id), toString(run.status).c_str(),
                          steps.c_str(), formatLoss(run.final_loss).c_str(),
                          formatLoss(run.final_val_loss).c_str(),
                          formatBytes(run.peak_bytes).c_str(),
                          static_cast<long long>(run.oom_recoveries), run.device.c_str(),
                          run.started_at.c_str(), from.c_str(), describeTechniques(run).c_str());
            streams.out << line;
        }
        // The validation figures of the latest run that has them (its best checkpoint's with
        // early stopping).
        for (auto run = runs.rbegin(); run != runs.rend(); ++run) {
            const nlohmann::json summary = nlohmann::json::parse(
                run->summary_json.empty() ? "{}" : run->summary_json, nullptr, false);
            if (!summary.is_object() ||
                (!summary.contains("val_accuracy") && !summary.contains("val_rmse") &&
                 !summary.contains("val_mrr_at_10"))) {
                continue;
            }
            std::string text = "\nrun " + std::to_string(run->id) + " validation";
            if (summary.contains("best_step")) {
                text += " (best checkpoint, step " +
                        std::to_string(summary.value("best_step", std::int64_t{0})) + ")";
            }
            char figures[160];
            if (summary.contains("val_accuracy")) {
                std::snprintf(figures, sizeof figures, ": accuracy %.2f%%",
                              100.0 * summary.value("val_accuracy", 0.0));
            } else if (summary.contains("val_mrr_at_10")) {
                std::snprintf(figures, sizeof figures, ": MRR@10 %.4f, Recall@100 %.4f",
                              summary.value("val_mrr_at_10", 0.0),
                              summary.value("val_recall_at_100", 0.0));
            } else {
                std::snprintf(figures, sizeof figures, ": RMSE %.4g, R² %.3f",
                              summary.value("val_rmse", 0.0), summary.value("val_r2", 0.0));
            }
            streams.out << text << figures;
            if (summary.contains("early_stopped_at")) {
                streams.out << "; stopped early at step "
                            << summary.value("early_stopped_at", std::int64_t{0});
            }
            streams.out << '\n';
            break;
        }
        // Where the memory of the latest measured run went.
        for (auto run = runs.rbegin(); run != runs.rend(); ++run) {
            const nlohmann::json summary = nlohmann::json::parse(
                run->summary_json.empty() ? "{}" : run->summary_json, nullptr, false);
            if (!summary.is_object() || !summary.contains("memory_breakdown")) {
                continue;
            }
            const nlohmann::json &parts = summary["memory_breakdown"];
            auto bytes = [&parts](const char *key) {
                return formatBytes(parts.value(key, std::uint64_t{0}));
            };
            streams.out << "\nrun " << run->id << " memory at step " << parts.value("step", 0)
                        << " (micro-batch " << parts.value("micro_batch", 0) << "): weights "
                        << bytes("weights") << ", gradients " << bytes("gradients")
                        << ", optimizer " << bytes("optimizer") << ", activations "
                        << bytes("activations") << " = peak " << bytes("peak") << '\n';
            break;
        }
        return static_cast<int>(kExitSuccess);
    };
}

} // namespace headroom::cli
