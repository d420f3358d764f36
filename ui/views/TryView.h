#pragma once

#include <headroom/pretrained.h>
#include <headroom/project.h>

#include <QWidget>

#include <cstdint>
#include <vector>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QStackedWidget;

namespace headroom::ui {

class ChatTryPanel;
class RetrievalTryPanel;
class StreamingGeneration;

// True for the engine's message about a pretrained project whose base folder moved or changed
// ("... is missing ..." / "... is not the one this project was created from ...", naming
// model.base): the cue to offer Locate Base Model….
bool isBaseModelProblem(const QString &error);

// The Try tab: continue a prompt with a run's weights (or a pretrained project's base as
// imported) — max tokens, temperature, top-k, top-p and seed, the model folder's generation
// defaults where left at "model default". generateText runs on a worker thread (it loads the
// weights first: seconds for a big model); a StreamingGeneration hands its text pieces to the
// UI thread, appended as they arrive. Stop sets the engine's stop flag.
// A language model can chat instead (ChatTryPanel, with the same sampling settings): the
// default where the project trains on conversations or its base has a chat template. A SPLADE
// project ranks passages for a query instead (RetrievalTryPanel).
class TryView : public QWidget {
    Q_OBJECT

public:
    explicit TryView(QWidget *parent = nullptr);
    ~TryView() override;

    // Offers the runs that have a checkpoint and, for a pretrained project, its base.
    void setProject(const QString &project_path, const std::vector<RunRecord> &runs);
    void clearProject();
    // Follows the project panel's selection when that run has a checkpoint.
    void selectRun(std::int64_t run_id);
    // The run whose weights generate (or rank): -1 the base as imported, 0 none.
    std::int64_t selectedRunId() const;
    int modelCount() const;

    // Starts generating; returns why it cannot start, or an empty string.
    QString generate();
    void stop();
    // Generating text or ranking passages.
    bool isGenerating() const;
    // Shown instead of the generation controls for SPLADE projects.
    RetrievalTryPanel *retrievalPanel() const { return retrieval_panel_; }
    bool isRetrievalProject() const { return retrieval_; }
    // Chatting rather than continuing a text (language models only).
    ChatTryPanel *chatPanel() const { return chat_panel_; }
    bool isChatMode() const;
    void setChatMode(bool chat);

    QString outputText() const;
    QString statusText() const;
    // The last generation's (or chat reply's) error, empty when it succeeded.
    QString errorText() const { return error_; }

Q_SIGNALS:
    // A generation ended; error is empty unless it failed.
    void generationFinished(const QString &error);
    // The user asked to point the project at its moved base model (then generate again).
    void locateBaseRequested();

private:
    GenerateRequest requestSettings() const;
    void showPage();
    void appendText(const QString &piece);
    void onFinished(const GenerateResult &result, const QString &error);
    void showStatus(const QString &text, bool error);
    void updateControls();

    QString project_path_;
    bool language_model_ = false;
    bool retrieval_ = false; // a SPLADE encoder: ranks passages rather than generating
    bool pretrained_ = false;

    QLabel *note_ = nullptr;
    QStackedWidget *pages_ = nullptr;
    QWidget *generation_page_ = nullptr;
    RetrievalTryPanel *retrieval_panel_ = nullptr;
    ChatTryPanel *chat_panel_ = nullptr;
    QComboBox *model_ = nullptr;
    QLabel *mode_label_ = nullptr;
    QComboBox *mode_ = nullptr;
    QWidget *sampling_ = nullptr;
    QPlainTextEdit *prompt_ = nullptr;
    QSpinBox *max_tokens_ = nullptr;
    QDoubleSpinBox *temperature_ = nullptr;
    QSpinBox *top_k_ = nullptr;
    QDoubleSpinBox *top_p_ = nullptr;
    QSpinBox *seed_ = nullptr;
    QPushButton *generate_ = nullptr;
    QPushButton *stop_ = nullptr;
    QPlainTextEdit *output_ = nullptr;
    QLabel *status_ = nullptr;
    QPushButton *locate_ = nullptr;

    StreamingGeneration *generation_ = nullptr;
    QString generated_;      // the text of the running or last generation
    int generated_from_ = 0; // where it starts in the output
    QString error_;
    bool stop_requested_ = false;
};

} // namespace headroom::ui
