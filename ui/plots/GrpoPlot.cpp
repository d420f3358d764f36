#include "GrpoPlot.h"

#include "PlotStyle.h"
#include "runs/RunSeries.h"

namespace headroom::ui::plots {

GrpoPlot::GrpoPlot(QWidget *parent) : PlotWidget(tr("Rewards"), parent) {
    setObjectName(QStringLiteral("grpoPlot"));
    xAxis->setLabel(tr("step"));
    yAxis->setLabel(tr("reward"));
    yAxis2->setVisible(true);
    yAxis2->setLabel(tr("completion length (tokens)"));
    reward_ = addGraph();
    reward_->setName(tr("mean reward"));
    spread_ = addGraph();
    spread_->setName(tr("reward spread in groups"));
    length_ = addGraph(xAxis, yAxis2);
    length_->setName(tr("completion length"));
    for (QCPGraph *graph : {reward_, spread_, length_}) {
        graph->setAdaptiveSampling(true);
    }
    applyPalette(this, palette()); // yAxis2 became visible after PlotWidget styled the axes
    placeLegendBeside();
    restyle();
}

void GrpoPlot::restyle() {
    const PlotColors colors = plotColors(palette());
    reward_->setPen(QPen(colors.train, 2));
    QPen spread(colors.validation, 1);
    spread.setStyle(Qt::DashLine);
    spread_->setPen(spread);
    length_->setPen(QPen(colors.throughput, 1));
}

void GrpoPlot::clearData() {
    for (QCPGraph *graph : {reward_, spread_, length_}) {
        graph->data()->clear();
    }
    scheduleReplot();
}

void GrpoPlot::append(const RunSeries &series, int first_grpo_step) {
    for (int i = first_grpo_step; i < series.grpo_steps.size(); ++i) {
        const double step = series.grpo_steps.at(i);
        reward_->addData(step, series.grpo_reward.at(i));
        spread_->addData(step, series.grpo_reward_std.at(i));
        length_->addData(step, series.grpo_completion_length.at(i));
    }
    scheduleReplot();
}

void GrpoPlot::fitRanges() {
    PlotWidget::fitRanges();
    fitValuesAroundZero({reward_, spread_});
    bool found = false;
    const QCPRange lengths = length_->getValueRange(found);
    yAxis2->setRange(0, found && lengths.upper > 0 ? lengths.upper * 1.1 : 1.0);
}

} // namespace headroom::ui::plots
