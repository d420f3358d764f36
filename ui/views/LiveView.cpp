#include "views/LiveView.h"

#include "look/ElidedLabel.h"
#include "plots/ExpertLoadPlot.h"
#include "plots/GrpoPlot.h"
#include "plots/LossPlot.h"
#include "plots/MemoryPlot.h"
#include "plots/PreferencePlot.h"
#include "plots/RankPlot.h"
#include "plots/RetrievalPlots.h"
#include "plots/ThroughputPlot.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>

#include <vector>

namespace headroom::ui {

namespace {
constexpr double kDefaultSmoothing = 0.9;
}

LiveView::LiveView(QWidget *parent) : QWidget(parent) {
    setObjectName(QStringLiteral("liveView"));
    caption_ = new ElidedLabel(this);
    caption_->setText(tr("No run yet: press Start to train this project."));
    caption_->setObjectName(QStringLiteral("liveCaption"));
    caption_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    smooth_box_ = new QCheckBox(tr("S&mooth loss"), this);
    smooth_box_->setObjectName(QStringLiteral("smoothLoss"));
    smooth_weight_ = new QDoubleSpinBox(this);
    smooth_weight_->setRange(0.5, 0.995);
    smooth_weight_->setDecimals(3);
    smooth_weight_->setSingleStep(0.01);
    smooth_weight_->setValue(kDefaultSmoothing);
    smooth_weight_->setAccessibleName(tr("Smoothing weight"));
    smooth_weight_->setToolTip(tr("Weight of the previous value in the moving average"));
    log_box_ = new QCheckBox(tr("&Log scale"), this);
    log_box_->setObjectName(QStringLiteral("logScale"));
    full_budget_box_ = new QCheckBox(tr("Full &budget scale"), this);
    full_budget_box_->setObjectName(QStringLiteral("fullBudgetScale"));
    full_budget_box_->setToolTip(
        tr("Scale the memory plot to the whole budget instead of the run's memory"));
    auto *export_button = new QPushButton(tr("E&xport Plots…"), this);
    export_button->setObjectName(QStringLiteral("exportPlots"));

    auto *controls = new QHBoxLayout;
    controls->addWidget(caption_, 1);
    controls->addWidget(smooth_box_);
    controls->addWidget(smooth_weight_);
    controls->addWidget(log_box_);
    controls->addWidget(full_budget_box_);
    controls->addWidget(export_button);

    loss_ = new plots::LossPlot(this);
    memory_ = new plots::MemoryPlot(this);
    throughput_ = new plots::ThroughputPlot(this);
    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(loss_);
    splitter->addWidget(memory_);
    splitter->addWidget(throughput_);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 3);
    splitter->setStretchFactor(2, 2);
    expert_load_ = new plots::ExpertLoadPlot(this);
    routing_ = new plots::RoutingPlot(this);
    splitter->addWidget(expert_load_);
    splitter->addWidget(routing_);
    splitter->setStretchFactor(3, 3);
    splitter->setStretchFactor(4, 2);
    sparsity_ = new plots::RetrievalSparsityPlot(this);
    retrieval_quality_ = new plots::RetrievalQualityPlot(this);
    splitter->addWidget(sparsity_);
    splitter->addWidget(retrieval_quality_);
    splitter->setStretchFactor(5, 2);
    splitter->setStretchFactor(6, 2);
    ranks_ = new plots::RankPlot(this);
    splitter->addWidget(ranks_);
    splitter->setStretchFactor(7, 2);
    preference_ = new plots::PreferencePlot(this);
    splitter->insertWidget(1, preference_); // beside the loss it explains
    splitter->setStretchFactor(1, 3);
    grpo_ = new plots::GrpoPlot(this);
    splitter->insertWidget(2, grpo_); // beside the loss, as the preference rewards
    splitter->setStretchFactor(2, 3);
    for (QWidget *plot : optionalPlots()) {
        plot->hide();
    }

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(splitter, 1);

    auto apply_smoothing = [this] {
        const double weight = smooth_box_->isChecked() ? smooth_weight_->value() : 0.0;
        loss_->setSmoothing(weight);
        smooth_weight_->setEnabled(smooth_box_->isChecked());
        Q_EMIT smoothingChanged(weight);
    };
    connect(smooth_box_, &QCheckBox::toggled, this, apply_smoothing);
    connect(smooth_weight_, &QDoubleSpinBox::valueChanged, this, apply_smoothing);
    smooth_weight_->setEnabled(false);
    connect(log_box_, &QCheckBox::toggled, this, [this](bool on) {
        loss_->setLogScale(on);
        Q_EMIT logScaleChanged(on);
    });
    connect(full_budget_box_, &QCheckBox::toggled, this, [this](bool on) {
        memory_->setFullBudgetScale(on);
        Q_EMIT fullBudgetScaleChanged(on);
    });
    connect(export_button, &QPushButton::clicked, this, &LiveView::chooseExportPath);
}

void LiveView::setSmoothing(double weight) {
    if (weight > 0) {
        smooth_weight_->setValue(weight);
    }
    smooth_box_->setChecked(weight > 0);
}

void LiveView::setLogScale(bool on) {
    log_box_->setChecked(on);
}

void LiveView::setFullBudgetScale(bool on) {
    full_budget_box_->setChecked(on);
}

void LiveView::setCaption(const QString &caption) {
    caption_->setText(caption);
}

void LiveView::beginRun(std::int64_t run_id, const QString &caption) {
    series_ = RunSeries{};
    series_.run_id = run_id;
    loss_->clearData();
    memory_->clearData();
    throughput_->clearData();
    expert_load_->clearData();
    routing_->clearData();
    sparsity_->clearData();
    retrieval_quality_->clearData();
    ranks_->clearData();
    preference_->clearData();
    grpo_->clearData();
    for (QWidget *plot : optionalPlots()) {
        plot->hide();
    }
    setCaption(caption);
}

void LiveView::showRun(const RunSeries &series, const QString &caption) {
    beginRun(series.run_id, caption);
    series_ = series;
    loss_->append(series_, 0, 0);
    memory_->append(series_, 0);
    throughput_->append(series_, 0);
    for (const RunEvent &event : series_.events) {
        memory_->addEvent(series_, event);
    }
    showMoe(0);
    showRetrieval(0, 0);
    showRanks(0);
    showPreference(0);
    showGrpo(0);
}

std::vector<QWidget *> LiveView::optionalPlots() const {
    return {expert_load_, routing_, sparsity_, retrieval_quality_, ranks_, preference_, grpo_};
}

// Only preference objectives report rewards.
void LiveView::showPreference(int first_preference_step) {
    if (!series_.hasPreference()) {
        return;
    }
    preference_->append(series_, first_preference_step);
    preference_->show();
}

// Only online RL (grpo) reports sampled completions' rewards.
void LiveView::showGrpo(int first_grpo_step) {
    if (!series_.hasGrpo()) {
        return;
    }
    grpo_->append(series_, first_grpo_step);
    grpo_->show();
}

// Only distributed runs report per-rank figures.
void LiveView::showRanks(int first_rank_step) {
    if (!series_.hasRanks()) {
        return;
    }
    ranks_->append(series_, first_rank_step);
    ranks_->show();
}

// Dense runs never report MoE steps, so their Live view keeps its three plots.
void LiveView::showMoe(int first_moe_step) {
    if (!series_.hasMoe()) {
        return;
    }
    expert_load_->append(series_, first_moe_step);
    routing_->append(series_, first_moe_step);
    expert_load_->show();
    routing_->show();
}

// Only SPLADE runs report sparsity; the others keep their Live view as it was.
void LiveView::showRetrieval(int first_retrieval_step, int first_ranking_eval) {
    if (!series_.hasRetrieval()) {
        return;
    }
    sparsity_->append(series_, first_retrieval_step);
    retrieval_quality_->append(series_, first_ranking_eval);
    sparsity_->show();
    retrieval_quality_->show();
}

void LiveView::appendSteps(const QVector<StepMetrics> &steps) {
    const int first = int(series_.steps.size());
    const int first_moe = int(series_.moe_steps.size());
    const int first_retrieval = int(series_.retrieval_steps.size());
    const int first_rank_step = int(series_.rank_steps.size());
    const int first_preference = int(series_.preference_steps.size());
    const int first_grpo = int(series_.grpo_steps.size());
    for (const StepMetrics &step : steps) {
        series_.append(step);
    }
    loss_->append(series_, first, int(series_.eval_steps.size()));
    memory_->append(series_, first);
    throughput_->append(series_, first);
    if (series_.moe_steps.size() > first_moe) {
        showMoe(first_moe);
    }
    // The quality plot follows the run's last step between validations.
    showRetrieval(first_retrieval, int(series_.ranking_eval_steps.size()));
    showRanks(first_rank_step);
    showPreference(first_preference);
    showGrpo(first_grpo);
}

void LiveView::appendEvals(const QVector<EvalMetrics> &evals) {
    const int first = int(series_.eval_steps.size());
    const int first_ranking = int(series_.ranking_eval_steps.size());
    for (const EvalMetrics &eval : evals) {
        series_.append(eval);
    }
    loss_->append(series_, int(series_.steps.size()), first);
    showRetrieval(int(series_.retrieval_steps.size()), first_ranking);
}

void LiveView::addEvent(const RunEvent &event) {
    series_.events.push_back(event);
    memory_->addEvent(series_, event);
}

void LiveView::setBudget(std::uint64_t bytes) {
    memory_->setBudget(bytes);
}

QStringList LiveView::exportPlots(const QString &path) {
    const QFileInfo info(path);
    const QString suffix = info.suffix().isEmpty() ? QStringLiteral("png") : info.suffix();
    const QString stem = info.dir().filePath(info.completeBaseName());
    QStringList written;
    std::vector<std::pair<const char *, plots::PlotWidget *>> parts = {
        {"loss", loss_}, {"memory", memory_}, {"throughput", throughput_}};
    if (series_.hasPreference()) {
        parts.emplace_back("rewards", preference_);
    }
    if (series_.hasGrpo()) {
        parts.emplace_back("rewards", grpo_);
    }
    if (series_.hasMoe()) {
        parts.emplace_back("experts", expert_load_);
        parts.emplace_back("routing", routing_);
    }
    if (series_.hasRetrieval()) {
        parts.emplace_back("sparsity", sparsity_);
        parts.emplace_back("retrieval", retrieval_quality_);
    }
    if (series_.hasRanks()) {
        parts.emplace_back("ranks", ranks_);
    }
    for (const auto &[name, plot] : parts) {
        const QString file = QStringLiteral("%1-%2.%3").arg(stem, QLatin1String(name), suffix);
        if (!plot->exportTo(file)) {
            return {};
        }
        written << file;
    }
    return written;
}

void LiveView::chooseExportPath() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export Plots"), QStringLiteral("run-%1.png").arg(series_.run_id),
        tr("PNG images (*.png);;PDF documents (*.pdf)"));
    if (path.isEmpty()) {
        return;
    }
    const QStringList written = exportPlots(path);
    if (written.isEmpty()) {
        QMessageBox::warning(this, tr("Export Plots"), tr("Could not write %1.").arg(path));
    }
}

} // namespace headroom::ui
