// `estimate`, `fit` and `profiles`: the planner on the command line.

#include "cli/commands.h"
#include "cli/exit_codes.h"

#include <headroom/config.h>
#include <headroom/devices.h>
#include <headroom/plan.h>
#include <headroom/project.h>
#include <headroom/units.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace headroom::cli {

namespace {

struct PlanOptions {
    PlanRequest request;
    bool json = false;
};

std::shared_ptr<PlanOptions> addPlanOptions(CLI::App &command) {
    auto options = std::make_shared<PlanOptions>();
    command.add_option("PROJECT", options->request.project_path, "Project file")->required();
    command.add_option("--profile", options->request.profile,
                       "Plan for a hardware profile (see `headroom-cli profiles`), or 'detected'");
    command.add_option("--set", options->request.overrides, "KEY=VALUE to plan with (repeatable)")
        ->allow_extra_args(false);
    command.add_flag("--json", options->json, "Print one JSON object");
    return options;
}

// printf into one output line (every caller passes arguments: the format is a literal).
template <typename... Arguments> std::string line(const char *format, Arguments... arguments) {
    char text[512];
    std::snprintf(text, sizeof text, format, arguments...);
    return std::string(text) + '\n';
}

// Terminal columns of UTF-8 text: printf's %-40s counts bytes, and "·" is two of them.
std::size_t columnsOf(const std::string &text) {
    return static_cast<std::size_t>(
        std::count_if(text.begin(), text.end(), [](char byte) { return (byte & 0xC0) != 0x80; }));
}

// Pads to `width` terminal columns.
std::string padded(const std::string &text, std::size_t width) {
    const std::size_t columns = columnsOf(text);
    return columns >= width ? text : text + std::string(width - columns, ' ');
}

std::string batchShape(std::int64_t micro_batch, std::int64_t accumulation) {
    return std::to_string(micro_batch) + " x " + std::to_string(accumulation);
}

// "0.42 s", "85 ms"; "-" when not predicted.
std::string stepTime(double seconds) {
    if (seconds <= 0) {
        return "-";
    }
    char text[32];
    if (seconds < 1) {
        std::snprintf(text, sizeof text, "%.0f ms", seconds * 1000);
    } else {
        std::snprintf(text, sizeof text, "%.2f s", seconds);
    }
    return text;
}

std::string budgetVerdict(const MemoryEstimate &estimate) {
    if (estimate.budget == 0) {
        return "none (no memory.budget)";
    }
    const std::string budget = formatBytes(estimate.budget);
    if (estimate.fits) {
        return budget + ": fits";
    }
    const std::uint64_t over =
        estimate.peak > estimate.budget ? estimate.peak - estimate.budget : 0;
    return budget + ": does not fit by " + formatBytes(over);
}

void printEstimate(std::ostream &out, const MemoryEstimate &estimate) {
    out << "model: " << estimate.model << " (" << estimate.parameters << " parameters, "
        << estimate.trainable << " trainable)\n";
    out << "device: " << estimate.device << ", techniques: " << estimate.techniques << '\n';
    out << "micro-batch x accumulation: " << batchShape(estimate.micro_batch, estimate.accumulation)
        << "\n\n";
    const std::pair<const char *, std::uint64_t> parts[] = {
        {"weights", estimate.weights},           {"gradients", estimate.gradients},
        {"optimizer state", estimate.optimizer}, {"activations", estimate.activations},
        {"overhead", estimate.overhead},
    };
    for (const auto &[role, bytes] : parts) {
        out << line("  %-16s %12s", role, formatBytes(bytes).c_str());
    }
    out << line("  %-16s %12s", "total peak", formatBytes(estimate.peak).c_str());
    if (estimate.host_bytes > 0) {
        out << line("  %-16s %12s", "in host memory", formatBytes(estimate.host_bytes).c_str());
    }
    out << line("  %-16s %s", "budget", budgetVerdict(estimate).c_str());
    if (estimate.history_samples > 0) {
        out << line("history: x%.2f from %d measurement%s on this device (uncorrected %s)",
                    estimate.correction, estimate.history_samples,
                    estimate.history_samples == 1 ? "" : "s",
                    formatBytes(estimate.model_peak).c_str());
    }
    for (const std::string &note : estimate.notes) {
        out << "note: " << note << '\n';
    }
}

std::string joined(const std::vector<std::string> &items) {
    std::string text;
    for (const std::string &item : items) {
        text += (text.empty() ? "" : " ") + item;
    }
    return text;
}

// "12.34 M" parameters.
std::string millions(std::int64_t count) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f M", static_cast<double>(count) / 1e6);
    return text;
}

// Model changes the planner prices but never makes (MoE: fewer experts, lower top-k, ...).
void printVariants(std::ostream &out, const Plan &plan) {
    if (plan.variants.empty()) {
        return;
    }
    std::size_t width = 32;
    for (const PlanVariant &variant : plan.variants) {
        width = std::max(width, columnsOf(variant.change));
    }
    out << "\nchanges to the model, each alone, with the plan's techniques and micro-batch:\n"
        << line("  %s %12s %12s %7s %-5s %s", padded("change", width).c_str(), "parameters", "peak",
                "speed", "fits", "set");
    for (const PlanVariant &variant : plan.variants) {
        char speed[16] = "-";
        if (variant.relative_speed > 0) {
            std::snprintf(speed, sizeof speed, "%.2fx", variant.relative_speed);
        }
        out << line("  %s %12s %12s %7s %-5s %s", padded(variant.change, width).c_str(),
                    millions(variant.parameters).c_str(), formatBytes(variant.peak).c_str(), speed,
                    variant.fits ? "yes" : "no", joined(variant.overrides).c_str());
    }
    out << "(speed relative to the plan's model; --set KEY=VALUE to try one)\n";
}

void printPlan(std::ostream &out, const Plan &plan) {
    out << "\nrecommendation";
    if (!plan.profile.label.empty()) {
        out << " for " << plan.profile.label;
    }
    out << ": " << plan.summary << '\n';
    for (const PlanDecision &decision : plan.decisions) {
        out << "  " << decision.setting << " = " << decision.value << ": " << decision.reason
            << '\n';
    }
    if (plan.alternatives.empty()) {
        return;
    }
    std::size_t width = 40;
    for (const PlanAlternative &alternative : plan.alternatives) {
        width = std::max(width, columnsOf(alternative.techniques));
    }
    out << '\n'
        << line("  %s %-12s %12s %7s %9s %s", padded("techniques", width).c_str(), "batch", "peak",
                "speed", "step", "fits");
    for (const PlanAlternative &alternative : plan.alternatives) {
        out << line("%c %s %-12s %12s %6.2fx %9s %s", alternative.pareto ? '*' : ' ',
                    padded(alternative.techniques, width).c_str(),
                    batchShape(alternative.micro_batch, alternative.accumulation).c_str(),
                    formatBytes(alternative.peak).c_str(), alternative.relative_speed,
                    stepTime(alternative.step_seconds).c_str(), alternative.fits ? "yes" : "no");
    }
    out << "(* no other option is both faster and smaller; batch = micro-batch x "
           "accumulation)\n";
    out << plan.speed_note;
    if (plan.step_seconds > 0) {
        out << "; predicted step time of the plan: " << stepTime(plan.step_seconds);
    }
    out << '\n';
    printVariants(out, plan);
}

std::string describeProbe(std::size_t number, const FitProbe &probe) {
    std::string text =
        "probe " + std::to_string(number) + ": micro-batch " + std::to_string(probe.micro_batch);
    if (probe.fits) {
        return text + " fits, peak " + formatBytes(probe.peak);
    }
    text += " out of memory";
    if (probe.peak > 0) {
        text += " (peak " + formatBytes(probe.peak) + ")";
    }
    return text;
}

nlohmann::json profilesJson() {
    nlohmann::json list = nlohmann::json::array();
    for (const HardwareProfile &profile : hardwareProfiles()) {
        list.push_back(nlohmann::json::parse(toJson(profile)));
    }
    for (const HardwareProfile &profile : detectedProfiles(detectDevices())) {
        list.push_back(nlohmann::json::parse(toJson(profile)));
    }
    return {{"version", hardwareProfilesVersion()}, {"profiles", std::move(list)}};
}

void printProfiles(std::ostream &out) {
    const std::vector<HardwareProfile> detected = detectedProfiles(detectDevices());
    std::size_t width = 5;
    for (const auto *group : {&hardwareProfiles(), &detected}) {
        for (const HardwareProfile &profile : *group) {
            width = std::max(width, columnsOf(profile.label));
        }
    }
    out << line("%-18s %s %10s %10s %s", "id", padded("label", width).c_str(), "memory", "budget",
                "precision");
    for (const auto *group : {&hardwareProfiles(), &detected}) {
        for (const HardwareProfile &profile : *group) {
            const std::string precision = std::string(profile.bf16 ? "bf16 " : "") +
                                          (profile.fp16 ? "fp16" : "") +
                                          (profile.bf16 || profile.fp16 ? "" : "fp32 only");
            out << line("%-18s %s %10s %10s %s", profile.id.c_str(),
                        padded(profile.label, width).c_str(),
                        formatBytes(profile.memory_bytes).c_str(),
                        formatBytes(profile.budget_bytes).c_str(), precision.c_str());
        }
    }
    out << "\nUse one with: headroom-cli estimate PROJECT --profile ID ('detected': this "
           "machine's training device)\n";
}

} // namespace

CommandRunner addEstimateCommand(CLI::App &app, Streams streams) {
    CLI::App *command = app.add_subcommand(
        "estimate", "Predict the peak memory of a training step and recommend a plan");
    command->alias("plan");
    const std::shared_ptr<PlanOptions> options = addPlanOptions(*command);
    return [streams, options]() {
        const MemoryEstimate estimate = estimateMemory(options->request);
        const Plan plan = recommendPlan(options->request);
        if (options->json) {
            const nlohmann::json document = {{"estimate", nlohmann::json::parse(toJson(estimate))},
                                             {"plan", nlohmann::json::parse(toJson(plan))}};
            streams.out << document.dump(2) << '\n';
        } else {
            printEstimate(streams.out, estimate);
            printPlan(streams.out, plan);
        }
        return static_cast<int>(kExitSuccess);
    };
}

CommandRunner addFitCommand(CLI::App &app, Streams streams) {
    CLI::App *command = app.add_subcommand(
        "fit",
        "Verify a plan with real training steps and store the largest micro-batch that fits");
    const std::shared_ptr<PlanOptions> options = addPlanOptions(*command);
    return [streams, options]() {
        // Probes are progress: on stderr when stdout carries the JSON.
        std::ostream &progress = options->json ? streams.err : streams.out;
        std::size_t probes = 0;
        const FitResult result = fitPlan(options->request, [&](const FitProbe &probe) {
            progress << describeProbe(++probes, probe) << '\n' << std::flush;
        });
        const bool fitted = result.plan.feasible && result.micro_batch > 0;
        if (options->json) {
            streams.out << toJson(result, 2) << '\n';
        } else if (fitted) {
            streams.out << "predicted peak " << formatBytes(result.predicted_peak) << ", measured "
                        << formatBytes(result.measured_peak) << '\n';
            streams.out << "micro-batch x accumulation: "
                        << batchShape(result.micro_batch, result.accumulation)
                        << " (largest that ran: " << result.largest_fitting << ")\n";
            if (result.stored) {
                streams.out << "stored in " << options->request.project_path << ": "
                            << joined(result.overrides) << '\n';
            } else {
                streams.out << "not stored: " << result.message << '\n';
            }
        }
        if (!fitted) {
            const std::string why = !result.plan.summary.empty() ? result.plan.summary
                                    : !result.message.empty()
                                        ? result.message
                                        : "no micro-batch ran within the budget";
            streams.err << "headroom-cli: cannot fit: " << why << '\n';
            return static_cast<int>(kExitCannotContinue);
        }
        return static_cast<int>(kExitSuccess);
    };
}

CommandRunner addProfilesCommand(CLI::App &app, Streams streams) {
    CLI::App *command = app.add_subcommand(
        "profiles", "List the hardware profiles to plan for, and this machine's");
    auto as_json = std::make_shared<bool>(false);
    command->add_flag("--json", *as_json, "Print one JSON object");
    return [streams, as_json]() {
        if (*as_json) {
            streams.out << profilesJson().dump(2) << '\n';
        } else {
            printProfiles(streams.out);
        }
        return static_cast<int>(kExitSuccess);
    };
}

} // namespace headroom::cli
