// generateText: continue a prompt with a run's weights, a pretrained base as
// imported, or a GPT trained from scratch.
#include "chat/chat_tokens.h"
#include "hf/architecture_config.h"
#include "hf/generation_defaults.h"
#include "hf/model_folder.h"
#include "models/causal_lm.h"
#include "models/generation.h"
#include "models/gpt.h"
#include "tokenizers/hf_data_tokenizer.h"
#include "util/text.h"
#include "workflow/run_model.h"

#include <headroom/config.h>
#include <headroom/pretrained.h>
#include <headroom/project.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <optional>

namespace headroom {

namespace {

void validateRequest(const GenerateRequest &request) {
    if (!request.chat.empty()) {
        if (!request.prompt.empty()) {
            throw InputError("give either a prompt to continue or a chat, not both");
        }
        for (const ChatTurn &turn : request.chat) {
            if (turn.role != "system" && turn.role != "user" && turn.role != "assistant") {
                throw InputError("chat turn role \"" + turn.role +
                                 "\" is not system, user or assistant");
            }
        }
        if (request.chat.back().role != "user") {
            throw InputError("the chat must end with the user's turn, which the model answers");
        }
    } else if (request.prompt.empty()) {
        throw InputError("the prompt is empty: give the text to continue");
    }
    if (request.max_tokens < 1 || request.max_tokens > 1000000) {
        throw InputError("--max-tokens must be between 1 and 1000000, got " +
                         std::to_string(request.max_tokens));
    }
    if (request.temperature && !(*request.temperature >= 0 && *request.temperature <= 100)) {
        throw InputError("--temperature must be between 0 (greedy) and 100");
    }
    if (request.top_k && *request.top_k < 0) {
        throw InputError("--top-k must be 0 (off) or more");
    }
    if (request.top_p && !(*request.top_p > 0 && *request.top_p <= 1)) {
        throw InputError("--top-p must be in (0, 1]");
    }
}

// Decoded text grows token by token; a token may end inside a UTF-8 character,
// so only text that does not end in a replacement character is passed on.
class TextStream {
public:
    TextStream(const data::Tokenizer &tokenizer, const tokenizers::HfDataTokenizer *hf,
               const std::function<void(const std::string &)> &sink)
        : tokenizer_(tokenizer), hf_(hf), sink_(sink) {}

    std::string decode(const std::vector<std::int32_t> &ids) const {
        return hf_ != nullptr ? hf_->tokenizer().decode(ids, /*skip_special_tokens=*/true)
                              : tokenizer_.decode(ids);
    }

    // A token's text can depend on the one before it (a leading space, the bytes of one UTF-8
    // character split over tokens), so each new piece is the decoding of a window that starts
    // one piece back, less the decoding of that earlier part (text-generation-inference's
    // scheme): two short decodes a token, where decoding everything each token was quadratic.
    void add(std::int32_t id) {
        ids_.push_back(id);
        if (!sink_) {
            return;
        }
        const auto first = ids_.begin() + static_cast<std::ptrdiff_t>(prefix_);
        const std::string before = decode(
            std::vector<std::int32_t>(first, ids_.begin() + static_cast<std::ptrdiff_t>(read_)));
        const std::string text = decode(std::vector<std::int32_t>(first, ids_.end()));
        static const std::string replacement = "\xEF\xBF\xBD";
        const bool incomplete =
            text.size() >= 3 && text.compare(text.size() - 3, 3, replacement) == 0;
        if (!incomplete && text.size() > before.size() &&
            text.compare(0, before.size(), before) == 0) {
            sink_(text.substr(before.size()));
            prefix_ = read_;
            read_ = ids_.size();
        }
    }

private:
    const data::Tokenizer &tokenizer_;
    const tokenizers::HfDataTokenizer *hf_;
    const std::function<void(const std::string &)> &sink_;
    std::vector<std::int32_t> ids_;
    std::size_t prefix_ = 0; // the window to decode starts here
    std::size_t read_ = 0;   // ids before this have been sent
};

// The conversation rendered with the project's template, ending with the assistant's header.
struct ChatPrompt {
    std::string text;
    std::string end_of_turn; // the template's end-of-turn without trailing whitespace
};

ChatPrompt renderChat(const GenerateRequest &request, const workflow::RunModel &source,
                      const std::string &project_path) {
    std::optional<chat::ChatTemplate> chat_template;
    try {
        if (source.prepared.spec.chat_data) {
            chat_template.emplace(source.prepared.spec.chat_data->chat_template);
        } else {
            chat_template.emplace(
                train::chatTemplateSource(source.config, source.prepared, project_path));
        }
    } catch (const ConfigError &error) {
        throw InputError(std::string("cannot chat: ") + error.what());
    } catch (const chat::ChatTemplateError &error) {
        throw InputError(std::string("cannot chat: ") + error.what());
    }
    chat::Conversation conversation;
    for (const ChatTurn &turn : request.chat) {
        conversation.messages.push_back({{"role", turn.role}, {"content", turn.content}});
    }
    ChatPrompt prompt;
    try {
        prompt.text = chat_template->render(conversation, true).text;
    } catch (const chat::ConversationError &error) {
        throw InputError(error.what());
    }
    prompt.end_of_turn = chat_template->endOfTurn();
    while (!prompt.end_of_turn.empty() &&
           std::isspace(static_cast<unsigned char>(prompt.end_of_turn.back()))) {
        prompt.end_of_turn.pop_back();
    }
    return prompt;
}

} // namespace

GenerateResult generateText(const GenerateRequest &request,
                            const std::function<void(const std::string &)> &on_text,
                            const std::atomic<bool> *stop) {
    validateRequest(request);
    Project project = Project::openForReading(request.project_path);
    {
        const Config config = Config::fromJson(project.configJson());
        if (!config.isLanguageModel()) {
            throw InputError(request.project_path + " is a recipe=" + config.text("recipe") +
                             " project: only language models generate text");
        }
    }
    workflow::RunModel source = workflow::loadRunModel(project, request.run_id);
    const train::PreparedData &prepared = source.prepared;
    const std::unique_ptr<train::Recipe> &recipe = source.recipe;
    const torch::Device cpu(torch::kCPU);

    const auto *hf = dynamic_cast<const tokenizers::HfDataTokenizer *>(prepared.tokenizer.get());
    models::SamplingOptions sampling;
    sampling.max_new_tokens = request.max_tokens;
    sampling.seed = request.seed;
    std::vector<std::int32_t> prompt_ids;
    ChatPrompt chat_prompt;
    if (!request.chat.empty()) {
        chat_prompt = renderChat(request, source, request.project_path);
    }
    try {
        if (!request.chat.empty()) {
            // The template writes the special tokens (BOS included) itself.
            prompt_ids = hf != nullptr ? hf->tokenizer().encodeIds(chat_prompt.text, false)
                                       : prepared.tokenizer->encode(chat_prompt.text);
        } else {
            prompt_ids = hf != nullptr ? hf->tokenizer().encodeIds(request.prompt, true)
                                       : prepared.tokenizer->encode(request.prompt);
        }
    } catch (const TokenizerError &error) {
        throw InputError(std::string("the prompt: ") + error.what());
    }
    if (prepared.base) {
        const hf::ModelFolder &folder = *prepared.base;
        const hf::ArchitectureConfig architecture = hf::readArchitectureConfig(folder.config_path);
        const hf::GenerationDefaults defaults = hf::readGenerationDefaults(folder, architecture);
        sampling.eos_ids = defaults.eos_token_ids;
        if (defaults.do_sample.value_or(false)) {
            sampling.temperature = defaults.temperature.value_or(1.0);
            sampling.top_k = defaults.top_k.value_or(50);
            sampling.top_p = defaults.top_p.value_or(1.0);
        }
    } else {
        sampling.eos_ids = {prepared.tokenizer->endOfTextId()};
    }
    if (hf != nullptr && !chat_prompt.end_of_turn.empty()) {
        if (const auto id = hf->tokenizer().tokenToId(chat_prompt.end_of_turn)) {
            sampling.eos_ids.push_back(*id);
        }
    }
    sampling.temperature = request.temperature.value_or(sampling.temperature);
    sampling.top_k = request.top_k.value_or(sampling.top_k);
    sampling.top_p = request.top_p.value_or(sampling.top_p);

    std::unique_ptr<models::NextTokenLogits> logits;
    if (auto *language_model = dynamic_cast<models::CausalLmImpl *>(recipe->module().get())) {
        logits = models::causalLmLogits(*language_model, cpu);
    } else {
        logits = models::gptLogits(*dynamic_cast<models::GptImpl *>(recipe->module().get()), cpu);
    }
    GenerateResult result;
    result.run_id = source.run_id;
    result.step = source.step;
    result.prompt_tokens = prompt_ids;
    TextStream stream(*prepared.tokenizer, hf, on_text);
    const auto started = std::chrono::steady_clock::now();
    std::vector<std::int64_t> generated;
    // A chat also stops where the text ends with the end-of-turn (a byte or SentencePiece
    // tokenizer spells "<|im_end|>" in several tokens).
    std::atomic<bool> halt{false};
    std::vector<std::int32_t> so_far;
    const auto on_token = [&](std::int64_t id) {
        stream.add(static_cast<std::int32_t>(id));
        if (stop != nullptr && stop->load()) {
            halt = true;
        }
        if (!chat_prompt.end_of_turn.empty()) {
            so_far.push_back(static_cast<std::int32_t>(id));
            if (util::endsWith(prepared.tokenizer->decode(std::vector<std::int32_t>(
                                   so_far.end() - std::min<std::ptrdiff_t>(
                                                      static_cast<std::ptrdiff_t>(so_far.size()),
                                                      static_cast<std::ptrdiff_t>(
                                                          chat_prompt.end_of_turn.size())),
                                   so_far.end())),
                               chat_prompt.end_of_turn)) {
                halt = true;
            }
        }
    };
    try {
        generated = models::generateTokens(
            *logits, std::vector<std::int64_t>(prompt_ids.begin(), prompt_ids.end()), sampling,
            on_token, &halt);
    } catch (const std::invalid_argument &error) {
        throw InputError(std::string("the prompt: ") + error.what());
    }
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    result.tokens.assign(generated.begin(), generated.end());
    result.stopped_at_eos =
        !generated.empty() && std::find(sampling.eos_ids.begin(), sampling.eos_ids.end(),
                                        generated.back()) != sampling.eos_ids.end();
    result.text = stream.decode(result.tokens);
    if (!chat_prompt.end_of_turn.empty() && util::endsWith(result.text, chat_prompt.end_of_turn)) {
        result.text.resize(result.text.size() - chat_prompt.end_of_turn.size());
        result.stopped_at_eos = true;
    }
    return result;
}

} // namespace headroom
