#include "cli/commands.h"
#include "cli/exit_codes.h"

#include <headroom/chat.h>
#include <headroom/token_preview.h>
#include <headroom/tokenizer.h>
#include <headroom/workflow.h>

#include <CLI/CLI.hpp>
#include <iomanip>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace headroom::cli {

namespace {

struct TokenizeOptions {
    std::string tokenizer;
    std::string text;
    std::string file;
    std::int64_t seq_len = 0;
    bool no_special = false;
    bool json = false;
    std::string chat;
    ChatPreviewOptions chat_options;
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

nlohmann::json statsJson(const TokenPreview &preview) {
    const TokenCountStats &stats = preview.stats;
    nlohmann::json out = {
        {"tokenizer", preview.tokenizer},
        {"vocab_size", preview.vocab_size},
        {"trained_on_sample", preview.trained_on_sample},
        {"records", stats.records},
        {"bytes", stats.bytes},
        {"whole_file", stats.whole_file},
        {"instruction", stats.instruction},
        {"pairs", stats.pairs},
        {"tokens", stats.tokens},
        {"tokens_per_record",
         {{"mean", stats.mean}, {"median", stats.median}, {"p95", stats.p95}, {"max", stats.max}}},
        {"characters_per_token", stats.characters_per_token},
        {"seq_len", stats.seq_len},
        {"longer_than_window", stats.longer_than_window}};
    if (stats.instruction && stats.seq_len > 0) {
        out["padding"] = {{"unpacked", stats.padding_unpacked}, {"packed", stats.padding_packed}};
    }
    if (!preview.samples.empty()) {
        const TokenizedSample &sample = preview.samples.front();
        nlohmann::json ids = nlohmann::json::array();
        nlohmann::json pieces = nlohmann::json::array();
        for (const PreviewToken &token : sample.tokens) {
            ids.push_back(token.id);
            pieces.push_back(token.piece);
        }
        out["sample"] = {{"line", sample.line},
                         {"ids", ids},
                         {"tokens", pieces},
                         {"prompt_tokens", sample.prompt_tokens},
                         {"total_tokens", sample.total_tokens},
                         {"rejected", sample.rejected}};
    }
    return out;
}

void printStats(const TokenPreview &preview, std::ostream &out) {
    const TokenCountStats &stats = preview.stats;
    // A preference pair is two sequences: the statistics are per sequence.
    const char *unit = stats.pairs ? "sequence" : stats.instruction ? "record" : "line";
    out << "tokenizer: " << preview.tokenizer << " (vocabulary " << preview.vocab_size
        << (preview.trained_on_sample ? ", trained on these records only" : "") << ")\n"
        << stats.records << (stats.pairs ? " preference pairs" : std::string(" ") + unit + "s")
        << " read (" << stats.bytes << " bytes"
        << (stats.whole_file ? ", the whole file" : ", the start of the file") << ")\n"
        << std::fixed << std::setprecision(1) << "tokens per " << unit << ": mean " << stats.mean
        << ", median " << stats.median << ", p95 " << stats.p95 << ", max " << stats.max << '\n'
        << std::setprecision(2) << "characters per token: " << stats.characters_per_token << '\n';
    if (stats.seq_len > 0) {
        out << stats.longer_than_window << ' ' << unit << "s longer than one training window ("
            << stats.seq_len << " + 1 tokens)\n";
    }
    if (stats.pairs && stats.seq_len > 0) {
        out << std::setprecision(1) << "padding: " << 100.0 * stats.padding_unpacked
            << " % of the tokens computed, each sequence a row padded to the longest of its "
               "batch (pairs are not packed)\n";
    } else if (stats.instruction && stats.seq_len > 0) {
        out << std::setprecision(1) << "padding: " << 100.0 * stats.padding_unpacked
            << " % of the tokens computed one record per row, " << 100.0 * stats.padding_packed
            << " % packed (data.packing=1)\n";
    }
}

int tokenizeFile(const TokenizeOptions &options, Streams streams) {
    const TokenPreview preview =
        previewTokensWith(options.tokenizer, options.file, options.seq_len);
    if (options.json) {
        streams.out << statsJson(preview).dump(-1, ' ', false,
                                               nlohmann::json::error_handler_t::replace)
                    << '\n';
    } else {
        printStats(preview, streams.out);
    }
    return static_cast<int>(kExitSuccess);
}

int tokenizeChat(TokenizeOptions &options, Streams streams) {
    options.chat_options.tokenizer = options.tokenizer;
    std::int64_t records = 0;
    std::int64_t trained_total = 0;
    std::int64_t tokens_total = 0;
    std::int64_t longer = 0;
    previewChatFile(options.chat_options, options.chat, [&](const ChatRecordTokens &record) {
        ++records;
        tokens_total += static_cast<std::int64_t>(record.ids.size());
        std::int64_t trained = 0;
        for (const std::uint8_t flag : record.train) {
            trained += flag;
        }
        trained_total += trained;
        if (options.seq_len > 0 &&
            static_cast<std::int64_t>(record.ids.size()) > options.seq_len + 1) {
            ++longer;
        }
        if (options.json) {
            nlohmann::json out;
            out["line"] = record.line;
            out["text"] = record.text;
            out["ids"] = record.ids;
            out["train"] = record.train;
            out["methods"] = record.methods;
            streams.out << out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                        << '\n';
            return true;
        }
        streams.out << "── line " << record.line << ": " << record.ids.size() << " tokens, "
                    << trained << " trained (⟦…⟧) ──\n";
        std::size_t at = 0;
        for (const auto &[begin, end] : record.trained_spans) {
            streams.out << record.text.substr(at, begin - at) << "⟦"
                        << record.text.substr(begin, end - begin) << "⟧";
            at = end;
        }
        streams.out << record.text.substr(at) << '\n';
        return true;
    });
    streams.err << records << " conversations, " << tokens_total << " tokens, " << trained_total
                << " trained\n";
    if (options.seq_len > 0) {
        streams.err << longer << " conversations longer than one training window ("
                    << options.seq_len
                    << " + 1 tokens): training cuts them after the last reply that fits\n";
    }
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
    CLI::Option *text = command->add_option("--text", options->text, "The text to encode (UTF-8)");
    CLI::Option *file =
        command->add_option("--file", options->file,
                            "A text or JSONL data file: tokens-per-line statistics over its "
                            "first 1000 records (at most 4 MiB), tokenized as training does");
    CLI::Option *chat = command->add_option(
        "--chat", options->chat,
        "A JSONL or JSON file of conversations (\"messages\" or ShareGPT \"conversations\"): "
        "each rendered with the chat template and tokenized as training does, the learned "
        "tokens marked");
    text->excludes(file);
    chat->excludes(text);
    chat->excludes(file);
    command
        ->add_option("--chat-template", options->chat_options.chat_template,
                     "With --chat: chatml, or a .jinja / tokenizer_config.json file (default: "
                     "the tokenizer folder's template)")
        ->needs(chat);
    command
        ->add_option("--train-on", options->chat_options.train_on,
                     "With --chat: assistant (default), last_assistant or all")
        ->check(CLI::IsMember({"assistant", "last_assistant", "all"}))
        ->needs(chat);
    command
        ->add_flag("--add-generation-prompt", options->chat_options.add_generation_prompt,
                   "With --chat: end with the assistant's header, as for generation")
        ->needs(chat);
    command->add_flag("--stats", "With --file: print the statistics (the default)")->needs(file);
    command
        ->add_option("--seq-len", options->seq_len,
                     "With --file or --chat: count the records longer than this context (with "
                     "--file a project's model.seq_len by default)")
        ->check(CLI::PositiveNumber);
    command->add_flag("--no-special", options->no_special,
                      "Do not add the post-processor's special tokens (BOS, [CLS], ...)");
    command->add_flag("--json", options->json,
                      "Print one JSON object: {\"ids\":[...],\"tokens\":[...],\"text\":\"...\"}, "
                      "with --file the statistics, with --chat one line per record "
                      "{\"text\",\"ids\",\"train\",...}");
    return [streams, options, text, file, chat]() {
        if (!*text && !*file && !*chat) {
            streams.err << "headroom-cli: tokenize needs --text, --file or --chat\n";
            return static_cast<int>(kExitBadInput);
        }
        if (*chat) {
            return tokenizeChat(*options, streams);
        }
        if (options->seq_len > 0 && !*file) {
            streams.err << "headroom-cli: --seq-len works with --file or --chat\n";
            return static_cast<int>(kExitBadInput);
        }
        if (*file) {
            return tokenizeFile(*options, streams);
        }
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
