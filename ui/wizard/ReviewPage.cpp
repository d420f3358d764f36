#include "ReviewPage.h"

#include "BackgroundJob.h"
#include "BaseModelBox.h"
#include "WizardColors.h"

#include <headroom/workflow.h>

#include <QAbstractButton>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>
#include <QWizard>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace headroom::ui {

ReviewPage::ReviewPage(WizardSettings &settings, QWidget *parent)
    : QWizardPage(parent), settings_(settings) {
    setObjectName(QStringLiteral("reviewPage"));
    setTitle(tr("Review and save"));
    setSubTitle(tr("These settings go into the project file. You can change them later on the "
                   "Plan tab."));
    setFinalPage(true);

    settings_text_ = new QPlainTextEdit(this);
    settings_text_->setObjectName(QStringLiteral("reviewSettings"));
    settings_text_->setAccessibleName(tr("Project settings"));
    settings_text_->setReadOnly(true);
    settings_text_->setTabChangesFocus(true);
    settings_text_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));

    project_path_ = new QLineEdit(this);
    project_path_->setObjectName(QStringLiteral("projectPath"));
    project_path_->setAccessibleName(tr("Project file"));
    project_path_->setPlaceholderText(tr("Where to save the project (.headroom)"));
    auto *browse = new QPushButton(tr("B&rowse…"), this);
    browse->setObjectName(QStringLiteral("browseProject"));
    browse->setAccessibleName(tr("Choose where to save the project"));
    auto *row = new QHBoxLayout;
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(project_path_, 1);
    row->addWidget(browse);
    auto *form = new QFormLayout;
    auto *label = new QLabel(tr("&Project file:"), this);
    label->setBuddy(project_path_);
    form->addRow(label, row);

    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("reviewStatus"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *settings_label = new QLabel(tr("&Settings:"), this);
    settings_label->setBuddy(settings_text_);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(settings_label);
    layout->addWidget(settings_text_, 1);
    layout->addLayout(form);
    layout->addWidget(status_);

    job_ = new BackgroundJob(this);
    connect(browse, &QPushButton::clicked, this, &ReviewPage::chooseProjectFile);
    connect(project_path_, &QLineEdit::textChanged, this, [this] {
        created_ = false;
        Q_EMIT completeChanged();
    });
}

void ReviewPage::setProjectPath(const QString &path) {
    project_path_->setText(path);
}

QString ReviewPage::projectPath() const {
    QString path = project_path_->text().trimmed();
    if (!path.isEmpty() && QFileInfo(path).suffix().isEmpty()) {
        path += QStringLiteral(".headroom");
    }
    return path;
}

QString ReviewPage::errorText() const {
    return status_->property("error").toBool() ? status_->text() : QString();
}

bool ReviewPage::isCreating() const {
    return job_->isRunning();
}

void ReviewPage::initializePage() {
    const Config &config = settings_.config;
    const bool gpt = config.isLanguageModel();
    // What the wizard decided, even where it equals the default; then anything else changed.
    std::vector<std::string> keys = {"recipe", "data.path", "device", "memory.budget"};
    const bool splade = config.text("recipe") == "splade";
    const std::vector<std::string> recipe_keys =
        splade
            ? std::vector<std::string>{"model.base",         "tokenizer",       "model.seq_len",
                                       "train.lr",           "splade.lambda_q", "splade.lambda_d",
                                       "splade.warmup_steps"}
        : settings_.pretrained()
            ? std::vector<std::string>{"model.base", "tokenizer",    "model.seq_len",
                                       "lora.rank",  "lora.targets", "model.base_dtype",
                                       "train.lr"}
        : gpt ? std::vector<std::string>{"tokenizer",   "model.params", "model.layers",
                                         "model.heads", "model.dim",    "model.seq_len"}
              : std::vector<std::string>{"data.target", "model.hidden"};
    keys.insert(keys.end(), recipe_keys.begin(), recipe_keys.end());
    for (const char *key : {"precision", "checkpointing", "optimizer", "offload.optimizer",
                            "train.micro_batch", "train.accumulation"}) {
        keys.emplace_back(key);
    }
    for (const auto &[key, value] : config.changed()) {
        // A pretrained model's size is its folder's, whatever model.layers and the like say.
        const bool unused =
            settings_.pretrained() && key.rfind("model.", 0) == 0 && key != "model.dropout";
        if (!unused && std::find(keys.begin(), keys.end(), key) == keys.end()) {
            keys.push_back(key);
        }
    }
    QStringList lines{tr("What it is: %1").arg(projectKind())};
    for (const std::string &key : keys) {
        lines << QStringLiteral("%1 = %2").arg(QString::fromStdString(key),
                                               QString::fromStdString(config.text(key)));
    }
    settings_text_->setPlainText(lines.join('\n'));
    if (project_path_->text().isEmpty()) {
        const QFileInfo data(settings_.data_path);
        project_path_->setText(data.dir().filePath(data.completeBaseName() + ".headroom"));
    }
    showStatus(QString(), false);
}

QString ReviewPage::projectKind() const {
    const std::string recipe = settings_.config.text("recipe");
    if (settings_.base) {
        const QString architecture =
            QStringLiteral("%1, %2").arg(QString::fromStdString(settings_.base->architecture),
                                         BaseModelText::parameters(settings_.base->parameters));
        return settings_.base->encoder
                   ? tr("a pretrained masked language model fine-tuned as a SPLADE retrieval "
                        "encoder (%1)")
                         .arg(architecture)
               : settings_.config.text("train.objective") == "grpo"
                   ? tr("a pretrained causal language model, trained with GRPO on its own sampled "
                        "completions and their rewards (%1)")
                         .arg(architecture)
               : settings_.config.text("train.objective") != "sft"
                   ? tr("a pretrained causal language model, tuned on preference pairs with %1 "
                        "(%2)")
                         .arg(QString::fromStdString(settings_.config.text("train.objective"))
                                  .toUpper(),
                              architecture)
                   : tr("a pretrained causal language model, fine-tuned (%1)").arg(architecture);
    }
    if (recipe == "gpt") {
        return tr("a new GPT language model, trained from scratch");
    }
    if (recipe == "tabular") {
        return tr("a new tabular model, trained from scratch");
    }
    return QString::fromStdString(recipe);
}

bool ReviewPage::isComplete() const {
    return !project_path_->text().trimmed().isEmpty() && !isCreating();
}

bool ReviewPage::validatePage() {
    if (created_) {
        return true;
    }
    startCreating();
    return false; // the wizard finishes when the project exists
}

void ReviewPage::chooseProjectFile() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save Project As"), projectPath(),
                                                      tr("Headroom projects (*.headroom)"));
    if (!path.isEmpty()) {
        project_path_->setText(path);
    }
}

void ReviewPage::startCreating() {
    if (isCreating()) {
        return;
    }
    NewProjectRequest request;
    request.project_path = projectPath().toStdString();
    request.recipe = settings_.config.text("recipe");
    request.data_path = settings_.data_path.toStdString();
    if (settings_.pretrained()) {
        // Recorded by path (relative to the project where it can be) and digest.
        request.base_path = settings_.base->folder;
    }
    request.config_json = settings_.config.toJson();
    showStatus(settings_.pretrained()
                   ? tr("Checking the base model and the data file, creating the project…")
                   : tr("Checking the data file and creating the project…"),
               false);
    auto error = std::make_shared<QString>();
    job_->start(
        [request, error] {
            try {
                createProject(request, [](const std::string &) {});
            } catch (const std::exception &failure) {
                *error = QString::fromUtf8(failure.what());
            }
        },
        [this, error] {
            setNavigationEnabled(true);
            Q_EMIT completeChanged();
            if (!error->isEmpty()) {
                showStatus(*error, true);
                Q_EMIT creationEnded();
                return;
            }
            showStatus(QString(), false);
            created_ = true;
            Q_EMIT creationEnded();
            wizard()->accept();
        });
    Q_EMIT completeChanged(); // QWizard re-enables Back here
    // The project is being written: neither back nor away until it exists or failed.
    setNavigationEnabled(false);
}

void ReviewPage::setNavigationEnabled(bool enabled) {
    for (const QWizard::WizardButton which : {QWizard::BackButton, QWizard::CancelButton}) {
        if (QAbstractButton *button = wizard()->button(which)) {
            button->setEnabled(enabled);
        }
    }
}

void ReviewPage::showStatus(const QString &text, bool error) {
    status_->setText(text);
    status_->setProperty("error", error);
    setTextTone(status_, error ? TextTone::Problem : TextTone::Normal);
}

} // namespace headroom::ui
