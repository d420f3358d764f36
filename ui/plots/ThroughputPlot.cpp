#include "ThroughputPlot.h"

#include "PlotStyle.h"
#include "runs/RunSeries.h"

namespace headroom::ui::plots {

ThroughputPlot::ThroughputPlot(QWidget *parent) : PlotWidget(tr("Throughput"), parent) {
    setObjectName(QStringLiteral("throughputPlot"));
    xAxis->setLabel(tr("step"));
    yAxis->setLabel(tr("tokens/s"));
    graph_ = addGraph();
    graph_->setName(tr("throughput"));
    graph_->setAdaptiveSampling(true);
    legend->setVisible(false);
    restyle();
}

void ThroughputPlot::restyle() {
    graph_->setPen(QPen(plotColors(palette()).throughput, 1));
}

void ThroughputPlot::clearData() {
    graph_->data()->clear();
    scheduleReplot();
}

void ThroughputPlot::append(const RunSeries &series, int first_step) {
    yAxis->setLabel(series.throughput_in_tokens ? tr("tokens/s") : tr("samples/s"));
    for (int i = first_step; i < series.steps.size(); ++i) {
        graph_->addData(series.steps.at(i), series.throughput.at(i));
    }
    scheduleReplot();
}

void ThroughputPlot::fitRanges() {
    PlotWidget::fitRanges();
    yAxis->setRangeLower(0);
}

int ThroughputPlot::pointCount() const {
    return graph_->dataCount();
}

} // namespace headroom::ui::plots
