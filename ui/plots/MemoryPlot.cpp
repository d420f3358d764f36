#include "MemoryPlot.h"

#include "PlotStyle.h"
#include "look/DisplayText.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QToolTip>

namespace headroom::ui::plots {

namespace {
constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kHoverRadiusPx = 10;
// A budget more than this many times the axis the run's memory needs is named, not drawn.
constexpr double kBudgetFarAbove = 2.5;
// The axis above a budget line drawn on it: room for the legend above the line.
constexpr double kBudgetHeadroom = 1.45;

QString bytesText(const QJsonValue &value) {
    return DisplayText::bytes(std::uint64_t(value.toDouble()));
}
} // namespace

QString describeMemoryEvent(const EngineEvent &event) {
    const QJsonObject details =
        QJsonDocument::fromJson(QByteArray::fromStdString(event.details)).object();
    QString title;
    if (event.kind == "oom_recovered") {
        title = MemoryPlot::tr("Out-of-memory recovery at step %1: micro-batch %2 → %3, "
                               "accumulation %4")
                    .arg(event.step)
                    .arg(details.value(QStringLiteral("from")).toInt())
                    .arg(details.value(QStringLiteral("to")).toInt())
                    .arg(details.value(QStringLiteral("accumulation")).toInt());
    } else if (event.kind == "ladder") {
        title = MemoryPlot::tr("Memory ladder at step %1").arg(event.step);
    } else if (event.kind == "eval_oom_backoff") {
        title = MemoryPlot::tr("Validation backed off at step %1").arg(event.step);
    } else if (event.kind == "memory_growing") {
        title = MemoryPlot::tr("Memory keeps growing (step %1)").arg(event.step);
    } else if (event.kind == "out_of_memory") {
        title = MemoryPlot::tr("Out of memory at step %1: the run paused").arg(event.step);
    } else if (event.kind == "device_fallback") {
        title = MemoryPlot::tr("Out of memory on %1 at step %2: the run moved to the CPU")
                    .arg(details.value(QStringLiteral("from")).toString())
                    .arg(event.step);
    } else {
        title = QString::fromStdString(event.kind);
    }
    QString text = title;
    if (details.contains(QStringLiteral("bytes_at_failure"))) {
        text +=
            QLatin1Char('\n') +
            MemoryPlot::tr("Live at failure: %1").arg(bytesText(details.value("bytes_at_failure")));
    }
    if (details.contains(QStringLiteral("device"))) {
        text +=
            QLatin1Char('\n') +
            MemoryPlot::tr("Device: %1").arg(details.value(QStringLiteral("device")).toString());
    }
    if (!event.message.empty()) {
        text += QLatin1Char('\n') + QString::fromStdString(event.message);
    }
    return text;
}

MemoryPlot::MemoryPlot(QWidget *parent) : PlotWidget(tr("Memory"), parent) {
    setObjectName(QStringLiteral("memoryPlot"));
    setMouseTracking(true);
    xAxis->setLabel(tr("step"));
    yAxis->setLabel(tr("MiB"));
    live_ = addGraph();
    live_->setName(tr("live after step"));
    peak_ = addGraph();
    peak_->setName(tr("peak during step"));
    reserved_ = addGraph();
    reserved_->setName(tr("reserved by the allocator"));
    reserved_->removeFromLegend();
    oom_markers_ = addGraph();
    oom_markers_->setName(tr("out-of-memory recovery"));
    ladder_markers_ = addGraph();
    ladder_markers_->setName(tr("back-off or ladder rung"));
    warning_markers_ = addGraph();
    warning_markers_->setName(tr("warning"));
    for (QCPGraph *graph : {live_, peak_, reserved_}) {
        graph->setAdaptiveSampling(true);
    }
    for (QCPGraph *graph : {oom_markers_, ladder_markers_, warning_markers_}) {
        graph->setLineStyle(QCPGraph::lsNone);
        graph->removeFromLegend();
    }
    budget_line_ = new QCPItemStraightLine(this);
    budget_line_->setVisible(false);
    budget_label_ = new QCPItemText(this);
    budget_label_->setVisible(false);
    restyle();
}

void MemoryPlot::restyle() {
    const PlotColors colors = plotColors(palette());
    live_->setPen(QPen(colors.live, 1));
    peak_->setPen(QPen(colors.peak, 1));
    reserved_->setPen(QPen(colors.peak, 1, Qt::DotLine));
    oom_markers_->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssTriangleInverted, colors.oom, colors.oom, 11));
    ladder_markers_->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDiamond, colors.ladder, colors.ladder, 10));
    warning_markers_->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssSquare, colors.warning, colors.warning, 8));
    budget_line_->setPen(QPen(colors.budget, 1.5, Qt::DashLine));
    budget_label_->setColor(colors.budget);
}

void MemoryPlot::clearData() {
    for (QCPGraph *graph :
         {live_, peak_, reserved_, oom_markers_, ladder_markers_, warning_markers_}) {
        graph->data()->clear();
    }
    reserved_->removeFromLegend();
    markers_.clear();
    scheduleReplot();
}

void MemoryPlot::append(const RunSeries &series, int first_step) {
    for (int i = first_step; i < series.steps.size(); ++i) {
        live_->addData(series.steps.at(i), series.mem_live.at(i) / kMiB);
        peak_->addData(series.steps.at(i), series.mem_peak.at(i) / kMiB);
        // CPU has no allocator cache: the curve appears only where a device reports one.
        if (i < series.mem_reserved.size() && series.mem_reserved.at(i) > 0) {
            if (reserved_->data()->isEmpty()) {
                reserved_->addToLegend();
            }
            reserved_->addData(series.steps.at(i), series.mem_reserved.at(i) / kMiB);
        }
    }
    scheduleReplot();
}

void MemoryPlot::addEvent(const RunSeries &series, const RunEvent &event) {
    const std::string &kind = event.event.kind;
    if (!isMemoryEventKind(kind)) {
        return;
    }
    const double step = double(event.event.step);
    const double mib = series.liveMemoryAt(step) / kMiB;
    QCPGraph *graph = warning_markers_;
    if (kind == "oom_recovered" || kind == "out_of_memory" || kind == "device_fallback") {
        graph = oom_markers_;
    } else if (kind == "ladder" || kind == "eval_oom_backoff") {
        graph = ladder_markers_;
    }
    graph->addData(step, mib);
    graph->addToLegend(); // shown in the legend once it has a marker
    markers_.push_back(Marker{step, mib, describeMemoryEvent(event.event)});
    scheduleReplot();
}

void MemoryPlot::setBudget(std::uint64_t bytes) {
    budget_mib_ = double(bytes) / kMiB;
    budget_text_ = bytes == 0 ? QString() : DisplayText::bytes(bytes);
    placeBudget();
    scheduleReplot();
}

void MemoryPlot::setFullBudgetScale(bool on) {
    full_budget_scale_ = on;
    scheduleReplot();
}

void MemoryPlot::fitRanges() {
    PlotWidget::fitRanges();
    double upper = std::max(yAxis->range().upper, 1.0);
    // Before the first step there is no memory to scale to: the budget sets the scale.
    if (budget_mib_ > 0 &&
        (full_budget_scale_ || live_->dataCount() == 0 || budget_mib_ <= upper * kBudgetFarAbove)) {
        upper = std::max(upper, budget_mib_ * kBudgetHeadroom);
    }
    yAxis->setRange(0, upper);
    placeBudget();
}

void MemoryPlot::placeBudget() {
    const bool has_budget = budget_mib_ > 0;
    const bool on_scale = has_budget && budget_mib_ <= yAxis->range().upper;
    budget_line_->setVisible(on_scale);
    budget_label_->setVisible(has_budget);
    if (!has_budget) {
        return;
    }
    // Left-aligned: the legend sits at the top right.
    budget_label_->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    if (on_scale) {
        budget_line_->point1->setCoords(0, budget_mib_);
        budget_line_->point2->setCoords(1, budget_mib_);
        budget_label_->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        budget_label_->position->setTypeY(QCPItemPosition::ptPlotCoords);
        budget_label_->position->setCoords(0.01, budget_mib_);
        budget_label_->setText(tr("budget %1").arg(budget_text_));
    } else {
        budget_label_->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        budget_label_->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        budget_label_->position->setCoords(0.01, 0.02);
        budget_label_->setText(tr("↑ budget %1, above this scale").arg(budget_text_));
    }
}

QRectF MemoryPlot::budgetLabelRect() const {
    return {budget_label_->topLeft->pixelPosition(), budget_label_->bottomRight->pixelPosition()};
}

int MemoryPlot::reservedPointCount() const {
    return reserved_->dataCount();
}

int MemoryPlot::livePointCount() const {
    return live_->dataCount();
}

QPointF MemoryPlot::markerPixel(int index) const {
    const Marker &marker = markers_.at(index);
    return {xAxis->coordToPixel(marker.step), yAxis->coordToPixel(marker.mib)};
}

QString MemoryPlot::markerTextAt(const QPointF &pixel) const {
    double best = kHoverRadiusPx * kHoverRadiusPx;
    QString text;
    for (int i = 0; i < markers_.size(); ++i) {
        const QPointF delta = markerPixel(i) - pixel;
        const double distance = QPointF::dotProduct(delta, delta);
        if (distance <= best) {
            best = distance;
            text = markers_.at(i).text;
        }
    }
    return text;
}

void MemoryPlot::mouseMoveEvent(QMouseEvent *event) {
    PlotWidget::mouseMoveEvent(event);
    const QString text = markerTextAt(event->position());
    if (text.isEmpty()) {
        QToolTip::hideText();
    } else {
        QToolTip::showText(event->globalPosition().toPoint(), text, this);
    }
}

} // namespace headroom::ui::plots
