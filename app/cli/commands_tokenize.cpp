#include "cli/commands.h"
#include "cli/exit_codes.h"

#include <headroom/tokenizer.h>
#include <headroom/workflow.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace headroom::cli {

namespace {

struct TokenizeOptions {
    std::string tokenizer;
    std::string text;
    bool no_special = false;
    bool json = false;
};

// A project file rather than a tokenizer folder or file: by its name, as `new` names them.
bool isProjectFile(const std::string &path) {
    const std::string suffix = ".headroom";
    return path.size() > suffix.size() &&
           path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The project's own tokenizer (byte or SentencePiece); errors reach the CLI's handler.
int tokenizeWithProjectFile(const TokenizeOptions &options, Streams streams) {
    const ProjectTokenization result = tokenizeWithProject(options.tokenizer, options.text);
    if (options.json) {
        const nlohmann::json out = {{"ids", result.ids},
                                    {"tokens", result.pieces},
                                    {"text", result.text},
                                    {"tokenizer", result.tokenizer}};
        streams.out << out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
        return static_cast<int>(kExitSuccess);
    }
    for (std::size_t i = 0; i < result.ids.size(); ++i) {
        streams.out << result.ids[i] << '\t' << result.pieces[i] << '\n';
    }
    streams.err << result.ids.size() << " tokens (" << result.tokenizer
                << " tokenizer of the project); decoded: " << result.text << '\n';
    return static_cast<int>(kExitSuccess);
}

} // namespace

CommandRunner addTokenizeCommand(CLI::App &app, Streams streams) {
    CLI::App *command = app.add_subcommand(
        "tokenize", "Encode a text with a Hugging Face tokenizer (tokenizer.json, "
                    "vocab.json + merges.txt, vocab.txt) and decode the ids back");
    auto options = std::make_shared<TokenizeOptions>();
    command
        ->add_option("--tokenizer", options->tokenizer,
                     "A folder with tokenizer.json (or vocab.json + merges.txt, or vocab.txt), "
                     "a tokenizer.json file, or a .headroom project (its own tokenizer)")
        ->required();
    command->add_option("--text", options->text, "The text to encode (UTF-8)")->required();
    command->add_flag("--no-special", options->no_special,
                      "Do not add the post-processor's special tokens (BOS, [CLS], ...)");
    command->add_flag("--json", options->json,
                      "Print one JSON object: {\"ids\":[...],\"tokens\":[...],\"text\":\"...\"}");
    return [streams, options]() {
        if (isProjectFile(options->tokenizer)) {
            return tokenizeWithProjectFile(*options, streams);
        }
        std::unique_ptr<HfTokenizer> tokenizer;
        TokenizedText encoded;
        try {
            tokenizer = std::make_unique<HfTokenizer>(HfTokenizer::load(options->tokenizer));
            encoded = tokenizer->encode(options->text, !options->no_special);
        } catch (const TokenizerError &error) {
            streams.err << "headroom-cli: " << error.what() << '\n';
            return static_cast<int>(kExitBadInput);
        }
        // Decoded as the reference decodes by default: special tokens kept.
        const std::string decoded = tokenizer->decode(encoded.ids, false);
        if (options->json) {
            nlohmann::json out;
            out["ids"] = encoded.ids;
            // Token strings can hold partial UTF-8 only through byte-fallback names, which are
            // ASCII; replace anything invalid rather than fail to print.
            out["tokens"] = encoded.pieces;
            out["text"] = decoded;
            streams.out << out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                        << '\n';
            return static_cast<int>(kExitSuccess);
        }
        for (std::size_t i = 0; i < encoded.ids.size(); ++i) {
            streams.out << encoded.ids[i] << '\t' << encoded.pieces[i] << '\n';
        }
        streams.err << encoded.ids.size() << " tokens; decoded: " << decoded << '\n';
        return static_cast<int>(kExitSuccess);
    };
}

} // namespace headroom::cli
