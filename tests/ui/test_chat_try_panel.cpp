// The Try tab's chat: every message sends the whole conversation (system prompt first) to the
// model, the reply streams into the transcript and joins the history; Send waits while a reply
// is on its way, Stop keeps what was written, Clear forgets; a failed reply names the engine's
// problem and leaves the conversation as it was. The model is a stand-in function, except where
// the Try tab picks chat for a project whose base has a chat template.
#include "sample_files.h"
#include "tiny_hf_model.h"
#include "views/ChatTryPanel.h"
#include "views/TryView.h"

#include <headroom/config.h>
#include <headroom/workflow.h>

#include <QComboBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextEdit>
#include <QTextFrame>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>

using headroom::ChatTurn;
using headroom::GenerateRequest;
using headroom::GenerateResult;
using headroom::ui::ChatTryPanel;
using headroom::ui::TryView;

namespace {
constexpr int kTimeout = 30000;

// A model that answers with fixed pieces, or fails, or holds its reply until stopped.
struct FakeModel {
    std::mutex mutex;
    std::vector<GenerateRequest> requests;
    std::vector<std::string> pieces{"Hel", "lo"};
    std::string failure; // thrown as InputError when set
    std::atomic<bool> hold{false};

    std::vector<GenerateRequest> seen() {
        const std::lock_guard<std::mutex> lock(mutex);
        return requests;
    }
};

ChatTryPanel::GenerateFunction answeredBy(const std::shared_ptr<FakeModel> &model) {
    return [model](const GenerateRequest &request, const ChatTryPanel::TextCallback &on_text,
                   const std::atomic<bool> *stop) {
        {
            const std::lock_guard<std::mutex> lock(model->mutex);
            model->requests.push_back(request);
        }
        if (!model->failure.empty()) {
            throw headroom::InputError(model->failure);
        }
        GenerateResult result;
        for (const std::string &piece : model->pieces) {
            on_text(piece);
            result.text += piece;
            result.tokens.push_back(1);
        }
        while (model->hold && !*stop) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        result.stopped_at_eos = !*stop;
        result.seconds = 0.01;
        return result;
    };
}

GenerateRequest requestSettings() {
    GenerateRequest request;
    request.project_path = "chat.headroom";
    request.run_id = 3;
    request.max_tokens = 5;
    return request;
}

bool sameTurns(const std::vector<ChatTurn> &turns, const std::vector<ChatTurn> &expected) {
    if (turns.size() != expected.size()) {
        return false;
    }
    for (std::size_t i = 0; i < turns.size(); ++i) {
        if (turns[i].role != expected[i].role || turns[i].content != expected[i].content) {
            return false;
        }
    }
    return true;
}

// The background of the box around the transcript's first block that holds `text`.
QColor tintOf(const QTextEdit *transcript, const QString &text) {
    for (QTextBlock block = transcript->document()->begin(); block.isValid();
         block = block.next()) {
        if (block.text() == text) {
            return QTextCursor(block).currentFrame()->frameFormat().background().color();
        }
    }
    return {};
}
} // namespace

class TestChatTryPanel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void requestTurnsPutTheSystemPromptFirst();
    void repliesJoinTheHistoryAndTheNextRequest();
    void sendWaitsWhileTheModelReplies();
    void returnSendsAndShiftReturnStartsALine();
    void aFailedReplyShowsTheEnginesMessage();
    void stopWithoutTextKeepsTheMessage();
    void clearForgetsTheConversation();
    void theTryTabChatsWhereTheBaseHasATemplate();

private:
    // A panel answered by `model`, its requests built by requestSettings().
    std::unique_ptr<ChatTryPanel> newPanel(const std::shared_ptr<FakeModel> &model);
    static QPushButton *button(ChatTryPanel &panel, const char *name) {
        return panel.findChild<QPushButton *>(name);
    }
};

std::unique_ptr<ChatTryPanel> TestChatTryPanel::newPanel(const std::shared_ptr<FakeModel> &model) {
    auto panel = std::make_unique<ChatTryPanel>();
    panel->setRequestSource(requestSettings);
    panel->setGenerateFunction(answeredBy(model));
    panel->setAvailable(true);
    panel->show();
    return panel;
}

void TestChatTryPanel::requestTurnsPutTheSystemPromptFirst() {
    const std::vector<ChatTurn> history{{"user", "Hi"}, {"assistant", "Hello"}};
    QVERIFY(sameTurns(
        ChatTryPanel::requestTurns("Be brief.", history, "More?"),
        {{"system", "Be brief."}, {"user", "Hi"}, {"assistant", "Hello"}, {"user", "More?"}}));
    // A blank system prompt is none.
    QVERIFY(sameTurns(ChatTryPanel::requestTurns(" \n", {}, "Hi"), {{"user", "Hi"}}));
}

void TestChatTryPanel::repliesJoinTheHistoryAndTheNextRequest() {
    auto model = std::make_shared<FakeModel>();
    auto panel = newPanel(model);
    panel->setSystemPrompt("Be brief.");
    QSignalSpy finished(panel.get(), &ChatTryPanel::replyFinished);

    panel->setMessage("Hi");
    QCOMPARE(panel->send(), QString());
    QVERIFY(finished.wait(kTimeout));
    QCOMPARE(panel->errorText(), QString());
    QVERIFY(sameTurns(panel->history(), {{"user", "Hi"}, {"assistant", "Hello"}}));
    QCOMPARE(panel->message(), QString()); // the box is free for the next message
    QVERIFY2(panel->statusText().contains("2 new tokens"), qPrintable(panel->statusText()));
    QVERIFY2(panel->statusText().contains("end of its turn"), qPrintable(panel->statusText()));

    panel->setMessage("More?");
    QCOMPARE(panel->send(), QString());
    QVERIFY(finished.wait(kTimeout));
    const std::vector<GenerateRequest> requests = model->seen();
    QCOMPARE(requests.size(), std::size_t{2});
    QVERIFY(sameTurns(requests[0].chat, {{"system", "Be brief."}, {"user", "Hi"}}));
    QVERIFY(sameTurns(
        requests[1].chat,
        {{"system", "Be brief."}, {"user", "Hi"}, {"assistant", "Hello"}, {"user", "More?"}}));
    // The project, the weights and the sampling come from the request source; no prompt.
    QCOMPARE(requests[1].project_path, std::string("chat.headroom"));
    QCOMPARE(requests[1].run_id, std::int64_t{3});
    QCOMPARE(requests[1].max_tokens, std::int64_t{5});
    QVERIFY(requests[1].prompt.empty());
    QCOMPARE(panel->history().size(), std::size_t{4});

    // The user's turns and the model's read apart: their own tints, indented from either side.
    auto *transcript = panel->findChild<QTextEdit *>("tryChatTranscript");
    const QString text = panel->transcriptText();
    QVERIFY2(text.indexOf("Hi") < text.indexOf("Hello") &&
                 text.indexOf("Hello") < text.indexOf("More?"),
             qPrintable(text));
    QVERIFY(!text.contains("Be brief.")); // the system prompt stays in its own field
    const QColor user = tintOf(transcript, "Hi");
    const QColor reply = tintOf(transcript, "Hello");
    QVERIFY(user.isValid() && reply.isValid());
    QVERIFY(user != reply);
    QCOMPARE(tintOf(transcript, "More?"), user);
}

void TestChatTryPanel::sendWaitsWhileTheModelReplies() {
    auto model = std::make_shared<FakeModel>();
    model->hold = true;
    auto panel = newPanel(model);
    QSignalSpy finished(panel.get(), &ChatTryPanel::replyFinished);
    panel->setMessage("Hi");
    QCOMPARE(panel->send(), QString());
    QVERIFY(panel->isGenerating());
    // The reply streams in while the model still writes.
    QTRY_VERIFY_WITH_TIMEOUT(panel->transcriptText().contains("Hello"), kTimeout);
    QVERIFY(!button(*panel, "tryChatSend")->isEnabled());
    QVERIFY(!button(*panel, "tryChatClear")->isEnabled());
    QVERIFY(button(*panel, "tryChatStop")->isEnabled());
    panel->setMessage("Next");
    QVERIFY(!panel->send().isEmpty());
    QCOMPARE(panel->message(), QString("Next")); // kept for later
    QCOMPARE(model->seen().size(), std::size_t{1});

    // Stop keeps what was written as the reply.
    QTest::mouseClick(button(*panel, "tryChatStop"), Qt::LeftButton);
    QVERIFY(!button(*panel, "tryChatStop")->isEnabled());
    QVERIFY(finished.count() > 0 || finished.wait(kTimeout));
    QVERIFY(!panel->isGenerating());
    QVERIFY(sameTurns(panel->history(), {{"user", "Hi"}, {"assistant", "Hello"}}));
    QVERIFY2(panel->statusText().contains("stopped"), qPrintable(panel->statusText()));
    QVERIFY(button(*panel, "tryChatSend")->isEnabled());
    QVERIFY(button(*panel, "tryChatClear")->isEnabled());

    // Without weights there is nothing to send to.
    panel->setAvailable(false);
    QVERIFY(!button(*panel, "tryChatSend")->isEnabled());
    QVERIFY(!panel->send().isEmpty());
    QCOMPARE(model->seen().size(), std::size_t{1});
}

void TestChatTryPanel::returnSendsAndShiftReturnStartsALine() {
    auto model = std::make_shared<FakeModel>();
    auto panel = newPanel(model);
    auto *message = panel->findChild<QPlainTextEdit *>("tryChatMessage");
    QSignalSpy started(panel.get(), &ChatTryPanel::replyStarted);
    QSignalSpy finished(panel.get(), &ChatTryPanel::replyFinished);
    QTest::keyClicks(message, "Two");
    QTest::keyClick(message, Qt::Key_Return, Qt::ShiftModifier);
    QTest::keyClicks(message, "lines");
    QCOMPARE(panel->message(), QString("Two\nlines"));
    QCOMPARE(started.count(), 0);
    QTest::keyClick(message, Qt::Key_Return);
    QCOMPARE(started.count(), 1);
    QVERIFY(finished.count() > 0 || finished.wait(kTimeout));
    QVERIFY(sameTurns(model->seen().at(0).chat, {{"user", "Two\nlines"}}));
    // A blank message is not sent.
    QTest::keyClick(message, Qt::Key_Return);
    QCOMPARE(started.count(), 1);
    QVERIFY2(panel->statusText().contains("Type a message"), qPrintable(panel->statusText()));
}

void TestChatTryPanel::aFailedReplyShowsTheEnginesMessage() {
    const QString problem = "cannot chat: tiny-model has no chat template (no chat_template in "
                            "tokenizer_config.json, no chat_template.jinja)";
    auto model = std::make_shared<FakeModel>();
    model->failure = problem.toStdString();
    auto panel = newPanel(model);
    QSignalSpy finished(panel.get(), &ChatTryPanel::replyFinished);
    panel->setMessage("Hello?");
    QCOMPARE(panel->send(), QString());
    QVERIFY(finished.wait(kTimeout));
    QCOMPARE(finished.at(0).at(0).toString(), problem);
    QCOMPARE(panel->errorText(), problem);
    QCOMPARE(panel->statusText(), problem);
    // The conversation is as it was; the message waits to be sent again.
    QVERIFY(panel->history().empty());
    QVERIFY(!panel->transcriptText().contains("Hello?"));
    QCOMPARE(panel->message(), QString("Hello?"));
    QVERIFY(button(*panel, "tryChatSend")->isEnabled());
    QVERIFY(!panel->findChild<QPushButton *>("tryChatLocateBase")->isVisible());

    // A base model that moved offers to locate it.
    model->failure = "model.base /gone/tiny is missing: the folder was moved or deleted";
    QCOMPARE(panel->send(), QString());
    QVERIFY(finished.wait(kTimeout));
    QVERIFY(panel->findChild<QPushButton *>("tryChatLocateBase")->isVisible());
    model->failure.clear();
    QCOMPARE(panel->send(), QString());
    QVERIFY(finished.wait(kTimeout));
    QCOMPARE(panel->errorText(), QString());
    QVERIFY(!panel->findChild<QPushButton *>("tryChatLocateBase")->isVisible());
    QVERIFY(sameTurns(panel->history(), {{"user", "Hello?"}, {"assistant", "Hello"}}));
}

void TestChatTryPanel::stopWithoutTextKeepsTheMessage() {
    auto model = std::make_shared<FakeModel>();
    model->pieces.clear();
    model->hold = true;
    auto panel = newPanel(model);
    QSignalSpy finished(panel.get(), &ChatTryPanel::replyFinished);
    panel->setMessage("Hi");
    QCOMPARE(panel->send(), QString());
    panel->stop();
    QVERIFY(finished.wait(kTimeout));
    QVERIFY(panel->history().empty());
    QCOMPARE(panel->message(), QString("Hi"));
    QVERIFY(!panel->transcriptText().contains("Hi"));
}

void TestChatTryPanel::clearForgetsTheConversation() {
    auto model = std::make_shared<FakeModel>();
    auto panel = newPanel(model);
    panel->setSystemPrompt("Be brief.");
    QSignalSpy finished(panel.get(), &ChatTryPanel::replyFinished);
    QVERIFY(!button(*panel, "tryChatClear")->isEnabled()); // nothing to forget yet
    panel->setMessage("Hi");
    QCOMPARE(panel->send(), QString());
    QVERIFY(finished.wait(kTimeout));
    QTest::mouseClick(button(*panel, "tryChatClear"), Qt::LeftButton);
    QVERIFY(panel->history().empty());
    QCOMPARE(panel->transcriptText(), QString());
    QCOMPARE(panel->systemPrompt(), QString("Be brief."));
    QVERIFY(!button(*panel, "tryChatClear")->isEnabled());

    // Cleared while the model replies: the reply is stopped and dropped.
    model->hold = true;
    panel->setMessage("Again");
    QCOMPARE(panel->send(), QString());
    QTRY_VERIFY_WITH_TIMEOUT(panel->transcriptText().contains("Hello"), kTimeout);
    panel->clear();
    QVERIFY(finished.wait(kTimeout));
    QVERIFY(panel->history().empty());
    QCOMPARE(panel->transcriptText(), QString());
    QCOMPARE(panel->message(), QString());
    QVERIFY(sameTurns(model->seen().back().chat, {{"system", "Be brief."}, {"user", "Again"}}));
}

void TestChatTryPanel::theTryTabChatsWhereTheBaseHasATemplate() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString plain = test_support::writeTinyHfModel(dir.filePath("plain"), "gpt2");
    const QString chatty = test_support::writeTinyHfModel(dir.filePath("chatty"), "gpt2");
    QVERIFY(!plain.isEmpty() && !chatty.isEmpty());
    QVERIFY(test_support::writeBytes(
        QDir(chatty).filePath("chat_template.jinja"),
        "{% for m in messages %}<{{ m['role'] }}>{{ m['content'] }}<sep>{% endfor %}"
        "{% if add_generation_prompt %}<assistant>{% endif %}"));
    const QString corpus =
        test_support::writeFile(QDir(dir.path()), "corpus.txt", test_support::storyText(40));
    const auto newProject = [&](const QString &name, const QString &base) {
        headroom::NewProjectRequest request;
        request.project_path = dir.filePath(name).toStdString();
        request.recipe = "gpt";
        request.data_path = corpus.toStdString();
        request.base_path = base.toStdString();
        headroom::createProject(request, [](const std::string &) {});
        return dir.filePath(name);
    };
    const QString continues = newProject("plain.headroom", plain);
    const QString chats = newProject("chatty.headroom", chatty);

    TryView view;
    view.show();
    auto *mode = view.findChild<QComboBox *>("tryMode");
    view.setProject(continues, {});
    QVERIFY(!view.isChatMode());
    QVERIFY(mode->isVisible());
    QVERIFY(view.findChild<QPlainTextEdit *>("tryPrompt")->isVisible());
    view.setProject(chats, {});
    QVERIFY(view.isChatMode());
    QVERIFY(view.chatPanel()->isVisible());
    QVERIFY(!view.findChild<QPlainTextEdit *>("tryPrompt")->isVisible());
    // The sampling settings serve the chat too.
    QVERIFY(view.findChild<QSpinBox *>("tryMaxTokens")->isVisible());
    view.findChild<QSpinBox *>("tryMaxTokens")->setValue(7);

    auto model = std::make_shared<FakeModel>();
    view.chatPanel()->setGenerateFunction(answeredBy(model));
    view.chatPanel()->setMessage("Hi");
    QSignalSpy finished(&view, &TryView::generationFinished);
    QCOMPARE(view.generate(), QString());
    QVERIFY(view.isGenerating());
    QVERIFY(!mode->isEnabled());
    QVERIFY(finished.wait(kTimeout));
    QCOMPARE(view.errorText(), QString());
    const GenerateRequest request = model->seen().at(0);
    QCOMPARE(request.project_path, chats.toStdString());
    QCOMPARE(request.run_id, std::int64_t{-1}); // the base as imported
    QCOMPARE(request.max_tokens, std::int64_t{7});
    QVERIFY(sameTurns(request.chat, {{"user", "Hi"}}));
    QVERIFY(view.outputText().isEmpty()); // continuing a text has its own output

    // The real model answers with the base's template, up to its end-of-turn or the limit.
    view.chatPanel()->setGenerateFunction([](const GenerateRequest &request,
                                             const ChatTryPanel::TextCallback &on_text,
                                             const std::atomic<bool> *stop) {
        return headroom::generateText(request, on_text, stop);
    });
    view.findChild<QSpinBox *>("tryMaxTokens")->setValue(4);
    view.chatPanel()->setMessage("And you?");
    QCOMPARE(view.generate(), QString());
    QVERIFY(finished.wait(kTimeout));
    QVERIFY2(view.errorText().isEmpty(), qPrintable(view.errorText()));
    QCOMPARE(view.chatPanel()->history().size(), std::size_t{4});
    QVERIFY2(view.chatPanel()->statusText().contains("new tokens"),
             qPrintable(view.chatPanel()->statusText()));

    // Back to continuing a text: the prompt and its output again, the chat kept.
    view.setChatMode(false);
    QVERIFY(view.findChild<QPlainTextEdit *>("tryPrompt")->isVisible());
    QCOMPARE(view.chatPanel()->history().size(), std::size_t{4});
    // Another project starts a new conversation; one without a template says so.
    view.setProject(continues, {});
    QVERIFY(view.chatPanel()->history().empty());
    view.setChatMode(true);
    view.chatPanel()->setMessage("Hi");
    QCOMPARE(view.generate(), QString());
    QVERIFY(finished.wait(kTimeout));
    QVERIFY2(view.errorText().contains("chat template"), qPrintable(view.errorText()));
    QCOMPARE(view.chatPanel()->statusText(), view.errorText());
    QVERIFY(view.chatPanel()->history().empty());
    QCOMPARE(view.chatPanel()->message(), QString("Hi"));
}

QTEST_MAIN(TestChatTryPanel)
#include "test_chat_try_panel.moc"
