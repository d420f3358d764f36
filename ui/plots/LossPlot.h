#pragma once

#include "PlotWidget.h"

namespace headroom::ui {
struct RunSeries;
}

namespace headroom::ui::plots {

// Training loss (raw, and an exponential moving average when smoothing is on) and
// validation loss against the optimizer step.
class LossPlot : public PlotWidget {
    Q_OBJECT

public:
    explicit LossPlot(QWidget *parent = nullptr);

    void clearData();
    // Adds the series' steps from index first_step and evaluations from first_eval on.
    void append(const RunSeries &series, int first_step, int first_eval);

    // weight in [0, 1): EMA weight of the previous value; 0 turns smoothing off.
    void setSmoothing(double weight);
    double smoothing() const { return smoothing_; }
    void setLogScale(bool on);
    bool logScale() const { return log_scale_; }

    int trainPointCount() const;
    int validationPointCount() const;

protected:
    void restyle() override;

private:
    void rebuildSmoothed();

    QCPGraph *raw_ = nullptr;
    QCPGraph *smoothed_ = nullptr;
    QCPGraph *validation_ = nullptr;
    double smoothing_ = 0;
    double ema_ = 0;
    bool have_ema_ = false;
    bool log_scale_ = false;
};

} // namespace headroom::ui::plots
