#include "cli/commands.h"
#include "cli/exit_codes.h"

#include <headroom/workflow.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>

namespace headroom::cli {

CommandRunner addExportCommand(CLI::App &app, Streams streams) {
    CLI::App *command =
        app.add_subcommand("export", "Export a run's metrics (CSV) or weights (safetensors)");
    struct Options {
        std::string project;
        std::int64_t run = 0;
        std::string metrics;
        std::string weights;
    };
    auto options = std::make_shared<Options>();
    command->add_option("PROJECT", options->project, "Project file")->required();
    command->add_option("--run", options->run, "Run id (see `runs`)")->required();
    CLI::Option *metrics = command->add_option("--metrics", options->metrics, "CSV file to write");
    CLI::Option *weights =
        command->add_option("--weights", options->weights, "safetensors file to write");
    metrics->excludes(weights);

    return [streams, options]() {
        if (options->metrics.empty() && options->weights.empty()) {
            streams.err << "headroom-cli: export needs --metrics FILE.csv or --weights "
                           "FILE.safetensors\n";
            return static_cast<int>(kExitBadInput);
        }
        if (!options->metrics.empty()) {
            const std::int64_t rows =
                exportMetricsCsv(options->project, options->run, options->metrics);
            streams.err << "wrote " << rows << " steps of run " << options->run << " to "
                        << options->metrics << '\n';
        } else {
            const std::int64_t step =
                exportWeights(options->project, options->run, options->weights);
            streams.err << "wrote the weights of run " << options->run << " at step " << step
                        << " to " << options->weights << '\n';
        }
        return static_cast<int>(kExitSuccess);
    };
}

} // namespace headroom::cli
