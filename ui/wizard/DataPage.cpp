#include "DataPage.h"

#include "BackgroundJob.h"
#include "BaseModelBox.h"
#include "ChatPreviewPanel.h"
#include "LoraControls.h"
#include "ObjectiveBox.h"
#include "RewardField.h"
#include "TokenPreviewPanel.h"
#include "WizardColors.h"
#include "WizardForms.h"
#include "look/DisplayText.h"

#include <headroom/data_preview.h>
#include <headroom/token_preview.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <memory>

namespace headroom::ui {

namespace {
constexpr int kPreviewRows = 6;

struct CheckResult {
    DataPreview preview;
    DataPlan plan;
    QString error;
};

struct TokenResult {
    TokenPreview preview;
    QString error;
};
} // namespace

DataPage::DataPage(WizardSettings &settings, QWidget *parent)
    : QWizardPage(parent), settings_(settings) {
    setObjectName(QStringLiteral("dataPage"));
    setTitle(tr("Task and data"));
    setSubTitle(tr("Choose what to train and the file to learn from. The whole file is checked "
                   "before you can go on."));
    setAcceptDrops(true);

    recipe_ = new QComboBox(this);
    recipe_->setObjectName(QStringLiteral("recipe"));
    recipe_->setAccessibleName(tr("Recipe"));
    // Fine-tuning a pretrained model is what most people come for: first, and the default.
    recipe_->addItem(tr("Start from a pretrained model (Hugging Face folder)"),
                     QStringLiteral("pretrained"));
    recipe_->addItem(tr("New GPT language model from scratch (text, JSONL or CSV text column)"),
                     QStringLiteral("gpt"));
    recipe_->addItem(tr("Tabular model (CSV, predicts a column)"), QStringLiteral("tabular"));
    base_box_ = new BaseModelBox(settings_, this);

    data_path_ = new QLineEdit(this);
    data_path_->setObjectName(QStringLiteral("dataPath"));
    data_path_->setAccessibleName(tr("Data file"));
    data_path_->setPlaceholderText(tr("A text, JSON, JSONL or CSV file (or drop one here)"));
    auto *browse = new QPushButton(tr("&Browse…"), this);
    browse->setObjectName(QStringLiteral("browseData"));
    browse->setAccessibleName(tr("Choose the data file"));
    auto *path_row = new QHBoxLayout;
    path_row->setContentsMargins(0, 0, 0, 0);
    path_row->addWidget(data_path_, 1);
    path_row->addWidget(browse);

    tokenizer_ = new QComboBox(this);
    tokenizer_->setObjectName(QStringLiteral("tokenizer"));
    tokenizer_->setAccessibleName(tr("Tokenizer"));
    tokenizer_->addItem(tr("Bytes (no training needed)"), QStringLiteral("byte"));
    tokenizer_->addItem(tr("BPE (SentencePiece, trained on the file)"), QStringLiteral("bpe"));
    tokenizer_->addItem(tr("Unigram (SentencePiece, trained on the file)"),
                        QStringLiteral("unigram"));
    target_ = new QComboBox(this);
    target_->setObjectName(QStringLiteral("target"));
    target_->setAccessibleName(tr("Target column"));

    auto *form = new QFormLayout;
    addBuddyRow(form, tr("&Recipe:"), recipe_, this);
    base_label_ = buddyLabel(tr("Base &model:"), base_box_->folderEdit(), this);
    // Level with the folder field, the first line of the box that grows below it.
    base_label_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    base_label_->setContentsMargins(0,
                                    std::max(0, (base_box_->folderEdit()->sizeHint().height() -
                                                 base_label_->fontMetrics().height()) /
                                                    2),
                                    0, 0);
    form->addRow(base_label_, base_box_);
    form->addRow(buddyLabel(tr("&Data file:"), data_path_, this), path_row);
    tokenizer_label_ = addBuddyRow(form, tr("&Tokenizer:"), tokenizer_, this);
    target_label_ = addBuddyRow(form, tr("T&arget column:"), target_, this);
    packing_ = new QCheckBox(tr("&Pack short records side by side into full windows"), this);
    packing_->setObjectName(QStringLiteral("packing"));
    packing_->setToolTip(
        tr("data.packing: several records share one window of model.seq_len tokens, each "
           "seeing only itself, instead of one window per record padded to the longest of its "
           "batch. The same losses, far fewer padding tokens when records are short."));
    form->addRow(QString(), packing_);
    objective_ = new ObjectiveBox(this); // shown for preference data (updateObjectiveRow)
    objective_label_ = addBuddyRow(form, tr("&Objective:"), objective_, this);
    reward_ = new RewardField(this); // shown for prompts (updateObjectiveRow)
    form->addRow(reward_->label(), reward_);

    retrieval_format_ = new QLabel(
        tr("Retrieval data: a JSON array or a JSONL file (one object per line) of records with "
           "\"query\", \"positive\" (or \"positives\", a list) and optionally \"negatives\" "
           "(hard negatives, a list), e.g. {\"query\": \"capital of France\", \"positive\": "
           "\"Paris is the capital of France.\", \"negatives\": [\"Lyon is a city in "
           "France.\"]}"),
        this);
    retrieval_format_->setObjectName(QStringLiteral("retrievalFormat"));
    retrieval_format_->setWordWrap(true);
    retrieval_format_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    retrieval_format_->hide();
    form->addRow(QString(), retrieval_format_);

    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("dataStatus"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_ = new QLabel(this);
    summary_->setObjectName(QStringLiteral("dataSummary"));
    summary_->setWordWrap(true);
    preview_ = new QPlainTextEdit(this);
    preview_->setObjectName(QStringLiteral("dataPreview"));
    preview_->setAccessibleName(tr("Preview of the first records"));
    preview_->setReadOnly(true);
    preview_->setLineWrapMode(QPlainTextEdit::NoWrap);
    preview_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    preview_->setTabChangesFocus(true);
    tokens_ = new TokenPreviewPanel(this);
    chat_ = new ChatPreviewPanel(this);
    chat_->hide();

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(status_);
    layout->addWidget(summary_);
    auto *preview_label = new QLabel(tr("&First records:"), this);
    preview_label->setBuddy(preview_);
    layout->addWidget(preview_label);
    layout->addWidget(preview_, 1);
    layout->addWidget(tokens_);
    layout->addWidget(chat_);

    debounce_ = new QTimer(this);
    debounce_->setSingleShot(true);
    debounce_->setInterval(300);
    job_ = new BackgroundJob(this);
    token_job_ = new BackgroundJob(this);

    connect(debounce_, &QTimer::timeout, this, &DataPage::startCheck);
    connect(browse, &QPushButton::clicked, this, &DataPage::chooseDataFile);
    connect(recipe_, &QComboBox::currentIndexChanged, this, &DataPage::onRecipeChanged);
    connect(data_path_, &QLineEdit::textChanged, this, [this] {
        columns_.clear();
        scheduleCheck();
    });
    connect(tokenizer_, &QComboBox::currentIndexChanged, this, &DataPage::scheduleCheck);
    connect(target_, &QComboBox::activated, this, &DataPage::scheduleCheck);
    connect(base_box_, &BaseModelBox::edited, this, &DataPage::completeChanged);
    connect(base_box_, &BaseModelBox::checked, this, &DataPage::completeChanged);
    connect(base_box_, &BaseModelBox::checked, this, &DataPage::onBaseChecked);
    connect(base_box_, &BaseModelBox::edited, this, &DataPage::startTokenPreview);
    connect(chat_, &ChatPreviewPanel::previewShown, this, &DataPage::tokensShown);
    connect(objective_, &QComboBox::currentIndexChanged, this, &DataPage::startTokenPreview);
    connect(reward_, &RewardField::changed, this, &DataPage::completeChanged);
    onRecipeChanged();
}

void DataPage::setDataPath(const QString &path) {
    if (QFileInfo(path).isDir()) {
        setBaseFolder(path); // a dropped model folder
        return;
    }
    // A CSV file suggests the tabular recipe, unless the text of a chosen pretrained model's
    // fine-tuning comes from a CSV column.
    if (QFileInfo(path).suffix().compare(QLatin1String("csv"), Qt::CaseInsensitive) == 0 &&
        !(isPretrained() && !base_box_->folder().isEmpty())) {
        recipe_->setCurrentIndex(recipe_->findData(QStringLiteral("tabular")));
    }
    data_path_->setText(path);
}

void DataPage::setBaseFolder(const QString &folder) {
    recipe_->setCurrentIndex(recipe_->findData(QStringLiteral("pretrained")));
    base_box_->setFolder(folder);
}

void DataPage::selectRecipe(const QString &recipe) {
    const int index = recipe_->findData(recipe);
    if (index >= 0) {
        recipe_->setCurrentIndex(index);
    }
}

bool DataPage::isPretrained() const {
    return recipe_->currentData().toString() == QLatin1String("pretrained");
}

bool DataPage::isRetrievalEncoder() const {
    return isPretrained() && base_box_->info() && base_box_->info()->encoder;
}

bool DataPage::isLanguageModel() const {
    return recipe_->currentData().toString() != QLatin1String("tabular") && !isRetrievalEncoder();
}

std::string DataPage::recipeKey() const {
    if (isPretrained()) {
        return isRetrievalEncoder() ? "splade" : "gpt";
    }
    return recipe_->currentData().toString().toStdString();
}

// A masked language model reads retrieval records, a causal one text: the data file is
// checked again when the base changes which.
void DataPage::onBaseChecked() {
    updateObjectiveRow();
    updatePreviewPanels();
    if (recipeKey() != checked_recipe_ && !data_path_->text().trimmed().isEmpty()) {
        scheduleCheck();
        return;
    }
    startTokenPreview();
}

bool DataPage::offersObjective() const {
    return preference_data_ && isPretrained() && !isRetrievalEncoder();
}

// Pairs are not packed: the objective row replaces the packing box.
void DataPage::updateObjectiveRow() {
    const bool offered = offersObjective();
    objective_label_->setVisible(offered);
    objective_->setVisible(offered);
    reward_->setRowVisible(offered && objective_->isGrpo());
    packing_->setVisible(isLanguageModel() && !offered);
}

bool DataPage::isChecking() const {
    return job_->isRunning() || debounce_->isActive() ||
           (isPretrained() && base_box_->isChecking());
}

void DataPage::initializePage() {
    // The base's verdict names the hardware profile: check again when it changed.
    const QString profile = QString::fromStdString(settings_.profile.id) + QLatin1Char('/') +
                            QString::number(settings_.profile.budget_bytes);
    if (profile != checked_profile_) {
        checked_profile_ = profile;
        if (isPretrained()) {
            base_box_->recheck();
        }
    }
}

void DataPage::chooseDataFile() {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Choose Data"), data_path_->text(),
                                     tr("Data files (*.txt *.json *.jsonl *.csv);;All files (*)"));
    if (!path.isEmpty()) {
        setDataPath(path);
    }
}

void DataPage::onRecipeChanged() {
    const QString recipe = recipe_->currentData().toString();
    const bool gpt = recipe == QLatin1String("gpt");
    const bool pretrained = recipe == QLatin1String("pretrained");
    base_label_->setVisible(pretrained);
    base_box_->setVisible(pretrained);
    tokenizer_label_->setVisible(gpt);
    tokenizer_->setVisible(gpt);
    target_label_->setVisible(!gpt && !pretrained);
    target_->setVisible(!gpt && !pretrained);
    updateObjectiveRow();
    updatePreviewPanels();
    if (pretrained && base_box_->folder().isEmpty()) {
        base_box_->folderEdit()->setFocus();
    }
    scheduleCheck();
}

// The settings the data file is checked with: a pretrained model reads text as the gpt recipe
// does, or retrieval records as splade does (its tokenizer comes later, from the folder).
Config DataPage::currentConfig() const {
    Config config = settings_.config;
    const bool pretrained = isPretrained();
    config.set("recipe", recipeKey());
    config.set("tokenizer",
               pretrained ? "byte" : tokenizer_->currentData().toString().toStdString());
    config.set("model.base", "");
    config.set("data.target", target_->currentText().toStdString());
    const bool pairs = offersObjective();
    config.set("data.packing", isLanguageModel() && !pairs && packing_->isChecked() ? "1" : "0");
    config.set("train.objective",
               pairs ? objective_->currentData().toString().toStdString() : std::string("sft"));
    config.set("grpo.reward", pairs && objective_->isGrpo() ? reward_->text().toStdString() : "");
    if (chat_data_) {
        chat_->applyTo(config);
    } else {
        for (const char *key : {"data.chat_template", "data.train_on"}) {
            config.set(key, findConfigKey(key)->default_value);
        }
    }
    if (isRetrievalEncoder()) {
        // Retrieval data has no shapes of its own: the planner's come from the encoder.
        config.set("tokenizer", "base");
        config.set("model.base", base_box_->info()->folder);
    }
    return config;
}

// The base model's keys: its folder and tokenizer always; the context, LoRA and learning rate
// the wizard proposes only when the base is new (a revisit keeps what the later pages chose).
void DataPage::applyBaseSettings(Config &config) {
    const PretrainedInfo &info = *base_box_->info();
    config.set("recipe", info.encoder ? "splade" : "causal_lm");
    config.set("tokenizer", "base");
    config.set("model.base", info.folder);
    config.set("model.params", "0");
    if (configured_base_ != QString::fromStdString(info.folder)) {
        configured_base_ = QString::fromStdString(info.folder);
        config.set("model.seq_len", std::to_string(proposedContext(info)));
        // SPLADE fine-tunes every weight of the encoder (it has no LoRA adapters).
        config.set("lora.rank", info.encoder ? "0" : "8");
        config.set("lora.targets", info.encoder ? findConfigKey("lora.targets")->default_value
                                                : defaultLoraTargets(info).toStdString());
        config.set("train.lr", pretrainedLearningRate(!info.encoder));
    }
    settings_.base = info;
    settings_.facts.vocab_size = info.vocab_size;
}

void DataPage::scheduleCheck() {
    checked_ok_ = false;
    settings_.facts_known = false;
    if (data_path_->text().trimmed().isEmpty()) {
        debounce_->stop();
        showProblem(tr("Choose a data file."));
        preview_->clear();
        summary_->clear();
        chat_data_ = false;
        updatePreviewPanels();
        tokens_->showMessage(tr("Choose a data file to see it tokenized."));
        Q_EMIT completeChanged();
        return;
    }
    showStatus(tr("Checking the data file…"));
    debounce_->start();
    Q_EMIT completeChanged();
}

void DataPage::startCheck() {
    if (job_->isRunning()) {
        check_again_ = true;
        return;
    }
    const Config config = currentConfig();
    checked_recipe_ = config.text("recipe");
    const std::string path = data_path_->text().trimmed().toStdString();
    auto result = std::make_shared<CheckResult>();
    job_->start(
        [config, path, result] {
            try {
                result->preview = previewData(config, path, kPreviewRows);
                result->plan = planForData(config, path);
            } catch (const std::exception &failure) {
                result->error = QString::fromUtf8(failure.what());
            }
        },
        [this, result] {
            if (check_again_ || debounce_->isActive()) {
                check_again_ = false;
                debounce_->start();
                return;
            }
            chat_data_ = result->error.isEmpty() && holdsConversations(result->preview);
            preference_data_ =
                objective_->offerFor(result->error.isEmpty() ? result->preview : DataPreview{});
            if (preference_data_ && !isPretrained()) {
                result->error = ObjectiveBox::needsPretrained(result->preview);
            }
            updateObjectiveRow();
            updatePreviewPanels();
            if (!result->error.isEmpty()) {
                preview_->clear();
                summary_->clear();
                showProblem(result->error);
                tokens_->showProblem(tr("Nothing to tokenize: %1").arg(result->error));
                Q_EMIT tokensShown();
            } else {
                const DataPreview &preview = result->preview;
                QStringList columns;
                for (const std::string &column : preview.columns) {
                    columns << QString::fromStdString(column);
                }
                if (columns != columns_) {
                    columns_ = columns;
                    const QString current = target_->currentText();
                    target_->clear();
                    target_->addItems(columns);
                    // The trainer's default target is the last column.
                    target_->setCurrentIndex(columns.contains(current) ? columns.indexOf(current)
                                                                       : int(columns.size()) - 1);
                }
                QStringList lines;
                for (const std::string &line : preview.preview) {
                    lines << QString::fromStdString(line);
                }
                preview_->setPlainText(lines.join('\n'));
                summary_->setText(tr("%1 file, %2 records, %3")
                                      .arg(QString::fromStdString(preview.format).toUpper())
                                      .arg(preview.records)
                                      .arg(DisplayText::bytes(preview.bytes)));
                showStatus(tr("The data file reads cleanly."));
                settings_.facts = result->plan.facts;
                settings_.data_defaults = result->plan.defaults;
                settings_.facts_known = true;
                checked_ok_ = true;
                startTokenPreview();
            }
            Q_EMIT completeChanged();
            Q_EMIT checked();
        });
}

bool DataPage::isTokenizing() const {
    return token_job_->isRunning();
}

// After a clean data check: the sample and statistics with the tokenizer the project will
// have. SentencePiece is trained on the first lines for it, so it runs in the background too.
void DataPage::startTokenPreview() {
    if (recipe_->currentData().toString() == QLatin1String("tabular") || !checked_ok_ ||
        isRetrievalEncoder()) {
        return; // the data check calls again when it is done
    }
    if (token_job_->isRunning()) {
        tokenize_again_ = true;
        return;
    }
    Config config = currentConfig();
    QString working = tr("Tokenizing the first lines…");
    if (isPretrained()) {
        if (base_box_->isChecking()) {
            showTokenMessage(tr("Reading the model folder…"), false);
            return;
        }
        if (!base_box_->isReady()) {
            if (base_box_->problem().isEmpty()) {
                showTokenMessage(tr("Choose the model folder to see its tokenizer at work."),
                                 false);
            } else {
                showTokenMessage(
                    tr("The model folder cannot be used: %1").arg(base_box_->problem()), true);
            }
            Q_EMIT tokensShown();
            return;
        }
        const PretrainedInfo &info = *base_box_->info();
        config.set("model.base", info.folder);
        if (configured_base_ != QString::fromStdString(info.folder)) {
            config.set("model.seq_len", std::to_string(proposedContext(info)));
        }
    } else if (config.text("tokenizer") != "byte") {
        working = tr("Training the tokenizer on the first lines…");
    }
    const std::string path = data_path_->text().trimmed().toStdString();
    if (chat_data_) {
        chat_->setSource(QString::fromStdString(path),
                         QString::fromStdString(config.text("model.base")),
                         config.integer("model.seq_len"));
        return;
    }
    tokens_->showMessage(working);
    auto result = std::make_shared<TokenResult>();
    token_job_->start(
        [config, path, result] {
            try {
                result->preview = previewTokens(config, path);
            } catch (const std::exception &failure) {
                result->error = QString::fromUtf8(failure.what());
            }
        },
        [this, result] {
            if (tokenize_again_ || !checked_ok_) {
                tokenize_again_ = false;
                startTokenPreview(); // with the inputs as they are now
                return;
            }
            if (result->error.isEmpty()) {
                tokens_->showPreview(result->preview);
            } else {
                tokens_->showProblem(tr("Cannot tokenize the file: %1").arg(result->error));
            }
            Q_EMIT tokensShown();
        });
}

// Conversations get the chat panel, other text the token preview; tabular data and a retrieval
// encoder's records neither.
void DataPage::updatePreviewPanels() {
    const bool text =
        recipe_->currentData().toString() != QLatin1String("tabular") && !isRetrievalEncoder();
    tokens_->setVisible(text && !chat_data_);
    chat_->setVisible(text && chat_data_);
    retrieval_format_->setVisible(isRetrievalEncoder());
}

void DataPage::showTokenMessage(const QString &text, bool problem) {
    if (chat_data_) {
        problem ? chat_->showProblem(text) : chat_->showMessage(text);
    } else {
        problem ? tokens_->showProblem(text) : tokens_->showMessage(text);
    }
}

void DataPage::showStatus(const QString &text) {
    problem_.clear();
    status_->setProperty("error", false);
    status_->setText(text);
    setTextTone(status_, TextTone::Normal);
}

void DataPage::showProblem(const QString &problem) {
    problem_ = problem;
    status_->setProperty("error", true);
    status_->setText(problem);
    setTextTone(status_, TextTone::Problem);
}

bool DataPage::isComplete() const {
    return checked_ok_ && !isChecking() && settings_.facts_known &&
           (!isPretrained() || base_box_->isReady()) &&
           (!offersObjective() || !objective_->isGrpo() || reward_->problem().isEmpty());
}

bool DataPage::validatePage() {
    if (!isComplete()) {
        return false;
    }
    settings_.config = currentConfig();
    if (recipe_->currentData().toString() != QLatin1String("tabular")) {
        settings_.config.set("data.target", "");
    }
    if (isPretrained()) {
        applyBaseSettings(settings_.config);
    } else if (settings_.base) {
        // Back from a pretrained model: its keys go back to their defaults.
        for (const char *key : {"model.base", "model.seq_len", "lora.rank", "lora.targets",
                                "model.base_dtype", "train.lr"}) {
            settings_.config.set(key, findConfigKey(key)->default_value);
        }
        settings_.base.reset();
        configured_base_.clear();
    }
    // Settings an earlier visit took from another file or recipe go back to their defaults.
    for (const std::string &key : applied_defaults_) {
        settings_.config.set(key, findConfigKey(key)->default_value);
    }
    applied_defaults_ = ObjectiveBox::fitWholeGroups(settings_.config);
    for (const PlanDecision &decision : settings_.data_defaults) {
        settings_.config.set(decision.setting, decision.value);
        applied_defaults_.push_back(decision.setting);
    }
    settings_.data_path = data_path_->text().trimmed();
    // createProject stores it relative to the project; the config needs one to validate.
    settings_.config.set("data.path", settings_.data_path.toStdString());
    return true;
}

void DataPage::dragEnterEvent(QDragEnterEvent *event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile()) {
        event->acceptProposedAction();
    }
}

void DataPage::dropEvent(QDropEvent *event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile()) {
        setDataPath(urls.first().toLocalFile());
        event->acceptProposedAction();
    }
}

} // namespace headroom::ui
