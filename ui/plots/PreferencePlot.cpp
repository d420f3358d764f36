#include "PreferencePlot.h"

#include "PlotStyle.h"
#include "runs/RunSeries.h"

namespace headroom::ui::plots {

PreferencePlot::PreferencePlot(QWidget *parent) : PlotWidget(tr("Rewards"), parent) {
    setObjectName(QStringLiteral("preferencePlot"));
    xAxis->setLabel(tr("step"));
    yAxis->setLabel(tr("reward"));
    yAxis2->setVisible(true);
    yAxis2->setLabel(tr("pairs ranked right"));
    chosen_ = addGraph();
    chosen_->setName(tr("chosen reward"));
    rejected_ = addGraph();
    rejected_->setName(tr("rejected reward"));
    margin_ = addGraph();
    margin_->setName(tr("reward margin"));
    accuracy_ = addGraph(xAxis, yAxis2);
    accuracy_->setName(tr("reward accuracy"));
    for (QCPGraph *graph : {chosen_, rejected_, margin_, accuracy_}) {
        graph->setAdaptiveSampling(true);
    }
    applyPalette(this, palette()); // yAxis2 became visible after PlotWidget styled the axes
    // Accuracy sits at 1 and the margin climbs to the top: an inset legend would cover them.
    placeLegendBeside();
    restyle();
}

void PreferencePlot::restyle() {
    const PlotColors colors = plotColors(palette());
    chosen_->setPen(QPen(colors.validation, 1));
    QPen rejected(colors.validation, 1);
    rejected.setStyle(Qt::DashLine);
    rejected_->setPen(rejected);
    margin_->setPen(QPen(colors.train, 2));
    accuracy_->setPen(QPen(colors.throughput, 1));
}

void PreferencePlot::clearData() {
    for (QCPGraph *graph : {chosen_, rejected_, margin_, accuracy_}) {
        graph->data()->clear();
    }
    scheduleReplot();
}

void PreferencePlot::append(const RunSeries &series, int first_preference_step) {
    for (int i = first_preference_step; i < series.preference_steps.size(); ++i) {
        const double step = series.preference_steps.at(i);
        chosen_->addData(step, series.chosen_rewards.at(i));
        rejected_->addData(step, series.rejected_rewards.at(i));
        margin_->addData(step, series.reward_margin.at(i));
        accuracy_->addData(step, series.reward_accuracy.at(i));
    }
    scheduleReplot();
}

void PreferencePlot::fitRanges() {
    PlotWidget::fitRanges();
    fitValuesAroundZero({chosen_, rejected_, margin_});
    yAxis2->setRange(0, 1.05);
}

} // namespace headroom::ui::plots
