#include "cli/commands.h"
#include "cli/exit_codes.h"

#include <headroom/config.h>
#include <headroom/profile.h>
#include <headroom/session.h>
#include <headroom/units.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>

namespace headroom::cli {

namespace {

// Progress on stderr: what the session is doing and what happened (out-of-memory recoveries).
class ProfileProgress final : public SessionObserver {
public:
    explicit ProfileProgress(std::ostream &err) : err_(err) {}

    void onStateChanged(SessionState state, const std::string &message) override {
        std::lock_guard<std::mutex> lock(mutex_);
        if ((state == SessionState::Preparing || state == SessionState::Running) &&
            !message.empty()) {
            err_ << message << '\n' << std::flush;
        }
    }
    void onEvent(const EngineEvent &event) override {
        std::lock_guard<std::mutex> lock(mutex_);
        err_ << "  " << event.kind << ": " << event.message << '\n' << std::flush;
    }

private:
    std::ostream &err_;
    std::mutex mutex_;
};

std::string signedBytes(std::int64_t bytes) {
    if (bytes == 0) {
        return "0";
    }
    const std::string magnitude =
        formatBytes(static_cast<std::uint64_t>(bytes < 0 ? -bytes : bytes));
    return bytes < 0 ? "-" + magnitude : magnitude;
}

std::string milliseconds(double us) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", us / 1000.0);
    return text;
}

std::string percent(double part, double whole) {
    char text[16];
    std::snprintf(text, sizeof text, "%.1f %%", whole > 0 ? 100.0 * part / whole : 0.0);
    return text;
}

std::string cell(const std::string &text, std::size_t width, bool left = false) {
    if (text.size() >= width) {
        return text;
    }
    const std::string pad(width - text.size(), ' ');
    return left ? text + pad : pad + text;
}

void printOperators(std::ostream &out, const ProfileReport &report,
                    const std::vector<OperatorProfile> &rows, OperatorSort sort) {
    const bool device = report.device.rfind("cpu", 0) != 0;
    double self_total = 0;
    std::size_t name_width = 8;
    for (const OperatorProfile &row : report.operators) {
        self_total += row.self_us;
    }
    for (const OperatorProfile &row : rows) {
        name_width = std::max(name_width, std::min<std::size_t>(row.name.size(), 60));
    }
    out << cell("operator", name_width, true) << "  " << cell("calls", 7) << "  "
        << cell("total ms", 10) << "  " << cell("self ms", 10) << "  " << cell("self %", 7) << "  "
        << cell("self CPU mem", 12);
    if (device) {
        out << "  " << cell("self GPU mem", 12);
    }
    out << '\n';
    for (const OperatorProfile &row : rows) {
        std::string name = row.name;
        if (name.size() > 60) {
            name = name.substr(0, 57) + "...";
        }
        out << cell(name, name_width, true) << "  " << cell(std::to_string(row.calls), 7) << "  "
            << cell(milliseconds(row.total_us), 10) << "  " << cell(milliseconds(row.self_us), 10)
            << "  " << cell(percent(row.self_us, self_total), 7) << "  "
            << cell(signedBytes(row.self_cpu_memory), 12);
        if (device) {
            out << "  " << cell(signedBytes(row.self_device_memory), 12);
        }
        out << '\n';
    }
    out << "(" << rows.size() << " of " << report.operators.size() << " operators by "
        << toString(sort) << "; --sort time|self_time|self_memory|calls, --top K)\n";
}

void printModules(std::ostream &out, const ProfileReport &report) {
    out << "\nActivation memory held for backward at the end of the largest forward pass (of "
        << report.forward_passes << ", micro-batch " << report.micro_batch
        << "): " << formatBytes(report.activation_bytes) << '\n';
    if (report.modules.empty()) {
        out << "(the model names no parts)\n";
        return;
    }
    // Children indented under their parent, by their own name.
    const auto label = [](const ModuleProfile &module) {
        return std::string(2 * static_cast<std::size_t>(module.depth), ' ') +
               module.name.substr(module.parent.empty() ? 0 : module.parent.size() + 1);
    };
    std::size_t name_width = 6;
    for (const ModuleProfile &module : report.modules) {
        name_width = std::max(name_width, label(module).size());
    }
    out << cell("module", name_width, true) << "  " << cell("held", 10) << "  " << cell("share", 7)
        << "  " << cell("time ms", 10) << '\n';
    for (const ModuleProfile &module : report.modules) {
        out << cell(label(module), name_width, true) << "  "
            << cell(formatBytes(module.activation_bytes), 10) << "  "
            << cell(percent(static_cast<double>(module.activation_bytes),
                            static_cast<double>(report.activation_bytes)),
                    7)
            << "  " << cell(module.calls > 0 ? milliseconds(module.time_us) : "", 10) << '\n';
    }
    if (report.measured_activation_bytes > 0) {
        out << "The trainer's own measure of the first step: "
            << formatBytes(report.measured_activation_bytes)
            << " of activations (peak above the step's start, less the gradients)\n";
    }
}

void printReport(std::ostream &out, const ProfileReport &report,
                 const std::vector<OperatorProfile> &rows, OperatorSort sort) {
    const double step_ms = report.steps > 0 ? report.wall_us / 1000.0 / report.steps : 0;
    char summary[160];
    std::snprintf(summary, sizeof summary, "%.1f ms per step, %.2f s in all", step_ms,
                  report.wall_us / 1e6);
    out << "Profile of " << report.steps << (report.steps == 1 ? " step" : " steps") << " (after "
        << report.warmup_steps << " not recorded) on " << report.device << ": " << report.model
        << ", micro-batch " << report.micro_batch << " x " << report.accumulation << "; " << summary
        << "\n\n";
    printOperators(out, report, rows, sort);
    printModules(out, report);
}

int exitFor(const RunResult &result, Streams streams) {
    switch (result.failure) {
    case FailureKind::None:
        break;
    case FailureKind::BadInput:
        streams.err << "headroom-cli: " << result.message << '\n';
        return kExitBadInput;
    case FailureKind::CannotContinue:
        streams.err << "headroom-cli: the profile could not continue: " << result.message << '\n';
        return kExitCannotContinue;
    case FailureKind::Internal:
        streams.err << "headroom-cli: internal error: " << result.message << '\n';
        return kExitInternalError;
    }
    if (!result.profile) {
        streams.err << "headroom-cli: " << result.message << '\n';
        return kExitCannotContinue;
    }
    return kExitSuccess;
}

} // namespace

CommandRunner addProfileCommand(CLI::App &app, Streams streams) {
    CLI::App *command = app.add_subcommand(
        "profile", "Profile training steps: time and memory per operator, activation memory per "
                   "module, a Chrome trace (records no run)");
    struct Options {
        SessionRequest request;
        std::int64_t steps = 5;
        std::int64_t warmup = 1;
        std::string trace;
        std::string sort = "time";
        std::int64_t top = 20;
        bool json = false;
    };
    auto options = std::make_shared<Options>();
    command->add_option("PROJECT", options->request.project_path, "Project file")->required();
    command->add_option("--steps", options->steps, "Optimizer steps to record (default 5)");
    command->add_option("--warmup", options->warmup,
                        "Steps trained first and not recorded (default 1)");
    command->add_option("--trace", options->trace,
                        "Write a Chrome trace (chrome://tracing, ui.perfetto.dev) to FILE");
    command->add_option("--sort", options->sort,
                        "Order of the operator table: time, self_time, self_memory or calls");
    command->add_option("--top", options->top, "Operators to show (default 20; 0: all)");
    command->add_option("--set", options->request.overrides, "KEY=VALUE for this profile")
        ->allow_extra_args(false);
    command->add_flag("--json", options->json,
                      "One JSON object on stdout (every operator unless --top is given)");

    return [streams, options, command]() {
        if (options->steps < 1) {
            streams.err << "headroom-cli: --steps must be at least 1 (got " << options->steps
                        << ")\n";
            return static_cast<int>(kExitBadInput);
        }
        if (options->warmup < 0) {
            streams.err << "headroom-cli: --warmup must be 0 or more (got " << options->warmup
                        << ")\n";
            return static_cast<int>(kExitBadInput);
        }
        if (options->top < 0) {
            streams.err << "headroom-cli: --top must be 0 (all) or more (got " << options->top
                        << ")\n";
            return static_cast<int>(kExitBadInput);
        }
        const OperatorSort sort = parseOperatorSort(options->sort);
        // Find out now, not after minutes of profiling, that the trace cannot be written.
        bool trace_created = false;
        if (!options->trace.empty()) {
            trace_created = !std::filesystem::exists(options->trace);
            std::ofstream probe(options->trace, std::ios::app);
            if (!probe) {
                streams.err << "headroom-cli: cannot write the trace to " << options->trace << ": "
                            << std::strerror(errno) << '\n';
                return static_cast<int>(kExitBadInput);
            }
        }
        const auto discardTrace = [&] {
            if (trace_created) {
                std::error_code ignored;
                std::filesystem::remove(options->trace, ignored);
            }
        };

        SessionRequest request = options->request;
        request.profile = ProfileOptions();
        request.profile->steps = options->steps;
        request.profile->warmup_steps = options->warmup;
        Session session(request);
        ProfileProgress progress(streams.err);
        session.addObserver(&progress);
        session.start();
        const RunResult result = session.wait();
        if (const int code = exitFor(result, streams); code != kExitSuccess) {
            discardTrace();
            return code;
        }
        const ProfileReport &report = *result.profile;
        const bool top_given = command->count("--top") > 0;
        const std::size_t top =
            options->json && !top_given ? 0 : static_cast<std::size_t>(options->top);
        const std::vector<OperatorProfile> rows = sortedOperators(report.operators, sort, top);
        if (!options->trace.empty()) {
            writeChromeTrace(report, options->trace);
            streams.err << "trace: " << report.trace.size() << " events in " << options->trace
                        << (report.trace_truncated ? " (cut at the event limit)" : "")
                        << "; open it in chrome://tracing or https://ui.perfetto.dev\n";
        }
        if (options->json) {
            streams.out << profileJson(report, rows) << '\n';
        } else {
            printReport(streams.out, report, rows, sort);
        }
        return static_cast<int>(kExitSuccess);
    };
}

} // namespace headroom::cli
