#include "cli/commands.h"
#include "cli/exit_codes.h"

#include <headroom/retrieval.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <ostream>

namespace headroom::cli {

CommandRunner addEncodeCommand(CLI::App &app, Streams streams) {
    CLI::App *command = app.add_subcommand(
        "encode", "Turn texts into SPLADE sparse vectors with a splade run's encoder (JSON lines "
                  "{\"id\":…,\"vector\":{\"token\":weight,…}})");
    auto request = std::make_shared<EncodeRequest>();
    command->add_option("PROJECT", request->project_path, "Project file (*.headroom)")->required();
    command->add_option("--run", request->run_id,
                        "Run whose result weights encode; default: the newest run with a "
                        "checkpoint, else the base model; -1: the base model");
    command
        ->add_option("--input", request->input_path,
                     "One text per line: plain text (id = line number) or a JSON object with "
                     "\"text\" and optionally \"id\"")
        ->required();
    command->add_option("--output", request->output_path, "JSON lines file to write")->required();
    command
        ->add_option("--top", request->top,
                     "Keep the K largest weights of each vector; 0 = every non-zero one")
        ->default_val(0)
        ->check(CLI::NonNegativeNumber);
    command->add_option("--batch", request->batch, "Texts per forward pass")
        ->default_val(32)
        ->check(CLI::PositiveNumber);
    return [streams, request]() {
        int shown = -1;
        const EncodeReport report =
            encodeTexts(*request, [&](std::uint64_t done, std::uint64_t total, std::int64_t texts) {
                const int percent = total > 0 ? static_cast<int>(100 * done / total) : 100;
                if (percent == shown) {
                    return;
                }
                shown = percent;
                const int filled = percent / 5;
                streams.err << "\rencoding [" << std::string(static_cast<std::size_t>(filled), '#')
                            << std::string(static_cast<std::size_t>(20 - filled), ' ') << "] "
                            << percent << "%  " << texts << " texts" << std::flush;
            });
        char summary[200];
        std::snprintf(summary, sizeof summary,
                      "\n%lld texts encoded in %.1f s, %.1f non-zero weights per vector on "
                      "average",
                      static_cast<long long>(report.texts), report.seconds, report.mean_nonzeros);
        streams.err << summary << " ("
                    << (report.run_id == 0 ? std::string("the base model")
                                           : "run " + std::to_string(report.run_id) + " step " +
                                                 std::to_string(report.step))
                    << ")\nwrote " << request->output_path << '\n';
        return static_cast<int>(kExitSuccess);
    };
}

} // namespace headroom::cli
