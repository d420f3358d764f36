#include "views/TryView.h"

#include "runs/StreamingGeneration.h"
#include "views/ChatTryPanel.h"
#include "views/RetrievalTryPanel.h"
#include "views/RunsPanel.h"
#include "wizard/WizardColors.h"

#include <headroom/config.h>
#include <headroom/pretrained.h>

#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QShortcut>
#include <QSpinBox>
#include <QStackedWidget>
#include <QTextCursor>
#include <QVBoxLayout>

#include <limits>
#include <string>

namespace headroom::ui {

namespace {
constexpr std::int64_t kBaseModel = -1;

// Chat is the default where the project trains on conversations or fine-tunes a base that has
// a chat template (the files generation reads it from).
bool chatsByDefault(const Config &config, const QString &project_path) {
    if (config.text("data.format") == "chat" || !config.text("data.chat_template").empty()) {
        return true;
    }
    const QString base = QString::fromStdString(config.text("model.base"));
    if (base.isEmpty()) {
        return false;
    }
    const QDir folder(QFileInfo(project_path).dir().filePath(base));
    if (folder.exists(QStringLiteral("chat_template.jinja")) ||
        folder.exists(QStringLiteral("chat_template.json"))) {
        return true;
    }
    QFile tokenizer_config(folder.filePath(QStringLiteral("tokenizer_config.json")));
    return tokenizer_config.open(QIODevice::ReadOnly) &&
           tokenizer_config.readAll().contains("\"chat_template\"");
}
} // namespace

bool isBaseModelProblem(const QString &error) {
    return error.contains(QLatin1String("model.base")) &&
           (error.contains(QLatin1String("is missing")) ||
            error.contains(QLatin1String("is not the one this project was created from")));
}

TryView::TryView(QWidget *parent) : QWidget(parent) {
    setObjectName(QStringLiteral("tryView"));
    note_ = new QLabel(this);
    note_->setObjectName(QStringLiteral("tryNote"));
    note_->setWordWrap(true);

    model_ = new QComboBox(this);
    model_->setObjectName(QStringLiteral("tryModel"));
    model_->setAccessibleName(tr("Weights to try"));
    model_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    auto *model_label = new QLabel(tr("&Weights:"), this);
    model_label->setBuddy(model_);

    prompt_ = new QPlainTextEdit(this);
    prompt_->setObjectName(QStringLiteral("tryPrompt"));
    prompt_->setAccessibleName(tr("Prompt"));
    prompt_->setPlaceholderText(tr("The text the model continues"));
    prompt_->setTabChangesFocus(true);
    prompt_->setMaximumHeight(prompt_->fontMetrics().lineSpacing() * 5 + 12);
    auto *prompt_label = new QLabel(tr("Pro&mpt:"), this);
    prompt_label->setBuddy(prompt_);

    const QString model_default = tr("model default");
    const QString default_tip = tr("Model default: the model folder's generation_config.json "
                                   "(greedy decoding when it does not sample)");
    max_tokens_ = new QSpinBox(this);
    max_tokens_->setObjectName(QStringLiteral("tryMaxTokens"));
    max_tokens_->setAccessibleName(tr("Maximum new tokens"));
    max_tokens_->setRange(1, 100000);
    max_tokens_->setValue(64);
    temperature_ = new QDoubleSpinBox(this);
    temperature_->setObjectName(QStringLiteral("tryTemperature"));
    temperature_->setAccessibleName(tr("Temperature"));
    temperature_->setDecimals(2);
    temperature_->setRange(-0.1, 100);
    temperature_->setSingleStep(0.1);
    temperature_->setSpecialValueText(model_default);
    temperature_->setValue(-0.1);
    temperature_->setToolTip(default_tip + QLatin1Char('\n') + tr("0 = greedy decoding"));
    top_k_ = new QSpinBox(this);
    top_k_->setObjectName(QStringLiteral("tryTopK"));
    top_k_->setAccessibleName(tr("Top-k"));
    top_k_->setRange(-1, 1000000);
    top_k_->setSpecialValueText(model_default);
    top_k_->setValue(-1);
    top_k_->setToolTip(default_tip + QLatin1Char('\n') + tr("0 = off"));
    top_p_ = new QDoubleSpinBox(this);
    top_p_->setObjectName(QStringLiteral("tryTopP"));
    top_p_->setAccessibleName(tr("Top-p"));
    top_p_->setDecimals(2);
    top_p_->setRange(0, 1);
    top_p_->setSingleStep(0.05);
    top_p_->setSpecialValueText(model_default);
    top_p_->setValue(0);
    top_p_->setToolTip(default_tip);
    seed_ = new QSpinBox(this);
    seed_->setObjectName(QStringLiteral("trySeed"));
    seed_->setAccessibleName(tr("Seed"));
    seed_->setRange(0, std::numeric_limits<int>::max());

    generate_ = new QPushButton(tr("Ge&nerate"), this);
    generate_->setObjectName(QStringLiteral("tryGenerate"));
    generate_->setToolTip(tr("Continue the prompt (Ctrl+Return in the prompt)"));
    generate_->setDefault(true);
    stop_ = new QPushButton(tr("St&op"), this);
    stop_->setObjectName(QStringLiteral("tryStop"));
    stop_->setToolTip(tr("Stop after the current token"));

    // The sampling settings serve continuing a text and chatting alike.
    sampling_ = new QWidget(this);
    auto *settings = new QGridLayout(sampling_);
    settings->setContentsMargins(0, 0, 0, 0);
    settings->setHorizontalSpacing(8);
    const auto add = [this, settings](int row, int column, const QString &text, QWidget *field) {
        auto *label = new QLabel(text, sampling_);
        label->setBuddy(field);
        settings->addWidget(label, row, column * 2, Qt::AlignRight);
        settings->addWidget(field, row, column * 2 + 1);
    };
    add(0, 0, tr("Ma&x. new tokens:"), max_tokens_);
    add(0, 1, tr("T&emperature:"), temperature_);
    add(0, 2, tr("Top-&k:"), top_k_);
    add(1, 0, tr("See&d:"), seed_);
    add(1, 1, tr("Top-p:"), top_p_);
    settings->setColumnStretch(6, 1);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(generate_);
    buttons->addWidget(stop_);
    buttons->addStretch(1);

    output_ = new QPlainTextEdit(this);
    output_->setObjectName(QStringLiteral("tryOutput"));
    output_->setAccessibleName(tr("Generated text"));
    output_->setReadOnly(true);
    output_->setTabChangesFocus(true);
    output_->setPlaceholderText(tr("The prompt and its continuation appear here."));
    auto *output_label = new QLabel(tr("Output:"), this);

    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("tryStatus"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    locate_ = new QPushButton(tr("Locate &Base Model…"), this);
    locate_->setObjectName(QStringLiteral("tryLocateBase"));
    locate_->hide();
    auto *status_row = new QHBoxLayout;
    status_row->addWidget(status_, 1);
    status_row->addWidget(locate_, 0, Qt::AlignTop);

    mode_ = new QComboBox(this);
    mode_->setObjectName(QStringLiteral("tryMode"));
    mode_->setAccessibleName(tr("Continue a text or chat"));
    mode_->addItem(tr("Continue text"), QStringLiteral("text"));
    mode_->addItem(tr("Chat"), QStringLiteral("chat"));
    mode_->setToolTip(tr("Chat renders the conversation with the project's chat template "
                         "(data.chat_template, else the base model's)"));
    mode_label_ = new QLabel(tr("Try a&s:"), this);
    mode_label_->setBuddy(mode_);
    auto *model_row = new QHBoxLayout;
    model_row->addWidget(model_label);
    model_row->addWidget(model_, 1);
    model_row->addSpacing(12);
    model_row->addWidget(mode_label_);
    model_row->addWidget(mode_);
    generation_page_ = new QWidget(this);
    auto *generation = new QVBoxLayout(generation_page_);
    generation->setContentsMargins(0, 0, 0, 0);
    generation->addWidget(prompt_label);
    generation->addWidget(prompt_);
    generation->addLayout(buttons);
    generation->addWidget(output_label);
    generation->addWidget(output_, 1);
    generation->addLayout(status_row);
    retrieval_panel_ = new RetrievalTryPanel(this);
    chat_panel_ = new ChatTryPanel(this);
    chat_panel_->setRequestSource([this] { return requestSettings(); });
    pages_ = new QStackedWidget(this);
    pages_->addWidget(generation_page_);
    pages_->addWidget(chat_panel_);
    pages_->addWidget(retrieval_panel_);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(note_);
    layout->addLayout(model_row);
    layout->addWidget(sampling_);
    layout->addWidget(pages_, 1);

    generation_ = new StreamingGeneration(this);
    connect(generation_, &StreamingGeneration::textArrived, this, &TryView::appendText);
    connect(generation_, &StreamingGeneration::finished, this, &TryView::onFinished);
    connect(generate_, &QPushButton::clicked, this, [this] {
        const QString error = generate();
        if (!error.isEmpty()) {
            showStatus(error, true);
        }
    });
    connect(stop_, &QPushButton::clicked, this, &TryView::stop);
    connect(locate_, &QPushButton::clicked, this, &TryView::locateBaseRequested);
    connect(retrieval_panel_, &RetrievalTryPanel::locateBaseRequested, this,
            &TryView::locateBaseRequested);
    connect(retrieval_panel_, &RetrievalTryPanel::rankingStarted, this, &TryView::updateControls);
    connect(retrieval_panel_, &RetrievalTryPanel::rankingFinished, this, &TryView::updateControls);
    connect(chat_panel_, &ChatTryPanel::locateBaseRequested, this, &TryView::locateBaseRequested);
    connect(chat_panel_, &ChatTryPanel::replyStarted, this, &TryView::updateControls);
    connect(chat_panel_, &ChatTryPanel::replyFinished, this, [this](const QString &error) {
        error_ = error;
        updateControls();
        Q_EMIT generationFinished(error);
    });
    connect(mode_, &QComboBox::currentIndexChanged, this, &TryView::showPage);
    connect(model_, &QComboBox::currentIndexChanged, this,
            [this] { retrieval_panel_->setSource(project_path_, selectedRunId()); });
    auto *shortcut = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return), prompt_);
    shortcut->setContext(Qt::WidgetShortcut);
    connect(shortcut, &QShortcut::activated, generate_, &QPushButton::click);
    clearProject();
}
TryView::~TryView() {
    delete generation_; // stops and joins the generation before the view goes
}

void TryView::clearProject() {
    project_path_.clear();
    language_model_ = false;
    retrieval_ = false;
    pretrained_ = false;
    model_->clear();
    retrieval_panel_->setSource(QString(), 0);
    chat_panel_->clear();
    showPage();
    note_->setText(tr("Open a project to try its model."));
    note_->show();
    updateControls();
}

void TryView::setProject(const QString &project_path, const std::vector<RunRecord> &runs) {
    const bool same_project = project_path == project_path_;
    if (!same_project) {
        stop(); // a generation from the project that is closed ends with it
        chat_panel_->clear();
    }
    const std::int64_t keep = same_project ? selectedRunId() : 0;
    project_path_ = project_path;
    model_->clear();
    QString problem;
    try {
        const Project project = Project::openForReading(project_path.toStdString());
        const Config config = Config::fromJson(project.configJson());
        language_model_ = config.isLanguageModel();
        retrieval_ = config.text("recipe") == "splade";
        pretrained_ = !config.text("model.base").empty();
        if (!same_project) {
            setChatMode(language_model_ && chatsByDefault(config, project_path));
        }
        for (auto run = runs.rbegin(); (language_model_ || retrieval_) && run != runs.rend();
             ++run) {
            if (const auto checkpoint = project.latestCheckpoint(run->id)) {
                model_->addItem(tr("Run %1 · step %2 · %3")
                                    .arg(run->id)
                                    .arg(checkpoint->step)
                                    .arg(runStatusText(run->status)),
                                qint64(run->id));
            }
        }
        if (pretrained_) {
            model_->addItem(
                tr("Base model as imported (%1)")
                    .arg(QFileInfo(QString::fromStdString(config.text("model.base"))).fileName()),
                qint64(kBaseModel));
        }
    } catch (const std::exception &error) {
        language_model_ = false;
        retrieval_ = false;
        problem = QString::fromUtf8(error.what());
    }
    const bool usable = language_model_ || retrieval_;
    if (!problem.isEmpty()) {
        note_->setText(problem);
    } else if (!usable) {
        note_->setText(tr("Only language models generate text: this project trains a tabular "
                          "model."));
    } else if (model_->count() == 0) {
        note_->setText(tr("No run has a checkpoint yet: train a run (F5), then try its weights "
                          "here."));
    }
    note_->setVisible(!usable || model_->count() == 0);
    showPage();
    retrieval_panel_->setSource(project_path_, retrieval_ ? selectedRunId() : 0);
    if (keep != 0) {
        selectRun(keep);
    }
    updateControls();
}

void TryView::selectRun(std::int64_t run_id) {
    const int index = model_->findData(qint64(run_id));
    if (index >= 0 && !isGenerating()) {
        model_->setCurrentIndex(index);
    }
}

std::int64_t TryView::selectedRunId() const {
    return model_->currentIndex() < 0 ? 0 : model_->currentData().toLongLong();
}

int TryView::modelCount() const {
    return model_->count();
}

bool TryView::isGenerating() const {
    return generation_->isRunning() || retrieval_panel_->isRanking() || chat_panel_->isGenerating();
}

bool TryView::isChatMode() const {
    return mode_->currentData().toString() == QLatin1String("chat");
}

void TryView::setChatMode(bool chat) {
    mode_->setCurrentIndex(mode_->findData(chat ? QStringLiteral("chat") : QStringLiteral("text")));
}

// Ranking for a SPLADE project; chatting or continuing a text for a language model.
void TryView::showPage() {
    QWidget *page = generation_page_;
    if (retrieval_) {
        page = retrieval_panel_;
    } else if (language_model_ && isChatMode()) {
        page = chat_panel_;
    }
    pages_->setCurrentWidget(page);
    mode_label_->setVisible(language_model_);
    mode_->setVisible(language_model_);
    sampling_->setVisible(!retrieval_);
}

// The project, the weights and the sampling settings a generation or chat reply uses.
GenerateRequest TryView::requestSettings() const {
    GenerateRequest request;
    request.project_path = project_path_.toStdString();
    request.run_id = selectedRunId();
    request.max_tokens = max_tokens_->value();
    if (temperature_->value() >= 0) {
        request.temperature = temperature_->value();
    }
    if (top_k_->value() >= 0) {
        request.top_k = top_k_->value();
    }
    if (top_p_->value() > 0) {
        request.top_p = top_p_->value();
    }
    request.seed = std::uint64_t(seed_->value());
    return request;
}

QString TryView::outputText() const {
    return output_->toPlainText();
}

QString TryView::statusText() const {
    return status_->text();
}

QString TryView::generate() {
    if (isGenerating()) {
        return tr("A generation is already running.");
    }
    if (retrieval_) {
        return retrieval_panel_->rank();
    }
    if (!language_model_ || selectedRunId() == 0) {
        return note_->text();
    }
    if (isChatMode()) {
        return chat_panel_->send();
    }
    const QString prompt = prompt_->toPlainText();
    if (prompt.trimmed().isEmpty()) {
        return tr("Type a prompt first: the model continues it.");
    }
    GenerateRequest request = requestSettings();
    request.prompt = prompt.toStdString();

    output_->clear();
    QTextCursor cursor(output_->document());
    QTextCharFormat prompt_format;
    prompt_format.setForeground(output_->palette().color(QPalette::PlaceholderText));
    cursor.insertText(prompt, prompt_format);
    generated_from_ = output_->document()->characterCount() - 1;
    generated_.clear();
    error_.clear();
    stop_requested_ = false;
    locate_->hide();
    showStatus(request.run_id == kBaseModel
                   ? tr("Loading the base model…")
                   : tr("Loading the weights of run %1…").arg(request.run_id),
               false);

    generation_->start(request, generateText);
    updateControls();
    return {};
}

void TryView::stop() {
    chat_panel_->stop();
    if (generation_->isRunning()) {
        generation_->stop();
        stop_requested_ = true;
        showStatus(tr("Stopping…"), false);
        stop_->setEnabled(false);
    }
}

void TryView::appendText(const QString &piece) {
    if (generated_.isEmpty() && !stop_requested_) {
        showStatus(selectedRunId() == kBaseModel
                       ? tr("Generating with the base model…")
                       : tr("Generating with run %1…").arg(selectedRunId()),
                   false);
    }
    generated_ += piece;
    QTextCursor cursor(output_->document());
    cursor.movePosition(QTextCursor::End);
    cursor.insertText(piece, QTextCharFormat());
    output_->ensureCursorVisible();
    output_->moveCursor(QTextCursor::End);
}

void TryView::onFinished(const GenerateResult &result, const QString &error) {
    error_ = error;
    if (!error.isEmpty()) {
        showStatus(error, true);
        locate_->setVisible(isBaseModelProblem(error));
    } else {
        const QString text = QString::fromStdString(result.text);
        if (text != generated_) {
            // The last token may have completed a character the stream held back.
            QTextCursor cursor(output_->document());
            cursor.setPosition(generated_from_);
            cursor.movePosition(QTextCursor::End, QTextCursor::KeepAnchor);
            cursor.insertText(text, QTextCharFormat());
            generated_ = text;
        }
        const QString reason = stop_requested_         ? tr("stopped")
                               : result.stopped_at_eos ? tr("ended at an end-of-text token")
                                                       : tr("reached the token limit");
        const auto tokens = std::int64_t(result.tokens.size());
        const double seconds = result.seconds;
        const double rate = seconds > 0 ? double(tokens) / seconds : 0.0;
        const QLocale locale;
        showStatus(
            tr("%1 new tokens in %2 s (%3 tokens/s); %4.")
                .arg(tokens)
                .arg(locale.toString(seconds, 'f', 2), locale.toString(rate, 'f', 1), reason),
            false);
    }
    updateControls();
    Q_EMIT generationFinished(error);
}

void TryView::showStatus(const QString &text, bool error) {
    status_->setText(text);
    status_->setProperty("error", error);
    setTextTone(status_, error ? TextTone::Problem : TextTone::Normal);
}

void TryView::updateControls() {
    const bool running = isGenerating();
    const bool usable = language_model_ && model_->count() > 0;
    model_->setEnabled((language_model_ || retrieval_) && model_->count() > 0 && !running);
    mode_->setEnabled(language_model_ && !running);
    chat_panel_->setAvailable(usable);
    for (QWidget *control : {static_cast<QWidget *>(max_tokens_),
                             static_cast<QWidget *>(temperature_), static_cast<QWidget *>(top_k_),
                             static_cast<QWidget *>(top_p_), static_cast<QWidget *>(seed_)}) {
        control->setEnabled(usable && !running);
    }
    prompt_->setReadOnly(running);
    prompt_->setEnabled(usable);
    generate_->setEnabled(usable && !running);
    stop_->setEnabled(generation_->isRunning() && !stop_requested_);
}

} // namespace headroom::ui
