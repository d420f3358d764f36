#pragma once

#include "RunSeries.h"

#include <QWidget>

class QCheckBox;
class QDoubleSpinBox;
class QLabel;

namespace headroom::ui {

namespace plots {
class LossPlot;
class MemoryPlot;
class ThroughputPlot;
} // namespace plots

// The Live tab: loss, memory and throughput of one run as it trains (or as it was stored).
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

    // Writes the three plots as NAME-loss.png, NAME-memory.png ... next to path (PNG or PDF
    // by its suffix); returns the files written, empty on failure.
    QStringList exportPlots(const QString &path);

    void setSmoothing(double weight);
    void setLogScale(bool on);

Q_SIGNALS:
    void smoothingChanged(double weight);
    void logScaleChanged(bool on);

private:
    void chooseExportPath();

    RunSeries series_;
    QLabel *caption_ = nullptr;
    QCheckBox *smooth_box_ = nullptr;
    QDoubleSpinBox *smooth_weight_ = nullptr;
    QCheckBox *log_box_ = nullptr;
    plots::LossPlot *loss_ = nullptr;
    plots::MemoryPlot *memory_ = nullptr;
    plots::ThroughputPlot *throughput_ = nullptr;
};

} // namespace headroom::ui
