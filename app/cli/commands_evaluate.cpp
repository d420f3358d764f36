#include "cli/commands.h"
#include "cli/exit_codes.h"

#include <headroom/workflow.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

namespace headroom::cli {

namespace {

// JSON has no NaN: a figure the task does not have is left out.
void putFigure(nlohmann::ordered_json &object, const char *name, double value) {
    if (std::isfinite(value)) {
        object[name] = value;
    }
}

std::string figure(double value, int digits) {
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", digits, value);
    return text;
}

} // namespace

CommandRunner addEvaluateCommand(CLI::App &app, Streams streams) {
    CLI::App *command = app.add_subcommand(
        "evaluate", "Measure a run's result on another data file (a held-out test set)");
    struct Options {
        std::string project;
        std::int64_t run = 0;
        std::string data;
        bool json = false;
    };
    auto options = std::make_shared<Options>();
    command->add_option("PROJECT", options->project, "Project file")->required();
    command->add_option("--run", options->run,
                        "Run id (see `runs`); default: the newest run with a checkpoint; -1: the "
                        "base model of a pretrained project, before any run");
    command
        ->add_option("--data", options->data,
                     "File with the training data's layout (the same CSV columns, or text)")
        ->required();
    command->add_flag("--json", options->json, "Print one JSON object");

    return [streams, options]() {
        const EvaluationReport report = evaluateRun(options->project, options->run, options->data);
        const EvalMetrics &m = report.metrics;
        if (options->json) {
            nlohmann::ordered_json line = {{"run", report.run_id},
                                           {"step", report.step},
                                           {"checkpoint", report.run_id == 0 ? "base"
                                                          : report.latest    ? "latest"
                                                                             : "best"},
                                           {"task", report.task},
                                           {"examples", m.examples}};
            putFigure(line, "loss", m.loss);
            putFigure(line, "accuracy", m.accuracy);
            putFigure(line, "rmse", m.rmse);
            putFigure(line, "r2", m.r2);
            putFigure(line, "mrr_at_10", m.mrr_at_10);
            putFigure(line, "recall_at_100", m.recall_at_100);
            streams.out << line.dump() << '\n';
            return static_cast<int>(kExitSuccess);
        }
        std::string text =
            (report.run_id == 0 ? std::string("the base model")
                                : "run " + std::to_string(report.run_id) + ", " +
                                      (report.latest ? "latest" : "best") + " checkpoint (step " +
                                      std::to_string(report.step) + ")") +
            " on " + options->data + ": " + std::to_string(m.examples) + " examples, loss " +
            figure(m.loss, 4);
        if (std::isfinite(m.accuracy)) {
            text += ", accuracy " + figure(m.accuracy, 4);
        }
        if (std::isfinite(m.rmse)) {
            text += ", RMSE " + figure(m.rmse, 4);
        }
        if (std::isfinite(m.r2)) {
            text += ", R² " + figure(m.r2, 4);
        }
        if (std::isfinite(m.mrr_at_10)) {
            text +=
                ", MRR@10 " + figure(m.mrr_at_10, 4) + ", Recall@100 " + figure(m.recall_at_100, 4);
        }
        streams.out << text << '\n';
        return static_cast<int>(kExitSuccess);
    };
}

} // namespace headroom::cli
