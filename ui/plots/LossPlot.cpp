#include "LossPlot.h"

#include "PlotStyle.h"
#include "runs/RunSeries.h"

#include <cmath>

namespace headroom::ui::plots {

LossPlot::LossPlot(QWidget *parent) : PlotWidget(tr("Loss"), parent) {
    setObjectName(QStringLiteral("lossPlot"));
    xAxis->setLabel(tr("step"));
    yAxis->setLabel(tr("loss"));
    raw_ = addGraph();
    raw_->setName(tr("training"));
    smoothed_ = addGraph();
    smoothed_->setName(tr("training (smoothed)"));
    validation_ = addGraph();
    validation_->setName(tr("validation"));
    validation_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
    for (QCPGraph *graph : {raw_, smoothed_, validation_}) {
        graph->setAdaptiveSampling(true);
    }
    smoothed_->setVisible(false);
    smoothed_->removeFromLegend();
    restyle();
}

void LossPlot::restyle() {
    const PlotColors colors = plotColors(palette());
    raw_->setPen(QPen(smoothing_ > 0 ? colors.train_raw : colors.train, 1));
    smoothed_->setPen(QPen(colors.train, 1));
    validation_->setPen(QPen(colors.validation, 2));
}

void LossPlot::clearData() {
    raw_->data()->clear();
    smoothed_->data()->clear();
    validation_->data()->clear();
    have_ema_ = false;
    scheduleReplot();
}

void LossPlot::append(const RunSeries &series, int first_step, int first_eval) {
    for (int i = first_step; i < series.steps.size(); ++i) {
        const double step = series.steps.at(i);
        const double loss = series.loss.at(i);
        if (!std::isfinite(loss)) {
            continue; // a NaN step is an event, not a point
        }
        raw_->addData(step, loss);
        ema_ = have_ema_ ? smoothing_ * ema_ + (1 - smoothing_) * loss : loss;
        have_ema_ = true;
        if (smoothing_ > 0) {
            smoothed_->addData(step, ema_);
        }
    }
    for (int i = first_eval; i < series.eval_steps.size(); ++i) {
        validation_->addData(series.eval_steps.at(i), series.eval_loss.at(i));
    }
    scheduleReplot();
}

void LossPlot::setSmoothing(double weight) {
    smoothing_ = qBound(0.0, weight, 0.999);
    smoothed_->setVisible(smoothing_ > 0);
    if (smoothing_ > 0) {
        smoothed_->addToLegend();
    } else {
        smoothed_->removeFromLegend();
    }
    rebuildSmoothed();
    restyle();
    scheduleReplot();
}

void LossPlot::rebuildSmoothed() {
    smoothed_->data()->clear();
    have_ema_ = false;
    QVector<double> keys;
    QVector<double> values;
    keys.reserve(raw_->dataCount());
    values.reserve(raw_->dataCount());
    for (auto it = raw_->data()->constBegin(); it != raw_->data()->constEnd(); ++it) {
        ema_ = have_ema_ ? smoothing_ * ema_ + (1 - smoothing_) * it->value : it->value;
        have_ema_ = true;
        keys.push_back(it->key);
        values.push_back(ema_);
    }
    if (smoothing_ > 0) {
        smoothed_->setData(keys, values, true);
    }
}

void LossPlot::setLogScale(bool on) {
    log_scale_ = on;
    if (on) {
        yAxis->setScaleType(QCPAxis::stLogarithmic);
        yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    } else {
        yAxis->setScaleType(QCPAxis::stLinear);
        yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    }
    scheduleReplot();
}

int LossPlot::trainPointCount() const {
    return raw_->dataCount();
}

int LossPlot::validationPointCount() const {
    return validation_->dataCount();
}

} // namespace headroom::ui::plots
