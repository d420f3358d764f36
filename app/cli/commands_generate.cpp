#include "cli/commands.h"
#include "cli/exit_codes.h"

#include <headroom/pretrained.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

namespace headroom::cli {

namespace {

struct GenerateOptions {
    GenerateRequest request;
    double temperature = -1;
    std::int64_t top_k = -1;
    double top_p = -1;
    bool json = false;
    bool chat = false;
    std::string system;
};

} // namespace

CommandRunner addGenerateCommand(CLI::App &app, Streams streams) {
    CLI::App *command = app.add_subcommand(
        "generate", "Continue a prompt with a run's weights (or a pretrained project's base "
                    "model before any training), with a KV cache, stopping at end-of-sequence");
    auto options = std::make_shared<GenerateOptions>();
    GenerateRequest &request = options->request;
    command->add_option("PROJECT", request.project_path, "Project file (*.headroom)")->required();
    command->add_option("--run", request.run_id,
                        "Run whose result weights generate; default: the newest run with a "
                        "checkpoint, else the base model; -1: the base model");
    command->add_option("--prompt", request.prompt, "The text to continue (UTF-8)")->required();
    command->add_option("--max-tokens", request.max_tokens, "New tokens at most")->default_val(64);
    command->add_option("--temperature", options->temperature,
                        "Sampling temperature; 0 = greedy (default: the model folder's "
                        "generation_config.json, else greedy)");
    command->add_option("--top-k", options->top_k, "Sample among the k most likely; 0 = off");
    command->add_option("--top-p", options->top_p,
                        "Sample among the most likely tokens covering this probability");
    command->add_option("--seed", request.seed, "Seed of the sampler")->default_val(0);
    CLI::Option *chat = command->add_flag(
        "--chat", options->chat,
        "The prompt is a user's message: render it with the project's chat template "
        "(data.chat_template, else the base model's) and the assistant's header, and stop at "
        "the end of the assistant's turn");
    command->add_option("--system", options->system, "With --chat: a system prompt")->needs(chat);
    command->add_flag("--json", options->json,
                      "Print one line {\"prompt_tokens\":[…],\"tokens\":[new ids],\"text\":\"…\"}");
    return [streams, options]() {
        GenerateRequest request = options->request;
        if (options->chat) {
            if (!options->system.empty()) {
                request.chat.push_back({"system", options->system});
            }
            request.chat.push_back({"user", request.prompt});
            request.prompt.clear();
        }
        if (options->temperature >= 0) {
            request.temperature = options->temperature;
        }
        if (options->top_k >= 0) {
            request.top_k = options->top_k;
        }
        if (options->top_p >= 0) {
            request.top_p = options->top_p;
        }
        const bool json = options->json;
        const GenerateResult result = generateText(request, [&](const std::string &piece) {
            if (!json) {
                streams.out << piece << std::flush;
            }
        });
        if (json) {
            const nlohmann::json out = {{"prompt_tokens", result.prompt_tokens},
                                        {"tokens", result.tokens},
                                        {"text", result.text}};
            streams.out << out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                        << '\n';
        } else {
            streams.out << '\n';
        }
        const double rate =
            result.seconds > 0 ? static_cast<double>(result.tokens.size()) / result.seconds : 0;
        char rate_text[32];
        std::snprintf(rate_text, sizeof rate_text, rate < 10 ? "%.1f" : "%.0f", rate);
        streams.err << result.tokens.size() << " new tokens"
                    << (result.stopped_at_eos ? " (stopped at end-of-sequence)" : "") << " from "
                    << (result.run_id == 0 ? std::string("the base model")
                                           : "run " + std::to_string(result.run_id) + " step " +
                                                 std::to_string(result.step))
                    << ", " << rate_text << " tokens/s\n";
        return static_cast<int>(kExitSuccess);
    };
}

} // namespace headroom::cli
