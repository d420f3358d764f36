#include "views/ChatTryPanel.h"

#include "plots/PlotStyle.h"
#include "views/TryView.h"
#include "wizard/WizardColors.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QTextBlockFormat>
#include <QTextCharFormat>
#include <QTextCursor>
#include <QTextEdit>
#include <QTextFrame>
#include <QVBoxLayout>

#include <utility>

namespace headroom::ui {

namespace {

constexpr std::int64_t kBaseModel = -1;
// How far a turn is indented on the side it does not come from.
constexpr int kTurnIndent = 48;
constexpr int kTurnSpacing = 6;
constexpr int kTurnPadding = 5;

// Pale tints on a light palette, deep ones on a dark palette, so the palette's text colour
// reads on both: the user's turns blue, the model's green.
QColor turnTint(const QString &role, const QPalette &palette) {
    const bool user = role == QLatin1String("user");
    const int hue = user ? 210 : 140;
    if (plots::isDarkPalette(palette)) {
        return QColor::fromHsl(hue, user ? 90 : 50, 58);
    }
    return QColor::fromHsl(hue, user ? 150 : 90, 232);
}

int lineHeight(const QWidget *widget, int lines) {
    return widget->fontMetrics().lineSpacing() * lines + 12;
}

} // namespace

ChatTryPanel::ChatTryPanel(QWidget *parent)
    : QWidget(parent), generate_([](const GenerateRequest &request, const TextCallback &on_text,
                                    const std::atomic<bool> *stop) {
          return generateText(request, on_text, stop);
      }) {
    setObjectName(QStringLiteral("chatTryPanel"));
    system_ = new QPlainTextEdit(this);
    system_->setObjectName(QStringLiteral("tryChatSystem"));
    system_->setAccessibleName(tr("System prompt"));
    system_->setPlaceholderText(tr("Optional: how the model should behave, sent before the "
                                   "conversation"));
    system_->setTabChangesFocus(true);
    system_->setMaximumHeight(lineHeight(system_, 2));
    auto *system_label = new QLabel(tr("S&ystem prompt:"), this);
    system_label->setBuddy(system_);

    transcript_ = new QTextEdit(this);
    transcript_->setObjectName(QStringLiteral("tryChatTranscript"));
    transcript_->setAccessibleName(tr("Conversation"));
    transcript_->setReadOnly(true);
    transcript_->setTabChangesFocus(true);
    transcript_->setPlaceholderText(tr("Your messages and the model's replies appear here."));

    message_ = new QPlainTextEdit(this);
    message_->setObjectName(QStringLiteral("tryChatMessage"));
    message_->setAccessibleName(tr("Message"));
    message_->setPlaceholderText(tr("Your message (Return sends, Shift+Return starts a new "
                                    "line)"));
    message_->setTabChangesFocus(true);
    message_->setMaximumHeight(lineHeight(message_, 4));
    message_->installEventFilter(this);

    send_ = new QPushButton(tr("Se&nd"), this);
    send_->setObjectName(QStringLiteral("tryChatSend"));
    send_->setToolTip(tr("Send the message; the model replies to the whole conversation "
                         "(Return in the message)"));
    stop_ = new QPushButton(tr("St&op"), this);
    stop_->setObjectName(QStringLiteral("tryChatStop"));
    stop_->setToolTip(tr("Stop the reply after the current token"));
    clear_ = new QPushButton(tr("C&lear"), this);
    clear_->setObjectName(QStringLiteral("tryChatClear"));
    clear_->setToolTip(tr("Forget the conversation and start a new one"));
    auto *buttons = new QVBoxLayout;
    buttons->addWidget(send_);
    buttons->addWidget(stop_);
    buttons->addWidget(clear_);
    buttons->addStretch(1);
    auto *message_row = new QHBoxLayout;
    message_row->addWidget(message_, 1);
    message_row->addLayout(buttons);

    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("tryChatStatus"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    locate_ = new QPushButton(tr("Locate &Base Model…"), this);
    locate_->setObjectName(QStringLiteral("tryChatLocateBase"));
    locate_->hide();
    auto *status_row = new QHBoxLayout;
    status_row->addWidget(status_, 1);
    status_row->addWidget(locate_, 0, Qt::AlignTop);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(system_label);
    layout->addWidget(system_);
    layout->addWidget(transcript_, 1);
    layout->addLayout(message_row);
    layout->addLayout(status_row);

    generation_ = new StreamingGeneration(this);
    connect(generation_, &StreamingGeneration::textArrived, this, &ChatTryPanel::appendReply);
    connect(generation_, &StreamingGeneration::finished, this, &ChatTryPanel::onFinished);
    connect(send_, &QPushButton::clicked, this, &ChatTryPanel::send);
    connect(stop_, &QPushButton::clicked, this, &ChatTryPanel::stop);
    connect(clear_, &QPushButton::clicked, this, &ChatTryPanel::clear);
    connect(locate_, &QPushButton::clicked, this, &ChatTryPanel::locateBaseRequested);
    updateControls();
}

ChatTryPanel::~ChatTryPanel() {
    delete generation_; // stops and joins the reply before the panel goes
}

void ChatTryPanel::setRequestSource(std::function<GenerateRequest()> source) {
    request_source_ = std::move(source);
}

void ChatTryPanel::setAvailable(bool available) {
    available_ = available;
    updateControls();
}

void ChatTryPanel::setGenerateFunction(GenerateFunction generate) {
    generate_ = std::move(generate);
}

void ChatTryPanel::setSystemPrompt(const QString &text) {
    system_->setPlainText(text);
}

QString ChatTryPanel::systemPrompt() const {
    return system_->toPlainText();
}

void ChatTryPanel::setMessage(const QString &text) {
    message_->setPlainText(text);
}

QString ChatTryPanel::message() const {
    return message_->toPlainText();
}

std::vector<ChatTurn> ChatTryPanel::requestTurns(const QString &system_prompt,
                                                 const std::vector<ChatTurn> &history,
                                                 const QString &message) {
    std::vector<ChatTurn> turns;
    turns.reserve(history.size() + 2);
    if (!system_prompt.trimmed().isEmpty()) {
        turns.push_back({"system", system_prompt.toStdString()});
    }
    turns.insert(turns.end(), history.begin(), history.end());
    turns.push_back({"user", message.toStdString()});
    return turns;
}

bool ChatTryPanel::isGenerating() const {
    return generation_->isRunning();
}

QString ChatTryPanel::transcriptText() const {
    return transcript_->toPlainText();
}

QString ChatTryPanel::statusText() const {
    return status_->text();
}

QString ChatTryPanel::send() {
    QString problem;
    const QString text = message_->toPlainText();
    if (isGenerating()) {
        problem = tr("The model is still replying: wait for it, or stop it.");
    } else if (!available_ || !request_source_) {
        problem = tr("There are no weights to chat with yet.");
    } else if (text.trimmed().isEmpty()) {
        problem = tr("Type a message first: the model replies to it.");
    }
    if (!problem.isEmpty()) {
        showStatus(problem, true);
        return problem;
    }
    GenerateRequest request = request_source_();
    request.prompt.clear();
    request.chat = requestTurns(system_->toPlainText(), history_, text);
    replying_run_ = request.run_id;

    asked_ = text;
    reply_.clear();
    error_.clear();
    stop_requested_ = false;
    drop_reply_ = false;
    message_->clear();
    locate_->hide();
    renderTranscript();
    showStatus(request.run_id == kBaseModel
                   ? tr("Loading the base model…")
                   : tr("Loading the weights of run %1…").arg(request.run_id),
               false);

    generation_->start(request, generate_);
    updateControls();
    Q_EMIT replyStarted();
    return {};
}

void ChatTryPanel::stop() {
    if (isGenerating() && !stop_requested_) {
        generation_->stop();
        stop_requested_ = true;
        showStatus(tr("Stopping…"), false);
        updateControls();
    }
}

void ChatTryPanel::clear() {
    if (isGenerating()) {
        stop();
        drop_reply_ = true;
    }
    history_.clear();
    asked_.clear();
    reply_.clear();
    error_.clear();
    transcript_->clear();
    showStatus(QString(), false);
    locate_->hide();
    updateControls();
}

void ChatTryPanel::appendReply(const QString &piece) {
    if (drop_reply_) {
        return;
    }
    if (reply_.isEmpty() && !stop_requested_) {
        showStatus(replying_run_ == kBaseModel ? tr("The base model is replying…")
                                               : tr("Run %1 is replying…").arg(replying_run_),
                   false);
    }
    reply_ += piece;
    reply_end_.insertText(piece);
    transcript_->verticalScrollBar()->setValue(transcript_->verticalScrollBar()->maximum());
}

void ChatTryPanel::onFinished(const GenerateResult &result, const QString &error) {
    if (drop_reply_) {
        drop_reply_ = false;
        asked_.clear();
        reply_.clear();
        updateControls();
        Q_EMIT replyFinished(QString());
        return;
    }
    error_ = error;
    const QString reply = QString::fromStdString(result.text);
    // A stopped reply with some text counts as the model's turn; otherwise the message waits
    // in the box to be sent again.
    const bool answered = error.isEmpty() && !(stop_requested_ && reply.isEmpty());
    if (answered) {
        history_.push_back({"user", asked_.toStdString()});
        history_.push_back({"assistant", result.text});
    } else if (message_->toPlainText().isEmpty()) {
        message_->setPlainText(asked_);
    }
    asked_.clear();
    reply_.clear();
    renderTranscript(); // the final text may complete a character the stream held back
    if (!error.isEmpty()) {
        showStatus(error, true);
        locate_->setVisible(isBaseModelProblem(error));
    } else {
        const auto tokens = std::int64_t(result.tokens.size());
        const QString reason = stop_requested_         ? tr("stopped")
                               : result.stopped_at_eos ? tr("ended at the end of its turn")
                                                       : tr("reached the token limit");
        const double rate = result.seconds > 0 ? double(tokens) / result.seconds : 0.0;
        const QLocale locale;
        showStatus(tr("%n new tokens in %1 s (%2 tokens/s); %3.", nullptr, int(tokens))
                       .arg(locale.toString(result.seconds, 'f', 2), locale.toString(rate, 'f', 1),
                            reason),
                   false);
    }
    updateControls();
    Q_EMIT replyFinished(error);
}

// The whole conversation again: after a reply, and when the palette changes the tints.
void ChatTryPanel::renderTranscript() {
    transcript_->clear();
    for (const ChatTurn &turn : history_) {
        appendTurn(QString::fromStdString(turn.role), QString::fromStdString(turn.content));
    }
    if (!drop_reply_ && (isGenerating() || !asked_.isEmpty())) {
        appendTurn(QStringLiteral("user"), asked_);
        reply_end_ = appendTurn(QStringLiteral("assistant"), reply_);
    }
    transcript_->verticalScrollBar()->setValue(transcript_->verticalScrollBar()->maximum());
}

// A box on the speaker's tint, a heading naming who speaks over the text; the user's boxes
// are indented from the left, the model's from the right. Returns where the text ends, for the
// streamed reply to continue it.
QTextCursor ChatTryPanel::appendTurn(const QString &role, const QString &content) {
    const bool user = role == QLatin1String("user");
    QTextFrameFormat box;
    box.setBackground(turnTint(role, transcript_->palette()));
    box.setBorder(0);
    box.setPadding(kTurnPadding);
    if (user) {
        box.setLeftMargin(kTurnIndent);
    } else {
        box.setRightMargin(kTurnIndent);
    }
    QTextBlockFormat gap; // the block between two boxes
    gap.setLineHeight(kTurnSpacing, QTextBlockFormat::FixedHeight);
    QTextCharFormat heading;
    heading.setFontWeight(QFont::Bold);

    QTextCursor cursor(transcript_->document());
    cursor.movePosition(QTextCursor::End);
    cursor.setBlockFormat(gap);
    cursor.insertFrame(box);
    cursor.insertText(user ? tr("You") : tr("Model"), heading);
    cursor.insertBlock(QTextBlockFormat(), QTextCharFormat());
    cursor.insertText(content, QTextCharFormat());
    return cursor;
}

void ChatTryPanel::showStatus(const QString &text, bool error) {
    status_->setText(text);
    status_->setProperty("error", error);
    setTextTone(status_, error ? TextTone::Problem : TextTone::Normal);
}

void ChatTryPanel::updateControls() {
    const bool running = isGenerating();
    send_->setEnabled(available_ && !running);
    stop_->setEnabled(running && !stop_requested_);
    clear_->setEnabled(!running && !transcript_->document()->isEmpty());
}

bool ChatTryPanel::eventFilter(QObject *watched, QEvent *event) {
    if (watched == message_ && event->type() == QEvent::KeyPress) {
        const auto *key = static_cast<QKeyEvent *>(event);
        if ((key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) &&
            !(key->modifiers() & Qt::ShiftModifier)) {
            // While the model replies the next message can be written, not sent.
            if (send_->isEnabled()) {
                send();
            }
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void ChatTryPanel::changeEvent(QEvent *event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        renderTranscript();
    }
}

} // namespace headroom::ui
