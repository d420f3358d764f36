#pragma once

#include "WizardSettings.h"
#include "look/DisplayText.h"

#include <QWizardPage>

#include <atomic>
#include <memory>

class QCheckBox;
class QComboBox;
class QGroupBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTabWidget;

namespace headroom::ui {

class BackgroundJob;
class LoraControls;
class MemoryBarsWidget;
class PlanChoiceTable;

// Page (d): the estimator's predicted peak by role against the budget, a verdict, the planner's
// recommended techniques as toggles that re-estimate at once, and Verify: auto-fit with real
// training steps on a throw-away project, in the background and cancellable. The page is
// complete unless a verification is running (OBS AutoConfigTestPage's idea). A pretrained
// model adds its LoRA settings (rank, projections to adapt).
class MemoryPlanPage : public QWizardPage {
    Q_OBJECT

public:
    using Verdict = DisplayText::Verdict;

    MemoryPlanPage(WizardSettings &settings, QWidget *parent = nullptr);
    ~MemoryPlanPage() override;

    MemoryBarsWidget *bars() const { return bars_; }
    PlanChoiceTable *planChoices() const { return choices_; }
    PlanChoiceTable *modelChanges() const { return model_changes_; }
    Verdict verdict() const { return verdict_; }
    bool isVerifying() const;
    // The estimate the bars show.
    const MemoryEstimate &estimate() const { return estimate_; }

    void initializePage() override;
    void cleanupPage() override;
    bool isComplete() const override;

public Q_SLOTS:
    void useRecommendedPlan();
    // Sets "key=value" assignments (a row of the plan or model-change table) and re-plans.
    void applyAssignments(const QStringList &assignments);
    void verify();
    void cancelVerify();

Q_SIGNALS:
    // A verification ended: finished, failed or cancelled.
    void verifyEnded();

private:
    void loadControls();
    void onControlChanged();
    void reestimate();
    void refreshRecommendation();
    void showVerifyStatus(const QString &text, bool error);
    void onProbe(const FitProbe &probe);
    void onVerified(const FitResult &result, const QString &error, bool cancelled);
    void updateButtons();
    // reason: the planner's message when it refused the model; empty when it estimated another.
    void showUncoveredBase(const QString &reason);

    WizardSettings &settings_;
    Plan plan_;
    MemoryEstimate estimate_;
    Verdict verdict_ = Verdict::NoBudget;
    bool loading_ = false;

    MemoryBarsWidget *bars_ = nullptr;
    QLabel *verdict_label_ = nullptr;
    QLabel *recommendation_ = nullptr;
    QPushButton *use_recommended_ = nullptr;
    QComboBox *precision_ = nullptr;
    QCheckBox *checkpointing_ = nullptr;
    QCheckBox *adamw8bit_ = nullptr;
    QCheckBox *offload_ = nullptr;
    QSpinBox *micro_batch_ = nullptr;
    QSpinBox *accumulation_ = nullptr;
    QLabel *effective_batch_ = nullptr;
    QPushButton *verify_ = nullptr;
    QPushButton *cancel_ = nullptr;
    QLabel *verify_status_ = nullptr;
    QLabel *probes_ = nullptr;
    QTabWidget *tabs_ = nullptr;
    PlanChoiceTable *choices_ = nullptr;
    PlanChoiceTable *model_changes_ = nullptr;
    QGroupBox *lora_box_ = nullptr;
    LoraControls *lora_ = nullptr;
    std::string lora_model_;     // the base whose projections lora_ offers
    bool planner_covers_ = true; // the estimate describes the model (see showUncoveredBase)
    QStringList probe_lines_;

    BackgroundJob *job_ = nullptr;
    std::shared_ptr<std::atomic_bool> cancel_flag_;
};

} // namespace headroom::ui
