#pragma once

#include "PlotWidget.h"
#include "runs/RunSeries.h"

namespace headroom::ui::plots {

// Live and peak memory per step (MiB), the budget as a horizontal line, and memory events
// (out-of-memory recoveries, ladder rungs, validation back-offs, growth warnings) as
// markers whose details show when the pointer hovers them. The axis follows the run's memory: a
// budget far above it (a run of 250 MiB under a 17 GiB budget) is named at the top with an arrow
// instead of flattening the curves onto zero, unless the full budget scale is asked for.
class MemoryPlot : public PlotWidget {
    Q_OBJECT

public:
    explicit MemoryPlot(QWidget *parent = nullptr);

    void clearData();
    void append(const RunSeries &series, int first_step);
    // Marks a memory event at the live memory of its step; other kinds are ignored.
    void addEvent(const RunSeries &series, const RunEvent &event);
    // bytes == 0: no budget.
    void setBudget(std::uint64_t bytes);
    // true: the axis always reaches the budget line.
    void setFullBudgetScale(bool on);
    bool fullBudgetScale() const { return full_budget_scale_; }
    // Whether the budget line is within the axis (false: named above it), and the label's text.
    bool budgetOnScale() const { return budget_line_->visible(); }
    QString budgetLabelText() const { return budget_label_->text(); }
    // Where the budget label is drawn, in pixels (after a replot).
    QRectF budgetLabelRect() const;

    int livePointCount() const;
    int markerCount() const { return int(markers_.size()); }
    int reservedPointCount() const;
    // The tooltip text of the marker nearest to the pixel position, empty when none is close.
    QString markerTextAt(const QPointF &pixel) const;
    QPointF markerPixel(int index) const;

protected:
    void restyle() override;
    void fitRanges() override;
    void mouseMoveEvent(QMouseEvent *event) override;

private:
    struct Marker {
        double step = 0;
        double mib = 0;
        QString text;
    };

    QCPGraph *live_ = nullptr;
    QCPGraph *peak_ = nullptr;
    QCPGraph *reserved_ = nullptr; // in the legend once a device reports a cache
    QCPGraph *oom_markers_ = nullptr;
    QCPGraph *ladder_markers_ = nullptr;
    QCPGraph *warning_markers_ = nullptr;
    QCPItemStraightLine *budget_line_ = nullptr;
    QCPItemText *budget_label_ = nullptr;
    void placeBudget();

    double budget_mib_ = 0;
    QString budget_text_;
    bool full_budget_scale_ = false;
    QVector<Marker> markers_;
};

// A readable one-paragraph description of a memory event for tooltips and the Log.
QString describeMemoryEvent(const EngineEvent &event);

} // namespace headroom::ui::plots
