// Conversation data: records read as conversations (OpenAI messages, ShareGPT), rendered with a
// chat template, the learned bytes found (generation blocks, the prefix rule, the fallback for
// templates that render earlier turns differently) and streamed as examples whose trained-token
// mask marks exactly the assistant's replies and end-of-turns.
#include "chat/chat_tokens.h"
#include "data/data_error.h"
#include "data/example_stream.h"
#include "sample_files.h"
#include "tokenizers/tokenizer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <memory>
#include <string>
#include <vector>

using namespace headroom;
using data::DataSpec;
using data::Format;
using ordered_json = nlohmann::ordered_json;
using test_support::writeFile;

namespace {

chat::Conversation conversationOf(const std::string &record) {
    return chat::readConversation(ordered_json::parse(record));
}

std::string trainedText(const chat::TrainingText &text) {
    std::string joined;
    for (const chat::ByteSpan &span : text.trained) {
        joined += "[" + text.text.substr(span.begin, span.end - span.begin) + "]";
    }
    return joined;
}

std::shared_ptr<const chat::ChatData> chatml(chat::TrainOn train_on = chat::TrainOn::Assistant) {
    return std::make_shared<const chat::ChatData>(
        chat::ChatData{chat::ChatTemplate(chat::chatmlTemplate()), train_on});
}

constexpr const char *kTwoTurns =
    R"({"messages": [{"role": "system", "content": "Be brief."},
                    {"role": "user", "content": "Hi"},
                    {"role": "assistant", "content": "Hello!"},
                    {"role": "user", "content": "Bye"},
                    {"role": "assistant", "content": "See you."}]})";

// A record as one JSONL line.
std::string jsonLine(const char *record) {
    return ordered_json::parse(record).dump() + "\n";
}

} // namespace

class TestChatData : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void readsOpenAiAndShareGpt();
    void refusesBadConversations_data();
    void refusesBadConversations();
    void chatmlRendersTurns();
    void prefixRuleTrainsRepliesAndEndOfTurn();
    void trainOnChoices();
    void fallbackWhenEarlierTurnsRenderDifferently();
    void generationBlocksMarkTheReplies();
    void templateRefusalIsItsOwnMessage();
    void streamMasksEverythingButTheReplies();
    void longConversationsAreCutAfterAWholeReply();
    void streamRefusesRecordsItCannotRender();
    void savedPositionKeepsTheMask();
    void dataCheckPreviewsConversations();

private:
    DataSpec spec(const std::string &content, std::int64_t seq_len = 256) {
        DataSpec s;
        s.path = writeFile(dir_, QString("chat%1.jsonl").arg(++files_), content);
        s.format = Format::Jsonl;
        s.validation_fraction = 0;
        s.shuffle_buffer = 1;
        s.seq_len = seq_len;
        s.chat = true;
        s.chat_data = chatml();
        return s;
    }

    QTemporaryDir dir_;
    int files_ = 0;
    std::unique_ptr<data::Tokenizer> bytes_ = data::makeByteTokenizer();
};

void TestChatData::readsOpenAiAndShareGpt() {
    const chat::Conversation openai = conversationOf(
        R"({"messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]},
                         {"role": "assistant", "content": null,
                          "tool_calls": [{"type": "function",
                                          "function": {"name": "f", "arguments": {}}}]}],
            "tools": [{"type": "function", "function": {"name": "f"}}],
            "chat_template_kwargs": {"enable_thinking": false}})");
    QCOMPARE(openai.messages.size(), std::size_t{2});
    QCOMPARE(openai.tools.size(), std::size_t{1});
    QCOMPARE(openai.template_kwargs.at("enable_thinking").get<bool>(), false);

    const chat::Conversation sharegpt = conversationOf(
        R"({"conversations": [{"from": "system", "value": "S"}, {"from": "human", "value": "Q"},
                              {"from": "gpt", "value": "A"}]})");
    QCOMPARE(sharegpt.messages.dump(),
             std::string(R"([{"role":"system","content":"S"},{"role":"user","content":"Q"},)"
                         R"({"role":"assistant","content":"A"}])"));
    QCOMPARE(chat::messageTexts(sharegpt), std::string("S\nQ\nA"));
}

void TestChatData::refusesBadConversations_data() {
    QTest::addColumn<QString>("record");
    QTest::addColumn<QString>("problem");
    QTest::newRow("unknown role") << R"({"messages": [{"role": "bot", "content": "x"}]})"
                                  << R"(message 1: unknown role "bot")";
    QTest::newRow("no content") << R"({"messages": [{"role": "user"}]})"
                                << "message 1: the user message has no \"content\"";
    QTest::newRow("image part")
        << R"({"messages": [{"role": "user", "content": [{"type": "image", "url": "a"}]}]})"
        << "content part 1 is of type \"image\"";
    QTest::newRow("empty") << R"({"messages": []})"
                           << "the conversation has no messages";
    QTest::newRow("tools not a list")
        << R"({"messages": [{"role": "user", "content": "x"}], "tools": {}})"
        << "\"tools\" is a object";
    QTest::newRow("sharegpt speaker")
        << R"({"conversations": [{"from": "narrator", "value": "x"}]})"
        << "message 1: unknown speaker \"narrator\"";
    QTest::newRow("user tool call")
        << R"({"messages": [{"role": "user", "content": "x", "tool_calls": []}]})"
        << "only assistant messages carry \"tool_calls\"";
}

void TestChatData::refusesBadConversations() {
    QFETCH(QString, record);
    QFETCH(QString, problem);
    try {
        conversationOf(record.toStdString());
        QFAIL("accepted");
    } catch (const chat::ConversationError &error) {
        QVERIFY2(QString::fromUtf8(error.what()).contains(problem), error.what());
    }
}

void TestChatData::chatmlRendersTurns() {
    const chat::ChatTemplate chat_template(chat::chatmlTemplate());
    const chat::Conversation conversation = conversationOf(kTwoTurns);
    QCOMPARE(chat_template.render(conversation, 2, true).text,
             std::string("<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>"
                         "\n<|im_start|>assistant\n"));
    QCOMPARE(chat_template.endOfTurn(), std::string("<|im_end|>\n"));
}

void TestChatData::prefixRuleTrainsRepliesAndEndOfTurn() {
    const chat::ChatTemplate chat_template(chat::chatmlTemplate());
    const chat::TrainingText text =
        chat::renderForTraining(chat_template, conversationOf(kTwoTurns), chat::TrainOn::Assistant);
    QCOMPARE(trainedText(text), std::string("[Hello!<|im_end|>\n][See you.<|im_end|>\n]"));
    QVERIFY(text.methods ==
            (std::vector<chat::SpanMethod>{chat::SpanMethod::Prefix, chat::SpanMethod::Prefix}));
}

void TestChatData::trainOnChoices() {
    const chat::ChatTemplate chat_template(chat::chatmlTemplate());
    const chat::Conversation conversation = conversationOf(kTwoTurns);
    QCOMPARE(trainedText(chat::renderForTraining(chat_template, conversation,
                                                 chat::TrainOn::LastAssistant)),
             std::string("[See you.<|im_end|>\n]"));
    const chat::TrainingText all =
        chat::renderForTraining(chat_template, conversation, chat::TrainOn::All);
    QCOMPARE(trainedText(all), "[" + all.text + "]");
    QVERIFY(chat::parseTrainOn("last_assistant") == chat::TrainOn::LastAssistant);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, chat::parseTrainOn("everything"));
}

void TestChatData::fallbackWhenEarlierTurnsRenderDifferently() {
    // As Qwen3 drops earlier turns' reasoning, this template writes "(last)" only in the final
    // turn: rendering up to an earlier reply is no prefix of the whole conversation.
    chat::TemplateSource source;
    source.origin = "test";
    source.text = "{% for m in messages %}<{{ m.role }}>{% if loop.last %}(last){% endif %}"
                  "{{ m.content }}</s>\n{% endfor %}{% if add_generation_prompt %}<assistant>"
                  "{% endif %}";
    const chat::ChatTemplate chat_template(source);
    const chat::TrainingText text = chat::renderForTraining(
        chat_template, conversationOf(R"({"messages": [{"role": "user", "content": "a"},
                                        {"role": "assistant", "content": "bb"},
                                        {"role": "user", "content": "c"},
                                        {"role": "assistant", "content": "dd"}]})"),
        chat::TrainOn::Assistant);
    QCOMPARE(chat_template.endOfTurn(), std::string("</s>\n"));
    // Each reply as the whole conversation holds it, with the end-of-turn; "(last)" is the
    // template's, not the reply's.
    QCOMPARE(trainedText(text), std::string("[bb</s>\n][dd</s>\n]"));
    QVERIFY(text.methods == (std::vector<chat::SpanMethod>{chat::SpanMethod::Fallback,
                                                           chat::SpanMethod::Fallback}));
}

void TestChatData::generationBlocksMarkTheReplies() {
    chat::TemplateSource source;
    source.origin = "test";
    source.text = "{% for m in messages %}{% if m.role == 'assistant' %}A: {% generation %}"
                  "{{ m.content }};{% endgeneration %}\n{% else %}U: {{ m.content }}\n{% endif %}"
                  "{% endfor %}";
    const chat::ChatTemplate chat_template(source);
    QVERIFY(chat_template.hasGenerationBlocks());
    const chat::TrainingText text = chat::renderForTraining(
        chat_template, conversationOf(R"({"messages": [{"role": "user", "content": "q"},
                                        {"role": "assistant", "content": "r1"},
                                        {"role": "user", "content": "q2"},
                                        {"role": "assistant", "content": "r2"}]})"),
        chat::TrainOn::Assistant);
    QCOMPARE(trainedText(text), std::string("[r1;][r2;]"));
    QVERIFY(text.methods.front() == chat::SpanMethod::Generation);
}

void TestChatData::templateRefusalIsItsOwnMessage() {
    chat::TemplateSource source;
    source.origin = "test";
    source.text = "{% if messages[0].role != 'user' %}{{ raise_exception('Conversation roles must "
                  "start with user') }}{% endif %}{% for m in messages %}{{ m.content }}{% endfor "
                  "%}";
    const chat::ChatTemplate chat_template(source);
    try {
        chat_template.render(conversationOf(R"({"messages": [{"role": "assistant",
                                                              "content": "x"}]})"),
                             false);
        QFAIL("rendered");
    } catch (const chat::ConversationError &error) {
        QCOMPARE(std::string(error.what()),
                 std::string("the chat template refuses it: Conversation roles must start with "
                             "user"));
    }
    chat::TemplateSource broken = source;
    broken.text = "{% for m in messages %}";
    QVERIFY_THROWS_EXCEPTION(chat::ChatTemplateError, chat::ChatTemplate{broken});
}

void TestChatData::streamMasksEverythingButTheReplies() {
    const DataSpec s = spec(jsonLine(kTwoTurns));
    data::ExampleStream stream(s, data::Split::Train, bytes_.get(), nullptr);
    data::Example example;
    QVERIFY(stream.next(example));
    QCOMPARE(example.tokens.size(), std::size_t{257});
    QCOMPARE(example.trained.size(), example.tokens.size());
    // The byte tokenizer makes one token per byte: the trained tokens spell the replies.
    std::string learned;
    for (std::size_t i = 0; i < example.tokens.size(); ++i) {
        if (example.trained[i] != 0) {
            learned.push_back(static_cast<char>(example.tokens[i]));
        }
    }
    QCOMPARE(learned, std::string("Hello!<|im_end|>\nSee you.<|im_end|>\n"));
    QCOMPARE(example.tokens.back(), bytes_->endOfTextId()); // padding
    QCOMPARE(example.trained.back(), std::uint8_t{0});
}

void TestChatData::longConversationsAreCutAfterAWholeReply() {
    // The first turn ends at byte 88 of the rendering; a 100-token window keeps it whole and
    // drops the second, which would be cut mid-reply.
    const chat::ChatTemplate chat_template(chat::chatmlTemplate());
    const std::string first_turn = chat_template.render(conversationOf(kTwoTurns), 3, false).text;
    const auto window = static_cast<std::int64_t>(first_turn.size()) + 10;
    const DataSpec s = spec(jsonLine(kTwoTurns), window - 1);
    data::ExampleStream stream(s, data::Split::Train, bytes_.get(), nullptr);
    data::Example example;
    QVERIFY(stream.next(example));
    QCOMPARE(example.tokens.size(), static_cast<std::size_t>(window));
    const std::string kept(example.tokens.begin(), example.tokens.begin() + first_turn.size());
    QCOMPARE(kept, first_turn);
    for (std::size_t i = first_turn.size(); i < example.tokens.size(); ++i) {
        QCOMPARE(example.tokens[i], bytes_->endOfTextId());
        QCOMPARE(example.trained[i], std::uint8_t{0});
    }
}

void TestChatData::streamRefusesRecordsItCannotRender() {
    const auto refusal = [this](const std::string &content, DataSpec s) {
        s.path = writeFile(dir_, QString("bad%1.jsonl").arg(++files_), content);
        try {
            data::ExampleStream stream(s, data::Split::Train, bytes_.get(), nullptr);
            data::Example example;
            for (int i = 0; i < 3; ++i) {
                stream.next(example);
            }
        } catch (const data::DataError &error) {
            return std::string(error.what());
        }
        return std::string("no error");
    };
    DataSpec s = spec("");
    const std::string no_reply =
        refusal(jsonLine(kTwoTurns) + "{\"messages\": [{\"role\": \"user\", \"content\": "
                                      "\"x\"}]}\n",
                s);
    QVERIFY2(no_reply.find(":2:") != std::string::npos &&
                 no_reply.find("no assistant message") != std::string::npos,
             no_reply.c_str());
    const std::string plain = refusal(jsonLine(kTwoTurns) + "{\"text\": \"x\"}\n", s);
    QVERIFY2(plain.find(":2:") != std::string::npos &&
                 plain.find("expected a conversation") != std::string::npos,
             plain.c_str());
    DataSpec no_template = s;
    no_template.chat_data.reset();
    const std::string missing = refusal(jsonLine(kTwoTurns), no_template);
    QVERIFY2(missing.find("data.chat_template") != std::string::npos, missing.c_str());
}

void TestChatData::savedPositionKeepsTheMask() {
    std::string content;
    for (int i = 0; i < 6; ++i) {
        content += R"({"messages": [{"role": "user", "content": "q)" + std::to_string(i) +
                   R"("}, {"role": "assistant", "content": "answer )" + std::to_string(i) +
                   "\"}]}\n";
    }
    DataSpec s = spec(content, 63);
    s.shuffle_buffer = 4;
    data::ExampleStream stream(s, data::Split::Train, bytes_.get(), nullptr);
    data::Example example;
    QVERIFY(stream.next(example));
    const std::string state = stream.saveState();
    std::vector<data::Example> expected;
    for (int i = 0; i < 8; ++i) {
        QVERIFY(stream.next(example));
        expected.push_back(example);
    }
    data::ExampleStream resumed(s, data::Split::Train, bytes_.get(), nullptr);
    resumed.restoreState(state);
    for (const data::Example &want : expected) {
        QVERIFY(resumed.next(example));
        QCOMPARE(example.id, want.id);
        QCOMPARE(example.tokens, want.tokens);
        QCOMPARE(example.trained, want.trained);
    }
    // Another template changes which tokens are learned: the position does not fit it.
    DataSpec other = s;
    other.chat_data = chatml(chat::TrainOn::All);
    data::ExampleStream changed(other, data::Split::Train, bytes_.get(), nullptr);
    QVERIFY_THROWS_EXCEPTION(data::DataError, changed.restoreState(state));
}

void TestChatData::dataCheckPreviewsConversations() {
    const data::DataSummary summary = data::inspectData(spec(jsonLine(kTwoTurns)));
    QCOMPARE(summary.records, std::int64_t{1});
    QCOMPARE(summary.preview.front(),
             std::string("system: Be brief. | user: Hi | assistant: Hello! | user: Bye | "
                         "assistant: See you."));
}

QTEST_APPLESS_MAIN(TestChatData)
#include "test_chat_data.moc"
