#include "RetrievalPlots.h"

#include "PlotStyle.h"
#include "runs/RunSeries.h"

#include <algorithm>
#include <cmath>

namespace headroom::ui::plots {

namespace {

QPen dashed(const QColor &color) {
    QPen pen(color, 1);
    pen.setStyle(Qt::DashLine);
    return pen;
}

// Starts at 0 and leaves the top third to the legend.
QCPRange fromZero(const std::initializer_list<QCPGraph *> &graphs) {
    double upper = 0;
    for (QCPGraph *graph : graphs) {
        bool found = false;
        const QCPRange range = graph->getValueRange(found);
        upper = found ? std::max(upper, range.upper) : upper;
    }
    return {0, upper > 0 ? upper * 1.5 : 1.0};
}

} // namespace

RetrievalSparsityPlot::RetrievalSparsityPlot(QWidget *parent) : PlotWidget(tr("Sparsity"), parent) {
    setObjectName(QStringLiteral("retrievalSparsityPlot"));
    xAxis->setLabel(tr("step"));
    yAxis->setLabel(tr("FLOPS"));
    yAxis2->setVisible(true);
    yAxis2->setLabel(tr("non-zero weights"));
    flops_q_ = addGraph();
    flops_q_->setName(tr("FLOPS queries"));
    flops_d_ = addGraph();
    flops_d_->setName(tr("FLOPS passages"));
    nonzeros_q_ = addGraph(xAxis, yAxis2);
    nonzeros_q_->setName(tr("non-zeros per query"));
    nonzeros_d_ = addGraph(xAxis, yAxis2);
    nonzeros_d_->setName(tr("non-zeros per passage"));
    for (QCPGraph *graph : {flops_q_, flops_d_, nonzeros_q_, nonzeros_d_}) {
        graph->setAdaptiveSampling(true);
    }
    applyPalette(this, palette()); // yAxis2 became visible after PlotWidget styled the axes
    restyle();
}

void RetrievalSparsityPlot::restyle() {
    const PlotColors colors = plotColors(palette());
    flops_q_->setPen(QPen(colors.train, 1));
    flops_d_->setPen(dashed(colors.train));
    nonzeros_q_->setPen(QPen(colors.throughput, 1));
    nonzeros_d_->setPen(dashed(colors.throughput));
}

void RetrievalSparsityPlot::clearData() {
    for (QCPGraph *graph : {flops_q_, flops_d_, nonzeros_q_, nonzeros_d_}) {
        graph->data()->clear();
    }
    scheduleReplot();
}

void RetrievalSparsityPlot::append(const RunSeries &series, int first_retrieval_step) {
    for (int i = first_retrieval_step; i < series.retrieval_steps.size(); ++i) {
        const double step = series.retrieval_steps.at(i);
        flops_q_->addData(step, series.flops_q.at(i));
        flops_d_->addData(step, series.flops_d.at(i));
        nonzeros_q_->addData(step, series.query_nonzeros.at(i));
        nonzeros_d_->addData(step, series.passage_nonzeros.at(i));
    }
    scheduleReplot();
}

void RetrievalSparsityPlot::fitRanges() {
    PlotWidget::fitRanges();
    yAxis->setRange(fromZero({flops_q_, flops_d_}));
    yAxis2->setRange(fromZero({nonzeros_q_, nonzeros_d_}));
}

RetrievalQualityPlot::RetrievalQualityPlot(QWidget *parent)
    : PlotWidget(tr("Retrieval quality"), parent) {
    setObjectName(QStringLiteral("retrievalQualityPlot"));
    xAxis->setLabel(tr("step"));
    yAxis->setLabel(tr("validation score"));
    mrr_ = addGraph();
    mrr_->setName(tr("MRR@10"));
    recall_ = addGraph();
    recall_->setName(tr("Recall@100"));
    // Validations are few: each one is a visible point.
    mrr_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
    recall_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, 6));
    // Recall@100 often sits at 1, where an inset legend would cover it: the legend goes beside
    // the axes instead.
    placeLegendBeside();
    restyle();
}

void RetrievalQualityPlot::restyle() {
    const PlotColors colors = plotColors(palette());
    mrr_->setPen(QPen(colors.validation, 1));
    recall_->setPen(QPen(colors.peak, 1));
}

void RetrievalQualityPlot::clearData() {
    mrr_->data()->clear();
    recall_->data()->clear();
    first_step_ = 0;
    last_step_ = 0;
    scheduleReplot();
}

void RetrievalQualityPlot::append(const RunSeries &series, int first_ranking_eval) {
    for (int i = first_ranking_eval; i < series.ranking_eval_steps.size(); ++i) {
        const double step = series.ranking_eval_steps.at(i);
        if (!std::isnan(series.mrr_at_10.at(i))) {
            mrr_->addData(step, series.mrr_at_10.at(i));
        }
        if (!std::isnan(series.recall_at_100.at(i))) {
            recall_->addData(step, series.recall_at_100.at(i));
        }
    }
    if (!series.steps.isEmpty()) {
        first_step_ = series.steps.first();
        last_step_ = series.steps.last();
    }
    scheduleReplot();
}

void RetrievalQualityPlot::fitRanges() {
    PlotWidget::fitRanges();
    // The steps between validations are part of the run: the x axis spans them all.
    if (last_step_ > 0) {
        constexpr double kMinimumStepSpan = 10; // as PlotWidget keeps it
        xAxis->setRange(first_step_, std::max(last_step_, first_step_ + kMinimumStepSpan));
    }
    // Both figures are fractions.
    yAxis->setRange(0, 1.05);
}

} // namespace headroom::ui::plots
