#include "RankPlot.h"

#include "PlotStyle.h"
#include "runs/RunSeries.h"

namespace headroom::ui::plots {

namespace {
constexpr double kMiB = 1024.0 * 1024.0;
}

RankPlot::RankPlot(QWidget *parent) : PlotWidget(tr("Ranks"), parent) {
    setObjectName(QStringLiteral("rankPlot"));
    xAxis->setLabel(tr("step"));
    yAxis->setLabel(tr("peak memory (MiB)"));
    yAxis2->setLabel(tr("samples/s"));
    yAxis2->setVisible(true);
    legend->setVisible(true);
    axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignRight | Qt::AlignVCenter);
    restyle();
}

void RankPlot::ensureRanks(int ranks) {
    while (memory_.size() < ranks) {
        const int rank = int(memory_.size());
        QCPGraph *memory = addGraph(xAxis, yAxis);
        memory->setName(tr("rank %1 memory").arg(rank));
        QCPGraph *throughput = addGraph(xAxis, yAxis2);
        throughput->setName(tr("rank %1 samples/s").arg(rank));
        memory_.push_back(memory);
        throughput_.push_back(throughput);
    }
    restyle();
}

void RankPlot::restyle() {
    for (int rank = 0; rank < memory_.size(); ++rank) {
        const QColor color = seriesColor(rank, palette());
        memory_[rank]->setPen(QPen(color, 1));
        QPen dashed(color, 1);
        dashed.setStyle(Qt::DashLine);
        throughput_[rank]->setPen(dashed);
    }
}

void RankPlot::clearData() {
    for (int rank = 0; rank < memory_.size(); ++rank) {
        memory_[rank]->data()->clear();
        throughput_[rank]->data()->clear();
    }
    scheduleReplot();
}

void RankPlot::append(const RunSeries &series, int first_rank_step) {
    ensureRanks(series.rank_count);
    for (int i = first_rank_step; i < series.rank_steps.size(); ++i) {
        const double step = series.rank_steps.at(i);
        for (int rank = 0; rank < series.rank_count; ++rank) {
            memory_[rank]->addData(step, series.rank_peak.at(i).at(rank) / kMiB);
            throughput_[rank]->addData(step, series.rank_throughput.at(i).at(rank));
        }
    }
    scheduleReplot();
}

namespace {

// Upper end of the graphs' values on one axis, 0 when they hold none.
double highestValue(const QVector<QCPGraph *> &graphs) {
    double highest = 0;
    for (QCPGraph *graph : graphs) {
        bool any = false;
        const QCPRange values = graph->getValueRange(any);
        if (any) {
            highest = qMax(highest, values.upper);
        }
    }
    return highest;
}

} // namespace

void RankPlot::fitRanges() {
    PlotWidget::fitRanges();
    // Memory in the top band, throughput in the bottom one, the legend between them (ranks
    // holding the same memory draw one line).
    yAxis->setRange(0, highestValue(memory_) * 1.15 + 1e-9);
    yAxis2->setRange(0, highestValue(throughput_) * 3.2 + 1e-9);
}

int RankPlot::pointCount() const {
    int points = 0;
    for (QCPGraph *graph : memory_) {
        points += graph->dataCount();
    }
    return points;
}

} // namespace headroom::ui::plots
