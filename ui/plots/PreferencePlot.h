#pragma once

#include "PlotWidget.h"

namespace headroom::ui {
struct RunSeries;
}

namespace headroom::ui::plots {

// What a preference objective (DPO, IPO, SimPO, ORPO) learns, step by step: the mean rewards of
// the chosen (solid) and rejected (dashed) completions and their margin on the left axis, the
// share of the step's pairs ranked right on the right axis (0 to 1).
class PreferencePlot : public PlotWidget {
    Q_OBJECT

public:
    explicit PreferencePlot(QWidget *parent = nullptr);

    void clearData();
    void append(const RunSeries &series, int first_preference_step);
    QCPGraph *marginGraph() const { return margin_; }
    QCPGraph *accuracyGraph() const { return accuracy_; }
    QCPGraph *chosenGraph() const { return chosen_; }
    QCPGraph *rejectedGraph() const { return rejected_; }

protected:
    void restyle() override;
    void fitRanges() override;

private:
    QCPGraph *chosen_ = nullptr;
    QCPGraph *rejected_ = nullptr;
    QCPGraph *margin_ = nullptr;
    QCPGraph *accuracy_ = nullptr;
};

} // namespace headroom::ui::plots
