#include "cli/commands.h"
#include "cli/exit_codes.h"

#include <headroom/workflow.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <memory>
#include <ostream>
#include <sstream>

namespace headroom::cli {

CommandRunner addNewCommand(CLI::App &app, Streams streams) {
    CLI::App *command = app.add_subcommand(
        "new", "Create a project from a data file (checks the whole file first)");
    auto request = std::make_shared<NewProjectRequest>();
    auto config_file = std::make_shared<std::string>();
    command->add_option("PROJECT", request->project_path, "Project file to create (*.headroom)")
        ->required();
    command
        ->add_option("--recipe", request->recipe,
                     "What to train: gpt, tabular, splade or causal_lm (with --base: splade for "
                     "a BERT folder, causal_lm otherwise)")
        ->check(CLI::IsMember({"gpt", "tabular", "splade", "causal_lm"}));
    command->add_option("--base", request->base_path,
                        "A Hugging Face model folder (config.json, safetensors, tokenizer) to "
                        "fine-tune; recorded by path and digest, not copied");
    command
        ->add_option("--data", request->data_path,
                     "Training data: text, JSONL, JSON or CSV (splade: JSON/JSONL records "
                     "with query, positive, negatives)")
        ->required();
    command->add_option("--config", *config_file,
                        "JSON file of settings {\"key\": \"value\"} applied before --set");
    command->add_option("--set", request->overrides, "KEY=VALUE setting (repeatable)")
        ->allow_extra_args(false);

    return [streams, request, config_file]() {
        if (request->recipe.empty()) {
            if (request->base_path.empty()) {
                streams.err << "headroom-cli new: --recipe gpt|tabular is required (or --base "
                               "DIR to fine-tune a pretrained model)\n";
                return static_cast<int>(kExitBadInput);
            }
        }
        if (!config_file->empty()) {
            std::ifstream file(*config_file);
            if (!file) {
                streams.err << "headroom-cli: cannot read --config " << *config_file << '\n';
                return static_cast<int>(kExitBadInput);
            }
            std::ostringstream text;
            text << file.rdbuf();
            request->config_json = text.str();
        }
        const std::vector<std::string> lines = createProject(
            *request, [&](const std::string &message) { streams.err << message << "…\n"; });
        for (const std::string &line : lines) {
            streams.out << line << '\n';
        }
        return static_cast<int>(kExitSuccess);
    };
}

} // namespace headroom::cli
