#include "ChatPreviewPanel.h"

#include "BackgroundJob.h"
#include "WizardColors.h"
#include "WizardForms.h"
#include "plots/PlotStyle.h"

#include <QComboBox>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSignalBlocker>
#include <QStackedWidget>
#include <QTextCursor>
#include <QTextEdit>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <string>

namespace headroom::ui {

namespace {

// Conversations kept to step through, and read for the counts.
constexpr std::size_t kShownConversations = 20;
constexpr std::int64_t kCountedConversations = 200;
constexpr int kTextLinesShown = 9;

// The template choices' data; the model's own is data.chat_template="".
const QString kModelTemplate = QStringLiteral("model");
const QString kChatml = QStringLiteral("chatml");
const QString kTemplateFile = QStringLiteral("file");

// The learned text's background: pale on a light palette, deep on a dark one.
QColor learnedTint(const QPalette &palette) {
    return plots::isDarkPalette(palette) ? QColor::fromHsl(120, 90, 70)
                                         : QColor::fromHsl(120, 140, 205);
}

QString number(std::int64_t value) {
    return QLocale().toString(qint64(value));
}

std::int64_t learnedTokens(const ChatRecordTokens &record) {
    return std::count(record.train.begin(), record.train.end(), std::uint8_t{1});
}

QString textBetween(const std::string &text, std::size_t begin, std::size_t end) {
    begin = std::min(begin, text.size());
    end = std::clamp(end, begin, text.size());
    return QString::fromUtf8(text.data() + begin, qsizetype(end - begin));
}

} // namespace

bool holdsConversations(const DataPreview &preview) {
    if (preview.format != "jsonl" && preview.format != "json") {
        return false;
    }
    return std::any_of(preview.columns.begin(), preview.columns.end(), [](const std::string &key) {
        return key == "messages" || key == "conversations";
    });
}

struct ChatPreviewPanel::Result {
    std::vector<ChatRecordTokens> shown;
    std::int64_t conversations = 0;
    std::int64_t tokens = 0;
    std::int64_t learned = 0;
    std::int64_t longer = 0;          // than seq_len + 1 tokens
    std::int64_t nothing_learned = 0; // within seq_len + 1 tokens
    bool whole_file = true;
    std::int64_t seq_len = 0;
    QString origin;
    QString error;
};

ChatPreviewPanel::ChatPreviewPanel(QWidget *parent) : QWidget(parent) {
    setObjectName(QStringLiteral("chatPreview"));
    template_ = new QComboBox(this);
    template_->setObjectName(QStringLiteral("chatTemplate"));
    template_->setAccessibleName(tr("Chat template"));
    template_->setToolTip(tr("How each conversation becomes the text the model trains on "
                             "(data.chat_template); the Try tab chats with the same template"));
    template_->addItem(tr("ChatML (built in)"), kChatml);
    template_->addItem(tr("A template file…"), kTemplateFile);
    template_file_ = new QLineEdit(this);
    template_file_->setObjectName(QStringLiteral("chatTemplateFile"));
    template_file_->setAccessibleName(tr("Chat template file"));
    template_file_->setPlaceholderText(
        tr("A .jinja file, or a tokenizer_config.json holding \"chat_template\""));
    browse_ = new QPushButton(tr("Br&owse…"), this);
    browse_->setObjectName(QStringLiteral("browseChatTemplate"));
    browse_->setAccessibleName(tr("Choose the chat template file"));
    auto *template_row = new QHBoxLayout;
    template_row->setContentsMargins(0, 0, 0, 0);
    template_row->addWidget(template_);
    template_row->addWidget(template_file_, 1);
    template_row->addWidget(browse_);

    train_on_ = new QComboBox(this);
    train_on_->setObjectName(QStringLiteral("chatTrainOn"));
    train_on_->setAccessibleName(tr("Learn from"));
    train_on_->setToolTip(tr("The tokens the model learns to write (data.train_on); the rest of "
                             "the conversation is context it reads"));
    train_on_->addItem(tr("The assistant's replies"), QStringLiteral("assistant"));
    train_on_->addItem(tr("The last reply only"), QStringLiteral("last_assistant"));
    train_on_->addItem(tr("Everything (the whole conversation)"), QStringLiteral("all"));

    auto *form = new QFormLayout;
    form->setContentsMargins(0, 0, 0, 0);
    form->addRow(buddyLabel(tr("&Chat template:"), template_, this), template_row);
    addBuddyRow(form, tr("&Learn from:"), train_on_, this);

    heading_ = new QLabel(tr("Conversations as the model sees them:"), this);
    title_ = new QLabel(this);
    title_->setObjectName(QStringLiteral("chatConversation"));
    previous_ = new QToolButton(this);
    previous_->setObjectName(QStringLiteral("previousConversation"));
    previous_->setArrowType(Qt::LeftArrow);
    previous_->setAccessibleName(tr("Previous conversation"));
    previous_->setToolTip(tr("Previous conversation"));
    next_ = new QToolButton(this);
    next_->setObjectName(QStringLiteral("nextConversation"));
    next_->setArrowType(Qt::RightArrow);
    next_->setAccessibleName(tr("Next conversation"));
    next_->setToolTip(tr("Next conversation"));
    auto *header = new QHBoxLayout;
    header->setContentsMargins(0, 0, 0, 0);
    header->addWidget(heading_);
    header->addWidget(title_, 1);
    header->addWidget(previous_);
    header->addWidget(next_);

    message_ = new QLabel(this);
    message_->setObjectName(QStringLiteral("chatMessage"));
    message_->setWordWrap(true);
    message_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    text_ = new QTextEdit(this);
    text_->setObjectName(QStringLiteral("chatRendered"));
    text_->setAccessibleName(tr("The conversation as rendered, learned text highlighted"));
    text_->setReadOnly(true);
    text_->setTabChangesFocus(true);
    text_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    stack_ = new QStackedWidget(this);
    stack_->addWidget(message_);
    stack_->addWidget(text_);
    // The same height whatever is shown: the page does not jump.
    stack_->setFixedHeight(text_->fontMetrics().lineSpacing() * kTextLinesShown + 12);

    stats_ = new QLabel(this);
    stats_->setObjectName(QStringLiteral("chatStats"));
    stats_->setWordWrap(true);
    stats_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    stats_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    stats_->setMinimumHeight(fontMetrics().lineSpacing() * 3);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(form);
    layout->addLayout(header);
    layout->addWidget(stack_);
    layout->addWidget(stats_);

    job_ = new BackgroundJob(this);
    connect(template_, &QComboBox::activated, this, [this] {
        template_chosen_ = true;
        onTemplateChosen();
    });
    connect(template_file_, &QLineEdit::editingFinished, this, &ChatPreviewPanel::startPreview);
    connect(browse_, &QPushButton::clicked, this, &ChatPreviewPanel::chooseTemplateFile);
    connect(train_on_, &QComboBox::activated, this, &ChatPreviewPanel::startPreview);
    connect(previous_, &QToolButton::clicked, this, [this] { showConversation(index_ - 1); });
    connect(next_, &QToolButton::clicked, this, [this] { showConversation(index_ + 1); });
    heading_->hide(); // until there is a base model's tokenizer to show conversations with
    onTemplateChosen();
    showMessage(QString());
}

ChatPreviewPanel::~ChatPreviewPanel() {
    if (cancel_) {
        *cancel_ = true;
    }
    delete job_; // joins the preview before the panel goes
}

void ChatPreviewPanel::setSource(const QString &data_path, const QString &base_folder,
                                 std::int64_t seq_len) {
    data_path_ = data_path;
    seq_len_ = seq_len;
    if (base_folder.isEmpty() != base_folder_.isEmpty()) {
        // Only a base model has a template of its own, and it is the one to start from.
        const QSignalBlocker blocker(template_);
        if (base_folder.isEmpty()) {
            const bool own = template_->currentData().toString() == kModelTemplate;
            template_->removeItem(template_->findData(kModelTemplate));
            if (own) {
                template_->setCurrentIndex(template_->findData(kChatml));
            }
        } else {
            template_->insertItem(0, tr("The model's own"), kModelTemplate);
            if (!template_chosen_) {
                template_->setCurrentIndex(0);
            }
        }
    }
    base_folder_ = base_folder;
    heading_->setVisible(!base_folder.isEmpty()); // a new model has nothing to show yet
    onTemplateChosen();
}

void ChatPreviewPanel::showMessage(const QString &text) {
    shown_.clear();
    problem_ = false;
    message_->setText(text);
    setTextTone(message_, TextTone::Normal);
    stack_->setCurrentWidget(message_);
    title_->clear();
    stats_->clear();
    updateNavigation();
}

void ChatPreviewPanel::showProblem(const QString &problem) {
    showMessage(problem);
    problem_ = true;
    setTextTone(message_, TextTone::Problem);
}

QString ChatPreviewPanel::message() const {
    return stack_->currentWidget() == message_ ? message_->text() : QString();
}

QString ChatPreviewPanel::chatTemplate() const {
    const QString choice = template_->currentData().toString();
    if (choice == kModelTemplate) {
        return QString();
    }
    return choice == kTemplateFile ? template_file_->text().trimmed() : choice;
}

void ChatPreviewPanel::setChatTemplate(const QString &value) {
    template_chosen_ = true;
    int index = template_->findData(value.isEmpty()    ? kModelTemplate
                                    : value == kChatml ? kChatml
                                                       : kTemplateFile);
    if (index < 0) {
        index = template_->findData(kChatml); // no base model: no template of its own
    }
    template_->setCurrentIndex(index);
    if (template_->currentData().toString() == kTemplateFile) {
        template_file_->setText(value);
    }
    onTemplateChosen();
}

QString ChatPreviewPanel::trainOn() const {
    return train_on_->currentData().toString();
}

void ChatPreviewPanel::setTrainOn(const QString &value) {
    const int index = train_on_->findData(value);
    if (index >= 0 && index != train_on_->currentIndex()) {
        train_on_->setCurrentIndex(index);
        startPreview();
    }
}

void ChatPreviewPanel::applyTo(Config &config) const {
    config.set("data.chat_template", chatTemplate().toStdString());
    config.set("data.train_on", trainOn().toStdString());
}

bool ChatPreviewPanel::isPreviewing() const {
    return job_->isRunning() || preview_again_;
}

void ChatPreviewPanel::onTemplateChosen() {
    const bool file = template_->currentData().toString() == kTemplateFile;
    template_file_->setVisible(file);
    browse_->setVisible(file);
    startPreview();
}

void ChatPreviewPanel::chooseTemplateFile() {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Choose a Chat Template"), template_file_->text(),
                                     tr("Chat templates (*.jinja *.json);;All files (*)"));
    if (!path.isEmpty()) {
        template_file_->setText(path);
        startPreview();
    }
}

void ChatPreviewPanel::startPreview() {
    if (cancel_) {
        *cancel_ = true; // whatever runs is out of date
    }
    preview_again_ = false;
    if (data_path_.isEmpty()) {
        return;
    }
    const QString chosen = chatTemplate();
    if (template_->currentData().toString() == kTemplateFile && !QFileInfo(chosen).isFile()) {
        if (chosen.isEmpty()) {
            showMessage(tr("Choose the chat template file."));
        } else {
            showProblem(tr("%1: no such file").arg(chosen));
        }
        Q_EMIT previewShown();
        return;
    }
    if (base_folder_.isEmpty()) {
        showMessage(tr("A model made from scratch has no chat template of its own: training "
                       "renders every conversation with data.chat_template (%1), and the Try "
                       "tab chats with the same template. Its tokenizer is made when it "
                       "trains, so there are no tokens to show yet.")
                        .arg(chosen == kChatml ? tr("ChatML") : chosen));
        Q_EMIT previewShown();
        return;
    }
    showMessage(tr("Rendering the first conversations…"));
    if (job_->isRunning()) {
        preview_again_ = true; // when it ends
        return;
    }
    ChatPreviewOptions options;
    options.tokenizer = base_folder_.toStdString();
    options.chat_template = chosen.toStdString();
    options.train_on = trainOn().toStdString();
    const std::string path = data_path_.toStdString();
    const std::int64_t seq_len = seq_len_;
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    auto cancel = cancel_;
    auto result = std::make_shared<Result>();
    result->seq_len = seq_len;
    job_->start(
        [options, path, seq_len, cancel, result] {
            const auto count = [&](const ChatRecordTokens &record) {
                if (*cancel) {
                    return false;
                }
                if (result->shown.size() < kShownConversations) {
                    result->shown.push_back(record);
                }
                ++result->conversations;
                result->tokens += std::int64_t(record.ids.size());
                result->learned += learnedTokens(record);
                if (seq_len > 0) {
                    const std::size_t window = std::size_t(seq_len) + 1;
                    result->longer += record.ids.size() > window ? 1 : 0;
                    // Nothing predicts the first token: it is never a target.
                    const auto begin =
                        record.train.begin() + std::min<std::ptrdiff_t>(1, record.train.size());
                    const auto end = record.train.begin() +
                                     std::ptrdiff_t(std::min(window, record.train.size()));
                    result->nothing_learned += std::find(begin, end, 1) == end ? 1 : 0;
                }
                if (result->conversations >= kCountedConversations) {
                    result->whole_file = false;
                    return false;
                }
                return true;
            };
            try {
                previewChatFile(options, path, count);
            } catch (const std::exception &failure) {
                result->error = QString::fromUtf8(failure.what());
            }
            if (!result->shown.empty()) {
                result->origin = QString::fromStdString(result->shown.front().template_origin);
            }
        },
        [this, cancel, result] {
            if (preview_again_) {
                startPreview();
                return;
            }
            if (*cancel) {
                return; // a note or a problem took its place
            }
            showResult(*result);
            Q_EMIT previewShown();
        });
}

void ChatPreviewPanel::showResult(const Result &result) {
    if (!result.error.isEmpty()) {
        showProblem(tr("Cannot render the conversations: %1").arg(result.error));
        return;
    }
    showMessage(result.conversations == 0 ? tr("The file holds no conversation.") : QString());
    if (result.conversations == 0) {
        return;
    }
    const int read = int(result.conversations);
    QStringList lines{(result.whole_file
                           ? tr("%n conversations read (the whole file)", nullptr, read)
                           : tr("The first %n conversations read", nullptr, read)) +
                      QStringLiteral(" · ") + tr("template: %1").arg(result.origin)};
    const double share = result.tokens > 0 ? 100.0 * double(result.learned) / result.tokens : 0;
    lines << tr("%1 tokens: %2 learned (%3 %), %4 context the model reads without learning it")
                 .arg(number(result.tokens), number(result.learned),
                      QLocale().toString(share, 'f', 0), number(result.tokens - result.learned));
    if (result.seq_len > 0) {
        if (result.longer == 0) {
            lines << tr("All fit the context of %1 tokens (model.seq_len).").arg(result.seq_len);
        } else {
            lines << tr("%n longer than the context of %1 tokens + 1 (model.seq_len): training "
                        "cuts them after the last reply that fits.",
                        nullptr, int(result.longer))
                         .arg(result.seq_len);
        }
        if (result.nothing_learned > 0) {
            lines << tr("%n with nothing to learn within the context: training skips them.",
                        nullptr, int(result.nothing_learned));
        }
    }
    stats_->setText(lines.join(QLatin1Char('\n')));
    setTextTone(stats_, result.longer > 0 || result.nothing_learned > 0 ? TextTone::Caution
                                                                        : TextTone::Normal);
    shown_ = result.shown;
    showConversation(0);
}

void ChatPreviewPanel::showConversation(int index) {
    if (index < 0 || index >= conversationCount()) {
        return;
    }
    index_ = index;
    const ChatRecordTokens &record = shown_[std::size_t(index)];
    text_->clear();
    QTextCursor cursor(text_->document());
    QTextCharFormat learned;
    learned.setBackground(learnedTint(text_->palette()));
    std::size_t at = 0;
    for (const auto &[begin, end] : record.trained_spans) {
        cursor.insertText(textBetween(record.text, at, begin), QTextCharFormat());
        cursor.insertText(textBetween(record.text, begin, end), learned);
        at = std::max(at, end);
    }
    cursor.insertText(textBetween(record.text, at, record.text.size()), QTextCharFormat());
    text_->moveCursor(QTextCursor::Start);
    stack_->setCurrentWidget(text_);
    title_->setText(tr("line %1 · %n tokens, %2 learned", nullptr, int(record.ids.size()))
                        .arg(record.line)
                        .arg(learnedTokens(record)));
    updateNavigation();
}

QString ChatPreviewPanel::renderedText() const {
    return hasPreview() ? QString::fromStdString(shown_[std::size_t(index_)].text) : QString();
}

QStringList ChatPreviewPanel::learnedParts() const {
    QStringList parts;
    if (hasPreview()) {
        const ChatRecordTokens &record = shown_[std::size_t(index_)];
        for (const auto &[begin, end] : record.trained_spans) {
            parts << textBetween(record.text, begin, end);
        }
    }
    return parts;
}

QString ChatPreviewPanel::statsText() const {
    return stats_->text();
}

void ChatPreviewPanel::updateNavigation() {
    const bool stepping = conversationCount() > 1;
    previous_->setEnabled(stepping && index_ > 0);
    next_->setEnabled(stepping && index_ + 1 < conversationCount());
    previous_->setVisible(hasPreview());
    next_->setVisible(hasPreview());
}

void ChatPreviewPanel::changeEvent(QEvent *event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && hasPreview()) {
        showConversation(index_); // the highlight's tint follows the palette
    }
}

} // namespace headroom::ui
