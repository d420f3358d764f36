#pragma once

#include <headroom/chat.h>
#include <headroom/config.h>
#include <headroom/data_preview.h>

#include <QWidget>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QStackedWidget;
class QTextEdit;
class QToolButton;

namespace headroom::ui {

class BackgroundJob;

// Whether a checked data file holds conversations: JSONL or JSON whose first record has
// "messages" or "conversations" (as training decides with data.format=auto).
bool holdsConversations(const DataPreview &preview);

// The data page's look at conversation data: the chat template it is rendered with
// (data.chat_template: the base model's own, ChatML or a file) and what the model learns from
// it (data.train_on). With a base model, the first conversations rendered as the model sees
// them, the learned text highlighted, and counts over the first conversations: learned and
// context tokens, conversations longer than the context. A model made from scratch has no
// tokenizer before training: a note on how its conversations will be rendered instead.
class ChatPreviewPanel : public QWidget {
    Q_OBJECT

public:
    explicit ChatPreviewPanel(QWidget *parent = nullptr);
    ~ChatPreviewPanel() override;

    // Previews `data_path` with the tokenizer of `base_folder` in the background; an empty
    // base_folder is a model made from scratch. seq_len is model.seq_len (0: unknown).
    void setSource(const QString &data_path, const QString &base_folder, std::int64_t seq_len);
    // Work in progress, or what is missing before conversations can be shown.
    void showMessage(const QString &text);
    // Why they cannot be shown, in the problem colour.
    void showProblem(const QString &problem);

    // data.chat_template: empty for the base model's own, "chatml", or a template file.
    QString chatTemplate() const;
    void setChatTemplate(const QString &value);
    // data.train_on: assistant, last_assistant or all.
    QString trainOn() const;
    void setTrainOn(const QString &value);
    // Sets data.chat_template and data.train_on.
    void applyTo(Config &config) const;

    bool isPreviewing() const;
    bool hasPreview() const { return !shown_.empty(); }
    QString message() const;
    bool isProblem() const { return problem_; }
    int conversationIndex() const { return index_; }
    int conversationCount() const { return static_cast<int>(shown_.size()); }
    void showConversation(int index);
    // The shown conversation as rendered, and its learned parts (highlighted).
    QString renderedText() const;
    QStringList learnedParts() const;
    QString statsText() const;

Q_SIGNALS:
    // A preview, a problem or the note for a new model is shown.
    void previewShown();

protected:
    void changeEvent(QEvent *event) override;

private:
    struct Result;

    void onTemplateChosen();
    void chooseTemplateFile();
    void startPreview();
    void showResult(const Result &result);
    void updateNavigation();

    QComboBox *template_ = nullptr;
    QLineEdit *template_file_ = nullptr;
    QPushButton *browse_ = nullptr;
    QComboBox *train_on_ = nullptr;
    QLabel *heading_ = nullptr;
    QLabel *title_ = nullptr;
    QToolButton *previous_ = nullptr;
    QToolButton *next_ = nullptr;
    QStackedWidget *stack_ = nullptr;
    QLabel *message_ = nullptr;
    QTextEdit *text_ = nullptr;
    QLabel *stats_ = nullptr;

    QString data_path_;
    QString base_folder_;
    std::int64_t seq_len_ = 0;
    bool template_chosen_ = false; // by the user: kept when the base comes or goes
    BackgroundJob *job_ = nullptr;
    std::shared_ptr<std::atomic<bool>> cancel_;
    bool preview_again_ = false; // the inputs changed while a preview ran
    std::vector<ChatRecordTokens> shown_;
    int index_ = 0;
    bool problem_ = false;
};

} // namespace headroom::ui
