#pragma once

#include "PlotWidget.h"

#include <QVector>

namespace headroom::ui {
struct RunSeries;
}

namespace headroom::ui::plots {

// A distributed run's ranks side by side: each rank's peak memory in the step (left axis,
// solid) and the throughput of its share (right axis, dashed), one colour per rank. A rank
// that holds more (rank 0 with a sharded optimizer and the embedding) or lags shows here.
class RankPlot : public PlotWidget {
    Q_OBJECT

public:
    explicit RankPlot(QWidget *parent = nullptr);

    void clearData();
    void append(const RunSeries &series, int first_rank_step);
    int rankCount() const { return int(memory_.size()); }
    int pointCount() const;

protected:
    void restyle() override;
    void fitRanges() override;

private:
    void ensureRanks(int ranks);

    QVector<QCPGraph *> memory_;
    QVector<QCPGraph *> throughput_;
};

} // namespace headroom::ui::plots
