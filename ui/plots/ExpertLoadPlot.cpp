#include "ExpertLoadPlot.h"

#include "PlotStyle.h"
#include "runs/RunSeries.h"

#include <QMouseEvent>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <limits>

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
    gradient.setNanHandling(QCPColorGradient::nhTransparent); // room for columns to come
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
    rows_ = 0;
    steps_ = 0;
    columns_ = 0;
    width_ = 1;
    sums_.clear();
    counts_.clear();
    key_sums_.clear();
    cells_written_ = 0;
    scheduleReplot();
}

void ExpertLoadPlot::setSeries(const RunSeries &series) {
    clearData();
    append(series, 0);
}

void ExpertLoadPlot::append(const RunSeries &series, int first_moe_step) {
    const int rows = series.moe_blocks * series.moe_experts;
    const bool same_shape = steps_ == 0 || (rows == rows_ && series.moe_experts == experts_);
    if (first_moe_step != steps_ || !same_shape) {
        setSeries(series);
        return;
    }
    const int steps = int(series.moe_steps.size());
    if (rows == 0 || first_moe_step >= steps) {
        return;
    }
    if (steps_ == 0) {
        startMap(series);
    }
    int dirty = steps_ / width_; // the first column the new steps change
    int shown = columns_;        // columns that hold data in the map now
    for (int i = first_moe_step; i < steps; ++i) {
        if (steps_ == width_ * kMaxColumns) {
            mergeColumnPairs();
            dirty = 0;
        }
        addStep(series.moe_steps.at(i), series.moe_load.at(i));
    }
    if (reserveColumns(columns_)) {
        dirty = 0;
        shown = 0;
    }
    writeColumns(dirty, std::max(shown, columns_));
    const double first_key = key_sums_.front() / counts_.front();
    const int size = map_->data()->keySize();
    map_->data()->setKeyRange(QCPRange(first_key, first_key + columnSpacing() * (size - 1)));
    scheduleReplot();
}

void ExpertLoadPlot::startMap(const RunSeries &series) {
    experts_ = series.moe_experts;
    rows_ = series.moe_blocks * series.moe_experts;
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
    for (int block = 1; block < series.moe_blocks; ++block) {
        auto *line = new QCPItemStraightLine(this);
        line->setPen(separatorPen());
        const double y = block * series.moe_experts - 0.5;
        line->point1->setCoords(0, y);
        line->point2->setCoords(1, y);
        separators_.push_back(line);
    }
}

void ExpertLoadPlot::addStep(double key, const QVector<double> &load) {
    const int column = steps_ / width_;
    if (column == columns_) {
        sums_.resize(sums_.size() + std::size_t(rows_), 0.0);
        counts_.push_back(0);
        key_sums_.push_back(0.0);
        ++columns_;
    }
    double *sums = sums_.data() + std::size_t(column) * std::size_t(rows_);
    for (int row = 0; row < rows_; ++row) {
        sums[row] += load.at(row);
    }
    ++counts_[std::size_t(column)];
    key_sums_[std::size_t(column)] += key;
    ++steps_;
}

// Only called with every column full, so pairs are whole and the step-to-column rule
// (step index / width) still holds afterwards.
void ExpertLoadPlot::mergeColumnPairs() {
    const int merged = columns_ / 2;
    const auto rows = std::size_t(rows_);
    for (int column = 0; column < merged; ++column) {
        const auto to = std::size_t(column);
        const auto a = 2 * to;
        for (std::size_t row = 0; row < rows; ++row) {
            sums_[to * rows + row] = sums_[a * rows + row] + sums_[(a + 1) * rows + row];
        }
        counts_[to] = counts_[a] + counts_[a + 1];
        key_sums_[to] = key_sums_[a] + key_sums_[a + 1];
    }
    sums_.resize(std::size_t(merged) * rows);
    counts_.resize(std::size_t(merged));
    key_sums_.resize(std::size_t(merged));
    columns_ = merged;
    width_ *= 2;
}

// The map holds room for more columns than have data (NaN cells are transparent), so that a
// new column is written in place. Its size follows the columns in powers of two up to
// kMaxColumns, where it stays once columns merge, so a map kept up to date and one built at once
// are the same. Returns whether it was reallocated.
bool ExpertLoadPlot::reserveColumns(int columns) {
    constexpr int kFirstSize = 64;
    int grown = kFirstSize;
    while (grown < columns) {
        grown *= 2;
    }
    grown = width_ > 1 ? kMaxColumns : std::min(grown, kMaxColumns);
    if (grown == map_->data()->keySize() && map_->data()->valueSize() == rows_) {
        return false;
    }
    auto *data = new QCPColorMapData(grown, rows_, QCPRange(0, 1), QCPRange(0, rows_ - 1));
    data->fill(std::numeric_limits<double>::quiet_NaN());
    cells_written_ += std::int64_t(grown) * rows_;
    map_->setData(data, false);
    return true;
}

// Writes the mean shares of columns [first, last); columns past the data become empty again.
void ExpertLoadPlot::writeColumns(int first, int last) {
    QCPColorMapData *data = map_->data();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (int column = first; column < last; ++column) {
        const bool filled = column < columns_;
        const double count = filled ? counts_[std::size_t(column)] : 1;
        const double *sums =
            filled ? sums_.data() + std::size_t(column) * std::size_t(rows_) : nullptr;
        for (int row = 0; row < rows_; ++row) {
            data->setCell(column, row, filled ? sums[row] / count : nan);
        }
    }
    cells_written_ += std::int64_t(std::max(0, last - first)) * rows_;
}

// Cell centres are evenly spaced from the mean step of the first column to that of the last.
double ExpertLoadPlot::columnSpacing() const {
    if (columns_ < 2) {
        return 1;
    }
    const double first = key_sums_.front() / counts_.front();
    const double last = key_sums_.back() / counts_.back();
    return last > first ? (last - first) / (columns_ - 1) : 1;
}

void ExpertLoadPlot::fitRanges() {
    if (columns_ == 0 || rows_ == 0) {
        return;
    }
    const double spacing = columnSpacing();
    const double first = map_->data()->keyRange().lower;
    // A single column's view spans two steps, as it always has.
    const double half = columns_ > 1 ? spacing / 2 : 1;
    xAxis->setRange(first - half, first + spacing * (columns_ - 1) + half);
    yAxis->setRange(-0.5, rows_ - 0.5);
}

double ExpertLoadPlot::share(int column, int row) const {
    return map_->data()->cell(column, row);
}

QString ExpertLoadPlot::cellText(double key, double value) const {
    QCPColorMapData *data = map_->data();
    if (experts_ == 0 || columns_ == 0) {
        return {};
    }
    int column = 0;
    int row = 0;
    data->coordToCell(key, value, &column, &row);
    if (column < 0 || column >= columns_ || row < 0 || row >= rows_) {
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
