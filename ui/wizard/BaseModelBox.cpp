#include "BaseModelBox.h"

#include "BackgroundJob.h"
#include "LoraControls.h"
#include "WizardColors.h"
#include "look/DisplayText.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>

namespace headroom::ui {

namespace {

struct Inspection {
    std::optional<PretrainedInfo> info;
    QString error;
    std::optional<Plan> plan; // the planner's answer for the base on the chosen profile
};

// The settings the wizard proposes for a base: its tokenizer and context; a causal language
// model trains LoRA on the attention's query and value projections, a masked one every weight
// as a SPLADE encoder.
Config configForBase(Config config, const PretrainedInfo &info) {
    config.set("recipe", info.encoder ? "splade" : "causal_lm");
    config.set("tokenizer", "base");
    config.set("model.base", info.folder);
    config.set("model.seq_len", std::to_string(proposedContext(info)));
    if (!info.encoder) {
        config.set("lora.rank", "8");
        config.set("lora.targets", defaultLoraTargets(info).toStdString());
    } else {
        config.set("lora.rank", "0");
    }
    return config;
}

} // namespace

std::int64_t proposedContext(const PretrainedInfo &info) {
    return std::min<std::int64_t>(info.encoder ? 128 : 256, info.context);
}

QString BaseModelText::parameters(std::int64_t count) {
    const QLocale locale;
    if (count >= 1000000000) {
        return tr("%1 billion parameters").arg(locale.toString(double(count) / 1e9, 'f', 1));
    }
    if (count >= 1000000) {
        return tr("%1 million parameters").arg(locale.toString(double(count) / 1e6, 'f', 1));
    }
    return tr("%1 parameters").arg(locale.toString(qint64(count)));
}

QString BaseModelText::summaryHtml(const PretrainedInfo &info) {
    const QLocale locale;
    QString tokenizer = QString::fromStdString(info.tokenizer);
    // The engine names the tokenizer file by its full path; the folder is shown above it.
    tokenizer.remove(QDir(QString::fromStdString(info.folder)).absolutePath() + QLatin1Char('/'));
    QString stored =
        tr("Stored as %1, %2 on disk")
            .arg(QString::fromStdString(info.dtype), DisplayText::bytes(info.weight_bytes));
    if (info.weight_files > 1) {
        stored += tr(" in %1 shards").arg(info.weight_files);
    }
    const auto count = std::uint64_t(std::max<std::int64_t>(0, info.parameters));
    QStringList lines = {
        QStringLiteral("<b>%1</b> · %2")
            .arg(QString::fromStdString(info.architecture).toHtmlEscaped(),
                 parameters(info.parameters)),
        tr("%1 layers · width %2 · %3 attention heads (%4 for keys and values) · vocabulary %5")
            .arg(info.layers)
            .arg(info.dim)
            .arg(info.heads)
            .arg(info.kv_heads)
            .arg(locale.toString(qint64(info.vocab_size))),
        tr("Context length: %1 tokens").arg(locale.toString(qint64(info.context))) +
            QStringLiteral(" · ") + stored.toHtmlEscaped(),
        tr("Tokenizer: %1").arg(tokenizer.toHtmlEscaped()),
        tr("Memory for the weights: %1 in fp32 · %2 in bf16")
            .arg(DisplayText::bytes(count * 4), DisplayText::bytes(count * 2))};
    if (info.experts > 0) {
        lines.insert(2, tr("Mixture of Experts: %1 experts in every layer, each token routed to "
                           "%2 of them (all experts are held in memory)")
                            .arg(info.experts)
                            .arg(info.experts_per_token));
    }
    if (info.encoder) {
        lines.insert(1, tr("A masked language model: it trains as a <b>SPLADE sparse retrieval "
                           "encoder</b> (queries and passages become weighted vocabulary "
                           "terms; every weight is fine-tuned)."));
    }
    return lines.join(QStringLiteral("<br>"));
}

bool BaseModelText::plannerCovers(const MemoryEstimate &estimate, const PretrainedInfo &info) {
    if (info.parameters <= 0) {
        return false;
    }
    // With LoRA the count may include the adapters (the trainable part).
    const std::int64_t adapters = estimate.trainable < estimate.parameters ? estimate.trainable : 0;
    const double tolerance = 0.02 * double(info.parameters);
    const auto near = [&](std::int64_t count) {
        return std::abs(double(count - info.parameters)) <= tolerance;
    };
    return near(estimate.parameters) || near(estimate.parameters - adapters);
}

BaseModelBox::BaseModelBox(WizardSettings &settings, QWidget *parent)
    : QWidget(parent), settings_(settings) {
    setObjectName(QStringLiteral("baseModelBox"));
    folder_ = new QComboBox(this);
    folder_->setObjectName(QStringLiteral("baseFolderChoice"));
    folder_->setEditable(true);
    folder_->setInsertPolicy(QComboBox::NoInsert);
    // Long paths must not widen the wizard.
    folder_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    folder_->setMinimumContentsLength(20);
    folder_->setAccessibleName(tr("Base model folder"));
    folderEdit()->setObjectName(QStringLiteral("baseFolder"));
    folderEdit()->setPlaceholderText(
        tr("A Hugging Face folder: config.json, *.safetensors, tokenizer"));
    auto *browse = new QPushButton(tr("Bro&wse…"), this);
    browse->setObjectName(QStringLiteral("browseBase"));
    browse->setAccessibleName(tr("Choose the base model folder"));
    details_ = new QLabel(this);
    details_->setObjectName(QStringLiteral("baseDetails"));
    details_->setWordWrap(true);
    details_->setTextFormat(Qt::RichText);
    details_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *row = new QHBoxLayout;
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(folder_, 1);
    row->addWidget(browse);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(row);
    layout->addWidget(details_);

    debounce_ = new QTimer(this);
    debounce_->setSingleShot(true);
    debounce_->setInterval(300);
    job_ = new BackgroundJob(this);
    connect(debounce_, &QTimer::timeout, this, &BaseModelBox::startCheck);
    connect(browse, &QPushButton::clicked, this, &BaseModelBox::chooseFolder);
    connect(folder_, &QComboBox::editTextChanged, this, &BaseModelBox::scheduleCheck);
    scheduleCheck();
}

BaseModelBox::~BaseModelBox() {
    delete job_; // joins a running inspection before the box goes
}

QLineEdit *BaseModelBox::folderEdit() const {
    return folder_->lineEdit();
}

void BaseModelBox::setFolder(const QString &folder) {
    folder_->setEditText(folder);
}

QString BaseModelBox::folder() const {
    return folder_->currentText().trimmed();
}

void BaseModelBox::setRecentFolders(const QStringList &folders) {
    const QString typed = folder_->currentText();
    const QSignalBlocker quiet(folder_);
    folder_->clear();
    for (const QString &recent : folders) {
        folder_->addItem(QDir::toNativeSeparators(recent));
        folder_->setItemData(folder_->count() - 1, recent, Qt::ToolTipRole);
    }
    folder_->setCurrentIndex(-1);
    folder_->setEditText(typed);
}

QStringList BaseModelBox::recentFolders() const {
    QStringList folders;
    for (int i = 0; i < folder_->count(); ++i) {
        folders << folder_->itemText(i);
    }
    return folders;
}

void BaseModelBox::recheck() {
    scheduleCheck();
}

bool BaseModelBox::isChecking() const {
    return job_->isRunning() || debounce_->isActive();
}

void BaseModelBox::chooseFolder() {
    const QString chosen =
        QFileDialog::getExistingDirectory(this, tr("Choose a Pretrained Model Folder"), folder());
    if (!chosen.isEmpty()) {
        setFolder(QDir::toNativeSeparators(chosen));
    }
}

void BaseModelBox::scheduleCheck() {
    info_.reset();
    problem_.clear();
    Q_EMIT edited();
    if (folder().isEmpty()) {
        debounce_->stop();
        problem_ = tr("Choose the folder of a pretrained model.");
        details_->setText(problem_.toHtmlEscaped());
        setTextTone(details_, TextTone::Normal);
        Q_EMIT checked();
        return;
    }
    details_->setText(tr("Reading the model folder…"));
    setTextTone(details_, TextTone::Normal);
    debounce_->start();
}

void BaseModelBox::startCheck() {
    if (job_->isRunning()) {
        check_again_ = true;
        return;
    }
    const std::string folder = QDir::fromNativeSeparators(this->folder()).toStdString();
    const Config config = settings_.config;
    const HardwareProfile profile = settings_.profile;
    auto result = std::make_shared<Inspection>();
    job_->start(
        [folder, config, profile, result] {
            try {
                result->info = inspectPretrained(folder);
            } catch (const std::exception &failure) {
                result->error = QString::fromUtf8(failure.what());
                return;
            }
            if (profile.budget_bytes == 0) {
                return; // no profile chosen yet
            }
            try {
                ModelFacts facts;
                facts.vocab_size = result->info->vocab_size;
                const Plan plan =
                    recommendPlan(configForBase(config, *result->info), facts, profile);
                if (BaseModelText::plannerCovers(plan.estimate, *result->info)) {
                    result->plan = plan;
                }
            } catch (const std::exception &) {
                // A planner without pretrained support: the weights' size is shown instead.
            }
        },
        [this, result] {
            if (check_again_ || debounce_->isActive()) {
                check_again_ = false;
                debounce_->start();
                return;
            }
            if (!result->info) {
                problem_ = result->error;
                details_->setText(DisplayText::breakablePaths(problem_).toHtmlEscaped());
                setTextTone(details_, TextTone::Problem);
                Q_EMIT checked();
                return;
            }
            info_ = result->info;
            const HardwareProfile &profile = settings_.profile;
            const QString where = DisplayText::profileLabel(profile, settings_.devices);
            QString verdict;
            TextTone tone = TextTone::Normal;
            const std::uint64_t weights =
                std::uint64_t(std::max<std::int64_t>(0, info_->parameters)) * 4;
            if (result->plan) {
                verdict = tr("Memory plan (%1): %2")
                              .arg(where, QString::fromStdString(result->plan->summary));
                tone = result->plan->feasible ? TextTone::Normal : TextTone::Problem;
            } else if (profile.budget_bytes > 0 && weights > profile.budget_bytes) {
                verdict = tr("The weights alone need more than the %1 budget of %2 in fp32.")
                              .arg(DisplayText::bytes(profile.budget_bytes), where);
                tone = TextTone::Problem;
            } else if (profile.budget_bytes > 0) {
                verdict = tr("The fp32 weights take %1 % of the %2 budget of %3; training needs "
                             "more for gradients, optimizer state and activations.")
                              .arg(std::max<std::uint64_t>(1, 100 * weights / profile.budget_bytes))
                              .arg(DisplayText::bytes(profile.budget_bytes), where);
            }
            QString html = BaseModelText::summaryHtml(*info_);
            if (!verdict.isEmpty()) {
                html += QStringLiteral("<br>") + verdict.toHtmlEscaped();
            }
            details_->setText(html);
            setTextTone(details_, tone);
            Q_EMIT checked();
        });
}

} // namespace headroom::ui
