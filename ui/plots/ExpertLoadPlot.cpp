#include "ExpertLoadPlot.h"

#include "PlotStyle.h"
#include "RunSeries.h"

#include <QMouseEvent>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace headroom::ui::plots {

ExpertLoadPlot::ExpertLoadPlot(QWidget *parent) : PlotWidget(tr("Expert Load"), parent) {
    setObjectName(QStringLiteral("expertLoadPlot"));
    xAxis->setLabel(tr("step"));
    yAxis->setLabel(tr("MoE block"));
    yAxis->setRangeReversed(true); // block 1 on top, in model order
    yAxis->grid()->setVisible(false);
    legend->setVisible(false);
    map_ = new QCPColorMap(xAxis, yAxis);
    map_->setName(tr("expert load"));
    map_->setInterpolate(false);
    setMouseTracking(true);
    scale_ = new QCPColorScale(this);
    scale_->setType(QCPAxis::atRight);
    scale_->axis()->setLabel(tr("share of assignments"));
    plotLayout()->addElement(1, 1, scale_);
    map_->setColorScale(scale_);
    auto *margins = new QCPMarginGroup(this);
    axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    scale_->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    restyle();
}

QPen ExpertLoadPlot::separatorPen() const {
    QColor color = palette().color(QPalette::WindowText);
    color.setAlpha(120);
    return QPen(color, 1);
}

void ExpertLoadPlot::restyle() {
    for (QCPItemStraightLine *line : separators_) {
        line->setPen(separatorPen());
    }
    const PlotColors colors = plotColors(palette());
    QCPColorGradient gradient;
    gradient.setColorInterpolation(QCPColorGradient::ciRGB);
    gradient.setColorStopAt(0, colors.train);
    gradient.setColorStopAt(0.5, palette().color(QPalette::Base));
    gradient.setColorStopAt(1, colors.budget);
    map_->setGradient(gradient);
    const QColor text = palette().color(QPalette::WindowText);
    QCPAxis *axis = scale_->axis();
    axis->setBasePen(QPen(text));
    axis->setTickPen(QPen(text));
    axis->setSubTickPen(QPen(text));
    axis->setTickLabelColor(text);
    axis->setLabelColor(text);
}

void ExpertLoadPlot::clearData() {
    map_->data()->clear();
    for (QCPItemStraightLine *line : separators_) {
        removeItem(line);
    }
    separators_.clear();
    balanced_ = 0;
    experts_ = 0;
    scheduleReplot();
}

void ExpertLoadPlot::setSeries(const RunSeries &series) {
    const int rows = series.moe_blocks * series.moe_experts;
    const int steps = int(series.moe_steps.size());
    if (rows == 0 || steps == 0) {
        clearData();
        return;
    }
    const int columns = std::min(steps, kMaxColumns);
    auto *data = new QCPColorMapData(columns, rows, QCPRange(0, 1), QCPRange(0, rows - 1));
    // Cell centres: the mean step of the first and of the last column.
    auto column_of = [&](int step_index) {
        return int(std::int64_t(step_index) * columns / steps);
    };
    QVector<int> counts(columns, 0);
    QVector<double> key_sums(columns, 0.0);
    for (int i = 0; i < steps; ++i) {
        const int column = column_of(i);
        ++counts[column];
        key_sums[column] += series.moe_steps.at(i);
        const QVector<double> &load = series.moe_load.at(i);
        for (int row = 0; row < rows; ++row) {
            data->setCell(column, row, data->cell(column, row) + load.at(row));
        }
    }
    for (int column = 0; column < columns; ++column) {
        for (int row = 0; row < rows; ++row) {
            data->setCell(column, row, data->cell(column, row) / counts[column]);
        }
    }
    const double first_key = key_sums.first() / counts.first();
    const double last_key = key_sums.last() / counts.last();
    data->setKeyRange(columns > 1 ? QCPRange(first_key, last_key)
                                  : QCPRange(first_key - 0.5, first_key + 0.5));
    map_->setData(data, false);

    experts_ = series.moe_experts;
    balanced_ = 1.0 / series.moe_experts;
    map_->setDataRange(QCPRange(0, 2 * balanced_));

    // One label per block at its middle row; rows of single experts would crowd the axis.
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int block = 0; block < series.moe_blocks; ++block) {
        ticker->addTick(block * series.moe_experts + (series.moe_experts - 1) / 2.0,
                        tr("block %1").arg(block + 1));
    }
    yAxis->setTicker(ticker);
    yAxis->setLabel(tr("MoE block, %1 experts each").arg(series.moe_experts));
    // Balanced rows are the background colour: lines keep the blocks apart.
    while (int(separators_.size()) > series.moe_blocks - 1) {
        removeItem(separators_.back());
        separators_.pop_back();
    }
    while (int(separators_.size()) < series.moe_blocks - 1) {
        auto *line = new QCPItemStraightLine(this);
        line->setPen(separatorPen());
        separators_.push_back(line);
    }
    for (int block = 1; block < series.moe_blocks; ++block) {
        const double y = block * series.moe_experts - 0.5;
        QCPItemStraightLine *line = separators_[std::size_t(block - 1)];
        line->point1->setCoords(0, y);
        line->point2->setCoords(1, y);
    }
    scheduleReplot();
}

void ExpertLoadPlot::fitRanges() {
    const QCPColorMapData *data = map_->data();
    if (data->keySize() == 0 || data->valueSize() == 0) {
        return;
    }
    const double key_half = data->keySize() > 1
                                ? data->keyRange().size() / (data->keySize() - 1) / 2
                                : data->keyRange().size() / 2;
    xAxis->setRange(data->keyRange().lower - key_half, data->keyRange().upper + key_half);
    yAxis->setRange(-0.5, data->valueSize() - 0.5);
}

int ExpertLoadPlot::columnCount() const {
    return map_->data()->keySize();
}

int ExpertLoadPlot::rowCount() const {
    return map_->data()->valueSize();
}

double ExpertLoadPlot::share(int column, int row) const {
    return map_->data()->cell(column, row);
}

QString ExpertLoadPlot::cellText(double key, double value) const {
    QCPColorMapData *data = map_->data();
    if (experts_ == 0 || data->keySize() == 0) {
        return {};
    }
    int column = 0;
    int row = 0;
    data->coordToCell(key, value, &column, &row);
    if (column < 0 || column >= data->keySize() || row < 0 || row >= data->valueSize()) {
        return {};
    }
    double step = 0;
    data->cellToCoord(column, row, &step, nullptr);
    return tr("Step %1, block %2, expert %3: %4% of the assignments (balanced: %5%)")
        .arg(std::llround(step))
        .arg(row / experts_ + 1)
        .arg(row % experts_)
        .arg(100 * data->cell(column, row), 0, 'f', 1)
        .arg(100 * balanced_, 0, 'f', 1);
}

void ExpertLoadPlot::mouseMoveEvent(QMouseEvent *event) {
    PlotWidget::mouseMoveEvent(event);
    if (event->buttons() != Qt::NoButton) {
        return;
    }
    const QPointF pos = event->position();
    const QString text = axisRect()->rect().contains(pos.toPoint())
                             ? cellText(xAxis->pixelToCoord(pos.x()), yAxis->pixelToCoord(pos.y()))
                             : QString();
    if (text.isEmpty()) {
        QToolTip::hideText();
    } else {
        QToolTip::showText(event->globalPosition().toPoint(), text, this);
    }
}

RoutingPlot::RoutingPlot(QWidget *parent) : PlotWidget(tr("Routing"), parent) {
    setObjectName(QStringLiteral("routingPlot"));
    xAxis->setLabel(tr("step"));
    yAxis->setLabel(tr("dropped %"));
    yAxis2->setVisible(true);
    yAxis2->setLabel(tr("loss"));
    dropped_ = addGraph();
    dropped_->setName(tr("dropped assignments"));
    aux_ = addGraph(xAxis, yAxis2);
    aux_->setName(tr("balancing loss"));
    z_ = addGraph(xAxis, yAxis2);
    z_->setName(tr("router z-loss"));
    applyPalette(this, palette()); // yAxis2 became visible after PlotWidget styled the axes
    restyle();
}

void RoutingPlot::restyle() {
    const PlotColors colors = plotColors(palette());
    dropped_->setPen(QPen(colors.budget, 1));
    aux_->setPen(QPen(colors.train, 1));
    z_->setPen(QPen(colors.peak, 1));
}

void RoutingPlot::clearData() {
    dropped_->data()->clear();
    aux_->data()->clear();
    z_->data()->clear();
    scheduleReplot();
}

void RoutingPlot::append(const RunSeries &series, int first_moe_step) {
    for (int i = first_moe_step; i < series.moe_steps.size(); ++i) {
        const double step = series.moe_steps.at(i);
        dropped_->addData(step, 100 * series.moe_dropped.at(i));
        aux_->addData(step, series.moe_aux_loss.at(i));
        z_->addData(step, series.moe_z_loss.at(i));
    }
    scheduleReplot();
}

void RoutingPlot::fitRanges() {
    PlotWidget::fitRanges();
    // Both axes start at 0 and leave the top third to the legend.
    bool found = false;
    const QCPRange dropped = dropped_->getValueRange(found);
    yAxis->setRange(0, std::max(1.0, found ? dropped.upper * 1.5 : 0.0));
    double upper = 0;
    for (QCPGraph *graph : {aux_, z_}) {
        const QCPRange range = graph->getValueRange(found);
        upper = found ? std::max(upper, range.upper) : upper;
    }
    yAxis2->setRange(0, upper > 0 ? upper * 1.5 : 1.0);
}

} // namespace headroom::ui::plots
