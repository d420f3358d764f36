#pragma once

#include "runs/RunSeries.h"

#include <QWidget>

#include <vector>

class QCheckBox;
class QDoubleSpinBox;
class QLabel;

namespace headroom::ui {

namespace plots {
class ExpertLoadPlot;
class LossPlot;
class MemoryPlot;
class GrpoPlot;
class PreferencePlot;
class RetrievalQualityPlot;
class RetrievalSparsityPlot;
class RankPlot;
class RoutingPlot;
class ThroughputPlot;
} // namespace plots

// The Live tab: loss, memory and throughput of one run as it trains (or as it was stored),
// expert load and routing for Mixture-of-Experts runs, sparsity and ranking quality for SPLADE
// runs.
class LiveView : public QWidget {
    Q_OBJECT

public:
    explicit LiveView(QWidget *parent = nullptr);

    // Starts over with an empty run (a run that is about to report its first step).
    void beginRun(std::int64_t run_id, const QString &caption);
    // Shows a run read from the project, replacing what is shown.
    void showRun(const RunSeries &series, const QString &caption);
    void appendSteps(const QVector<StepMetrics> &steps);
    void appendEvals(const QVector<EvalMetrics> &evals);
    void addEvent(const RunEvent &event);
    void setBudget(std::uint64_t bytes);
    void setCaption(const QString &caption);

    std::int64_t runId() const { return series_.run_id; }
    const RunSeries &series() const { return series_; }
    plots::LossPlot *lossPlot() const { return loss_; }
    plots::MemoryPlot *memoryPlot() const { return memory_; }
    plots::ThroughputPlot *throughputPlot() const { return throughput_; }
    plots::ExpertLoadPlot *expertLoadPlot() const { return expert_load_; }
    plots::RoutingPlot *routingPlot() const { return routing_; }
    plots::RetrievalSparsityPlot *sparsityPlot() const { return sparsity_; }
    plots::RetrievalQualityPlot *retrievalQualityPlot() const { return retrieval_quality_; }
    plots::RankPlot *rankPlot() const { return ranks_; }
    plots::PreferencePlot *preferencePlot() const { return preference_; }
    plots::GrpoPlot *grpoPlot() const { return grpo_; }

    // Writes the plots as NAME-loss.png, NAME-memory.png ... (and NAME-experts, NAME-routing
    // for MoE runs, NAME-sparsity, NAME-retrieval for SPLADE runs, NAME-rewards for preference
    // objectives, NAME-ranks for distributed
    // runs) next to path (PNG or PDF by its
    // suffix); returns the files written, empty on failure.
    QStringList exportPlots(const QString &path);

    void setSmoothing(double weight);
    void setLogScale(bool on);
    // The memory axis always reaches the budget (off: it follows the run's memory).
    void setFullBudgetScale(bool on);

Q_SIGNALS:
    void smoothingChanged(double weight);
    void logScaleChanged(bool on);
    void fullBudgetScaleChanged(bool on);

private:
    void chooseExportPath();
    void showMoe(int first_moe_step);
    void showRetrieval(int first_retrieval_step, int first_ranking_eval);
    void showRanks(int first_rank_step);
    void showPreference(int first_preference_step);
    void showGrpo(int first_grpo_step);
    // The plots only some runs fill (MoE, SPLADE, distributed, preference objectives), hidden
    // until they do.
    std::vector<QWidget *> optionalPlots() const;

    RunSeries series_;
    QLabel *caption_ = nullptr;
    QCheckBox *smooth_box_ = nullptr;
    QDoubleSpinBox *smooth_weight_ = nullptr;
    QCheckBox *log_box_ = nullptr;
    QCheckBox *full_budget_box_ = nullptr;
    plots::LossPlot *loss_ = nullptr;
    plots::MemoryPlot *memory_ = nullptr;
    plots::ThroughputPlot *throughput_ = nullptr;
    plots::ExpertLoadPlot *expert_load_ = nullptr;
    plots::RoutingPlot *routing_ = nullptr;
    plots::RetrievalSparsityPlot *sparsity_ = nullptr;
    plots::RetrievalQualityPlot *retrieval_quality_ = nullptr;
    plots::RankPlot *ranks_ = nullptr;
    plots::PreferencePlot *preference_ = nullptr;
    plots::GrpoPlot *grpo_ = nullptr;
};

} // namespace headroom::ui
