#include "PlotWidget.h"

#include "PlotStyle.h"

#include <QFileInfo>

#include <algorithm>

namespace headroom::ui::plots {

PlotWidget::PlotWidget(const QString &title, QWidget *parent) : QCustomPlot(parent) {
    setAccessibleName(title);
    setMinimumHeight(140);
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    axisRect()->setRangeZoom(Qt::Horizontal);
    axisRect()->setRangeDrag(Qt::Horizontal);
    setNoAntialiasingOnDrag(true);
    plotLayout()->insertRow(0);
    title_ =
        new QCPTextElement(this, title, QFont(font().family(), font().pointSize(), QFont::Bold));
    plotLayout()->addElement(0, 0, title_);
    legend->setVisible(true);
    legend->setFont(font());
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst); // one row: covers less of the data
    axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    replot_timer_.setSingleShot(true);
    replot_timer_.setInterval(kReplotIntervalMs);
    connect(&replot_timer_, &QTimer::timeout, this, &PlotWidget::replotNow);
    applyPalette(this, palette());
}

void PlotWidget::scheduleReplot() {
    if (!replot_timer_.isActive()) {
        replot_timer_.start();
    }
}

void PlotWidget::replotNow() {
    if (follow_) {
        fitRanges();
    }
    ++replot_count_;
    replot(QCustomPlot::rpQueuedReplot);
}

bool PlotWidget::exportTo(const QString &path) {
    if (follow_) {
        fitRanges();
    }
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("pdf")) {
        return savePdf(path, width(), height());
    }
    return savePng(path, width(), height(), 2.0);
}

void PlotWidget::fitValuesAroundZero(std::initializer_list<QCPGraph *> graphs) {
    double lower = 0;
    double upper = 0;
    for (QCPGraph *graph : graphs) {
        bool found = false;
        const QCPRange range = graph->getValueRange(found);
        if (found) {
            lower = std::min(lower, range.lower);
            upper = std::max(upper, range.upper);
        }
    }
    const double span = upper - lower > 0 ? upper - lower : 1.0;
    yAxis->setRange(lower - 0.05 * span, upper + 0.05 * span);
}

void PlotWidget::placeLegendBeside() {
    axisRect()->insetLayout()->take(legend);
    auto *side = new QCPLayoutGrid;
    plotLayout()->addElement(1, 1, side);
    plotLayout()->setColumnStretchFactor(1, 0.001);
    side->addElement(0, 0, legend);
    side->addElement(1, 0, new QCPLayoutElement(this)); // keeps the legend's rows together
    side->setRowStretchFactor(0, 0.001);
    legend->setFillOrder(QCPLayoutGrid::foRowsFirst);
}

void PlotWidget::fitRanges() {
    rescaleAxes(true);
    // Room above the data for the legend.
    const QCPRange range = yAxis->range();
    yAxis->setRange(range.lower - range.size() * 0.04, range.upper + range.size() * 0.35);
    // A run's first steps would otherwise fill the width with fractional step ticks.
    constexpr double kMinimumStepSpan = 10;
    if (xAxis->range().size() < kMinimumStepSpan) {
        xAxis->setRange(xAxis->range().lower, xAxis->range().lower + kMinimumStepSpan);
    }
}

void PlotWidget::mousePressEvent(QMouseEvent *event) {
    follow_ = false;
    QCustomPlot::mousePressEvent(event);
}

void PlotWidget::wheelEvent(QWheelEvent *event) {
    follow_ = false;
    QCustomPlot::wheelEvent(event);
}

void PlotWidget::mouseDoubleClickEvent(QMouseEvent *event) {
    follow_ = true;
    scheduleReplot();
    QCustomPlot::mouseDoubleClickEvent(event);
}

void PlotWidget::changeEvent(QEvent *event) {
    QCustomPlot::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyPalette(this, palette());
        restyle();
        scheduleReplot();
    }
}

} // namespace headroom::ui::plots
