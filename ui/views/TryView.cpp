#include "views/TryView.h"

#include "views/RetrievalTryPanel.h"
#include "views/RunsPanel.h"
#include "wizard/BackgroundJob.h"
#include "wizard/WizardColors.h"

#include <headroom/config.h>
#include <headroom/pretrained.h>

#include <QComboBox>
#include <QDoubleSpinBox>
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
#include <mutex>
#include <string>
#include <utility>

namespace headroom::ui {

namespace {
constexpr std::int64_t kBaseModel = -1;

struct Outcome {
    GenerateResult result;
    QString error;
};
} // namespace

bool isBaseModelProblem(const QString &error) {
    return error.contains(QLatin1String("model.base")) &&
           (error.contains(QLatin1String("is missing")) ||
            error.contains(QLatin1String("is not the one this project was created from")));
}

// Text pieces from the worker, waiting for the UI thread; at most one drain is queued.
struct TryView::Stream {
    std::mutex mutex;
    std::string pending;
    bool posted = false;
};

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

    auto *settings = new QGridLayout;
    settings->setHorizontalSpacing(8);
    const auto add = [this, settings](int row, int column, const QString &text, QWidget *field) {
        auto *label = new QLabel(text, this);
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
    settings->addLayout(buttons, 0, 7);

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

    auto *model_row = new QHBoxLayout;
    model_row->addWidget(model_label);
    model_row->addWidget(model_, 1);
    generation_page_ = new QWidget(this);
    auto *generation = new QVBoxLayout(generation_page_);
    generation->setContentsMargins(0, 0, 0, 0);
    generation->addWidget(prompt_label);
    generation->addWidget(prompt_);
    generation->addLayout(settings);
    generation->addWidget(output_label);
    generation->addWidget(output_, 1);
    generation->addLayout(status_row);
    retrieval_panel_ = new RetrievalTryPanel(this);
    pages_ = new QStackedWidget(this);
    pages_->addWidget(generation_page_);
    pages_->addWidget(retrieval_panel_);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(note_);
    layout->addLayout(model_row);
    layout->addWidget(pages_, 1);

    job_ = new BackgroundJob(this);
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
    connect(model_, &QComboBox::currentIndexChanged, this,
            [this] { retrieval_panel_->setSource(project_path_, selectedRunId()); });
    auto *shortcut = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return), prompt_);
    shortcut->setContext(Qt::WidgetShortcut);
    connect(shortcut, &QShortcut::activated, generate_, &QPushButton::click);
    clearProject();
}

TryView::~TryView() {
    if (stop_flag_) {
        *stop_flag_ = true;
    }
    delete job_; // joins the generation before the view goes
}

void TryView::clearProject() {
    project_path_.clear();
    language_model_ = false;
    retrieval_ = false;
    pretrained_ = false;
    model_->clear();
    retrieval_panel_->setSource(QString(), 0);
    pages_->setCurrentWidget(generation_page_);
    note_->setText(tr("Open a project to try its model."));
    note_->show();
    updateControls();
}

void TryView::setProject(const QString &project_path, const std::vector<RunRecord> &runs) {
    if (project_path != project_path_) {
        stop(); // a generation from the project that is closed ends with it
    }
    const std::int64_t keep = project_path == project_path_ ? selectedRunId() : 0;
    project_path_ = project_path;
    model_->clear();
    QString problem;
    try {
        const Project project = Project::openForReading(project_path.toStdString());
        const Config config = Config::fromJson(project.configJson());
        language_model_ = config.text("recipe") == "gpt";
        retrieval_ = config.text("recipe") == "splade";
        pretrained_ = !config.text("model.base").empty();
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
    pages_->setCurrentWidget(retrieval_ ? static_cast<QWidget *>(retrieval_panel_)
                                        : generation_page_);
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
    return job_->isRunning() || retrieval_panel_->isRanking();
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
    const QString prompt = prompt_->toPlainText();
    if (prompt.trimmed().isEmpty()) {
        return tr("Type a prompt first: the model continues it.");
    }
    GenerateRequest request;
    request.project_path = project_path_.toStdString();
    request.run_id = selectedRunId();
    request.prompt = prompt.toStdString();
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

    stream_ = std::make_shared<Stream>();
    stop_flag_ = std::make_shared<std::atomic<bool>>(false);
    auto stream = stream_;
    auto stop = stop_flag_;
    auto outcome = std::make_shared<Outcome>();
    job_->start(
        [this, request, stream, stop, outcome] {
            const auto on_text = [this, stream](const std::string &piece) {
                bool post = false;
                {
                    const std::lock_guard<std::mutex> lock(stream->mutex);
                    stream->pending += piece;
                    post = !std::exchange(stream->posted, true);
                }
                if (post) {
                    QMetaObject::invokeMethod(this, &TryView::drainText, Qt::QueuedConnection);
                }
            };
            try {
                outcome->result = generateText(request, on_text, stop.get());
            } catch (const std::exception &failure) {
                outcome->error = QString::fromUtf8(failure.what());
            }
        },
        [this, outcome] {
            onFinished(outcome->error, std::int64_t(outcome->result.tokens.size()),
                       outcome->result.seconds, outcome->result.stopped_at_eos,
                       QString::fromStdString(outcome->result.text));
        });
    updateControls();
    return {};
}

void TryView::stop() {
    if (stop_flag_ && isGenerating()) {
        *stop_flag_ = true;
        stop_requested_ = true;
        showStatus(tr("Stopping…"), false);
        stop_->setEnabled(false);
    }
}

void TryView::drainText() {
    if (!stream_) {
        return;
    }
    std::string pending;
    {
        const std::lock_guard<std::mutex> lock(stream_->mutex);
        pending.swap(stream_->pending);
        stream_->posted = false;
    }
    if (pending.empty()) {
        return;
    }
    if (generated_.isEmpty() && !stop_requested_) {
        showStatus(selectedRunId() == kBaseModel
                       ? tr("Generating with the base model…")
                       : tr("Generating with run %1…").arg(selectedRunId()),
                   false);
    }
    const QString piece = QString::fromStdString(pending);
    generated_ += piece;
    QTextCursor cursor(output_->document());
    cursor.movePosition(QTextCursor::End);
    cursor.insertText(piece, QTextCharFormat());
    output_->ensureCursorVisible();
    output_->moveCursor(QTextCursor::End);
}

void TryView::onFinished(const QString &error, std::int64_t tokens, double seconds, bool at_eos,
                         const QString &text) {
    drainText();
    stream_.reset();
    error_ = error;
    if (!error.isEmpty()) {
        showStatus(error, true);
        locate_->setVisible(isBaseModelProblem(error));
    } else {
        if (text != generated_) {
            // The last token may have completed a character the stream held back.
            QTextCursor cursor(output_->document());
            cursor.setPosition(generated_from_);
            cursor.movePosition(QTextCursor::End, QTextCursor::KeepAnchor);
            cursor.insertText(text, QTextCharFormat());
            generated_ = text;
        }
        const QString reason = stop_requested_ ? tr("stopped")
                               : at_eos        ? tr("ended at an end-of-text token")
                                               : tr("reached the token limit");
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
    for (QWidget *control : {static_cast<QWidget *>(max_tokens_),
                             static_cast<QWidget *>(temperature_), static_cast<QWidget *>(top_k_),
                             static_cast<QWidget *>(top_p_), static_cast<QWidget *>(seed_)}) {
        control->setEnabled(usable && !running);
    }
    prompt_->setReadOnly(running);
    prompt_->setEnabled(usable);
    generate_->setEnabled(usable && !running);
    stop_->setEnabled(job_->isRunning() && !stop_requested_);
}

} // namespace headroom::ui
