// Chat data throughput: conversations rendered with a real template (the chat reference's
// templates/NAME.json) and tokenized with its tokenizer.json, one at a time, single-threaded.
// Three paths: render only (what apply_chat_template does), render + tokenize (the ids), and
// the training path (render, find the learned spans, tokenize and mark them). Prints one JSON
// line of seconds (the best of ROUNDS) for chat_benchmark.sh.
// Usage: chat_benchmark TEMPLATE.json TOKENIZER.json CONVERSATIONS.jsonl ROUNDS
#include "chat/chat_tokens.h"
#include "tokenizers/hf_data_tokenizer.h"

#include <headroom/tokenizer.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

using namespace headroom;
using ordered_json = nlohmann::ordered_json;

namespace {

template <typename Work> double bestSeconds(int rounds, Work &&work) {
    double best = 1e300;
    for (int round = 0; round < rounds; ++round) {
        const auto started = std::chrono::steady_clock::now();
        work();
        best = std::min(
            best,
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    }
    return best;
}

} // namespace

int main(int argc, char **argv) {
    if (argc != 5) {
        std::cerr << "usage: chat_benchmark TEMPLATE.json TOKENIZER.json CONVERSATIONS.jsonl "
                     "ROUNDS\n";
        return 2;
    }
    std::ifstream template_file(argv[1]);
    const ordered_json description = ordered_json::parse(template_file);
    chat::TemplateSource source;
    source.text = description.at("chat_template").get<std::string>();
    for (const auto &[key, value] : description.at("special_tokens").items()) {
        if (value.is_string()) {
            source.special_tokens[key] = value;
        }
    }
    source.origin = argv[1];
    const chat::ChatTemplate chat_template(source);
    const tokenizers::HfDataTokenizer tokenizer(HfTokenizer::load(argv[2]), std::string(), 0);
    std::vector<chat::Conversation> conversations;
    std::ifstream lines(argv[3]);
    for (std::string line; std::getline(lines, line);) {
        conversations.push_back(chat::readConversation(ordered_json::parse(line)));
    }
    const int rounds = std::stoi(argv[4]);
    std::size_t bytes = 0;
    std::size_t tokens = 0;
    const double render = bestSeconds(rounds, [&] {
        bytes = 0;
        for (const chat::Conversation &conversation : conversations) {
            bytes += chat_template.render(conversation, false).text.size();
        }
    });
    const double render_tokenize = bestSeconds(rounds, [&] {
        tokens = 0;
        for (const chat::Conversation &conversation : conversations) {
            tokens += tokenizer.encode(chat_template.render(conversation, false).text).size();
        }
    });
    std::size_t trained = 0;
    const double training = bestSeconds(rounds, [&] {
        trained = 0;
        for (const chat::Conversation &conversation : conversations) {
            const chat::ChatTokens marked = chat::tokenizeTrainingText(
                tokenizer,
                chat::renderForTraining(chat_template, conversation, chat::TrainOn::Assistant));
            trained += static_cast<std::size_t>(
                std::count(marked.trained.begin(), marked.trained.end(), 1));
        }
    });
    std::cout << ordered_json{{"conversations", conversations.size()},
                              {"bytes", bytes},
                              {"tokens", tokens},
                              {"trained_tokens", trained},
                              {"render", render},
                              {"render_tokenize", render_tokenize},
                              {"training", training}}
                     .dump()
              << '\n';
    return 0;
}
