#include "MemoryPlanPage.h"

#include "BackgroundJob.h"
#include "BaseModelBox.h"
#include "LoraControls.h"
#include "MemoryBarsWidget.h"
#include "PlanChoiceTable.h"
#include "WizardColors.h"
#include "WizardForms.h"
#include "look/DisplayText.h"

#include <headroom/workflow.h>

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QVBoxLayout>

namespace headroom::ui {

namespace {

// Thrown from the progress callbacks to abandon a verification.
struct VerifyCancelled {};

struct VerifyOutcome {
    FitResult result;
    QString error;
    bool cancelled = false;
};

// LoRA adapters are for a pretrained causal language model; a SPLADE encoder trains every
// weight.
bool adaptsWithLora(const WizardSettings &settings) {
    return settings.pretrained() && settings.config.isLanguageModel();
}

void setItemEnabled(QComboBox *combo, int index, bool enabled) {
    auto *model = qobject_cast<QStandardItemModel *>(combo->model());
    QStandardItem *item = model->item(index);
    item->setFlags(enabled ? item->flags() | Qt::ItemIsEnabled | Qt::ItemIsSelectable
                           : item->flags() & ~(Qt::ItemIsEnabled | Qt::ItemIsSelectable));
}

} // namespace

MemoryPlanPage::MemoryPlanPage(WizardSettings &settings, QWidget *parent)
    : QWizardPage(parent), settings_(settings) {
    setObjectName(QStringLiteral("memoryPlanPage"));
    setTitle(tr("Memory plan"));
    setSubTitle(tr("The planner's prediction of the training step's peak memory. Change the "
                   "techniques to see their effect at once."));

    bars_ = new MemoryBarsWidget(this);
    verdict_label_ = new QLabel(this);
    verdict_label_->setObjectName(QStringLiteral("verdict"));
    verdict_label_->setWordWrap(true);
    verdict_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    precision_ = new QComboBox(this);
    precision_->setObjectName(QStringLiteral("precision"));
    precision_->setAccessibleName(tr("Precision"));
    precision_->addItem(tr("fp32 (full precision)"), QStringLiteral("fp32"));
    precision_->addItem(tr("bf16 mixed precision"), QStringLiteral("bf16"));
    precision_->addItem(tr("fp16 mixed precision with loss scaling"), QStringLiteral("fp16"));
    checkpointing_ = new QCheckBox(tr("Activation &checkpointing"), this);
    checkpointing_->setObjectName(QStringLiteral("checkpointing"));
    checkpointing_->setAccessibleName(tr("Activation checkpointing"));
    adamw8bit_ = new QCheckBox(tr("&8-bit AdamW"), this);
    adamw8bit_->setObjectName(QStringLiteral("adamw8bit"));
    adamw8bit_->setAccessibleName(tr("8-bit AdamW optimizer"));
    offload_ = new QCheckBox(tr("&Offload optimizer state to host memory"), this);
    offload_->setObjectName(QStringLiteral("offload"));
    offload_->setAccessibleName(tr("Offload optimizer state"));
    micro_batch_ = new QSpinBox(this);
    micro_batch_->setObjectName(QStringLiteral("microBatch"));
    micro_batch_->setAccessibleName(tr("Micro-batch"));
    micro_batch_->setRange(1, 1048576);
    accumulation_ = new QSpinBox(this);
    accumulation_->setObjectName(QStringLiteral("accumulation"));
    accumulation_->setAccessibleName(tr("Gradient accumulation"));
    accumulation_->setRange(1, 1048576);
    effective_batch_ = new QLabel(this);

    auto *techniques = new QGroupBox(tr("Techniques"), this);
    auto *form = new QFormLayout(techniques);
    form->addRow(buddyLabel(tr("&Precision:"), precision_, this), precision_);
    form->addRow(checkpointing_);
    form->addRow(adamw8bit_);
    form->addRow(offload_);
    form->addRow(buddyLabel(tr("&Micro-batch:"), micro_batch_, this), micro_batch_);
    form->addRow(buddyLabel(tr("&Accumulation:"), accumulation_, this), accumulation_);
    form->addRow(QString(), effective_batch_);

    recommendation_ = new QLabel(this);
    recommendation_->setObjectName(QStringLiteral("recommendation"));
    recommendation_->setWordWrap(true);
    recommendation_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    recommendation_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    use_recommended_ = new QPushButton(tr("&Use recommended plan"), this);
    use_recommended_->setObjectName(QStringLiteral("useRecommended"));
    auto *recommended = new QGroupBox(tr("Recommended"), this);
    // Many decisions (a pretrained model adds LoRA's) scroll rather than being cut off.
    auto *recommendation_scroll = new QScrollArea(recommended);
    recommendation_scroll->setWidget(recommendation_);
    recommendation_scroll->setWidgetResizable(true);
    recommendation_scroll->setFrameShape(QFrame::NoFrame);
    recommendation_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    recommendation_scroll->viewport()->setAutoFillBackground(false);
    recommendation_->setAutoFillBackground(false);
    auto *recommended_layout = new QVBoxLayout(recommended);
    recommended_layout->addWidget(recommendation_scroll, 1);
    recommended_layout->addWidget(use_recommended_, 0, Qt::AlignLeft);

    verify_ = new QPushButton(tr("&Verify"), this);
    verify_->setObjectName(QStringLiteral("verify"));
    verify_->setAccessibleName(tr("Verify the plan with real training steps"));
    cancel_ = new QPushButton(tr("&Stop verifying"), this);
    cancel_->setObjectName(QStringLiteral("cancelVerify"));
    verify_status_ = new QLabel(this);
    verify_status_->setObjectName(QStringLiteral("verifyStatus"));
    verify_status_->setWordWrap(true);
    verify_status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    probes_ = new QLabel(this);
    probes_->setObjectName(QStringLiteral("probes"));
    probes_->setWordWrap(true);
    probes_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    probes_->hide(); // until a verification reports its probes
    auto *verify_box = new QGroupBox(tr("Verify on this machine"), this);
    auto *verify_layout = new QVBoxLayout(verify_box);
    auto *verify_row = new QHBoxLayout;
    verify_row->addWidget(verify_);
    verify_row->addWidget(cancel_);
    verify_row->addWidget(verify_status_, 1);
    verify_layout->addLayout(verify_row);
    verify_layout->addWidget(probes_);

    lora_ = new LoraControls(this);
    lora_box_ = new QGroupBox(tr("Fine-tuning"), this);
    lora_box_->setObjectName(QStringLiteral("fineTuning"));
    auto *lora_layout = new QVBoxLayout(lora_box_);
    lora_layout->addWidget(lora_);

    // The techniques beside the recommendation; the planner's whole table and the model
    // changes it priced (MoE) on their own tabs, full width.
    auto *settings_tab = new QWidget(this);
    auto *middle = new QHBoxLayout(settings_tab);
    middle->addWidget(techniques, 1);
    middle->addWidget(recommended, 1);
    choices_ = new PlanChoiceTable(PlanChoiceTable::Kind::Techniques, this);
    model_changes_ = new PlanChoiceTable(PlanChoiceTable::Kind::ModelChanges, this);
    tabs_ = new QTabWidget(this);
    tabs_->setObjectName(QStringLiteral("planTabs"));
    tabs_->addTab(settings_tab, tr("&Techniques"));
    tabs_->addTab(choices_, tr("Compare p&lans"));
    tabs_->addTab(model_changes_, tr("Model c&hanges"));
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(bars_);
    layout->addWidget(verdict_label_);
    layout->addWidget(lora_box_);
    layout->addWidget(tabs_);
    layout->addWidget(verify_box);
    layout->addStretch();

    job_ = new BackgroundJob(this);
    connect(precision_, &QComboBox::currentIndexChanged, this, &MemoryPlanPage::onControlChanged);
    for (QCheckBox *box : {checkpointing_, adamw8bit_, offload_}) {
        connect(box, &QCheckBox::toggled, this, &MemoryPlanPage::onControlChanged);
    }
    connect(micro_batch_, &QSpinBox::valueChanged, this, &MemoryPlanPage::onControlChanged);
    connect(accumulation_, &QSpinBox::valueChanged, this, &MemoryPlanPage::onControlChanged);
    connect(lora_, &LoraControls::changed, this, &MemoryPlanPage::onControlChanged);
    connect(use_recommended_, &QPushButton::clicked, this, &MemoryPlanPage::useRecommendedPlan);
    connect(choices_, &PlanChoiceTable::chosen, this, &MemoryPlanPage::applyAssignments);
    connect(model_changes_, &PlanChoiceTable::chosen, this, &MemoryPlanPage::applyAssignments);
    connect(verify_, &QPushButton::clicked, this, &MemoryPlanPage::verify);
    connect(cancel_, &QPushButton::clicked, this, &MemoryPlanPage::cancelVerify);
    updateButtons();
}

MemoryPlanPage::~MemoryPlanPage() {
    if (cancel_flag_) {
        *cancel_flag_ = true;
    }
    delete job_; // joins the verification before the page goes
}

bool MemoryPlanPage::isVerifying() const {
    return job_->isRunning();
}

void MemoryPlanPage::initializePage() {
    const HardwareProfile &profile = settings_.profile;
    setItemEnabled(precision_, 1, profile.bf16);
    setItemEnabled(precision_, 2, profile.fp16);
    probe_lines_.clear();
    probes_->clear();
    probes_->hide();
    verify_status_->clear();
    lora_box_->setVisible(adaptsWithLora(settings_));
    if (adaptsWithLora(settings_) && lora_model_ != settings_.base->folder) {
        lora_model_ = settings_.base->folder;
        lora_->setModel(*settings_.base);
    }
    loadControls();
    reestimate();
    updateButtons();
}

void MemoryPlanPage::cleanupPage() {
    cancelVerify();
    QWizardPage::cleanupPage();
}

void MemoryPlanPage::loadControls() {
    loading_ = true;
    const Config &config = settings_.config;
    precision_->setCurrentIndex(
        std::max(0, precision_->findData(QString::fromStdString(config.text("precision")))));
    checkpointing_->setChecked(config.integer("checkpointing") > 0);
    adamw8bit_->setChecked(config.text("optimizer") == "adamw8bit");
    offload_->setChecked(config.text("offload.optimizer") == "on");
    micro_batch_->setValue(int(config.integer("train.micro_batch")));
    accumulation_->setValue(int(config.integer("train.accumulation")));
    if (adaptsWithLora(settings_)) {
        lora_->load(config);
    }
    loading_ = false;
}

void MemoryPlanPage::onControlChanged() {
    if (loading_) {
        return;
    }
    Config &config = settings_.config;
    config.set("precision", precision_->currentData().toString().toStdString());
    config.set("checkpointing", checkpointing_->isChecked() ? "1" : "0");
    config.set("optimizer", adamw8bit_->isChecked() ? "adamw8bit" : "adamw");
    config.set("offload.optimizer",
               offload_->isChecked() && settings_.profile.kind == ProfileKind::Cuda ? "on" : "off");
    config.set("train.micro_batch", std::to_string(micro_batch_->value()));
    config.set("train.accumulation", std::to_string(accumulation_->value()));
    if (adaptsWithLora(settings_)) {
        lora_->apply(config);
        config.set("train.lr", pretrainedLearningRate(lora_->isLoraOn()));
        Q_EMIT completeChanged(); // LoRA needs a projection to adapt
    }
    if (!probe_lines_.isEmpty() && !isVerifying()) {
        showVerifyStatus(tr("The settings changed since the verification; verify again."), false);
    }
    reestimate();
}

// The planner's choice for the current settings (it keeps their effective batch).
void MemoryPlanPage::refreshRecommendation() {
    try {
        plan_ = recommendPlan(settings_.config, settings_.facts, settings_.profile);
        recommendation_->setText(DisplayText::planHtml(plan_));
        choices_->setPlan(plan_, settings_.config);
        model_changes_->setPlan(plan_, settings_.config);
        tabs_->setTabVisible(tabs_->indexOf(model_changes_), !plan_.variants.empty());
        use_recommended_->setEnabled(!plan_.overrides.empty() && !isVerifying());
    } catch (const std::exception &failure) {
        plan_ = Plan();
        recommendation_->setText(QString::fromUtf8(failure.what()).toHtmlEscaped());
        use_recommended_->setEnabled(false);
        choices_->setPlan(plan_, settings_.config);
        model_changes_->setPlan(plan_, settings_.config);
        tabs_->setTabVisible(tabs_->indexOf(model_changes_), false);
    }
}

void MemoryPlanPage::reestimate() {
    refreshRecommendation();
    effective_batch_->setText(
        tr("Effective batch: %1").arg(micro_batch_->value() * accumulation_->value()));
    try {
        estimate_ = estimateMemory(settings_.config, settings_.facts);
    } catch (const std::exception &failure) {
        if (settings_.pretrained()) {
            // A planner that cannot estimate this kind of base yet (splade, say).
            planner_covers_ = false;
            showUncoveredBase(QString::fromUtf8(failure.what()));
            return;
        }
        bars_->clear();
        verdict_ = Verdict::DoesNotFit;
        verdict_label_->setText(QString::fromUtf8(failure.what()).toHtmlEscaped());
        setTextTone(verdict_label_, TextTone::Problem);
        return;
    }
    planner_covers_ =
        !settings_.pretrained() || BaseModelText::plannerCovers(estimate_, *settings_.base);
    if (!planner_covers_) {
        showUncoveredBase(QString());
        return;
    }
    bars_->setEstimate(estimate_);
    verdict_ = DisplayText::showVerdict(verdict_label_, estimate_);
}

// This planner estimates models built from model.layers, not a pretrained folder: rather than
// another model's numbers, the page says so and shows what the weights alone take.
void MemoryPlanPage::showUncoveredBase(const QString &reason) {
    bars_->clear();
    verdict_ = Verdict::NoBudget;
    const auto parameters = std::uint64_t(std::max<std::int64_t>(0, settings_.base->parameters));
    const std::uint64_t budget = settings_.profile.budget_bytes;
    const QString weights =
        tr("The weights alone take %1 in fp32 (%2 in bf16) of the %3 budget; training adds "
           "gradients, optimizer state and activations.")
            .arg(DisplayText::bytes(parameters * 4), DisplayText::bytes(parameters * 2),
                 DisplayText::bytes(budget));
    verdict_label_->setText(
        reason.isEmpty() ? tr("The memory planner does not estimate pretrained models yet.") +
                               QLatin1Char(' ') + weights
                         : tr("The memory planner cannot estimate this model: %1")
                                   .arg(DisplayText::breakablePaths(reason)) +
                               QLatin1Char('\n') + weights);
    setTextTone(verdict_label_,
                budget > 0 && parameters * 4 > budget ? TextTone::Problem : TextTone::Normal);
    plan_ = Plan();
    recommendation_->setText(tr("No recommendation for a pretrained model yet."));
    updateButtons();
}

void MemoryPlanPage::useRecommendedPlan() {
    for (const std::string &assignment : plan_.overrides) {
        settings_.config.setAssignment(assignment);
    }
    loadControls();
    reestimate();
}

void MemoryPlanPage::applyAssignments(const QStringList &assignments) {
    if (isVerifying()) {
        return;
    }
    Config changed = settings_.config;
    try {
        for (const QString &assignment : assignments) {
            changed.setAssignment(assignment.toStdString());
        }
        changed.validate();
    } catch (const std::exception &failure) {
        showVerifyStatus(tr("Cannot use that plan: %1").arg(QString::fromUtf8(failure.what())),
                         true);
        return;
    }
    settings_.config = changed;
    loadControls();
    reestimate();
    Q_EMIT completeChanged();
}

void MemoryPlanPage::verify() {
    if (isVerifying() || !settings_.profile.detected) {
        return;
    }
    auto dir = std::make_shared<QTemporaryDir>();
    if (!dir->isValid()) {
        showVerifyStatus(tr("Cannot create a temporary folder: %1").arg(dir->errorString()), true);
        return;
    }
    NewProjectRequest request;
    request.project_path = dir->filePath(QStringLiteral("verify.headroom")).toStdString();
    request.recipe = settings_.config.text("recipe");
    request.data_path = settings_.data_path.toStdString();
    request.config_json = settings_.config.toJson();
    cancel_flag_ = std::make_shared<std::atomic_bool>(false);
    auto cancel = cancel_flag_;
    auto outcome = std::make_shared<VerifyOutcome>();
    probe_lines_.clear();
    probes_->clear();
    probes_->hide();
    showVerifyStatus(tr("Verifying: preparing a scratch project…"), false);
    job_->start(
        [this, dir, request, cancel, outcome] {
            try {
                createProject(request, [&cancel](const std::string &) {
                    if (*cancel) {
                        throw VerifyCancelled();
                    }
                });
                PlanRequest plan;
                plan.project_path = request.project_path;
                outcome->result = fitPlan(plan, [this, &cancel](const FitProbe &probe) {
                    QMetaObject::invokeMethod(this, [this, probe] { onProbe(probe); });
                    if (*cancel) {
                        throw VerifyCancelled();
                    }
                });
            } catch (const VerifyCancelled &) {
                outcome->cancelled = true;
            } catch (const std::exception &failure) {
                outcome->error = QString::fromUtf8(failure.what());
            }
            outcome->cancelled = outcome->cancelled || *cancel;
        },
        [this, dir, outcome] {
            onVerified(outcome->result, outcome->error, outcome->cancelled);
            // dir goes with the last copy of this lambda: the scratch project is deleted.
        });
    updateButtons();
    Q_EMIT completeChanged();
}

void MemoryPlanPage::cancelVerify() {
    if (cancel_flag_ && isVerifying()) {
        *cancel_flag_ = true;
        showVerifyStatus(tr("Cancelling after the current probe…"), false);
    }
}

void MemoryPlanPage::onProbe(const FitProbe &probe) {
    probe_lines_ << (probe.fits ? tr("micro-batch %1: fits, measured peak %2")
                                      .arg(probe.micro_batch)
                                      .arg(DisplayText::bytes(probe.peak))
                                : tr("micro-batch %1: out of memory at %2")
                                      .arg(probe.micro_batch)
                                      .arg(DisplayText::bytes(probe.peak)));
    probes_->setText(probe_lines_.join('\n'));
    probes_->show();
    if (!cancel_flag_ || !*cancel_flag_) {
        showVerifyStatus(tr("Verifying: %1 probes done…").arg(probe_lines_.size()), false);
    }
}

void MemoryPlanPage::onVerified(const FitResult &result, const QString &error, bool cancelled) {
    if (cancelled) {
        showVerifyStatus(tr("Verification cancelled; the plan is unchanged."), false);
    } else if (!error.isEmpty()) {
        showVerifyStatus(tr("Verification failed: %1").arg(error), true);
    } else if (result.micro_batch == 0) {
        showVerifyStatus(tr("Verification: %1").arg(QString::fromStdString(result.message)), true);
    } else {
        for (const std::string &assignment : result.overrides) {
            settings_.config.setAssignment(assignment);
        }
        loadControls();
        reestimate();
        showVerifyStatus(tr("Verified: micro-batch %1 × accumulation %2; predicted peak %3, "
                            "measured %4.")
                             .arg(result.micro_batch)
                             .arg(result.accumulation)
                             .arg(DisplayText::bytes(result.predicted_peak),
                                  DisplayText::bytes(result.measured_peak)),
                         false);
    }
    updateButtons();
    Q_EMIT completeChanged();
    Q_EMIT verifyEnded();
}

void MemoryPlanPage::showVerifyStatus(const QString &text, bool error) {
    verify_status_->setText(text);
    verify_status_->setProperty("error", error);
    setTextTone(verify_status_, error ? TextTone::Problem : TextTone::Normal);
}

void MemoryPlanPage::updateButtons() {
    const bool running = isVerifying();
    const bool here = settings_.profile.detected;
    verify_->setEnabled(!running && here && planner_covers_);
    verify_->setToolTip(!planner_covers_ ? tr("Verify needs the planner's estimate, which does not "
                                              "cover pretrained models yet.")
                        : here           ? QString()
                                         : tr("Verify runs on this machine; choose one of its "
                                                        "devices on the Hardware page."));
    cancel_->setEnabled(running);
    use_recommended_->setEnabled(!running && !plan_.overrides.empty());
    for (QWidget *control :
         {static_cast<QWidget *>(precision_), static_cast<QWidget *>(adamw8bit_),
          static_cast<QWidget *>(micro_batch_), static_cast<QWidget *>(accumulation_)}) {
        control->setEnabled(!running);
    }
    // Offloading exists on CUDA only; activation checkpointing for the GPT's blocks only.
    offload_->setEnabled(!running && settings_.profile.kind == ProfileKind::Cuda);
    // Activation checkpointing recomputes the GPT's blocks or the encoder's layers.
    const std::string recipe = settings_.config.text("recipe");
    checkpointing_->setEnabled(!running && (isLanguageModelRecipe(recipe) || recipe == "splade"));
    lora_->setEnabled(!running);
}

bool MemoryPlanPage::isComplete() const {
    return !isVerifying() &&
           !(adaptsWithLora(settings_) && lora_->isLoraOn() && lora_->targets().isEmpty());
}

} // namespace headroom::ui
