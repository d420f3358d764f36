#pragma once

#include "PlotWidget.h"

namespace headroom::ui {
struct RunSeries;
}

namespace headroom::ui::plots {

// Tokens per second (or samples per second for recipes without tokens) against the step.
class ThroughputPlot : public PlotWidget {
    Q_OBJECT

public:
    explicit ThroughputPlot(QWidget *parent = nullptr);

    void clearData();
    void append(const RunSeries &series, int first_step);
    int pointCount() const;

protected:
    void restyle() override;
    void fitRanges() override;

private:
    QCPGraph *graph_ = nullptr;
};

} // namespace headroom::ui::plots
