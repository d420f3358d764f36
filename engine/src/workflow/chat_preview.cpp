// previewChatFile: conversations rendered, tokenized and marked as training does.
#include "chat/chat_tokens.h"
#include "data/data_error.h"
#include "data/record_reader.h"
#include "hf/generation_defaults.h"
#include "hf/hf_error.h"
#include "tokenizers/hf_data_tokenizer.h"

#include <headroom/chat.h>
#include <headroom/config.h>
#include <headroom/tokenizer.h>

#include <filesystem>
#include <optional>

namespace headroom {

namespace {

namespace fs = std::filesystem;

std::string folderOf(const std::string &tokenizer_path) {
    std::error_code error;
    return fs::is_directory(tokenizer_path, error)
               ? tokenizer_path
               : fs::path(tokenizer_path).parent_path().string();
}

chat::TemplateSource templateFor(const ChatPreviewOptions &options, const std::string &folder) {
    try {
        if (options.chat_template.empty()) {
            if (auto found = hf::readChatTemplate(folder)) {
                return std::move(*found);
            }
            throw InputError(folder + " has no chat template (no chat_template in "
                                      "tokenizer_config.json, no chat_template.jinja): give one "
                                      "with --chat-template chatml or a template file");
        }
        chat::TemplateSource source = options.chat_template == "chatml"
                                          ? chat::chatmlTemplate()
                                          : hf::readChatTemplateFile(options.chat_template);
        source.special_tokens = hf::readSpecialTokenStrings(folder);
        return source;
    } catch (const hf::ModelFolderError &error) {
        throw InputError(error.what());
    }
}

chat::TrainingText withGenerationPrompt(const chat::ChatTemplate &chat_template,
                                        const chat::Conversation &conversation,
                                        chat::TrainingText trained) {
    std::string prompted = chat_template.render(conversation, true).text;
    if (prompted.compare(0, trained.text.size(), trained.text) != 0) {
        trained.trained.clear(); // the spans belong to a text this one does not start with
    }
    trained.text = std::move(prompted);
    return trained;
}

bool hasAssistant(const chat::Conversation &conversation) {
    for (const auto &message : conversation.messages) {
        if (message.at("role") == "assistant") {
            return true;
        }
    }
    return false;
}

} // namespace

void previewChatFile(const ChatPreviewOptions &options, const std::string &data_path,
                     const std::function<bool(const ChatRecordTokens &)> &each) {
    std::optional<tokenizers::HfDataTokenizer> tokenizer;
    try {
        tokenizer.emplace(HfTokenizer::load(options.tokenizer), std::string(), 0);
    } catch (const TokenizerError &error) {
        throw InputError(std::string("the tokenizer cannot be loaded: ") + error.what());
    }
    chat::TrainOn train_on = chat::TrainOn::Assistant;
    try {
        train_on = chat::parseTrainOn(options.train_on);
    } catch (const std::invalid_argument &error) {
        throw InputError(std::string("train_on: ") + error.what());
    }
    std::optional<chat::ChatTemplate> chat_template;
    try {
        chat_template.emplace(templateFor(options, folderOf(options.tokenizer)));
    } catch (const chat::ChatTemplateError &error) {
        throw InputError(error.what());
    }
    data::DataSpec spec;
    spec.path = data_path;
    spec.format = data::guessFormat(data_path) == data::Format::Json ? data::Format::Json
                                                                     : data::Format::Jsonl;
    spec.chat = true;
    spec.validation_fraction = 0;
    try {
        data::RecordReader reader(spec, true);
        data::Record record;
        while (reader.next(record)) {
            ChatRecordTokens result;
            result.line = record.line;
            result.template_origin = chat_template->origin();
            chat::TrainingText text;
            try {
                if (options.add_generation_prompt && !hasAssistant(*record.conversation)) {
                    text.text = chat_template->render(*record.conversation, true).text;
                } else {
                    text = chat::renderForTraining(*chat_template, *record.conversation, train_on);
                    if (options.add_generation_prompt) {
                        text = withGenerationPrompt(*chat_template, *record.conversation,
                                                    std::move(text));
                    }
                }
            } catch (const chat::ConversationError &error) {
                throw data::DataError(data_path, record.line, error.what());
            }
            chat::ChatTokens tokens = chat::tokenizeTrainingText(*tokenizer, text);
            for (const chat::ByteSpan &span : text.trained) {
                result.trained_spans.emplace_back(span.begin, span.end);
            }
            result.text = std::move(text.text);
            result.ids = std::move(tokens.ids);
            result.train = std::move(tokens.trained);
            for (const std::int32_t id : result.ids) {
                result.pieces.push_back(tokenizer->tokenizer().idToToken(id).value_or(""));
            }
            for (const chat::SpanMethod method : text.methods) {
                result.methods.push_back(chat::toString(method));
            }
            if (!each(result)) {
                return;
            }
        }
    } catch (const data::DataError &error) {
        throw InputError(error.what());
    }
}

} // namespace headroom
