#pragma once

#include "runs/StreamingGeneration.h"

#include <headroom/pretrained.h>

#include <QTextCursor>
#include <QWidget>

#include <functional>
#include <string>
#include <vector>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTextEdit;

namespace headroom::ui {

// The Try tab's chat with a language model: a system prompt, the conversation so far (the
// user's messages and the model's replies, each in a tint of its own) and a message box
// (Return sends, Shift+Return starts a new line). Every message sends the whole conversation,
// system prompt first, to generateText on a worker thread; the reply streams in as it is
// generated and Stop ends it. A failed reply leaves the conversation as it was, puts the
// message back in the box and shows the engine's reason on the panel.
class ChatTryPanel : public QWidget {
    Q_OBJECT

public:
    using TextCallback = StreamingGeneration::TextCallback;
    using GenerateFunction = StreamingGeneration::GenerateFunction;

    explicit ChatTryPanel(QWidget *parent = nullptr);
    ~ChatTryPanel() override;

    // What every request starts from: the project, the weights and the sampling settings.
    void setRequestSource(std::function<GenerateRequest()> source);
    // Whether there are weights to chat with; Send waits for them.
    void setAvailable(bool available);
    // generateText unless replaced (tests). Called on a worker thread.
    void setGenerateFunction(GenerateFunction generate);

    void setSystemPrompt(const QString &text);
    QString systemPrompt() const;
    void setMessage(const QString &text);
    QString message() const;

    // The conversation so far, without the system prompt: user turns and the replies.
    const std::vector<ChatTurn> &history() const { return history_; }
    // The turns a request for `message` carries: the system prompt first unless it is blank,
    // the history, then `message` as the user's turn.
    static std::vector<ChatTurn> requestTurns(const QString &system_prompt,
                                              const std::vector<ChatTurn> &history,
                                              const QString &message);

    // Sends the message box; returns why it cannot (shown on the panel too), or an empty
    // string.
    QString send();
    void stop();
    // Forgets the conversation (the system prompt stays); a reply on its way is stopped and
    // dropped.
    void clear();
    bool isGenerating() const;

    QString transcriptText() const;
    QString statusText() const;
    // The last reply's error, empty when it succeeded.
    QString errorText() const { return error_; }

Q_SIGNALS:
    void replyStarted();
    // A reply ended; error is empty unless it failed.
    void replyFinished(const QString &error);
    // The project's base model moved or changed: the user may point the project at it.
    void locateBaseRequested();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void appendReply(const QString &piece);
    void onFinished(const GenerateResult &result, const QString &error);
    void renderTranscript();
    QTextCursor appendTurn(const QString &role, const QString &content);
    void showStatus(const QString &text, bool error);
    void updateControls();

    QPlainTextEdit *system_ = nullptr;
    QTextEdit *transcript_ = nullptr;
    QPlainTextEdit *message_ = nullptr;
    QPushButton *send_ = nullptr;
    QPushButton *stop_ = nullptr;
    QPushButton *clear_ = nullptr;
    QLabel *status_ = nullptr;
    QPushButton *locate_ = nullptr;

    std::function<GenerateRequest()> request_source_;
    GenerateFunction generate_;
    bool available_ = false;
    StreamingGeneration *generation_ = nullptr;

    std::vector<ChatTurn> history_;
    QString asked_; // the user's message being answered
    QString reply_; // the reply so far
    QTextCursor reply_end_;
    std::int64_t replying_run_ = 0;
    QString error_;
    bool stop_requested_ = false;
    bool drop_reply_ = false; // cleared while replying
};

} // namespace headroom::ui
